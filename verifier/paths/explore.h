/* Bounded path exploration of an ISM (`ismv verify`): depth-first over
 * rules up to a bound, path conditions, environmental constraints and
 * error ranges solved with the solver backend. Two strategies that must
 * find the same counterexamples: incremental (one solver, push/pop per
 * edge, infeasible prefixes pruned; each check first tries to extend the
 * model of the path so far by the new step, exactly, and asks the solver
 * only when that fails: extend.h) and per-path (the paper's algorithm: a
 * fresh solve of every syntactic path, no pruning). */
#ifndef VERIFIER_EXPLORE_H
#define VERIFIER_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/cex.h"
#include "ism/ism.h"

typedef enum { EXPLORE_INCREMENTAL, EXPLORE_PER_PATH } explore_strategy_t;
typedef enum { EXPLORE_VERIFIED, EXPLORE_VIOLATED, EXPLORE_INCONCLUSIVE } explore_verdict_t;

/* The reason of a search stopped by a signal (smt_stop_all). */
#define EXPLORE_INTERRUPTED explore_interrupted
extern const char explore_interrupted[];

/* Totals so far, for a progress display. */
typedef struct {
  unsigned long long paths;           /* prefixes (per-path: paths) explored */
  unsigned long long counterexamples; /* found */
  int depth;                          /* longest prefix reached */
} explore_progress_t;

/* The top-K search's side (apps/verify_topk.h). The search runs in parts:
 * the levels above the split, then each subtree below it (one part without
 * a split); each part gets its own state from part_new, on its own thread.
 * While open_rules(part)[r] is true, a counterexample of that part whose
 * last rule is r may still change the report; take(part, c) receives each
 * counterexample of the part (re-checked; take owns what c owns), on the
 * part's thread, in depth-first order, before the search goes on, and may
 * clear entries. The part's search skips the failure check of an edge
 * whose rule is closed and does not go below a prefix from whose last state
 * no open rule is reachable within the bound (res->cut counts what it
 * skipped). What a part cuts depends only on what came before it in that
 * part (and on the part above the split), never on threads. part_done(ctx,
 * part) ends each part, one call at a time: the part above the split first,
 * before any subtree's part starts; the subtrees' in any order. */
typedef struct explore_topk {
  void *ctx;
  void *(*part_new)(void *ctx, const int *prefix, int depth); /* the subtree's prefix (depth 0: above the split) */
  const bool *(*open_rules)(void *part);
  void (*take)(void *part, cex_t *c);
  void (*part_done)(void *ctx, void *part);
  /* Optional (NULL: never): true when no counterexample extending the
   * prefix rules[0..depth) (states[0..depth]) can change the part's report;
   * the search then does not go below it (res->cut counts it). */
  bool (*prefix_cut)(void *part, const int *rules, const int *states, int depth);
} explore_topk_t;

typedef struct explore_result explore_result_t;

