#include "probability/maximise.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "probability/lowdisc.h"

/* A line search's grid points, golden-section steps, and steps out to a plateau's edges (then bisections). */
enum { GRID = 9, GOLDEN_STEPS = 8, EDGE_STEPS = 5 };

/* to_edge's bisection steps to the edge of the support. */
enum { EDGE_BISECTIONS = 16 };

/* The maximisation's low-discrepancy starts, and how many of the best get a local search. */
enum { STARTS = 16, CLIMBS = 2, SELECT_SAMPLES = 1000, MEMO_MAX = 1 << 16 };

/* refine's objective: this many times the search's samples. */
enum { FINE_FACTOR = 4 };

/* ---- the most likely environment ---- */

typedef struct params {
  param_t *p;
  size_t n;
} params_t;

/* The box a free value is searched in: its range, else [-100, 100]; a
 * value no later sensing reads (after the last step) is never range-checked,
 * so its box is the range widened by its width on each side. */
static void push_param(params_t *ps, const ism_var_t *var, bool after, size_t index, size_t action, int v,
                       int step, bool sensed_later) {
  param_t p = {after, index, action, v, step, -100, 100, false};
  if (var->has_range) {
    double w = sensed_later ? 0 : var->range_hi - var->range_lo;
    p.lo = var->range_lo - w, p.hi = var->range_hi + w;
  }
  ps->p[ps->n++] = p;
}

static void mark_unread(const joint_t *j, const cex_t *c, params_t *ps);

/* The free values of c's environment that are reals. */
static void collect(const joint_t *j, const cex_t *c, params_t *ps) {
  const ism_model_t *m = j->m;
  size_t nv = j->nv;
  ps->p = xcalloc(nv * ((size_t)c->length + 1 + c->nactions) + 1, sizeof *ps->p);
  ps->n = 0;
  for (size_t v = 0; v < nv; v++)
    if (m->vars[v].sensing && m->vars[v].type.kind == TYPE_REAL)
      push_param(ps, &m->vars[v], false, v, 0, (int)v, 0, true);
  for (int k = 0; k < c->length; k++) {
    if (m->rules[c->rules[k]].has_action) continue;
    for (size_t v = 0; v < nv; v++) /* a dynamic value is one at a sensing: within the range */
      if (m->vars[v].sensing && m->vars[v].dynamic && m->vars[v].type.kind == TYPE_REAL)
        push_param(ps, &m->vars[v], false, (size_t)(k + 1) * nv + v, 0, (int)v, k, true);
  }
  for (size_t a = 0; a < c->nactions; a++) {
    const cex_action_t *ca = &c->actions[a];
    bool last = ca->step + 1 == c->length;
    if (last && c->fail_position >= 0 && ca->position > c->fail_position) continue; /* never executed */
    for (size_t v = 0; v < nv; v++)
      if (m->vars[v].sensing && m->vars[v].type.kind == TYPE_REAL && !j->rhs[(size_t)ca->action * nv + v])
        push_param(ps, &m->vars[v], true, 0, a, (int)v, ca->step, !last);
  }
  mark_unread(j, c, ps);
}

/* Which free values a run reads: a walk along c's path that follows, per
 * sensing variable, the free value it holds (cur) and marks it read where
 * an expression the run evaluates mentions the variable: the assumptions,
 * the guards a sensing stage tests, the taken rule's assignments, every
 * effect and failure of an action executed (its old and its new value) and
 * the model-wide failure. Conservative (a mention is a read); the range
 * check at each sensing is not a read, since a value in its box (its
 * range, when a later sensing checks it) always passes it. */
typedef struct {
  const joint_t *j;
  const int *cur;
  const int *fresh; /* [nv]: the free value the executing action gives v, or -1 */
  bool *read;       /* [number of free values] */
} unread_ctx_t;

static void mark_read(void *ctx, const expr_t *var) {
  unread_ctx_t *u = ctx;
  int v = var->u.var.id;
  if (u->cur[v] >= 0) u->read[u->cur[v]] = true;
  if (u->fresh && u->fresh[v] >= 0) u->read[u->fresh[v]] = true;
}

