/* Executing an ISM along a counterexample's environment: start from its
 * initial true values, sense (true value + an error), pick a rule, apply
 * its actions (actual = assumed + an actuation error) and advance the true
 * values through the effects: an effect `x' == expr` defines x'; a sensing
 * variable no effect defines keeps the counterexample's value. Used for
 * `ismv simulate` (errors drawn at random), the joint estimator, and to
 * rebuild a counterexample from chosen free values (sim_rebuild). */
#ifndef PROBABILITY_SIMULATE_H
#define PROBABILITY_SIMULATE_H

#include <stdbool.h>

#include "ism/ism.h"
#include "probability/condition.h"
#include "probability/dist.h"
#include "ism/cex.h"

typedef enum {
  SIM_SAME_FAILURE,  /* took the counterexample's path and failed the same way at its last step */
  SIM_DEVIATED,      /* another rule was chosen (or none was enabled) */
  SIM_EARLY_FAILURE, /* failed before the last step */
  SIM_OTHER_FAILURE, /* failed at the last step, at another action or check */
  SIM_NO_FAILURE     /* took the path and did not fail */
} sim_outcome_t;

typedef struct {
  unsigned long runs;
  unsigned long outcomes[5]; /* indexed by sim_outcome_t */
  double frequency;          /* outcomes[SIM_SAME_FAILURE] / runs */
  double ci_lo, ci_hi;       /* 95% Clopper-Pearson interval of the frequency */
} sim_stats_t;

/* One run with errors drawn from rng; with_error false: no error at all
 * (modes ideal and naive; naive also ignores effects). Among several
 * enabled rules (selection: any) one is picked uniformly. */
sim_outcome_t sim_run(const ism_model_t *m, ism_mode_t mode, const cex_t *c, dist_rng_t *rng);

/* `runs` runs with a generator seeded with `seed`. Deterministic. */
void sim_counterexample(const ism_model_t *m, ism_mode_t mode, const cex_t *c, unsigned long runs,
                        unsigned long seed, sim_stats_t *out);

/* Recomputes, in place, every value of c that follows from its free ones:
 * the initial true values, the actuation errors act_err[a * nvars + v]
 * (a = index in c->actions), the values no effect defines and dynamic
 * true values are taken as they are; true values after each action,
 * actual values and the next sensings follow the path's rules. Sensed
 * values become the most likely errors that keep each rule's condition
 * true. Returns false if no such sensed values were found or the path
 * does not fail exactly as c says (no tolerance here); the caller
 * re-checks the result with cex_replay. */
bool sim_rebuild(const ism_model_t *m, ism_mode_t mode, cex_t *c, const double *act_err);

/* What repeated rebuilds of counterexamples of one model share: scratch
 * arrays, the error distributions, and each rule's prepared condition
 * (condition.h, with its memo tables). Borrows m; sim_ctx_delete(NULL) is
 * a no-op. */
typedef struct sim_ctx sim_ctx_t;
sim_ctx_t *sim_ctx_new(const ism_model_t *m, ism_mode_t mode);
void sim_ctx_delete(sim_ctx_t *s);
/* The condition under which rule is chosen, prepared on first use (owned by s). */
cond_prep_t *sim_ctx_rule(sim_ctx_t *s, int rule);
/* sim_rebuild with the model and mode of s; same result. */
bool sim_rebuild_in(sim_ctx_t *s, cex_t *c, const double *act_err);

/* Spearman's rank correlation of a and b (n pairs, average ranks for
 * ties); NAN when n < 2 or either side is constant. */
double sim_rank_correlation(const double *a, const double *b, size_t n);

#endif
