#include "probability/joint.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_qrng.h>

#include "ism/alloc.h"
#include "probability/dist.h"
#include "probability/lowdisc.h"
#include "probability/memo.h"

enum {
  MAXF = JOINT_MAXF,
  MAX_CUTS = JOINT_MAX_CUTS,
  MAX_CELLS = JOINT_MAX_CELLS,
  GRID = 9,
  GOLDEN_STEPS = 8,
  EDGE_STEPS = 5
};

/* to_edge's bisection steps to the edge of the support. */
enum { EDGE_BISECTIONS = 16 };

/* The maximisation's low-discrepancy starts, and how many of the best get a local search. */
enum { STARTS = 16, CLIMBS = 2, SELECT_SAMPLES = 1000, MEMO_MAX = 1 << 16 };

/* refine's objective: this many times the search's samples. */
enum { FINE_FACTOR = 4 };

/* The long estimates (randomised quasi-Monte Carlo): the first QDIM draws of
 * a sample come from a point of Sobol's sequence shifted by one of
 * REPLICATES random shifts (sample i: shift i mod REPLICATES, point
 * i / REPLICATES); the error bar is the Student t half-width (9 degrees of
 * freedom: T_975) of the replicates' means. From LONG_MIN samples on they
 * stop, at a multiple of LONG_STEP, once it is within 0.5% of the estimate
 * plus 0.0005. */
enum { QDIM = 40, REPLICATES = 10, LONG_MIN = 500, LONG_STEP = 250 };
static const double T_975 = 2.262157;

/* An affine form c + sum g[i] * x_i in a stage's new errors x_i; mask says
 * which x_i it reads (also when it is not affine in them: ok false). */
typedef struct {
  double c;
  double g[MAXF];
  unsigned mask;
  bool ok;
} aff_t;

/* A leaf of a stage's constraint as its cells see it, in the order atoms()
 * visits the leaves: a constant (it reads no error conditioned in the
 * stage: evaluated once, concretely), or a comparison of the affine form
 * c + g x_i with 0 in one conditioned error x_i. */
typedef struct {
  bool constant, value;
  expr_kind_t op;
  int i;
  double c, g;
} atom_t;

/* An operand of a real comparison compiled to postfix (cop_t) over the
 * stage's views, computing what aff_eval computes with the same operations
 * in the same order; leaf_t a leaf of a guard, effect or failure as atoms()
 * sees it (its class depends on types only, so it is fixed per model). */
typedef enum {
  COP_VIEW,   /* push the view of variable v: which 0 a_now, 1 a_next, 2 a_norm */
  COP_CONST,  /* push the literal k */
  COP_NUMBER, /* push the concrete value of e (a variable that is not real) */
  COP_OTHER,  /* push aff_eval's tail on e: not affine where it reads a new error, else its value */
  COP_NEG,
  COP_ADD,
  COP_SUB,
  COP_MUL,
  COP_DIV
} cop_kind_t;

typedef struct {
  cop_kind_t op;
  int v, which;
  double k;
  const expr_t *e;
} cop_t;

enum { MAX_COPS = 16 }; /* a longer operand is evaluated by aff_ref (n 0) */

typedef enum {
  OPD_VIEW,  /* the view of variable v (which as in COP_VIEW): read in place */
  OPD_CONST, /* the literal k */
  OPD_SUM,   /* view or literal a + sign * view or literal b (k holds a literal a, k2 a literal b) */
  OPD_PROG,  /* n postfix ops cops[at ...] */
  OPD_TREE   /* aff_ref(e): longer than MAX_COPS */
} operand_kind_t;

typedef struct {
  operand_kind_t kind;
  int v, which;
  const aff_t *view;  /* OPD_VIEW: the view read; OPD_SUM: a's view, or NULL (k) */
  const aff_t *view2; /* OPD_SUM: b's view, or NULL (k2) */
  double sign;        /* OPD_SUM: 1 or -1 */
  aff_t k, k2;
  size_t at;
  int n;
  const expr_t *e;
} operand_t;

/* How an action stage computes v' of a sensing variable v (set_values):
 * copied from w's current value (a definition v' == w of reals), by the
 * program at..at+n over env and actual (a definition real_value accepts),
 * by number() on rhs (any other definition), or, without a definition, from
 * the record or the current value; with its affine view (next_read) from
 * the operand rhs. */
typedef enum { AFTER_COPY, AFTER_PROG, AFTER_NUMBER, AFTER_FREE } after_kind_t;

typedef struct {
  after_kind_t kind;
  int w;
  bool from_env;   /* AFTER_COPY: w is a sensing variable (env), else actual */
  size_t at;       /* AFTER_PROG */
  int n;           /* AFTER_PROG */
  const expr_t *e; /* the definition's right-hand side, or NULL */
  bool next_read;  /* the stage needs v's affine view */
  bool affine;     /* the view is rhs's (a real definition), else the constant after[v] */
  operand_t rhs;   /* when affine */
} after_t;

typedef struct {
  bool real; /* a comparison of reals (else a constant for the cells: presample what it reads) */
  const expr_t *e;
  operand_t l, r;
} leaf_t;

/* The leaves of a guard, or of an action's constraints (the first split)
 * and then its failure; conj[0] (conj[1]): the guard or the constraints (the
 * failure) are a conjunction of their leaves, so a cell reads them in a row. */
typedef struct {
  leaf_t *leaf;
  int n, split;
  bool conj[2];
} leaves_t;

/* A quantile draw_prior computed: dist_quantile(d, u) is x. */
typedef struct {
  const dist_t *d;
  double u, x;
} quantile_memo_t;

/* The tail masses of a cut point (dist_point_t's p and q, NaN where not
 * computed yet). */
typedef struct {
  const dist_t *d;
  double x, p, q;
} point_memo_t;

enum { QMEMO = 1 << 12, PMEMO = 1 << 12 };

/* A counter-based generator (splitmix64): sample i of a seed always sees
 * the same numbers, whatever was evaluated before (common random numbers). */
typedef struct {
  uint64_t s;
  const double
      *q; /* the long estimates' randomly shifted quasi-random point (its first QDIM draws), or NULL */
  int qk; /* q's next coordinate */
} rng_t;

static double uniform01(rng_t *r) {
  if (r->q && r->qk < QDIM) return r->q[r->qk++];
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) * 0x1.0p-53;
}

static rng_t rng_for(unsigned long seed, unsigned long sample) {
  rng_t r = {(uint64_t)seed * 0x2545f4914f6cdd1dULL ^ ((uint64_t)sample + 1) * 0x9e3779b97f4a7c15ULL, NULL,
             0};
  uniform01(&r);
  return r;
}

typedef enum { STAGE_SENSE, STAGE_ACTION } stage_kind_t;

/* The states of the search objective's sampled runs at the start of one
 * step: a line search changes one free value, and the steps before the
 * first one that reads it are the same in every evaluation (the same
 * draws: common random numbers), so evaluations continue from here. Valid
 * while the distributions and every free value read before the step are
 * those stored; step 0: none stored. */
typedef struct {
  int step;
  const dist_t *dists;
  unsigned long seed, samples, cap;
  double *values;         /* [number of free values] when stored */
  double *truth, *normal; /* [cap * nv] */
  double *w;              /* [cap]: the weight so far; 0 for a run that ended before the step */
  rng_t *r;               /* [cap] */
} prefix_t;

/* A free value of the environment: truth[index] (initial or dynamic) or
 * actions[action].after[var]. */
typedef struct {
  bool after;
  size_t index, action;
  int var;
  int step; /* the first step of a run that reads it */
  double lo, hi;
  bool unread; /* no stage, assignment, effect or failure reads it (mark_unread): the objective is flat in it
                */
} param_t;

