#include "probability/bound.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "probability/dist.h"
#include "probability/joint.h"

/* The joint estimator's limits (joint.h): past them a stage's weight is
 * an indicator (0 or 1). */
enum { MAXF = JOINT_MAXF, MAX_CUTS = JOINT_MAX_CUTS, MAX_CELLS = JOINT_MAX_CELLS };

/* Relative and absolute slack against rounding: every interval computed
 * here is widened by it, so the bound stays above the estimator's own
 * floating-point cell masses. */
#define SLACK 1e-9

/* bound_true's cells: each error's support in SYM_CELLS cells of equal mass. */
enum { SYM_CELLS = 32 };

typedef struct {
  double lo, hi; /* empty when lo > hi */
} ival_t;

/* A value in g * s + r for the symbol s of the evaluation (g = 0: r alone). */
typedef struct {
  double g;
  ival_t r;
} lin_t;

typedef enum { SP_NOW, SP_NEXT, SP_NORM, SP_ERR } space_t;

/* What a variable read means in one evaluation: now[v] (unprimed sensing
 * value: sensed in a sense stage, true before an action in an action stage),
 * next[v] (primed), norm[v] (normal value, actual in an action stage). */
typedef struct {
  const ism_model_t *m;
  const lin_t *now, *next, *norm;
  ival_t sbox; /* the symbol's box, for folding a non-affine use */
} view_t;

struct bound {
  const ism_model_t *m;
  dist_t *dist;       /* [nv] */
  bool *has_dist;     /* [nv]: uncertain, real, normalisable (joint's new errors) */
  const expr_t **rhs; /* [nactions * nv]: the effect defining x' (joint's substitution), or NULL */
  bool **constraint;  /* [nactions][neffects]: an effect checked as a constraint */
  /* the hull along the path: true values at the sensing, normal values, after values, actual values */
  ival_t *truth, *normal, *after, *actual, *errbox;
  ival_t *sensed_truth, *sensed_normal; /* the step's sensing: what its condition and assignments read */
  lin_t *now, *next, *norm;             /* the views' storage */
  bool every_error; /* bound_true: every error of a stage counts, not only those joint.c conditions */
  double *cuts;     /* [nv * (SYM_CELLS + 1)]: the cells' ends of each error with a distribution */
  double *cell_mass; /* [nv * 2 * SYM_CELLS]: le_mass's mass of [cuts[j], cuts[j + step]], step 1 then 4 */
  /* bound_prefix's values along one path (the last one asked for a depth it
   * did not hold): the search asks in depth-first order, and bound_true asks
   * again for every prefix of a counterexample found there */
  int *memo_rules, *memo_states; /* [memo_cap] */
  double *memo_value;            /* [memo_cap + 1]: at depth d */
  bool *memo_known;              /* [memo_cap + 1] */
  int memo_len, memo_cap;
  struct mass_memo *mass; /* le_mass's answers by what they depend on (prob_le0) */
  bool no_memo;           /* bound_memo(b, false): neither memo */
};

static const ival_t ALL = {-INFINITY, INFINITY};
static const ival_t NONE = {INFINITY, -INFINITY};

static bool empty(ival_t a) { return !(a.lo <= a.hi); }
static ival_t point(double x) { return (ival_t){x, x}; }
static ival_t meet(ival_t a, ival_t b) { return (ival_t){fmax(a.lo, b.lo), fmin(a.hi, b.hi)}; }
static ival_t join(ival_t a, ival_t b) {
  if (empty(a)) return b;
  if (empty(b)) return a;
  return (ival_t){fmin(a.lo, b.lo), fmax(a.hi, b.hi)};
}
static ival_t widen(ival_t a) {
  if (empty(a)) return a;
  return (ival_t){a.lo - SLACK * (1 + fabs(a.lo)), a.hi + SLACK * (1 + fabs(a.hi))};
}
static ival_t add(ival_t a, ival_t b) { return (ival_t){a.lo + b.lo, a.hi + b.hi}; }

/* x * y with 0 * inf = 0 (an interval end that is 0 times an unbounded one). */
static double times(double x, double y) { return x == 0 || y == 0 ? 0 : x * y; }

static ival_t mul(ival_t a, ival_t b) {
  double p[4] = {times(a.lo, b.lo), times(a.lo, b.hi), times(a.hi, b.lo), times(a.hi, b.hi)};
  ival_t r = {p[0], p[0]};
  for (int k = 1; k < 4; k++) r.lo = fmin(r.lo, p[k]), r.hi = fmax(r.hi, p[k]);
  return r;
}

static ival_t scale(ival_t a, double c) { return mul(a, point(c)); }

static ival_t fold(lin_t l, ival_t sbox) { return l.g == 0 ? l.r : add(scale(sbox, l.g), l.r); }
static lin_t konst(ival_t r) { return (lin_t){0, r}; }
static bool is_point(lin_t l) { return l.g == 0 && l.r.lo == l.r.hi && isfinite(l.r.lo); }

static ival_t of_type(type_t t) { return t.kind == TYPE_BOOL ? (ival_t){0, 1} : ALL; }

static lin_t eval(const view_t *w, const expr_t *e) {
  lin_t a, b;
  switch (e->kind) {
  case EXPR_INT: return konst(point((double)e->u.ival));
  case EXPR_REAL: return konst(point(e->u.real.value));
  case EXPR_BOOL: return konst(point(e->u.bval));
  case EXPR_VAR: {
    int v = e->u.var.id;
    const ism_var_t *var = &w->m->vars[v];
    if (var->type.kind != TYPE_REAL && var->type.kind != TYPE_INT) return konst(of_type(var->type));
    return !var->sensing ? w->norm[v] : e->u.var.primed ? w->next[v] : w->now[v];
  }
  case EXPR_TOREAL: return eval(w, e->u.op.a);
  case EXPR_NEG: a = eval(w, e->u.op.a); return (lin_t){-a.g, {-a.r.hi, -a.r.lo}};
  case EXPR_ADD:
  case EXPR_SUB: {
    a = eval(w, e->u.op.a), b = eval(w, e->u.op.b);
    if (e->kind == EXPR_SUB) b = (lin_t){-b.g, {-b.r.hi, -b.r.lo}};
    return (lin_t){a.g + b.g, add(a.r, b.r)};
  }
  case EXPR_MUL:
    a = eval(w, e->u.op.a), b = eval(w, e->u.op.b);
    if (is_point(b)) return (lin_t){a.g * b.r.lo, scale(a.r, b.r.lo)};
    if (is_point(a)) return (lin_t){b.g * a.r.lo, scale(b.r, a.r.lo)};
    return konst(mul(fold(a, w->sbox), fold(b, w->sbox)));
  case EXPR_DIV: {
    a = eval(w, e->u.op.a), b = eval(w, e->u.op.b);
    if (e->type.kind == TYPE_REAL && is_point(b) && b.r.lo != 0)
      return (lin_t){a.g / b.r.lo, scale(a.r, 1 / b.r.lo)};
    ival_t d = fold(b, w->sbox);
    if (e->type.kind != TYPE_REAL || !(d.lo > 0 || d.hi < 0)) return konst(ALL); /* integer division rounds */
    return konst(mul(fold(a, w->sbox), (ival_t){1 / d.hi, 1 / d.lo}));
  }
  case EXPR_ABS: {
    ival_t x = fold(eval(w, e->u.op.a), w->sbox);
    if (x.lo >= 0) return konst(x);
    if (x.hi <= 0) return konst((ival_t){-x.hi, -x.lo});
    return konst((ival_t){0, fmax(-x.lo, x.hi)});
  }
  case EXPR_MIN:
  case EXPR_MAX: {
    ival_t x = fold(eval(w, e->u.op.a), w->sbox), y = fold(eval(w, e->u.op.b), w->sbox);
    if (e->kind == EXPR_MIN) return konst((ival_t){fmin(x.lo, y.lo), fmin(x.hi, y.hi)});
    return konst((ival_t){fmax(x.lo, y.lo), fmax(x.hi, y.hi)});
  }
  case EXPR_ITE:
    if (e->type.kind == TYPE_BOOL) return konst((ival_t){0, 1});
    return konst(join(fold(eval(w, e->u.op.b), w->sbox), fold(eval(w, e->u.op.c), w->sbox)));
  default: return konst(of_type(e->type)); /* %, comparisons and connectives as values, enums */
  }
}

