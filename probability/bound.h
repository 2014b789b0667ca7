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
/* Whether b keeps bound_prefix's values along a path and le_mass's answers
 * (on by default; off in tests, which compare both: same numbers). */
void bound_memo(bound_t *b, bool on);

/* A number in [0, 1] that no joint estimate of a counterexample with c's
 * path (c->rules, c->states) and failing action (c->fail_position) exceeds,
 * whatever its environment and the estimator's samples. Reads only the path,
 * never c's values. Not thread-safe on one b. */
double bound_path(bound_t *b, const cex_t *c);

/* A number in [0, 1] no smaller than the true probability of c's path
 * and failure, P(path taken and failing | environment), at any environment
 * (the ranges, `assume:`, every free value): the same product over the
 * path's stages, with every error a stage draws afresh counted, not only
 * those the estimator conditions. At most bound_path(b, c). verify reports
 * min(estimate, bound_true) (docs/verify.md, "A bound per
 * counterexample"). Not thread-safe on one b. */
double bound_true(bound_t *b, const cex_t *c);

/* A number no smaller than the true probability, at any environment, that
 * a run takes the path rules[0..depth) (from states[0..depth]) without
 * failing: the events part of bound_true on the prefix alone. Every
 * counterexample that extends the prefix needs those events, so its
 * bound_true-style bound is at most this (apps/verify_topk.c cuts a subtree
 * by it). Not thread-safe on one b. */
double bound_prefix(bound_t *b, const int *rules, const int *states, int depth);

/* The values a path of fewer than `depth` rules (without failure, in the
 * solver's semantics of mode actual: errors within their ranges, effects,
 * `assume:`) can have at its last sensing, per state: an interval hull
 * [lo, hi][state * nvars + v] of the true value of each sensing variable
 * and the value of each normal one (infinite ends: unbounded; bool and enum
 * variables: unbounded). A state no such path reaches has lo > hi for every
 * variable. lo and hi have room for nstates * nvars. */
void bound_reach(bound_t *b, int depth, double *lo, double *hi);

#endif