/* The run being sampled, with what it records for the caller. */
typedef struct {
  double *truth;                   /* [(length + 1) * nv] */
  double *sensed;                  /* [length * nv] */
  double *before, *after, *actual; /* [nactions * nv] */
  double score;                    /* sum of squared standardised errors: smaller is more likely */
} record_t;

struct joint {
  const ism_model_t *m;
  joint_options_t o;
  size_t nv;
  dist_t *dists;      /* [nv]: the distributions in use: exact or wide */
  dist_t *exact;      /* [nv]: the model's */
  dist_t *wide[2];    /* [nv]: three and one and a half times as wide (the search's first phases) */
  bool *has_dist;     /* [nv] */
  const expr_t **rhs; /* [nactions * nv]: the effect defining v' (first one), or NULL */
  bool **constraint;  /* [nactions][neffects]: not a definition: a constraint on the values */
  bool *next_read;    /* [nactions * nv]: v' read by the action's constraints or failure (directly or through
                         the definition of another value read): the stage needs its affine view */
  /* the stage being sampled (concrete values, indexed by variable id) */
  stage_kind_t kind;
  const cex_t *c;
  int step, position, action;
  const cex_action_t *given; /* the counterexample's record of the action being sampled, or NULL */
  bool want_fail;
  double *truth, *sensed, *env, *normal, *after, *actual;
  aff_t *a_now, *a_next, *a_norm;
  int fresh[MAXF];  /* variable of each new error */
  double x[MAXF];   /* its value */
  bool fixed[MAXF]; /* drawn unconditioned, a constant for the cells */
  int nfresh;
  int *errs;       /* [(nactions + 1) * (nv + 1)]: the variables whose errors a stage draws afresh, in
                      increasing order, -1 ended: row 0 a sensing, row a + 1 action a */
  const int *slot; /* [nv]: index of v's new error in this stage, or -1: a row of row_slot, or own_slot */
  int *own_slot;   /* [nv]: slot of a stage with more than MAXF new errors */
  int *row_slot;   /* [(nactions + 1) * nv]: slot of each row of errs with at most MAXF new errors */
  bool *row_many;  /* [nactions + 1]: the row has more than MAXF new errors */
  double *extra;   /* [nv]: a stage's new errors beyond MAXF, drawn unconditioned (else 0) */
  bool extra_set;  /* some extra[v] may not be 0 */
  double *cell_w;  /* [MAX_CELLS] */
  quantile_memo_t *qmemo; /* [QMEMO]: draw_prior's last quantiles (common random numbers repeat them) */
  point_memo_t *pmemo;    /* [PMEMO]: the tail masses of the last cut points (the same cuts recur) */
  /* the stage's leaves (atoms() records them; a cell's value is read off them, cell_value) */
  atom_t *atom;
  int natoms, atom_cap;
  bool compiled; /* every leaf recorded: the cells need no concrete evaluation */
  bool may_err;  /* an expression may fail to evaluate (division, modulo, integer arithmetic): the
                    concrete evaluator decides every cell */
  /* every guard's and action's leaves in the order atoms() visits them (compile_leaves) */
  leaves_t *guard_leaves;  /* [nrules] */
  leaves_t *action_leaves; /* [nactions]: the constraints' (effects that are no definition), then the
                              failure's */
  cop_t *cops;             /* the operands' programs */
  size_t ncops, cops_cap;
  bool *sensing;     /* [nv]: m->vars[v].sensing */
  int *sensing_list; /* the sensing variables, increasing, -1 ended */
  after_t *after_of; /* [nactions * nv]: for the sensing variables */
  record_t *rec;
  /* the maximisation in progress: its free values and the objective's memo
   * (key: their values and the distributions in use), or ps NULL */
  const struct params *ps;
  memo_t memo;
  double *key;
  prefix_t pre;
  int pre_want; /* the step the next objective may start from (0: the whole run) */
  bool fine;    /* the objective has FINE_FACTOR times the search's samples (refine) */
};

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

/* Whether evaluating e may fail (an error makes a constraint false as a
 * whole, which a cell read off the leaves would not see). */
static bool may_fail(const expr_t *e) {
  if (!e) return false;
  switch (e->kind) {
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_NAME: return true;
  case EXPR_NEG:
  case EXPR_ABS:
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
    if (e->type.kind != TYPE_REAL) return true; /* integer overflow */
    break;
  default: break;
  }
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_REAL:
  case EXPR_BOOL:
  case EXPR_ENUM:
  case EXPR_VAR: return false;
  default: return may_fail(e->u.op.a) || may_fail(e->u.op.b) || may_fail(e->u.op.c);
  }
}

static void compile_model(joint_t *j);

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
  for (size_t r = 0; r < m->nrules && !j->may_err; r++) j->may_err = may_fail(m->rules[r].when);
  for (size_t a = 0; a < m->nactions && !j->may_err; a++) {
    const ism_action_t *act = &m->actions[a];
    j->may_err = act->failure && may_fail(act->failure);
    for (size_t k = 0; k < act->neffects && !j->may_err; k++) j->may_err = may_fail(act->effects[k]);
  }
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
  compile_model(j); /* after the views: operands point to them */
  return j;
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
  free(j->errs);
  free(j->atom);
  for (size_t r = 0; r < j->m->nrules; r++) free(j->guard_leaves[r].leaf);
  for (size_t a = 0; a < j->m->nactions; a++) free(j->action_leaves[a].leaf);
  free(j->guard_leaves), free(j->action_leaves), free(j->cops);
  free(j->sensing), free(j->sensing_list), free(j->after_of);
  free(j);
}

/* ---- concrete evaluation ---- */

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

/* e's real value as expr_eval_real computes it (the same operations in the
 * same order) for the common forms: real variables, literals, +, -, *,
 * negation. false for anything else (then the evaluator decides). */
static bool real_value(const frame_t *f, const expr_t *e, double *out) {
  double a, b;
  switch (e->kind) {
  case EXPR_REAL:
    if (e->type.kind != TYPE_REAL) return false;
    *out = e->u.real.value;
    return true;
  case EXPR_INT:
    if (e->type.kind == TYPE_REAL) return false;
    *out = (double)e->u.ival;
    return true;
  case EXPR_TOREAL:
    if (e->u.op.a->kind != EXPR_INT || e->u.op.a->type.kind == TYPE_REAL) return false;
    *out = (double)e->u.op.a->u.ival;
    return true;
  case EXPR_VAR: {
    int id = e->u.var.id;
    const ism_var_t *var = &f->m->vars[id];
    if (var->type.kind != TYPE_REAL || e->type.kind != TYPE_REAL) return false;
    const double *from = var->sensing ? (e->u.var.primed ? f->next : f->now) : f->normal;
    if (!from) return false;
    *out = from[id];
    return true;
  }
  case EXPR_NEG:
    if (e->type.kind != TYPE_REAL || !real_value(f, e->u.op.a, &a)) return false;
    *out = -a;
    return true;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
    if (e->type.kind != TYPE_REAL || !real_value(f, e->u.op.a, &a) || !real_value(f, e->u.op.b, &b))
      return false;
    *out = e->kind == EXPR_ADD ? a + b : e->kind == EXPR_SUB ? a - b : a * b;
    return true;
  default: return false;
  }
}

/* e's truth as expr_eval_bool decides it (short circuits included) where it
 * reads only real comparisons of real_value's forms; false when it cannot. */
