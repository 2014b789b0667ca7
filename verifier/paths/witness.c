#include "verifier/paths/witness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/vec.h"
#include "verifier/paths/rational.h"

/* Margins tried in turn, the relaxation's budget per margin (projections
 * per inequality), and its step (1: onto the hyperplane of the target). */
static const double margins[] = {1, 0.1, 0.01, 0.001};
enum { ITERATIONS_PER_ROW = 6, MIN_ITERATIONS = 64, CLOSE_BUDGET = 2 };
/* Choices (a disjunct, a boolean's value) tried per path, in a fixed order. */
enum { MAX_TRIES = 8 };
static const double STEP = 1.5; /* over-projection: past the target, much faster on faces */
static const double ROUNDING = 1e-12;

/* k + sum co[t] * x[idx[t]], idx ascending. */
typedef struct {
  int n;
  double k;
  int *idx;
  double *co;
} aff_t;

/* A value: an affine number, a constant boolean, or neither (ok false);
 * a free boolean (bvar >= 0) is constant once a condition has fixed it. */
typedef struct {
  bool ok, is_bool, b;
  aff_t f;
  int bvar;
} wval_t;

typedef struct {
  const ism_model_t *m;
  ism_mode_t mode;
  size_t nv;
  bool bad; /* not conjunctive affine (or out of what this encodes): no witness */
  arena_t pool; /* everything the encoding makes, freed at once */
  VEC(double) x0;  /* the start point, one per free value */
  VEC(aff_t) rows; /* g(x) >= 0 each */
  const wval_t *now, *next, *normal;
  wval_t *T, *H;                   /* [(length + 1) * nv], [length * nv] */
  wval_t *before, *after, *actual; /* [nactions * nv] */
  size_t nactions, act;            /* c's actions, and those encoded so far */
  VEC(signed char) bools;          /* free booleans: -1 not fixed yet, 0, 1 */
  unsigned choices;                /* bit k: the choice at the k-th choice point (0: first disjunct) */
  int nchoices;                    /* choice points met */
  bool pure; /* value() only looks (formula's constant test): no choice, no inequality */
} wenc_t;

/* The next choice point's choice. */
static bool choose(wenc_t *w) {
  int k = w->nchoices++;
  return k < 31 && (w->choices >> k & 1u);
}

static void *grab(wenc_t *w, size_t bytes) {
  return arena_alloc(&w->pool, bytes ? bytes : 1);
}

static wval_t number(double k) { return (wval_t){true, false, false, {0, k, NULL, NULL}, -1}; }
static wval_t boolean(bool b) { return (wval_t){true, true, b, {0, b, NULL, NULL}, -1}; }
static wval_t none(void) { return (wval_t){false, false, false, {0, 0, NULL, NULL}, -1}; }
static bool is_const(wval_t v) { return v.ok && v.f.n == 0; }

/* sa * a + sb * b */
static aff_t combine(wenc_t *w, aff_t a, double sa, aff_t b, double sb) {
  aff_t r = {0, sa * a.k + sb * b.k, NULL, NULL};
  if (a.n + b.n == 0) return r;
  r.idx = grab(w, (size_t)(a.n + b.n) * sizeof *r.idx);
  r.co = grab(w, (size_t)(a.n + b.n) * sizeof *r.co);
  int i = 0, j = 0;
  while (i < a.n || j < b.n) {
    int at;
    double co;
    if (j == b.n || (i < a.n && a.idx[i] < b.idx[j]))
      at = a.idx[i], co = sa * a.co[i++];
    else if (i == a.n || b.idx[j] < a.idx[i])
      at = b.idx[j], co = sb * b.co[j++];
    else
      at = a.idx[i], co = sa * a.co[i++] + sb * b.co[j++];
    if (co != 0) r.idx[r.n] = at, r.co[r.n++] = co;
  }
  return r;
}

static wval_t num_of(aff_t f) { return (wval_t){true, false, false, f, -1}; }

