/* The joint estimator's state (probability/joint.h), shared by its three
 * files and by nothing else: joint.c samples runs along a path and
 * estimates their probability, leaves.c evaluates a stage's constraint
 * (concretely, as affine forms, and through the leaves compiled once per
 * model), maximise.c searches for the most likely environment. */
#ifndef PROBABILITY_JOINT_IMPL_H
#define PROBABILITY_JOINT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ism/cex.h"
#include "ism/ism.h"
#include "probability/dist.h"
#include "probability/joint.h"
#include "probability/memo.h"

enum { MAXF = JOINT_MAXF, MAX_CUTS = JOINT_MAX_CUTS, MAX_CELLS = JOINT_MAX_CELLS };

/* The long estimates' quasi-random dimensions (joint.c): the first QDIM
 * draws of one of their samples come from a shifted Sobol point. */
enum { QDIM = 40 };

/* An affine form c + sum g[i] * x_i in a stage's new errors x_i; mask says
 * which x_i it reads (also when it is not affine in them: ok false). */
typedef struct {
  double c;
  double g[MAXF];
  unsigned mask;
  bool ok;
} aff_t;

/* A leaf of a stage's constraint as its cells see it, in the order
 * leaves_stage_atoms visits the leaves: a constant (it reads no error conditioned in the
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
 * in the same order; leaf_t a leaf of a guard, effect or failure as
 * leaves_stage_atoms sees it (its class depends on types only, so it is fixed per model). */
typedef enum {
  COP_VIEW,   /* push the view of variable v: which 0 a_now, 1 a_next, 2 a_norm */
  COP_CONST,  /* push the literal k */
  COP_NUMBER, /* push the concrete value of e (a variable that is not real) */
  COP_OTHER,  /* push aff_eval's tail on e: not affine where it reads a new error, else its value */
  COP_NEG,
  COP_ADD,
  COP_SUB,
  COP_MUL,
  COP_DIV,
  /* fused (operand_of, in a program only): the same operations as the ops they replace */
  COP_SCALE_KV, /* literal k, view v, MUL */
  COP_SCALE_VK, /* view v, literal k, MUL */
  COP_ADDK      /* literal, ADD or SUB: add k (the literal, or -1 times it) */
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
  /* need[0] (need[1]): what the leaf must be when the expression it is a
   * leaf of holds (fails): 1 true, -1 false, 0 either (it sits under a
   * disjunction, an equivalence, a conditional, ...) */
  signed char need[2];
  bool reads_real; /* e reads a real variable (else no view it reads has a new error: fresh_mask 0) */
} leaf_t;

/* A comparison the stage's constraint cannot hold without (a necessary
 * leaf, negated where it must fail): c + sum g[i] x_i op 0 over the new
 * errors in mask, as the views stood when leaves_stage_limits recorded it. */
typedef struct {
  double c;
  double g[MAXF];
  unsigned mask;
  expr_kind_t op;
} limit_t;

/* The leaves of a guard, or of an action's constraints (the first split)
 * and then its failure; conj[0] (conj[1]): the guard or the constraints (the
 * failure) are a conjunction of their leaves, so a cell reads them in a row. */
typedef struct {
  leaf_t *leaf;
  int n, split;
  bool conj[2];
} leaves_t;

typedef enum { STAGE_SENSE, STAGE_ACTION } stage_kind_t;

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

/* A stage's cells before any draw of its own (run_stage), kept for the
 * next stage with the same inputs: the same kind, state and rule, or
 * action, failing or not and given or not, distributions, and values read
 * (in: truth or env, normal, and the given after values). A stage whose
 * inputs no earlier draw reaches (a run's first step, ...) is the same in
 * every sample. Kept only when the cells are a function of the inputs
 * alone: no error presampled, compiled leaves, and no leaf on an error
 * drawn unconditioned that may change its value over the support. */
