#include "probability/condition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_monte_vegas.h>
#include <gsl/gsl_rng.h>

#include "ism/vec.h"
#include "probability/dist.h"
#include "probability/memo.h"

enum { MAX_CELLS = 1 << 20, QUAD_LIMIT = 2000, VEGAS_CALLS = 20000 };
static const unsigned long INTEGRATION_SEED = 20140915; /* fixed: same input, same estimate */

typedef VEC(double) dvec_t;

/* The condition with its error variables: slot[v] indexes e/dists, or -1. */
typedef struct {
  const cond_t *c;
  int *vars;
  size_t ne;
  int *slot;
  dist_t *dists;
  double *e;
  bool bad_dist;
  int inner;        /* numeric routes: the slot integrated in closed form, or -1 */
} ctx_t;

typedef struct {
  double v, s; /* value and slope in the chosen error variable */
  bool ok;     /* affine in it */
} lin_t;

static value_t lookup(void *p, int id, bool primed) {
  (void)primed;
  const ctx_t *x = p;
  double d = x->c->values[id];
  if (x->slot[id] >= 0) d += x->e[x->slot[id]];
  return (value_t){(long long)llround(d), d};
}

static bool holds(ctx_t *x) {
  for (size_t k = 0; k < x->c->nparts; k++) {
    bool err = false;
    bool v = expr_eval_bool(x->c->parts[k], lookup, x, &err);
    if ((!err && v) != x->c->want[k]) return false; /* a division by 0 makes a condition false */
  }
  return true;
}

typedef struct {
  const ctx_t *x;
  unsigned long long mask;
  size_t count;
} deps_t;

static void mark(void *p, const expr_t *var) {
  deps_t *d = p;
  int s = d->x->slot[var->u.var.id];
  if (s < 0 || (s < 64 && (d->mask >> s & 1))) return;
  if (s < 64) d->mask |= 1ULL << s;
  d->count++;
}

/* How many error variables e reads, and whether it reads slot j. */
static size_t deps(const ctx_t *x, const expr_t *e, int j, bool *reads_j) {
  deps_t d = {x, 0, 0};
  expr_visit_vars(e, mark, &d);
  if (reads_j) *reads_j = j >= 0 && j < 64 && (d.mask >> j & 1);
  return d.count;
}

static lin_t affine(ctx_t *x, const expr_t *e, int j) {
  bool reads = false;
  deps(x, e, j, &reads);
  if (!reads) {
    bool err = false;
    double v = expr_eval_real(e, lookup, x, &err);
    return (lin_t){v, 0, !err};
  }
  lin_t a, b, fail = {0, 0, false};
  switch (e->kind) {
  case EXPR_VAR:
    if (x->c->m->vars[e->u.var.id].type.kind != TYPE_REAL) return fail; /* rounded: a step function */
    return (lin_t){lookup(x, e->u.var.id, false).r, 1, true};
  case EXPR_TOREAL: return fail; /* an int expression of an error: a step function */
  case EXPR_NEG: a = affine(x, e->u.op.a, j); return (lin_t){-a.v, -a.s, a.ok};
  case EXPR_ADD:
  case EXPR_SUB: {
    a = affine(x, e->u.op.a, j), b = affine(x, e->u.op.b, j);
    double sign = e->kind == EXPR_ADD ? 1 : -1;
    return (lin_t){a.v + sign * b.v, a.s + sign * b.s, a.ok && b.ok};
  }
  case EXPR_MUL:
    a = affine(x, e->u.op.a, j), b = affine(x, e->u.op.b, j);
    if (!a.ok || !b.ok || (a.s != 0 && b.s != 0)) return fail;
    return (lin_t){a.v * b.v, a.v * b.s + a.s * b.v, true};
  case EXPR_DIV:
    if (e->type.kind != TYPE_REAL) return fail;
    a = affine(x, e->u.op.a, j), b = affine(x, e->u.op.b, j);
    if (!a.ok || !b.ok || b.s != 0 || b.v == 0) return fail;
    return (lin_t){a.v / b.v, a.s / b.v, true};
  default: return fail;
  }
}

