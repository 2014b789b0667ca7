#include "probability/rank.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/vec.h"
#include "ism/workers.h"
#include "probability/dist.h"
#include "probability/joint.h"
#include "probability/lowdisc.h"
#include "probability/simulate.h"

void rank_options_init(rank_options_t *opt, ism_mode_t mode) {
  *opt = (rank_options_t){mode, RANK_JOINT, COND_AUTO, true, 600, 20000, 1, NULL, NULL, 1};
}

bool rank_step(const ism_model_t *m, ism_mode_t mode, const cex_t *c, int k, cond_method_t method,
               cond_prob_t *out) {
  cond_prep_t *cond = cond_prep_rule(m, c->rules[k], mode == ISM_MODE_ACTUAL);
  bool ok = cond_prep_probability(cond, c->truth + (size_t)k * m->nvars, method, out);
  cond_prep_delete(cond);
  return ok;
}

/* rank_per_rule with the prepared rule conditions of s. */
static bool per_rule(sim_ctx_t *s, const ism_model_t *m, const cex_t *c, cond_method_t method, double *p,
                     double *error) {
  double prod = 1, err = 0;
  bool ok = true;
  for (int k = 0; k < c->length; k++) {
    cond_prob_t st;
    ok &= cond_prep_probability(sim_ctx_rule(s, c->rules[k]), c->truth + (size_t)k * m->nvars, method, &st);
    err = err * st.p + prod * st.error; /* d(ab) <= |a| db + |b| da, to first order */
    prod *= st.p;
  }
  *p = prod;
  *error = err > 1 ? 1 : err;
  return ok;
}

bool rank_per_rule(const ism_model_t *m, ism_mode_t mode, const cex_t *c, cond_method_t method, double *p,
                   double *error) {
  sim_ctx_t *s = sim_ctx_new(m, mode);
  bool ok = per_rule(s, m, c, method, p, error);
  sim_ctx_delete(s);
  return ok;
}

unsigned long rank_path_seed(const cex_t *c, unsigned long seed) {
  unsigned long h = 1469598103934665603UL ^ seed;
  for (int k = 0; k < c->length; k++) h = (h ^ (unsigned long)c->rules[k]) * 1099511628211UL;
  return h ^ (unsigned long)c->length;
}

/* ---- valuation search ---- */

/* What ranking the counterexamples of one model shares. */
typedef struct {
  const ism_model_t *m;
  const rank_options_t *opt;
  sim_ctx_t *sim; /* rule conditions (memoised) and rebuild scratch */
  joint_t *joint; /* the joint estimator, or NULL */
} rank_ctx_t;

/* A free value: truth[index], actions[action].after[var], or act_err[index]. */
typedef enum { PARAM_TRUTH, PARAM_AFTER, PARAM_ACT_ERR } param_kind_t;

typedef struct {
  param_kind_t kind;
  size_t index;  /* PARAM_TRUTH, PARAM_ACT_ERR */
  size_t action; /* PARAM_AFTER */
  int var;
  double lo, hi, step;
} param_t;

/* A candidate: a deep copy of a counterexample with its actuation errors. */
typedef struct {
  cex_t c;
  double *act_err; /* [nactions * nvars] */
  double p;
} cand_t;

static double *dup_doubles(const double *a, size_t n) {
  double *b = xmalloc((n + 1) * sizeof *b);
  memcpy(b, a, n * sizeof *b);
  return b;
}

static void cand_init(cand_t *k, const cex_t *c, size_t nv) {
  k->c = *c;
  k->c.rules = xmalloc((size_t)c->length * sizeof *c->rules);
  memcpy(k->c.rules, c->rules, (size_t)c->length * sizeof *c->rules);
  k->c.states = xmalloc((size_t)(c->length + 1) * sizeof *c->states);
  memcpy(k->c.states, c->states, (size_t)(c->length + 1) * sizeof *c->states);
  k->c.truth = dup_doubles(c->truth, (size_t)(c->length + 1) * nv);
  k->c.sensed = dup_doubles(c->sensed, (size_t)c->length * nv);
  k->c.actions = xcalloc(c->nactions + 1, sizeof *k->c.actions);
  k->act_err = xcalloc(c->nactions * nv + 1, sizeof *k->act_err);
  for (size_t a = 0; a < c->nactions; a++) {
    const cex_action_t *s = &c->actions[a];
    cex_action_t *d = &k->c.actions[a];
    *d = *s;
    d->before = dup_doubles(s->before, nv), d->after = dup_doubles(s->after, nv),
    d->actual = dup_doubles(s->actual, nv);
    d->has_actual = xmalloc((nv + 1) * sizeof *d->has_actual);
    memcpy(d->has_actual, s->has_actual, nv * sizeof *d->has_actual);
    for (size_t v = 0; v < nv; v++)
      if (s->has_actual[v]) k->act_err[a * nv + v] = s->actual[v] - s->before[v];
  }
}

