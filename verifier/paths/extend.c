#include "verifier/paths/extend.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

enum { MAX_CANDIDATES = 4, MAX_SLOTS = 64 };

typedef struct {
  const ism_model_t *m;
  const rat_t *now, *next, *normal;
} env_t;

static bool lookup(void *ctx, int id, bool primed, rat_t *out) {
  const env_t *env = ctx;
  const rat_t *row = env->m->vars[id].sensing ? (primed ? env->next : env->now) : env->normal;
  if (!row) return false;
  *out = row[id];
  return true;
}

static bool holds(const env_t *env, const expr_t *e, bool *value) {
  rat_t r;
  if (!rat_eval(e, lookup, (void *)env, &r)) return false;
  *value = r.num != 0;
  return true;
}

static bool is_true(const env_t *env, const expr_t *e) {
  bool v;
  return holds(env, e, &v) && v;
}

/* An unknown of the step and the values tried for it, best first. */
typedef struct {
  rat_t *target; /* where a chosen value goes */
  rat_t base;    /* errors: the value the error is added to */
  bool is_error;
  rat_t cand[MAX_CANDIDATES];
  int ncand;
} slot_t;

static void add_candidate(slot_t *s, rat_t v, const ism_var_t *var) {
  if (var->type.kind == TYPE_INT && v.den != 1) return;
  for (int k = 0; k < s->ncand; k++)
    if (rat_cmp(s->cand[k], v) == 0) return;
  if (s->ncand < MAX_CANDIDATES) s->cand[s->ncand++] = v;
}

/* Puts v first (the value an after-value keeps when nothing changes). */
static void prefer(slot_t *s, rat_t v, const ism_var_t *var) {
  if (var->type.kind == TYPE_INT && v.den != 1) return;
  int at = s->ncand;
  for (int k = 0; k < s->ncand; k++)
    if (rat_cmp(s->cand[k], v) == 0) at = k;
  if (at == s->ncand && s->ncand == MAX_CANDIDATES)
    at--;
  else if (at == s->ncand)
    s->ncand++;
  for (int k = at; k > 0; k--) s->cand[k] = s->cand[k - 1];
  s->cand[0] = v;
}

/* Candidates in [lo, hi]: 0 first when inside and preferred, then the
 * ends and the middle (rounded inwards for ints). */
static bool range_candidates(slot_t *s, const ism_var_t *var, double dlo, double dhi, bool zero_first) {
  rat_t lo, hi, mid, zero = rat_int(0), two = rat_int(2), sum;
  if (!rat_from_double(dlo, &lo) || !rat_from_double(dhi, &hi)) return false;
  if (var->type.kind == TYPE_INT) lo = rat_ceil(lo), hi = rat_floor(hi);
  if (rat_cmp(lo, hi) > 0 || !rat_add(lo, hi, &sum) || !rat_div(sum, two, &mid)) return false;
  if (var->type.kind == TYPE_INT) mid = rat_floor(mid);
  bool zero_in = rat_cmp(lo, zero) <= 0 && rat_cmp(zero, hi) <= 0;
  if (zero_first && zero_in) add_candidate(s, zero, var);
  if (zero_first) add_candidate(s, mid, var);
  add_candidate(s, lo, var);
  add_candidate(s, hi, var);
  add_candidate(s, mid, var);
  return s->ncand > 0;
}

static bool value_candidates(slot_t *s, const ism_var_t *var) {
  if (var->type.kind == TYPE_BOOL) {
    add_candidate(s, rat_int(0), var);
    add_candidate(s, rat_int(1), var);
    return true;
  }
  if (var->has_range) return range_candidates(s, var, var->range_lo, var->range_hi, false);
  add_candidate(s, rat_int(0), var);
  add_candidate(s, rat_int(1), var);
  add_candidate(s, rat_int(-1), var);
  return true;
}

/* Per variable, made once: candidates for a fresh value, for an error
 * (passing and failing order), and the range as rationals. */
typedef struct {
  slot_t value, error_pass, error_fail;
  bool value_ok, error_ok;
  bool range_ok; /* has_range and both ends exact */
  rat_t lo, hi;
  bool err_ok; /* uncertain and both ends of the error range exact */
  rat_t elo, ehi;
} var_prep_t;