static bool is_numeric_cmp(const expr_t *e) {
  switch (e->kind) {
  case EXPR_EQ: case EXPR_NE: case EXPR_LT: case EXPR_LE: case EXPR_GT: case EXPR_GE: {
    type_kind_t k = e->u.op.a->type.kind;
    return k == TYPE_INT || k == TYPE_REAL;
  }
  default: return false;
  }
}

/* Appends the points where a comparison of e flips as slot j moves (others
 * fixed). With `separable`, also fails when an atom reads two error
 * variables. Returns false when some atom is not affine in slot j. */
static bool breakpoints(ctx_t *x, const expr_t *e, int j, bool separable, dvec_t *out) {
  bool reads = false;
  size_t n = deps(x, e, j, &reads);
  if (!reads) return true;
  if (is_numeric_cmp(e)) {
    if (separable && n > 1) return false;
    lin_t a = affine(x, e->u.op.a, j), b = affine(x, e->u.op.b, j);
    if (!a.ok || !b.ok) return false;
    double s = a.s - b.s, v = a.v - b.v;
    if (s != 0) VEC_PUSH(out, x->e[j] - v / s);
    return true;
  }
  switch (e->kind) {
  case EXPR_NOT: return breakpoints(x, e->u.op.a, j, separable, out);
  case EXPR_AND: case EXPR_OR: case EXPR_IMPLIES: case EXPR_IFF: case EXPR_EQ: case EXPR_NE:
    return breakpoints(x, e->u.op.a, j, separable, out) && breakpoints(x, e->u.op.b, j, separable, out);
  case EXPR_ITE:
    if (e->type.kind != TYPE_BOOL) return false;
    return breakpoints(x, e->u.op.a, j, separable, out) && breakpoints(x, e->u.op.b, j, separable, out) &&
           breakpoints(x, e->u.op.c, j, separable, out);
  default: return false;
  }
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The support of slot j cut at every breakpoint: sorted cut points, lo and hi included. */
static bool segments(ctx_t *x, int j, bool separable, dvec_t *cuts) {
  VEC_CLEAR(cuts);
  for (size_t k = 0; k < x->c->nparts; k++)
    if (!breakpoints(x, x->c->parts[k], j, separable, cuts)) return false;
  const dist_t *d = &x->dists[j];
  size_t w = 0;
  for (size_t k = 0; k < cuts->len; k++)
    if (cuts->data[k] > d->lo && cuts->data[k] < d->hi) cuts->data[w++] = cuts->data[k];
  cuts->len = w;
  VEC_PUSH(cuts, d->lo);
  VEC_PUSH(cuts, d->hi);
  qsort(cuts->data, cuts->len, sizeof *cuts->data, compare_double);
  return true;
}

/* Exact P(condition) over slot j with the other errors fixed. */
static bool mass_1d(ctx_t *x, int j, double *p) {
  dvec_t cuts = {0};
  bool ok = segments(x, j, false, &cuts);
  double save = x->e[j], sum = 0;
  const dist_t *d = &x->dists[j];
  if (ok && d->lo == d->hi) {
    x->e[j] = d->lo;
    sum = holds(x);
  } else if (ok) {
    for (size_t k = 0; k + 1 < cuts.len; k++) {
      double a = cuts.data[k], b = cuts.data[k + 1];
      if (!(a < b)) continue;
      x->e[j] = a + (b - a) / 2;
      if (holds(x)) sum += dist_mass(d, a, b);
    }
  }
  x->e[j] = save;
  VEC_FREE(&cuts);
  *p = sum > 1 ? 1 : sum;
  return ok;
}

/* Exact: every atom reads at most one error variable, so the condition is
 * constant on each cell of the product of per-variable segments. */
static int product_cells(ctx_t *x, double *p) {
  dvec_t *cuts = xcalloc(x->ne, sizeof *cuts);
  size_t cells = 1;
  int status = 1;
  for (size_t j = 0; j < x->ne && status == 1; j++) {
    if (!segments(x, (int)j, true, &cuts[j]) || x->dists[j].lo == x->dists[j].hi) status = 0;
    else if ((cells *= cuts[j].len - 1) > MAX_CELLS) status = 0;
  }
  size_t *at = xcalloc(x->ne + 1, sizeof *at);
  double sum = 0;
  for (size_t cell = 0; status == 1 && cell < cells; cell++) {
    double mass = 1;
    for (size_t j = 0; j < x->ne; j++) {
      double a = cuts[j].data[at[j]], b = cuts[j].data[at[j] + 1];
      x->e[j] = a + (b - a) / 2;
      mass *= a < b ? dist_mass(&x->dists[j], a, b) : 0;
    }
    if (mass > 0 && holds(x)) sum += mass;
    for (size_t j = 0; j < x->ne && ++at[j] == cuts[j].len - 1; j++) at[j] = 0;
  }
  for (size_t j = 0; j < x->ne; j++) VEC_FREE(&cuts[j]);
  free(cuts);
  free(at);
  *p = sum > 1 ? 1 : sum;
  return status;
}

/* The integrand over the unit cube of the outer variables (all slots but
 * x->inner, mapped through their quantiles); the inner one in closed form. */
static double integrand(double *u, size_t dim, void *p) {
  ctx_t *x = p;
  size_t k = 0;
  for (size_t j = 0; j < x->ne; j++)
    if ((int)j != x->inner) x->e[j] = dist_quantile(&x->dists[j], u[k++]);
  (void)dim;
  if (x->inner < 0) return holds(x);
  double m = 0;
  return mass_1d(x, x->inner, &m) ? m : NAN;
}

static double integrand_1d(double u, void *p) { return integrand(&u, 1, p); }

static bool quadrature(ctx_t *x, cond_prob_t *out) {
  gsl_integration_workspace *w = gsl_integration_workspace_alloc(QUAD_LIMIT);
  if (!w) abort();
  gsl_function f = {integrand_1d, x};
  double r = 0, err = 0;
  int status = gsl_integration_qag(&f, 0, 1, 1e-10, 1e-8, QUAD_LIMIT, GSL_INTEG_GAUSS21, w, &r, &err);
  gsl_integration_workspace_free(w);
  /* Hitting the subdivision limit or roundoff still leaves a usable estimate with its error. */
  if (status != GSL_SUCCESS && status != GSL_EMAXITER && status != GSL_EROUND) return false;
  if (!isfinite(r) || !isfinite(err)) return false;
  *out = (cond_prob_t){r, err, COND_QUADRATURE};
  return true;
}

static bool vegas(ctx_t *x, size_t dim, cond_prob_t *out) {
  double *lo = xcalloc(dim, sizeof *lo), *hi = xcalloc(dim, sizeof *hi);
  for (size_t k = 0; k < dim; k++) hi[k] = 1;
  gsl_monte_function f = {integrand, dim, x};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_monte_vegas_state *s = gsl_monte_vegas_alloc(dim);
  if (!rng || !s) abort();
  gsl_rng_set(rng, INTEGRATION_SEED);
  double r = 0, err = 0;
  int status = gsl_monte_vegas_integrate(&f, lo, hi, dim, VEGAS_CALLS / 4, rng, s, &r, &err);
  for (int round = 0; status == GSL_SUCCESS && round < 8; round++) {
    status = gsl_monte_vegas_integrate(&f, lo, hi, dim, VEGAS_CALLS, rng, s, &r, &err);
    double chisq = gsl_monte_vegas_chisq(s);
    if (round >= 1 && (err == 0 || fabs(chisq - 1) <= 0.5)) break;
  }
  gsl_monte_vegas_free(s);
  gsl_rng_free(rng);
  free(lo);
  free(hi);
  if (status != GSL_SUCCESS || !isfinite(r) || !isfinite(err)) return false;
  *out = (cond_prob_t){r, err, COND_VEGAS};
  return true;
}

static void ctx_init(ctx_t *x, const cond_t *c) {
  const ism_model_t *m = c->m;
  memset(x, 0, sizeof *x);
  x->c = c;
  x->slot = xmalloc((m->nvars + 1) * sizeof *x->slot);
  x->vars = xcalloc(m->nvars + 1, sizeof *x->vars);
  x->dists = xcalloc(m->nvars + 1, sizeof *x->dists);
  x->e = xcalloc(m->nvars + 1, sizeof *x->e);
  x->inner = -1;
  for (size_t v = 0; v < m->nvars; v++) x->slot[v] = -1;
}

typedef struct {
  bool *read;
} reads_t;

static void mark_read(void *p, const expr_t *var) { ((reads_t *)p)->read[var->u.var.id] = true; }

/* Fills the error slots: the uncertain sensing variables the condition reads. */
static void ctx_setup(ctx_t *x, const cond_t *c) {
  ctx_init(x, c);
  const ism_model_t *m = c->m;
  reads_t r = {xcalloc(m->nvars + 1, sizeof(bool))};
  for (size_t k = 0; k < c->nparts; k++) expr_visit_vars(c->parts[k], mark_read, &r);
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    if (!r.read[v] || !var->sensing || !var->uncertain || !c->with_error) continue;
    x->slot[v] = (int)x->ne;
    x->vars[x->ne] = (int)v;
    if (!dist_of_var(var, &x->dists[x->ne])) x->bad_dist = true;
    x->e[x->ne] = dist_mode(&x->dists[x->ne]);
    x->ne++;
  }
  free(r.read);
}