static bool numeric_comparison(const expr_t *e) {
  if (e->kind < EXPR_EQ || e->kind > EXPR_GE) return false;
  type_kind_t k = e->u.op.a->type.kind;
  return k == TYPE_INT || k == TYPE_REAL;
}

/* The values of the symbol for which g s + d can satisfy `d op 0` for some d in r. */
static ival_t solve(double g, ival_t r, expr_kind_t op) {
  if (empty(r)) return NONE;
  bool le = op == EXPR_LT || op == EXPR_LE || op == EXPR_EQ,
       ge = op == EXPR_GT || op == EXPR_GE || op == EXPR_EQ;
  if (!le && !ge) return ALL; /* != */
  if (g == 0) return (le && r.lo > 0) || (ge && r.hi < 0) ? NONE : ALL;
  ival_t s = ALL;
  if (le) { /* g s <= -r.lo */
    double t = -r.lo / g;
    s = g > 0 ? meet(s, (ival_t){-INFINITY, t}) : meet(s, (ival_t){t, INFINITY});
  }
  if (ge) { /* g s >= -r.hi */
    double t = -r.hi / g;
    s = g > 0 ? meet(s, (ival_t){t, INFINITY}) : meet(s, (ival_t){-INFINITY, t});
  }
  return isnan(s.lo) || isnan(s.hi) ? ALL : widen(s);
}

static void uncertain_var(void *ctx, const expr_t *var) {
  const ism_model_t *m = ((const view_t *)ctx)->m;
  if (m->vars[var->u.var.id].uncertain || m->vars[var->u.var.id].type.kind != TYPE_INT)
    ((view_t *)ctx)->sbox.lo = NAN;
}

/* Does comparison e compare integers (int operands reading no variable
 * with an error, so every value it can take is an integer)? */
static bool integral(const ism_model_t *m, const expr_t *e) {
  if (e->u.op.a->type.kind != TYPE_INT || e->u.op.b->type.kind != TYPE_INT) return false;
  view_t probe = {m, NULL, NULL, NULL, {0, 0}};
  expr_visit_vars(e, uncertain_var, &probe);
  return !isnan(probe.sbox.lo);
}

/* A superset of the symbol's values for which e (negated: not e) can hold
 * at some point of the view's boxes. */
static ival_t allowed(const view_t *w, const expr_t *e, bool neg) {
  if (!e) return neg ? NONE : ALL;
  if (numeric_comparison(e)) {
    lin_t a = eval(w, e->u.op.a), b = eval(w, e->u.op.b);
    expr_kind_t op = neg ? expr_negated_comparison(e->kind) : e->kind;
    ival_t d = add(a.r, (ival_t){-b.r.hi, -b.r.lo});
    if (integral(w->m, e)) { /* integers: a < b is a <= b - 1 */
      if (op == EXPR_LT) op = EXPR_LE, d = add(d, point(1));
      if (op == EXPR_GT) op = EXPR_GE, d = add(d, point(-1));
    }
    return solve(a.g - b.g, d, op);
  }
  switch (e->kind) {
  case EXPR_BOOL: return e->u.bval != neg ? ALL : NONE;
  case EXPR_NOT: return allowed(w, e->u.op.a, !neg);
  case EXPR_AND:
  case EXPR_OR: {
    ival_t a = allowed(w, e->u.op.a, neg), b = allowed(w, e->u.op.b, neg);
    return (e->kind == EXPR_AND) != neg ? meet(a, b) : join(a, b);
  }
  case EXPR_IMPLIES: { /* not a or b; negated: a and not b */
    ival_t a = allowed(w, e->u.op.a, !neg), b = allowed(w, e->u.op.b, neg);
    return neg ? meet(a, b) : join(a, b);
  }
  default: return ALL;
  }
}

/* ---- the estimator's treatment of a stage (joint.c's atoms and aff_eval) ---- */

typedef struct {
  const bound_t *b;
  int action;       /* -1: a sense stage */
  const bool *mine; /* [nv]: the stage's conditioned errors */
} stage_t;

/* Does e read error v (through a primed value's definition in an action stage)? */
static bool reads(const stage_t *st, const expr_t *e, int v) {
  if (!e) return false;
  if (e->kind == EXPR_VAR) {
    const ism_model_t *m = st->b->m;
    int x = e->u.var.id;
    bool sensing = m->vars[x].sensing;
    if (st->action < 0) return sensing && !e->u.var.primed && x == v;
    if (!sensing) return x == v;
    if (!e->u.var.primed) return false;
    const expr_t *rhs = st->b->rhs[(size_t)st->action * m->nvars + (size_t)x];
    return rhs && m->vars[x].type.kind == TYPE_REAL && reads(st, rhs, v);
  }
  if (e->kind < EXPR_NEG) return false;
  return reads(st, e->u.op.a, v) || (e->kind >= EXPR_ADD && reads(st, e->u.op.b, v)) ||
         (e->kind == EXPR_ITE && reads(st, e->u.op.c, v));
}

static bool reads_any(const stage_t *st, const expr_t *e) {
  for (size_t v = 0; v < st->b->m->nvars; v++)
    if (st->mine[v] && reads(st, e, (int)v)) return true;
  return false;
}

/* Is e affine in the stage's errors as joint.c's aff_eval sees it (each
 * product and quotient with an error-free constant side)? Conservative:
 * a divisor must be a literal. */
static bool affine(const stage_t *st, const expr_t *e) {
  if (!reads_any(st, e)) return true;
  switch (e->kind) {
  case EXPR_VAR: {
    const ism_model_t *m = st->b->m;
    int x = e->u.var.id;
    if (m->vars[x].type.kind != TYPE_REAL) return false;
    if (st->action < 0 || !m->vars[x].sensing) return true;
    return affine(st, st->b->rhs[(size_t)st->action * m->nvars + (size_t)x]);
  }
  case EXPR_NEG: return affine(st, e->u.op.a);
  case EXPR_ADD:
  case EXPR_SUB: return e->type.kind == TYPE_REAL && affine(st, e->u.op.a) && affine(st, e->u.op.b);
  case EXPR_MUL:
    return e->type.kind == TYPE_REAL && !(reads_any(st, e->u.op.a) && reads_any(st, e->u.op.b)) &&
           affine(st, e->u.op.a) && affine(st, e->u.op.b);
  case EXPR_DIV:
    return e->type.kind == TYPE_REAL && (e->u.op.b->kind == EXPR_REAL || e->u.op.b->kind == EXPR_INT) &&
           (e->u.op.b->kind == EXPR_REAL ? e->u.op.b->u.real.value != 0 : e->u.op.b->u.ival != 0) &&
           affine(st, e->u.op.a);
  default: return false;
  }
}

/* Counts, over the atoms joint.c cuts along (the same walk), those that read
 * error v; *safe stays true while every such atom is a real comparison
 * affine in the stage's errors in which v has the highest slot among the
 * errors it reads. joint.c then never draws v unconditioned (it keeps the
 * last error of an atom conditioned and draws the others first): the
 * stage's weight is the exact mass, over the errors it conditions, of the
 * cells where its constraint holds given the others, times the masses
 * (at most 1) of the intervals it draws the others from (their
 * distributions restricted to where the constraint can still hold, an
 * unbiased importance sampling): at most that exact mass, so still at most
 * the product of each safe error's mass over the values allowed. */
static void atoms(const stage_t *st, const expr_t *e, int v, int *count, bool *safe) {
  if (!e) return;
  if (numeric_comparison(e)) {
    if (!reads(st, e, v)) return;
    ++*count;
    bool top = true;
    for (size_t x = (size_t)v + 1; x < st->b->m->nvars && top; x++)
      if (st->mine[x] && reads(st, e, (int)x)) top = false;
    *safe =
        *safe && top && e->u.op.a->type.kind == TYPE_REAL && affine(st, e->u.op.a) && affine(st, e->u.op.b);
    return;
  }
  switch (e->kind) {
  case EXPR_NOT: atoms(st, e->u.op.a, v, count, safe); return;
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_IMPLIES:
  case EXPR_IFF:
  case EXPR_EQ:
  case EXPR_NE: atoms(st, e->u.op.a, v, count, safe), atoms(st, e->u.op.b, v, count, safe); return;
  case EXPR_ITE:
    if (e->type.kind == TYPE_BOOL) {
      atoms(st, e->u.op.a, v, count, safe), atoms(st, e->u.op.b, v, count, safe),
          atoms(st, e->u.op.c, v, count, safe);
      return;
    }
    /* fallthrough */
  default:
    if (reads(st, e, v)) *safe = false;
  }
}

