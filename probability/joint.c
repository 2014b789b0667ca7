#include "probability/joint.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_qrng.h>

#include "ism/alloc.h"
#include "probability/dist.h"
#include "probability/joint_impl.h"
#include "probability/leaves.h"
#include "probability/maximise.h"

/* The long estimates (randomised quasi-Monte Carlo): the first QDIM draws of
 * a sample come from a point of Sobol's sequence shifted by one of
 * REPLICATES random shifts (sample i: shift i mod REPLICATES, point
 * i / REPLICATES); the error bar is the Student t half-width (9 degrees of
 * freedom: T_975) of the replicates' means. From LONG_MIN samples on they
 * stop, at a multiple of LONG_STEP, once it is within 0.5% of the estimate
 * plus 0.0005. */
enum { REPLICATES = 10, LONG_MIN = 500, LONG_STEP = 250 };
static const double T_975 = 2.262157;

void joint_options_init(joint_options_t *o) { *o = (joint_options_t){12, 4000, 4, 1}; }

typedef struct {
  const ism_model_t *m;
  bool *read; /* [nv] */
  bool grew;
} read_ctx_t;

static void mark_primed(void *ctx, const expr_t *var) {
  read_ctx_t *rc = ctx;
  int v = var->u.var.id;
  if (var->u.var.primed && rc->m->vars[v].sensing && !rc->read[v]) rc->read[v] = rc->grew = true;
}

/* next_read of action a: the primed values its constraints and failure
 * read, closed under the definitions (x' == expr) of the values read. */
static void mark_next_read(joint_t *j, size_t a) {
  const ism_action_t *act = &j->m->actions[a];
  read_ctx_t rc = {j->m, j->next_read + a * j->nv, false};
  for (size_t k = 0; k < act->neffects; k++)
    if (j->constraint[a][k]) expr_visit_vars(act->effects[k], mark_primed, &rc);
  if (act->failure) expr_visit_vars(act->failure, mark_primed, &rc);
  do {
    rc.grew = false;
    for (size_t v = 0; v < j->nv; v++)
      if (rc.read[v] && j->rhs[a * j->nv + v]) expr_visit_vars(j->rhs[a * j->nv + v], mark_primed, &rc);
  } while (rc.grew);
}

joint_t *joint_new(const ism_model_t *m, const joint_options_t *o) {
  joint_t *j = xcalloc(1, sizeof *j);
  size_t nv = m->nvars, n = nv + 1;
  j->m = m, j->o = *o, j->nv = nv;
  j->exact = xcalloc(n, sizeof *j->exact);
  j->has_dist = xcalloc(n, sizeof *j->has_dist);
  for (size_t v = 0; v < nv; v++)
    j->has_dist[v] = m->vars[v].uncertain && dist_of_var(&m->vars[v], &j->exact[v]);
  static const double widen[2] = {3, 1.5};
  for (int w = 0; w < 2; w++) {
    j->wide[w] = xcalloc(n, sizeof **j->wide);
    for (size_t v = 0; v < nv; v++) {
      const ism_var_t *var = &m->vars[v];
      double mid = (var->err_lo + var->err_hi) / 2, half = widen[w] * (var->err_hi - var->err_lo) / 2;
      if (j->has_dist[v] &&
          !dist_init(&j->wide[w][v], var->dist, mid - half, mid + half, var->mean, widen[w] * var->sd))
        j->wide[w][v] = j->exact[v];
    }
  }
  j->dists = j->exact;
  j->rhs = xcalloc(m->nactions * nv + 1, sizeof *j->rhs);
  j->constraint = xcalloc(m->nactions + 1, sizeof *j->constraint);
  for (size_t a = 0; a < m->nactions; a++) {
    const ism_action_t *act = &m->actions[a];
    j->constraint[a] = xcalloc(act->neffects + 1, sizeof **j->constraint);
    for (size_t k = 0; k < act->neffects; k++) {
      const expr_t *rhs = NULL;
      int v = ism_effect_defines(m, act->effects[k], &rhs);
      if (v >= 0 && !j->rhs[a * nv + (size_t)v])
        j->rhs[a * nv + (size_t)v] = rhs;
      else
        j->constraint[a][k] = true;
    }
  }
  j->next_read = xcalloc(m->nactions * nv + 1, sizeof *j->next_read);
  for (size_t a = 0; a < m->nactions; a++) mark_next_read(j, a);
  double **d[] = {&j->truth, &j->sensed, &j->env, &j->normal, &j->after, &j->actual};
  for (size_t k = 0; k < sizeof d / sizeof *d; k++) *d[k] = xcalloc(n, sizeof(double));
  j->a_now = xcalloc(n, sizeof(aff_t)), j->a_next = xcalloc(n, sizeof(aff_t)),
  j->a_norm = xcalloc(n, sizeof(aff_t));
  j->own_slot = xmalloc(n * sizeof *j->own_slot);
  j->extra = xcalloc(n, sizeof *j->extra);
  for (size_t v = 0; v < n; v++) j->own_slot[v] = -1;
  j->slot = j->own_slot;
  j->errs = xmalloc((m->nactions + 1) * n * sizeof *j->errs);
  for (size_t row = 0; row <= m->nactions; row++) {
    int *e = j->errs + row * n;
    for (size_t v = 0; v < nv; v++) {
      const ism_var_t *var = &m->vars[v];
      if (j->has_dist[v] && var->type.kind == TYPE_REAL &&
          (row == 0 ? var->sensing : !var->sensing && m->actions[row - 1].reads[v]))
        *e++ = (int)v;
    }
    *e = -1;
  }
  j->row_slot = xmalloc(((m->nactions + 1) * nv + 1) * sizeof *j->row_slot);
  j->row_many = xcalloc(m->nactions + 1, sizeof *j->row_many);
  for (size_t row = 0; row <= m->nactions; row++) {
    int *slot = j->row_slot + row * nv, k = 0;
    for (size_t v = 0; v < nv; v++) slot[v] = -1;
    for (const int *e = j->errs + row * n; *e >= 0; e++, k++) slot[*e] = k;
    j->row_many[row] = k > MAXF;
  }
  j->cell_w = xmalloc(MAX_CELLS * sizeof *j->cell_w);
  j->qmemo = xcalloc(QMEMO, sizeof *j->qmemo);
  j->pmemo = xcalloc(PMEMO, sizeof *j->pmemo);
  j->smemo = xcalloc(SMEMO, sizeof *j->smemo);
  leaves_compile(j); /* after the views: operands point to them */
  return j;
}