/* A new free value starting at x0. */
static wval_t free_value(wenc_t *w, double x0) {
  aff_t f = {1, 0, grab(w, sizeof(int)), grab(w, sizeof(double))};
  f.idx[0] = (int)w->x0.len, f.co[0] = 1;
  VEC_PUSH(&w->x0, x0);
  return num_of(f);
}

static void row(wenc_t *w, aff_t g) { VEC_PUSH(&w->rows, g); }

/* lo <= f <= hi */
static void within(wenc_t *w, aff_t f, double lo, double hi) {
  aff_t one = {0, 1, NULL, NULL};
  row(w, combine(w, f, 1, one, -lo));
  row(w, combine(w, f, -1, one, hi));
}

/* A free boolean's value once fixed, else none() carrying its id. */
static wval_t resolved(const wenc_t *w, wval_t v) {
  if (v.bvar < 0) return v;
  if (w->bools.data[v.bvar] >= 0) return boolean(w->bools.data[v.bvar] == 1);
  wval_t u = none();
  u.bvar = v.bvar;
  return u;
}

static wval_t lookup(wenc_t *w, const expr_t *e) {
  if (e->u.var.sym_kind != SYM_VAR) return none();
  int v = e->u.var.id;
  const wval_t *row = w->m->vars[v].sensing ? (e->u.var.primed ? w->next : w->now) : w->normal;
  return row ? resolved(w, row[v]) : none();
}

static double floor_div(double a, double b) { /* Euclidean: a = q * b + r, 0 <= r < |b| */
  double q = floor(a / fabs(b));
  return b < 0 ? -q : q;
}

static wval_t value(wenc_t *w, const expr_t *e);

/* A boolean connective of constants (short-circuit where one side decides). */
static wval_t connective(wenc_t *w, const expr_t *e) {
  wval_t a = value(w, e->u.op.a);
  if (e->kind == EXPR_NOT) return is_const(a) ? boolean(!a.b) : none();
  if (is_const(a) && e->kind == EXPR_AND && !a.b) return boolean(false);
  if (is_const(a) && e->kind == EXPR_OR && a.b) return boolean(true);
  if (is_const(a) && e->kind == EXPR_IMPLIES && !a.b) return boolean(true);
  wval_t b = value(w, e->u.op.b);
  if (is_const(b) && e->kind == EXPR_AND && !b.b) return boolean(false);
  if (is_const(b) && (e->kind == EXPR_OR || e->kind == EXPR_IMPLIES) && b.b) return boolean(true);
  if (!is_const(a) || !is_const(b)) return none();
  switch (e->kind) {
  case EXPR_AND: return boolean(a.b && b.b);
  case EXPR_OR: return boolean(a.b || b.b);
  case EXPR_IMPLIES: return boolean(!a.b || b.b);
  default: return boolean(a.b == b.b);
  }
}

static wval_t arithmetic(wenc_t *w, const expr_t *e) {
  wval_t a = value(w, e->u.op.a), b = value(w, e->u.op.b);
  if (!a.ok || !b.ok) return none();
  bool ints = e->type.kind == TYPE_INT;
  switch (e->kind) {
  case EXPR_ADD: return num_of(combine(w, a.f, 1, b.f, 1));
  case EXPR_SUB: return num_of(combine(w, a.f, 1, b.f, -1));
  case EXPR_MUL:
    if (is_const(a)) return num_of(combine(w, b.f, a.f.k, b.f, 0));
    if (is_const(b)) return num_of(combine(w, a.f, b.f.k, a.f, 0));
    return none();
  case EXPR_DIV:
    if (!is_const(b) || b.f.k == 0) return none();
    if (ints) return is_const(a) ? number(floor_div(a.f.k, b.f.k)) : none();
    return num_of(combine(w, a.f, 1 / b.f.k, a.f, 0));
  default: break;
  }
  if ((e->kind == EXPR_MIN || e->kind == EXPR_MAX) && !(is_const(a) && is_const(b))) {
    if (w->pure || ints) return none();
    bool second = choose(w), max = e->kind == EXPR_MAX; /* max(a, b) is a where a >= b, else b */
    wval_t pick = second ? b : a, other = second ? a : b;
    row(w, max ? combine(w, pick.f, 1, other.f, -1) : combine(w, other.f, 1, pick.f, -1));
    return pick;
  }
  if (!is_const(a) || !is_const(b)) return none();
  double x = a.f.k, y = b.f.k;
  switch (e->kind) {
  case EXPR_MOD: return y == 0 ? none() : number(x - floor_div(x, y) * y);
  case EXPR_MIN: return number(x < y ? x : y);
  default: return number(x > y ? x : y);
  }
}

