/* Counterexamples: re-checking one against the model (cex_replay): every
 * constraint of its path is evaluated on the reported values, so a wrong
 * encoding or a solver slip is caught before anything is reported. Values
 * come from the solver's exact rationals rounded to doubles, so comparisons
 * are lenient by a relative tolerance in the direction that is asked for. */
#include "ism/cex.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/vec.h"

enum { TOLERANT_TRUE = 1, TOLERANT_FALSE = 0 };

typedef struct {
  const ism_model_t *m;
  const double *now, *next, *normal;
} env_t;

static value_t lookup(void *ctx, int id, bool primed) {
  const env_t *env = ctx;
  const ism_var_t *v = &env->m->vars[id];
  double d = v->sensing ? (primed ? env->next[id] : env->now[id]) : env->normal[id];
  value_t out = {(long long)llround(d), d};
  return out;
}

static double num(const expr_t *e, env_t *env) { return expr_eval_real(e, lookup, env, NULL); }

static bool tolerant_parts(const expr_t *e, env_t *env, bool want);

/* Can condition e evaluate to `want` once every comparison may be off by a
 * rounding error? A condition that divides by 0 where it is evaluated is
 * false, as for the search (smt_translate_holds) and simulate. */
static bool tolerant(const expr_t *e, env_t *env, bool want) {
  if (expr_partial(e)) {
    bool error = false;
    (void)expr_eval_bool(e, lookup, env, &error);
    if (error) return !want;
  }
  return tolerant_parts(e, env, want);
}

static bool tolerant_parts(const expr_t *e, env_t *env, bool want) {
  switch (e->kind) {
  case EXPR_NOT: return tolerant(e->u.op.a, env, !want);
  case EXPR_AND:
    return want ? tolerant(e->u.op.a, env, true) && tolerant(e->u.op.b, env, true)
                : tolerant(e->u.op.a, env, false) || tolerant(e->u.op.b, env, false);
  case EXPR_OR:
    return want ? tolerant(e->u.op.a, env, true) || tolerant(e->u.op.b, env, true)
                : tolerant(e->u.op.a, env, false) && tolerant(e->u.op.b, env, false);
  case EXPR_IMPLIES:
    return want ? tolerant(e->u.op.a, env, false) || tolerant(e->u.op.b, env, true)
                : tolerant(e->u.op.a, env, true) && tolerant(e->u.op.b, env, false);
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE: {
    type_kind_t k = e->u.op.a->type.kind;
    if (k != TYPE_REAL && k != TYPE_INT) break;
    double a = num(e->u.op.a, env), b = num(e->u.op.b, env);
    double eps = 1e-9 * (1 + fabs(a) + fabs(b));
    bool eq_possible = fabs(a - b) <= eps, ne_possible = fabs(a - b) > 0 || eps > 0;
    bool lt_possible = a<b + eps, gt_possible = a> b - eps;
    bool le_possible = a <= b + eps, ge_possible = a >= b - eps;
    bool strict_lt_false = a >= b - eps, strict_gt_false = a <= b + eps;
    switch (e->kind) {
    case EXPR_EQ: return want ? eq_possible : ne_possible;
    case EXPR_NE: return want ? ne_possible : eq_possible;
    case EXPR_LT: return want ? lt_possible : strict_lt_false;
    case EXPR_GT: return want ? gt_possible : strict_gt_false;
    case EXPR_LE: return want ? le_possible : gt_possible;
    case EXPR_GE: return want ? ge_possible : lt_possible;
    default: break;
    }
    break;
  }
  default: break;
  }
  bool error = false;
  bool v = expr_eval_bool(e, lookup, env, &error);
  return (!error && v) == want;
}

static bool close_to(double a, double b) { return fabs(a - b) <= 1e-9 * (1 + fabs(a) + fabs(b)); }

/* A true value at a sensing lies in its variable's range (up to the
 * solver's rounding). */
static bool within_range(const ism_var_t *var, double x) {
  double eps = 1e-9 * (1 + fabs(x));
  return x >= var->range_lo - eps && x <= var->range_hi + eps;
}