unsigned long joint_stage_memo(joint_t *j, bool on) {
  j->smemo_off = !on;
  return j->smemo_hits;
}

void joint_delete(joint_t *j) {
  if (!j) return;
  for (size_t a = 0; a < j->m->nactions; a++) free(j->constraint[a]);
  free(j->constraint), free(j->rhs), free(j->next_read), free(j->exact), free(j->wide[0]), free(j->wide[1]),
      free(j->has_dist);
  free(j->truth), free(j->sensed), free(j->env), free(j->normal), free(j->after), free(j->actual);
  free(j->a_now), free(j->a_next), free(j->a_norm), free(j->own_slot), free(j->extra), free(j->cell_w),
      free(j->qmemo), free(j->pmemo);
  free(j->row_slot), free(j->row_many);
  for (int k = 0; k < SMEMO; k++)
    if (j->smemo[k]) free(j->smemo[k]->in), free(j->smemo[k]->cell_w), free(j->smemo[k]);
  free(j->smemo);
  free(j->errs);
  leaves_free(j);
  free(j);
}

/* ---- stages ---- */

const cex_action_t *joint_action_at(const cex_t *c, int step, int position, size_t *index) {
  for (size_t k = 0; k < c->nactions; k++)
    if (c->actions[k].step == step && c->actions[k].position == position) {
      if (index) *index = k;
      return &c->actions[k];
    }
  return NULL;
}

/* *a = v's view: base + its new error (a constant once drawn, fixed). */
static void aff_set_var(const joint_t *j, aff_t *a, int v, double base) {
  int i = j->slot[v];
  aff_set_const(a, base + j->extra[v]);
  if (i < 0) return;
  if (j->fixed[i]) {
    a->c += j->x[i];
    return;
  }
  a->g[i] = 1, a->mask = 1u << i;
}

/* The stage's concrete values from x (and, with affine, its views). */
static void set_values(joint_t *j, bool affine) {
  size_t nv = j->nv;
  const bool *sensing = j->sensing;
  const int *slot = j->slot;
  const double *x = j->x, *extra = j->extra, *truth = j->truth, *normal = j->normal, *env = j->env;
  if (j->kind == STAGE_SENSE) {
    double *sensed = j->sensed;
    for (size_t v = 0; v < nv; v++) {
      int i = slot[v];
      sensed[v] = sensing[v] ? truth[v] + (i >= 0 ? x[i] : extra[v]) : normal[v];
    }
    /* the views aff_eval reads: a_now of a sensing variable, a_norm of the others */
    for (size_t v = 0; v < nv && affine; v++)
      if (sensing[v])
        aff_set_var(j, &j->a_now[v], (int)v, truth[v]);
      else
        aff_set_const(&j->a_norm[v], normal[v]);
    return;
  }
  const cex_action_t *given = j->given;
  double *actual = j->actual;
  for (size_t v = 0; v < nv; v++) {
    int i = slot[v];
    actual[v] = normal[v] + (i >= 0 ? x[i] : extra[v]);
  }
  for (size_t v = 0; v < nv && affine; v++)
    if (sensing[v])
      aff_set_const(&j->a_now[v], env[v]);
    else
      aff_set_var(j, &j->a_norm[v], (int)v, normal[v]);
  const after_t *row = j->after_of + (size_t)j->action * nv;
  for (const int *q = j->sensing_list; *q >= 0; q++) {
    int v = *q;
    const after_t *af = &row[v];
    switch (af->kind) {
    case AFTER_COPY: j->after[v] = af->from_env ? j->env[af->w] : j->actual[af->w]; break;
    case AFTER_PROG: j->after[v] = leaves_real_program(j, af->at, af->n, j->env, j->actual); break;
    case AFTER_NUMBER:
      j->after[v] = leaves_number(j->m, af->e, j->m->vars[v].type.kind, j->env, NULL, j->actual);
      break;
    case AFTER_FREE: j->after[v] = given ? given->after[v] : j->env[v]; break;
    }
    if (affine && af->next_read && af->affine) {
      aff_t tmp;
      aff_copy(&j->a_next[v], leaves_operand_value(j, &af->rhs, &tmp));
    } else if (affine && af->next_read)
      aff_set_const(&j->a_next[v], j->after[v]);
  }
}

/* The stage's value at the current concrete values: 0 or 1, or under
 * selection: any 1 / (number of enabled rules) when the path's rule is one. */
static double stage_value(joint_t *j) {
  const ism_model_t *m = j->m;
  if (j->kind == STAGE_SENSE) {
    int rule = j->c->rules[j->step], enabled = 0;
    bool mine = false;
    for (const int *q = m->rules_from[j->c->states[j->step]]; *q >= 0; q++) {
      bool on = leaves_holds(m, m->rules[*q].when, j->sensed, NULL, j->normal);
      if (m->selection == ISM_SELECT_FIRST && on) return *q == rule;
      enabled += on, mine |= on && *q == rule;
    }
    return mine ? 1.0 / enabled : 0;
  }
  const ism_action_t *a = &m->actions[j->action];
  for (size_t k = 0; k < a->neffects; k++)
    if (j->constraint[j->action][k] && !leaves_holds(m, a->effects[k], j->env, j->after, j->actual)) return 0;
  bool failed = a->failure && leaves_holds(m, a->failure, j->env, j->after, j->actual);
  return failed == j->want_fail;
}

static void sort_doubles(double *x, int n) {
  for (int k = 1; k < n; k++) {
    double v = x[k];
    int i = k;
    for (; i > 0 && x[i - 1] > v; i--) x[i] = x[i - 1];
    x[i] = v;
  }
}

/* An unconditioned draw of new error i. The search's objective draws the
 * same numbers in every evaluation (common random numbers), so the
 * quantiles of the last ones are kept: the same function of the same
 * arguments, the same result. */
static double draw_prior(joint_t *j, int i, rng_t *r) {
  const dist_t *d = &j->dists[j->fresh[i]];
  double u = uniform01(r);
  uint64_t bits;
  memcpy(&bits, &u, sizeof bits);
  bits ^= (uint64_t)(uintptr_t)d * 0x9e3779b97f4a7c15ULL;
  quantile_memo_t *q = &j->qmemo[(bits ^ bits >> 29 ^ bits >> 41) & (QMEMO - 1)];
  if (q->d != d || q->u != u) q->d = d, q->u = u, q->x = dist_quantile(d, u);
  return q->x;
}

