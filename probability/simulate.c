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

/* An action prepared for execution. */
typedef struct {
  int *defines;       /* [ndefs]: the sensing variable of each effect v' == rhs, in effect order */
  const expr_t **rhs; /* [ndefs] */
  size_t ndefs;
  bool reads_next;    /* some rhs reads a primed variable: the effects see each other, two passes */
  int *actuated;      /* [nactuated]: the variables it applies an actuation error to (mode actual) */
  size_t nactuated;
} action_prep_t;

/* One execution in progress; arrays indexed by variable id. */
typedef struct {
  const ism_model_t *m;
  ism_mode_t mode;
  size_t nv;
  const action_prep_t *actions; /* [nactions], borrowed from the sim_ctx_t */
  const bool *sensing;          /* [nvars]: m->vars[v].sensing, packed for the loops over variables */
  double *T, *H, *N;        /* true, sensed, the app's normal values at the sensing */
  double *U, *cur;          /* true sensing values and the app's normal values inside the rule */
  double *after, *actual;   /* of the action being executed */
  double *err;              /* actuation errors of the action being executed */
} exec_t;

struct sim_ctx {
  const ism_model_t *m;
  ism_mode_t mode;
  exec_t x;
  action_prep_t *actions; /* [nactions] */
  bool *sensing;          /* [nvars]: m->vars[v].sensing */
  dist_t *dists;          /* [nvars]: valid where has_dist */
  bool *has_dist;         /* [nvars]: uncertain, and its distribution can be normalised */
  bool *sensed_error;     /* [nvars]: has_dist, sensing, mode actual */
  double *e;              /* [nvars]: sensing errors of the step being rebuilt */
  cond_prep_t **rules;    /* [nrules]: created on first use */
};

/* ints, bools and enums are stored as doubles; a real's integer part is never read. */
static value_t lookup(void *ctx, int id, bool primed) {
  const env_t *env = ctx;
  const ism_var_t *var = &env->m->vars[id];
  double d = var->sensing ? (primed ? env->next[id] : env->now[id]) : env->normal[id];
  return (value_t){var->type.kind == TYPE_REAL ? 0 : (long long)llround(d), d};
}

static bool eval_bool(const ism_model_t *m, const expr_t *e, const double *now, const double *next,
                      const double *normal) {
  env_t env = {m, now, next, normal};
  bool err = false;
  bool v = expr_eval_bool(e, lookup, &env, &err);
  return v && !err;
}

/* A real variable or literal, read as eval reads it. */
static bool leaf_real(const expr_t *e, void *env, double *out) {
  if (e->type.kind != TYPE_REAL || (e->kind != EXPR_VAR && e->kind != EXPR_REAL)) return false;
  *out = e->kind == EXPR_REAL ? e->u.real.value : lookup(env, e->u.var.id, e->u.var.primed).r;
  return true;
}

/* expr_eval_real, with the usual shapes of an effect's right-hand side (a
 * real variable or literal, or the sum or difference of two) computed
 * here by the same floating-point operation eval performs. */
static double eval_real(const expr_t *e, env_t *env, bool *err) {
  double a, b;
  if (leaf_real(e, env, &a)) return a;
  bool sum = e->kind == EXPR_ADD || e->kind == EXPR_SUB;
  if (sum && e->type.kind == TYPE_REAL && leaf_real(e->u.op.a, env, &a) && leaf_real(e->u.op.b, env, &b))
    return e->kind == EXPR_ADD ? a + b : a - b;
  return expr_eval_real(e, lookup, env, err);
}