static bool fast_holds(const frame_t *f, const expr_t *e, bool *out) {
  bool a;
  switch (e->kind) {
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE: {
    double x, y;
    if (e->u.op.a->type.kind != TYPE_REAL || !real_value(f, e->u.op.a, &x) || !real_value(f, e->u.op.b, &y))
      return false;
    *out = expr_compare_reals(e->kind, x, y);
    return true;
  }
  case EXPR_NOT:
    if (!fast_holds(f, e->u.op.a, &a)) return false;
    *out = !a;
    return true;
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_IMPLIES:
    if (!fast_holds(f, e->u.op.a, &a)) return false;
    if (e->kind == EXPR_AND ? !a : e->kind == EXPR_OR ? a : !a) { /* decided by the first operand */
      *out = e->kind != EXPR_AND;
      return true;
    }
    return fast_holds(f, e->u.op.b, out);
  case EXPR_BOOL: *out = e->u.bval; return true;
  default: return false;
  }
}

static bool holds(const ism_model_t *m, const expr_t *e, const double *now, const double *next,
                  const double *normal) {
  frame_t f = {m, now, next, normal};
  bool fast;
  if (fast_holds(&f, e, &fast)) return fast;
  bool err = false;
  bool v = expr_eval_bool(e, read_var, &f, &err);
  return v && !err;
}

static double number(const ism_model_t *m, const expr_t *e, type_kind_t as, const double *now,
                     const double *next, const double *normal) {
  frame_t f = {m, now, next, normal};
  double fast;
  if (as == TYPE_REAL && e->type.kind == TYPE_REAL && real_value(&f, e, &fast)) return fast;
  bool err = false;
  return as == TYPE_REAL ? expr_eval_real(e, read_var, &f, &err) : (double)expr_eval(e, read_var, &f, &err).i;
}

/* ---- affine evaluation ---- */

static aff_t aff_const(double c) {
  aff_t a;
  a.c = c, a.mask = 0, a.ok = true;
  return a;
}

/* *r = sa a + sb b (r neither a nor b); g[i] is meaningful only for i in
 * mask (the rest is never read, nor written here). */
static void aff_lin_to(aff_t *r, const aff_t *a, double sa, const aff_t *b, double sb) {
  r->c = sa * a->c + sb * b->c;
  r->mask = a->mask | b->mask, r->ok = a->ok && b->ok;
  for (unsigned m = a->mask; m; m &= m - 1) r->g[__builtin_ctz(m)] = sa * a->g[__builtin_ctz(m)];
  for (unsigned m = b->mask; m; m &= m - 1) {
    int i = __builtin_ctz(m);
    r->g[i] = (a->mask >> i & 1 ? r->g[i] : 0) + sb * b->g[i];
  }
}

static aff_t aff_lin(const aff_t *a, double sa, const aff_t *b, double sb) {
  aff_t r;
  aff_lin_to(&r, a, sa, b, sb);
  return r;
}

/* *to = *from, the coefficients outside the mask left as they are. */
static void aff_copy(aff_t *to, const aff_t *from) {
  to->c = from->c, to->mask = from->mask, to->ok = from->ok;
  for (unsigned m = from->mask; m; m &= m - 1) to->g[__builtin_ctz(m)] = from->g[__builtin_ctz(m)];
}

static void aff_set_const(aff_t *a, double c) { a->c = c, a->mask = 0, a->ok = true; }

static aff_t aff_fail(unsigned mask) {
  aff_t r;
  r.c = 0, r.mask = mask, r.ok = false;
  for (unsigned m = mask; m; m &= m - 1) r.g[__builtin_ctz(m)] = 0;
  return r;
}

typedef struct {
  const joint_t *j;
  unsigned mask;
} mask_ctx_t;

static void mask_var(void *ctx, const expr_t *var) {
  mask_ctx_t *mc = ctx;
  const joint_t *j = mc->j;
  int v = var->u.var.id;
  if (j->m->vars[v].sensing && var->u.var.primed)
    mc->mask |= j->a_next[v].mask;
  else if (j->m->vars[v].sensing)
    mc->mask |= j->a_now[v].mask;
  else
    mc->mask |= j->a_norm[v].mask;
}

/* The new errors e reads (through the affine views). */
static unsigned fresh_mask(const joint_t *j, const expr_t *e) {
  mask_ctx_t mc = {j, 0};
  expr_visit_vars(e, mask_var, &mc);
  return mc.mask;
}

static aff_t aff_eval(joint_t *j, const expr_t *e);

/* aff_eval(j, e) without copying a real variable's view: a pointer to the
 * view, or to tmp holding aff_eval's result. */
static const aff_t *aff_ref(joint_t *j, const expr_t *e, aff_t *tmp) {
  if (e->kind == EXPR_VAR && j->m->vars[e->u.var.id].type.kind == TYPE_REAL) {
    int v = e->u.var.id;
    return j->m->vars[v].sensing ? (e->u.var.primed ? &j->a_next[v] : &j->a_now[v]) : &j->a_norm[v];
  }
  *tmp = aff_eval(j, e);
  return tmp;
}

static aff_t aff_eval(joint_t *j, const expr_t *e) {
  const double *next = j->kind == STAGE_ACTION ? j->after : NULL;
  const double *now = j->kind == STAGE_ACTION ? j->env : j->sensed;
  const double *normal = j->kind == STAGE_ACTION ? j->actual : j->normal;
  aff_t ta, tb;
  const aff_t *a, *b;
  switch (e->kind) {
  case EXPR_VAR: {
    int v = e->u.var.id;
    const ism_var_t *var = &j->m->vars[v];
    if (var->type.kind != TYPE_REAL) return aff_const(number(j->m, e, TYPE_REAL, now, next, normal));
    return var->sensing ? (e->u.var.primed ? j->a_next[v] : j->a_now[v]) : j->a_norm[v];
  }
  case EXPR_NEG: a = aff_ref(j, e->u.op.a, &ta); return aff_lin(a, -1, a, 0);
  case EXPR_ADD:
  case EXPR_SUB:
    if (e->type.kind != TYPE_REAL) break;
    a = aff_ref(j, e->u.op.a, &ta), b = aff_ref(j, e->u.op.b, &tb);
    return aff_lin(a, 1, b, e->kind == EXPR_ADD ? 1 : -1);
  case EXPR_MUL:
    if (e->type.kind != TYPE_REAL) break;
    a = aff_ref(j, e->u.op.a, &ta), b = aff_ref(j, e->u.op.b, &tb);
    if (a->mask && b->mask) return aff_fail(a->mask | b->mask);
    return a->mask ? aff_lin(a, b->c, a, 0) : aff_lin(b, a->c, b, 0);
  case EXPR_DIV:
    if (e->type.kind != TYPE_REAL) break;
    a = aff_ref(j, e->u.op.a, &ta), b = aff_ref(j, e->u.op.b, &tb);
    if (b->mask || b->c == 0) return aff_fail(a->mask | b->mask);
    return aff_lin(a, 1 / b->c, a, 0);
  /* literals: the value expr_eval_real gives them */
  case EXPR_INT:
    if (e->type.kind == TYPE_REAL) break;
    return aff_const((double)e->u.ival);
  case EXPR_REAL: return aff_const(e->u.real.value);
  case EXPR_TOREAL:
    if (e->u.op.a->kind == EXPR_INT) return aff_const((double)e->u.op.a->u.ival);
    break;
  default: break;
  }
  /* abs, min, max, if, int expressions: affine only when they read no new error */
  unsigned mask = fresh_mask(j, e);
  if (mask) return aff_fail(mask);
  return aff_const(number(j->m, e, TYPE_REAL, now, next, normal));
}