struct extend_prep {
  const ism_model_t *m;
  var_prep_t *vars;
};

extend_prep_t *extend_prepare(const ism_model_t *m) {
  extend_prep_t *p = xcalloc(1, sizeof *p);
  p->m = m;
  p->vars = xcalloc(m->nvars + 1, sizeof *p->vars);
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    var_prep_t *vp = &p->vars[v];
    vp->value_ok = value_candidates(&vp->value, var);
    vp->error_ok = var->uncertain && range_candidates(&vp->error_pass, var, var->err_lo, var->err_hi, true) &&
                   range_candidates(&vp->error_fail, var, var->err_lo, var->err_hi, false);
    vp->range_ok =
        var->has_range && rat_from_double(var->range_lo, &vp->lo) && rat_from_double(var->range_hi, &vp->hi);
    vp->err_ok =
        var->uncertain && rat_from_double(var->err_lo, &vp->elo) && rat_from_double(var->err_hi, &vp->ehi);
  }
  return p;
}

const ism_model_t *extend_model(const extend_prep_t *p) { return p->m; }

bool extend_box(const extend_prep_t *p, int var, bool error, rat_t *lo, rat_t *hi) {
  const var_prep_t *vp = &p->vars[var];
  if (error ? !vp->err_ok : !vp->range_ok) return false;
  *lo = error ? vp->elo : vp->lo;
  *hi = error ? vp->ehi : vp->hi;
  return true;
}

void extend_prep_free(extend_prep_t *p) {
  if (!p) return;
  free(p->vars);
  free(p);
}

static bool value_slot(const extend_prep_t *p, slot_t *s, rat_t *target, int v) {
  *s = p->vars[v].value;
  s->target = target;
  return p->vars[v].value_ok;
}

static bool error_slot(const extend_prep_t *p, slot_t *s, rat_t *target, rat_t base, int v, bool want_fail) {
  *s = want_fail ? p->vars[v].error_fail : p->vars[v].error_pass;
  s->target = target, s->base = base, s->is_error = true;
  return p->vars[v].error_ok;
}

static bool apply(slot_t *s, int k) {
  if (!s->is_error) {
    *s->target = s->cand[k];
    return true;
  }
  return rat_add(s->base, s->cand[k], s->target);
}

/* The search: stages are the sensing, then each step of the rule's do:
 * list, then the end of the step. */
typedef struct {
  const extend_prep_t *p;
  const ism_model_t *m;
  ism_mode_t mode;
  const ism_rule_t *rule;
  int rule_id;
  bool want_fail;
  int budget;
  extend_step_t *io;
  rat_t *cur;    /* [(nsteps + 1) * nvars]: normal values before each do: step */
  rat_t *normal; /* [nsteps * nvars]: normal values an action reads (actual or assumed) */
} search_t;

static bool stage(search_t *s, size_t k, const rat_t *U, bool fired, int fail_position);

/* Every combination of the slots' candidates, each passed to try_fn, until
 * one succeeds or the budget runs out. */
typedef bool (*try_fn)(search_t *s, void *arg);

static bool each_combination(search_t *s, slot_t *slots, int n, try_fn fn, void *arg) {
  int idx[MAX_SLOTS] = {0};
  for (;;) {
    if (s->budget-- <= 0) return false;
    bool ok = true;
    for (int k = 0; k < n && ok; k++) ok = apply(&slots[k], idx[k]);
    if (ok && fn(s, arg)) return true;
    int k = n - 1;
    while (k >= 0 && ++idx[k] == slots[k].ncand) idx[k--] = 0;
    if (k < 0) return false;
  }
}

static bool in_range(const extend_prep_t *p, int var, rat_t v) {
  const var_prep_t *vp = &p->vars[var];
  if (!p->m->vars[var].has_range) return true;
  return vp->range_ok && rat_cmp(vp->lo, v) <= 0 && rat_cmp(v, vp->hi) <= 0;
}

typedef struct {
  const rat_t *U;
  bool fired;
  int fail_position;
} end_arg_t;