/* The value of e in the current frame; ok false when it is neither an
 * affine number nor a constant (e.g. a comparison of free values). */
static wval_t value(wenc_t *w, const expr_t *e) {
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_ENUM: return number((double)e->u.ival);
  case EXPR_REAL: return number(e->u.real.value);
  case EXPR_BOOL: return boolean(e->u.bval);
  case EXPR_VAR: return lookup(w, e);
  case EXPR_TOREAL: return value(w, e->u.op.a);
  case EXPR_NEG: {
    wval_t a = value(w, e->u.op.a);
    return a.ok && !a.is_bool ? num_of(combine(w, a.f, -1, a.f, 0)) : none();
  }
  case EXPR_ABS: {
    wval_t a = value(w, e->u.op.a);
    if (is_const(a)) return number(fabs(a.f.k));
    if (w->pure || !a.ok || a.is_bool || e->type.kind != TYPE_REAL) return none();
    wval_t v = choose(w) ? num_of(combine(w, a.f, -1, a.f, 0)) : a; /* |a| is a where a >= 0, else -a */
    row(w, v.f);
    return v;
  }
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_MIN:
  case EXPR_MAX: return arithmetic(w, e);
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE: {
    wval_t a = value(w, e->u.op.a), b = value(w, e->u.op.b);
    if (!is_const(a) || !is_const(b)) return none();
    return boolean(expr_compare_reals(e->kind, a.f.k, b.f.k));
  }
  case EXPR_NOT:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_IMPLIES:
  case EXPR_IFF: return connective(w, e);
  case EXPR_ITE: {
    wval_t c = value(w, e->u.op.a);
    if (c.bvar >= 0) w->bools.data[c.bvar] = 0, c = boolean(false); /* free: fixed by this use */
    if (!is_const(c)) return none();
    return value(w, c.b ? e->u.op.b : e->u.op.c);
  }
  default: return none();
  }
}

/* Adds the inequalities that make e hold (positive) or fail; false when
 * they cannot (a constant false) or e is not conjunctive affine in this
 * polarity (then w->bad). */
static bool formula(wenc_t *w, const expr_t *e, bool positive) {
  bool was = w->pure;
  w->pure = true;
  wval_t v = value(w, e);
  w->pure = was;
  if (is_const(v)) return v.b == positive || (w->bad = true, false);
  const expr_t *a = e->u.op.a, *b = e->u.op.b;
  switch (e->kind) {
  case EXPR_NOT: return formula(w, a, !positive);
  case EXPR_VAR:
    if (v.bvar < 0) break;
    w->bools.data[v.bvar] = positive; /* a free boolean: fixed by the first condition that reads it */
    return true;
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_IMPLIES: {
    bool left = e->kind == EXPR_IMPLIES ? !positive : positive; /* a => b is (not a) or b */
    bool conj = (e->kind == EXPR_AND) == positive && !(e->kind == EXPR_IMPLIES && positive);
    if (conj) return formula(w, a, left) && formula(w, b, positive);
    w->pure = true;
    wval_t va = value(w, a), vb = value(w, b);
    w->pure = was;
    if (is_const(va)) return va.b == left || formula(w, b, positive);
    if (is_const(vb)) return vb.b == positive || formula(w, a, left);
    return choose(w) ? formula(w, b, positive) : formula(w, a, left);
  }
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE: {
    wval_t va = value(w, a), vb = value(w, b);
    if (!va.ok || !vb.ok || va.is_bool || vb.is_bool) break;
    expr_kind_t k = positive ? e->kind : expr_negated_comparison(e->kind);
    if (k == EXPR_EQ) { /* measure zero: only a point with margin 0 */
      row(w, combine(w, vb.f, 1, va.f, -1));
      row(w, combine(w, va.f, 1, vb.f, -1));
      return true;
    }
    bool less = k == EXPR_LT || k == EXPR_LE || (k == EXPR_NE && !choose(w));
    row(w, less ? combine(w, vb.f, 1, va.f, -1) : combine(w, va.f, 1, vb.f, -1));
    return true;
  }
  default: break;
  }
  w->bad = true;
  return false;
}

