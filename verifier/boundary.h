/* Boundary-only counterexamples, decided exactly with the solver. A
 * counterexample of `ismv verify --mode actual` is boundary-only when the
 * set of sensing and actuation errors that make its path happen and fail
 * has measure zero for every environment: only an error exactly at the edge
 * of its range, or an equality, makes it happen, so its probability is 0.
 * Its path condition is re-encoded with every comparison that reads an
 * error made strict (with a common slack s > 0), the environment's own
 * constraints (ranges of values no error reaches) left as they are:
 * satisfiable means an open set of errors, so a positive probability.
 * Kept apart from the exploration (verifier/paths/), which it does not
 * change. */
#ifndef VERIFIER_BOUNDARY_H
#define VERIFIER_BOUNDARY_H

#include <stdbool.h>

#include "ism/cex.h"
#include "ism/ism.h"

typedef enum {
  BOUNDARY_ONLY,     /* the strict system is unsatisfiable: probability 0 */
  BOUNDARY_INTERIOR, /* satisfiable: c now holds a witness with a positive margin */
  BOUNDARY_UNKNOWN   /* the solver could not decide (c unchanged) */
} boundary_t;

/* One solver for the counterexamples of one model (borrows m); rlimit
 * bounds each solver check (0: none). boundary_delete(NULL) is a no-op. */
typedef struct boundary_ctx boundary_ctx_t;
boundary_ctx_t *boundary_new(const ism_model_t *m, unsigned long long rlimit);
void boundary_delete(boundary_ctx_t *b);

/* Decides c (a counterexample of mode actual). On BOUNDARY_INTERIOR, c's
 * values are replaced by the solver's witness of the strict system, with
 * the largest margin of 1, 0.1 or 0.01 that is satisfiable (a valid
 * counterexample: the strict system implies the original one); callers
 * re-check it with cex_replay. Otherwise c is unchanged. */
boundary_t boundary_classify(boundary_ctx_t *b, cex_t *c);

/* A class of counterexamples at once, whatever the path before its last
 * step: every counterexample whose last rule is `rule` and that fails at
 * its action at do: position fail_position (-1: the model-wide failure),
 * earlier actions of the rule not failing. The last step is encoded as in
 * boundary_classify with every value at its sensing free (sensing values
 * within their range, normal values unconstrained unless no rule assigns
 * them: then their initial value), which is implied by any path's own
 * encoding. strict: BOUNDARY_ONLY means every counterexample
 * of the class is boundary-only. Not strict (comparisons as written):
 * BOUNDARY_ONLY means the class has no counterexample at all. Mode actual
 * only (errors within their ranges). With lo and hi (else NULL), [nvars]
 * each: the values at the last sensing (true sensing values, normal
 * values) are within [lo[v], hi[v]] (an infinite end: no bound; bool and
 * enum variables: none); the caller vouches that every path of the class
 * reaches it so (e.g. probability/bound.h's reachable hulls); lo[v] > hi[v]
 * says no path reaches the rule's state: BOUNDARY_ONLY at once. */
boundary_t boundary_class(boundary_ctx_t *b, int rule, int fail_position, bool strict, const double *lo,
                          const double *hi);

/* How many solver checks boundary_class has made on b (0 for NULL). */
unsigned long long boundary_class_checks(const boundary_ctx_t *b);

#endif