/* The values of new error i for which every limit of the stage (the
 * necessary comparisons leaves_stage_limits recorded) can still hold: each
 * limit c + g_i x_i + sum g_k x_k op 0 with the errors k drawn since (fixed)
 * at their values and the others anywhere in their supports (interval
 * arithmetic), intersected; widened against rounding, so it holds every
 * value at which the stage's weight can be positive. */
static void limit_interval(const joint_t *j, int i, double *lo, double *hi) {
  double a = -INFINITY, b = INFINITY;
  for (int n = 0; n < j->nlim; n++) {
    const limit_t *li = &j->lim[n];
    if (!(li->mask >> i & 1) || li->g[i] == 0 || li->op == EXPR_NE) continue;
    double c = li->c, slo = 0, shi = 0;
    for (unsigned m = li->mask & ~(1u << i); m; m &= m - 1) {
      int k = __builtin_ctz(m);
      double g = li->g[k];
      if (g == 0) continue;
      if (j->fixed[k]) {
        c += g * j->x[k];
        continue;
      }
      const dist_t *d = &j->dists[j->fresh[k]];
      slo += g > 0 ? g * d->lo : g * d->hi;
      shi += g > 0 ? g * d->hi : g * d->lo;
    }
    /* g_i x_i >= -c - shi (for >=, >, ==) and g_i x_i <= -c - slo (for <=, <, ==) */
    double g = li->g[i];
    bool up = li->op == EXPR_GE || li->op == EXPR_GT || li->op == EXPR_EQ,
         down = li->op == EXPR_LE || li->op == EXPR_LT || li->op == EXPR_EQ;
    if (up && !isnan(-c - shi)) {
      double t = (-c - shi) / g;
      if (g > 0)
        a = fmax(a, t);
      else
        b = fmin(b, t);
    }
    if (down && !isnan(-c - slo)) {
      double t = (-c - slo) / g;
      if (g > 0)
        b = fmin(b, t);
      else
        a = fmax(a, t);
    }
  }
  *lo = a - 1e-9 * (1 + fabs(a)), *hi = b + 1e-9 * (1 + fabs(b));
}

/* A draw of new error i that no cut conditions (presampled): from its
 * distribution restricted to the interval I where the stage's necessary
 * comparisons can still hold given the errors drawn before it
 * (limit_interval), its mass m(I) multiplied into *w. Unbiased: the
 * stage's weight is 0 outside I, so E[f(x)] = m(I) E[f(x) | x in I]; where
 * I holds the support, the plain draw_prior. A draw per call, as
 * draw_prior (the streams stay aligned). */
static double draw_restricted(joint_t *j, int i, rng_t *r, double *w) {
  const dist_t *d = &j->dists[j->fresh[i]];
  double a, b;
  limit_interval(j, i, &a, &b);
  if (a <= d->lo && b >= d->hi) return draw_prior(j, i, r);
  double u = uniform01(r);
  if (a < d->lo) a = d->lo;
  if (b > d->hi) b = d->hi;
  double mass = a < b ? dist_mass(d, a, b) : 0;
  *w *= mass;
  return mass > 0 ? dist_quantile_in(d, a, b, u) : a;
}

static point_memo_t *point_slot(joint_t *j, const dist_t *d, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  bits ^= (uint64_t)(uintptr_t)d * 0x9e3779b97f4a7c15ULL;
  return &j->pmemo[(bits ^ bits >> 29 ^ bits >> 41) & (PMEMO - 1)];
}

/* dist_point, with the tail masses the memo has of x (the same GSL calls
 * on the same arguments gave them). */
static void point_at(joint_t *j, const dist_t *d, double x, dist_point_t *pt) {
  dist_point(d, x, pt);
  if (!isnan(pt->p) || d->kind != ISM_DIST_GAUSSIAN) return;
  const point_memo_t *m = point_slot(j, d, x);
  if (m->d == d && m->x == x) pt->p = m->p, pt->q = m->q;
}

static void point_keep(joint_t *j, const dist_t *d, const dist_point_t *pt) {
  if (d->kind != ISM_DIST_GAUSSIAN || (isnan(pt->p) && isnan(pt->q))) return;
  *point_slot(j, d, pt->x) = (point_memo_t){d, pt->x, pt->p, pt->q};
}

static unsigned fixed_mask(const joint_t *j) {
  unsigned m = 0;
  for (int i = 0; i < j->nfresh; i++) m |= (unsigned)j->fixed[i] << i;
  return m;
}

/* ---- the stage memo (stage_memo_t) ---- */

/* The memo slot of the stage begin_stage set up (a stage of a run whose
 * values no draw has reached: j->det), its key made the stage's: *hit when
 * it holds the stage's cells; NULL with new errors beyond MAXF (drawn
 * already). One slot per stage of a path (step and position). */
static stage_memo_t *stage_memo(joint_t *j, bool *hit) {
  *hit = false;
  if (j->extra_set) return NULL;
  size_t nv = j->nv;
  bool sense = j->kind == STAGE_SENSE, given = j->given != NULL, want_fail = !sense && j->want_fail;
  int state = sense ? j->c->states[j->step] : -1, rule = sense ? j->c->rules[j->step] : -1,
      action = sense ? -1 : j->action;
  const double *in[3] = {sense ? j->truth : j->env, j->normal, given ? j->given->after : NULL};
  stage_memo_t **slot = &j->smemo[(size_t)(j->step * 8 + (sense ? 0 : j->position + 1)) % SMEMO], *sm = *slot;
  if (!sm) {
    sm = *slot = xcalloc(1, sizeof *sm);
    sm->in = xmalloc(3 * nv * sizeof *sm->in + 1);
  }
  bool same = sm->filled && sm->kind == j->kind && sm->state == state && sm->rule == rule &&
              sm->action == action && sm->want_fail == want_fail && sm->given == given &&
              sm->dists == j->dists;
  for (int k = 0; k < 3 && in[k] && same; k++)
    same = !memcmp(sm->in + (size_t)k * nv, in[k], nv * sizeof(double));
  if (same) {
    *hit = true;
    return sm;
  }
  sm->filled = false;
  sm->kind = j->kind, sm->state = state, sm->rule = rule, sm->action = action;
  sm->want_fail = want_fail, sm->given = given, sm->dists = j->dists;
  for (int k = 0; k < 3 && in[k]; k++) memcpy(sm->in + (size_t)k * nv, in[k], nv * sizeof(double));
  return sm;
}

/* -1, 0 or 1 as v is below, at or above 0; 2 for NaN. */
static int sign_of(double v) { return v < 0 ? -1 : v > 0 ? 1 : v == 0 ? 0 : 2; }