static double middle(const ism_var_t *var) {
  return var->has_range ? (var->range_lo + var->range_hi) / 2 : 0;
}

/* A free value: a real one for the relaxation, a boolean fixed later by
 * the first condition that reads it; other types are not encoded. */
static wval_t fresh(wenc_t *w, int v) {
  const ism_var_t *var = &w->m->vars[v];
  if (var->type.kind == TYPE_BOOL) {
    wval_t b = none();
    b.ok = b.is_bool = true, b.bvar = (int)w->bools.len;
    VEC_PUSH(&w->bools, (signed char)-1);
    return b;
  }
  if (var->type.kind != TYPE_REAL) {
    w->bad = true;
    return none();
  }
  return free_value(w, middle(var));
}

/* An error in [lo, hi] added to base. */
static wval_t with_error(wenc_t *w, wval_t base, double lo, double hi) {
  if (lo == hi) return num_of(combine(w, base.f, 1, number(lo).f, 1));
  wval_t e = free_value(w, lo <= 0 && 0 <= hi ? 0 : (lo + hi) / 2);
  within(w, e.f, lo, hi);
  return num_of(combine(w, base.f, 1, e.f, 1));
}

static void start(wenc_t *w) {
  for (size_t v = 0; v < w->nv && !w->bad; v++) {
    const ism_var_t *var = &w->m->vars[v];
    if (var->sensing || !var->init) {
      w->T[v] = fresh(w, (int)v);
      continue;
    }
    bool err = false;
    w->T[v] = var->type.kind == TYPE_REAL   ? number(expr_eval_real(var->init, NULL, NULL, &err))
              : var->type.kind == TYPE_BOOL ? boolean(expr_eval(var->init, NULL, NULL, &err).i != 0)
                                            : number((double)expr_eval(var->init, NULL, NULL, &err).i);
    w->bad |= err;
  }
  w->now = w->normal = w->T, w->next = NULL;
  for (size_t k = 0; k < w->m->nassume && !w->bad; k++) formula(w, w->m->assume[k], true);
}

/* One action of step i at do: position p (explore.c's run_action); `fail`:
 * 1 it fails, 0 it does not, -1 nothing asked. */
static void action(wenc_t *w, int action_id, wval_t *U, const wval_t *cur, int fail) {
  const ism_model_t *m = w->m;
  const ism_action_t *a = &m->actions[action_id];
  size_t nv = w->nv, at = w->act++ * nv;
  if (at >= w->nactions * nv) {
    w->bad = true;
    return;
  }
  wval_t *before = w->before + at, *after = w->after + at, *actual = w->actual + at;
  wval_t *normal = grab(w, (nv + 1) * sizeof *normal);
  bool *set = grab(w, (nv + 1) * sizeof *set);
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    before[v] = var->sensing ? U[v] : cur[v];
    after[v] = before[v], set[v] = !var->sensing, normal[v] = cur[v];
    actual[v] = none();
    if (!var->sensing && var->uncertain && w->mode == ISM_MODE_ACTUAL && a->reads[v])
      normal[v] = actual[v] = with_error(w, cur[v], var->err_lo, var->err_hi);
  }
  bool naive = w->mode == ISM_MODE_NAIVE;
  bool *defining = grab(w, (a->neffects + 1) * sizeof *defining);
  w->now = before, w->next = NULL, w->normal = normal;
  for (size_t k = 0; k < a->neffects; k++) {
    const expr_t *rhs;
    int v = naive ? -1 : ism_effect_defines(m, a->effects[k], &rhs);
    defining[k] = v >= 0 && !set[v];
    if (!defining[k]) continue;
    after[v] = value(w, rhs), set[v] = true;
    if (!after[v].ok || after[v].is_bool) w->bad = true;
  }
  for (size_t v = 0; v < nv && !w->bad; v++)
    if (!set[v]) after[v] = fresh(w, (int)v);
  w->now = before, w->next = after, w->normal = normal;
  for (size_t k = 0; k < a->neffects && !naive && !w->bad; k++)
    if (!defining[k]) formula(w, a->effects[k], true);
  if (a->failure && fail >= 0 && !w->bad) formula(w, a->failure, fail == 1);
  for (size_t v = 0; v < nv; v++)
    if (m->vars[v].sensing) U[v] = after[v];
}