static void ctx_free(ctx_t *x) {
  free(x->slot), free(x->vars), free(x->dists), free(x->e);
}

/* Can slot j be integrated in closed form, whatever the other errors are?
 * Probed at the modes: affinity is a property of the syntax here. */
static bool inner_closed(ctx_t *x, int j) {
  dvec_t cuts = {0};
  bool ok = segments(x, j, false, &cuts);
  VEC_FREE(&cuts);
  return ok;
}

/* Errors at their modes: where every computation starts. */
static void reset_errors(ctx_t *x) {
  for (size_t j = 0; j < x->ne; j++) x->e[j] = dist_mode(&x->dists[j]);
  x->inner = -1;
}

static bool probability_in(ctx_t *x, cond_method_t method, cond_prob_t *out) {
  reset_errors(x);
  bool ok = !x->bad_dist;
  *out = (cond_prob_t){0, 0, COND_EXACT};
  if (ok && x->ne == 0) {
    out->p = holds(x);
  } else if (ok) {
    int closed = method == COND_AUTO ? product_cells(x, &out->p) : 0;
    if (closed == 1) {
      out->how = COND_CLOSED_FORM;
    } else {
      x->inner = method != COND_MONTE_CARLO && (x->ne > 1 || method == COND_AUTO) && inner_closed(x, (int)x->ne - 1)
                     ? (int)x->ne - 1 : -1;
      size_t dim = x->inner >= 0 ? x->ne - 1 : x->ne;
      if (dim == 0) {
        ok = mass_1d(x, 0, &out->p);
        out->how = COND_CLOSED_FORM;
      } else if (dim == 1 && method != COND_MONTE_CARLO) {
        ok = quadrature(x, out);
      } else {
        ok = vegas(x, dim, out);
      }
    }
  }
  if (!ok) *out = (cond_prob_t){0, 1, COND_VEGAS};
  out->p = out->p < 0 ? 0 : out->p > 1 ? 1 : out->p;
  if (out->error > 1) out->error = 1;
  return ok;
}