/* Are the cells just computed a function of the stage's inputs alone? Every
 * leaf on an error drawn unconditioned (one segment: nseg <= 1) keeps its
 * value over the error's support: c + g x is monotone in x in floating point
 * too, so the same sign at both ends is the same sign between them. */
static bool cells_keepable(const joint_t *j, const int *nseg) {
  for (int n = 0; n < j->natoms; n++) {
    const atom_t *a = &j->atom[n];
    if (a->constant || nseg[a->i] > 1) continue;
    const dist_t *d = &j->dists[j->fresh[a->i]];
    int lo = sign_of(a->c + a->g * d->lo), hi = sign_of(a->c + a->g * d->hi);
    if (lo != hi || lo == 2) return false;
  }
  return true;
}

static void stage_memo_fill(joint_t *j, stage_memo_t *sm, int nvar, const int *order, const int *nseg,
                            double (*seg)[MAX_CUTS + 2], dist_point_t (*pt)[MAX_CUTS + 2], size_t cells,
                            double total) {
  if (!sm->cell_w) sm->cell_w = xmalloc(MAX_CELLS * sizeof *sm->cell_w);
  sm->nvar = nvar;
  memcpy(sm->order, order, (size_t)nvar * sizeof *order);
  memcpy(sm->nseg, nseg, (size_t)j->nfresh * sizeof *nseg);
  for (int q = 0; q < nvar; q++) {
    int i = order[q];
    memcpy(sm->seg[i], seg[i], (size_t)(nseg[i] + 1) * sizeof **seg);
    memcpy(sm->pt[i], pt[i], (size_t)(nseg[i] + 1) * sizeof **pt);
    for (int k = 0; k <= nseg[i]; k++) sm->cum[i][k] = NAN;
  }
  sm->cells = cells, sm->total = total;
  memcpy(sm->cell_w, j->cell_w, cells * sizeof *j->cell_w);
  sm->filled = true;
}

/* run_stage's draws and result from the memo: the same draws in the same
 * order, the same numbers. */
static double run_stage_memo(joint_t *j, stage_memo_t *sm, rng_t *r) {
  memset(j->x, 0, sizeof j->x), memset(j->fixed, 0, sizeof j->fixed); /* the whole arrays: no call */
  for (int i = 0; i < j->nfresh; i++)
    if (sm->nseg[i] <= 1) j->x[i] = draw_prior(j, i, r), j->fixed[i] = true;
  if (!(sm->total > 0)) return 0;
  double t = uniform01(r) * sm->total;
  size_t cell = 0;
  while (cell + 1 < sm->cells && (t -= sm->cell_w[cell]) > 0) cell++;
  while (sm->cell_w[cell] <= 0) cell = cell ? cell - 1 : cell + 1; /* rounding at the end of the list */
  size_t rest = cell;
  for (int q = 0; q < sm->nvar; q++) {
    int i = sm->order[q], k = (int)(rest % (size_t)sm->nseg[i]);
    rest /= (size_t)sm->nseg[i];
    const dist_t *d = &j->dists[j->fresh[i]];
    double a = sm->seg[i][k], b = sm->seg[i][k + 1];
    for (int e = k; e <= k + 1; e++)
      if (isnan(sm->cum[i][e])) sm->cum[i][e] = dist_mass_points(d, &sm->pt[i][0], &sm->pt[i][e]);
    double fa = sm->cum[i][k], fb = sm->cum[i][k + 1];
    double x = dist_quantile(d, fa + uniform01(r) * (fb - fa));
    j->x[i] = x < a ? a : x > b ? b : x;
  }
  set_values(j, false);
  return sm->total > 1 ? 1 : sm->total;
}

/* Draws the stage's new errors conditioned on its constraint; returns the
 * constraint's probability given everything drawn before (0: impossible). */