/* Step i of c's path (explore.c's build_step), failing as c fails when it
 * is the last one, not failing otherwise. */
static void step(wenc_t *w, const cex_t *c, int i) {
  const ism_model_t *m = w->m;
  size_t nv = w->nv;
  bool last = i + 1 == c->length;
  int rule_id = c->rules[i];
  const ism_rule_t *r = &m->rules[rule_id];
  wval_t *T = w->T + (size_t)i * nv, *H = w->H + (size_t)i * nv, *Tn = T + nv;
  for (size_t v = 0; v < nv && !w->bad; v++) {
    const ism_var_t *var = &m->vars[v];
    H[v] = T[v];
    if (!var->sensing) continue;
    if (var->has_range) within(w, T[v].f, var->range_lo, var->range_hi);
    if (var->uncertain && w->mode == ISM_MODE_ACTUAL) H[v] = with_error(w, T[v], var->err_lo, var->err_hi);
  }
  w->now = H, w->next = NULL, w->normal = T;
  if (!w->bad) formula(w, r->when, true);
  if (m->selection == ISM_SELECT_FIRST)
    for (const int *q = m->rules_from[r->from]; *q != rule_id && !w->bad; q++)
      formula(w, m->rules[*q].when, false);
  wval_t *U = grab(w, (nv + 1) * sizeof *U), *cur = grab(w, (nv + 1) * sizeof *cur);
  memcpy(U, T, nv * sizeof *U);
  memcpy(cur, T, nv * sizeof *cur);
  bool failed = false; /* the last step's failing action is encoded */
  for (size_t p = 0; p < r->nsteps && !w->bad; p++) {
    const ism_step_t *st = &r->steps[p];
    if (st->kind == ISM_STEP_ASSIGN) {
      w->now = H, w->next = NULL, w->normal = cur;
      wval_t val = value(w, st->value);
      if (!val.ok) w->bad = true;
      cur[st->var] = val;
      continue;
    }
    int fail = !last ? 0 : failed ? -1 : (int)p == c->fail_position ? 1 : 0;
    failed |= fail == 1;
    action(w, st->action, U, cur, fail);
  }
  for (size_t v = 0; v < nv && !w->bad; v++) {
    const ism_var_t *var = &m->vars[v];
    if (!var->sensing)
      Tn[v] = cur[v];
    else if (r->has_action)
      Tn[v] = U[v];
    else if (var->dynamic || w->mode == ISM_MODE_NAIVE) {
      Tn[v] = fresh(w, (int)v); /* a value at the next sensing: within the range even when none follows */
      if (var->has_range) within(w, Tn[v].f, var->range_lo, var->range_hi);
    } else
      Tn[v] = T[v];
  }
  if (last && c->fail_position >= 0 && !failed) w->bad = true; /* no such action in the rule */
  if (m->failure && !w->bad && !(last && c->fail_position >= 0)) {
    w->now = w->normal = Tn, w->next = NULL;
    formula(w, m->failure, last);
  } else if (last && c->fail_position < 0 && !m->failure) {
    w->bad = true;
  }
}