static void mark_unread(const joint_t *j, const cex_t *c, params_t *ps) {
  const ism_model_t *m = j->m;
  size_t nv = j->nv;
  int *cur = xmalloc((nv + 1) * sizeof *cur), *fresh = xmalloc((nv + 1) * sizeof *fresh);
  bool *read = xcalloc(ps->n + 1, sizeof *read);
  for (size_t v = 0; v < nv; v++) cur[v] = -1;
  for (size_t i = 0; i < ps->n; i++)
    if (!ps->p[i].after && ps->p[i].index < nv) cur[ps->p[i].index] = (int)i;
  unread_ctx_t u = {j, cur, NULL, read};
  for (size_t k = 0; k < m->nassume; k++) expr_visit_vars(m->assume[k], mark_read, &u);
  for (int k = 0; k < c->length; k++) {
    bool last = k + 1 == c->length;
    for (const int *q = m->rules_from[c->states[k]]; *q >= 0; q++) {
      expr_visit_vars(m->rules[*q].when, mark_read, &u);
      if (m->selection == ISM_SELECT_FIRST && *q == c->rules[k]) break;
    }
    const ism_rule_t *rule = &m->rules[c->rules[k]];
    bool ended = false;
    for (size_t p = 0; p < rule->nsteps && !ended; p++) {
      const ism_step_t *st = &rule->steps[p];
      if (st->kind == ISM_STEP_ASSIGN) {
        expr_visit_vars(st->value, mark_read, &u);
        continue;
      }
      size_t ai = 0;
      const cex_action_t *given = joint_action_at(c, k, (int)p, &ai);
      for (size_t v = 0; v < nv; v++) fresh[v] = -1;
      for (size_t i = 0; i < ps->n && given; i++)
        if (ps->p[i].after && ps->p[i].action == ai) fresh[ps->p[i].var] = (int)i;
      const ism_action_t *act = &m->actions[st->action];
      u.fresh = fresh;
      for (size_t e = 0; e < act->neffects; e++) expr_visit_vars(act->effects[e], mark_read, &u);
      if (act->failure) expr_visit_vars(act->failure, mark_read, &u);
      u.fresh = NULL;
      for (size_t v = 0; v < nv; v++)
        if (m->vars[v].sensing && (j->rhs[(size_t)st->action * nv + v] || fresh[v] >= 0 || given))
          cur[v] = fresh[v]; /* a value computed from what was read, the free value, or the record's */
      ended = last && (int)p == c->fail_position;
    }
    if (!rule->has_action)
      for (size_t v = 0; v < nv; v++)
        if (m->vars[v].sensing && m->vars[v].dynamic) cur[v] = -1;
    for (size_t i = 0; i < ps->n && !rule->has_action; i++)
      if (!ps->p[i].after && ps->p[i].index == (size_t)(k + 1) * nv + (size_t)ps->p[i].var)
        cur[ps->p[i].var] = (int)i;
    if (!ended && m->failure) expr_visit_vars(m->failure, mark_read, &u);
  }
  for (size_t i = 0; i < ps->n; i++) ps->p[i].unread = !read[i];
  free(cur), free(fresh), free(read);
}

/* Room for the states of cap samples of runs with nparams free values; none stored. */
static void prefix_init(prefix_t *pf, size_t nparams, size_t nv, unsigned long cap) {
  *pf = (prefix_t){.cap = cap};
  pf->values = xmalloc((nparams + 1) * sizeof *pf->values);
  pf->truth = xmalloc((cap * nv + 1) * sizeof *pf->truth);
  pf->normal = xmalloc((cap * nv + 1) * sizeof *pf->normal);
  pf->w = xmalloc((cap + 1) * sizeof *pf->w);
  pf->r = xmalloc((cap + 1) * sizeof *pf->r);
}

static void prefix_free(prefix_t *pf) {
  free(pf->values), free(pf->truth), free(pf->normal), free(pf->w), free(pf->r);
  *pf = (prefix_t){0};
}

/* Can the search objective's runs start at `step` from j->pre? */
static bool prefix_valid(const joint_t *j, const cex_t *c, int step, unsigned long samples,
                         unsigned long seed) {
  const prefix_t *pf = &j->pre;
  if (pf->step != step || pf->dists != j->dists || pf->samples != samples || pf->seed != seed) return false;
  for (size_t i = 0; i < j->ps->n; i++)
    if (j->ps->p[i].step < step && *joint_param_at((cex_t *)c, &j->ps->p[i]) != pf->values[i]) return false;
  return true;
}

/* joint_estimate_plain() for at most 1000 samples (no early stop) whose runs start at
 * `step` > 0 from the prefix states, stored first when not valid: the same
 * weights, so the same result. */