static double run_stage(joint_t *j, rng_t *r) {
  if (j->nfresh == 0) { /* no new error (a turn that reads no actuation error): one cell, no cuts */
    set_values(j, false);
    double w = stage_value(j);
    if (!(w > 0)) return 0;
    uniform01(r); /* the cell's draw, as for any stage: the streams stay aligned */
    return w > 1 ? 1 : w;
  }
  bool hit = false;
  stage_memo_t *sm = j->det && !j->may_err && !j->smemo_off ? stage_memo(j, &hit) : NULL;
  if (hit) {
    j->smemo_hits++;
    return run_stage_memo(j, sm, r);
  }
  cutset_t cs; /* cuts[i][k] is meaningful for k < ncuts[i] only: not cleared */
  cs.presample = 0, cs.overflow = false;
  memset(j->x, 0, sizeof j->x), memset(j->fixed, 0, sizeof j->fixed); /* the whole arrays: no call */
  bool settled = false; /* the last pass's views and leaves are those of the conditioned errors */
  double wpre = 1;      /* the masses of the presampled errors' intervals (draw_restricted) */
  for (int pass = 0; pass <= MAXF && !settled; pass++) {
    unsigned before = cs.presample;
    if (cs.presample & ~fixed_mask(j)) leaves_stage_limits(j); /* at the last pass's views */
    for (int i = 0; i < j->nfresh; i++)
      if (cs.presample >> i & 1 && !j->fixed[i])
        j->x[i] = draw_restricted(j, i, r, &wpre), j->fixed[i] = true;
    if (!(wpre > 0)) return 0;
    set_values(j, true);
    memset(cs.ncuts, 0, sizeof cs.ncuts);
    cs.overflow = false;
    leaves_stage_atoms(j, &cs);
    settled = cs.presample == before;
  }
  if (cs.presample || j->extra_set) j->chance = true;
  bool compiled = settled && j->compiled;
  /* segments of each conditioned error: lo, the cuts inside, hi */
  double seg[MAXF][MAX_CUTS + 2], segmass[MAXF][MAX_CUTS + 1];
  dist_point_t seg_pt[MAXF][MAX_CUTS + 2]; /* the segments' ends, sharing their tail masses */
  int nseg[MAXF] = {0}, order[MAXF], nvar = 0;
  size_t cells = 1;
  for (int i = 0; i < j->nfresh && !cs.overflow; i++) {
    if (j->fixed[i] || !cs.ncuts[i]) continue;
    const dist_t *d = &j->dists[j->fresh[i]];
    int n = 0;
    seg[i][n++] = d->lo;
    for (int k = 0; k < cs.ncuts[i]; k++)
      if (cs.cuts[i][k] > d->lo && cs.cuts[i][k] < d->hi) seg[i][n++] = cs.cuts[i][k];
    seg[i][n++] = d->hi;
    sort_doubles(seg[i] + 1, n - 2); /* the cuts between lo and hi */
    int distinct = 1; /* a cut repeated (rules of one state test the same guard) adds only empty cells */
    for (int k = 1; k < n; k++)
      if (seg[i][k] != seg[i][distinct - 1]) seg[i][distinct++] = seg[i][k];
    n = distinct > 1 ? distinct : 2;
    nseg[i] = n - 1;
    if (nseg[i] == 1) continue; /* drawn unconditioned below: its masses are never read */
    for (int k = 0; k <= nseg[i]; k++) point_at(j, d, seg[i][k], &seg_pt[i][k]);
    for (int k = 0; k < nseg[i]; k++) segmass[i][k] = dist_mass_points(d, &seg_pt[i][k], &seg_pt[i][k + 1]);
    for (int k = 1; k < nseg[i]; k++) point_keep(j, d, &seg_pt[i][k]);
    if (nseg[i] > 1) order[nvar++] = i;
    if ((cells *= (size_t)nseg[i]) > MAX_CELLS) cs.overflow = true;
  }
  if (cs.overflow) { /* too many cells: everything presampled, the indicator as weight */
    j->chance = true;
    leaves_stage_limits(j);
    for (int i = 0; i < j->nfresh; i++)
      if (!j->fixed[i]) j->x[i] = draw_restricted(j, i, r, &wpre), j->fixed[i] = true;
    if (!(wpre > 0)) return 0;
    set_values(j, false);
    return wpre * stage_value(j);
  }
  /* errors with one segment (no cut inside) do not change the value: drawn unconditioned */
  for (int i = 0; i < j->nfresh; i++)
    if (!j->fixed[i] && nseg[i] <= 1) j->x[i] = draw_prior(j, i, r), j->fixed[i] = true;
  double total = 0;
  for (size_t cell = 0; cell < cells; cell++) {
    double mass = 1;
    size_t rest = cell;
    for (int q = 0; q < nvar; q++) {
      int i = order[q], k = (int)(rest % (size_t)nseg[i]);
      rest /= (size_t)nseg[i];
      double a = seg[i][k], b = seg[i][k + 1];
      j->x[i] = a + (b - a) / 2;
      mass *= segmass[i][k];
    }
    double w = 0;
    if (mass > 0 && compiled)
      w = mass * leaves_cell_value(j);
    else if (mass > 0) {
      set_values(j, false);
      w = mass * stage_value(j);
    }
    j->cell_w[cell] = w;
    total += w;
  }
  if (sm && compiled && !cs.presample && cells_keepable(j, nseg))
    stage_memo_fill(j, sm, nvar, order, nseg, seg, seg_pt, cells, total);
  if (!(total > 0)) return 0;
  double t = uniform01(r) * total;
  size_t cell = 0;
  while (cell + 1 < cells && (t -= j->cell_w[cell]) > 0) cell++;
  while (j->cell_w[cell] <= 0) cell = cell ? cell - 1 : cell + 1; /* rounding at the end of the list */
  size_t rest = cell;
  for (int q = 0; q < nvar; q++) {
    int i = order[q], k = (int)(rest % (size_t)nseg[i]);
    rest /= (size_t)nseg[i];
    const dist_t *d = &j->dists[j->fresh[i]];
    double a = seg[i][k], b = seg[i][k + 1];
    double fa = dist_mass_points(d, &seg_pt[i][0], &seg_pt[i][k]),
           fb = dist_mass_points(d, &seg_pt[i][0], &seg_pt[i][k + 1]);
    double x = dist_quantile(d, fa + uniform01(r) * (fb - fa));
    j->x[i] = x < a ? a : x > b ? b : x;
  }
  set_values(j, false);
  return wpre * (total > 1 ? 1 : total);
}

static void begin_stage(joint_t *j, stage_kind_t kind, rng_t *r) {
  j->kind = kind;
  j->nfresh = 0;
  j->given = kind == STAGE_ACTION ? joint_action_at(j->c, j->step, j->position, NULL) : NULL;
  size_t row = kind == STAGE_SENSE ? 0 : (size_t)j->action + 1;
  const int *e = j->errs + row * (j->nv + 1);
  if (j->extra_set) memset(j->extra, 0, j->nv * sizeof *j->extra), j->extra_set = false;
  if (!j->row_many[row]) {
    j->slot = j->row_slot + row * j->nv;
    for (; *e >= 0; e++) j->fresh[j->nfresh++] = *e;
    return;
  }
  j->slot = j->own_slot;
  for (size_t v = 0; v < j->nv; v++) j->own_slot[v] = -1;
  for (; *e >= 0; e++) {
    if (j->nfresh == MAXF)
      j->extra[*e] = dist_quantile(&j->dists[*e], uniform01(r)), j->extra_set = true;
    else
      j->own_slot[*e] = j->nfresh, j->fresh[j->nfresh++] = *e;
  }
}

static double error_score(const joint_t *j) {
  double s = 0;
  for (int i = 0; i < j->nfresh; i++) {
    const dist_t *d = &j->dists[j->fresh[i]];
    double scale = d->kind == ISM_DIST_GAUSSIAN ? d->sd : (d->hi - d->lo) / 2;
    if (scale > 0) s += pow((j->x[i] - dist_mode(d)) / scale, 2);
  }
  return s;
}

/* ---- can a weight of 1 sample differ from another's? ---- */

/* Which values of a run depend on its draws (tainted), as the path's
 * structure says: a sensing error makes the sensed value random, an
 * assignment or an effect that reads a random value makes its result
 * random, an actuation error makes the actual value random. */
typedef struct {
  const ism_model_t *m;
  const bool *now, *next, *norm; /* taint of what a sensing variable, a primed one, a normal one reads */
  bool hit;
} taint_ctx_t;

static void taint_var(void *ctx, const expr_t *var) {
  taint_ctx_t *t = ctx;
  int v = var->u.var.id;
  const bool *from = !t->m->vars[v].sensing ? t->norm : var->u.var.primed ? t->next : t->now;
  if (from && from[v]) t->hit = true;
}

static bool reads_taint(const ism_model_t *m, const expr_t *e, const bool *now, const bool *next,
                        const bool *norm) {
  taint_ctx_t t = {m, now, next, norm, false};
  if (e) expr_visit_vars(e, taint_var, &t);
  return t.hit;
}