static double evaluate(const aff_t *g, const double *x) {
  double s = g->k;
  for (int t = 0; t < g->n; t++) s += g->co[t] * x[g->idx[t]];
  return s;
}

/* Projections onto the most violated inequality, aiming at slack `target`
 * each, until every slack plus `allowance` times the magnitude of its terms
 * is at least `accept`; false when the budget runs out first. */
/* Whether every slack at x plus `allowance` times the magnitude of its
 * terms is at least `accept`. */
static bool accepted(const wenc_t *w, const double *x, double accept, double allowance) {
  for (size_t r = 0; r < w->rows.len; r++) {
    const aff_t *g = &w->rows.data[r];
    double s = g->k, scale = fabs(g->k);
    for (int t = 0; t < g->n; t++) {
      double term = g->co[t] * x[g->idx[t]];
      s += term, scale += fabs(term);
    }
    if (!(s + allowance * scale >= accept)) return false;
  }
  return true;
}

/* x rounded to the coarsest of a few decimal grids (1, 0.001, 0.000001)
 * where it is still accepted, all values at once, else each value in turn:
 * the shown values are the short numbers they stand for (14, not
 * 14.000000000022958), and the tight comparisons of a point with margin 0
 * become exact where the model's constants allow. */
static void snap(const wenc_t *w, double *x, double accept, double allowance) {
  static const double grids[] = {1, 1e3, 1e6};
  size_t n = w->x0.len;
  double *y = xmalloc((n + 1) * sizeof *y);
  for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
    for (size_t j = 0; j < n; j++) y[j] = round(x[j] * grids[g]) / grids[g];
    if (accepted(w, y, accept, allowance)) {
      memcpy(x, y, n * sizeof *x);
      free(y);
      return;
    }
  }
  free(y);
  for (size_t j = 0; j < n; j++) {
    double was = x[j];
    for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
      x[j] = round(was * grids[g]) / grids[g];
      if (x[j] == was || accepted(w, x, accept, allowance)) break;
      x[j] = was;
    }
  }
}

/* The rows each free value occurs in (CSR: rows[at[j] .. at[j + 1]]). */
typedef struct {
  size_t *at, *rows;
} incidence_t;

static incidence_t incidence(const wenc_t *w) {
  size_t nx = w->x0.len, nr = w->rows.len;
  incidence_t in = {xcalloc(nx + 2, sizeof(size_t)), NULL};
  for (size_t r = 0; r < nr; r++)
    for (int t = 0; t < w->rows.data[r].n; t++) in.at[w->rows.data[r].idx[t] + 2]++;
  for (size_t j = 0; j < nx; j++) in.at[j + 2] += in.at[j + 1];
  in.rows = xmalloc((in.at[nx + 1] + 1) * sizeof *in.rows);
  for (size_t r = 0; r < nr; r++)
    for (int t = 0; t < w->rows.data[r].n; t++) in.rows[in.at[w->rows.data[r].idx[t] + 1]++] = r;
  return in; /* at[j] .. at[j + 1] now */
}

/* Row r's slack at x and the magnitude of its terms. */
static void slack(const aff_t *g, const double *x, double *s_out, double *scale_out) {
  double s = g->k, scale = fabs(g->k);
  for (int t = 0; t < g->n; t++) {
    double term = g->co[t] * x[g->idx[t]];
    s += term, scale += fabs(term);
  }
  *s_out = s, *scale_out = scale;
}

/* Projections onto the most violated inequality, aiming at slack `target`
 * each, until every slack plus `allowance` times the magnitude of its terms
 * is at least `accept`; false when the budget runs out first. A projection
 * moves only the values of its row, so only the rows they occur in are
 * evaluated again (the same sums in the same order: the same doubles as
 * evaluating every row); how many rows fail the acceptance is kept up to
 * date, and the most violated row is found by a scan of the kept slacks. */