bool cond_probability(const cond_t *c, cond_method_t method, cond_prob_t *out) {
  dist_gsl_quiet();
  ctx_t x;
  ctx_setup(&x, c);
  bool ok = probability_in(&x, method, out);
  ctx_free(&x);
  return ok;
}

bool cond_holds(const cond_t *c, const double *e) {
  ctx_t x;
  ctx_setup(&x, c);
  for (size_t j = 0; j < x.ne; j++) x.e[j] = e[x.vars[j]];
  bool h = holds(&x);
  ctx_free(&x);
  return h;
}

/* Moves slot j to the most likely value that keeps the condition true. */
static void improve_slot(ctx_t *x, int j) {
  dvec_t cuts = {0};
  if (!segments(x, j, false, &cuts)) {
    VEC_FREE(&cuts);
    return;
  }
  const dist_t *d = &x->dists[j];
  double mode = dist_mode(d), save = x->e[j], best = save, best_dist = INFINITY;
  for (size_t k = 0; k + 1 < cuts.len; k++) {
    double a = cuts.data[k], b = cuts.data[k + 1];
    if (!(a < b)) continue;
    x->e[j] = a + (b - a) / 2;
    if (!holds(x)) continue;
    double inset = fmin((b - a) / 2, 1e-7 * (1 + fabs(a) + fabs(b)));
    double lo = a > d->lo ? a + inset : a, hi = b < d->hi ? b - inset : b;
    double pick = mode < lo ? lo : mode > hi ? hi : mode;
    if (fabs(pick - mode) < best_dist) best = pick, best_dist = fabs(pick - mode);
  }
  x->e[j] = best;
  if (!holds(x)) x->e[j] = save;
  VEC_FREE(&cuts);
}

