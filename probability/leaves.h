/* A stage's constraint as the joint estimator evaluates it: concretely at
 * the stage's values (the same operations in the same order as the
 * expression evaluator), as affine forms in the stage's new errors, and
 * through every guard's, effect constraint's and failure's leaves and the
 * actions' definitions, compiled once per model into flat programs over
 * the stage's affine views. A cell's value is read off the leaves the last
 * leaves_stage_atoms recorded. Internal to the estimator (joint_impl.h). */
#ifndef PROBABILITY_LEAVES_H
#define PROBABILITY_LEAVES_H

#include "probability/joint_impl.h"

/* Compiles j's model (its guards, constraints, failures and the sensing
 * variables' definitions after each action) into j; after the views are
 * allocated, since operands point to them. leaves_free releases it. */
void leaves_compile(joint_t *j);
void leaves_free(joint_t *j);

/* Whether evaluating e may report an error (expr_eval's *error) at some
 * values of its variables: an unresolved name, int arithmetic (overflow),
 * or a division or modulo whose divisor is not a constant that no
 * dividend fails with (safe_divisor). An error makes a whole constraint
 * false, which a cell read off the leaves would not see. */
bool leaves_may_fail(const expr_t *e);

/* e's truth (an evaluation error: false) and value (as type `as`) over
 * now (sensing variables), next (their primed values, or NULL) and normal. */
bool leaves_holds(const ism_model_t *m, const expr_t *e, const double *now, const double *next,
                  const double *normal);
double leaves_number(const ism_model_t *m, const expr_t *e, type_kind_t as, const double *now,
                     const double *next, const double *normal);

/* The value of o at the stage's views (a pointer to a view, or to tmp). */
const aff_t *leaves_operand_value(joint_t *j, const operand_t *o, aff_t *tmp);

/* A compiled real program (at..at+n of j's programs) over now and normal. */
double leaves_real_program(const joint_t *j, size_t at, int n, const double *now, const double *normal);

/* Records the stage's leaves (j->atom) and their cut points into cs. */
void leaves_stage_atoms(joint_t *j, cutset_t *cs);

/* Records the comparisons the stage's constraint cannot hold without
 * (j->lim, j->nlim) at the current views: the real leaves that read a new
 * error and are necessary (top-level conjuncts of what must hold, top-level
 * disjuncts of what must fail, negated), affine ones only. */
void leaves_stage_limits(joint_t *j);

/* The stage's value in the current cell (j->x), read off the recorded leaves. */
double leaves_cell_value(const joint_t *j);

static inline void aff_set_const(aff_t *a, double c) { a->c = c, a->mask = 0, a->ok = true; }

/* *to = *from, the coefficients outside the mask left as they are. */
static inline void aff_copy(aff_t *to, const aff_t *from) {
  to->c = from->c, to->mask = from->mask, to->ok = from->ok;
  for (unsigned m = from->mask; m; m &= m - 1) to->g[__builtin_ctz(m)] = from->g[__builtin_ctz(m)];
}

#endif
