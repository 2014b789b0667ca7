#include "probability/simulate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_vector.h>

#include "ism/alloc.h"
#include "probability/condition.h"

typedef struct {
  const ism_model_t *m;
  const double *now, *next, *normal;
} env_t;

/* One execution in progress; arrays indexed by variable id. */
typedef struct {
  const ism_model_t *m;
  explore_mode_t mode;
  size_t nv;
  double *T, *H, *N;        /* true, sensed, the app's normal values at the sensing */
  double *U, *cur;          /* true sensing values and the app's normal values inside the rule */
  double *after, *actual;   /* of the action being executed */
  double *err;              /* actuation errors of the action being executed */
} exec_t;

static value_t lookup(void *ctx, int id, bool primed) {
  const env_t *env = ctx;
  double d = env->m->vars[id].sensing ? (primed ? env->next[id] : env->now[id]) : env->normal[id];
  return (value_t){(long long)llround(d), d};
}

static bool eval_bool(const ism_model_t *m, const expr_t *e, const double *now, const double *next,
                      const double *normal) {
  env_t env = {m, now, next, normal};
  bool err = false;
  bool v = expr_eval_bool(e, lookup, &env, &err);
  return v && !err;
}

static void exec_init(exec_t *x, const ism_model_t *m, explore_mode_t mode) {
  size_t n = m->nvars + 1;
  *x = (exec_t){m, mode, m->nvars, xcalloc(n, sizeof(double)), xcalloc(n, sizeof(double)),
                xcalloc(n, sizeof(double)), xcalloc(n, sizeof(double)), xcalloc(n, sizeof(double)),
                xcalloc(n, sizeof(double)), xcalloc(n, sizeof(double)), xcalloc(n, sizeof(double))};
}

static void exec_free(exec_t *x) {
  free(x->T), free(x->H), free(x->N), free(x->U), free(x->cur), free(x->after), free(x->actual), free(x->err);
}

/* The variable an effect `v' == expr` (either way round) defines, or -1. */
static int defined_var(const ism_model_t *m, const expr_t *e, const expr_t **rhs) {
  if (e->kind != EXPR_EQ) return -1;
  for (int side = 0; side < 2; side++) {
    const expr_t *l = side ? e->u.op.b : e->u.op.a, *r = side ? e->u.op.a : e->u.op.b;
    if (l->kind == EXPR_VAR && l->u.var.primed && m->vars[l->u.var.id].sensing) {
      *rhs = r;
      return l->u.var.id;
    }
  }
  return -1;
}

/* Executes an action from x->U, x->cur with actuation errors x->err; the
 * sensing values no effect defines come from `fallback` (or stay). Leaves
 * the values after it in x->U; returns whether its failure holds. */
static bool exec_action(exec_t *x, int action, const double *fallback) {
  const ism_model_t *m = x->m;
  const ism_action_t *a = &m->actions[action];
  for (size_t v = 0; v < x->nv; v++) {
    const ism_var_t *var = &m->vars[v];
    bool actuated = !var->sensing && var->uncertain && a->reads[v] && x->mode == EXPLORE_ACTUAL;
    x->actual[v] = actuated ? x->cur[v] + x->err[v] : x->cur[v];
    x->after[v] = var->sensing ? (fallback ? fallback[v] : x->U[v]) : x->cur[v];
  }
  if (x->mode != EXPLORE_NAIVE)
    for (int pass = 0; pass < 2; pass++)
      for (size_t k = 0; k < a->neffects; k++) {
        const expr_t *rhs = NULL;
        int v = defined_var(m, a->effects[k], &rhs);
        if (v < 0) continue;
        env_t env = {m, x->U, x->after, x->actual};
        bool err = false;
        double d = expr_eval_real(rhs, lookup, &env, &err);
        if (!err) x->after[v] = d;
      }
  bool failed = a->failure && eval_bool(m, a->failure, x->U, x->after, x->actual);
  for (size_t v = 0; v < x->nv; v++)
    if (m->vars[v].sensing) x->U[v] = x->after[v];
  return failed;
}