static bool relax(const wenc_t *w, const incidence_t *in, double *x, const double *norm2, double target,
                  double accept, double allowance, size_t budget) {
  size_t n = w->rows.len, failing = 0;
  double *s = xmalloc((n + 1) * sizeof *s), *scale = xmalloc((n + 1) * sizeof *scale);
  double *below = xmalloc((n + 1) * sizeof *below); /* s - target */
  size_t *stamp = xcalloc(n + 1, sizeof *stamp);
  size_t **near = xcalloc(n + 1, sizeof *near); /* [r]: rows sharing a value with r, ending with n */
  bool *fails = xmalloc(n + 1);
  for (size_t r = 0; r < n; r++) {
    slack(&w->rows.data[r], x, &s[r], &scale[r]);
    below[r] = s[r] - target;
    fails[r] = !(s[r] + allowance * scale[r] >= accept);
    failing += fails[r];
  }
  bool found = false;
  for (size_t it = 0; it < budget; it++) {
    if (!failing) {
      snap(w, x, accept, allowance);
      found = true;
      break;
    }
    size_t worst = n;
    double least = 0;
    for (size_t r = 0; r < n; r++)
      if (below[r] < least) least = below[r], worst = r;
    if (worst == n || norm2[worst] == 0) break; /* a constant inequality below the target */
    const aff_t *g = &w->rows.data[worst];
    double step = -least * STEP / norm2[worst];
    for (int t = 0; t < g->n; t++) x[g->idx[t]] += step * g->co[t];
    if (!near[worst]) { /* the rows that share a value with this one, made on its first projection */
      VEC(size_t) rows = {0};
      for (int t = 0; t < g->n; t++)
        for (size_t k = in->at[g->idx[t]]; k < in->at[g->idx[t] + 1]; k++) {
          size_t r = in->rows[k];
          if (stamp[r] == worst + 1) continue;
          stamp[r] = worst + 1;
          VEC_PUSH(&rows, r);
        }
      VEC_PUSH(&rows, n); /* end */
      near[worst] = rows.data;
    }
    for (const size_t *r = near[worst]; *r < n; r++) {
      slack(&w->rows.data[*r], x, &s[*r], &scale[*r]);
      below[*r] = s[*r] - target;
      bool now = !(s[*r] + allowance * scale[*r] >= accept);
      failing += (size_t)now - (size_t)fails[*r];
      fails[*r] = now;
    }
  }
  for (size_t r = 0; r < n; r++) free(near[r]);
  free(s), free(scale), free(below), free(stamp), free(near), free(fails);
  return found;
}

static witness_t solve(const wenc_t *w, double *x, bool interior) {
  size_t n = w->rows.len, budget = n * ITERATIONS_PER_ROW + MIN_ITERATIONS;
  double *norm2 = xmalloc((n + 1) * sizeof *norm2);
  for (size_t r = 0; r < n; r++) {
    norm2[r] = 0;
    for (int t = 0; t < w->rows.data[r].n; t++) norm2[r] += w->rows.data[r].co[t] * w->rows.data[r].co[t];
  }
  incidence_t in = incidence(w);
  witness_t found = WITNESS_NONE;
  for (size_t k = 0; interior && k < sizeof margins / sizeof *margins && !found; k++)
    if (relax(w, &in, x, norm2, margins[k], margins[k] / 2, -ROUNDING, budget)) found = WITNESS_INTERIOR;
  if (!interior && relax(w, &in, x, norm2, 0, 0, ROUNDING, budget * CLOSE_BUDGET)) found = WITNESS_CLOSE;
  free(in.at), free(in.rows);
  free(norm2);
  return found;
}

/* d as a rational: integers directly, others by their shortest decimal. */
static bool rational(double d, rat_t *q) {
  if (d == trunc(d) && fabs(d) < 1e15) {
    *q = rat_int((long long)d);
    return true;
  }
  return rat_from_double(d, q);
}

/* v at x (qx: x as rationals, ok[j] whether x[j] fits): exactly in
 * rationals where the terms fit (then the nearest double of the exact
 * sum), else in doubles. */
