/* The options `verify` and `simulate` share (bound, mode, top, probability,
 * and the common --timeout): each from the command line, else from the
 * model's `verify:` block (parsed and range-checked as on the command line),
 * else the default. */
#ifndef APPS_VERIFY_OPTIONS_H
#define APPS_VERIFY_OPTIONS_H

#include "apps/cli.h"
#include "apps/progress.h"
#include "ism/ism.h"
#include "probability/rank.h"
#include "verifier/paths/explore.h"

/* Merges the model's `verify:` block into the command-line values
 * (cli_merge_file_options) and fills *opt (incremental strategy, automatic
 * split), *ropt and *top (0 = all) from the result; a `timeout:` (or
 * `budget:`) of the block starts the time limit when the command line set
 * none (cli_file_time_limit). Returns the merged values (caller frees), or
 * NULL after reporting a located error in the block. `self` must define the
 * five options (bound, mode, top, probability, valuation). */
cli_value_t *verify_options_resolve(cli_ctx_t *ctx, const cli_command_t *self, const cli_value_t *values,
                                    const ism_model_t *m, explore_options_t *opt, rank_options_t *ropt,
                                    long long *top);

/* Ranks the counterexamples as `verify` and `simulate` report them: each
 * first gets the values it is ranked from as a function of its own path
 * and failure (a fresh solver's witness: explore_witness, or in mode actual
 * a fresh boundary solver's interior witness, verifier/boundary.h, which
 * also decides it boundary-only or not; a boundary-only one, not ranked,
 * the relaxation's point, verifier/paths/witness.h), on ropt->jobs
 * threads, then rank_all. So a counterexample's values and probability do not depend on
 * the search that found it (split, threads, shards, ranks). Returns false
 * when ropt->stop ended it early (the rest are unranked). */
bool verify_rank(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n);

/* The values of counterexamples shown unranked (--probability none): each
 * its own path's witness, the relaxation's point (verifier/paths/witness.h)
 * or where it finds none a fresh solver's (explore_witness), on ropt->jobs
 * threads (ropt->mode; ropt->stop ends it early). */
void verify_witnesses(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n);

/* The solver budget of each boundary-only decision. */
#define VERIFY_BOUNDARY_RLIMIT 50000000ULL

/* verify_rank for counterexamples handed over one at a time (the top-K
 * search), with one ranking session for all.
 * verify_ranker_rank returns false, leaving c unranked, once ropt->stop
 * says stop; ub is c's bound_true when the caller has it (it depends on
 * c's path alone), else negative. Borrows m and ropt. */
typedef struct verify_ranker verify_ranker_t;
verify_ranker_t *verify_ranker_new(const ism_model_t *m, const rank_options_t *ropt);
bool verify_ranker_rank(verify_ranker_t *v, cex_t *c, double ub);
/* The values of c shown unranked, as verify_witnesses gives them (the
 * ranker's class cache serves every call: --all streaming). Thread-safe
 * (the class cache is locked; verify_ranker_rank is not). */
void verify_ranker_witness(verify_ranker_t *v, cex_t *c);
/* Decides every class (last rule, failing place) boundary-only or not now,
 * in rule order, and frees the solver that did (a Z3 context: ~17 MB that
 * would otherwise live through the search); later calls need none. */
void verify_ranker_decide_classes(verify_ranker_t *v);
void verify_ranker_delete(verify_ranker_t *v);

/* The search's progress line of `verify` and `simulate`: the command's
 * name, then depth, prefixes, counterexamples and prefixes per second. */
typedef struct {
  progress_t line;
  const char *command; /* static */
  int bound;
} verify_progress_t;

/* An explore_options_t on_progress for a verify_progress_t: redraws the
 * line when due (progress.h), and only then composes it. */
void verify_progress_show(void *ctx, const explore_progress_t *p);

#endif
