/* Error distributions of `ismv verify`'s uncertain variables: a uniform or
 * a gaussian truncated to the error range [lo, hi] and renormalised. CDF
 * masses of intervals (the closed forms of the per-rule estimator),
 * quantiles and seeded sampling. Only probability/ sees GSL. */
#ifndef PROBABILITY_DIST_H
#define PROBABILITY_DIST_H

#include <stdbool.h>

#include "ism/ism.h"

typedef struct {
  ism_dist_t kind;
  double lo, hi;     /* support, lo <= hi; lo == hi is a point mass */
  double mean, sd;   /* gaussian before truncation, sd > 0 */
  double plo, z;     /* gaussian: P((lo-mean)/sd) and the mass of [lo, hi] before renormalising */
  double phi, qhi;   /* gaussian: P((hi-mean)/sd) and 1 - P((hi-mean)/sd) (dist_point's tail masses at hi) */
} dist_t;

typedef struct dist_rng dist_rng_t; /* a seeded generator (GSL's mt19937) */

/* The error distribution of an uncertain variable. Returns false when it
 * cannot be normalised (a gaussian whose mass on [lo, hi] underflows). */
bool dist_of_var(const ism_var_t *v, dist_t *d);
bool dist_init(dist_t *d, ism_dist_t kind, double lo, double hi, double mean, double sd);

/* P(a <= e <= b) for e ~ d; exact up to floating point. Any a, b (clamped
 * to the support; a > b gives 0). */
double dist_mass(const dist_t *d, double a, double b);
/* A point x of d's support with the standard normal's tail masses at
 * (x - mean) / sd, each computed at most once (NAN: not yet): intervals
 * sharing an end point share its tail masses. */
typedef struct {
  double x, p, q;
} dist_point_t;
void dist_point(const dist_t *d, double x, dist_point_t *pt);
/* dist_mass(d, a->x, b->x), the same number, reusing a's and b's tail masses. */
double dist_mass_points(const dist_t *d, dist_point_t *a, dist_point_t *b);
/* The u-quantile, u in [0, 1]: maps the unit interval onto the support. */
double dist_quantile(const dist_t *d, double u);
/* The u-quantile of d restricted to [a, b] (inside the support, a < b, of
 * positive mass), u in [0, 1]: computed from the tail that keeps
 * precision, so an interval deep in either tail keeps its spread. */
double dist_quantile_in(const dist_t *d, double a, double b, double u);
/* The most likely value: the mean clamped into the support. */
double dist_mode(const dist_t *d);

/* A generator with a fixed seed; same seed, same sequence. dist_rng_delete(NULL) is a no-op. */
dist_rng_t *dist_rng_new(unsigned long seed);
void dist_rng_delete(dist_rng_t *r);
double dist_rng_uniform(dist_rng_t *r); /* in [0, 1) */
double dist_sample(const dist_t *d, dist_rng_t *r);
/* The GSL generator behind r, for the integrators in probability/ (void * keeps <gsl/...> out of this
 * header). */
void *dist_rng_gsl(dist_rng_t *r);

/* Turns GSL's abort-on-error handler off; callers check every status.
 * Idempotent; every entry point of probability/ calls it. */
void dist_gsl_quiet(void);

/* Clopper-Pearson interval (level, e.g. 0.95) for k successes in n trials. */
void dist_clopper_pearson(unsigned long k, unsigned long n, double level, double *lo, double *hi);

#endif
