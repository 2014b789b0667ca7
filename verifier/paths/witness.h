/* A counterexample's canonical witness without the solver, where its path
 * is conjunctive and affine: the path (explorer's encoding, failing as the
 * counterexample fails) becomes a set of affine inequalities g(x) >= 0 over
 * its free values x (initial true values, sensing and actuation errors,
 * values an effect leaves free), and a deterministic relaxation (projection
 * onto the most violated inequality, Agmon-Motzkin) looks for a point with
 * every slack at least a margin (1, 0.1, 0.01, 0.001 in turn) from a fixed
 * start (the middle of every range, errors 0). The point is a function of
 * the path and failure alone. Every inequality strictly satisfied (ranges,
 * error bounds, conditions, failures) means the strict system of
 * verifier/boundary.h holds too: not boundary-only, decided without it. */
#ifndef VERIFIER_PATHS_WITNESS_H
#define VERIFIER_PATHS_WITNESS_H

#include <stdbool.h>

#include "ism/cex.h"
#include "ism/ism.h"

typedef enum {
  WITNESS_NONE,    /* c unchanged: ask the solver (explore_witness, boundary.h) */
  WITNESS_CLOSE,   /* a point within rounding of every inequality (margin 0) */
  WITNESS_INTERIOR /* a point with every inequality strictly satisfied */
} witness_t;

/* Replaces c's values by the relaxation's point when the path is
 * conjunctive affine and the relaxation finds one in its iteration budget;
 * otherwise returns WITNESS_NONE and leaves c as it was (the caller then
 * asks the solver). `interior`: first look for a point with a positive
 * margin (1, then 0.1, 0.01, 0.001). WITNESS_INTERIOR: every inequality has
 * a slack of at least half the margin (at least 0.0005) beyond 1e-12 of the
 * magnitude of its terms, far above the rounding of its evaluation: the
 * point is inside every range and error bound and satisfies every
 * comparison strictly, so in mode actual c is not boundary-only.
 * WITNESS_CLOSE (margin 0, e.g. a boundary-only path): no slack is below
 * -1e-12 of the magnitude of its terms (cex_replay allows 1e-9); it proves
 * nothing about the boundary. The point depends on c's path, failure and
 * mode only. The caller re-checks c (cex_replay). Thread-safe; no solver. */
witness_t witness_find(const ism_model_t *m, ism_mode_t mode, cex_t *c, bool interior);

#endif