static bool numeric_comparison(const expr_t *e) {
  if (!expr_is_comparison(e->kind)) return false;
  type_kind_t k = e->u.op.a->type.kind;
  return k == TYPE_INT || k == TYPE_REAL;
}

/* == or != of values that are neither numbers nor truth values. */
static bool enum_comparison(const expr_t *e) {
  return (e->kind == EXPR_EQ || e->kind == EXPR_NE) && !numeric_comparison(e) &&
         e->u.op.a->type.kind != TYPE_BOOL;
}

/* Cut points of the stage's new errors, per error: cuts[i * MAX_CUTS ...]. */
typedef struct {
  double cuts[MAXF][MAX_CUTS];
  int ncuts[MAXF];
  unsigned presample; /* errors to draw unconditioned */
  bool overflow;
} cutset_t;

static atom_t *push_atom(joint_t *j) {
  if (j->natoms == j->atom_cap) {
    j->atom_cap = j->atom_cap ? 2 * j->atom_cap : 32;
    j->atom = xrealloc(j->atom, (size_t)j->atom_cap * sizeof *j->atom);
  }
  return &j->atom[j->natoms++];
}

/* Records leaf e as a constant: its concrete value now. Right in the last
 * pass of run_stage, where e reads no error left to condition. */
static void push_constant(joint_t *j, const expr_t *e) {
  atom_t *a = push_atom(j);
  a->constant = true;
  a->value = j->kind == STAGE_ACTION ? holds(j->m, e, j->env, j->after, j->actual)
                                     : holds(j->m, e, j->sensed, NULL, j->normal);
}

/* ---- the leaves compiled once per model ---- */

static void push_cop(joint_t *j, cop_t op) {
  if (j->ncops == j->cops_cap) {
    j->cops_cap = j->cops_cap ? 2 * j->cops_cap : 64;
    j->cops = xrealloc(j->cops, j->cops_cap * sizeof *j->cops);
  }
  j->cops[j->ncops++] = op;
}

/* Appends e's postfix program, the cases of aff_eval one for one. */
static void compile_operand(joint_t *j, const expr_t *e) {
  const ism_var_t *var = e->kind == EXPR_VAR ? &j->m->vars[e->u.var.id] : NULL;
  switch (e->kind) {
  case EXPR_VAR:
    if (var->type.kind != TYPE_REAL) {
      push_cop(j, (cop_t){COP_NUMBER, 0, 0, 0, e});
      return;
    }
    push_cop(j, (cop_t){COP_VIEW, e->u.var.id, var->sensing ? e->u.var.primed ? 1 : 0 : 2, 0, e});
    return;
  case EXPR_NEG:
    compile_operand(j, e->u.op.a);
    push_cop(j, (cop_t){COP_NEG, 0, 0, 0, e});
    return;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
    if (e->type.kind != TYPE_REAL) break;
    compile_operand(j, e->u.op.a);
    compile_operand(j, e->u.op.b);
    push_cop(j, (cop_t){e->kind == EXPR_ADD   ? COP_ADD
                        : e->kind == EXPR_SUB ? COP_SUB
                        : e->kind == EXPR_MUL ? COP_MUL
                                              : COP_DIV,
                        0, 0, 0, e});
    return;
  case EXPR_INT:
    if (e->type.kind == TYPE_REAL) break;
    push_cop(j, (cop_t){COP_CONST, 0, 0, (double)e->u.ival, e});
    return;
  case EXPR_REAL: push_cop(j, (cop_t){COP_CONST, 0, 0, e->u.real.value, e}); return;
  case EXPR_TOREAL:
    if (e->u.op.a->kind != EXPR_INT) break;
    push_cop(j, (cop_t){COP_CONST, 0, 0, (double)e->u.op.a->u.ival, e});
    return;
  default: break;
  }
  push_cop(j, (cop_t){COP_OTHER, 0, 0, 0, e});
}

static operand_t operand_of(joint_t *j, const expr_t *e) {
  operand_t o = {.kind = OPD_PROG, .at = j->ncops, .e = e};
  compile_operand(j, e);
  o.n = (int)(j->ncops - o.at);
  const cop_t *op = &j->cops[o.at];
  if (o.n == 1 && op->op == COP_VIEW)
    o.kind = OPD_VIEW, o.v = op->v, o.which = op->which,
    o.view = op->which == 0   ? &j->a_now[op->v]
             : op->which == 1 ? &j->a_next[op->v]
                              : &j->a_norm[op->v];
  else if (o.n == 1 && op->op == COP_CONST)
    o.kind = OPD_CONST, o.k = aff_const(op->k);
  else if (o.n == 3 && op[0].op <= COP_CONST && op[1].op <= COP_CONST &&
           (op[2].op == COP_ADD || op[2].op == COP_SUB)) {
    const aff_t *views[3] = {j->a_now, j->a_next, j->a_norm};
    o.kind = OPD_SUM, o.sign = op[2].op == COP_ADD ? 1 : -1;
    if (op[0].op == COP_VIEW)
      o.view = &views[op[0].which][op[0].v];
    else
      o.k = aff_const(op[0].k);
    if (op[1].op == COP_VIEW)
      o.view2 = &views[op[1].which][op[1].v];
    else
      o.k2 = aff_const(op[1].k);
  } else if (o.n > MAX_COPS)
    o.kind = OPD_TREE;
  if (o.kind != OPD_PROG) j->ncops = o.at, o.n = 0;
  return o;
}

static void push_leaf(leaves_t *ls, leaf_t l) {
  ls->leaf = xrealloc(ls->leaf, (size_t)(ls->n + 1) * sizeof *ls->leaf);
  ls->leaf[ls->n++] = l;
}

/* Whether the cells descend into e (leaf_holds): a connective, not a leaf. */
static bool connective(const expr_t *e) {
  if (numeric_comparison(e) || enum_comparison(e)) return false;
  switch (e->kind) {
  case EXPR_NOT:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_IMPLIES:
  case EXPR_IFF:
  case EXPR_EQ:
  case EXPR_NE: return true;
  case EXPR_ITE: return e->type.kind == TYPE_BOOL;
  default: return false;
  }
}

/* Whether e is a conjunction of leaves (a leaf, or an and of such). */
static bool conjunction(const expr_t *e) {
  if (!connective(e)) return true;
  return e->kind == EXPR_AND && conjunction(e->u.op.a) && conjunction(e->u.op.b);
}

/* e's leaves in the order the cells read them (leaf_holds), with their classes. */
static void compile_leaves(joint_t *j, const expr_t *e, leaves_t *ls) {
  if (!e) return;
  if (numeric_comparison(e) && e->u.op.a->type.kind == TYPE_REAL) {
    operand_t l = operand_of(j, e->u.op.a), r = operand_of(j, e->u.op.b);
    push_leaf(ls, (leaf_t){true, e, l, r});
    return;
  }
  if (connective(e)) switch (e->kind) {
    case EXPR_NOT: compile_leaves(j, e->u.op.a, ls); return;
    case EXPR_ITE:
      compile_leaves(j, e->u.op.a, ls), compile_leaves(j, e->u.op.b, ls), compile_leaves(j, e->u.op.c, ls);
      return;
    default: compile_leaves(j, e->u.op.a, ls), compile_leaves(j, e->u.op.b, ls); return;
    }
  push_leaf(ls, (leaf_t){.real = false, .e = e});
}