static bool try_end(search_t *s, void *arg) {
  const end_arg_t *a = arg;
  const ism_model_t *m = s->m;
  rat_t *next = s->io->next;
  bool failed = a->fired;
  if (m->failure && !failed) {
    env_t env = {m, next, NULL, next};
    bool mf;
    if (!holds(&env, m->failure, &mf)) return false;
    failed = mf;
  }
  if (failed != s->want_fail) return false;
  /* every next value at a sensing; a fresh one even when none follows */
  for (size_t v = 0; v < m->nvars; v++)
    if (m->vars[v].sensing &&
        (!s->want_fail || (!s->rule->has_action && (m->vars[v].dynamic || s->mode == ISM_MODE_NAIVE))) &&
        !in_range(s->p, (int)v, next[v]))
      return false;
  s->io->fail_position = a->fail_position;
  return !s->io->accept || s->io->accept(s->io->accept_ctx);
}

static bool end_stage(search_t *s, const rat_t *U, bool fired, int fail_position) {
  const ism_model_t *m = s->m;
  size_t nv = m->nvars;
  const rat_t *cur = s->cur + s->rule->nsteps * nv;
  rat_t *next = s->io->next;
  slot_t slots[MAX_SLOTS];
  int n = 0;
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    if (!var->sensing)
      next[v] = cur[v];
    else if (s->rule->has_action)
      next[v] = U[v];
    else if ((var->dynamic || s->mode == ISM_MODE_NAIVE) && n < MAX_SLOTS) {
      if (!value_slot(s->p, &slots[n++], &next[v], (int)v)) return false;
    } else if (var->dynamic || s->mode == ISM_MODE_NAIVE)
      return false;
    else
      next[v] = s->io->now[v];
  }
  end_arg_t arg = {U, fired, fail_position};
  return each_combination(s, slots, n, try_end, &arg);
}

typedef struct {
  size_t k;    /* do: position */
  int ordinal; /* index among the rule's actions */
  const ism_action_t *a;
  int *defines; /* [neffects]: the variable an effect defines by substitution, or -1 */
  bool fired;
  int fail_position;
} action_arg_t;

static bool try_action(search_t *s, void *arg) {
  const action_arg_t *aa = arg;
  const ism_model_t *m = s->m;
  size_t nv = m->nvars;
  extend_action_t *out = &s->io->actions[aa->ordinal];
  rat_t *normal = s->normal + aa->k * nv;
  for (size_t v = 0; v < nv; v++)
    if (out->has_actual[v]) normal[v] = out->actual[v];
  env_t env = {m, out->before, out->after, normal};
  env_t before = {m, out->before, NULL, normal};
  for (size_t e = 0; e < aa->a->neffects; e++) {
    const expr_t *value;
    if (aa->defines[e] < 0) continue;
    ism_effect_defines(m, aa->a->effects[e], &value);
    if (!rat_eval(value, lookup, &before, &out->after[aa->defines[e]])) return false;
  }
  if (s->mode != ISM_MODE_NAIVE)
    for (size_t e = 0; e < aa->a->neffects; e++)
      if (aa->defines[e] < 0 && !is_true(&env, aa->a->effects[e])) return false;
  bool fired = false;
  if (aa->a->failure && !holds(&env, aa->a->failure, &fired)) return false;
  if (fired && !s->want_fail) return false;
  memcpy(s->cur + (aa->k + 1) * nv, s->cur + aa->k * nv, nv * sizeof *s->cur);
  bool first = fired && !aa->fired;
  return stage(s, aa->k + 1, out->after, aa->fired || fired, first ? (int)aa->k : aa->fail_position);
}

