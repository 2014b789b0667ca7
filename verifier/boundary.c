#include "verifier/boundary.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/vec.h"
#include "verifier/smt.h"

/* A term and whether it reads a sensing or actuation error. */
typedef struct {
  smt_term_t t;
  bool random;
} val_t;

typedef VEC(smt_term_t) terms_t;

typedef struct {
  const ism_model_t *m;
  smt_t *s;
  size_t nv;
  smt_term_t slack;
  const val_t *now, *next, *normal; /* the frame expressions are read in */
  bool random;                      /* set by read_var: the last term read an error */
  bool plain;                       /* comparisons as written, none made strict (boundary_class) */
  terms_t cs;
  cex_t *c;
  val_t *T, *H;                   /* [(length + 1) * nv], [length * nv] */
  val_t *before, *after, *actual; /* [nactions * nv] */
} enc_t;

static smt_sort_t sort_of(type_t t) {
  return t.kind == TYPE_BOOL ? SMT_SORT_BOOL : t.kind == TYPE_REAL ? SMT_SORT_REAL : SMT_SORT_INT;
}

static smt_term_t read_var(void *ctx, const expr_t *var) {
  enc_t *x = ctx;
  int v = var->u.var.id;
  const val_t *val = x->m->vars[v].sensing ? (var->u.var.primed ? &x->next[v] : &x->now[v]) : &x->normal[v];
  x->random |= val->random;
  return val->t;
}

/* A value or an atom; where it divides, the condition that it is defined
 * joins the constraints (the explorer's paths never divide by 0, so a
 * counterexample's witnesses do not either). This also asks it of an atom
 * under a negation, where an undefined atom would make the negation hold:
 * such a witness is not sought. */
static val_t term(enc_t *x, const expr_t *e) {
  x->random = false;
  smt_term_t t = smt_translate(x->s, e, read_var, x);
  bool random = x->random;
  if (t && expr_partial(e)) VEC_PUSH(&x->cs, smt_defined(x->s, e, read_var, x));
  return (val_t){t, random};
}

static smt_term_t fresh(enc_t *x, int v, const char *what) {
  char *name = xasprintf("%s%s", x->m->vars[v].name, what);
  smt_term_t t = smt_const(x->s, name, sort_of(x->m->vars[v].type));
  free(name);
  return t;
}

/* a + s <= b */
static smt_term_t below(enc_t *x, smt_term_t a, smt_term_t b) {
  return smt_op(x->s, EXPR_LE, smt_op(x->s, EXPR_ADD, a, x->slack, 0), b, 0);
}

static smt_term_t strict(enc_t *x, const expr_t *e, bool positive);

static smt_term_t both(enc_t *x, smt_term_t a, smt_term_t b, bool conj) {
  smt_term_t t[2] = {a, b};
  return conj ? smt_and(x->s, t, 2) : smt_or(x->s, t, 2);
}

/* A comparison of reals that reads an error, made strict by the slack. */
static smt_term_t strict_comparison(enc_t *x, const expr_t *e, bool positive) {
  val_t a = term(x, e->u.op.a), b = term(x, e->u.op.b);
  expr_kind_t k = positive ? e->kind : expr_negated_comparison(e->kind);
  if (x->plain || !(a.random || b.random) || e->u.op.a->type.kind != TYPE_REAL) {
    smt_term_t t = smt_op(x->s, e->kind, a.t, b.t, 0);
    return positive ? t : smt_op(x->s, EXPR_NOT, t, 0, 0);
  }
  switch (k) {
  case EXPR_LT:
  case EXPR_LE: return below(x, a.t, b.t);
  case EXPR_GT:
  case EXPR_GE: return below(x, b.t, a.t);
  case EXPR_EQ: return smt_bool(x->s, false); /* measure zero */
  default: return both(x, below(x, a.t, b.t), below(x, b.t, a.t), false);
  }
}

/* e (positive) or not e, in negation normal form, every comparison that
 * reads an error strict. */
