/* Model extension, the explorer's first tier: given exact values of the
 * true (and normal) variables before a step, look for values of the step's
 * new unknowns (sensing errors, actuation errors, after-values an effect
 * leaves free, fresh values of dynamic variables) that satisfy every
 * constraint the solver encoding has for that step, with the step failing
 * or not as asked. A search over a few candidate values per unknown,
 * evaluated exactly (rational.h); finding none proves nothing, so the
 * caller then asks the solver. */
#ifndef VERIFIER_EXTEND_H
#define VERIFIER_EXTEND_H

#include <stdbool.h>

#include "ism/cex.h"
#include "ism/ism.h"
#include "verifier/paths/rational.h"

/* The values of one action execution, arrays [nvars] owned by the caller:
 * meaningful as in cex_action_t. */
typedef struct {
  rat_t *before, *after, *actual;
  bool *has_actual;
} extend_action_t;

typedef struct {
  const rat_t *now; /* [nvars] in: true values at the step's sensing (normal variables: their values) */
  rat_t *sensed;    /* [nvars] out */
  rat_t *next;      /* [nvars] out: values after the step, as `now` */
  extend_action_t *actions; /* [the rule's number of action steps] out, in do: order */
  int fail_position;        /* out: do: position of the first failing action, or -1 */
  /* Optional: called on each valuation found (io's out fields set); false
   * rejects it and the search goes on. Lets a caller extend two steps at once. */
  bool (*accept)(void *ctx);
  void *accept_ctx;
} extend_step_t;

/* What extend_step needs of a model, prepared once (candidate values,
 * ranges as rationals). Borrows m, which must outlive it. */
typedef struct extend_prep extend_prep_t;
extend_prep_t *extend_prepare(const ism_model_t *m);
void extend_prep_free(extend_prep_t *p);
/* The model p was made for. */
const ism_model_t *extend_model(const extend_prep_t *p);
/* Variable var's range (error: its error range) as exact rationals; false
 * when it has none or an end is not exact. */
bool extend_box(const extend_prep_t *p, int var, bool error, rat_t *lo, rat_t *hi);

/* Searches values for step `rule` from `io->now` under `mode` such that the
 * step's failure (its actions' failures or the model-wide failure) holds
 * iff want_fail; when !want_fail, the values after the step must also lie
 * in their ranges, and io->accept (if set) must accept them. Tries at
 * most about `budget` candidate valuations.
 * Returns true with io's out fields set, or false (nothing found: no
 * conclusion). */
bool extend_step(const extend_prep_t *p, ism_mode_t mode, int rule, bool want_fail, int budget,
                 extend_step_t *io);

#endif
