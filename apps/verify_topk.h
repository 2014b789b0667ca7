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

#include <pthread.h>
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

/* A counterexample found and waiting for its ranking, with its bound. */
typedef struct {
  cex_t c;
  double ub; /* bound_true: its reported probability will be at most this */
} topk_pending_t;

/* What one part of the search knows (explore_topk_t): a copy of the
 * classes, what it may still need, and its own ranking solver and session.
 * With a ranking thread (topk_t.rank_thread) the search hands what it finds
 * to a queue that the ranking thread empties, highest bound first; `lock`
 * guards the queue, kept, classes and open_next. */
typedef struct {
  const struct topk *run;
  topk_class_t *classes;
  bool *open_rules; /* [nrules], the search's copy of open_next (read by explore.c unlocked) */
  bool *open_next;  /* [nrules], as the ranking leaves them */
  pthread_mutex_t lock;
  pthread_cond_t wake; /* something queued, or the search ended */
  pthread_cond_t room; /* the queue has room again (the search waits at TOPK_QUEUE) */
  topk_pending_t *pending;
  size_t npending;
  bool search_done;
  int nthreads;              /* ranking threads (0: the search ranks what it finds at once) */
  pthread_t *threads;        /* [nthreads] */
  verify_ranker_t **rankers; /* [nthreads], one per ranking thread (a session is not thread-safe) */
  cex_t *kept;      /* in the report's order (cex_compare) */
  size_t nkept;
  size_t found, found_boundary_only;
  verify_ranker_t *ranker;
  struct bound *bound; /* the joint estimator's bound per counterexample, or NULL (per-rule) */
  size_t bounded;      /* found, but not ranked: their bound could not enter the report */
  bool unranked;
  char *bad;
} topk_part_t;

typedef struct topk {
  const ism_model_t *m;
  const rank_options_t *ropt;
  long long top;         /* the K of --top, 0: none (the classes view) */
  double min_prob;       /* members below it do not count toward --top */
  topk_class_t *classes; /* as decided before the search */
  size_t nclasses;
  cex_t *kept; /* the parts' kept ones merged, in the report's order */
  size_t nkept;
  cex_t *seed; /* what the part above the split kept: each subtree's part starts with those before it */
  size_t nseed;
  bool seeded;
  int rank_threads; /* ranking threads of each part next to its search (set after topk_init; 0: none) */
  size_t found, found_boundary_only; /* every counterexample the search handed over */
  size_t bounded;                    /* of them, not ranked: their bound could not enter the report */
  unsigned long long class_checks;   /* the solver checks that decided the classes before the search */
  bool unranked;                     /* the ranking stopped (time limit, signal) */
  char *bad;                         /* a failed self-check, or NULL */
} topk_t;

/* Prepares the classes of m for a search up to `bound` rules (in mode
 * actual each is decided empty or boundary-only with the solver on its last
 * step, verifier/boundary.h, and empty by the interval hulls of the values
 * reachable within the bound, probability/bound.h) and the search's side:
 * *side is for explore_options_t.topk. Borrows m and ropt. */
void topk_init(topk_t *t, const ism_model_t *m, const rank_options_t *ropt, int bound, long long top,
               double min_prob, explore_topk_t *side);
void topk_free(topk_t *t);

/* Moves the kept counterexamples (in the report's order) into res->cexs. */
void topk_finish(topk_t *t, explore_result_t *res);

/* ---- parts searched in other processes (apps/verify_shard.c) ---- */

/* What a part of the search hands over: the counterexamples it kept (in
 * the report's order, ranked and re-checked) and its counts. */
typedef struct {
  cex_t *kept;
  size_t nkept;
  size_t found, found_boundary_only;
  bool unranked;
  char *bad;      /* a failed self-check, or NULL */
  size_t bounded; /* found but not ranked by their bound (not carried across processes: 0 from a shard) */
} topk_part_result_t;

/* Ends a part (made by explore_topk_t.part_new) without merging it into
 * the run: moves what it kept and its counts into *out (free it with
 * topk_part_result_free, or merge it) and frees the part. */
void topk_part_detach(void *part, topk_part_result_t *out);
/* Merges a part's result into t as explore_topk_t.part_done merges a part
 * (the part above the split first, the subtrees' in any order); takes what
 * *in owns and empties it. */
void topk_merge_part(topk_t *t, topk_part_result_t *in);
void topk_part_result_free(topk_part_result_t *r);

#endif