static smt_term_t strict(enc_t *x, const expr_t *e, bool positive) {
  const expr_t *a = e->u.op.a, *b = e->u.op.b;
  switch (e->kind) {
  case EXPR_NOT: return strict(x, a, !positive);
  case EXPR_AND:
  case EXPR_OR:
    return both(x, strict(x, a, positive), strict(x, b, positive), (e->kind == EXPR_AND) == positive);
  case EXPR_IMPLIES: /* a => b is (not a) or b */
    return both(x, strict(x, a, !positive), strict(x, b, positive), !positive);
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_EQ:
  case EXPR_NE:
    if (a->type.kind == TYPE_INT || a->type.kind == TYPE_REAL) return strict_comparison(x, e, positive);
    if (a->type.kind == TYPE_BOOL) {
      bool same = (e->kind == EXPR_EQ) == positive; /* a <=> b, or a xor b */
      return both(x, both(x, strict(x, a, true), strict(x, b, same), true),
                  both(x, strict(x, a, false), strict(x, b, !same), true), false);
    }
    break;
  case EXPR_IFF: {
    bool same = positive;
    return both(x, both(x, strict(x, a, true), strict(x, b, same), true),
                both(x, strict(x, a, false), strict(x, b, !same), true), false);
  }
  case EXPR_ITE:
    if (e->type.kind != TYPE_BOOL) break;
    return both(x, both(x, strict(x, a, true), strict(x, b, positive), true),
                both(x, strict(x, a, false), strict(x, e->u.op.c, positive), true), false);
  default: break;
  }
  val_t t = term(x, e);
  return positive ? t.t : smt_op(x->s, EXPR_NOT, t.t, 0, 0);
}

static void bounded(enc_t *x, smt_term_t t, double lo, double hi, bool random) {
  smt_term_t l = smt_real(x->s, lo), h = smt_real(x->s, hi);
  if (random && !x->plain) {
    VEC_PUSH(&x->cs, below(x, l, t));
    VEC_PUSH(&x->cs, below(x, t, h));
  } else {
    VEC_PUSH(&x->cs, smt_op(x->s, EXPR_LE, l, t, 0));
    VEC_PUSH(&x->cs, smt_op(x->s, EXPR_LE, t, h, 0));
  }
}

static size_t action_index(const cex_t *c, int step, int position) {
  for (size_t k = 0; k < c->nactions; k++)
    if (c->actions[k].step == step && c->actions[k].position == position) return k;
  return c->nactions;
}

/* One action at step k, position p; U (true values) and cur (the app's
 * values) are updated. `after_failure`: an action of the last rule after its
 * failing one, encoded as it is (its values are reported, nothing is asked
 * of them). */
static void encode_action(enc_t *x, int k, int p, int action, val_t *U, const val_t *cur, bool want_fail,
                          bool after_failure) {
  const ism_model_t *m = x->m;
  const ism_action_t *a = &m->actions[action];
  size_t nv = x->nv, ai = action_index(x->c, k, p);
  val_t *actual = xcalloc(nv + 1, sizeof *actual), *after = xcalloc(nv + 1, sizeof *after);
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    actual[v] = cur[v];
    if (!var->sensing && var->uncertain && a->reads[v]) {
      smt_term_t u = fresh(x, (int)v, "~err");
      bool point = var->err_lo == var->err_hi;
      bounded(x, u, var->err_lo, var->err_hi, !point);
      actual[v] = (val_t){smt_op(x->s, EXPR_ADD, cur[v].t, u, 0), cur[v].random || !point};
    }
  }
  x->now = U, x->next = NULL, x->normal = actual;
  bool *defining = xcalloc(a->neffects + 1, sizeof *defining);
  for (size_t e = 0; e < a->neffects; e++) {
    const expr_t *rhs = NULL;
    int v = ism_effect_defines(m, a->effects[e], &rhs);
    if (v < 0 || after[v].t) continue;
    after[v] = term(x, rhs);
    defining[e] = true;
  }
  for (size_t v = 0; v < nv; v++)
    if (m->vars[v].sensing && !after[v].t) after[v] = (val_t){fresh(x, (int)v, "'"), false};
  x->now = U, x->next = after, x->normal = actual;
  for (size_t e = 0; e < a->neffects; e++) {
    if (defining[e]) continue;
    VEC_PUSH(&x->cs, after_failure ? term(x, a->effects[e]).t : strict(x, a->effects[e], true));
  }
  free(defining);
  if (a->failure && !after_failure) VEC_PUSH(&x->cs, strict(x, a->failure, want_fail));
  if (ai < x->c->nactions)
    for (size_t v = 0; v < nv; v++) {
      bool sensing = m->vars[v].sensing;
      x->before[ai * nv + v] = sensing ? U[v] : cur[v];
      x->after[ai * nv + v] = sensing ? after[v] : cur[v];
      x->actual[ai * nv + v] = actual[v];
    }
  for (size_t v = 0; v < nv; v++)
    if (m->vars[v].sensing) U[v] = after[v];
  free(actual), free(after);
}