/* The expressions whose atoms the stage cuts along: n of them into ex. */
static size_t stage_exprs(const bound_t *b, int action, int state, int rule, const expr_t **ex) {
  const ism_model_t *m = b->m;
  size_t n = 0;
  if (action < 0) {
    for (const int *q = m->rules_from[state]; *q >= 0; q++) {
      ex[n++] = m->rules[*q].when;
      if (m->selection == ISM_SELECT_FIRST && *q == rule) break;
    }
    return n;
  }
  const ism_action_t *a = &m->actions[action];
  for (size_t k = 0; k < a->neffects; k++)
    if (b->constraint[action][k]) ex[n++] = a->effects[k];
  ex[n++] = a->failure;
  return n;
}

/* The errors of the stage whose weight factor is exactly the mass of the
 * cells they satisfy: safe[v]. False everywhere when the stage may overflow. */
static void safe_errors(const bound_t *b, int action, int state, int rule, bool *safe) {
  const ism_model_t *m = b->m;
  size_t nv = m->nvars;
  bool *mine = xcalloc(nv + 1, sizeof *mine);
  int nfresh = 0;
  for (size_t v = 0; v < nv; v++) {
    safe[v] = false;
    if (!b->has_dist[v]) continue;
    bool in = action < 0 ? m->vars[v].sensing : !m->vars[v].sensing && m->actions[action].reads[v];
    if (in) mine[v] = true, nfresh++;
  }
  const expr_t **ex = xcalloc(m->nrules + (action < 0 ? 0 : m->actions[action].neffects) + 2, sizeof *ex);
  size_t nex = stage_exprs(b, action, state, rule, ex);
  stage_t st = {b, action, mine};
  double cells = 1;
  int slot = 0;
  for (size_t v = 0; v < nv; v++) {
    if (!mine[v]) continue;
    int count = 0;
    bool ok = slot++ < MAXF; /* past MAXF errors joint draws them unconditioned */
    for (size_t k = 0; k < nex; k++) atoms(&st, ex[k], (int)v, &count, &ok);
    cells *= count + 1;
    safe[v] = ok && count < MAX_CUTS;
  }
  if (cells > MAX_CELLS || nfresh > MAXF)
    for (size_t v = 0; v < nv; v++) safe[v] = false;
  if (b->every_error) /* the true probability: the exact mass of each error the stage draws afresh */
    for (size_t v = 0; v < nv; v++) safe[v] = mine[v];
  free(ex);
  free(mine);
}

/* ---- the hull along the path ---- */

/* The views' kinds besides an action's id (>= 0). */
enum { VIEW_SENSE = -1, VIEW_TRUTH = -2 };

/* Fills the views: in a sense stage now = true + error, norm = normal; on
 * the true values (the assumption, the model-wide failure) now = true; in
 * an action stage now = true before, norm = actual, next = after (its
 * definition evaluated in the same view where the effect defines it).
 * The symbol (space sp, variable v; v < 0: none) reads as 1 s. */
static view_t make_view(bound_t *b, int action, space_t sp, int v) {
  const ism_model_t *m = b->m;
  size_t nv = m->nvars;
  view_t w = {m, b->now, b->next, b->norm, ALL};
  for (size_t x = 0; x < nv; x++) {
    bool sensing = m->vars[x].sensing;
    if (action < 0) {
      b->now[x] = konst(sensing && action == VIEW_SENSE ? add(b->truth[x], b->errbox[x]) : b->truth[x]);
      b->norm[x] = konst(b->normal[x]);
    } else {
      b->now[x] = konst(b->truth[x]);
      b->norm[x] = konst(b->actual[x]);
    }
    b->next[x] = konst(b->after[x]);
  }
  if (v >= 0) {
    bool s_err = sp == SP_ERR;
    if (sp == SP_NORM || (s_err && !m->vars[v].sensing)) { /* in an action stage: actual = normal + error */
      w.sbox = s_err ? b->errbox[v] : b->normal[v];
      b->norm[v] = (lin_t){1, s_err ? b->normal[v] : action >= 0 ? b->errbox[v] : point(0)};
    } else if (sp == SP_NEXT) {
      w.sbox = b->after[v];
      b->next[v] = (lin_t){1, point(0)};
    } else if (s_err) { /* a sensing error: sensed = true + s */
      w.sbox = b->errbox[v];
      b->now[v] = (lin_t){1, b->truth[v]};
    } else { /* a true value: sensed = s + error in a sense stage */
      w.sbox = b->truth[v];
      b->now[v] = (lin_t){1, action == VIEW_SENSE ? b->errbox[v] : point(0)};
    }
  }
  if (action >= 0)
    for (size_t x = 0; x < nv; x++) {
      const expr_t *rhs = b->rhs[(size_t)action * nv + x];
      if (rhs && !(sp == SP_NEXT && (int)x == v)) b->next[x] = eval(&w, rhs);
    }
  return w;
}

/* Narrows every box of space sp by e (negated: not e); false when one empties. */
static bool narrow_space(bound_t *b, int action, space_t sp, const expr_t *e, bool neg) {
  const ism_model_t *m = b->m;
  ival_t *box = sp == SP_NOW ? b->truth : sp == SP_NEXT ? b->after : b->normal;
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    if (var->sensing != (sp != SP_NORM)) continue;
    if (var->type.kind != TYPE_REAL && var->type.kind != TYPE_INT) continue;
    view_t w = make_view(b, action, sp, (int)v);
    box[v] = meet(box[v], allowed(&w, e, neg));
    if (var->type.kind == TYPE_INT && !var->uncertain && !empty(box[v])) /* integer values */
      box[v] = (ival_t){ceil(box[v].lo - 1e-6), floor(box[v].hi + 1e-6)};
    if (empty(box[v])) return false;
  }
  return true;
}

/* Narrows the values of space sp (true values now or after) and the normal
 * values by e (negated: not e); false when a box empties. */
static bool narrow(bound_t *b, int action, space_t sp, const expr_t *e, bool neg) {
  return narrow_space(b, action, sp, e, neg) && narrow_space(b, action, SP_NORM, e, neg);
}

/* The stage's weight factor at most: the product of its safe errors' masses
 * over the values the stage's constraint allows them. */
static double stage_bound(bound_t *b, int action, int state, int rule, const expr_t *constraint, bool neg) {
  const ism_model_t *m = b->m;
  bool *safe = xcalloc(m->nvars + 1, sizeof *safe);
  safe_errors(b, action, state, rule, safe);
  double p = 1;
  for (size_t v = 0; v < m->nvars && p > 0; v++) {
    if (!safe[v]) continue;
    view_t w = make_view(b, action, SP_ERR, (int)v);
    ival_t s = meet(allowed(&w, constraint, neg), b->errbox[v]);
    p *= empty(s) ? 0 : fmin(1, dist_mass(&b->dist[v], s.lo, s.hi) * (1 + SLACK) + SLACK);
  }
  free(safe);
  return p;
}

static void init_hull(bound_t *b) {
  const ism_model_t *m = b->m;
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    b->truth[v] =
        var->sensing && var->has_range ? (ival_t){var->range_lo, var->range_hi} : of_type(var->type);
    b->normal[v] = of_type(var->type);
    if (!var->sensing && var->init) { /* a constant expression: the views are not read */
      view_t w = {m, b->now, b->next, b->norm, ALL};
      b->normal[v] = widen(fold(eval(&w, var->init), ALL));
    }
  }
}

/* The sense stage of a step (rule from state): narrows the true values to
 * those the rule can be taken from; false when none. */