static char *check_step(const ism_model_t *m, ism_mode_t mode, const cex_t *c, int i) {
  size_t nv = m->nvars;
  const double *T = c->truth + (size_t)i * nv, *H = c->sensed + (size_t)i * nv, *Tn = T + nv;
  const ism_rule_t *rule = &m->rules[c->rules[i]];
  if (rule->from != c->states[i] || rule->to != c->states[i + 1])
    return xasprintf("step %d: rule '%s' does not connect its states", i + 1, rule->id);
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    double eps = 1e-9 * (1 + fabs(T[v]));
    if (!var->sensing) {
      if (H[v] != T[v]) return xasprintf("step %d: '%s' has a sensed value", i + 1, var->name);
      continue;
    }
    if (var->has_range && !within_range(var, T[v]))
      return xasprintf("step %d: true %s = %g is outside its range", i + 1, var->name, T[v]);
    double err = H[v] - T[v];
    bool err_ok = var->uncertain && mode == ISM_MODE_ACTUAL
                      ? err >= var->err_lo - eps && err <= var->err_hi + eps
                      : fabs(err) <= eps;
    if (!err_ok)
      return xasprintf("step %d: sensed %s = %g is outside the error range", i + 1, var->name, H[v]);
  }
  env_t env = {m, H, NULL, T};
  double *cur = xmalloc((nv + 1) * sizeof *cur);
  memcpy(cur, T, nv * sizeof *cur);
  const double *U = T;
  char *msg = NULL;
  for (size_t k = 0; k < rule->nsteps && !msg; k++) {
    const ism_step_t *st = &rule->steps[k];
    if (st->kind == ISM_STEP_ASSIGN) {
      env_t here = {m, H, NULL, cur};
      cur[st->var] = expr_eval_real(st->value, lookup, &here, NULL);
      continue;
    }
    const cex_action_t *a = NULL;
    for (size_t j = 0; j < c->nactions && !a; j++)
      if (c->actions[j].step == i && c->actions[j].position == (int)k) a = &c->actions[j];
    if (!a) {
      msg = xasprintf("step %d: action %zu of rule '%s' has no values", i + 1, k + 1, rule->id);
      break;
    }
    for (size_t v = 0; v < nv && !msg; v++)
      if (m->vars[v].sensing ? !close_to(a->before[v], U[v]) : !close_to(a->before[v], cur[v]))
        msg = xasprintf("step %d: the values before '%s' do not follow from the step before", i + 1,
                        m->actions[a->action].name);
    U = a->after;
  }
  for (size_t v = 0; v < nv && !msg; v++) {
    const ism_var_t *var = &m->vars[v];
    bool free_after = var->sensing && !rule->has_action && (var->dynamic || mode == ISM_MODE_NAIVE);
    double want = var->sensing ? U[v] : cur[v];
    if (!free_after && !close_to(Tn[v], want))
      msg = xasprintf("step %d: the value of '%s' after rule '%s' does not follow from it", i + 1, var->name,
                      rule->id);
    else if (free_after && var->has_range && !within_range(var, Tn[v]))
      msg = xasprintf("step %d: the value of '%s' after rule '%s' is outside its range", i + 1, var->name,
                      rule->id);
  }
  free(cur);
  if (msg) return msg;
  if (!tolerant(rule->when, &env, true))
    return xasprintf("step %d: the condition of rule '%s' does not hold", i + 1, rule->id);
  if (m->selection == ISM_SELECT_FIRST)
    for (const int *o = m->rules_from[rule->from]; *o != c->rules[i]; o++)
      if (!tolerant(m->rules[*o].when, &env, false))
        return xasprintf("step %d: the earlier rule '%s' would have been selected", i + 1, m->rules[*o].id);
  return NULL;
}

static char *check_actions(const ism_model_t *m, ism_mode_t mode, const cex_t *c, bool *any_failure_last,
                           bool *failure_early) {
  size_t nv = m->nvars;
  double *normal = xcalloc(nv + 1, sizeof *normal);
  char *msg = NULL;
  for (size_t k = 0; k < c->nactions && !msg; k++) {
    const cex_action_t *a = &c->actions[k];
    const ism_action_t *act = &m->actions[a->action];
    for (size_t v = 0; v < nv; v++) normal[v] = a->has_actual[v] ? a->actual[v] : a->before[v];
    env_t env = {m, a->before, a->after, normal};
    if (mode != ISM_MODE_NAIVE)
      for (size_t e = 0; e < act->neffects && !msg; e++)
        if (!tolerant(act->effects[e], &env, true))
          msg = xasprintf("step %d: an effect of '%s' does not hold", a->step + 1, act->name);
    for (size_t v = 0; v < nv && !msg; v++) {
      const ism_var_t *var = &m->vars[v];
      if (!a->has_actual[v]) continue;
      double err = a->actual[v] - a->before[v], eps = 1e-9 * (1 + fabs(a->actual[v]));
      if (err < var->err_lo - eps || err > var->err_hi + eps)
        msg = xasprintf("step %d: the actual %s is outside its error range", a->step + 1, var->name);
    }
    if (act->failure && !msg) {
      if (a->step == c->length - 1)
        *any_failure_last |= tolerant(act->failure, &env, true);
      else if (!tolerant(act->failure, &env, false))
        *failure_early = true;
    }
  }
  free(normal);
  return msg;
}