static double at(const wenc_t *w, const wval_t *v, const double *x, const rat_t *qx, const bool *ok) {
  if (v->bvar >= 0) return w->bools.data[v->bvar] == 1; /* never fixed: false */
  if (v->is_bool) return v->b;
  if (v->f.n == 0) return v->f.k;
  rat_t sum, term, q;
  bool exact = rational(v->f.k, &sum);
  for (int t = 0; t < v->f.n && exact; t++)
    exact = ok[v->f.idx[t]] && rational(v->f.co[t], &q) && rat_mul(q, qx[v->f.idx[t]], &term) &&
            rat_add(sum, term, &sum);
  return exact ? rat_to_double(sum) : evaluate(&v->f, x);
}

static void fill(const wenc_t *w, cex_t *c, const double *x) {
  size_t nv = w->nv, L = (size_t)c->length, n = w->x0.len;
  rat_t *qx = xmalloc((n + 1) * sizeof *qx);
  bool *ok = xmalloc(n + 1);
  for (size_t j = 0; j < n; j++) ok[j] = rational(x[j], &qx[j]);
  for (size_t k = 0; k < (L + 1) * nv; k++) c->truth[k] = at(w, &w->T[k], x, qx, ok);
  for (size_t k = 0; k < L * nv; k++) c->sensed[k] = at(w, &w->H[k], x, qx, ok);
  for (size_t a = 0; a < c->nactions; a++)
    for (size_t v = 0; v < nv; v++) {
      size_t q = a * nv + v;
      c->actions[a].before[v] = at(w, &w->before[q], x, qx, ok);
      c->actions[a].after[v] = at(w, &w->after[q], x, qx, ok);
      c->actions[a].actual[v] = w->actual[q].ok ? at(w, &w->actual[q], x, qx, ok) : 0;
    }
  free(qx), free(ok);
}

/* One encoding of c's path under the given choices, and the relaxation
 * (with the margins when `interior`, else margin 0 only); *nchoices: the
 * choice points met. */
static witness_t attempt(const ism_model_t *m, ism_mode_t mode, cex_t *c, bool interior, unsigned choices,
                         int *nchoices) {
  size_t nv = m->nvars, L = (size_t)c->length;
  wenc_t w = {.m = m, .mode = mode, .nv = nv, .nactions = c->nactions, .choices = choices};
  w.T = grab(&w, ((L + 1) * nv + 1) * sizeof *w.T);
  w.H = grab(&w, (L * nv + 1) * sizeof *w.H);
  w.before = grab(&w, (c->nactions * nv + 1) * sizeof *w.before);
  w.after = grab(&w, (c->nactions * nv + 1) * sizeof *w.after);
  w.actual = grab(&w, (c->nactions * nv + 1) * sizeof *w.actual);
  start(&w);
  for (int i = 0; i < c->length && !w.bad; i++) step(&w, c, i);
  witness_t found = WITNESS_NONE;
  if (!w.bad && w.act == c->nactions) {
    double *x = xmalloc((w.x0.len + 1) * sizeof *x);
    if (w.x0.len) memcpy(x, w.x0.data, w.x0.len * sizeof *x); /* none: a path with no free value */
    found = solve(&w, x, interior);
    if (found) fill(&w, c, x);
    free(x);
  }
  *nchoices = w.nchoices;
  arena_free(&w.pool);
  VEC_FREE(&w.x0);
  VEC_FREE(&w.rows);
  VEC_FREE(&w.bools);
  return found;
}

witness_t witness_find(const ism_model_t *m, ism_mode_t mode, cex_t *c, bool interior) {
  if (c->length < 1) return WITNESS_NONE;
  for (int pass = interior ? 0 : 1; pass < 2; pass++) { /* interior points first, under every choice */
    int nchoices = 0;
    for (unsigned choices = 0; choices < MAX_TRIES; choices++) {
      witness_t found = attempt(m, mode, c, pass == 0, choices, &nchoices);
      if (found == (pass == 0 ? WITNESS_INTERIOR : WITNESS_CLOSE)) return found;
      if (nchoices < 31 && choices + 1 >= 1u << nchoices) break; /* every choice tried */
    }
  }
  return WITNESS_NONE;
}