static void estimate_from(joint_t *j, const cex_t *c, int step, unsigned long samples, unsigned long seed,
                          double *p, double *error) {
  prefix_t *pf = &j->pre;
  size_t nv = j->nv;
  assert(step > 0 && samples <= pf->cap && samples <= 1000);
  bool valid = prefix_valid(j, c, step, samples, seed);
  if (!valid) {
    pf->step = step, pf->dists = j->dists, pf->samples = samples, pf->seed = seed;
    for (size_t i = 0; i < j->ps->n; i++) pf->values[i] = *joint_param_at((cex_t *)c, &j->ps->p[i]);
  }
  joint_moments_t mo = {0};
  for (unsigned long i = 0; i < samples; i++) {
    double w = 0;
    if (!valid) {
      pf->w[i] = 0; /* stays 0 for a run that ends before the step */
      rng_t r = rng_for(seed, i);
      w = joint_sample_from(j, c, &r, 0, 1, (long)i);
    } else if (pf->w[i] > 0) {
      memcpy(j->truth, pf->truth + i * nv, nv * sizeof *j->truth);
      memcpy(j->normal, pf->normal + i * nv, nv * sizeof *j->normal);
      rng_t r = pf->r[i];
      w = joint_sample_from(j, c, &r, step, pf->w[i], -1);
    }
    joint_moments_add(&mo, w);
  }
  joint_moments_result(&mo, p, error);
}

/* The search's objective at c's current environment: the estimate from
 * search_samples samples of common random numbers, a pure function of the
 * free values and the distributions in use, so memoised (a line search
 * revisits its grid in the next sweep, a plateau's edges are probed twice). */
static double objective_here(joint_t *j, const cex_t *c) {
  size_t n = j->ps->n;
  for (size_t i = 0; i < n; i++) j->key[i] = *joint_param_at((cex_t *)c, &j->ps->p[i]);
  j->key[n] = (j->dists == j->exact ? 0 : j->dists == j->wide[0] ? 1 : 2) + (j->fine ? 4 : 0);
  const double *hit = memo_get(&j->memo, j->key);
  if (hit) return *hit;
  double v, err;
  if (j->pre_want > 0 && j->o.search_samples <= j->pre.cap)
    estimate_from(j, c, j->pre_want, j->o.search_samples, j->o.seed, &v, &err);
  else
    joint_estimate_plain(j, c, j->o.search_samples, j->o.seed, &v, &err);
  memo_put(&j->memo, j->key, &v);
  return v;
}

static double objective(joint_t *j, cex_t *c, const param_t *p, double x) {
  double *at = joint_param_at(c, p), save = *at;
  *at = x;
  j->pre_want = p->step; /* the values read before it are the same in every call of a line search */
  double v = objective_here(j, c);
  j->pre_want = 0;
  *at = save;
  return v;
}

/* Within the relative rounding of an estimate that did not change. */
static bool same_value(double f, double g) { return fabs(f - g) <= 1e-12 * fmax(f, g); }

/* Moves coordinate p to the middle of the interval around it where the
 * objective keeps its value f (a plateau: a constraint that does not bind,
 * or every constraint of its stages certain). From a corner of the region
 * of positive probability the other coordinates then have room to move:
 * a ridge that coordinate moves alone cannot climb. Doubling steps out to
 * the box, then bisection to each edge. Returns whether it moved. */
static bool centre(joint_t *j, cex_t *c, const param_t *p, double lo, double hi, double f) {
  double *at = joint_param_at(c, p), x0 = *at, edge[2];
  double d0 = (hi - lo) / 256; /* line_search probes the same first steps */
  for (int side = 0; side < 2; side++) {
    double sign = side ? 1 : -1, good = x0, bad = NAN, d = d0;
    for (int s = 0; s < EDGE_STEPS; s++, d *= 4) {
      double x = fmin(hi, fmax(lo, x0 + sign * d));
      if (x == good) break;
      if (!same_value(objective(j, c, p, x), f)) {
        bad = x;
        break;
      }
      good = x;
    }
    bool at_edge = !isnan(bad) && good == x0; /* no plateau on this side: not worth bisecting */
    for (int s = 0; s < EDGE_STEPS && !isnan(bad) && !at_edge; s++) {
      double mid = (good + bad) / 2;
      if (same_value(objective(j, c, p, mid), f))
        good = mid;
      else
        bad = mid;
    }
    edge[side] = good;
  }
  double mid = (edge[0] + edge[1]) / 2;
  if (!(fabs(mid - x0) > 1e-9 * (hi - lo)) || !same_value(objective(j, c, p, mid), f)) return false;
  *at = mid;
  return true;
}

