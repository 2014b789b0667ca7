/* The most likely environment of a counterexample for the joint estimator:
 * local searches (coordinate sweeps with grids, golden sections, plateau
 * centring and bisection to the support's edge) of a 12-sample objective
 * with common random numbers, from low-discrepancy starts and the solver's
 * witness, the end points compared by a precise estimate, then one refining
 * pass with more samples. Internal to the estimator (joint_impl.h). */
#ifndef PROBABILITY_MAXIMISE_H
#define PROBABILITY_MAXIMISE_H

#include "probability/joint_impl.h"

/* Moves c's free real values (initial, left free by actions, dynamic) to
 * the most likely environment found; c's other values stay. */
void maximise_search(joint_t *j, cex_t *c);

#endif
