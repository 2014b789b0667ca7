/* The probability that a rule's condition holds when the uncertain sensed
 * values are redrawn from their error distributions around fixed true
 * values (the paper's per-rule estimator, one step). Exact closed forms
 * (sums of CDF differences) when every comparison is affine in at most one
 * error variable; otherwise the last error variable is integrated out in
 * closed form and the rest numerically (adaptive quadrature in one
 * dimension, VEGAS beyond), with an error estimate. */
#ifndef PROBABILITY_CONDITION_H
#define PROBABILITY_CONDITION_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/ism.h"

/* A condition: the conjunction of parts[i] == want[i] (selection: first adds
 * "no earlier rule holds" as parts with want false). Everything borrowed. */
typedef struct {
  const ism_model_t *m;
  const expr_t *const *parts;
  const bool *want;
  size_t nparts;
  const double *values; /* [nvars]: true values of sensing variables, the app's values of normal ones */
  bool with_error;      /* false: no uncertainty (modes ideal and naive) */
} cond_t;

typedef enum {
  COND_AUTO,        /* closed form where possible, else the cheapest numeric route */
  COND_NUMERIC,     /* never the product-of-intervals closed form (for differential tests) */
  COND_MONTE_CARLO  /* plain VEGAS on the indicator (for differential tests) */
} cond_method_t;

typedef enum { COND_EXACT, COND_CLOSED_FORM, COND_QUADRATURE, COND_VEGAS } cond_how_t;

typedef struct {
  double p;      /* in [0, 1] */
  double error;  /* absolute error estimate; 0 when exact */
  cond_how_t how;
} cond_prob_t;

/* Computes the probability. Returns false (and p = 0, error = 1) only when
 * a numeric routine of GSL failed or a distribution cannot be normalised. */
bool cond_probability(const cond_t *c, cond_method_t method, cond_prob_t *out);

/* Sensing errors that make the condition hold and are as likely as
 * possible one variable at a time (coordinate moves towards each mode,
 * three sweeps). e is indexed by variable id (size nvars): on entry the
 * starting errors, on return the chosen ones (entries of variables the
 * condition does not read are left alone). Returns false if the point
 * found does not satisfy the condition. */
bool cond_likely_point(const cond_t *c, double *e);

/* Does the condition hold with errors e (indexed by variable id)? */
bool cond_holds(const cond_t *c, const double *e);

const char *cond_how_name(cond_how_t how);

/* A condition prepared once for many evaluations with changing values: its
 * parts, the variables it reads, its error slots and distributions, and
 * memo tables of both results keyed by the values read (bit for bit), so
 * repeating an input returns the stored result, identical to a fresh one. */
typedef struct cond_prep cond_prep_t;

/* Copies c's parts and wants (the expressions stay borrowed from the
 * model; c->values is ignored). Never fails; cond_prep_delete frees it
 * (NULL is a no-op). */
cond_prep_t *cond_prep_new(const cond_t *c);
/* The condition under which rule is chosen: its `when`, and with
 * selection: first no earlier rule of its state. */
cond_prep_t *cond_prep_rule(const ism_model_t *m, int rule, bool with_error);
void cond_prep_delete(cond_prep_t *p);

/* cond_probability and cond_likely_point of the condition with the given
 * values (indexed by variable id, borrowed for the call). */
bool cond_prep_probability(cond_prep_t *p, const double *values, cond_method_t method, cond_prob_t *out);
bool cond_prep_likely_point(cond_prep_t *p, const double *values, double *e);

#endif
