/* An upper bound, from the path alone, of the number the joint estimator
 * (joint.h) outputs for a counterexample: the product over the path's
 * stages of each stage's conditional probability maximised over an
 * interval hull of the states a sampled run can be in at that stage. The
 * top-K search (apps/verify_topk.c) skips ranking a counterexample whose
 * bound cannot enter the report. Why it bounds the output, not only the
 * true probability, and what it cannot bound: docs/verify.md ("Top-K
 * search"). */
#ifndef PROBABILITY_BOUND_H
#define PROBABILITY_BOUND_H

#include <stdbool.h>

#include "ism/cex.h"
#include "ism/ism.h"

typedef struct bound bound_t;

/* Prepared once per model (borrows m); bound_delete(NULL) is a no-op. */
bound_t *bound_new(const ism_model_t *m);
void bound_delete(bound_t *b);

/* A number in [0, 1] that no joint estimate of a counterexample with c's
 * path (c->rules, c->states) and failing action (c->fail_position) exceeds,
 * whatever its environment and the estimator's samples. Reads only the path,
 * never c's values. Not thread-safe on one b. */
double bound_path(bound_t *b, const cex_t *c);

/* Whether no path of at most `depth` rules can end in rule `rule` failing
 * at its do: position fail_position (-1: the model-wide failure) in mode
 * actual (the solver's semantics of a counterexample: errors within their
 * ranges, effects, no failure before): the interval hulls of the values
 * reachable in each state after k steps without failure, k < depth, do not
 * let it fail. False says nothing (the hulls over-approximate). */
bool bound_class_empty(bound_t *b, int rule, int fail_position, int depth);

#endif