/* The value of o at the stage's views, as aff_ref(j, o->e, tmp) gives it. */
static const aff_t *operand_value(joint_t *j, const operand_t *o, aff_t *tmp) {
  switch (o->kind) {
  case OPD_VIEW: return o->which == 0 ? &j->a_now[o->v] : o->which == 1 ? &j->a_next[o->v] : &j->a_norm[o->v];
  case OPD_CONST: return &o->k;
  case OPD_SUM:
    aff_lin_to(tmp, o->view ? o->view : &o->k, 1, o->view2 ? o->view2 : &o->k2, o->sign);
    return tmp;
  case OPD_TREE: return aff_ref(j, o->e, tmp);
  case OPD_PROG: break;
  }
  const double *next = j->kind == STAGE_ACTION ? j->after : NULL;
  const double *now = j->kind == STAGE_ACTION ? j->env : j->sensed;
  const double *normal = j->kind == STAGE_ACTION ? j->actual : j->normal;
  aff_t reg[MAX_COPS];
  const aff_t *st[MAX_COPS];
  int sp = 0;
  for (int k = 0; k < o->n; k++) {
    const cop_t *op = &j->cops[o->at + (size_t)k];
    aff_t *out = k + 1 == o->n ? tmp : &reg[k];
    const aff_t *a = sp >= 2 ? st[sp - 2] : NULL, *b = sp >= 1 ? st[sp - 1] : NULL;
    switch (op->op) {
    case COP_VIEW:
      st[sp++] = op->which == 0 ? &j->a_now[op->v] : op->which == 1 ? &j->a_next[op->v] : &j->a_norm[op->v];
      continue;
    case COP_CONST: aff_set_const(out, op->k); break;
    case COP_NUMBER: aff_set_const(out, number(j->m, op->e, TYPE_REAL, now, next, normal)); break;
    case COP_OTHER: {
      unsigned mask = fresh_mask(j, op->e);
      if (mask)
        *out = aff_fail(mask);
      else
        aff_set_const(out, number(j->m, op->e, TYPE_REAL, now, next, normal));
      break;
    }
    case COP_NEG: aff_lin_to(out, b, -1, b, 0), sp--; break;
    case COP_ADD:
    case COP_SUB: aff_lin_to(out, a, 1, b, op->op == COP_ADD ? 1 : -1), sp -= 2; break;
    case COP_MUL:
      if (a->mask && b->mask)
        *out = aff_fail(a->mask | b->mask);
      else if (a->mask)
        aff_lin_to(out, a, b->c, a, 0);
      else
        aff_lin_to(out, b, a->c, b, 0);
      sp -= 2;
      break;
    case COP_DIV:
      if (b->mask || b->c == 0)
        *out = aff_fail(a->mask | b->mask);
      else
        aff_lin_to(out, a, 1 / b->c, a, 0);
      sp -= 2;
      break;
    }
    st[sp++] = out;
  }
  return st[0];
}

/* atoms() of one compiled leaf. */
static void leaf_atoms(joint_t *j, const leaf_t *lf, cutset_t *cs) {
  const expr_t *e = lf->e;
  if (!lf->real) {
    cs->presample |= fresh_mask(j, e);
    push_constant(j, e);
    return;
  }
  aff_t tl, tr;
  const aff_t *l = lf->l.kind == OPD_VIEW    ? lf->l.view
                   : lf->l.kind == OPD_CONST ? &lf->l.k
                                             : operand_value(j, &lf->l, &tl);
  const aff_t *r = lf->r.kind == OPD_VIEW    ? lf->r.view
                   : lf->r.kind == OPD_CONST ? &lf->r.k
                                             : operand_value(j, &lf->r, &tr);
  /* d = aff_lin(l, 1, r, -1), its coefficient computed only for the error kept */
  unsigned mask = l->mask | r->mask;
  bool ok = l->ok && r->ok;
  double c = 1 * l->c + -1 * r->c;
  unsigned live = mask & ~cs->presample;
  if (!live) {
    if (!ok) j->compiled = false; /* a division by 0 */
    push_constant(j, e);
    return;
  }
  if (!ok) {
    cs->presample |= mask;
    return; /* not the last pass */
  }
  if (live & (live - 1)) { /* two or more new errors: keep only the last conditioned */
    unsigned top = 1u << (31 - __builtin_clz(live));
    cs->presample |= live & ~top;
    live = top;
  }
  int i = __builtin_ctz(live);
  double g = r->mask >> i & 1 ? (l->mask >> i & 1 ? 1 * l->g[i] : 0) + -1 * r->g[i] : 1 * l->g[i];
  if (g == 0) {
    push_constant(j, e);
    return;
  }
  atom_t *a = push_atom(j);
  *a = (atom_t){false, false, e->kind, i, c, g};
  if (cs->ncuts[i] == MAX_CUTS) {
    cs->overflow = true;
    return;
  }
  cs->cuts[i][cs->ncuts[i]++] = -c / g;
}

static void leaves_atoms(joint_t *j, const leaves_t *ls, cutset_t *cs) {
  for (int k = 0; k < ls->n; k++) leaf_atoms(j, &ls->leaf[k], cs);
}

/* Appends e's program as real_value evaluates it over now (env) and normal
 * (actual), next NULL; false where real_value returns false. */
static bool compile_real(joint_t *j, const expr_t *e) {
  switch (e->kind) {
  case EXPR_REAL:
    if (e->type.kind != TYPE_REAL) return false;
    push_cop(j, (cop_t){COP_CONST, 0, 0, e->u.real.value, e});
    return true;
  case EXPR_INT:
    if (e->type.kind == TYPE_REAL) return false;
    push_cop(j, (cop_t){COP_CONST, 0, 0, (double)e->u.ival, e});
    return true;
  case EXPR_TOREAL:
    if (e->u.op.a->kind != EXPR_INT || e->u.op.a->type.kind == TYPE_REAL) return false;
    push_cop(j, (cop_t){COP_CONST, 0, 0, (double)e->u.op.a->u.ival, e});
    return true;
  case EXPR_VAR: {
    const ism_var_t *var = &j->m->vars[e->u.var.id];
    if (var->type.kind != TYPE_REAL || e->type.kind != TYPE_REAL || (var->sensing && e->u.var.primed))
      return false;
    push_cop(j, (cop_t){COP_VIEW, e->u.var.id, var->sensing ? 0 : 2, 0, e});
    return true;
  }
  case EXPR_NEG:
    if (e->type.kind != TYPE_REAL || !compile_real(j, e->u.op.a)) return false;
    push_cop(j, (cop_t){COP_NEG, 0, 0, 0, e});
    return true;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
    if (e->type.kind != TYPE_REAL || !compile_real(j, e->u.op.a) || !compile_real(j, e->u.op.b)) return false;
    push_cop(j, (cop_t){e->kind == EXPR_ADD ? COP_ADD : e->kind == EXPR_SUB ? COP_SUB : COP_MUL, 0, 0, 0, e});
    return true;
  default: return false;
  }
}

/* real_value of a program compile_real wrote. */
static double real_program(const joint_t *j, size_t at, int n, const double *now, const double *normal) {
  double st[MAX_COPS];
  int sp = 0;
  for (int k = 0; k < n; k++) {
    const cop_t *op = &j->cops[at + (size_t)k];
    switch (op->op) {
    case COP_VIEW: st[sp++] = op->which == 0 ? now[op->v] : normal[op->v]; break;
    case COP_CONST: st[sp++] = op->k; break;
    case COP_NEG: st[sp - 1] = -st[sp - 1]; break;
    case COP_ADD: sp--, st[sp - 1] = st[sp - 1] + st[sp]; break;
    case COP_SUB: sp--, st[sp - 1] = st[sp - 1] - st[sp]; break;
    case COP_MUL: sp--, st[sp - 1] = st[sp - 1] * st[sp]; break;
    default: assert(false);
    }
  }
  return st[0];
}

