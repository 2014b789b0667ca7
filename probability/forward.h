/* Plain forward execution of an ISM in its real environment: the engine of
 * `ismv simulate`, the independent check of verify's probabilities. It
 * shares only the model loader, the expression evaluator and the error
 * distributions with the estimators, never their code paths: a run senses
 * true value + a drawn error, picks a rule, executes its actions with drawn
 * actuation errors and advances the true values through the effects, with
 * the actual-mode semantics whatever mode produced the counterexample. The
 * counterexample supplies only its environment: the initial true values,
 * the values an action leaves free (no effect `x' == expr` defines them)
 * and the dynamic true values after rules without actions. */
#ifndef PROBABILITY_FORWARD_H
#define PROBABILITY_FORWARD_H

#include <stdbool.h>

#include "ism/cex.h"
#include "ism/ism.h"

typedef enum {
  FWD_SAME_FAILURE,  /* took the counterexample's path and failed the same way at its last step */
  FWD_DEVIATED,      /* another rule was chosen (or none was enabled) */
  FWD_EARLY_FAILURE, /* failed before the last step */
  FWD_OTHER_FAILURE, /* failed at the last step, at another action or check */
  FWD_NO_FAILURE,    /* took the path and did not fail */
  FWD_INFEASIBLE,    /* a true value left its range at a sensing, or an effect constraint failed */
  FWD_OUTCOMES
} fwd_outcome_t;

typedef struct {
  unsigned long runs;
  unsigned long outcomes[FWD_OUTCOMES];
  double frequency;    /* outcomes[FWD_SAME_FAILURE] / runs */
  double ci_lo, ci_hi; /* its 95% Clopper-Pearson interval */
} fwd_stats_t;

/* Name of an outcome, for CSV headers: "same_failure", ... */
const char *fwd_outcome_name(fwd_outcome_t o);

/* `runs` runs from c's environment with a generator seeded with `seed`.
 * Among several enabled rules (selection: any) one is picked uniformly.
 * Deterministic; borrows m and c. A stop request (ism/stop.h) ends it
 * early: out->runs counts the runs made, the statistics are theirs. */
void fwd_counterexample(const ism_model_t *m, const cex_t *c, unsigned long runs, unsigned long seed,
                        fwd_stats_t *out);

#endif
