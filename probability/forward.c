#include "probability/forward.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/stop.h"
#include "probability/dist.h"

static const char *const outcome_names[FWD_OUTCOMES] = {"same_failure",  "deviated",   "early_failure",
                                                        "other_failure", "no_failure", "infeasible"};

const char *fwd_outcome_name(fwd_outcome_t o) { return outcome_names[o]; }

/* What one run reads: sensing variables from now (unprimed) and next
 * (primed), normal variables from normal. */
typedef struct {
  const ism_model_t *m;
  const double *now, *next, *normal;
} frame_t;

static value_t read_var(void *ctx, int id, bool primed) {
  const frame_t *f = ctx;
  const ism_var_t *var = &f->m->vars[id];
  double d = var->sensing ? (primed ? f->next[id] : f->now[id]) : f->normal[id];
  return (value_t){var->type.kind == TYPE_REAL ? 0 : (long long)llround(d), d};
}

static bool truth_of(const ism_model_t *m, const expr_t *e, const double *now, const double *next,
                     const double *normal) {
  frame_t f = {m, now, next, normal};
  bool err = false;
  bool v = expr_eval_bool(e, read_var, &f, &err);
  return v && !err;
}

/* One run in progress; arrays indexed by variable id. */
typedef struct {
  const ism_model_t *m;
  const cex_t *c;
  dist_rng_t *rng;
  const dist_t *dists;    /* [nvars] */
  const bool *has_dist;   /* [nvars] */
  double *truth, *sensed; /* at the sensing */
  double *env, *normal;   /* true values and the app's values while the rule runs */
  double *after, *actual; /* of the action being executed */
} run_t;

static const cex_action_t *env_action(const cex_t *c, int step, int position) {
  for (size_t j = 0; j < c->nactions; j++)
    if (c->actions[j].step == step && c->actions[j].position == position) return &c->actions[j];
  return NULL;
}

/* Executes one action; returns -1 if an effect constraint fails, 1 if its
 * failure holds, else 0. */
static int act(run_t *r, int step, int position, int action) {
  const ism_model_t *m = r->m;
  const ism_action_t *a = &m->actions[action];
  const cex_action_t *given = env_action(r->c, step, position);
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    r->actual[v] = r->normal[v];
    if (!var->sensing && r->has_dist[v] && a->reads[v]) r->actual[v] += dist_sample(&r->dists[v], r->rng);
    r->after[v] = var->sensing && given ? given->after[v] : r->env[v];
  }
  frame_t f = {m, r->env, r->after, r->actual};
  bool *defining = xcalloc(a->neffects + 1, sizeof *defining);
  for (size_t k = 0; k < a->neffects; k++) {
    const expr_t *rhs = NULL;
    int v = ism_effect_defines(m, a->effects[k], &rhs);
    if (v < 0) continue;
    bool err = false;
    double d = m->vars[v].type.kind == TYPE_REAL ? expr_eval_real(rhs, read_var, &f, &err)
                                                 : (double)expr_eval(rhs, read_var, &f, &err).i;
    r->after[v] = d;
    defining[k] = !err;
  }
  int result = 0;
  for (size_t k = 0; k < a->neffects && result == 0; k++)
    if (!defining[k] && !truth_of(m, a->effects[k], r->env, r->after, r->actual)) result = -1;
  free(defining);
  if (result == 0 && a->failure && truth_of(m, a->failure, r->env, r->after, r->actual)) result = 1;
  for (size_t v = 0; v < m->nvars; v++)
    if (m->vars[v].sensing) r->env[v] = r->after[v];
  return result;
}

static bool in_range(const ism_model_t *m, const double *truth) {
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    if (var->sensing && var->has_range && !(truth[v] >= var->range_lo && truth[v] <= var->range_hi))
      return false;
  }
  return true;
}

static int pick_rule(run_t *r, int state) {
  const ism_model_t *m = r->m;
  int n = 0, chosen = -1;
  for (const int *q = m->rules_from[state]; *q >= 0; q++) {
    if (!truth_of(m, m->rules[*q].when, r->sensed, NULL, r->normal)) continue;
    if (m->selection == ISM_SELECT_FIRST) return *q;
    /* uniform among the enabled ones, one draw per enabled rule (reservoir sampling) */
    n++;
    if (dist_rng_uniform(r->rng) * n < 1) chosen = *q;
  }
  return chosen;
}

/* Runs the rule at step k; returns the do: position of the first failing
 * action, -1 if none failed, -2 if an effect constraint failed or a value
 * divides by 0. */