/* Copies the values of src into dst (same shape). */
static void cand_assign(cand_t *dst, const cand_t *src, size_t nv) {
  const cex_t *s = &src->c;
  memcpy(dst->c.truth, s->truth, (size_t)(s->length + 1) * nv * sizeof *s->truth);
  memcpy(dst->c.sensed, s->sensed, (size_t)s->length * nv * sizeof *s->sensed);
  for (size_t a = 0; a < s->nactions; a++) {
    memcpy(dst->c.actions[a].before, s->actions[a].before, nv * sizeof(double));
    memcpy(dst->c.actions[a].after, s->actions[a].after, nv * sizeof(double));
    memcpy(dst->c.actions[a].actual, s->actions[a].actual, nv * sizeof(double));
  }
  memcpy(dst->act_err, src->act_err, s->nactions * nv * sizeof *src->act_err);
  dst->p = src->p;
}

static void cand_free(cand_t *k) {
  for (size_t a = 0; a < k->c.nactions; a++) {
    free(k->c.actions[a].before), free(k->c.actions[a].after), free(k->c.actions[a].actual);
    free(k->c.actions[a].has_actual);
  }
  free(k->c.actions), free(k->c.rules), free(k->c.states), free(k->c.truth), free(k->c.sensed);
  free(k->act_err);
}

static double *param_at(cand_t *k, const param_t *p) {
  switch (p->kind) {
  case PARAM_TRUTH: return &k->c.truth[p->index];
  case PARAM_AFTER: return &k->c.actions[p->action].after[p->var];
  default: return &k->act_err[p->index];
  }
}

static param_t bounded(param_kind_t kind, size_t index, size_t action, int var, const ism_var_t *v,
                       double x) {
  param_t p = {kind, index, action, var, -INFINITY, INFINITY, 1 + fabs(x) / 4};
  if (kind == PARAM_ACT_ERR)
    p.lo = v->err_lo, p.hi = v->err_hi;
  else if (v->has_range)
    p.lo = v->range_lo, p.hi = v->range_hi;
  if (isfinite(p.lo) && isfinite(p.hi)) p.step = (p.hi - p.lo) / 8;
  return p;
}

/* Does any effect of the action define v (v' == expr)? */
static bool effect_defines(const ism_model_t *m, const ism_action_t *a, int v) {
  for (size_t k = 0; k < a->neffects; k++) {
    const expr_t *e = a->effects[k];
    if (e->kind != EXPR_EQ) continue;
    const expr_t *sides[2] = {e->u.op.a, e->u.op.b};
    for (int s = 0; s < 2; s++)
      if (sides[s]->kind == EXPR_VAR && sides[s]->u.var.primed && sides[s]->u.var.id == v) return true;
  }
  (void)m;
  return false;
}

typedef VEC(param_t) param_vec_t;