static after_t after_of(joint_t *j, size_t a, int v) {
  const ism_model_t *m = j->m;
  const expr_t *rhs = j->rhs[a * j->nv + (size_t)v];
  bool real = m->vars[v].type.kind == TYPE_REAL;
  after_t af = {.kind = AFTER_FREE, .e = rhs, .next_read = j->next_read[a * j->nv + (size_t)v]};
  if (!rhs) return af;
  if (rhs->kind == EXPR_VAR && !rhs->u.var.primed && real && m->vars[rhs->u.var.id].type.kind == TYPE_REAL) {
    af.kind = AFTER_COPY, af.w = rhs->u.var.id, af.from_env = m->vars[af.w].sensing;
  } else {
    af.kind = AFTER_NUMBER;
    size_t at = j->ncops;
    if (real && rhs->type.kind == TYPE_REAL && compile_real(j, rhs) && j->ncops - at <= MAX_COPS)
      af.kind = AFTER_PROG, af.at = at, af.n = (int)(j->ncops - at);
    else
      j->ncops = at;
  }
  if (af.next_read && real) af.affine = true, af.rhs = operand_of(j, rhs);
  return af;
}

static void compile_model(joint_t *j) {
  const ism_model_t *m = j->m;
  j->guard_leaves = xcalloc(m->nrules + 1, sizeof *j->guard_leaves);
  j->action_leaves = xcalloc(m->nactions + 1, sizeof *j->action_leaves);
  for (size_t r = 0; r < m->nrules; r++) {
    leaves_t *ls = &j->guard_leaves[r];
    compile_leaves(j, m->rules[r].when, ls);
    ls->split = ls->n, ls->conj[0] = m->rules[r].when && conjunction(m->rules[r].when);
  }
  for (size_t a = 0; a < m->nactions; a++) {
    const ism_action_t *act = &m->actions[a];
    leaves_t *ls = &j->action_leaves[a];
    ls->conj[0] = true;
    for (size_t k = 0; k < act->neffects; k++)
      if (j->constraint[a][k]) {
        compile_leaves(j, act->effects[k], ls);
        ls->conj[0] &= conjunction(act->effects[k]);
      }
    ls->split = ls->n;
    compile_leaves(j, act->failure, ls);
    ls->conj[1] = act->failure && conjunction(act->failure);
  }
  size_t nv = j->nv;
  j->sensing = xcalloc(nv + 1, sizeof *j->sensing);
  j->sensing_list = xmalloc((nv + 1) * sizeof *j->sensing_list);
  int ns = 0;
  for (size_t v = 0; v < nv; v++)
    if ((j->sensing[v] = m->vars[v].sensing)) j->sensing_list[ns++] = (int)v;
  j->sensing_list[ns] = -1;
  j->after_of = xcalloc(m->nactions * nv + 1, sizeof *j->after_of);
  for (size_t a = 0; a < m->nactions; a++)
    for (const int *v = j->sensing_list; *v >= 0; v++) j->after_of[a * nv + (size_t)*v] = after_of(j, a, *v);
}

/* ---- a cell's value from the recorded leaves ---- */

static bool atom_holds(const joint_t *j, const atom_t *a) {
  if (a->constant) return a->value;
  return expr_compare_reals(a->op, a->c + a->g * j->x[a->i], 0);
}

/* e's value at the current x, reading the leaves in the order atoms()
 * recorded them (every leaf is read: no short circuit). */
static bool leaf_holds(const joint_t *j, const expr_t *e, int *k) {
  if (!e) return false;
  /* the connectives atoms() descends into; == and != are leaves unless they compare truth values */
  if (!((e->kind == EXPR_EQ || e->kind == EXPR_NE) && e->u.op.a->type.kind != TYPE_BOOL)) {
    switch (e->kind) {
    case EXPR_NOT: return !leaf_holds(j, e->u.op.a, k);
    case EXPR_AND: {
      bool a = leaf_holds(j, e->u.op.a, k);
      return leaf_holds(j, e->u.op.b, k) && a;
    }
    case EXPR_OR: {
      bool a = leaf_holds(j, e->u.op.a, k);
      return leaf_holds(j, e->u.op.b, k) || a;
    }
    case EXPR_IMPLIES: {
      bool a = leaf_holds(j, e->u.op.a, k);
      return leaf_holds(j, e->u.op.b, k) || !a;
    }
    case EXPR_IFF:
    case EXPR_EQ:
    case EXPR_NE: {
      bool a = leaf_holds(j, e->u.op.a, k), b = leaf_holds(j, e->u.op.b, k);
      return e->kind == EXPR_NE ? a != b : a == b;
    }
    case EXPR_ITE:
      if (e->type.kind != TYPE_BOOL) break;
      {
        bool a = leaf_holds(j, e->u.op.a, k), b = leaf_holds(j, e->u.op.b, k),
             c = leaf_holds(j, e->u.op.c, k);
        return a ? b : c;
      }
    default: break;
    }
  }
  return atom_holds(j, &j->atom[(*k)++]);
}

/* ---- stages ---- */

static const cex_action_t *cex_action_at(const cex_t *c, int step, int position, size_t *index) {
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
    case AFTER_PROG: j->after[v] = real_program(j, af->at, af->n, j->env, j->actual); break;
    case AFTER_NUMBER:
      j->after[v] = number(j->m, af->e, j->m->vars[v].type.kind, j->env, NULL, j->actual);
      break;
    case AFTER_FREE: j->after[v] = given ? given->after[v] : j->env[v]; break;
    }
    if (affine && af->next_read && af->affine) {
      aff_t tmp;
      aff_copy(&j->a_next[v], operand_value(j, &af->rhs, &tmp));
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
      bool on = holds(m, m->rules[*q].when, j->sensed, NULL, j->normal);
      if (m->selection == ISM_SELECT_FIRST && on) return *q == rule;
      enabled += on, mine |= on && *q == rule;
    }
    return mine ? 1.0 / enabled : 0;
  }
  const ism_action_t *a = &m->actions[j->action];
  for (size_t k = 0; k < a->neffects; k++)
    if (j->constraint[j->action][k] && !holds(m, a->effects[k], j->env, j->after, j->actual)) return 0;
  bool failed = a->failure && holds(m, a->failure, j->env, j->after, j->actual);
  return failed == j->want_fail;
}

/* The conjunction of the n atoms from *k on; *k moves past them. */
static bool atoms_hold(const joint_t *j, int n, int *k) {
  const atom_t *a = &j->atom[*k];
  *k += n;
  for (int i = 0; i < n; i++)
    if (!atom_holds(j, &a[i])) return false;
  return true;
}

/* stage_value of the current cell (x), read off the leaves that the last
 * stage_atoms recorded. */
static double cell_value(const joint_t *j) {
  const ism_model_t *m = j->m;
  int k = 0;
  if (j->kind == STAGE_SENSE) {
    int rule = j->c->rules[j->step], enabled = 0;
    bool mine = false;
    for (const int *q = m->rules_from[j->c->states[j->step]]; *q >= 0; q++) {
      const leaves_t *ls = &j->guard_leaves[*q];
      bool on = ls->conj[0] ? atoms_hold(j, ls->n, &k) : leaf_holds(j, m->rules[*q].when, &k);
      if (m->selection == ISM_SELECT_FIRST && (on || *q == rule)) return on && *q == rule;
      enabled += on, mine |= on && *q == rule;
    }
    return mine ? 1.0 / enabled : 0;
  }
  const ism_action_t *a = &m->actions[j->action];
  const leaves_t *ls = &j->action_leaves[j->action];
  bool ok = true;
  if (ls->conj[0])
    ok = atoms_hold(j, ls->split, &k);
  else
    for (size_t c = 0; c < a->neffects; c++)
      if (j->constraint[j->action][c]) ok &= leaf_holds(j, a->effects[c], &k);
  if (!ok) return 0;
  bool failed =
      a->failure && (ls->conj[1] ? atoms_hold(j, ls->n - ls->split, &k) : leaf_holds(j, a->failure, &k));
  return failed == j->want_fail;
}

