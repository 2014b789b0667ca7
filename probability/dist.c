#include "probability/dist.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>

#include "ism/alloc.h"

struct dist_rng {
  gsl_rng *g;
};

void dist_gsl_quiet(void) { gsl_set_error_handler_off(); }

/* Mass of the standard normal between za <= zb, from the side that keeps precision. */
static double normal_mass(double za, double zb) {
  if (za > 0) return gsl_cdf_ugaussian_Q(za) - gsl_cdf_ugaussian_Q(zb);
  return gsl_cdf_ugaussian_P(zb) - gsl_cdf_ugaussian_P(za);
}

bool dist_init(dist_t *d, ism_dist_t kind, double lo, double hi, double mean, double sd) {
  dist_gsl_quiet();
  *d = (dist_t){kind, lo, hi, mean, sd, 0, 1, 0, 0};
  if (!(lo <= hi)) return false;
  if (kind == ISM_DIST_GAUSSIAN) {
    if (!(sd > 0)) return false;
    d->plo = gsl_cdf_ugaussian_P((lo - mean) / sd);
    d->phi = gsl_cdf_ugaussian_P((hi - mean) / sd), d->qhi = gsl_cdf_ugaussian_Q((hi - mean) / sd);
    d->z = lo == hi ? 1 : normal_mass((lo - mean) / sd, (hi - mean) / sd);
    if (!(d->z > 0)) return false;
  }
  return true;
}

bool dist_of_var(const ism_var_t *v, dist_t *d) {
  return dist_init(d, v->dist, v->err_lo, v->err_hi, v->mean, v->sd);
}

/* gsl_cdf_ugaussian_P (upper false) or _Q (true) of z, through a
 * direct-mapped memo per thread: the upper bound (probability/bound.c)
 * asks for the same interval ends again and again. The same call on the
 * same argument gives the same result. */
enum { CDF_MEMO = 1 << 12 };
typedef struct {
  double z, v;
  bool set;
} cdf_memo_t;
static _Thread_local cdf_memo_t cdf_memo[2][CDF_MEMO];

static double cdf_tail(double z, bool upper) {
  uint64_t bits;
  memcpy(&bits, &z, sizeof bits);
  cdf_memo_t *m = &cdf_memo[upper][(bits ^ bits >> 29 ^ bits >> 41) & (CDF_MEMO - 1)];
  if (!m->set || m->z != z || signbit(m->z) != signbit(z))
    m->z = z, m->v = upper ? gsl_cdf_ugaussian_Q(z) : gsl_cdf_ugaussian_P(z), m->set = true;
  return m->v;
}

/* normal_mass of [a, b] inside d's support, a < b, reading the tail masses
 * of the support's ends that dist_init computed (the same calls on the
 * same arguments) instead of calling GSL again. */
static double gaussian_mass(const dist_t *d, double a, double b) {
  double za = (a - d->mean) / d->sd, zb = (b - d->mean) / d->sd;
  if (za > 0) return cdf_tail(za, true) - (b == d->hi ? d->qhi : cdf_tail(zb, true));
  return (b == d->hi ? d->phi : cdf_tail(zb, false)) - (a == d->lo ? d->plo : cdf_tail(za, false));
}

double dist_mass(const dist_t *d, double a, double b) {
  if (a < d->lo) a = d->lo;
  if (b > d->hi) b = d->hi;
  if (a > b) return 0;
  if (d->lo == d->hi) return 1;
  if (a == b) return 0;
  double p = d->kind == ISM_DIST_UNIFORM ? (b - a) / (d->hi - d->lo) : gaussian_mass(d, a, b) / d->z;
  return p < 0 ? 0 : p > 1 ? 1 : p;
}

void dist_point(const dist_t *d, double x, dist_point_t *pt) {
  *pt = (dist_point_t){x, NAN, NAN};
  if (d->kind != ISM_DIST_GAUSSIAN) return;
  if (x == d->lo) pt->p = d->plo; /* the same call on the same argument */
  if (x == d->hi) pt->p = d->phi, pt->q = d->qhi;
}

static double point_p(const dist_t *d, dist_point_t *pt) {
  if (isnan(pt->p)) pt->p = gsl_cdf_ugaussian_P((pt->x - d->mean) / d->sd);
  return pt->p;
}

static double point_q(const dist_t *d, dist_point_t *pt) {
  if (isnan(pt->q)) pt->q = gsl_cdf_ugaussian_Q((pt->x - d->mean) / d->sd);
  return pt->q;
}