static void encode_start(enc_t *x) {
  const ism_model_t *m = x->m;
  for (size_t v = 0; v < x->nv; v++) {
    const ism_var_t *var = &m->vars[v];
    val_t *t = &x->T[v];
    if (var->sensing || !var->init) {
      *t = (val_t){fresh(x, (int)v, "@0"), false};
      continue;
    }
    bool err = false;
    if (var->type.kind == TYPE_REAL)
      t->t = smt_real(x->s, expr_eval_real(var->init, NULL, NULL, &err));
    else if (var->type.kind == TYPE_BOOL)
      t->t = smt_bool(x->s, expr_eval(var->init, NULL, NULL, &err).i != 0);
    else
      t->t = smt_int(x->s, expr_eval(var->init, NULL, NULL, &err).i);
  }
}

static void encode_step(enc_t *x, int k) {
  const ism_model_t *m = x->m;
  const cex_t *c = x->c;
  size_t nv = x->nv;
  bool last = k + 1 == c->length;
  val_t *T = x->T + (size_t)k * nv, *H = x->H + (size_t)k * nv, *Tn = x->T + (size_t)(k + 1) * nv;
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    H[v] = T[v];
    if (!var->sensing) continue;
    if (var->has_range) {
      smt_term_t t = var->type.kind == TYPE_INT ? smt_op(x->s, EXPR_TOREAL, T[v].t, 0, 0) : T[v].t;
      bounded(x, t, var->range_lo, var->range_hi, T[v].random && var->type.kind == TYPE_REAL);
    }
    if (var->uncertain && var->type.kind == TYPE_REAL) {
      smt_term_t e = fresh(x, (int)v, "~err");
      bool point = var->err_lo == var->err_hi;
      bounded(x, e, var->err_lo, var->err_hi, !point);
      H[v] = (val_t){smt_op(x->s, EXPR_ADD, T[v].t, e, 0), T[v].random || !point};
    }
  }
  int rule = c->rules[k];
  x->now = H, x->next = NULL, x->normal = T;
  VEC_PUSH(&x->cs, strict(x, m->rules[rule].when, true));
  if (m->selection == ISM_SELECT_FIRST)
    for (const int *q = m->rules_from[m->rules[rule].from]; *q != rule; q++)
      VEC_PUSH(&x->cs, strict(x, m->rules[*q].when, false));
  val_t *U = xmalloc((nv + 1) * sizeof *U), *cur = xmalloc((nv + 1) * sizeof *cur);
  memcpy(U, T, nv * sizeof *U);
  memcpy(cur, T, nv * sizeof *cur);
  const ism_rule_t *r = &m->rules[rule];
  for (size_t p = 0; p < r->nsteps; p++) {
    const ism_step_t *st = &r->steps[p];
    if (st->kind == ISM_STEP_ASSIGN) {
      x->now = H, x->next = NULL, x->normal = cur;
      cur[st->var] = term(x, st->value);
      continue;
    }
    bool want = last && (int)p == c->fail_position,
         after = last && c->fail_position >= 0 && (int)p > c->fail_position;
    encode_action(x, k, (int)p, st->action, U, cur, want, after);
  }
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    if (!var->sensing)
      Tn[v] = cur[v];
    else if (r->has_action)
      Tn[v] = U[v];
    else if (var->dynamic) {
      Tn[v] = (val_t){fresh(x, (int)v, "@dyn"), false};
      if (var->has_range) /* a value at the next sensing: within the range even when none follows */
        bounded(x, var->type.kind == TYPE_INT ? smt_op(x->s, EXPR_TOREAL, Tn[v].t, 0, 0) : Tn[v].t,
                var->range_lo, var->range_hi, false);
    } else
      Tn[v] = T[v];
  }
  if (m->failure && !(last && c->fail_position >= 0)) {
    x->now = Tn, x->next = NULL, x->normal = Tn;
    VEC_PUSH(&x->cs, strict(x, m->failure, last));
  }
  free(U), free(cur);
}