/* The true values at the next sensing, after rule r at step k. */
static void next_truth(exec_t *x, const cex_t *c, int k, int r) {
  const ism_model_t *m = x->m;
  for (size_t v = 0; v < x->nv; v++) {
    const ism_var_t *var = &m->vars[v];
    if (!var->sensing) x->T[v] = x->cur[v];
    else if (m->rules[r].has_action) x->T[v] = x->U[v];
    else if (var->dynamic || x->mode == EXPLORE_NAIVE) x->T[v] = c->truth[(size_t)(k + 1) * x->nv + v];
  }
  memcpy(x->N, x->cur, x->nv * sizeof *x->N);
}

static const cex_action_t *find_action(const cex_t *c, int step, int position, size_t *index) {
  for (size_t j = 0; j < c->nactions; j++)
    if (c->actions[j].step == step && c->actions[j].position == position) {
      if (index) *index = j;
      return &c->actions[j];
    }
  return NULL;
}

static int choose_rule(exec_t *x, int state, dist_rng_t *rng) {
  const ism_model_t *m = x->m;
  int enabled[64], n = 0, total = 0;
  for (const int *r = m->rules_from[state]; *r >= 0; r++) {
    if (!eval_bool(m, m->rules[*r].when, x->H, NULL, x->N)) continue;
    if (m->selection == ISM_SELECT_FIRST) return *r;
    if (n < 64) enabled[n++] = *r;
    total++;
  }
  if (total == 0) return -1;
  if (total > n) return -2; /* more than 64 enabled rules: not supported, counted as deviating */
  return enabled[(int)(dist_rng_uniform(rng) * n) % n];
}

sim_outcome_t sim_run(const ism_model_t *m, explore_mode_t mode, const cex_t *c, dist_rng_t *rng) {
  exec_t x;
  exec_init(&x, m, mode);
  size_t nv = x.nv;
  memcpy(x.T, c->truth, nv * sizeof *x.T);
  memcpy(x.N, c->truth, nv * sizeof *x.N);
  sim_outcome_t out = SIM_NO_FAILURE;
  for (int k = 0; k < c->length; k++) {
    for (size_t v = 0; v < nv; v++) {
      const ism_var_t *var = &m->vars[v];
      dist_t d;
      bool noisy = var->sensing && var->uncertain && mode == EXPLORE_ACTUAL && dist_of_var(var, &d);
      x.H[v] = var->sensing ? x.T[v] + (noisy ? dist_sample(&d, rng) : 0) : x.N[v];
    }
    int r = choose_rule(&x, c->states[k], rng);
    if (r != c->rules[k]) {
      out = SIM_DEVIATED;
      break;
    }
    const ism_rule_t *rule = &m->rules[r];
    memcpy(x.U, x.T, nv * sizeof *x.U);
    memcpy(x.cur, x.N, nv * sizeof *x.cur);
    int first_fail = -2; /* do: position of the first failing action; -2 none */
    for (size_t p = 0; p < rule->nsteps; p++) {
      const ism_step_t *st = &rule->steps[p];
      if (st->kind == ISM_STEP_ASSIGN) {
        env_t env = {m, x.H, NULL, x.cur};
        x.cur[st->var] = expr_eval_real(st->value, lookup, &env, NULL);
        continue;
      }
      for (size_t v = 0; v < nv; v++) {
        dist_t d;
        x.err[v] = !m->vars[v].sensing && m->vars[v].uncertain && dist_of_var(&m->vars[v], &d) ? dist_sample(&d, rng) : 0;
      }
      const cex_action_t *ca = find_action(c, k, (int)p, NULL);
      if (exec_action(&x, st->action, ca ? ca->after : NULL) && first_fail == -2) first_fail = (int)p;
    }
    next_truth(&x, c, k, r);
    bool global = m->failure && eval_bool(m, m->failure, x.T, NULL, x.N);
    if (first_fail != -2 || global) {
      if (k + 1 < c->length) out = SIM_EARLY_FAILURE;
      else out = (c->fail_position >= 0 ? first_fail == c->fail_position : first_fail == -2) ? SIM_SAME_FAILURE
                                                                                             : SIM_OTHER_FAILURE;
      break;
    }
  }
  exec_free(&x);
  return out;
}