static void exec_init(exec_t *x, const ism_model_t *m, ism_mode_t mode, const action_prep_t *actions,
                      const bool *sensing) {
  size_t n = m->nvars + 1;
  *x = (exec_t){m, mode, m->nvars, actions, sensing, xcalloc(n, sizeof(double)), xcalloc(n, sizeof(double)),
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

static void mark_primed(void *p, const expr_t *var) { *(bool *)p |= var->u.var.primed; }

static void action_prep_init(action_prep_t *ap, const ism_model_t *m, ism_mode_t mode, const ism_action_t *a) {
  memset(ap, 0, sizeof *ap);
  ap->defines = xmalloc((a->neffects + 1) * sizeof *ap->defines);
  ap->rhs = xmalloc((a->neffects + 1) * sizeof *ap->rhs);
  for (size_t k = 0; k < a->neffects; k++) {
    const expr_t *rhs = NULL;
    int v = defined_var(m, a->effects[k], &rhs);
    if (v < 0) continue;
    ap->defines[ap->ndefs] = v, ap->rhs[ap->ndefs++] = rhs;
    expr_visit_vars(rhs, mark_primed, &ap->reads_next);
  }
  ap->actuated = xmalloc((m->nvars + 1) * sizeof *ap->actuated);
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    if (!var->sensing && var->uncertain && a->reads[v] && mode == ISM_MODE_ACTUAL) ap->actuated[ap->nactuated++] = (int)v;
  }
}

static void action_prep_free(action_prep_t *ap) { free(ap->defines), free(ap->rhs), free(ap->actuated); }

/* Executes an action from x->U, x->cur with actuation errors x->err; the
 * sensing values no effect defines come from `fallback` (or stay). Leaves
 * the values after it in x->U; returns whether its failure holds. */
static bool exec_action(exec_t *x, int action, const double *fallback) {
  const ism_model_t *m = x->m;
  const ism_action_t *a = &m->actions[action];
  const action_prep_t *ap = &x->actions[action];
  for (size_t v = 0; v < x->nv; v++) {
    x->actual[v] = x->cur[v];
    x->after[v] = x->sensing[v] ? (fallback ? fallback[v] : x->U[v]) : x->cur[v];
  }
  for (size_t k = 0; k < ap->nactuated; k++) x->actual[ap->actuated[k]] = x->cur[ap->actuated[k]] + x->err[ap->actuated[k]];
  /* Without primed reads a second pass would compute the same values again. */
  int passes = x->mode == ISM_MODE_NAIVE ? 0 : ap->reads_next ? 2 : 1;
  env_t env = {m, x->U, x->after, x->actual};
  for (int pass = 0; pass < passes; pass++)
    for (size_t k = 0; k < ap->ndefs; k++) {
      bool err = false;
      double d = eval_real(ap->rhs[k], &env, &err);
      if (!err) x->after[ap->defines[k]] = d;
    }
  bool failed = a->failure && eval_bool(m, a->failure, x->U, x->after, x->actual);
  for (size_t v = 0; v < x->nv; v++)
    if (x->sensing[v]) x->U[v] = x->after[v];
  return failed;
}

sim_ctx_t *sim_ctx_new(const ism_model_t *m, ism_mode_t mode) {
  sim_ctx_t *s = xcalloc(1, sizeof *s);
  s->m = m, s->mode = mode;
  s->actions = xcalloc(m->nactions + 1, sizeof *s->actions);
  for (size_t a = 0; a < m->nactions; a++) action_prep_init(&s->actions[a], m, mode, &m->actions[a]);
  s->sensing = xcalloc(m->nvars + 1, sizeof *s->sensing);
  for (size_t v = 0; v < m->nvars; v++) s->sensing[v] = m->vars[v].sensing;
  exec_init(&s->x, m, mode, s->actions, s->sensing);
  s->e = xcalloc(m->nvars + 1, sizeof *s->e);
  s->dists = xcalloc(m->nvars + 1, sizeof *s->dists);
  s->has_dist = xcalloc(m->nvars + 1, sizeof *s->has_dist);
  s->sensed_error = xcalloc(m->nvars + 1, sizeof *s->sensed_error);
  s->rules = xcalloc(m->nrules + 1, sizeof *s->rules);
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    s->has_dist[v] = var->uncertain && dist_of_var(var, &s->dists[v]);
    s->sensed_error[v] = s->has_dist[v] && var->sensing && mode == ISM_MODE_ACTUAL;
  }
  return s;
}