static bool action_stage(search_t *s, size_t k, int ordinal, const rat_t *U, bool fired, int fail_position) {
  const ism_model_t *m = s->m;
  size_t nv = m->nvars;
  const ism_action_t *a = &m->actions[s->rule->steps[k].action];
  extend_action_t *out = &s->io->actions[ordinal];
  const rat_t *cur = s->cur + k * nv;
  rat_t *normal = s->normal + k * nv;
  slot_t slots[MAX_SLOTS];
  int n = 0;
  bool actual = s->mode == ISM_MODE_ACTUAL, naive = s->mode == ISM_MODE_NAIVE, ok = true;
  for (size_t v = 0; v < nv && ok; v++) {
    const ism_var_t *var = &m->vars[v];
    out->has_actual[v] = false;
    out->before[v] = var->sensing ? U[v] : cur[v];
    out->after[v] = out->before[v];
    normal[v] = cur[v];
    if (!var->sensing && var->uncertain && actual && a->reads[v]) {
      ok = n < MAX_SLOTS && error_slot(s->p, &slots[n++], &out->actual[v], cur[v], (int)v, s->want_fail);
      out->has_actual[v] = true;
    }
  }
  bool *after_set = xcalloc(nv + 1, sizeof *after_set);
  int *defines = xcalloc(a->neffects + 1, sizeof *defines);
  for (size_t e = 0; e < a->neffects; e++) {
    const expr_t *value;
    int v = naive ? -1 : ism_effect_defines(m, a->effects[e], &value);
    defines[e] = v >= 0 && !after_set[v] ? v : -1;
    if (defines[e] >= 0) after_set[v] = true;
  }
  for (size_t v = 0; v < nv && ok; v++)
    if (m->vars[v].sensing && !after_set[v])
      if ((ok = n < MAX_SLOTS && value_slot(s->p, &slots[n], &out->after[v], (int)v)))
        prefer(&slots[n++], out->before[v], &m->vars[v]);
  action_arg_t arg = {k, ordinal, a, defines, fired, fail_position};
  bool found = ok && each_combination(s, slots, n, try_action, &arg);
  free(after_set);
  free(defines);
  return found;
}

static int ordinal_of(const ism_rule_t *rule, size_t k) {
  int n = 0;
  for (size_t j = 0; j < k; j++) n += rule->steps[j].kind == ISM_STEP_ACTION;
  return n;
}

static bool stage(search_t *s, size_t k, const rat_t *U, bool fired, int fail_position) {
  const ism_model_t *m = s->m;
  size_t nv = m->nvars;
  if (k == s->rule->nsteps) return end_stage(s, U, fired, fail_position);
  const ism_step_t *st = &s->rule->steps[k];
  if (st->kind == ISM_STEP_ACTION) return action_stage(s, k, ordinal_of(s->rule, k), U, fired, fail_position);
  rat_t *cur = s->cur + k * nv, *after = s->cur + (k + 1) * nv;
  memcpy(after, cur, nv * sizeof *cur);
  env_t env = {m, s->io->sensed, NULL, cur};
  if (!rat_eval(st->value, lookup, &env, &after[st->var])) return false;
  return stage(s, k + 1, U, fired, fail_position);
}

static bool try_sensing(search_t *s, void *arg) {
  (void)arg;
  const ism_model_t *m = s->m;
  env_t env = {m, s->io->sensed, NULL, s->io->now};
  if (!is_true(&env, s->rule->when)) return false;
  if (m->selection == ISM_SELECT_FIRST)
    for (const int *o = m->rules_from[s->rule->from]; *o != s->rule_id; o++) {
      bool v;
      if (!holds(&env, m->rules[*o].when, &v) || v) return false;
    }
  memcpy(s->cur, s->io->now, m->nvars * sizeof *s->cur);
  return stage(s, 0, s->io->now, false, -1);
}

bool extend_step(const extend_prep_t *p, ism_mode_t mode, int rule, bool want_fail, int budget,
                 extend_step_t *io) {
  const ism_model_t *m = p->m;
  const ism_rule_t *r = &m->rules[rule];
  size_t nv = m->nvars;
  slot_t slots[MAX_SLOTS];
  int n = 0;
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    io->sensed[v] = io->now[v];
    if (var->sensing && !in_range(p, (int)v, io->now[v])) return false;
    if (var->sensing && var->uncertain && mode == ISM_MODE_ACTUAL) {
      if (n == MAX_SLOTS || !error_slot(p, &slots[n++], &io->sensed[v], io->now[v], (int)v, want_fail))
        return false;
    }
  }
  search_t s = {p,
                m,
                mode,
                r,
                rule,
                want_fail,
                budget,
                io,
                xcalloc((r->nsteps + 1) * nv + 1, sizeof(rat_t)),
                xcalloc(r->nsteps * nv + 1, sizeof(rat_t))};
  bool found = each_combination(&s, slots, n, try_sensing, NULL);
  free(s.cur), free(s.normal);
  return found;
}
