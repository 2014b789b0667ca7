/* Bounded path exploration of an ISM (`ismv verify`): depth-first over
 * rules up to a bound, path conditions, environmental constraints and
 * error ranges solved with the solver backend. Two strategies that must
 * find the same counterexamples: incremental (one solver, push/pop per
 * edge, infeasible prefixes pruned) and per-path (the paper's algorithm: a
 * fresh solve of every syntactic path, no pruning). */
#ifndef VERIFIER_EXPLORE_H
#define VERIFIER_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/ism.h"

typedef enum { EXPLORE_ACTUAL, EXPLORE_IDEAL, EXPLORE_NAIVE } explore_mode_t;
typedef enum { EXPLORE_INCREMENTAL, EXPLORE_PER_PATH } explore_strategy_t;
typedef enum { EXPLORE_VERIFIED, EXPLORE_VIOLATED, EXPLORE_INCONCLUSIVE } explore_verdict_t;

typedef struct {
  int bound;                   /* maximal path length (rules), >= 1 */
  explore_mode_t mode;
  explore_strategy_t strategy;
  double budget_seconds;       /* wall clock; 0 = none */
  bool check;                  /* expensive self-checks */
  int jobs;                    /* threads for the incremental search; 0 = one per processor.
                                  The result does not depend on it. */
} explore_options_t;

/* One execution of an interactive action inside a rule. Value arrays are
 * indexed by variable id; only sensing entries of before/after and only
 * uncertain normal entries of actual are meaningful. */
typedef struct {
  int step;        /* index of the rule on the path */
  int position;    /* index in the rule's do: list */
  int action;
  double *before;  /* true values before the action */
  double *after;   /* true values after it */
  double *actual;  /* actual (assumed + error) value of each uncertain normal variable */
  bool *has_actual;
} cex_action_t;

/* A counterexample: a path s0 r1 s1 ... rn sn, failing first after rn.
 * Values are indexed [step * nvars + var]. */
typedef struct {
  int length;
  int *rules;        /* [length] */
  int *states;       /* [length + 1] */
  double *truth;     /* [(length + 1) * nvars]: true value at each sensing, and after the last rule
                        (normal variables: their value, as the app assumes it) */
  double *sensed;    /* [length * nvars]: sensed values (normal variables: as truth) */
  cex_action_t *actions;
  size_t nactions;
  int fail_position; /* the do: position of the failing action in the last rule, or -1: model-wide failure */
  int fail_action;   /* its action id, or -1 */
  /* Filled by the probability module; has_probability false until then. */
  bool has_probability;
  double probability;
  double probability_error; /* 0 when exact */
} cex_t;

typedef struct {
  explore_verdict_t verdict;
  cex_t *cexs;            /* in discovery order (depth-first, rule order) */
  size_t ncexs;
  unsigned long long paths;   /* path prefixes (edges) explored */
  unsigned long long pruned;  /* infeasible prefixes cut */
  unsigned long long solver_checks;
  double seconds;
  const char *reason;     /* why inconclusive, or NULL; static or owned by the result */
  char *reason_owned;
  bool replay_failed;     /* a counterexample failed its re-check (internal error) */
  char *replay_message;
} explore_result_t;

/* Runs the exploration. Never fails on a loaded model: solver trouble makes
 * the verdict inconclusive. The result owns its memory. */
void explore_run(const ism_model_t *m, const explore_options_t *opt, explore_result_t *res);
void explore_result_free(explore_result_t *res);

/* Re-checks a counterexample against the model by evaluating every
 * condition, effect, range, error bound and failure on its values (with a
 * relative tolerance of 1e-9 for the solver's rounding). Returns NULL when
 * it holds, else a message (caller frees). */
char *explore_replay(const ism_model_t *m, explore_mode_t mode, const cex_t *c);

/* Sorts counterexamples by descending probability, ties in path order. */
void explore_sort_by_probability(explore_result_t *res);

const char *explore_mode_name(explore_mode_t mode);

#endif