/* After the golden sections, whose resolution is a fraction of the box
 * (1/190 of it): where the objective still rises towards one side (step:
 * the final bracket's width, signed) and is 0 one step further, its
 * maximum along the line may be at the edge of its support (a threshold
 * that cuts the probability to 0, as a failure's does), where a
 * log-concave objective is highest right at the edge: bisection to it,
 * keeping the best positive point. Without it a steep rise to the edge (a
 * rare failure, a thermostat's band) ends up to a bracket's resolution
 * short of it, and far lower. */
static void to_edge(joint_t *j, cex_t *c, const param_t *p, double lo, double hi, double step, double *xb,
                    double *fx) {
  double good = *xb, bad = fmin(hi, fmax(lo, *xb + step));
  if (bad == good) return;
  double fbad = objective(j, c, p, bad);
  if (fbad > 0) { /* no edge of the support up to the box's end, which may be the maximum itself */
    if ((bad == lo || bad == hi) && fbad > *fx && !same_value(fbad, *fx)) *fx = fbad, *xb = bad;
    return;
  }
  for (int s = 0; s < EDGE_BISECTIONS; s++) {
    double mid = (good + bad) / 2, f = objective(j, c, p, mid);
    if (!(f > 0)) {
      bad = mid;
      continue;
    }
    good = mid;
    if (f > *fx && !same_value(f, *fx)) *fx = f, *xb = mid;
  }
}

/* Maximises over one coordinate: with scan (the first sweep) a grid over
 * its box, then golden sections around the best point. A coordinate the
 * grid finds flat over the whole box goes to its middle and is marked
 * *flat (the sweeps skip it from then on); one on a plateau around the
 * current point (and no better grid point) is centred on it (centre)
 * instead of refined. Returns whether it moved in a way another coordinate
 * can use. */
static bool line_search(joint_t *j, cex_t *c, const param_t *p, bool scan, double *best, bool *flat) {
  double *at = joint_param_at(c, p), x0 = *at, fx = *best, xb = x0;
  double lo = fmin(p->lo, x0), hi = fmax(p->hi, x0), h = (hi - lo) / (GRID - 1);
  if (scan && p->unread && x0 >= p->lo && x0 <= p->hi) { /* what the grid would find: flat over the box */
    if (!(*best > 0)) return false;
    *flat = true;
    *at = lo + (GRID / 2) * h;
    return false;
  }
  bool same = scan;
  for (int g = 0; g < GRID && scan; g++) {
    double x = lo + g * h, f = objective(j, c, p, x);
    same &= same_value(f, *best);
    if (f > fx && !same_value(f, fx)) fx = f, xb = x;
  }
  if (!(fx > 0)) return false;
  if (same) { /* the same value all over the box: a value the path does not depend on; to its middle */
    *flat = true;
    *at = lo + (GRID / 2) * h;
    return false; /* changes nothing another coordinate could use */
  }
  double d0 = (hi - lo) / 256; /* centre's first steps */
  if (xb == x0 && same_value(objective(j, c, p, fmax(lo, x0 - d0)), fx) &&
      same_value(objective(j, c, p, fmin(hi, x0 + d0)), fx))
    return centre(j, c, p, lo, hi, *best); /* on a plateau: nothing to refine here */
  double a = fmax(lo, xb - h), b = fmin(hi, xb + h);
  const double phi = (sqrt(5) - 1) / 2;
  double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
  double f1 = objective(j, c, p, x1), f2 = objective(j, c, p, x2);
  for (int s = 0; s < GOLDEN_STEPS; s++) {
    if (f1 > fx && !same_value(f1, fx)) fx = f1, xb = x1;
    if (f2 > fx && !same_value(f2, fx)) fx = f2, xb = x2;
    /* on a tie (a zero or flat stretch) keep the side of the best point found */
    bool left = same_value(f1, f2) ? xb <= x2 : f1 > f2;
    if (left)
      b = x2, x2 = x1, f2 = f1, x1 = b - phi * (b - a), f1 = objective(j, c, p, x1);
    else
      a = x1, x1 = x2, f1 = f2, x2 = a + phi * (b - a), f2 = objective(j, c, p, x2);
  }
  if (f1 > fx && !same_value(f1, fx)) fx = f1, xb = x1;
  if (f2 > fx && !same_value(f2, fx)) fx = f2, xb = x2;
  if (!same_value(f1, f2)) to_edge(j, c, p, lo, hi, f2 > f1 ? b - a : a - b, &xb, &fx);
  bool moved = fx > *best;
  if (moved) *at = xb, *best = fx;
  return centre(j, c, p, lo, hi, *best) || moved;
}

