/* Ranking counterexamples by probability. The paper's per-rule estimator
 * (default): the product over the path's steps of the probability that the
 * step's rule is still chosen when the sensed values are redrawn around
 * the counterexample's true values (condition.h). The joint estimator: the
 * frequency with which a run from the counterexample's initial environment,
 * all sensing and actuation errors drawn, takes the same path and fails the
 * same way (simulate.h), with a 95% Clopper-Pearson half-width as error.
 * Before estimating, each counterexample's free values are moved to the
 * valuation that makes the per-rule estimate largest (local searches from
 * the witness, the joint estimator's optimum and low-discrepancy starts,
 * every candidate re-checked with cex_replay). */
#ifndef PROBABILITY_RANK_H
#define PROBABILITY_RANK_H

#include <stdbool.h>

#include "ism/ism.h"
#include "probability/condition.h"
#include "ism/cex.h"

typedef enum { RANK_PER_RULE, RANK_JOINT } rank_estimator_t;

typedef struct {
  ism_mode_t mode;
  rank_estimator_t estimator;
  cond_method_t method;     /* per-rule: COND_AUTO except in differential tests */
  bool optimise;            /* search the most likely valuation */
  int max_evaluations;      /* per counterexample, for the search */
  unsigned long joint_runs; /* joint: Monte Carlo runs */
  unsigned long seed;       /* joint: mixed with the path, so each estimate is order-independent */
  bool (*stop)(void *arg);  /* NULL, or asked before each counterexample: true ends the ranking */
  void *stop_arg;
  int jobs; /* rank_all: threads (0: one per processor); the result does not depend on it */
} rank_options_t;

/* Defaults: joint, COND_AUTO, optimise, 600 evaluations, 20000 runs, seed 1, no stop, 1 thread. */
void rank_options_init(rank_options_t *opt, ism_mode_t mode);

/* The per-rule probability of step k of c. Returns false on a numeric failure. */
bool rank_step(const ism_model_t *m, ism_mode_t mode, const cex_t *c, int k, cond_method_t method,
               cond_prob_t *out);

/* The per-rule estimate of the whole path: product of the steps, with a
 * first-order error bound. Returns false on a numeric failure. */
bool rank_per_rule(const ism_model_t *m, ism_mode_t mode, const cex_t *c, cond_method_t method, double *p,
                   double *error);

/* A seed for the runs of c: seed mixed with its path. */
unsigned long rank_path_seed(const cex_t *c, unsigned long seed);

/* Moves c's free values to the most likely valuation found (c stays a
 * valid counterexample: a candidate is kept only if cex_replay accepts
 * it), then sets c->probability, probability_error and has_probability. */
void rank_counterexample(const ism_model_t *m, const rank_options_t *opt, cex_t *c);

/* rank_counterexample for counterexamples handed over one at a time (the
 * top-K search): what ranking one shares with the next (the prepared rule
 * conditions, the joint estimator) is made once. Borrows m and opt. The
 * result for each is rank_counterexample's. */
typedef struct rank_session rank_session_t;
rank_session_t *rank_session_new(const ism_model_t *m, const rank_options_t *opt);
void rank_session_rank(rank_session_t *s, cex_t *c);
void rank_session_delete(rank_session_t *s);

/* rank_counterexample on every counterexample, on opt->jobs threads (the
 * stop function must be thread-safe), then sorts them by descending
 * probability (ties in path order; unranked ones last). Returns false when
 * opt->stop ended it early: the rest have no probability. */
bool rank_all(const ism_model_t *m, const rank_options_t *opt, cex_t *cexs, size_t n);

#endif