static void collect_params(const ism_model_t *m, ism_mode_t mode, const cand_t *k, param_vec_t *ps) {
  size_t nv = m->nvars;
  const cex_t *c = &k->c;
  for (size_t v = 0; v < nv; v++)
    if (m->vars[v].sensing) VEC_PUSH(ps, bounded(PARAM_TRUTH, v, 0, (int)v, &m->vars[v], c->truth[v]));
  for (int s = 0; s < c->length; s++) {
    const ism_rule_t *rule = &m->rules[c->rules[s]];
    if (rule->has_action) continue;
    for (size_t v = 0; v < nv; v++)
      if (m->vars[v].sensing && (m->vars[v].dynamic || mode == ISM_MODE_NAIVE)) {
        size_t at = (size_t)(s + 1) * nv + v;
        VEC_PUSH(ps, bounded(PARAM_TRUTH, at, 0, (int)v, &m->vars[v], c->truth[at]));
      }
  }
  for (size_t a = 0; a < c->nactions; a++) {
    const cex_action_t *ca = &c->actions[a];
    for (size_t v = 0; v < nv; v++) {
      if (ca->has_actual[v])
        VEC_PUSH(ps, bounded(PARAM_ACT_ERR, a * nv + v, a, (int)v, &m->vars[v], k->act_err[a * nv + v]));
      else if (m->vars[v].sensing &&
               (mode == ISM_MODE_NAIVE || !effect_defines(m, &m->actions[ca->action], (int)v)))
        VEC_PUSH(ps, bounded(PARAM_AFTER, 0, a, (int)v, &m->vars[v], ca->after[v]));
    }
  }
}

/* Rebuilds a candidate from its free values and scores it: -1 when
 * invalid. The caller rejects any score not above to_beat, whether or not
 * cex_replay accepts the candidate, so the replay (the dearest part)
 * runs only for a score above it; below it the unchecked score is returned.
 * to_beat = -INFINITY: always replayed. */
static double score_above(rank_ctx_t *r, cand_t *k, double to_beat) {
  if (!sim_rebuild_in(r->sim, &k->c, k->act_err)) return -1;
  double p = 0, err = 0;
  if (!per_rule(r->sim, r->m, &k->c, r->opt->method, &p, &err)) return -1;
  if (!(p > to_beat)) return p;
  char *msg = cex_replay(r->m, r->opt->mode, &k->c);
  if (msg) {
    free(msg);
    return -1;
  }
  return p;
}

/* Tries best + (di * step_i, dj * step_j) (j < 0: coordinate i alone);
 * keeps the trial when it is strictly better. */
static bool try_move(rank_ctx_t *r, cand_t *best, cand_t *trial, param_t *pi, int di, param_t *pj, int dj,
                     int *evaluations) {
  size_t nv = r->m->nvars;
  cand_assign(trial, best, nv);
  bool moved = false;
  param_t *ps[2] = {pi, pj};
  int ds[2] = {di, dj};
  for (int q = 0; q < 2; q++) {
    if (!ps[q]) continue;
    double *x = param_at(trial, ps[q]), to = *x + ds[q] * ps[q]->step;
    to = to < ps[q]->lo ? ps[q]->lo : to > ps[q]->hi ? ps[q]->hi : to;
    moved |= to != *x;
    *x = to;
  }
  if (!moved) return false;
  ++*evaluations;
  double to_beat = best->p * (1 + 1e-12) + 1e-300;
  double s = score_above(r, trial, to_beat);
  if (!(s > to_beat)) return false;
  trial->p = s;
  cand_assign(best, trial, nv);
  return true;
}

/* Pattern search: moves of single free values by +-step, then (for up to
 * 16 free values) of pairs, since a failure often ties a true value to an
 * actuation error; keeps strict improvements, halves the steps when no
 * move improves. Deterministic. */
static void search(rank_ctx_t *r, cand_t *best, cand_t *trial) {
  param_vec_t ps = {0};
  collect_params(r->m, r->opt->mode, best, &ps);
  int evaluations = 0, max = r->opt->max_evaluations;
  double step = 0; /* one step for all: constraints like x' == x - unit have slope 1 */
  for (size_t i = 0; i < ps.len; i++) step = fmax(step, ps.data[i].step);
  for (size_t i = 0; i < ps.len; i++) ps.data[i].step = step;
  for (int round = 0; round < 40 && evaluations < max && ps.len; round++) {
    bool improved = false;
    for (size_t i = 0; i < ps.len && !improved && evaluations < max; i++)
      for (int d = -1; d <= 1 && !improved; d += 2)
        improved = try_move(r, best, trial, &ps.data[i], d, NULL, 0, &evaluations);
    for (size_t i = 0; i < ps.len && ps.len <= 16 && !improved && evaluations < max; i++)
      for (size_t j = i + 1; j < ps.len && !improved; j++)
        for (int d = 0; d < 4 && !improved; d++)
          improved = try_move(r, best, trial, &ps.data[i], d & 1 ? 1 : -1, &ps.data[j], d & 2 ? 1 : -1,
                              &evaluations);
    if (!improved)
      for (size_t i = 0; i < ps.len; i++) ps.data[i].step /= 2;
  }
  VEC_FREE(&ps);
}