typedef struct {
  bool filled;
  stage_kind_t kind;
  int state, rule, action;
  bool want_fail, given;
  const dist_t *dists;
  double *in; /* [3 * nv] */
  int nvar, order[MAXF], nseg[MAXF];
  double seg[MAXF][MAX_CUTS + 2];
  dist_point_t pt[MAXF][MAX_CUTS + 2]; /* the segments' ends, their tail masses filled */
  double cum[MAXF][MAX_CUTS + 2];      /* dist_mass_points from the first end to the k-th, or NaN */
  size_t cells;
  double total;
  double *cell_w; /* [MAX_CELLS] */
} stage_memo_t;

enum { SMEMO = 64 };

/* A counter-based generator (splitmix64): sample i of a seed always sees
 * the same numbers, whatever was evaluated before (common random numbers). */
typedef struct {
  uint64_t s;
  const double
      *q; /* the long estimates' randomly shifted quasi-random point (its first QDIM draws), or NULL */
  int qk; /* q's next coordinate */
} rng_t;

static inline double uniform01(rng_t *r) {
  if (r->q && r->qk < QDIM) return r->q[r->qk++];
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) * 0x1.0p-53;
}

static inline rng_t rng_for(unsigned long seed, unsigned long sample) {
  rng_t r = {(uint64_t)seed * 0x2545f4914f6cdd1dULL ^ ((uint64_t)sample + 1) * 0x9e3779b97f4a7c15ULL, NULL,
             0};
  uniform01(&r);
  return r;
}

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
  stage_memo_t **smemo;   /* [SMEMO]: stages' cells by their inputs (allocated when first used) */
  bool smemo_off;         /* joint_stage_memo(j, false): stages computed afresh */
  unsigned long smemo_hits; /* the stages the memo answered */
  /* the stage's leaves (leaves_stage_atoms records them; a cell's value is read off them) */
  atom_t *atom;
  int natoms, atom_cap;
  limit_t *lim; /* the stage's necessary comparisons (leaves_stage_limits) */
  int nlim, lim_cap;
  bool compiled; /* every leaf recorded: the cells need no concrete evaluation */
  bool chance;   /* a stage presampled an error since it was last cleared (path_draws_matter) */
  bool det;      /* no draw has reached the run's values yet: its stages are every sample's */
  bool may_err;  /* an expression may fail to evaluate (leaves_may_fail: integer arithmetic, a division
                    or modulo by anything but a constant that cannot fail): the concrete evaluator
                    decides every cell */
  /* every guard's and action's leaves in the order leaves_stage_atoms visits them */
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

/* Cut points of the stage's new errors, per error: cuts[i * MAX_CUTS ...]. */
typedef struct {
  double cuts[MAXF][MAX_CUTS];
  int ncuts[MAXF];
  unsigned presample; /* errors to draw unconditioned */
  bool overflow;
} cutset_t;

/* ---- joint.c's, for the other two ---- */

/* The record of c's action executed at (step, position), or NULL; its index into *index. */
const cex_action_t *joint_action_at(const cex_t *c, int step, int position, size_t *index);

/* The weight of one sampled run along c from step `from` on, with weight w
 * so far: from 0 the run starts in c's initial environment, otherwise
 * j->truth, j->normal and *r hold a run's state at the start of that step;
 * with store >= 0 the state at the start of j->pre.step is stored as that
 * sample (the search's prefixes). */
double joint_sample_from(joint_t *j, const cex_t *c, rng_t *r, int from, double w, long store);

/* The plain Monte Carlo estimate from `samples` samples of seed's stream
 * (from 1000 on it stops once the 95% half-width is within 0.5% of the
 * estimate plus 0.0005). */
void joint_estimate_plain(joint_t *j, const cex_t *c, unsigned long samples, unsigned long seed, double *p,
                          double *error);

/* Mean and 95% half-width of sample weights (Welford's update). */
typedef struct {
  double n, mean, m2, lo, hi;
} joint_moments_t;

void joint_moments_add(joint_moments_t *mo, double w);
void joint_moments_result(const joint_moments_t *mo, double *p, double *error);

/* The free value p of c's environment. */
static inline double *joint_param_at(cex_t *c, const param_t *p) {
  return p->after ? &c->actions[p->action].after[p->var] : &c->truth[p->index];
}

#endif
