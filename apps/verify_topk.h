/* The top-K search of `ismv verify` (the default report and --top): the
 * counterexamples are ranked as the depth-first search finds them, and the
 * search skips every edge and subtree whose counterexamples can no longer
 * enter the report: the most likely counterexample of each failure class,
 * and with --top the K most likely overall. The report is the same as full
 * enumeration followed by ranking (tests/topk_verify.sh); the totals are
 * not computed. The bound that decides what is skipped, and why it is
 * sound, is in docs/verify.md ("Top-K search"). */
#ifndef APPS_VERIFY_TOPK_H
#define APPS_VERIFY_TOPK_H

#include <stdbool.h>
#include <stddef.h>

#include "apps/verify_options.h"
#include "ism/cex.h"
#include "ism/ism.h"
#include "probability/rank.h"
#include "verifier/paths/explore.h"

/* One failure class (last rule, failing action) and what is known of it. */
typedef struct {
  int rule, action;
  bool empty;      /* proven to have no counterexample at all (mode actual) */
  bool bound_only; /* proven boundary-only whatever the path before (mode actual) */
  double cap;      /* no member's probability exceeds it: 0 (joint, bound_only) or 1 */
  bool closed;     /* no member found from now on can enter the report */
  size_t found;    /* members found (a lower bound of the class's size) */
} topk_class_t;

typedef struct {
  const ism_model_t *m;
  const rank_options_t *ropt;
  long long top;   /* the K of --top, 0: none (the classes view) */
  double min_prob; /* members below it do not count toward --top */
  topk_class_t *classes;
  size_t nclasses;
  bool *open_rules; /* [nrules]: for explore_options_t.open_rules */
  cex_t *kept;      /* what the report can still need, in the report's order (cex_compare) */
  size_t nkept;
  size_t found, found_boundary_only; /* every counterexample the search handed over */
  verify_ranker_t *ranker;
  bool unranked; /* the ranking stopped (time limit, signal) */
  char *bad;     /* the first failed self-check, or NULL */
} topk_t;

/* Prepares the classes of m (in mode actual each is decided empty or
 * boundary-only with the solver: verifier/boundary.h) and the open rules.
 * Borrows m and ropt. */
void topk_init(topk_t *t, const ism_model_t *m, const rank_options_t *ropt, long long top, double min_prob);
void topk_free(topk_t *t);

/* An explore_options_t on_cex for a topk_t: ranks c (verify_rank), keeps it
 * if the report may need it, and closes what can no longer change. */
void topk_take(void *ctx, cex_t *c);

/* Moves the kept counterexamples (in the report's order) into res->cexs. */
void topk_finish(topk_t *t, explore_result_t *res);

#endif