/* Coordinate sweeps from c's environment; *best is its objective. Sweeps
 * go on while one gains more than 0.1% or a plateau was re-centred. */
static void sweeps(joint_t *j, cex_t *c, const params_t *ps, double *best) {
  bool *flat = xcalloc(ps->n + 1, sizeof *flat); /* skipped after a sweep found it flat over its box */
  /* A value no run reads goes where the first sweep's line search would put
   * it (the middle of its box) before that sweep rather than at its turn:
   * the objective does not depend on it, so every value and decision is
   * the same, but the memo, keyed by every free value, then serves the
   * later sweeps' revisits of the points of the first. */
  bool positive = *best > 0;
  for (size_t i = 0; i < ps->n && positive && j->o.sweeps > 0; i++) {
    const param_t *p = &ps->p[i];
    double *at = joint_param_at(c, p);
    if (p->unread && *at >= p->lo && *at <= p->hi)
      *at = p->lo + (GRID / 2) * ((p->hi - p->lo) / (GRID - 1)), flat[i] = true;
  }
  for (int sweep = 0; sweep < j->o.sweeps; sweep++) {
    double start = *best;
    bool moved = false;
    for (size_t i = 0; i < ps->n; i++)
      if (!flat[i]) moved |= line_search(j, c, &ps->p[i], sweep == 0, best, &flat[i]);
    if (!moved || (start > 0 && *best <= start * 1.001 && sweep > 0)) break;
  }
  free(flat);
}

/* A local maximisation from c's environment; returns its objective. Where
 * the start has probability 0 it first climbs the probability under errors
 * three and one and a half times as wide (a continuation). */
static double climb(joint_t *j, cex_t *c, const params_t *ps) {
  double best = objective_here(j, c);
  if (!(best > 0)) {
    for (int w = 0; w < 2; w++) {
      j->dists = j->wide[w];
      best = objective_here(j, c);
      if (best > 0) sweeps(j, c, ps, &best);
    }
    j->dists = j->exact;
    best = objective_here(j, c);
  }
  if (best > 0) sweeps(j, c, ps, &best);
  return best;
}

static void get_params(const cex_t *c, const params_t *ps, double *x) {
  for (size_t i = 0; i < ps->n; i++) x[i] = *joint_param_at((cex_t *)c, &ps->p[i]);
}

static void set_params(cex_t *c, const params_t *ps, const double *x) {
  for (size_t i = 0; i < ps->n; i++) *joint_param_at(c, &ps->p[i]) = x[i];
}

static void start_point(const params_t *ps, unsigned long i, double *x) {
  double *lo = xmalloc((ps->n + 1) * sizeof *lo), *hi = xmalloc((ps->n + 1) * sizeof *hi);
  for (size_t k = 0; k < ps->n; k++) lo[k] = ps->p[k].lo, hi[k] = ps->p[k].hi;
  lowdisc_point(ps->n, i, lo, hi, x);
  free(lo), free(hi);
}

/* The best starts among STARTS low-discrepancy points of the boxes (the
 * rest of c's values as given): up to CLIMBS of them with positive
 * probability, best first (earlier points win ties), into starts[k * n]. */
static int best_starts(joint_t *j, cex_t *c, const params_t *ps, double *starts) {
  double f[CLIMBS];
  int found = 0;
  double *x = xmalloc((ps->n + 1) * sizeof *x);
  for (unsigned long i = 0; i < STARTS; i++) {
    start_point(ps, i, x);
    set_params(c, ps, x);
    double v = objective_here(j, c);
    if (!(v > 0)) continue;
    int at = found < CLIMBS ? found : CLIMBS;
    while (at > 0 && v > f[at - 1]) at--;
    if (at == CLIMBS) continue;
    int last = found < CLIMBS ? found : CLIMBS - 1;
    for (int k = last; k > at; k--) {
      f[k] = f[k - 1];
      memcpy(starts + (size_t)k * ps->n, starts + (size_t)(k - 1) * ps->n, ps->n * sizeof *x);
    }
    f[at] = v;
    memcpy(starts + (size_t)at * ps->n, x, ps->n * sizeof *x);
    if (found < CLIMBS) found++;
  }
  free(x);
  return found;
}