static bool sense(bound_t *b, int state, int rule) {
  const ism_model_t *m = b->m;
  for (size_t v = 0; v < m->nvars; v++)
    if (m->vars[v].sensing && m->vars[v].has_range)
      b->truth[v] = meet(b->truth[v], (ival_t){m->vars[v].range_lo, m->vars[v].range_hi});
  bool alive = narrow(b, VIEW_SENSE, SP_NOW, m->rules[rule].when, false);
  if (m->selection == ISM_SELECT_FIRST)
    for (const int *q = m->rules_from[state]; *q != rule && alive; q++)
      alive = narrow(b, VIEW_SENSE, SP_NOW, m->rules[*q].when, true);
  return alive;
}

/* Fills the action's actual values and the hull of its after-values
 * before any narrowing. */
static void action_values(bound_t *b, int action) {
  const ism_model_t *m = b->m;
  size_t nv = m->nvars;
  for (size_t v = 0; v < nv; v++) {
    b->actual[v] = b->normal[v];
    if (!m->vars[v].sensing && m->vars[v].uncertain) b->actual[v] = add(b->normal[v], b->errbox[v]);
    b->after[v] = m->vars[v].sensing ? ALL : b->normal[v];
  }
  view_t w = make_view(b, action, SP_NOW, -1);
  for (size_t v = 0; v < nv; v++) /* the defined after-values */
    if (m->vars[v].sensing && b->rhs[(size_t)action * nv + v]) b->after[v] = widen(fold(w.next[v], ALL));
}

/* Narrows the values of space sp by the action's constraint: its effects
 * checked as constraints and its failure (or, unless want_fail, its absence). */
static bool action_narrow(bound_t *b, int action, bool want_fail, space_t sp) {
  const ism_action_t *a = &b->m->actions[action];
  bool alive = true;
  for (size_t k = 0; k < a->neffects && alive; k++)
    if (b->constraint[action][k]) alive = narrow(b, action, sp, a->effects[k], false);
  if (alive && a->failure) alive = narrow(b, action, sp, a->failure, !want_fail);
  return alive;
}

/* One action (want_fail: the path's failing one), its true values before
 * already narrowed by it: its factor's bound; the true values become the
 * hull of its after-values. */
static double act(bound_t *b, int action, bool want_fail, bool *alive) {
  const ism_model_t *m = b->m;
  const ism_action_t *a = &m->actions[action];
  action_values(b, action);
  *alive = action_narrow(b, action, want_fail, SP_NEXT);
  if (!*alive) return 0;
  double p = 1; /* each conjunct of the stage's constraint bounds its factor */
  for (size_t k = 0; k < a->neffects; k++)
    if (b->constraint[action][k]) p = fmin(p, stage_bound(b, action, -1, -1, a->effects[k], false));
  if (a->failure) p = fmin(p, stage_bound(b, action, -1, -1, a->failure, !want_fail));
  for (size_t v = 0; v < m->nvars; v++)
    if (m->vars[v].sensing) b->truth[v] = b->after[v];
  return p;
}

/* Narrows the true values before an action by what the action needs of
 * them: a sampled run whose state cannot pass it has weight 0. */
static bool before_action(bound_t *b, int action, bool want_fail) {
  action_values(b, action);
  return action_narrow(b, action, want_fail, SP_NOW);
}

/* Swaps the current true (and normal) values with those of the sensing. */
static void swap_sensed(bound_t *b, bool normal) {
  ival_t *t = b->truth;
  b->truth = b->sensed_truth, b->sensed_truth = t;
  if (!normal) return;
  t = b->normal;
  b->normal = b->sensed_normal, b->sensed_normal = t;
}

/* The bound of the sense stage of a step, at the values of its sensing. */
static double sense_bound(bound_t *b, int state, int rule) {
  swap_sensed(b, true);
  double p = stage_bound(b, VIEW_SENSE, state, rule, b->m->rules[rule].when, false);
  swap_sensed(b, true);
  return p;
}

/* One step of a path from the hull in b->truth and b->normal: rule from
 * state, failing at do: position fail_position when last (-1: the
 * model-wide failure), else without failure. Leaves the hull after the
 * step; multiplies *p (unless NULL) by the bound of the step's stages.
 * Returns false when no run can take the step so. */
static bool step(bound_t *b, int state, int rule_id, bool last, int fail_position, double *p) {
  const ism_model_t *m = b->m;
  const ism_rule_t *rule = &m->rules[rule_id];
  bool ended = false, sensed = false, alive = sense(b, state, rule_id);
  memcpy(b->sensed_truth, b->truth, m->nvars * sizeof *b->truth);
  memcpy(b->sensed_normal, b->normal, m->nvars * sizeof *b->normal);
  for (size_t q = 0; q < rule->nsteps && alive && !ended; q++) {
    const ism_step_t *st = &rule->steps[q];
    if (st->kind == ISM_STEP_ASSIGN) { /* reads the sensed values and the current normal ones */
      swap_sensed(b, false);
      view_t w = make_view(b, VIEW_SENSE, SP_NOW, -1);
      ival_t x = widen(fold(eval(&w, st->value), ALL));
      swap_sensed(b, false);
      b->normal[st->var] = x;
      continue;
    }
    ended = last && (int)q == fail_position;
    if (!(alive = before_action(b, st->action, ended))) break;
    if (!sensed) { /* the true values are still those of the sensing, narrowed by the first action */
      memcpy(b->sensed_truth, b->truth, m->nvars * sizeof *b->truth);
      if (p) *p *= sense_bound(b, state, rule_id);
      sensed = true;
    }
    double f = act(b, st->action, ended, &alive);
    if (p) *p *= f;
  }
  if (alive && !sensed && p) *p *= sense_bound(b, state, rule_id);
  for (size_t v = 0; v < m->nvars && !rule->has_action; v++) /* free again at the next sensing */
    if (m->vars[v].sensing && m->vars[v].dynamic) b->truth[v] = of_type(m->vars[v].type);
  if (alive && !ended && m->failure) /* the model-wide failure: at the last step only if it is the path's */
    alive = narrow(b, VIEW_TRUTH, SP_NOW, m->failure, !(last && fail_position < 0));
  return alive;
}

/* The hull of the initial values: ranges, initial normal values, the assumption. */
static bool initial(bound_t *b) {
  const ism_model_t *m = b->m;
  init_hull(b);
  bool alive = true;
  for (size_t k = 0; k < m->nassume && alive; k++) alive = narrow(b, VIEW_TRUTH, SP_NOW, m->assume[k], false);
  return alive;
}

/* Each stage's factor is bounded over the hull of the states a sampled run
 * of positive weight can be in there: narrowed by the stage's own
 * constraint and, for the sense stage, by the step's first action. */