/* dist_mass, step by step, with normal_mass's tail masses from the points. */
double dist_mass_points(const dist_t *d, dist_point_t *pa, dist_point_t *pb) {
  double a = pa->x, b = pb->x;
  if (a < d->lo || b > d->hi || d->kind == ISM_DIST_UNIFORM) return dist_mass(d, a, b);
  if (a > b) return 0;
  if (d->lo == d->hi) return 1;
  if (a == b) return 0;
  double p = (a - d->mean) / d->sd > 0 ? point_q(d, pa) - point_q(d, pb) : point_p(d, pb) - point_p(d, pa);
  p /= d->z;
  return p < 0 ? 0 : p > 1 ? 1 : p;
}

double dist_quantile(const dist_t *d, double u) {
  if (u <= 0 || d->lo == d->hi) return d->lo;
  if (u >= 1) return d->hi;
  double x;
  if (d->kind == ISM_DIST_UNIFORM) {
    x = d->lo + u * (d->hi - d->lo);
  } else {
    double p = d->plo + u * d->z;
    x = d->mean + d->sd * gsl_cdf_ugaussian_Pinv(p < 1 ? p : nextafter(1, 0));
  }
  return x < d->lo ? d->lo : x > d->hi ? d->hi : x;
}

double dist_quantile_in(const dist_t *d, double a, double b, double u) {
  double x;
  if (d->kind == ISM_DIST_UNIFORM || d->lo == d->hi)
    x = a + u * (b - a);
  else {
    double za = (a - d->mean) / d->sd, zb = (b - d->mean) / d->sd;
    if (za > 0) { /* the upper tail: Q falls from Q(za) to Q(zb) */
      double qa = gsl_cdf_ugaussian_Q(za), qb = gsl_cdf_ugaussian_Q(zb), q = qa - u * (qa - qb);
      x = q > 0 ? d->mean + d->sd * gsl_cdf_ugaussian_Qinv(q) : b;
    } else {
      double pa = gsl_cdf_ugaussian_P(za), pb = gsl_cdf_ugaussian_P(zb), p = pa + u * (pb - pa);
      x = p > 0 ? d->mean + d->sd * gsl_cdf_ugaussian_Pinv(p) : a;
    }
    if (!(x == x)) x = a + u * (b - a); /* NaN (both ends beyond the reach of the tails) */
  }
  return x < a ? a : x > b ? b : x;
}

double dist_mode(const dist_t *d) {
  double m = d->kind == ISM_DIST_UNIFORM ? (d->lo + d->hi) / 2 : d->mean;
  return m < d->lo ? d->lo : m > d->hi ? d->hi : m;
}

dist_rng_t *dist_rng_new(unsigned long seed) {
  dist_gsl_quiet();
  dist_rng_t *r = xmalloc(sizeof *r);
  r->g = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r->g) abort(); /* out of memory */
  gsl_rng_set(r->g, seed);
  return r;
}

void dist_rng_delete(dist_rng_t *r) {
  if (!r) return;
  gsl_rng_free(r->g);
  free(r);
}

double dist_rng_uniform(dist_rng_t *r) { return gsl_rng_uniform(r->g); }

double dist_sample(const dist_t *d, dist_rng_t *r) { return dist_quantile(d, gsl_rng_uniform_pos(r->g)); }

void *dist_rng_gsl(dist_rng_t *r) { return r->g; }

/* x with P(X <= x) = p for X ~ Beta(a, b), or P(X > x) = p when upper.
 * GSL's gsl_cdf_beta_Pinv/Qinv return NaN for some large a, b (e.g.
 * Qinv(0.025, 3467, 6534) in GSL 2.7); then bisection on the CDF. */
static double beta_inverse(double p, double a, double b, bool upper) {
  double x = upper ? gsl_cdf_beta_Qinv(p, a, b) : gsl_cdf_beta_Pinv(p, a, b);
  if (x >= 0 && x <= 1) return x;
  double lo = 0, hi = 1;
  for (int k = 0; k < 200 && hi - lo > 1e-15; k++) {
    double mid = lo + (hi - lo) / 2;
    double tail = upper ? gsl_cdf_beta_Q(mid, a, b) : gsl_cdf_beta_P(mid, a, b);
    if (!(tail == tail)) return upper ? 1 : 0; /* NaN: the safe side */
    if (upper ? tail > p : tail < p) lo = mid;
    else hi = mid;
  }
  return lo + (hi - lo) / 2;
}

void dist_clopper_pearson(unsigned long k, unsigned long n, double level, double *lo, double *hi) {
  dist_gsl_quiet();
  double alpha = 1 - level;
  *lo = 0, *hi = 1;
  if (n == 0) return;
  if (k > 0) *lo = beta_inverse(alpha / 2, (double)k, (double)(n - k + 1), false);
  if (k < n) *hi = beta_inverse(alpha / 2, (double)(k + 1), (double)(n - k), true);
}