void sim_ctx_delete(sim_ctx_t *s) {
  if (!s) return;
  for (size_t r = 0; r < s->m->nrules; r++) cond_prep_delete(s->rules[r]);
  for (size_t a = 0; a < s->m->nactions; a++) action_prep_free(&s->actions[a]);
  exec_free(&s->x);
  free(s->actions), free(s->sensing), free(s->e), free(s->dists), free(s->has_dist), free(s->sensed_error), free(s->rules);
  free(s);
}

cond_prep_t *sim_ctx_rule(sim_ctx_t *s, int rule) {
  if (!s->rules[rule]) s->rules[rule] = cond_prep_rule(s->m, rule, s->mode == ISM_MODE_ACTUAL);
  return s->rules[rule];
}

/* The true values at the next sensing, after rule r at step k. */
static void next_truth(exec_t *x, const cex_t *c, int k, int r) {
  const ism_model_t *m = x->m;
  for (size_t v = 0; v < x->nv; v++) {
    const ism_var_t *var = &m->vars[v];
    if (!var->sensing) x->T[v] = x->cur[v];
    else if (m->rules[r].has_action) x->T[v] = x->U[v];
    else if (var->dynamic || x->mode == ISM_MODE_NAIVE) x->T[v] = c->truth[(size_t)(k + 1) * x->nv + v];
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

/* Runs the rule's steps from x->T, x->N (sensed x->H); actuation errors
 * drawn from rng. Returns the position of the first failing action, or -2. */
static int run_steps(sim_ctx_t *s, const cex_t *c, int k, const ism_rule_t *rule, dist_rng_t *rng) {
  exec_t *x = &s->x;
  const ism_model_t *m = s->m;
  memcpy(x->U, x->T, x->nv * sizeof *x->U);
  memcpy(x->cur, x->N, x->nv * sizeof *x->cur);
  int first_fail = -2;
  for (size_t p = 0; p < rule->nsteps; p++) {
    const ism_step_t *st = &rule->steps[p];
    if (st->kind == ISM_STEP_ASSIGN) {
      env_t env = {m, x->H, NULL, x->cur};
      x->cur[st->var] = expr_eval_real(st->value, lookup, &env, NULL);
      continue;
    }
    for (size_t v = 0; v < x->nv; v++)
      x->err[v] = !m->vars[v].sensing && s->has_dist[v] ? dist_sample(&s->dists[v], rng) : 0;
    const cex_action_t *ca = find_action(c, k, (int)p, NULL);
    if (exec_action(x, st->action, ca ? ca->after : NULL) && first_fail == -2) first_fail = (int)p;
  }
  return first_fail;
}

static sim_outcome_t run_in(sim_ctx_t *s, const cex_t *c, dist_rng_t *rng) {
  exec_t *x = &s->x;
  const ism_model_t *m = s->m;
  size_t nv = x->nv;
  memcpy(x->T, c->truth, nv * sizeof *x->T);
  memcpy(x->N, c->truth, nv * sizeof *x->N);
  for (int k = 0; k < c->length; k++) {
    for (size_t v = 0; v < nv; v++)
      x->H[v] = m->vars[v].sensing ? x->T[v] + (s->sensed_error[v] ? dist_sample(&s->dists[v], rng) : 0) : x->N[v];
    int r = choose_rule(x, c->states[k], rng);
    if (r != c->rules[k]) return SIM_DEVIATED;
    int first_fail = run_steps(s, c, k, &m->rules[r], rng);
    next_truth(x, c, k, r);
    bool global = m->failure && eval_bool(m, m->failure, x->T, NULL, x->N);
    if (first_fail == -2 && !global) continue;
    if (k + 1 < c->length) return SIM_EARLY_FAILURE;
    bool same = c->fail_position >= 0 ? first_fail == c->fail_position : first_fail == -2;
    return same ? SIM_SAME_FAILURE : SIM_OTHER_FAILURE;
  }
  return SIM_NO_FAILURE;
}

sim_outcome_t sim_run(const ism_model_t *m, ism_mode_t mode, const cex_t *c, dist_rng_t *rng) {
  sim_ctx_t *s = sim_ctx_new(m, mode);
  sim_outcome_t out = run_in(s, c, rng);
  sim_ctx_delete(s);
  return out;
}

void sim_counterexample(const ism_model_t *m, ism_mode_t mode, const cex_t *c, unsigned long runs,
                        unsigned long seed, sim_stats_t *out) {
  memset(out, 0, sizeof *out);
  sim_ctx_t *s = sim_ctx_new(m, mode);
  dist_rng_t *rng = dist_rng_new(seed);
  for (unsigned long k = 0; k < runs; k++) out->outcomes[run_in(s, c, rng)]++;
  dist_rng_delete(rng);
  sim_ctx_delete(s);
  out->runs = runs;
  unsigned long same = out->outcomes[SIM_SAME_FAILURE];
  out->frequency = runs ? (double)same / (double)runs : 0;
  dist_clopper_pearson(same, runs, 0.95, &out->ci_lo, &out->ci_hi);
}

/* Sensed values at step k: the most likely errors that keep the rule chosen. */
static bool choose_sensed(sim_ctx_t *s, const cex_t *c, int k) {
  exec_t *x = &s->x;
  const ism_model_t *m = x->m;
  for (size_t v = 0; v < x->nv; v++) x->T[v] = x->sensing[v] ? x->T[v] : x->N[v];
  bool ok = cond_prep_likely_point(sim_ctx_rule(s, c->rules[k]), x->T, s->e);
  for (size_t v = 0; v < x->nv; v++) {
    const ism_var_t *var = &m->vars[v];
    x->H[v] = var->sensing ? x->T[v] + (var->uncertain && x->mode == ISM_MODE_ACTUAL ? s->e[v] : 0) : x->N[v];
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

bool sim_rebuild(const ism_model_t *m, ism_mode_t mode, cex_t *c, const double *act_err) {
  sim_ctx_t *s = sim_ctx_new(m, mode);
  bool ok = sim_rebuild_in(s, c, act_err);
  sim_ctx_delete(s);
  return ok;
}

/* Runs the steps of c's rule at step k with the actuation errors act_err,
 * recording each action's values in c. Returns the position of the first
 * failing action, -2 if none, or -3 if an action is missing from c. */
static int rebuild_steps(sim_ctx_t *s, cex_t *c, int k, const double *act_err) {
  exec_t *x = &s->x;
  const ism_rule_t *rule = &s->m->rules[c->rules[k]];
  size_t nv = x->nv;
  memcpy(x->U, x->T, nv * sizeof *x->U);
  memcpy(x->cur, x->N, nv * sizeof *x->cur);
  int first_fail = -2;
  for (size_t p = 0; p < rule->nsteps; p++) {
    const ism_step_t *st = &rule->steps[p];
    if (st->kind == ISM_STEP_ASSIGN) {
      env_t env = {s->m, x->H, NULL, x->cur};
      x->cur[st->var] = expr_eval_real(st->value, lookup, &env, NULL);
      continue;
    }
    size_t ai = 0;
    cex_action_t *ca = (cex_action_t *)find_action(c, k, (int)p, &ai);
    if (!ca) return -3;
    for (size_t v = 0; v < nv; v++) x->err[v] = ca->has_actual[v] ? act_err[ai * nv + v] : 0;
    for (size_t v = 0; v < nv; v++) ca->before[v] = x->sensing[v] ? x->U[v] : x->cur[v];
    if (exec_action(x, st->action, ca->after) && first_fail == -2) first_fail = (int)p;
    for (size_t v = 0; v < nv; v++) {
      ca->after[v] = x->sensing[v] ? x->after[v] : x->cur[v];
      if (ca->has_actual[v]) ca->actual[v] = x->actual[v];
    }
  }
  return first_fail;
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
    int first_fail = ok ? rebuild_steps(s, c, k, act_err) : -2;
    if (first_fail == -3) return false;
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