/* The estimate that decides between the end points of the local searches:
 * SELECT_SAMPLES samples of a stream of their own, so that the choice does
 * not follow the search objective's noise (a winner's curse); memoised
 * like the objective (tag 3), since searches often end at the same point. */
static double precise_here(joint_t *j, const cex_t *c) {
  size_t n = j->ps->n;
  for (size_t i = 0; i < n; i++) j->key[i] = *joint_param_at((cex_t *)c, &j->ps->p[i]);
  j->key[n] = 3;
  const double *hit = memo_get(&j->memo, j->key);
  if (hit) return *hit;
  double v, err;
  joint_estimate_plain(j, c, SELECT_SAMPLES, j->o.seed ^ 0x5851f42dUL, &v, &err);
  memo_put(&j->memo, j->key, &v);
  return v;
}

/* precise_here's memoised value at c's environment, or NULL. */
static const double *precise_memo(joint_t *j, const cex_t *c) {
  size_t n = j->ps->n;
  for (size_t i = 0; i < n; i++) j->key[i] = *joint_param_at((cex_t *)c, &j->ps->p[i]);
  j->key[n] = 3;
  return memo_get(&j->memo, j->key);
}

/* Whether precise_here is strictly higher at x1 than at x0 (c's free
 * values), decided as early as the samples allow. Both estimates read the
 * same stream (common random numbers), so sample i's weights at x0 and x1
 * are paired; from PAIRED_MIN samples on, every PAIRED_STEP, a mean
 * difference more than PAIRED_Z standard errors from 0 decides (where one
 * estimate is memoised, its value and the other's mean and standard error).
 * Otherwise the two full estimates decide as before: the same
 * SELECT_SAMPLES samples, the same numbers. */
enum { PAIRED_MIN = 100, PAIRED_STEP = 50 };
static const double PAIRED_Z = 4;

static bool precise_higher(joint_t *j, cex_t *c, const params_t *ps, const double *x0, const double *x1) {
  const double *x[2] = {x0, x1}, *memo[2];
  double f[2], err;
  for (int k = 0; k < 2; k++) {
    set_params(c, ps, x[k]);
    memo[k] = precise_memo(j, c);
    if (memo[k]) f[k] = *memo[k];
  }
  unsigned long seed = j->o.seed ^ 0x5851f42dUL;
  joint_moments_t mo[2], diff;
  memset(mo, 0, sizeof mo), memset(&diff, 0, sizeof diff);
  for (unsigned long i = 0; i < SELECT_SAMPLES && !(memo[0] && memo[1]); i++) {
    double w[2];
    for (int k = 0; k < 2; k++) {
      if (memo[k]) continue;
      set_params(c, ps, x[k]);
      rng_t r = rng_for(seed, i);
      joint_moments_add(&mo[k], w[k] = joint_sample_from(j, c, &r, 0, 1, -1));
    }
    if (!memo[0] && !memo[1]) /* paired */
      joint_moments_add(&diff, w[1] - w[0]);
    else /* the other's mean against the memoised value */
      diff = memo[0] ? mo[1] : mo[0], diff.mean = memo[0] ? mo[1].mean - f[0] : f[1] - mo[0].mean;
    unsigned long n = i + 1;
    if (n >= PAIRED_MIN && n % PAIRED_STEP == 0 && n < SELECT_SAMPLES && diff.m2 > 0) {
      double se = sqrt(diff.m2 / (diff.n - 1) / diff.n);
      if (fabs(diff.mean) > PAIRED_Z * se) return diff.mean > 0;
    }
  }
  for (int k = 0; k < 2; k++)
    if (!memo[k]) joint_moments_result(&mo[k], &f[k], &err);
  return f[1] > f[0] && !same_value(f[1], f[0]);
}

/* The search's objective, 12 samples whose weights are often 0 or 1 (a
 * failure decided by errors drawn at earlier steps), is a step function:
 * its highest plateau, where the search ends, lies off the maximum by the
 * samples' noise (thermostat t3 t12 t12 t14: plateau centre 0.335, the
 * maximum at least 0.369). One more pass of line searches from the chosen
 * end point with FINE_FACTOR times the samples (the first 12 the same
 * draws); its end point replaces c's only where the precise estimate (its
 * own stream) is strictly higher, so an answer does not fall (decided by
 * precise_higher, early where the paired samples already tell). None can
 * be where that estimate is 1 at the chosen point (an estimate is at most
 * 1): there, when the 48-sample objective is 1 too, no line search. */