/* best with one free value set to x, scored; kept when strictly better
 * (and valid). Returns the score (unchecked when not better; -1 invalid). */
static double try_value(rank_ctx_t *r, cand_t *best, cand_t *trial, const param_t *p, double x,
                        int *evaluations) {
  size_t nv = r->m->nvars;
  ++*evaluations;
  cand_assign(trial, best, nv);
  *param_at(trial, p) = x;
  double to_beat = best->p * (1 + 1e-12) + 1e-300;
  double s = score_above(r, trial, to_beat);
  if (s > to_beat) {
    trial->p = s;
    cand_assign(best, trial, nv);
  }
  return s;
}

/* After the pattern search: a line search along each bounded free value (a
 * grid of 9 points over its range, then golden sections around the best).
 * Only strict, re-checked improvements are kept, so it never ends below the
 * pattern search; it is still not a proof of optimality. At most
 * max_evaluations evaluations, as the pattern search. */
static void refine(rank_ctx_t *r, cand_t *best, cand_t *trial) {
  param_vec_t ps = {0};
  collect_params(r->m, r->opt->mode, best, &ps);
  const double phi = (sqrt(5) - 1) / 2;
  int evaluations = 0;
  for (size_t i = 0; i < ps.len && evaluations + 23 <= r->opt->max_evaluations; i++) {
    const param_t *p = &ps.data[i];
    if (!isfinite(p->lo) || !isfinite(p->hi) || !(p->lo < p->hi)) continue;
    double h = (p->hi - p->lo) / 8, xb = *param_at(best, p), fb = best->p;
    for (int g = 0; g <= 8; g++) {
      double x = p->lo + g * h, f = try_value(r, best, trial, p, x, &evaluations);
      if (f > fb) fb = f, xb = x;
    }
    double a = fmax(p->lo, xb - h), b = fmin(p->hi, xb + h);
    double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
    double f1 = try_value(r, best, trial, p, x1, &evaluations),
           f2 = try_value(r, best, trial, p, x2, &evaluations);
    for (int s = 0; s < 12; s++) {
      if (f1 >= f2)
        b = x2, x2 = x1, f2 = f1, x1 = b - phi * (b - a), f1 = try_value(r, best, trial, p, x1, &evaluations);
      else
        a = x1, x1 = x2, f1 = f2, x2 = a + phi * (b - a), f2 = try_value(r, best, trial, p, x2, &evaluations);
    }
  }
  VEC_FREE(&ps);
}

/* The low-discrepancy starts of the per-rule search, and how many of the best get a local search. */
enum { STARTS = 16, CLIMBS = 2 };

static void climb(rank_ctx_t *r, cand_t *best, cand_t *trial) {
  search(r, best, trial);
  refine(r, best, trial);
}

/* Keeps k among the CLIMBS best candidates tops[0..*n) (best first, an
 * earlier one first on a tie). */
static void keep_top(cand_t *tops, int *n, const cand_t *k, size_t nv) {
  int at = *n;
  while (at > 0 && k->p > tops[at - 1].p) at--;
  if (at == CLIMBS) return;
  if (*n < CLIMBS) cand_init(&tops[(*n)++], &k->c, nv);
  for (int q = *n - 1; q > at; q--) cand_assign(&tops[q], &tops[q - 1], nv);
  cand_assign(&tops[at], k, nv);
}

/* Local searches from the best of STARTS low-discrepancy points over the
 * free values' boxes (their ranges or error ranges, else [-100, 100]) and
 * from best itself (the solver's witness, rebuilt); best gets the highest
 * end point, a start's on a tie, so the witness decides only where every
 * start ends strictly lower. */