/* Whether the weight of a run along c can depend on its draws other than
 * through the exact masses of the conditioned errors: some stage, range
 * check or model-wide failure reads a value an earlier draw made random.
 * Where it cannot (and no error is presampled: j->chance), every sample
 * has the same weight and that weight is the probability; where it can, a
 * 0/1 factor may be 0 on a set of draws no sample met, so equal weights
 * prove nothing (reported_result). Walks the path as joint_sample_from
 * does. */
static bool path_draws_matter(const joint_t *j, const cex_t *c) {
  const ism_model_t *m = j->m;
  size_t nv = j->nv;
  bool *tt = xcalloc(4 * nv + 1, sizeof *tt), *tn = tt + nv, *ts = tt + 2 * nv, *te = tt + 3 * nv;
  bool *tafter = xcalloc(3 * nv + 1, sizeof *tafter), *tact = tafter + nv, *tnext = tafter + 2 * nv;
  bool matter = false;
  for (int k = 0; k < c->length && !matter; k++) {
    bool last = k + 1 == c->length;
    for (size_t v = 0; v < nv; v++)
      if (m->vars[v].sensing && m->vars[v].has_range && tt[v]) matter = true;
    for (const int *q = m->rules_from[c->states[k]]; *q >= 0; q++) { /* the guards the stage reads */
      if (reads_taint(m, m->rules[*q].when, tt, NULL, tn)) matter = true;
      if (m->selection == ISM_SELECT_FIRST && *q == c->rules[k]) break;
    }
    for (size_t v = 0; v < nv; v++) ts[v] = m->vars[v].sensing ? tt[v] || j->has_dist[v] : tn[v];
    const ism_rule_t *rule = &m->rules[c->rules[k]];
    memcpy(te, tt, nv * sizeof *te);
    bool ended = false;
    for (size_t p = 0; p < rule->nsteps && !ended && !matter; p++) {
      const ism_step_t *st = &rule->steps[p];
      if (st->kind == ISM_STEP_ASSIGN) {
        tn[st->var] = reads_taint(m, st->value, ts, NULL, tn);
        continue;
      }
      size_t a = (size_t)st->action;
      const ism_action_t *act = &m->actions[a];
      /* the after values: random where a definition reads a random value or an actual value with
       * this stage's error (tafter); without this stage's errors (tnext), what the stage's
       * constraint and failure read through a primed value: its own errors are conditioned, exact */
      bool given = joint_action_at(c, k, (int)p, NULL) != NULL;
      for (size_t v = 0; v < nv; v++) tact[v] = tn[v];
      for (const int *e = j->errs + (a + 1) * (nv + 1); *e >= 0; e++) tact[*e] = true;
      for (size_t v = 0; v < nv; v++) tafter[v] = tnext[v] = !j->rhs[a * nv + v] && !given && te[v];
      for (bool grew = true; grew;) { /* a definition may read another primed value */
        grew = false;
        for (size_t v = 0; v < nv; v++) {
          const expr_t *rhs = j->rhs[a * nv + v];
          if (!m->vars[v].sensing || !rhs) continue;
          if (!tafter[v] && reads_taint(m, rhs, te, tafter, tact)) tafter[v] = grew = true;
          if (!tnext[v] && reads_taint(m, rhs, te, tnext, tn)) tnext[v] = grew = true;
        }
      }
      for (size_t e = 0; e < act->neffects; e++)
        if (j->constraint[a][e] && reads_taint(m, act->effects[e], te, tnext, tn)) matter = true;
      if (reads_taint(m, act->failure, te, tnext, tn)) matter = true;
      memcpy(te, tafter, nv * sizeof *te);
      if (last && (int)p == c->fail_position) ended = true;
    }
    for (size_t v = 0; v < nv; v++) {
      if (!m->vars[v].sensing)
        tt[v] = tn[v];
      else if (rule->has_action)
        tt[v] = te[v];
      else if (m->vars[v].dynamic)
        tt[v] = false;
    }
    if (!ended && m->failure && reads_taint(m, m->failure, tt, NULL, tn)) matter = true;
  }
  free(tt), free(tafter);
  return matter;
}

/* ---- one sampled run along the path ---- */

static bool in_range(const ism_model_t *m, const double *truth) {
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    if (var->sensing && var->has_range && !(truth[v] >= var->range_lo && truth[v] <= var->range_hi))
      return false;
  }
  return true;
}

static void record_action(joint_t *j) {
  size_t nv = j->nv;
  if (!j->rec || !j->given) return;
  size_t index = (size_t)(j->given - j->c->actions);
  for (size_t v = 0; v < nv; v++) {
    bool sensing = j->m->vars[v].sensing;
    j->rec->before[index * nv + v] = sensing ? j->env[v] : j->normal[v];
    j->rec->after[index * nv + v] = sensing ? j->after[v] : j->normal[v];
    j->rec->actual[index * nv + v] = j->actual[v];
  }
}

/* Executes the rest of the last rule after its failing action (values
 * only, for the record). */
static bool finish_rule(joint_t *j, const ism_rule_t *rule, size_t from, rng_t *r) {
  const ism_model_t *m = j->m;
  for (size_t p = from; p < rule->nsteps; p++) {
    const ism_step_t *st = &rule->steps[p];
    if (st->kind == ISM_STEP_ASSIGN) {
      j->normal[st->var] =
          leaves_number(m, st->value, m->vars[st->var].type.kind, j->sensed, NULL, j->normal);
      continue;
    }
    j->position = (int)p, j->action = st->action;
    begin_stage(j, STAGE_ACTION, r);
    for (int i = 0; i < j->nfresh; i++) j->x[i] = draw_prior(j, i, r), j->fixed[i] = true;
    set_values(j, false);
    j->want_fail = m->actions[st->action].failure &&
                   leaves_holds(m, m->actions[st->action].failure, j->env, j->after, j->actual);
    if (stage_value(j) <= 0) return false;
    record_action(j);
    memcpy(j->env, j->after, j->nv * sizeof *j->env);
  }
  return true;
}

/* Stores the run's state at the start of j->pre.step as sample i. */
static void prefix_store(joint_t *j, unsigned long i, double w, const rng_t *r) {
  memcpy(j->pre.truth + i * j->nv, j->truth, j->nv * sizeof *j->truth);
  memcpy(j->pre.normal + i * j->nv, j->normal, j->nv * sizeof *j->normal);
  j->pre.w[i] = w, j->pre.r[i] = *r;
}

/* The weight of one sampled run from step `from` on, with weight w so far:
 * from 0, the run starts in c's initial environment; otherwise j->truth,
 * j->normal and *r hold a run's state at the start of that step. With j->rec
 * (from 0 only), records its values; with store >= 0, stores the state at
 * the start of j->pre.step as that sample (prefix_store). */