static void stage_atoms(joint_t *j, cutset_t *cs) {
  j->natoms = 0;
  j->compiled = !j->may_err;
  const ism_model_t *m = j->m;
  if (j->kind == STAGE_SENSE) {
    int rule = j->c->rules[j->step];
    for (const int *q = m->rules_from[j->c->states[j->step]]; *q >= 0; q++) {
      leaves_atoms(j, &j->guard_leaves[*q], cs);
      if (m->selection == ISM_SELECT_FIRST && *q == rule) break;
    }
    return;
  }
  leaves_atoms(j, &j->action_leaves[j->action], cs);
}

/* Insertion sort: a stage has a handful of cuts per error. */
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
  cutset_t cs; /* cuts[i][k] is meaningful for k < ncuts[i] only: not cleared */
  cs.presample = 0, cs.overflow = false;
  for (int i = 0; i < j->nfresh; i++) j->x[i] = 0, j->fixed[i] = false;
  bool settled = false; /* the last pass's views and leaves are those of the conditioned errors */
  for (int pass = 0; pass <= MAXF && !settled; pass++) {
    unsigned before = cs.presample;
    for (int i = 0; i < j->nfresh; i++)
      if (cs.presample >> i & 1 && !j->fixed[i]) j->x[i] = draw_prior(j, i, r), j->fixed[i] = true;
    set_values(j, true);
    memset(cs.ncuts, 0, sizeof cs.ncuts);
    cs.overflow = false;
    stage_atoms(j, &cs);
    settled = cs.presample == before;
  }
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
    for (int k = 0; k <= nseg[i]; k++) point_at(j, d, seg[i][k], &seg_pt[i][k]);
    for (int k = 0; k < nseg[i]; k++) segmass[i][k] = dist_mass_points(d, &seg_pt[i][k], &seg_pt[i][k + 1]);
    for (int k = 1; k < nseg[i]; k++) point_keep(j, d, &seg_pt[i][k]);
    if (nseg[i] > 1) order[nvar++] = i;
    if ((cells *= (size_t)nseg[i]) > MAX_CELLS) cs.overflow = true;
  }
  if (cs.overflow) { /* too many cells: everything unconditioned, the indicator as weight */
    for (int i = 0; i < j->nfresh; i++)
      if (!j->fixed[i]) j->x[i] = draw_prior(j, i, r), j->fixed[i] = true;
    set_values(j, false);
    return stage_value(j);
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
      w = mass * cell_value(j);
    else if (mass > 0) {
      set_values(j, false);
      w = mass * stage_value(j);
    }
    j->cell_w[cell] = w;
    total += w;
  }
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
  return total > 1 ? 1 : total;
}

static void begin_stage(joint_t *j, stage_kind_t kind, rng_t *r) {
  j->kind = kind;
  j->nfresh = 0;
  j->given = kind == STAGE_ACTION ? cex_action_at(j->c, j->step, j->position, NULL) : NULL;
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
      j->normal[st->var] = number(m, st->value, m->vars[st->var].type.kind, j->sensed, NULL, j->normal);
      continue;
    }
    j->position = (int)p, j->action = st->action;
    begin_stage(j, STAGE_ACTION, r);
    for (int i = 0; i < j->nfresh; i++) j->x[i] = draw_prior(j, i, r), j->fixed[i] = true;
    set_values(j, false);
    j->want_fail = m->actions[st->action].failure &&
                   holds(m, m->actions[st->action].failure, j->env, j->after, j->actual);
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
static double sample_from(joint_t *j, const cex_t *c, rng_t *r, int from, double w, long store) {
  const ism_model_t *m = j->m;
  size_t nv = j->nv;
  j->c = c;
  if (from == 0) {
    memcpy(j->truth, c->truth, nv * sizeof *j->truth);
    memcpy(j->normal, c->truth, nv * sizeof *j->normal);
    for (size_t k = 0; k < m->nassume; k++) /* an environment outside the model's assumption */
      if (!holds(m, m->assume[k], j->truth, NULL, j->normal)) return 0;
  }
  double score = 0;
  for (int k = from; k < c->length; k++) {
    bool last = k + 1 == c->length;
    if (store >= 0 && k == j->pre.step) prefix_store(j, (unsigned long)store, w, r);
    if (!in_range(m, j->truth)) return 0;
    j->step = k;
    begin_stage(j, STAGE_SENSE, r);
    if ((w *= run_stage(j, r)) <= 0) return 0;
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
        j->normal[st->var] = number(m, st->value, m->vars[st->var].type.kind, j->sensed, NULL, j->normal);
        continue;
      }
      j->position = (int)p, j->action = st->action;
      j->want_fail = last && (int)p == c->fail_position;
      begin_stage(j, STAGE_ACTION, r);
      if ((w *= run_stage(j, r)) <= 0) return 0;
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
      bool global = m->failure && holds(m, m->failure, j->truth, NULL, j->normal);
      if (global != (last && c->fail_position < 0)) return 0;
    }
  }
  if (j->rec) {
    memcpy(j->rec->truth + (size_t)c->length * nv, j->truth, nv * sizeof *j->truth);
    j->rec->score = score;
  }
  return w;
}

static double sample_path(joint_t *j, const cex_t *c, rng_t *r) { return sample_from(j, c, r, 0, 1, -1); }

/* Mean and 95% half-width of sample weights (Welford's update). */
typedef struct {
  double n, mean, m2, lo, hi;
} moments_t;

static void moments_add(moments_t *mo, double w) {
  if (mo->n == 0 || w < mo->lo) mo->lo = w;
  if (mo->n == 0 || w > mo->hi) mo->hi = w;
  mo->n++;
  double d = w - mo->mean;
  mo->mean += d / mo->n;
  mo->m2 += d * (w - mo->mean);
}

static void moments_result(const moments_t *mo, double *p, double *error) {
  *p = mo->mean > 1 ? 1 : mo->mean < 0 ? 0 : mo->mean;
  bool equal = mo->hi - mo->lo <= 1e-12 * mo->hi; /* every weight the same: exact up to rounding */
  *error = equal || mo->n < 2 ? 0 : 1.96 * sqrt(mo->m2 / (mo->n - 1) / mo->n);
}

/* The stopping rule of long estimates: the half-width within 0.5% of the estimate, plus 0.0005. */
static bool precise_enough(const moments_t *mo) {
  double p, half;
  moments_result(mo, &p, &half);
  return half <= 0.005 * p + 0.0005;
}

static void estimate(joint_t *j, const cex_t *c, unsigned long samples, unsigned long seed, double *p,
                     double *error) {
  moments_t mo = {0};
  for (unsigned long i = 0; i < samples; i++) {
    if (i >= 1000 && i % 500 == 0 && precise_enough(&mo)) break;
    rng_t r = rng_for(seed, i);
    moments_add(&mo, sample_path(j, c, &r));
  }
  moments_result(&mo, p, error);
}

/* A long estimate in progress (randomised quasi-Monte Carlo, QDIM above). */
typedef struct {
  gsl_qrng *sobol;
  unsigned long seed, n;
  double base[QDIM], point[QDIM], shift[REPLICATES][QDIM], sum[REPLICATES];
  unsigned long count[REPLICATES];
  moments_t all;
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
  moments_add(&le->all, w);
  le->sum[q] += w, le->count[q]++, le->n++;
}