static void optimise(rank_ctx_t *r, cand_t *best, cand_t *trial) {
  size_t nv = r->m->nvars;
  param_vec_t ps = {0};
  collect_params(r->m, r->opt->mode, best, &ps);
  double *lo = xmalloc((ps.len + 1) * sizeof *lo), *hi = xmalloc((ps.len + 1) * sizeof *hi),
         *x = xmalloc((ps.len + 1) * sizeof *x);
  for (size_t k = 0; k < ps.len; k++) {
    lo[k] = isfinite(ps.data[k].lo) ? ps.data[k].lo : -100;
    hi[k] = isfinite(ps.data[k].hi) ? ps.data[k].hi : 100;
    if (r->m->vars[ps.data[k].var].type.kind != TYPE_REAL) lo[k] = hi[k] = *param_at(best, &ps.data[k]);
  }
  cand_t tops[CLIMBS];
  int ntops = 0;
  for (unsigned long i = 0; i < STARTS && ps.len; i++) {
    lowdisc_point(ps.len, i, lo, hi, x);
    cand_assign(trial, best, nv);
    for (size_t k = 0; k < ps.len; k++) *param_at(trial, &ps.data[k]) = x[k];
    trial->p = score_above(r, trial, -INFINITY);
    if (trial->p > 0) keep_top(tops, &ntops, trial, nv);
  }
  /* the joint estimator's most likely environment: found from its own starts, so rarely the witness's */
  cand_assign(trial, best, nv);
  if (!trial->c.boundary_only &&
      joint_maximise(r->joint, &trial->c)) { /* boundary-only: joint 0 everywhere */
    char *msg = cex_replay(r->m, r->opt->mode, &trial->c);
    if (!msg) {
      for (size_t a = 0; a < trial->c.nactions; a++)
        for (size_t v = 0; v < nv; v++)
          if (trial->c.actions[a].has_actual[v])
            trial->act_err[a * nv + v] = trial->c.actions[a].actual[v] - trial->c.actions[a].before[v];
      trial->p = score_above(r, trial, -INFINITY);
      if (trial->p > 0) keep_top(tops, &ntops, trial, nv);
    }
    free(msg);
  }
  climb(r, best, trial);
  for (int k = 0; k < ntops; k++) {
    climb(r, &tops[k], trial);
    if (k > 0 && tops[k].p > tops[0].p) cand_assign(&tops[0], &tops[k], nv);
  }
  if (ntops && !(best->p > tops[0].p * (1 + 1e-9))) cand_assign(best, &tops[0], nv);
  for (int k = 0; k < ntops; k++) cand_free(&tops[k]);
  free(lo), free(hi), free(x);
  VEC_FREE(&ps);
}

/* Copies the values of k back into c (same shape). */
static void write_back(cex_t *c, const cand_t *k, size_t nv) {
  memcpy(c->truth, k->c.truth, (size_t)(c->length + 1) * nv * sizeof *c->truth);
  memcpy(c->sensed, k->c.sensed, (size_t)c->length * nv * sizeof *c->sensed);
  for (size_t a = 0; a < c->nactions; a++) {
    memcpy(c->actions[a].before, k->c.actions[a].before, nv * sizeof(double));
    memcpy(c->actions[a].after, k->c.actions[a].after, nv * sizeof(double));
    memcpy(c->actions[a].actual, k->c.actions[a].actual, nv * sizeof(double));
  }
}

/* The joint estimate at c's most likely environment. When the run found
 * does not pass the re-check (always in modes ideal and naive, whose
 * counterexamples have no errors), c keeps its own values and the estimate
 * is made again at its own environment, so the number is always that of
 * the environment shown. */
static void rank_joint(rank_ctx_t *r, cex_t *c) {
  size_t nv = r->m->nvars;
  if (r->opt->mode != ISM_MODE_ACTUAL) { /* nothing to search, and a run with errors cannot be shown */
    c->has_probability = true;
    joint_estimate(r->joint, c, 4000, r->opt->seed, &c->probability, &c->probability_error);
    return;
  }
  cand_t keep;
  cand_init(&keep, c, nv);
  char *msg = joint_maximise(r->joint, c) ? cex_replay(r->m, r->opt->mode, c) : xstrdup("not realised");
  if (msg) {
    write_back(c, &keep, nv);
    joint_estimate(r->joint, c, 4000, r->opt->seed, &c->probability, &c->probability_error);
  }
  free(msg);
  cand_free(&keep);
}

