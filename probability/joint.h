/* The default failure probability of a counterexample (`--probability
 * joint`): P(the app takes exactly this path and fails at its last step the
 * same way | environment), sensing errors fresh at every sensing and
 * actuation errors fresh per action execution, with the actual-mode
 * semantics whatever the verification mode. The environment is the
 * counterexample's initial true values, the values its actions leave free
 * and its dynamic values; the reported one maximises the probability.
 *
 * Estimation is sequential conditional sampling (separation of variables,
 * the GHK simulator): step by step, each stage's new errors are drawn from
 * their distributions conditioned, in closed form, on the stage's
 * constraint (the rule's selection, an action's failure or its absence):
 * every comparison affine in one new error cuts that error's range, the
 * constraint is constant on each cell of the product of the pieces, and the
 * sample's weight is the product of the stages' exact cell masses. Any
 * boolean combination of such comparisons is exact per stage; a comparison
 * that reads two new errors, or is not affine, has all but one (or all)
 * of them drawn unconditioned first. The estimate is the mean weight; the
 * reported one draws its samples by randomised quasi-Monte Carlo (shifted
 * Sobol points, 10 replicates), its error bar the Student t half-width of
 * the replicates' means. A path of one stage is exact.
 *
 * The code: joint.c samples runs and estimates, leaves.c evaluates a
 * stage's constraint (the leaves compiled once per model), maximise.c
 * searches for the most likely environment; joint_impl.h is their state. */
#ifndef PROBABILITY_JOINT_H
#define PROBABILITY_JOINT_H

#include <stdbool.h>

#include "ism/cex.h"
#include "ism/ism.h"

typedef struct joint joint_t;

/* The estimator's limits: at most JOINT_MAXF new errors of a stage are
 * conditioned (the rest are drawn unconditioned), at most JOINT_MAX_CUTS
 * cut points per error and JOINT_MAX_CELLS cells per stage; past them a
 * stage's weight is an indicator (0 or 1). probability/bound.c relies on
 * the same numbers. */
enum { JOINT_MAXF = 8, JOINT_MAX_CUTS = 64, JOINT_MAX_CELLS = 4096 };

typedef struct {
  unsigned long search_samples; /* per evaluation while maximising (common random numbers) */
  unsigned long final_samples;  /* at most, for the reported estimate, on a stream of its own, randomised
                                   quasi-Monte Carlo (from 500 on it stops once the 95% half-width is within
                                   0.5% of the estimate + 0.0005) */
  int sweeps;                   /* most coordinate sweeps of each local search (0: no maximisation) */
  unsigned long seed;
} joint_options_t;

/* Defaults: 12 search samples, at most 4000 final samples, at most 4 sweeps per local search, seed 1. */
void joint_options_init(joint_options_t *o);

/* Prepared once per model (borrows m); joint_delete(NULL) is a no-op. */
joint_t *joint_new(const ism_model_t *m, const joint_options_t *o);
void joint_delete(joint_t *j);

/* The estimate at c's own environment: *p in [0, 1] and the 95% half-width
 * *error (0 when every sample has the same weight), from at most `samples`
 * samples (from 500 on it stops at the precision final_samples does), drawn
 * as final_samples are. */
void joint_estimate(joint_t *j, const cex_t *c, unsigned long samples, unsigned long seed, double *p,
                    double *error);

/* Maximises the probability over c's environment (within each variable's
 * range), re-estimates it there with final_samples fresh samples, and
 * writes into c that environment with one run realising the path (the
 * sampled run whose errors are nearest their modes) and the estimate.
 * When no sampled run realises it (probability 0 everywhere it looked) c
 * keeps its values. Returns whether c's values were replaced; the caller
 * re-checks them (cex_replay). */
bool joint_maximise(joint_t *j, cex_t *c);

/* A test hook: the stage memo (the cells of a stage of a run no draw has
 * reached yet, kept by the stage's kind, state and rule or action, failing
 * or not, the action's record, the distributions and the inputs bit for
 * bit) on or off (off: every stage computed afresh; the results must be
 * the same bit for bit: joint_memo_test). Returns the number of stages the
 * memo has answered so far. */
unsigned long joint_stage_memo(joint_t *j, bool on);

#endif