double joint_sample_from(joint_t *j, const cex_t *c, rng_t *r, int from, double w, long store) {
  const ism_model_t *m = j->m;
  size_t nv = j->nv;
  j->c = c;
  if (from == 0) {
    memcpy(j->truth, c->truth, nv * sizeof *j->truth);
    memcpy(j->normal, c->truth, nv * sizeof *j->normal);
    for (size_t k = 0; k < m->nassume; k++) /* an environment outside the model's assumption */
      if (!leaves_holds(m, m->assume[k], j->truth, NULL, j->normal)) return 0;
  }
  double score = 0;
  j->det = from == 0;
  for (int k = from; k < c->length; k++) {
    bool last = k + 1 == c->length;
    if (store >= 0 && k == j->pre.step) prefix_store(j, (unsigned long)store, w, r);
    if (!in_range(m, j->truth)) return 0;
    j->step = k;
    begin_stage(j, STAGE_SENSE, r);
    if ((w *= run_stage(j, r)) <= 0) return 0;
    bool sensed_drawn = j->nfresh > 0 || j->extra_set; /* an assignment may read a drawn value */
    if (j->rec) score += error_score(j);
    if (j->rec)
      for (size_t v = 0; v < nv; v++) {
        j->rec->truth[(size_t)k * nv + v] = m->vars[v].sensing ? j->truth[v] : j->normal[v];
        j->rec->sensed[(size_t)k * nv + v] = j->sensed[v];
      }
    const ism_rule_t *rule = &m->rules[c->rules[k]];
    memcpy(j->env, j->truth, nv * sizeof *j->env);
    bool ended = false;
    for (size_t p = 0; p < rule->nsteps && !ended; p++) {
      const ism_step_t *st = &rule->steps[p];
      if (st->kind == ISM_STEP_ASSIGN) {
        j->normal[st->var] =
            leaves_number(m, st->value, m->vars[st->var].type.kind, j->sensed, NULL, j->normal);
        j->det &= !sensed_drawn;
        continue;
      }
      j->position = (int)p, j->action = st->action;
      j->want_fail = last && (int)p == c->fail_position;
      begin_stage(j, STAGE_ACTION, r);
      if ((w *= run_stage(j, r)) <= 0) return 0;
      j->det &= !(j->nfresh > 0 || j->extra_set); /* the actual values, so the after ones, may be drawn */
      if (j->rec) score += error_score(j);
      record_action(j);
      memcpy(j->env, j->after, nv * sizeof *j->env);
      if (j->want_fail) {
        ended = true;
        if (j->rec && !finish_rule(j, rule, p + 1, r)) score = INFINITY;
      }
    }
    for (size_t v = 0; v < nv; v++) {
      if (!m->vars[v].sensing)
        j->truth[v] = j->normal[v];
      else if (rule->has_action)
        j->truth[v] = j->env[v];
      else if (m->vars[v].dynamic)
        j->truth[v] = c->truth[(size_t)(k + 1) * nv + v];
    }
    if (!ended) {
      bool global = m->failure && leaves_holds(m, m->failure, j->truth, NULL, j->normal);
      if (global != (last && c->fail_position < 0)) return 0;
    }
  }
  if (j->rec) {
    memcpy(j->rec->truth + (size_t)c->length * nv, j->truth, nv * sizeof *j->truth);
    j->rec->score = score;
  }
  return w;
}

static double sample_path(joint_t *j, const cex_t *c, rng_t *r) {
  return joint_sample_from(j, c, r, 0, 1, -1);
}

void joint_moments_add(joint_moments_t *mo, double w) {
  if (mo->n == 0 || w < mo->lo) mo->lo = w;
  if (mo->n == 0 || w > mo->hi) mo->hi = w;
  mo->n++;
  double d = w - mo->mean;
  mo->mean += d / mo->n;
  mo->m2 += d * (w - mo->mean);
}

void joint_moments_result(const joint_moments_t *mo, double *p, double *error) {
  *p = mo->mean > 1 ? 1 : mo->mean < 0 ? 0 : mo->mean;
  bool equal = mo->hi - mo->lo <= 1e-12 * mo->hi; /* every weight the same: exact up to rounding */
  *error = equal || mo->n < 2 ? 0 : 1.96 * sqrt(mo->m2 / (mo->n - 1) / mo->n);
}

/* The stopping rule of long estimates: the half-width within 0.5% of the estimate, plus 0.0005. */
static bool precise_enough(const joint_moments_t *mo) {
  double p, half;
  joint_moments_result(mo, &p, &half);
  return half <= 0.005 * p + 0.0005;
}

void joint_estimate_plain(joint_t *j, const cex_t *c, unsigned long samples, unsigned long seed, double *p,
                          double *error) {
  joint_moments_t mo = {0};
  for (unsigned long i = 0; i < samples; i++) {
    if (i >= 1000 && i % 500 == 0 && precise_enough(&mo)) break;
    rng_t r = rng_for(seed, i);
    joint_moments_add(&mo, sample_path(j, c, &r));
  }
  joint_moments_result(&mo, p, error);
}

/* A long estimate in progress (randomised quasi-Monte Carlo, QDIM above). */
typedef struct {
  gsl_qrng *sobol;
  unsigned long seed, n;
  double base[QDIM], point[QDIM], shift[REPLICATES][QDIM], sum[REPLICATES];
  unsigned long count[REPLICATES];
  joint_moments_t all;
} long_est_t;

static void long_init(long_est_t *le, unsigned long seed) {
  memset(le, 0, sizeof *le);
  le->sobol = gsl_qrng_alloc(gsl_qrng_sobol, QDIM);
  le->seed = seed;
  for (int q = 0; q < REPLICATES; q++) {
    rng_t r = rng_for(seed ^ 0x3c6ef372UL, (unsigned long)q);
    for (int k = 0; k < QDIM; k++) le->shift[q][k] = uniform01(&r);
  }
}

static void long_free(long_est_t *le) { gsl_qrng_free(le->sobol); }

/* The generator of the next sample: its first QDIM draws from the shifted
 * point, the rest from the sample's own stream. */
static rng_t long_rng(long_est_t *le) {
  int q = (int)(le->n % REPLICATES);
  if (q == 0) gsl_qrng_get(le->sobol, le->base);
  for (int k = 0; k < QDIM; k++) {
    double u = le->base[k] + le->shift[q][k];
    if (u >= 1) u -= 1;
    le->point[k] = u > 0 ? u : 0x1p-54;
  }
  rng_t r = rng_for(le->seed, le->n);
  r.q = le->point;
  return r;
}