static void rank_in(rank_ctx_t *r, cex_t *c) {
  const ism_model_t *m = r->m;
  const rank_options_t *opt = r->opt;
  size_t nv = m->nvars;
  if (opt->estimator == RANK_JOINT && c->boundary_only) { /* a set of errors of measure zero */
    c->has_probability = true, c->probability = 0, c->probability_error = 0;
    return;
  }
  if (opt->estimator == RANK_JOINT) {
    rank_joint(r, c);
    return;
  }
  double p = 0, err = 0;
  bool ok = per_rule(r->sim, m, c, opt->method, &p, &err);
  if (opt->optimise && opt->mode == ISM_MODE_ACTUAL && opt->max_evaluations > 0) {
    cand_t best, trial;
    cand_init(&best, c, nv);
    cand_init(&trial, c, nv);
    best.p = ok ? p : -1;
    /* The solver's values, rebuilt: sensed values move to their most likely errors. */
    double rebuilt = score_above(r, &trial, -INFINITY);
    if (rebuilt >= best.p && rebuilt >= 0) {
      trial.p = rebuilt;
      cand_assign(&best, &trial, nv);
    }
    optimise(r, &best, &trial);
    if (best.p >= 0 && (best.p > p || rebuilt >= p)) {
      write_back(c, &best, nv);
      ok = per_rule(r->sim, m, c, opt->method, &p, &err);
    }
    cand_free(&best);
    cand_free(&trial);
  }
  c->has_probability = true;
  c->probability = ok ? p : 0;
  c->probability_error = ok ? err : 1;
}

static rank_ctx_t rank_ctx(const ism_model_t *m, const rank_options_t *opt) {
  rank_ctx_t r = {m, opt, sim_ctx_new(m, opt->mode), NULL};
  if (opt->estimator == RANK_JOINT || (opt->optimise && opt->mode == ISM_MODE_ACTUAL)) {
    joint_options_t jo;
    joint_options_init(&jo);
    jo.seed = opt->seed;
    if (!opt->optimise || opt->mode != ISM_MODE_ACTUAL) jo.sweeps = 0; /* see rank_joint */
    r.joint = joint_new(m, &jo);
  }
  return r;
}

static void rank_ctx_free(rank_ctx_t *r) {
  sim_ctx_delete(r->sim);
  joint_delete(r->joint);
}

void rank_counterexample(const ism_model_t *m, const rank_options_t *opt, cex_t *c) {
  rank_ctx_t r = rank_ctx(m, opt);
  rank_in(&r, c);
  rank_ctx_free(&r);
}

struct rank_session {
  rank_ctx_t r;
};

rank_session_t *rank_session_new(const ism_model_t *m, const rank_options_t *opt) {
  rank_session_t *s = xmalloc(sizeof *s);
  s->r = rank_ctx(m, opt);
  return s;
}

void rank_session_rank(rank_session_t *s, cex_t *c) { rank_in(&s->r, c); }

void rank_session_delete(rank_session_t *s) {
  if (!s) return;
  rank_ctx_free(&s->r);
  free(s);
}

/* The counterexamples ranked by several threads: each takes the next one
 * not taken. A counterexample's ranking depends on it alone, so the result
 * does not depend on the number of threads nor on their timing. */
typedef struct {
  const ism_model_t *m;
  const rank_options_t *opt;
  cex_t *cexs;
  size_t n;
  atomic_size_t next;
  atomic_bool stopped;
} rank_pool_t;

static void *rank_worker(void *arg) {
  rank_pool_t *pool = arg;
  rank_ctx_t r = rank_ctx(pool->m, pool->opt);
  for (;;) {
    if (pool->opt->stop && pool->opt->stop(pool->opt->stop_arg)) {
      atomic_store(&pool->stopped, true);
      break;
    }
    size_t k = atomic_fetch_add(&pool->next, 1);
    if (k >= pool->n) break;
    rank_in(&r, &pool->cexs[k]);
  }
  rank_ctx_free(&r);
  return NULL;
}

bool rank_all(const ism_model_t *m, const rank_options_t *opt, cex_t *cexs, size_t n) {
  rank_pool_t pool = {m, opt, cexs, n, 0, false};
  workers_run(opt->jobs, n, rank_worker, &pool);
  bool all = true;
  for (size_t k = 0; k < n && all; k++) all = cexs[k].has_probability;
  cex_sort_by_probability(cexs, n);
  return all;
}