char *cex_replay(const ism_model_t *m, ism_mode_t mode, const cex_t *c) {
  size_t nv = m->nvars;
  if (c->length < 1 || c->states[0] != m->initial)
    return xstrdup("the path does not start in the initial state");
  for (size_t k = 0; k < m->nassume; k++) {
    env_t env = {m, c->truth, NULL, c->truth};
    if (!tolerant(m->assume[k], &env, true))
      return xasprintf("the initial values break assumption %zu", k + 1);
  }
  for (int i = 0; i < c->length; i++) {
    char *msg = check_step(m, mode, c, i);
    if (msg) return msg;
  }
  bool failure_last = false, failure_early = false;
  char *msg = check_actions(m, mode, c, &failure_last, &failure_early);
  if (msg) return msg;
  if (m->failure)
    for (int i = 0; i < c->length; i++) {
      const double *Tn = c->truth + (size_t)(i + 1) * nv;
      env_t env = {m, Tn, NULL, Tn};
      if (i == c->length - 1)
        failure_last |= tolerant(m->failure, &env, true);
      else if (!tolerant(m->failure, &env, false))
        failure_early = true;
    }
  if (!failure_last) return xstrdup("no failure condition holds after the last rule");
  if (failure_early) return xstrdup("a failure condition already holds before the last rule");
  return NULL;
}

void cex_free(cex_t *c) {
  for (size_t a = 0; a < c->nactions; a++) {
    free(c->actions[a].before);
    free(c->actions[a].after);
    free(c->actions[a].actual);
    free(c->actions[a].has_actual);
  }
  free(c->actions), free(c->rules), free(c->states), free(c->truth), free(c->sensed);
}

static double *dup(const double *a, size_t n) {
  double *b = xmalloc((n + 1) * sizeof *b);
  memcpy(b, a, n * sizeof *b);
  return b;
}

void cex_copy(cex_t *dst, const cex_t *src, size_t nv) {
  size_t L = (size_t)src->length;
  *dst = *src;
  dst->rules = xmalloc((L + 1) * sizeof *dst->rules);
  memcpy(dst->rules, src->rules, L * sizeof *dst->rules);
  dst->states = xmalloc((L + 2) * sizeof *dst->states);
  memcpy(dst->states, src->states, (L + 1) * sizeof *dst->states);
  dst->truth = dup(src->truth, (L + 1) * nv);
  dst->sensed = dup(src->sensed, L * nv);
  dst->actions = xcalloc(src->nactions + 1, sizeof *dst->actions);
  for (size_t a = 0; a < src->nactions; a++) {
    const cex_action_t *s = &src->actions[a];
    cex_action_t *d = &dst->actions[a];
    *d = *s;
    d->before = dup(s->before, nv), d->after = dup(s->after, nv), d->actual = dup(s->actual, nv);
    d->has_actual = xmalloc((nv + 1) * sizeof *d->has_actual);
    memcpy(d->has_actual, s->has_actual, nv * sizeof *d->has_actual);
  }
}

void cex_copy_values(cex_t *dst, const cex_t *src, size_t nv) {
  size_t L = (size_t)src->length;
  memcpy(dst->truth, src->truth, (L + 1) * nv * sizeof *dst->truth);
  memcpy(dst->sensed, src->sensed, L * nv * sizeof *dst->sensed);
  for (size_t a = 0; a < src->nactions; a++) {
    memcpy(dst->actions[a].before, src->actions[a].before, nv * sizeof(double));
    memcpy(dst->actions[a].after, src->actions[a].after, nv * sizeof(double));
    memcpy(dst->actions[a].actual, src->actions[a].actual, nv * sizeof(double));
  }
}

static int compare_cex(const void *pa, const void *pb) { return cex_compare(pa, pb); }

int cex_compare(const cex_t *a, const cex_t *b) {
  if (a->boundary_only != b->boundary_only) return a->boundary_only ? 1 : -1;
  double pa_ = a->has_probability ? a->probability : -1, pb_ = b->has_probability ? b->probability : -1;
  if (pa_ != pb_) return pa_ > pb_ ? -1 : 1;
  for (int k = 0; k < a->length && k < b->length; k++)
    if (a->rules[k] != b->rules[k]) return a->rules[k] < b->rules[k] ? -1 : 1;
  if (a->length != b->length) return a->length > b->length ? 1 : -1;
  /* one path failing in several places: as the search emits them, in do:
   * order, the model-wide failure (-1) last */
  int fa = a->fail_position < 0 ? INT_MAX : a->fail_position, fb = b->fail_position < 0 ? INT_MAX : b->fail_position;
  return (fa > fb) - (fa < fb);
}

size_t cex_classes(const cex_t *cexs, size_t n, cex_class_t **classes) {
  cex_class_t *cl = xcalloc(n + 1, sizeof *cl);
  size_t nc = 0;
  for (size_t k = 0; k < n; k++) {
    const cex_t *c = &cexs[k];
    int rule = c->rules[c->length - 1];
    size_t i = 0;
    while (i < nc && !(cl[i].rule == rule && cl[i].action == c->fail_action)) i++;
    if (i == nc) cl[nc++] = (cex_class_t){rule, c->fail_action, 0, 0, k};
    cl[i].count++;
    cl[i].boundary_only += c->boundary_only;
  }
  *classes = cl;
  return nc;
}

void cex_sort_by_probability(cex_t *cexs, size_t n) {
  if (n > 1) qsort(cexs, n, sizeof *cexs, compare_cex);
}

const char *ism_mode_name(ism_mode_t mode) {
  return mode == ISM_MODE_ACTUAL ? "actual" : mode == ISM_MODE_IDEAL ? "ideal" : "naive";
}