/* Starts from e (indexed by variable id) and writes the chosen errors back. */
static bool likely_point_in(ctx_t *x, double *e) {
  x->inner = -1;
  for (size_t j = 0; j < x->ne; j++) x->e[j] = e[x->vars[j]];
  for (int sweep = 0; sweep < 3; sweep++)
    for (size_t j = 0; j < x->ne; j++) improve_slot(x, (int)j);
  bool ok = !x->bad_dist && holds(x);
  for (size_t j = 0; j < x->ne; j++) e[x->vars[j]] = x->e[j];
  return ok;
}

bool cond_likely_point(const cond_t *c, double *e) {
  dist_gsl_quiet();
  ctx_t x;
  ctx_setup(&x, c);
  bool ok = likely_point_in(&x, e);
  ctx_free(&x);
  return ok;
}

/* ---- prepared conditions ---- */

enum { MEMO_MAX = 1 << 14 };

struct cond_prep {
  cond_t c;           /* parts and want owned; values set by each call */
  const expr_t **parts;
  bool *want;
  int *read;          /* the variables any part reads, ascending */
  size_t nread;
  ctx_t x;            /* error slots and distributions, set up once */
  double *key;        /* [nread + ne + 1]: scratch */
  memo_t probs;       /* key: read values, method; value: prob_memo_t */
  memo_t points;      /* key: read values, errors of the slots; value: ok, then ne errors */
};

typedef struct {
  cond_prob_t prob;
  bool ok;
} prob_memo_t;