static void refine(joint_t *j, cex_t *c, const params_t *ps) {
  size_t n = ps->n;
  double *x0 = xmalloc((2 * n + 1) * sizeof *x0), *x1 = x0 + n;
  get_params(c, ps, x0);
  unsigned long samples = j->o.search_samples;
  j->o.search_samples = samples * FINE_FACTOR, j->fine = true;
  double best = objective_here(j, c);
  /* where the precise estimate is already 1 no end point can be kept (it is
   * at most 1): the same answer without the line searches */
  if (best >= 1 && precise_here(j, c) >= 1) best = 0;
  for (size_t i = 0; i < n && best > 0; i++) {
    bool flat = false;
    if (!ps->p[i].unread) line_search(j, c, &ps->p[i], false, &best, &flat);
  }
  j->o.search_samples = samples, j->fine = false;
  get_params(c, ps, x1);
  if (n && memcmp(x0, x1, n * sizeof *x0) != 0) set_params(c, ps, precise_higher(j, c, ps, x0, x1) ? x1 : x0);
  free(x0);
}

/* polish's window: where the fine objective falls below POLISH_LEVEL times
 * its value at the point, stepping out with doubling steps (at most
 * POLISH_STEPS each side); the parabola's points in it. */
enum { POLISH_STEPS = 8, POLISH_POINTS = 9 };
static const double POLISH_LEVEL = 0.3;

/* The least-squares parabola a0 + a1 t + a2 t^2 through (t[k], y[k]):
 * false when the normal equations are singular. */
static bool fit_parabola(const double *t, const double *y, int n, double a[3]) {
  double m[3][4] = {{0}};
  for (int k = 0; k < n; k++) {
    double v[3] = {1, t[k], t[k] * t[k]};
    for (int r = 0; r < 3; r++) {
      for (int q = 0; q < 3; q++) m[r][q] += v[r] * v[q];
      m[r][3] += v[r] * y[k];
    }
  }
  for (int col = 0; col < 3; col++) { /* Gauss-Jordan with partial pivoting */
    int piv = col;
    for (int r = col + 1; r < 3; r++)
      if (fabs(m[r][col]) > fabs(m[piv][col])) piv = r;
    if (!(fabs(m[piv][col]) > 1e-12)) return false;
    for (int q = 0; q < 4; q++) {
      double tmp = m[col][q];
      m[col][q] = m[piv][q], m[piv][q] = tmp;
    }
    for (int r = 0; r < 3; r++) {
      if (r == col) continue;
      double f = m[r][col] / m[col][col];
      for (int q = col; q < 4; q++) m[r][q] -= f * m[col][q];
    }
  }
  for (int r = 0; r < 3; r++) a[r] = m[r][3] / m[r][r];
  return true;
}

/* The fine objective's maximiser along one coordinate is off the maximum
 * by its samples' noise: on the analytic model's `go go go go` (closed
 * form: bench/search_noise.sh) the end points of five seeds lay up to 1.3
 * away from the optimum d = 40, 13% below it. A parabola fitted to the log
 * of the fine objective over the whole peak (the window where it stays
 * above POLISH_LEVEL of its value, at POLISH_POINTS points) averages that
 * noise out: its vertex lay within 0.45 of the optimum for the same seeds.
 * Log-concave objectives are near-parabolic in the log around their
 * maximum. Each coordinate the path reads, in turn, goes to its vertex
 * (the later ones fitted at the moved point); the polished point replaces
 * c's only where the precise estimate is strictly higher there
 * (precise_higher: one comparison), so no answer falls by it. A coordinate
 * is left where the window does not close on both sides (a plateau, the
 * box's end: refine decides there), the parabola is not concave or its
 * vertex lies outside the window; none where the fine objective is 1. */