static bool value_of(enc_t *x, const ism_var_t *var, smt_term_t t, double *out) {
  if (var->type.kind == TYPE_BOOL) {
    bool b = false;
    bool ok = smt_model_bool(x->s, t, &b);
    *out = b;
    return ok;
  }
  return smt_model_real(x->s, t, out, NULL);
}

static bool extract(enc_t *x) {
  const ism_model_t *m = x->m;
  cex_t *c = x->c;
  size_t nv = x->nv, L = (size_t)c->length;
  bool ok = true;
  for (size_t k = 0; k <= L; k++)
    for (size_t v = 0; v < nv; v++) {
      ok &= value_of(x, &m->vars[v], x->T[k * nv + v].t, &c->truth[k * nv + v]);
      if (k < L) ok &= value_of(x, &m->vars[v], x->H[k * nv + v].t, &c->sensed[k * nv + v]);
    }
  for (size_t a = 0; a < c->nactions; a++)
    for (size_t v = 0; v < nv; v++) {
      if (!x->before[a * nv + v].t) continue;
      cex_action_t *ca = &c->actions[a];
      ok &= value_of(x, &m->vars[v], x->before[a * nv + v].t, &ca->before[v]);
      ok &= value_of(x, &m->vars[v], x->after[a * nv + v].t, &ca->after[v]);
      if (ca->has_actual[v]) ok &= value_of(x, &m->vars[v], x->actual[a * nv + v].t, &ca->actual[v]);
    }
  return ok;
}

struct boundary_ctx {
  const ism_model_t *m;
  smt_t *s;
  unsigned long long class_checks; /* boundary_class's solver calls */
};

boundary_ctx_t *boundary_new(const ism_model_t *m, unsigned long long rlimit) {
  boundary_ctx_t *b = xmalloc(sizeof *b);
  smt_options_t so = {0, rlimit, true}; /* quick to make: one per counterexample (apps/verify_options.c) */
  b->m = m, b->s = smt_new(&so), b->class_checks = 0;
  return b;
}

void boundary_delete(boundary_ctx_t *b) {
  if (!b) return;
  smt_delete(b->s);
  free(b);
}

/* Extracts the witness into c, or leaves c as it was. */
static bool extract_all_or_nothing(enc_t *x) {
  size_t nv = x->nv;
  cex_t keep;
  cex_copy(&keep, x->c, nv);
  bool ok = extract(x);
  if (!ok) cex_copy_values(x->c, &keep, nv);
  cex_free(&keep);
  return ok;
}

boundary_t boundary_classify(boundary_ctx_t *b, cex_t *c) {
  const ism_model_t *m = b->m;
  size_t nv = m->nvars, L = (size_t)c->length;
  size_t mark = smt_mark(b->s);
  smt_push(b->s);
  enc_t x = {m, b->s, nv, 0, NULL, NULL, NULL, false, false, {0}, c, NULL, NULL, NULL, NULL, NULL};
  x.slack = smt_const(x.s, "slack", SMT_SORT_REAL);
  x.T = xcalloc((L + 1) * nv + 1, sizeof *x.T);
  x.H = xcalloc(L * nv + 1, sizeof *x.H);
  x.before = xcalloc(c->nactions * nv + 1, sizeof *x.before);
  x.after = xcalloc(c->nactions * nv + 1, sizeof *x.after);
  x.actual = xcalloc(c->nactions * nv + 1, sizeof *x.actual);
  encode_start(&x);
  x.now = x.T, x.next = NULL, x.normal = x.T;
  for (size_t k = 0; k < m->nassume; k++) VEC_PUSH(&x.cs, strict(&x, m->assume[k], true));
  for (int k = 0; k < c->length; k++) encode_step(&x, k);
  for (size_t k = 0; k < x.cs.len; k++) smt_assert(x.s, x.cs.data[k]);
  smt_assert(x.s, smt_op(x.s, EXPR_GT, x.slack, smt_real(x.s, 0), 0));
  boundary_t verdict = BOUNDARY_UNKNOWN;
  smt_result_t r = smt_check(x.s, NULL, 0);
  if (r == SMT_UNSAT) verdict = BOUNDARY_ONLY;
  if (r == SMT_SAT) {
    static const double margins[] = {1, 0.1, 0.01};
    bool done = false;
    for (size_t k = 0; k < sizeof margins / sizeof *margins && !done; k++) {
      smt_push(x.s);
      smt_assert(x.s, smt_op(x.s, EXPR_GE, x.slack, smt_real(x.s, margins[k]), 0));
      if (smt_check(x.s, NULL, 0) == SMT_SAT) done = extract_all_or_nothing(&x);
      smt_pop(x.s, 1);
    }
    if (!done && smt_check(x.s, NULL, 0) == SMT_SAT) done = extract_all_or_nothing(&x);
    verdict = done ? BOUNDARY_INTERIOR : BOUNDARY_UNKNOWN;
  }
  VEC_FREE(&x.cs);
  free(x.T), free(x.H), free(x.before), free(x.after), free(x.actual);
  smt_pop(b->s, 1);
  smt_release(b->s, mark);
  return verdict;
}