double bound_path(bound_t *b, const cex_t *c) {
  bool alive = initial(b);
  double p = 1;
  for (int k = 0; k < c->length && alive && p > 0; k++)
    alive = step(b, c->states[k], c->rules[k], k + 1 == c->length, c->fail_position, &p);
  if (!alive) return 0;
  return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* ---- the failure alone, its errors kept together (bound_true) ---- */

/* A value as an affine form in the errors the path has drawn so far (one
 * slot per error drawn: a sensing error of a step, an actuation error of an
 * action) plus an interval r for everything else (the environment's
 * choices, errors folded in by their range): a1 e1 + ... + an en + r. */
enum { SYM_TERMS = 12, SYM_KEEP = 3, SYM_DERIVED = 256 };

typedef struct {
  int n;
  int slot[SYM_TERMS];
  double a[SYM_TERMS];
  ival_t r;
} sym_t;

typedef struct {
  bound_t *b;
  int *slot_var;    /* [slots]: whose error a slot is; -1: a value the environment chooses */
  ival_t *slot_box; /* [slots]: the error's range, or the values the environment chooses from */
  size_t nslots, cap;
  sym_t *t, *n, *actual, *next; /* [nv]: true (sensing) values, normal, actual, after */
  int *sense_slot;              /* [nv]: the step's sensing error slots, -1: not drawn yet */
  int *reads;                   /* the slots the event being built depends on */
  size_t nreads, reads_cap;
  struct sym_event *events; /* every event the path needs, with its bound and its slots */
  size_t nevents, events_cap;
} symctx_t;

/* An event the path needs (a conjunct of a condition, of an action's
 * absence of failure, or the failure), relaxed to one that depends only
 * on the error slots reads[0..nreads), with p at least its probability. */
typedef struct sym_event {
  double p;
  int *reads;
  size_t nreads;
  bool atom; /* a comparison: the event is f <= 0 (up to strictness) */
  sym_t f;
} sym_event_t;

static void note_read(symctx_t *x, int slot) {
  for (size_t k = 0; k < x->nreads; k++)
    if (x->reads[k] == slot) return;
  if (x->nreads == x->reads_cap) {
    x->reads_cap = 2 * x->reads_cap + 8;
    x->reads = xrealloc(x->reads, x->reads_cap * sizeof *x->reads);
  }
  x->reads[x->nreads++] = slot;
}

static sym_t sconst(ival_t r) { return (sym_t){0, {0}, {0}, r}; }

/* The range of error slot k times a. */
static ival_t slot_range(const symctx_t *x, int k, double a) { return scale(x->slot_box[k], a); }

/* Folds the term i of f into its interval. */
static void sfold_term(const symctx_t *x, sym_t *f, int i) {
  f->r = add(f->r, slot_range(x, f->slot[i], f->a[i]));
  f->slot[i] = f->slot[f->n - 1], f->a[i] = f->a[f->n - 1];
  f->n--;
}

static ival_t sfold(const symctx_t *x, sym_t f) {
  while (f.n > 0) sfold_term(x, &f, 0);
  return f.r;
}

/* f + c g. */
static sym_t sadd(const symctx_t *x, sym_t f, sym_t g, double c) {
  f.r = add(f.r, scale(g.r, c));
  for (int j = 0; j < g.n; j++) {
    int i = 0;
    while (i < f.n && f.slot[i] != g.slot[j]) i++;
    if (i < f.n) {
      f.a[i] += c * g.a[j];
      continue;
    }
    if (f.n == SYM_TERMS) { /* full: the narrowest term goes into the interval */
      int w = 0;
      for (int k = 1; k < f.n; k++) {
        ival_t rk = slot_range(x, f.slot[k], f.a[k]), rw = slot_range(x, f.slot[w], f.a[w]);
        if (rk.hi - rk.lo < rw.hi - rw.lo) w = k;
      }
      sfold_term(x, &f, w);
    }
    f.slot[f.n] = g.slot[j], f.a[f.n] = c * g.a[j], f.n++;
  }
  return f;
}

static sym_t sscale(sym_t f, double c) {
  for (int i = 0; i < f.n; i++) f.a[i] *= c;
  f.r = scale(f.r, c);
  return f;
}

static sym_t new_slot(symctx_t *x, int v, ival_t box) {
  if (x->nslots == x->cap) {
    x->cap = 2 * x->cap + 8;
    x->slot_var = xrealloc(x->slot_var, x->cap * sizeof *x->slot_var);
    x->slot_box = xrealloc(x->slot_box, x->cap * sizeof *x->slot_box);
  }
  x->slot_var[x->nslots] = v, x->slot_box[x->nslots] = box;
  sym_t f = sconst(point(0));
  f.n = 1, f.slot[0] = (int)x->nslots++, f.a[0] = 1;
  return f;
}

/* A fresh error of variable v: a new slot, or its range when it has no distribution. */
static sym_t fresh_error(symctx_t *x, int v) {
  if (!x->b->has_dist[v]) return sconst(x->b->errbox[v]);
  return new_slot(x, v, x->b->errbox[v]);
}

/* A value the environment chooses in box: a slot of its own when the box
 * is bounded and not a point (two events that read it with opposite signs
 * can then be added to eliminate it), else the box. */
static sym_t env_value(symctx_t *x, ival_t box) {
  if (!(box.lo > -INFINITY && box.hi < INFINITY) || box.lo == box.hi) return sconst(box);
  return new_slot(x, -1, box);
}

/* Folds the environment's values of f into its interval (their worst). */
static sym_t fold_env(const symctx_t *x, sym_t f) {
  for (int i = 0; i < f.n;)
    if (x->slot_var[f.slot[i]] < 0)
      sfold_term(x, &f, i);
    else
      i++;
  return f;
}

/* What reads mean: in a sense view (assignments) a sensing variable is
 * true + the step's sensing error; in an action view its unprimed value is
 * true before, its primed one the after-value, a normal one the actual. */
typedef enum { SV_SENSE, SV_TRUTH, SV_ACTION } sview_t;

static sym_t seval(symctx_t *x, sview_t view, const expr_t *e) {
  const ism_model_t *m = x->b->m;
  sym_t f, g;
  switch (e->kind) {
  case EXPR_INT: return sconst(point((double)e->u.ival));
  case EXPR_REAL: return sconst(point(e->u.real.value));
  case EXPR_VAR: {
    int v = e->u.var.id;
    const ism_var_t *var = &m->vars[v];
    if (var->type.kind != TYPE_REAL && var->type.kind != TYPE_INT) return sconst(of_type(var->type));
    if (!var->sensing) return view == SV_ACTION ? x->actual[v] : x->n[v];
    if (e->u.var.primed) return view == SV_ACTION ? x->next[v] : sconst(ALL);
    if (view != SV_SENSE || !var->uncertain) return x->t[v];
    if (x->sense_slot[v] < 0 && x->b->has_dist[v]) x->sense_slot[v] = (int)fresh_error(x, v).slot[0];
    if (x->sense_slot[v] < 0) return sadd(x, x->t[v], sconst(x->b->errbox[v]), 1);
    g = sconst(point(0));
    g.n = 1, g.slot[0] = x->sense_slot[v], g.a[0] = 1;
    return sadd(x, x->t[v], g, 1);
  }
  case EXPR_TOREAL: return seval(x, view, e->u.op.a);
  case EXPR_NEG: return sscale(seval(x, view, e->u.op.a), -1);
  case EXPR_ADD:
  case EXPR_SUB:
    f = seval(x, view, e->u.op.a), g = seval(x, view, e->u.op.b);
    return sadd(x, f, g, e->kind == EXPR_SUB ? -1 : 1);
  case EXPR_MUL: {
    f = seval(x, view, e->u.op.a), g = seval(x, view, e->u.op.b);
    if (g.n == 0 && g.r.lo == g.r.hi && isfinite(g.r.lo)) return sscale(f, g.r.lo);
    if (f.n == 0 && f.r.lo == f.r.hi && isfinite(f.r.lo)) return sscale(g, f.r.lo);
    return sconst(mul(sfold(x, f), sfold(x, g)));
  }
  case EXPR_DIV:
    f = seval(x, view, e->u.op.a), g = seval(x, view, e->u.op.b);
    if (e->type.kind == TYPE_REAL && g.n == 0 && g.r.lo == g.r.hi && isfinite(g.r.lo) && g.r.lo != 0)
      return sscale(f, 1 / g.r.lo);
    return sconst(ALL);
  default: return sconst(ALL); /* abs, min, max, ite, %, enums: anything (a superset) */
  }
}

/* P(a1 e1 + ... + ak ek <= t) at most, for the slots of var[0..k) (the
 * first k, the widest): the first error's support in cells of equal mass,
 * each contributing its mass times the bound at its least a0 e0. */
static double le_mass(const symctx_t *x, int k, const int *slot, const double *a, double t) {
  if (!(t == t)) return 1;
  if (k == 0) return t >= 0 ? 1 : 0;
  int v = x->slot_var[slot[0]];
  const dist_t *d = &x->b->dist[v];
  const double *cut = x->b->cuts + (size_t)v * (SYM_CELLS + 1);
  if (k == 1) {
    if (a[0] == 0) return t >= 0 ? 1 : 0;
    ival_t s = a[0] > 0 ? (ival_t){-INFINITY, t / a[0]} : (ival_t){t / a[0], INFINITY};
    s = widen(meet(widen(s), (ival_t){d->lo, d->hi}));
    return empty(s) ? 0 : fmin(1, dist_mass(d, s.lo, s.hi) * (1 + SLACK) + SLACK);
  }
  double p = 0;
  int step = k >= 3 ? 4 : 1; /* coarser cells for the outer of three errors */
  const double *cell = x->b->cell_mass + ((size_t)v * 2 + (step == 4)) * SYM_CELLS;
  for (int j = 0; j < SYM_CELLS && p < 1; j += step) {
    double lo = cut[j], hi = cut[j + step];
    double mass = cell[j];
    double least = a[0] >= 0 ? a[0] * lo : a[0] * hi;
    p += mass * le_mass(x, k - 1, slot + 1, a + 1, t - least);
  }
  return fmin(1, p);
}

/* le_mass(x, n, slot, a, t) depends on the slots only through their
 * variables (their distributions and cells): its answers are kept by (n,
 * the variables, a, t), compared bit for bit, in a table of MASS_MEMO
 * entries that starts afresh when half full. */
enum { MASS_MEMO = 1 << 14 };
typedef struct {
  int n, var[SYM_KEEP];
  double a[SYM_KEEP], t, p;
  bool used;
} mass_entry_t;
struct mass_memo {
  mass_entry_t *e; /* [MASS_MEMO] */
  size_t used;
};

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

static double le_mass_memo(const symctx_t *x, int n, const int *slot, const double *a, double t) {
  bound_t *b = x->b;
  if (b->no_memo) return le_mass(x, n, slot, a, t);
  if (!b->mass) {
    b->mass = xcalloc(1, sizeof *b->mass);
    b->mass->e = xcalloc(MASS_MEMO, sizeof *b->mass->e);
  }
  mass_entry_t key = {.n = n, .t = t};
  uint64_t h = mix(0, (uint64_t)n), bits;
  memcpy(&bits, &t, sizeof bits), h = mix(h, bits);
  for (int i = 0; i < n; i++) {
    key.var[i] = x->slot_var[slot[i]], key.a[i] = a[i];
    memcpy(&bits, &a[i], sizeof bits);
    h = mix(mix(h, (uint64_t)(unsigned)key.var[i]), bits);
  }
  struct mass_memo *mm = b->mass;
  size_t at = (size_t)(h & (MASS_MEMO - 1));
  for (;; at = (at + 1) & (MASS_MEMO - 1)) {
    mass_entry_t *e = &mm->e[at];
    if (!e->used) break;
    bool same = e->n == n && memcmp(&e->t, &t, sizeof t) == 0;
    for (int i = 0; i < n && same; i++)
      same = e->var[i] == key.var[i] && memcmp(&e->a[i], &a[i], sizeof *a) == 0;
    if (same) return e->p;
  }
  double p = le_mass(x, n, slot, a, t);
  if (mm->used >= MASS_MEMO / 2) { /* half full: start afresh */
    memset(mm->e, 0, MASS_MEMO * sizeof *mm->e);
    mm->used = 0;
    at = (size_t)(h & (MASS_MEMO - 1));
  }
  key.p = p, key.used = true;
  mm->e[at] = key;
  mm->used++;
  return p;
}

/* P(f <= 0) at most: the SYM_KEEP widest errors kept, the others (and r)
 * at their least; the kept ones are the slots the relaxed event reads. */
static double prob_le0(symctx_t *x, sym_t f) {
  f = fold_env(x, f);
  for (int i = 0; i < f.n; i++) /* order by width, widest first */
    for (int j = i + 1; j < f.n; j++) {
      ival_t ri = slot_range(x, f.slot[i], f.a[i]), rj = slot_range(x, f.slot[j], f.a[j]);
      if (rj.hi - rj.lo > ri.hi - ri.lo) {
        int ts = f.slot[i];
        double ta = f.a[i];
        f.slot[i] = f.slot[j], f.a[i] = f.a[j], f.slot[j] = ts, f.a[j] = ta;
      }
    }
  while (f.n > SYM_KEEP) sfold_term(x, &f, f.n - 1);
  if (!(f.r.lo > -INFINITY)) return 1;
  for (int i = 0; i < f.n; i++) note_read(x, f.slot[i]);
  double t = -f.r.lo;
  return le_mass_memo(x, f.n, f.slot, f.a, t + SLACK * (1 + fabs(t)));
}

/* P(e holds (neg: fails)) at most, its comparisons in the forms. */
static double sprob(symctx_t *x, sview_t view, const expr_t *e, bool neg) {
  if (!e) return neg ? 0 : 1;
  if (numeric_comparison(e)) {
    sym_t d = sadd(x, seval(x, view, e->u.op.a), seval(x, view, e->u.op.b), -1);
    expr_kind_t op = neg ? expr_negated_comparison(e->kind) : e->kind;
    switch (op) {
    case EXPR_LT:
    case EXPR_LE: return prob_le0(x, d);
    case EXPR_GT:
    case EXPR_GE: return prob_le0(x, sscale(d, -1));
    case EXPR_EQ: return fmin(prob_le0(x, d), prob_le0(x, sscale(d, -1)));
    default: return 1;
    }
  }
  switch (e->kind) {
  case EXPR_BOOL: return e->u.bval != neg ? 1 : 0;
  case EXPR_NOT: return sprob(x, view, e->u.op.a, !neg);
  case EXPR_AND:
  case EXPR_OR: {
    double a = sprob(x, view, e->u.op.a, neg), b = sprob(x, view, e->u.op.b, neg);
    return (e->kind == EXPR_AND) != neg ? fmin(a, b) : fmin(1, a + b);
  }
  case EXPR_IMPLIES: {
    double a = sprob(x, view, e->u.op.a, !neg), b = sprob(x, view, e->u.op.b, neg);
    return neg ? fmin(a, b) : fmin(1, a + b);
  }
  default: return 1;
  }
}

/* The after-value of sensing variable v that action a's effects do not
 * define: between a lower and an upper bound its constraining effects give
 * (`v' <= U`, `v' >= L`) when U - L has no error term, else anything in
 * its range. */
static sym_t undefined_after(symctx_t *x, int action, int v) {
  const ism_model_t *m = x->b->m;
  const ism_action_t *a = &m->actions[action];
  const ism_var_t *var = &m->vars[v];
  ival_t range = var->has_range ? (ival_t){var->range_lo, var->range_hi} : ALL;
  sym_t lo = {0}, hi = {0};
  bool has_lo = false, has_hi = false;
  for (size_t k = 0; k < a->neffects; k++) {
    const expr_t *e = a->effects[k];
    if (!x->b->constraint[action][k] || !numeric_comparison(e)) continue;
    const expr_t *l = e->u.op.a, *r = e->u.op.b;
    expr_kind_t op = e->kind;
    bool left = l->kind == EXPR_VAR && l->u.var.primed && l->u.var.id == v;
    bool right = r->kind == EXPR_VAR && r->u.var.primed && r->u.var.id == v;
    if (left == right) continue;
    if (right) { /* X op v' is v' op' X */
      const expr_t *t = l;
      l = r, r = t;
      op = op == EXPR_LT ? EXPR_GT : op == EXPR_LE ? EXPR_GE : op == EXPR_GT ? EXPR_LT : op == EXPR_GE ? EXPR_LE : op;
    }
    sym_t f = seval(x, SV_ACTION, r); /* the values before, the actual ones (an after-value: anything) */
    if ((op == EXPR_LE || op == EXPR_LT || op == EXPR_EQ) && !has_hi) hi = f, has_hi = true;
    if ((op == EXPR_GE || op == EXPR_GT || op == EXPR_EQ) && !has_lo) lo = f, has_lo = true;
  }
  if (!has_lo || !has_hi) return env_value(x, range);
  sym_t w = sadd(x, hi, lo, -1);
  if (w.n != 0 || !(w.r.hi < INFINITY)) return env_value(x, range);
  return sadd(x, lo, env_value(x, (ival_t){0, fmax(0, w.r.hi)}), 1);
}

static void push_event(symctx_t *x, double p, bool atom, sym_t f) {
  if (x->nevents == x->events_cap) {
    x->events_cap = 2 * x->events_cap + 8;
    x->events = xrealloc(x->events, x->events_cap * sizeof *x->events);
  }
  sym_event_t *ev = &x->events[x->nevents++];
  ev->p = p, ev->nreads = x->nreads, ev->atom = atom, ev->f = f;
  ev->reads = xmalloc((x->nreads + 1) * sizeof *ev->reads);
  if (x->nreads) memcpy(ev->reads, x->reads, x->nreads * sizeof *ev->reads); /* reads may be NULL */
}

/* Events two comparisons imply together: f <= 0 and g <= 0 give
 * (-b) f + a g <= 0 for an environment's value read with a > 0 by f and
 * b < 0 by g, a sum in which that value cancels (Fourier-Motzkin). One
 * round, at most SYM_DERIVED of them. */
static void eliminate(symctx_t *x) {
  size_t n = x->nevents, made = 0;
  for (size_t i = 0; i < n && made < SYM_DERIVED; i++)
    for (size_t j = 0; j < n && made < SYM_DERIVED; j++) {
      if (i == j || !x->events[i].atom || !x->events[j].atom) continue;
      const sym_t fi = x->events[i].f, fj = x->events[j].f; /* copies: push_event moves x->events */
      for (int s = 0; s < fi.n && made < SYM_DERIVED; s++) {
        int slot = fi.slot[s];
        double a = fi.a[s], b = 0;
        if (x->slot_var[slot] >= 0 || !(a > 0)) continue;
        for (int t = 0; t < fj.n; t++)
          if (fj.slot[t] == slot) b = fj.a[t];
        if (!(b < 0)) continue;
        sym_t g = sadd(x, sscale(fi, -b), fj, a);
        for (int t = 0; t < g.n; t++) /* what is left of the value: rounding */
          if (g.slot[t] == slot) sfold_term(x, &g, t);
        x->nreads = 0;
        double p = prob_le0(x, g);
        made++;
        if (p < 1) push_event(x, p, false, g);
      }
    }
}

/* Adds the events of e (neg: of not e) holding: one per conjunct. */
static void add_events(symctx_t *x, sview_t view, const expr_t *e, bool neg) {
  if (!e) return;
  if (e->kind == EXPR_NOT) {
    add_events(x, view, e->u.op.a, !neg);
    return;
  }
  if ((e->kind == EXPR_AND && !neg) || (e->kind == EXPR_OR && neg)) {
    add_events(x, view, e->u.op.a, neg), add_events(x, view, e->u.op.b, neg);
    return;
  }
  x->nreads = 0;
  bool atom = false;
  sym_t f = sconst(ALL);
  double p;
  if (numeric_comparison(e)) {
    expr_kind_t op = neg ? expr_negated_comparison(e->kind) : e->kind;
    atom = op == EXPR_LT || op == EXPR_LE || op == EXPR_GT || op == EXPR_GE;
    if (atom) {
      f = sadd(x, seval(x, view, e->u.op.a), seval(x, view, e->u.op.b), -1);
      if (op == EXPR_GT || op == EXPR_GE) f = sscale(f, -1);
    }
  }
  p = atom ? prob_le0(x, f) : sprob(x, view, e, neg);
  if (p >= 1 && !atom) return; /* nothing to gain */
  push_event(x, p, atom, f);
}

static int by_p(const void *a, const void *b) {
  double pa = ((const sym_event_t *)a)->p, pb = ((const sym_event_t *)b)->p;
  return (pa > pb) - (pa < pb);
}

/* At most P(c's path and failure | any environment): every event the path
 * needs, as forms in the errors the path drew, relaxed to depend only on a
 * few of them; events reading disjoint errors are independent, so the
 * product over such a set (chosen greedily, least likely first) bounds the
 * probability of their intersection, which contains the path's runs. */
static double sym_walk(bound_t *b, const int *rules, const int *states, int length, bool failing,
                       int fail_position) {
  const ism_model_t *m = b->m;
  size_t nv = m->nvars;
  if (!initial(b)) return 0;
  symctx_t x = {.b = b};
  x.t = xcalloc(nv + 1, sizeof *x.t), x.n = xcalloc(nv + 1, sizeof *x.n);
  x.actual = xcalloc(nv + 1, sizeof *x.actual), x.next = xcalloc(nv + 1, sizeof *x.next);
  x.sense_slot = xcalloc(nv + 1, sizeof *x.sense_slot);
  for (size_t v = 0; v < nv; v++)
    x.t[v] = m->vars[v].sensing ? env_value(&x, b->truth[v]) : sconst(b->truth[v]), x.n[v] = sconst(b->normal[v]);
  bool done = false;
  for (int k = 0; k < length && !done; k++) {
    int state = states[k];
    const ism_rule_t *rule = &m->rules[rules[k]];
    bool last = failing && k + 1 == length;
    for (size_t v = 0; v < nv; v++) {
      x.sense_slot[v] = -1;
      const ism_var_t *var = &m->vars[v]; /* a true value is within its range at a sensing */
      if (var->sensing && var->has_range && !(x.t[v].r.lo > -INFINITY && x.t[v].r.hi < INFINITY))
        x.t[v] = env_value(&x, (ival_t){var->range_lo, var->range_hi});
    }
    add_events(&x, SV_SENSE, rule->when, false);
    if (m->selection == ISM_SELECT_FIRST)
      for (const int *q = m->rules_from[state]; *q >= 0 && *q != rules[k]; q++)
        add_events(&x, SV_SENSE, m->rules[*q].when, true);
    for (size_t q = 0; q < rule->nsteps && !done; q++) {
      const ism_step_t *st = &rule->steps[q];
      if (st->kind == ISM_STEP_ASSIGN) {
        x.n[st->var] = seval(&x, SV_SENSE, st->value);
        continue;
      }
      int a = st->action;
      for (size_t v = 0; v < nv; v++) {
        x.actual[v] = x.n[v];
        if (!m->vars[v].sensing && m->vars[v].uncertain && m->actions[a].reads[v])
          x.actual[v] = sadd(&x, x.n[v], fresh_error(&x, (int)v), 1);
        x.next[v] = x.t[v];
      }
      for (size_t v = 0; v < nv; v++) /* an after-value read before it is made reads anything */
        if (m->vars[v].sensing) x.next[v] = sconst(ALL);
      for (size_t v = 0; v < nv; v++)
        if (m->vars[v].sensing && !b->rhs[(size_t)a * nv + v]) x.next[v] = undefined_after(&x, a, (int)v);
      for (size_t v = 0; v < nv; v++) {
        const expr_t *rhs = b->rhs[(size_t)a * nv + v];
        if (m->vars[v].sensing && rhs) x.next[v] = seval(&x, SV_ACTION, rhs);
      }
      done = last && (int)q == fail_position;
      add_events(&x, SV_ACTION, m->actions[a].failure, !done);
      for (size_t v = 0; v < nv; v++)
        if (m->vars[v].sensing) x.t[v] = x.next[v];
    }
    for (size_t v = 0; v < nv && !rule->has_action; v++)
      if (m->vars[v].sensing && m->vars[v].dynamic) x.t[v] = sconst(of_type(m->vars[v].type));
    if (!done && m->failure) add_events(&x, SV_TRUTH, m->failure, !(last && fail_position < 0));
  }
  eliminate(&x);
  if (x.nevents) qsort(x.events, x.nevents, sizeof *x.events, by_p); /* events may be NULL */
  bool *used = xcalloc(x.nslots + 1, sizeof *used);
  double p = 1;
  for (size_t k = 0; k < x.nevents; k++) {
    sym_event_t *ev = &x.events[k];
    bool free_ = true;
    for (size_t i = 0; i < ev->nreads && free_; i++) free_ = !used[ev->reads[i]];
    if (free_) {
      p *= ev->p;
      for (size_t i = 0; i < ev->nreads; i++) used[ev->reads[i]] = true;
    }
    free(ev->reads);
  }
  free(used), free(x.events), free(x.reads);
  free(x.t), free(x.n), free(x.actual), free(x.next), free(x.sense_slot), free(x.slot_var), free(x.slot_box);
  return p < 0 ? 0 : p > 1 ? 1 : p;
}

static double bound_sym(bound_t *b, const cex_t *c) {
  return sym_walk(b, c->rules, c->states, c->length, true, c->fail_position);
}

double bound_prefix(bound_t *b, const int *rules, const int *states, int depth) {
  if (depth <= 0) return 1;
  if (b->no_memo) return sym_walk(b, rules, states, depth, false, -2);
  int same = 0; /* the memo's path and this one agree on their first `same` steps */
  while (same < depth && same < b->memo_len && b->memo_rules[same] == rules[same] &&
         b->memo_states[same] == states[same])
    same++;
  if (same == depth && b->memo_known[depth]) return b->memo_value[depth];
  double p = sym_walk(b, rules, states, depth, false, -2);
  if (depth > b->memo_cap) {
    b->memo_cap = 2 * depth;
    b->memo_rules = xrealloc(b->memo_rules, (size_t)b->memo_cap * sizeof *b->memo_rules);
    b->memo_states = xrealloc(b->memo_states, (size_t)b->memo_cap * sizeof *b->memo_states);
    b->memo_value = xrealloc(b->memo_value, ((size_t)b->memo_cap + 1) * sizeof *b->memo_value);
    b->memo_known = xrealloc(b->memo_known, ((size_t)b->memo_cap + 1) * sizeof *b->memo_known);
  }
  if (same < depth) { /* another path from step `same` on: what the memo held beyond it is another path's */
    for (int d = same + 1; d <= b->memo_len; d++) b->memo_known[d] = false;
    for (int d = b->memo_len + 1; d <= depth; d++) b->memo_known[d] = false;
    memcpy(b->memo_rules + same, rules + same, (size_t)(depth - same) * sizeof *rules);
    memcpy(b->memo_states + same, states + same, (size_t)(depth - same) * sizeof *states);
    b->memo_len = depth;
  }
  b->memo_value[depth] = p, b->memo_known[depth] = true;
  return p;
}

double bound_true(bound_t *b, const cex_t *c) {
  b->every_error = true;
  double p = bound_path(b, c);
  b->every_error = false;
  if (p > 0) p = fmin(p, bound_sym(b, c));
  /* and at most each prefix's bound, so that a subtree cut by its prefix's bound holds nothing reported above it */
  for (int d = 1; d < c->length && p > 0; d++) p = fmin(p, bound_prefix(b, c->rules, c->states, d));
  return p;
}

void bound_reach(bound_t *b, int depth, double *lo, double *hi) {
  const ism_model_t *m = b->m;
  size_t nv = m->nvars, ns = m->nstates, box = 2 * nv + 1;
  /* cur[s], next[s]: the true and normal values at a sensing in state s after k and k + 1 steps */
  ival_t *cur = xcalloc(ns * box, sizeof *cur), *next = xcalloc(ns * box, sizeof *next);
  bool *at = xcalloc(ns, sizeof *at), *at_next = xcalloc(ns, sizeof *at_next);
  for (size_t i = 0; i < ns * nv; i++) lo[i] = INFINITY, hi[i] = -INFINITY;
  if (initial(b)) {
    at[m->initial] = true;
    memcpy(cur + (size_t)m->initial * box, b->truth, nv * sizeof *b->truth);
    memcpy(cur + (size_t)m->initial * box + nv, b->normal, nv * sizeof *b->normal);
  }
  for (int k = 0; k < depth; k++) {
    for (size_t s = 0; s < ns; s++) /* what level k adds to the hull of s */
      for (size_t v = 0; v < nv && at[s]; v++) {
        ival_t x = m->vars[v].sensing ? cur[s * box + v] : cur[s * box + nv + v];
        if (m->vars[v].type.kind != TYPE_REAL && m->vars[v].type.kind != TYPE_INT) x = ALL;
        lo[s * nv + v] = fmin(lo[s * nv + v], x.lo), hi[s * nv + v] = fmax(hi[s * nv + v], x.hi);
      }
    if (k + 1 == depth) break;
    memset(at_next, 0, ns * sizeof *at_next);
    for (size_t r = 0; r < m->nrules; r++) {
      int s = m->rules[r].from, t = m->rules[r].to;
      if (!at[s]) continue;
      memcpy(b->truth, cur + (size_t)s * box, nv * sizeof *b->truth);
      memcpy(b->normal, cur + (size_t)s * box + nv, nv * sizeof *b->normal);
      if (!step(b, s, (int)r, false, -2, NULL)) continue;
      ival_t *h = next + (size_t)t * box;
      for (size_t v = 0; v < nv; v++) {
        h[v] = at_next[t] ? join(h[v], b->truth[v]) : b->truth[v];
        h[nv + v] = at_next[t] ? join(h[nv + v], b->normal[v]) : b->normal[v];
      }
      at_next[t] = true;
    }
    ival_t *swap = cur;
    cur = next, next = swap;
    bool *sw = at;
    at = at_next, at_next = sw;
  }
  free(cur), free(next), free(at), free(at_next);
}

bound_t *bound_new(const ism_model_t *m) {
  bound_t *b = xcalloc(1, sizeof *b);
  size_t nv = m->nvars, n = nv + 1;
  b->m = m;
  b->dist = xcalloc(n, sizeof *b->dist);
  b->has_dist = xcalloc(n, sizeof *b->has_dist);
  b->errbox = xcalloc(n, sizeof *b->errbox);
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    b->has_dist[v] = var->uncertain && var->type.kind == TYPE_REAL && dist_of_var(var, &b->dist[v]);
    b->errbox[v] = var->uncertain ? (ival_t){var->err_lo, var->err_hi} : point(0);
  }
  b->cuts = xcalloc(nv * (SYM_CELLS + 1) + 1, sizeof *b->cuts);
  for (size_t v = 0; v < nv; v++)
    for (int j = 0; j <= SYM_CELLS && b->has_dist[v]; j++) {
      const dist_t *d = &b->dist[v];
      b->cuts[v * (SYM_CELLS + 1) + (size_t)j] =
          j == 0 ? d->lo : j == SYM_CELLS ? d->hi : dist_quantile(d, (double)j / SYM_CELLS);
    }
  /* the cells' masses, each computed once here as le_mass would each time */
  b->cell_mass = xcalloc(nv * 2 * SYM_CELLS + 1, sizeof *b->cell_mass);
  for (size_t v = 0; v < nv; v++)
    for (int s = 0; s < 2; s++) /* every variable, as le_mass computed it */
      for (int j = 0, step = s ? 4 : 1; j + step <= SYM_CELLS; j += step) {
        const double *cut = b->cuts + v * (SYM_CELLS + 1);
        b->cell_mass[(v * 2 + (size_t)s) * SYM_CELLS + (size_t)j] =
            dist_mass(&b->dist[v], cut[j], cut[j + step]) * (1 + SLACK) + SLACK;
      }
  b->rhs = xcalloc(m->nactions * nv + 1, sizeof *b->rhs);
  b->constraint = xcalloc(m->nactions + 1, sizeof *b->constraint);
  for (size_t a = 0; a < m->nactions; a++) {
    const ism_action_t *act = &m->actions[a];
    b->constraint[a] = xcalloc(act->neffects + 1, sizeof **b->constraint);
    for (size_t k = 0; k < act->neffects; k++) {
      const expr_t *rhs = NULL;
      int v = ism_effect_defines(m, act->effects[k], &rhs);
      if (v >= 0 && !b->rhs[a * nv + (size_t)v])
        b->rhs[a * nv + (size_t)v] = rhs;
      else
        b->constraint[a][k] = true;
    }
  }
  ival_t **boxes[] = {&b->truth, &b->normal, &b->after, &b->actual, &b->sensed_truth, &b->sensed_normal};
  for (size_t k = 0; k < 6; k++) *boxes[k] = xcalloc(n, sizeof(ival_t));
  b->now = xcalloc(n, sizeof *b->now), b->next = xcalloc(n, sizeof *b->next),
  b->norm = xcalloc(n, sizeof *b->norm);
  return b;
}

void bound_memo(bound_t *b, bool on) { b->no_memo = !on; }

void bound_delete(bound_t *b) {
  if (!b) return;
  for (size_t a = 0; a < b->m->nactions; a++) free(b->constraint[a]);
  free(b->memo_rules), free(b->memo_states), free(b->memo_value), free(b->memo_known);
  if (b->mass) free(b->mass->e), free(b->mass);
  free(b->constraint), free(b->rhs), free(b->cuts), free(b->cell_mass), free(b->dist), free(b->has_dist),
      free(b->errbox);
  free(b->truth), free(b->normal), free(b->after), free(b->actual), free(b->sensed_truth),
      free(b->sensed_normal);
  free(b->now), free(b->next), free(b->norm);
  free(b);
}