/* The mean of every sample; the error bar from the replicates' means (0
 * when every sample has the same weight). */
static void long_result(const long_est_t *le, double *p, double *error) {
  moments_result(&le->all, p, error);
  if (*error == 0) return;
  moments_t rm = {0};
  for (int q = 0; q < REPLICATES; q++)
    if (le->count[q]) moments_add(&rm, le->sum[q] / (double)le->count[q]);
  double mean, half;
  moments_result(&rm, &mean, &half);
  *error = rm.n < REPLICATES ? 1 : half / 1.96 * T_975;
}

/* Stop now? From LONG_MIN samples on, at multiples of LONG_STEP. */
static bool long_done(const long_est_t *le) {
  if (le->n < LONG_MIN || le->n % LONG_STEP) return false;
  double p, half;
  long_result(le, &p, &half);
  return half <= 0.005 * p + 0.0005;
}

void joint_estimate(joint_t *j, const cex_t *c, unsigned long samples, unsigned long seed, double *p,
                    double *error) {
  j->rec = NULL;
  long_est_t le;
  long_init(&le, seed);
  while (le.n < samples && !long_done(&le)) {
    rng_t r = long_rng(&le);
    long_add(&le, sample_path(j, c, &r));
  }
  long_result(&le, p, error);
  long_free(&le);
}

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
    for (size_t v = 0; v < nv; v++)
      if (m->vars[v].sensing && m->vars[v].dynamic && m->vars[v].type.kind == TYPE_REAL)
        push_param(ps, &m->vars[v], false, (size_t)(k + 1) * nv + v, 0, (int)v, k, k + 1 < c->length);
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
      const cex_action_t *given = cex_action_at(c, k, (int)p, &ai);
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

static double *param_at(cex_t *c, const param_t *p) {
  return p->after ? &c->actions[p->action].after[p->var] : &c->truth[p->index];
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
    if (j->ps->p[i].step < step && *param_at((cex_t *)c, &j->ps->p[i]) != pf->values[i]) return false;
  return true;
}

/* estimate() for at most 1000 samples (no early stop) whose runs start at
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
    for (size_t i = 0; i < j->ps->n; i++) pf->values[i] = *param_at((cex_t *)c, &j->ps->p[i]);
  }
  moments_t mo = {0};
  for (unsigned long i = 0; i < samples; i++) {
    double w = 0;
    if (!valid) {
      pf->w[i] = 0; /* stays 0 for a run that ends before the step */
      rng_t r = rng_for(seed, i);
      w = sample_from(j, c, &r, 0, 1, (long)i);
    } else if (pf->w[i] > 0) {
      memcpy(j->truth, pf->truth + i * nv, nv * sizeof *j->truth);
      memcpy(j->normal, pf->normal + i * nv, nv * sizeof *j->normal);
      rng_t r = pf->r[i];
      w = sample_from(j, c, &r, step, pf->w[i], -1);
    }
    moments_add(&mo, w);
  }
  moments_result(&mo, p, error);
}

/* The search's objective at c's current environment: the estimate from
 * search_samples samples of common random numbers, a pure function of the
 * free values and the distributions in use, so memoised (a line search
 * revisits its grid in the next sweep, a plateau's edges are probed twice). */
static double objective_here(joint_t *j, const cex_t *c) {
  size_t n = j->ps->n;
  for (size_t i = 0; i < n; i++) j->key[i] = *param_at((cex_t *)c, &j->ps->p[i]);
  j->key[n] = (j->dists == j->exact ? 0 : j->dists == j->wide[0] ? 1 : 2) + (j->fine ? 4 : 0);
  const double *hit = memo_get(&j->memo, j->key);
  if (hit) return *hit;
  double v, err;
  if (j->pre_want > 0 && j->o.search_samples <= j->pre.cap)
    estimate_from(j, c, j->pre_want, j->o.search_samples, j->o.seed, &v, &err);
  else
    estimate(j, c, j->o.search_samples, j->o.seed, &v, &err);
  memo_put(&j->memo, j->key, &v);
  return v;
}

static double objective(joint_t *j, cex_t *c, const param_t *p, double x) {
  double *at = param_at(c, p), save = *at;
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
  double *at = param_at(c, p), x0 = *at, edge[2];
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
  double *at = param_at(c, p), x0 = *at, fx = *best, xb = x0;
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
    double *at = param_at(c, p);
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
  for (size_t i = 0; i < ps->n; i++) x[i] = *param_at((cex_t *)c, &ps->p[i]);
}

static void set_params(cex_t *c, const params_t *ps, const double *x) {
  for (size_t i = 0; i < ps->n; i++) *param_at(c, &ps->p[i]) = x[i];
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
  for (size_t i = 0; i < n; i++) j->key[i] = *param_at((cex_t *)c, &j->ps->p[i]);
  j->key[n] = 3;
  const double *hit = memo_get(&j->memo, j->key);
  if (hit) return *hit;
  double v, err;
  estimate(j, c, SELECT_SAMPLES, j->o.seed ^ 0x5851f42dUL, &v, &err);
  memo_put(&j->memo, j->key, &v);
  return v;
}

/* The search's objective, 12 samples whose weights are often 0 or 1 (a
 * failure decided by errors drawn at earlier steps), is a step function:
 * its highest plateau, where the search ends, lies off the maximum by the
 * samples' noise (thermostat t3 t12 t12 t14: plateau centre 0.335, the
 * maximum at least 0.369). One more pass of line searches from the chosen
 * end point with FINE_FACTOR times the samples (the first 12 the same
 * draws); its end point replaces c's only where the precise estimate (its
 * own stream) is strictly higher, so an answer does not fall. */
static void refine(joint_t *j, cex_t *c, const params_t *ps) {
  size_t n = ps->n;
  double *x0 = xmalloc((2 * n + 1) * sizeof *x0), *x1 = x0 + n;
  get_params(c, ps, x0);
  unsigned long samples = j->o.search_samples;
  j->o.search_samples = samples * FINE_FACTOR, j->fine = true;
  double best = objective_here(j, c);
  for (size_t i = 0; i < n && best > 0; i++) {
    bool flat = false;
    if (!ps->p[i].unread) line_search(j, c, &ps->p[i], false, &best, &flat);
  }
  j->o.search_samples = samples, j->fine = false;
  get_params(c, ps, x1);
  if (n && memcmp(x0, x1, n * sizeof *x0) != 0) {
    double f1 = precise_here(j, c);
    set_params(c, ps, x0);
    double f0 = precise_here(j, c);
    if (f1 > f0 && !same_value(f1, f0)) set_params(c, ps, x1);
  }
  free(x0);
}

/* Local maximisations from the best low-discrepancy starts and from c's
 * own environment (the solver's witness); c gets the end point with the
 * highest precise estimate (no estimate needed when only one end point has
 * positive probability), a start's on a tie, so that the witness decides
 * only where every start ends strictly lower. */
static void search(joint_t *j, cex_t *c) {
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
  free(ends), free(ps.p), free(j->key);
  prefix_free(&j->pre);
  memo_free(&j->memo);
  j->ps = NULL, j->key = NULL;
}

bool joint_maximise(joint_t *j, cex_t *c) {
  size_t nv = j->nv;
  j->rec = NULL;
  if (j->o.sweeps > 0) search(j, c);
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
  unsigned long n = j->o.final_samples ? j->o.final_samples : 1;
  while (le.n < n && !long_done(&le)) {
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
  long_result(&le, &c->probability, &c->probability_error);
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
