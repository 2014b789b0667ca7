/* Counterexamples of `ismv verify` as plain data: a path of rules with the
 * true and sensed value of every variable at every step, the actuation
 * errors, and (once ranked) a probability. Produced by the exploration
 * (verifier/), ranked and simulated by probability/, rendered by apps/.
 * cex_replay re-checks one against the model's semantics without a solver. */
#ifndef ISM_CEX_H
#define ISM_CEX_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/ism.h"

/* The paper's three approaches: actual (environmental constraints and
 * error), ideal (constraints, no error), naive (neither). */
typedef enum { ISM_MODE_ACTUAL, ISM_MODE_IDEAL, ISM_MODE_NAIVE } ism_mode_t;

const char *ism_mode_name(ism_mode_t mode);

/* One execution of an interactive action inside a rule. Value arrays are
 * indexed by variable id; only sensing entries of before/after and only
 * uncertain normal entries of actual are meaningful. */
typedef struct {
  int step;     /* index of the rule on the path */
  int position; /* index in the rule's do: list */
  int action;
  double *before; /* true values before the action */
  double *after;  /* true values after it */
  double *actual; /* actual (assumed + error) value of each uncertain normal variable */
  bool *has_actual;
} cex_action_t;

/* A counterexample: a path s0 r1 s1 ... rn sn, failing first after rn.
 * Values are indexed [step * nvars + var]. */
typedef struct {
  int length;
  int *rules;     /* [length] */
  int *states;    /* [length + 1] */
  double *truth;  /* [(length + 1) * nvars]: true value at each sensing, and after the last rule
                     (normal variables: their value, as the app assumes it) */
  double *sensed; /* [length * nvars]: sensed values (normal variables: as truth) */
  cex_action_t *actions;
  size_t nactions;
  int fail_position; /* the do: position of the failing action in the last rule, or -1: model-wide failure */
  int fail_action;   /* its action id, or -1 */
  /* Set by verifier/boundary.h in mode actual; boundary_known false until then. */
  bool boundary_known;
  bool boundary_only; /* the failure needs an error exactly at its range's edge (or an equality): probability
                         0 */
  /* Filled by the probability module; has_probability false until then. */
  bool has_probability;
  double probability;
  double probability_error; /* 0 when exact */
} cex_t;

/* Frees what a counterexample owns (not c itself). */
void cex_free(cex_t *c);

/* A deep copy of src into *dst (which owns it: cex_free). */
void cex_copy(cex_t *dst, const cex_t *src, size_t nvars);
/* Copies src's values (truth, sensed, every action's values) into dst, a
 * counterexample of the same path and shape. */
void cex_copy_values(cex_t *dst, const cex_t *src, size_t nvars);

/* Re-checks a counterexample against the model by evaluating every
 * condition, effect, range, error bound and failure on its values (with a
 * relative tolerance of 1e-9 for the solver's rounding). Returns NULL when
 * it holds, else a message (caller frees). */
char *cex_replay(const ism_model_t *m, ism_mode_t mode, const cex_t *c);

/* A failure class: the counterexamples whose last rule is `rule` and whose
 * failure is `action`'s failure condition (-1: the model-wide failure). */
typedef struct {
  int rule, action;
  size_t count;         /* members */
  size_t boundary_only; /* members that are boundary-only */
  size_t top;           /* index of its first member in the list: the most likely once sorted */
} cex_class_t;

/* Groups the n counterexamples into failure classes, in the order of
 * their first members; *classes is allocated (caller frees). Returns how
 * many classes there are. */
size_t cex_classes(const cex_t *cexs, size_t n, cex_class_t **classes);

/* The report's order: <0 when a comes first. Not boundary-only before
 * boundary-only, then by descending probability (unranked ones last), ties
 * in depth-first order of their paths (a prefix before its extensions,
 * then by rule index), one path's failures in do: order (the model-wide
 * failure last): a total order on distinct counterexamples. */
int cex_compare(const cex_t *a, const cex_t *b);

/* Sorts into the report's order (cex_compare). */
void cex_sort_by_probability(cex_t *cexs, size_t n);

#endif
