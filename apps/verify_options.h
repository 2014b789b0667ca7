/* The options `verify` and `simulate` share (bound, mode, budget, top,
 * probability): each from the command line, else from the model's
 * `verify:` block, else the default. */
#ifndef APPS_VERIFY_OPTIONS_H
#define APPS_VERIFY_OPTIONS_H

#include "apps/cli.h"
#include "ism/ism.h"
#include "probability/rank.h"
#include "verifier/paths/explore.h"

/* Fills *opt (incremental strategy, automatic split), *ropt and *top
 * (0 = all). `self` must define the six options (bound, mode, budget, top, probability, valuation). */
void verify_options_resolve(const cli_command_t *self, const cli_value_t *values, const ism_model_t *m,
                            explore_options_t *opt, rank_options_t *ropt, long long *top);

/* Ranks the counterexamples as `verify` and `simulate` report them: in mode
 * actual each is first decided boundary-only or not (verifier/boundary.h;
 * an interior witness that fails its re-check is dropped, the solver's
 * values stay; so they do with ropt->optimise false), then rank_all. */
void verify_rank(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n);

#endif