void sim_counterexample(const ism_model_t *m, explore_mode_t mode, const cex_t *c, unsigned long runs,
                        unsigned long seed, sim_stats_t *out) {
  memset(out, 0, sizeof *out);
  dist_rng_t *rng = dist_rng_new(seed);
  for (unsigned long k = 0; k < runs; k++) out->outcomes[sim_run(m, mode, c, rng)]++;
  dist_rng_delete(rng);
  out->runs = runs;
  unsigned long same = out->outcomes[SIM_SAME_FAILURE];
  out->frequency = runs ? (double)same / (double)runs : 0;
  dist_clopper_pearson(same, runs, 0.95, &out->ci_lo, &out->ci_hi);
}

struct sim_ctx {
  const ism_model_t *m;
  explore_mode_t mode;
  exec_t x;
  double *e;          /* [nvars]: sensing errors of the step being rebuilt */
  dist_t *dists;      /* [nvars]: valid where sensed_error[v] */
  bool *sensed_error; /* [nvars]: an uncertain sensing variable with a distribution, mode actual */
  cond_prep_t **rules; /* [nrules]: created on first use */
};

sim_ctx_t *sim_ctx_new(const ism_model_t *m, explore_mode_t mode) {
  sim_ctx_t *s = xcalloc(1, sizeof *s);
  s->m = m, s->mode = mode;
  exec_init(&s->x, m, mode);
  s->e = xcalloc(m->nvars + 1, sizeof *s->e);
  s->dists = xcalloc(m->nvars + 1, sizeof *s->dists);
  s->sensed_error = xcalloc(m->nvars + 1, sizeof *s->sensed_error);
  s->rules = xcalloc(m->nrules + 1, sizeof *s->rules);
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    s->sensed_error[v] = var->sensing && var->uncertain && mode == EXPLORE_ACTUAL && dist_of_var(var, &s->dists[v]);
  }
  return s;
}

void sim_ctx_delete(sim_ctx_t *s) {
  if (!s) return;
  for (size_t r = 0; r < s->m->nrules; r++) cond_prep_delete(s->rules[r]);
  exec_free(&s->x);
  free(s->e), free(s->dists), free(s->sensed_error), free(s->rules);
  free(s);
}

cond_prep_t *sim_ctx_rule(sim_ctx_t *s, int rule) {
  if (!s->rules[rule]) s->rules[rule] = cond_prep_rule(s->m, rule, s->mode == EXPLORE_ACTUAL);
  return s->rules[rule];
}

/* Sensed values at step k: the most likely errors that keep the rule chosen. */
static bool choose_sensed(sim_ctx_t *s, const cex_t *c, int k) {
  exec_t *x = &s->x;
  const ism_model_t *m = x->m;
  for (size_t v = 0; v < x->nv; v++) x->T[v] = m->vars[v].sensing ? x->T[v] : x->N[v];
  bool ok = cond_prep_likely_point(sim_ctx_rule(s, c->rules[k]), x->T, s->e);
  for (size_t v = 0; v < x->nv; v++) {
    const ism_var_t *var = &m->vars[v];
    x->H[v] = var->sensing ? x->T[v] + (var->uncertain && x->mode == EXPLORE_ACTUAL ? s->e[v] : 0) : x->N[v];
  }
  return ok;
}