cond_prep_t *cond_prep_new(const cond_t *c) {
  cond_prep_t *p = xcalloc(1, sizeof *p);
  p->parts = xmalloc((c->nparts + 1) * sizeof *p->parts);
  p->want = xmalloc((c->nparts + 1) * sizeof *p->want);
  memcpy(p->parts, c->parts, c->nparts * sizeof *p->parts);
  memcpy(p->want, c->want, c->nparts * sizeof *p->want);
  p->c = (cond_t){c->m, p->parts, p->want, c->nparts, NULL, c->with_error};
  reads_t r = {xcalloc(c->m->nvars + 1, sizeof(bool))};
  for (size_t k = 0; k < c->nparts; k++) expr_visit_vars(c->parts[k], mark_read, &r);
  p->read = xmalloc((c->m->nvars + 1) * sizeof *p->read);
  for (size_t v = 0; v < c->m->nvars; v++)
    if (r.read[v]) p->read[p->nread++] = (int)v;
  free(r.read);
  ctx_setup(&p->x, &p->c);
  p->key = xmalloc((p->nread + p->x.ne + 1) * sizeof *p->key);
  memo_init(&p->probs, p->nread + 1, sizeof(prob_memo_t), MEMO_MAX);
  memo_init(&p->points, p->nread + p->x.ne + 1, (p->x.ne + 1) * sizeof(double), MEMO_MAX);
  return p;
}

cond_prep_t *cond_prep_rule(const ism_model_t *m, int rule, bool with_error) {
  size_t n = 1, cap = 1;
  const int *earlier = m->rules_from[m->rules[rule].from];
  for (const int *o = earlier; *o != rule; o++) cap++;
  const expr_t **parts = xmalloc(cap * sizeof *parts);
  bool *want = xmalloc(cap * sizeof *want);
  parts[0] = m->rules[rule].when, want[0] = true;
  if (m->selection == ISM_SELECT_FIRST)
    for (const int *o = earlier; *o != rule; o++) parts[n] = m->rules[*o].when, want[n++] = false;
  cond_t c = {m, parts, want, n, NULL, with_error};
  cond_prep_t *p = cond_prep_new(&c);
  free(parts);
  free(want);
  return p;
}

void cond_prep_delete(cond_prep_t *p) {
  if (!p) return;
  ctx_free(&p->x);
  memo_free(&p->probs);
  memo_free(&p->points);
  free(p->parts), free(p->want), free(p->read), free(p->key);
  free(p);
}

/* The read values into p->key; returns the number written. */
static size_t key_values(cond_prep_t *p, const double *values) {
  for (size_t k = 0; k < p->nread; k++) p->key[k] = values[p->read[k]];
  return p->nread;
}

bool cond_prep_probability(cond_prep_t *p, const double *values, cond_method_t method, cond_prob_t *out) {
  p->key[key_values(p, values)] = (double)method;
  const prob_memo_t *hit = memo_get(&p->probs, p->key);
  if (hit) {
    *out = hit->prob;
    return hit->ok;
  }
  dist_gsl_quiet();
  p->c.values = values;
  prob_memo_t computed;
  computed.ok = probability_in(&p->x, method, &computed.prob);
  p->c.values = NULL;
  memo_put(&p->probs, p->key, &computed);
  *out = computed.prob;
  return computed.ok;
}

bool cond_prep_likely_point(cond_prep_t *p, const double *values, double *e) {
  size_t n = key_values(p, values), ne = p->x.ne;
  for (size_t j = 0; j < ne; j++) p->key[n + j] = e[p->x.vars[j]];
  p->key[n + ne] = 0;
  const double *hit = memo_get(&p->points, p->key);
  if (!hit) {
    dist_gsl_quiet();
    p->c.values = values;
    bool ok = likely_point_in(&p->x, e);
    p->c.values = NULL;
    double *computed = xmalloc((ne + 1) * sizeof *computed);
    computed[0] = ok;
    for (size_t j = 0; j < ne; j++) computed[j + 1] = e[p->x.vars[j]];
    memo_put(&p->points, p->key, computed);
    free(computed);
    return ok;
  }
  for (size_t j = 0; j < ne; j++) e[p->x.vars[j]] = hit[j + 1];
  return hit[0] != 0;
}

const char *cond_how_name(cond_how_t how) {
  static const char *const names[] = {"exact", "closed form", "quadrature", "vegas"};
  return names[how];
}