static void long_add(long_est_t *le, double w) {
  int q = (int)(le->n % REPLICATES);
  joint_moments_add(&le->all, w);
  le->sum[q] += w, le->count[q]++, le->n++;
}

/* The mean of every sample; the error bar from the replicates' means (0
 * when every sample has the same weight). */
static void long_result(const long_est_t *le, double *p, double *error) {
  joint_moments_result(&le->all, p, error);
  if (*error == 0) return;
  joint_moments_t rm = {0};
  for (int q = 0; q < REPLICATES; q++)
    if (le->count[q]) joint_moments_add(&rm, le->sum[q] / (double)le->count[q]);
  double mean, half;
  joint_moments_result(&rm, &mean, &half);
  *error = rm.n < REPLICATES ? 1 : half / 1.96 * T_975;
}

/* long_result for a reported estimate. When every sample weighed the same w that is proof
 * of probability w only where no weight can depend on the draws but through exact masses
 * (matter false: path_draws_matter and no presampled error). Otherwise a 0/1 factor may
 * differ on a set of draws no sample met, whose mass is below 3/n with 95% confidence (the
 * rule of three); the weights lie in [0, 1], so the mean is within 3/n max(w, 1 - w) of w.
 * That is the bar, not 0. Every weight 0 always gets it: a ranked counterexample is not
 * boundary-only, so some environment gives it a positive probability (cruise's
 * `e0 a3 a8 a15` at bound 6 has about 1.9e-11 at best, worked out apart in the eleventh
 * session). Seed 92 of tests/random_verify.sh had `r3 r3` at 1 +- 0 where its environment
 * gives 0.9987 (twelfth session). */
static void reported_result(const long_est_t *le, bool matter, double *p, double *error) {
  long_result(le, p, error);
  if (*error == 0 && le->n && (*p == 0 || matter)) *error = 3.0 / (double)le->n * fmax(*p, 1 - *p);
}

/* Stop now? From LONG_MIN samples on, at multiples of LONG_STEP, once the bar is within 0.5%
 * of the estimate plus 0.0005: the bar reported_result gives where every weight is the same
 * and positive, so such an estimate goes on until the rule of three's bar is narrow enough;
 * where every weight is 0, the bar of 0 (more samples of such an estimate would only narrow
 * the bar of a zero). */
static bool long_done(const long_est_t *le, bool matter) {
  if (le->n < LONG_MIN || le->n % LONG_STEP) return false;
  double p, half;
  long_result(le, &p, &half);
  if (half == 0 && p > 0 && matter) reported_result(le, matter, &p, &half);
  return half <= 0.005 * p + 0.0005;
}

void joint_estimate(joint_t *j, const cex_t *c, unsigned long samples, unsigned long seed, double *p,
                    double *error) {
  j->rec = NULL;
  j->chance = false;
  bool matter = path_draws_matter(j, c);
  long_est_t le;
  long_init(&le, seed);
  while (le.n < samples && !long_done(&le, matter || j->chance)) {
    rng_t r = long_rng(&le);
    long_add(&le, sample_path(j, c, &r));
  }
  reported_result(&le, matter || j->chance, p, error);
  long_free(&le);
}

bool joint_maximise(joint_t *j, cex_t *c) {
  size_t nv = j->nv;
  j->rec = NULL;
  if (j->o.sweeps > 0) maximise_search(j, c);
  /* the reported estimate and one run realising it, on a stream of their own */
  record_t cur = {0}, keep = {0};
  record_t *rs[2] = {&cur, &keep};
  for (int k = 0; k < 2; k++) {
    rs[k]->truth = xcalloc(((size_t)c->length + 1) * nv + 1, sizeof(double));
    rs[k]->sensed = xcalloc((size_t)c->length * nv + 1, sizeof(double));
    rs[k]->before = xcalloc(c->nactions * nv + 1, sizeof(double));
    rs[k]->after = xcalloc(c->nactions * nv + 1, sizeof(double));
    rs[k]->actual = xcalloc(c->nactions * nv + 1, sizeof(double));
    rs[k]->score = INFINITY;
  }
  for (size_t a = 0; a < c->nactions; a++) /* actions a run may skip keep c's values */
    for (size_t v = 0; v < nv; v++) {
      for (int k = 0; k < 2; k++) {
        rs[k]->before[a * nv + v] = c->actions[a].before[v];
        rs[k]->after[a * nv + v] = c->actions[a].after[v];
        rs[k]->actual[a * nv + v] = c->actions[a].actual[v];
      }
    }
  long_est_t le;
  long_init(&le, j->o.seed ^ 0x7f4a7c15UL);
  j->chance = false;
  bool matter = path_draws_matter(j, c);
  unsigned long n = j->o.final_samples ? j->o.final_samples : 1;
  while (le.n < n && !long_done(&le, matter || j->chance)) {
    rng_t r = long_rng(&le);
    j->rec = &cur;
    cur.score = INFINITY;
    double w = sample_path(j, c, &r);
    long_add(&le, w);
    if (w > 0 && cur.score < keep.score) {
      record_t t = keep;
      keep = cur, cur = t;
      memcpy(cur.before, keep.before, c->nactions * nv * sizeof(double));
      memcpy(cur.after, keep.after, c->nactions * nv * sizeof(double));
      memcpy(cur.actual, keep.actual, c->nactions * nv * sizeof(double));
    }
  }
  j->rec = NULL;
  c->has_probability = true;
  reported_result(&le, matter || j->chance, &c->probability, &c->probability_error);
  long_free(&le);
  bool replaced = isfinite(keep.score);
  if (replaced) {
    memcpy(c->truth, keep.truth, ((size_t)c->length + 1) * nv * sizeof(double));
    memcpy(c->sensed, keep.sensed, (size_t)c->length * nv * sizeof(double));
    for (size_t a = 0; a < c->nactions; a++) {
      memcpy(c->actions[a].before, keep.before + a * nv, nv * sizeof(double));
      memcpy(c->actions[a].after, keep.after + a * nv, nv * sizeof(double));
      memcpy(c->actions[a].actual, keep.actual + a * nv, nv * sizeof(double));
    }
  }
  for (int k = 0; k < 2; k++)
    free(rs[k]->truth), free(rs[k]->sensed), free(rs[k]->before), free(rs[k]->after), free(rs[k]->actual);
  return replaced;
}