/* The starting sensing errors of step k: c's, or the mode where c's lies outside the range. */
static void start_errors(sim_ctx_t *s, const double *row, const double *sensed) {
  for (size_t v = 0; v < s->x.nv; v++) {
    const dist_t *d = &s->dists[v];
    s->e[v] = s->sensed_error[v] ? sensed[v] - row[v] : 0;
    if (s->sensed_error[v] && (s->e[v] < d->lo || s->e[v] > d->hi)) s->e[v] = dist_mode(d);
  }
}

bool sim_rebuild(const ism_model_t *m, explore_mode_t mode, cex_t *c, const double *act_err) {
  sim_ctx_t *s = sim_ctx_new(m, mode);
  bool ok = sim_rebuild_in(s, c, act_err);
  sim_ctx_delete(s);
  return ok;
}

bool sim_rebuild_in(sim_ctx_t *s, cex_t *c, const double *act_err) {
  const ism_model_t *m = s->m;
  exec_t *x = &s->x;
  size_t nv = x->nv;
  memcpy(x->T, c->truth, nv * sizeof *x->T);
  memcpy(x->N, c->truth, nv * sizeof *x->N);
  bool ok = true;
  for (int k = 0; k < c->length && ok; k++) {
    double *row = c->truth + (size_t)k * nv, *sensed = c->sensed + (size_t)k * nv;
    start_errors(s, row, sensed);
    ok = choose_sensed(s, c, k);
    memcpy(row, x->T, nv * sizeof *row);
    memcpy(sensed, x->H, nv * sizeof *sensed);
    const ism_rule_t *rule = &m->rules[c->rules[k]];
    memcpy(x->U, x->T, nv * sizeof *x->U);
    memcpy(x->cur, x->N, nv * sizeof *x->cur);
    int first_fail = -2;
    for (size_t p = 0; p < rule->nsteps && ok; p++) {
      const ism_step_t *st = &rule->steps[p];
      if (st->kind == ISM_STEP_ASSIGN) {
        env_t env = {m, x->H, NULL, x->cur};
        x->cur[st->var] = expr_eval_real(st->value, lookup, &env, NULL);
        continue;
      }
      size_t ai = 0;
      cex_action_t *ca = (cex_action_t *)find_action(c, k, (int)p, &ai);
      if (!ca) {
        ok = false;
        break;
      }
      for (size_t v = 0; v < nv; v++) x->err[v] = ca->has_actual[v] ? act_err[ai * nv + v] : 0;
      for (size_t v = 0; v < nv; v++) ca->before[v] = m->vars[v].sensing ? x->U[v] : x->cur[v];
      if (exec_action(x, st->action, ca->after) && first_fail == -2) first_fail = (int)p;
      for (size_t v = 0; v < nv; v++) {
        ca->after[v] = m->vars[v].sensing ? x->after[v] : x->cur[v];
        if (ca->has_actual[v]) ca->actual[v] = x->actual[v];
      }
    }
    next_truth(x, c, k, c->rules[k]);
    bool global = m->failure && eval_bool(m, m->failure, x->T, NULL, x->N);
    bool failed = first_fail != -2 || global;
    if (k + 1 < c->length) ok &= !failed; /* exactly, not just within the re-check's tolerance */
    else ok &= c->fail_position >= 0 ? first_fail == c->fail_position : first_fail == -2 && global;
  }
  if (ok) memcpy(c->truth + (size_t)c->length * nv, x->T, nv * sizeof *x->T);
  return ok;
}

double sim_rank_correlation(const double *a, const double *b, size_t n) {
  dist_gsl_quiet();
  if (n < 2) return NAN;
  bool a_const = true, b_const = true;
  for (size_t k = 1; k < n; k++) a_const &= a[k] == a[0], b_const &= b[k] == b[0];
  if (a_const || b_const) return NAN;
  double *work = xmalloc(2 * n * sizeof *work);
  double r = gsl_stats_spearman(a, 1, b, 1, n, work);
  free(work);
  return r;
}