/* Does some rule assign v? */
static bool assigned(const ism_model_t *m, int v) {
  for (size_t r = 0; r < m->nrules; r++)
    for (size_t k = 0; k < m->rules[r].nsteps; k++)
      if (m->rules[r].steps[k].kind == ISM_STEP_ASSIGN && m->rules[r].steps[k].var == v) return true;
  return false;
}

boundary_t boundary_class(boundary_ctx_t *b, int rule, int fail_position, bool strict, const double *lo,
                          const double *hi) {
  const ism_model_t *m = b->m;
  size_t nv = m->nvars;
  for (size_t v = 0; v < nv && lo; v++)
    if (!(lo[v] <= hi[v])) return BOUNDARY_ONLY; /* the rule's state is not reached */
  int states[2] = {m->rules[rule].from, m->rules[rule].to};
  cex_t c = {.length = 1, .rules = &rule, .states = states, .fail_position = fail_position};
  size_t mark = smt_mark(b->s);
  smt_push(b->s);
  enc_t x = {m, b->s, nv, 0, NULL, NULL, NULL, false, !strict, {0}, &c, NULL, NULL, NULL, NULL, NULL};
  x.slack = smt_const(x.s, "slack", SMT_SORT_REAL);
  x.T = xcalloc(2 * nv + 1, sizeof *x.T);
  x.H = xcalloc(nv + 1, sizeof *x.H);
  /* whatever the path before: every value free (sensing ones within their range, asserted at the sensing),
   * but a normal variable no rule assigns keeps its initial value */
  encode_start(&x);
  for (size_t v = 0; v < nv; v++)
    if (m->vars[v].sensing || assigned(m, (int)v)) x.T[v] = (val_t){fresh(&x, (int)v, "@0"), false};
  for (size_t v = 0; v < nv && lo; v++) { /* within the given box */
    type_kind_t k = m->vars[v].type.kind;
    if (k != TYPE_REAL && k != TYPE_INT) continue;
    if (isfinite(lo[v]))
      VEC_PUSH(&x.cs, smt_op(x.s, EXPR_GE, x.T[v].t, k == TYPE_INT ? smt_int(x.s, (long long)ceil(lo[v])) : smt_real(x.s, lo[v]), 0));
    if (isfinite(hi[v]))
      VEC_PUSH(&x.cs, smt_op(x.s, EXPR_LE, x.T[v].t, k == TYPE_INT ? smt_int(x.s, (long long)floor(hi[v])) : smt_real(x.s, hi[v]), 0));
  }
  encode_step(&x, 0);
  for (size_t k = 0; k < x.cs.len; k++) smt_assert(x.s, x.cs.data[k]);
  smt_assert(x.s, smt_op(x.s, EXPR_GT, x.slack, smt_real(x.s, 0), 0));
  smt_result_t r = smt_check(x.s, NULL, 0);
  b->class_checks++;
  VEC_FREE(&x.cs);
  free(x.T), free(x.H);
  smt_pop(b->s, 1);
  smt_release(b->s, mark);
  return r == SMT_UNSAT ? BOUNDARY_ONLY : r == SMT_SAT ? BOUNDARY_INTERIOR : BOUNDARY_UNKNOWN;
}

unsigned long long boundary_class_checks(const boundary_ctx_t *b) { return b ? b->class_checks : 0; }