typedef struct {
  int bound; /* maximal path length (rules), >= 1 */
  ism_mode_t mode;
  explore_strategy_t strategy;
  double budget_seconds; /* wall clock; 0 = none */
  int jobs;              /* threads for the incremental search; 0 = one per processor.
                            The result does not depend on it. */
  bool solver_only;      /* every check by the solver (no model extension): the engine
                            before the tiers, kept as a baseline */
  /* Streaming (optional): each counterexample, once re-checked, is handed
   * to on_cex in report order (depth-first, rules in file order) as soon as
   * every one before it is known, and is not kept: res->cexs stays empty
   * and res->nstreamed counts them. on_cex takes over what c owns
   * (cex_free), not c itself; it is called by one thread at a time. Memory
   * then holds only the counterexamples of subtrees searched ahead of the
   * one being reported, at most `jobs` subtrees ahead; the automatic split
   * is one level deeper (smaller subtrees) when streaming. */
  void (*on_cex)(void *ctx, cex_t *c);
  void *on_cex_ctx;
  /* Streaming in two halves (optional, instead of on_cex): the thread that
   * found c re-checks it and calls on_cex_render at once, several threads
   * at a time (it must be thread-safe and its text a function of c alone);
   * it takes over what c owns and returns a text (caller frees), which
   * on_cex_text gets in report order, one thread at a time. What waits for
   * its place is that text: in memory up to spool_memory bytes per subtree
   * (0: 1 MiB), beyond it in a temporary file, so memory does not grow with
   * the count. */
  char *(*on_cex_render)(void *ctx, cex_t *c);
  void (*on_cex_text)(void *ctx, const char *text);
  size_t spool_memory;
  /* Progress (optional): called every few hundred prefixes with the totals
   * so far, from any search thread but never two at once; it must be quick. */
  void (*on_progress)(void *ctx, const explore_progress_t *p);
  void *on_progress_ctx;
  /* Top-K search (optional; incremental strategy): see explore_topk_t. */
  const struct explore_topk *topk;
  int split_depth; /* depth below which subtrees get a solver each (and a thread);
                      0 = never, -1 = automatic (2 from bound 7 on; when streaming
                      max(3, bound - 6): subtrees of at most 6 levels). The values
                      reported depend on it (other solvers), the paths do not. */
  /* Distribution (optional; verifier/paths/distribute.h): with next_subtree
   * set, the incremental search below the split takes its subtrees from it
   * instead of searching all: a search thread calls next_subtree with the
   * number of subtrees and their prefixes (depth rules each, depth-first
   * order) for the index of the next subtree to search, -1 when none is
   * left, and hands each searched subtree's result to subtree_done, which
   * may take over its counterexamples (depth-first order, not yet
   * re-checked: set part->cexs NULL); the rest of part is freed after. The
   * run's result then holds only the search above the split. Both are
   * called from any search thread, several at once: they must be
   * thread-safe. Not with on_cex. */
  long (*next_subtree)(void *ctx, size_t nsubtrees, const int *prefixes, int depth);
  void (*subtree_done)(void *ctx, size_t index, explore_result_t *part);
  void *subtree_ctx;
} explore_options_t;

struct explore_result {
  explore_verdict_t verdict;
  cex_t *cexs; /* in discovery order (depth-first, rule order) */
  size_t ncexs;
  size_t nstreamed;          /* counterexamples handed to on_cex */
  unsigned long long paths;  /* path prefixes (edges) explored */
  unsigned long long pruned; /* infeasible prefixes cut */
  unsigned long long cut;    /* top-K search: edges and subtrees skipped */
  unsigned long long solver_checks;
  /* Checks per tier. A prefix check (can the path go on without failing?)
   * or a failure check (can its last rule fail?) is answered by extending
   * the model of the path so far, else by repairing the values of the
   * whole path (both only ever satisfiable), else by the
   * solver; every unsatisfiable answer is the solver's. The incremental
   * search makes no prefix check after a satisfiable failure check. */
  unsigned long long extended_prefixes, extended_failures, repaired_prefixes, repaired_failures;
  unsigned long long alone_failures; /* unsatisfiable failure checks answered by the step alone (Z3) */
  unsigned long long solver_prefixes, solver_failures;
  double seconds;
  const char *reason; /* why inconclusive, or NULL; static or owned by the result;
                         EXPLORE_INTERRUPTED (this very pointer) after smt_stop_all */
  char *reason_owned;
  bool replay_failed; /* a counterexample failed its re-check (internal error) */
  char *replay_message;
};

/* Runs the exploration. Never fails on a loaded model: solver trouble makes
 * the verdict inconclusive. The result owns its memory. */
void explore_run(const ism_model_t *m, const explore_options_t *opt, explore_result_t *res);
/* Adds a part of a search (a subtree's result) to `into`: its counterexamples
 * (moved, after those already there), every count, its reason when `into`
 * has none (owned strings change hands); frees what is left of the part. */
void explore_result_add(explore_result_t *into, explore_result_t *part);
void explore_result_free(explore_result_t *res);

/* Replaces c's values by the witness of a fresh solver for c's own path
 * (its rules, none failing before the last) failing as c fails (the same
 * action, none before it): the values are then a function of c's path and
 * failure alone, not of the search that found it (which solver, which
 * model it extended: the split, the threads, the ranks). Returns false,
 * leaving c as it was, when that solver gives no model (stopped, unknown).
 * The caller re-checks c (cex_replay). Thread-safe; costs a solver context
 * (a few milliseconds). */
bool explore_witness(const ism_model_t *m, ism_mode_t mode, cex_t *c);

/* The depth at which a run with these options splits the search into
 * subtrees (split_depth resolved), or -1 when it does not split. */
int explore_split_depth(const explore_options_t *opt);

#endif