static void polish(joint_t *j, cex_t *c, const params_t *ps) {
  size_t n = ps->n;
  double *x0 = xmalloc((2 * n + 1) * sizeof *x0), *x1 = x0 + n;
  double t[POLISH_POINTS], y[POLISH_POINTS];
  unsigned long samples = j->o.search_samples;
  get_params(c, ps, x0);
  for (size_t i = 0; i < n; i++) {
    const param_t *p = &ps->p[i];
    if (p->unread) continue;
    j->o.search_samples = samples * FINE_FACTOR, j->fine = true;
    double f0 = objective_here(j, c);
    if (f0 >= 1) f0 = 0; /* no point is higher: nothing to fit */
    double *at = joint_param_at(c, p), xc = *at;
    double lo = fmin(p->lo, xc), hi = fmax(p->hi, xc), edge[2];
    int closed = 0;
    for (int side = 0; side < 2 && f0 > 0; side++) {
      double sign = side ? 1 : -1, d = (hi - lo) / 256, x = xc;
      for (int s = 0; s < POLISH_STEPS; s++, d *= 2) {
        x = fmin(hi, fmax(lo, xc + sign * d));
        double f = objective(j, c, p, x);
        if (f < POLISH_LEVEL * f0) {
          closed++;
          break;
        }
        if (x == lo || x == hi || same_value(f, f0)) break; /* a box end, a plateau: no peak to fit */
      }
      edge[side] = x;
      if (closed <= side) break;
    }
    int used = 0;
    double width = closed == 2 ? edge[1] - edge[0] : 0, a[3];
    for (int g = 0; g < POLISH_POINTS && width > 0; g++) {
      double x = edge[0] + width * g / (POLISH_POINTS - 1), f = objective(j, c, p, x);
      if (f > 0) t[used] = (x - xc) / width, y[used++] = log(f);
    }
    j->o.search_samples = samples, j->fine = false;
    if (used < 4 || !fit_parabola(t, y, used, a) || !(a[2] < 0)) continue;
    double x = xc - a[1] / (2 * a[2]) * width;
    if (x > edge[0] && x < edge[1] && fabs(x - xc) > 1e-3 * width) *at = x;
  }
  get_params(c, ps, x1);
  if (n && memcmp(x0, x1, n * sizeof *x0) != 0) set_params(c, ps, precise_higher(j, c, ps, x0, x1) ? x1 : x0);
  free(x0);
}

/* Local maximisations from the best low-discrepancy starts and from c's
 * own environment (the solver's witness); c gets the end point with the
 * highest precise estimate (no estimate needed when only one end point has
 * positive probability), a start's on a tie, so that the witness decides
 * only where every start ends strictly lower. */
void maximise_search(joint_t *j, cex_t *c) {
  params_t ps;
  collect(j, c, &ps);
  size_t n = ps.n;
  j->ps = &ps;
  j->key = xmalloc((n + 1) * sizeof *j->key);
  memo_init(&j->memo, n + 1, sizeof(double), MEMO_MAX);
  unsigned long fine = j->o.search_samples * FINE_FACTOR; /* refine's runs continue from prefixes too */
  prefix_init(&j->pre, n, j->nv, fine <= 1000 ? fine : j->o.search_samples <= 1000 ? j->o.search_samples : 0);
  double *ends = xmalloc(((CLIMBS + 1) * n + 1) * sizeof(double)); /* the starts, then the end points */
  double *witness = xmalloc((n + 1) * sizeof(double));
  get_params(c, &ps, witness); /* before best_starts moves c */
  int nstarts = n ? best_starts(j, c, &ps, ends) : 0, nends = 0;
  memcpy(ends + (size_t)nstarts * n, witness, n * sizeof(double)); /* the witness last: it loses ties */
  free(witness);
  for (int k = 0; k <= nstarts; k++) {
    set_params(c, &ps, ends + (size_t)k * n);
    if (climb(j, c, &ps) > 0) get_params(c, &ps, ends + (size_t)nends++ * n);
  }
  int pick = nends - 1; /* none positive: c keeps the witness's climb */
  double fbest = -1;
  for (int k = 0; k < nends && nends > 1; k++) {
    set_params(c, &ps, ends + (size_t)k * n);
    double f = precise_here(j, c);
    if (f > fbest && !same_value(f, fbest)) fbest = f, pick = k;
  }
  if (pick >= 0) set_params(c, &ps, ends + (size_t)pick * n);
  if (pick >= 0) refine(j, c, &ps);
  if (pick >= 0) polish(j, c, &ps);
  free(ends), free(ps.p), free(j->key);
  prefix_free(&j->pre);
  memo_free(&j->memo);
  j->ps = NULL, j->key = NULL;
}