static int run_rule(run_t *r, int k, const ism_rule_t *rule) {
  const ism_model_t *m = r->m;
  memcpy(r->env, r->truth, m->nvars * sizeof *r->env);
  for (size_t p = 0; p < rule->nsteps; p++) {
    const ism_step_t *st = &rule->steps[p];
    if (st->kind == ISM_STEP_ASSIGN) {
      frame_t f = {m, r->sensed, NULL, r->normal};
      bool err = false;
      r->normal[st->var] = m->vars[st->var].type.kind == TYPE_REAL
                               ? expr_eval_real(st->value, read_var, &f, &err)
                               : (double)expr_eval(st->value, read_var, &f, &err).i;
      if (err)
        return -2; /* the app divides by 0: the run goes no further (the search's paths do not either) */
      continue;
    }
    int res = act(r, k, (int)p, st->action);
    if (res < 0) return -2;
    if (res > 0) return (int)p;
  }
  return -1;
}

static fwd_outcome_t run_once(run_t *r) {
  const ism_model_t *m = r->m;
  const cex_t *c = r->c;
  size_t nv = m->nvars;
  memcpy(r->truth, c->truth, nv * sizeof *r->truth);
  memcpy(r->normal, c->truth, nv * sizeof *r->normal);
  for (size_t k = 0; k < m->nassume; k++)
    if (!truth_of(m, m->assume[k], r->truth, NULL, r->normal)) return FWD_INFEASIBLE;
  for (int k = 0; k < c->length; k++) {
    if (!in_range(m, r->truth)) return FWD_INFEASIBLE;
    for (size_t v = 0; v < nv; v++) {
      const ism_var_t *var = &m->vars[v];
      r->sensed[v] = !var->sensing ? r->normal[v]
                                   : r->truth[v] + (r->has_dist[v] ? dist_sample(&r->dists[v], r->rng) : 0);
    }
    int rule = pick_rule(r, c->states[k]);
    if (rule != c->rules[k]) return FWD_DEVIATED;
    const ism_rule_t *ru = &m->rules[rule];
    int failed_at = run_rule(r, k, ru);
    if (failed_at == -2) return FWD_INFEASIBLE;
    for (size_t v = 0; v < nv; v++) {
      if (!m->vars[v].sensing) continue;
      if (ru->has_action)
        r->truth[v] = r->env[v];
      else if (m->vars[v].dynamic)
        r->truth[v] = c->truth[(size_t)(k + 1) * nv + v];
    }
    bool global = failed_at < 0 && m->failure && truth_of(m, m->failure, r->truth, NULL, r->normal);
    if (failed_at < 0 && !global) continue;
    if (k + 1 < c->length) return FWD_EARLY_FAILURE;
    return failed_at == c->fail_position ? FWD_SAME_FAILURE : FWD_OTHER_FAILURE;
  }
  return FWD_NO_FAILURE;
}

void fwd_counterexample(const ism_model_t *m, const cex_t *c, unsigned long runs, unsigned long seed,
                        fwd_stats_t *out) {
  size_t n = m->nvars + 1;
  dist_t *dists = xcalloc(n, sizeof *dists);
  bool *has_dist = xcalloc(n, sizeof *has_dist);
  for (size_t v = 0; v < m->nvars; v++)
    has_dist[v] = m->vars[v].uncertain && dist_of_var(&m->vars[v], &dists[v]);
  run_t r = {m,
             c,
             dist_rng_new(seed),
             dists,
             has_dist,
             xcalloc(n, sizeof(double)),
             xcalloc(n, sizeof(double)),
             xcalloc(n, sizeof(double)),
             xcalloc(n, sizeof(double)),
             xcalloc(n, sizeof(double)),
             xcalloc(n, sizeof(double))};
  memset(out, 0, sizeof *out);
  unsigned long k = 0;
  for (; k < runs && ((k & 1023) || !stop_requested()); k++) out->outcomes[run_once(&r)]++;
  runs = out->runs = k;
  unsigned long same = out->outcomes[FWD_SAME_FAILURE];
  out->frequency = runs ? (double)same / (double)runs : 0;
  dist_clopper_pearson(same, runs, 0.95, &out->ci_lo, &out->ci_hi);
  dist_rng_delete(r.rng);
  free(r.truth), free(r.sensed), free(r.env), free(r.normal), free(r.after), free(r.actual);
  free(dists), free(has_dist);
}
