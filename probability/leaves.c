#include "probability/leaves.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "ism/alloc.h"

static void mark_var(void *ctx, const expr_t *var) {
  (void)var;
  *(bool *)ctx = true;
}

/* Whether divisor b makes no division (or modulo) fail whatever its
 * dividend: b reads no variable, evaluates without an error (it always
 * evaluates the same), and is a finite real other than 0 (expr_eval fails
 * a real division by 0 only), or an int other than 0 and -1 (LLONG_MIN /
 * -1 fails too). */
static bool safe_divisor(const expr_t *b) {
  bool reads = false;
  expr_visit_vars(b, mark_var, &reads);
  if (reads) return false;
  bool err = false;
  value_t v = expr_eval(b, NULL, NULL, &err);
  if (err) return false;
  if (b->type.kind == TYPE_REAL) return isfinite(v.r) && v.r != 0;
  return b->type.kind == TYPE_INT && v.i != 0 && v.i != -1;
}

bool leaves_may_fail(const expr_t *e) {
  if (!e) return false;
  switch (e->kind) {
  case EXPR_DIV:
  case EXPR_MOD: return !safe_divisor(e->u.op.b) || leaves_may_fail(e->u.op.a);
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
  default: return leaves_may_fail(e->u.op.a) || leaves_may_fail(e->u.op.b) || leaves_may_fail(e->u.op.c);
  }
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
 * same order) for the common forms: real variables, literals, +, -, *, /
 * (not by 0), negation. false for anything else (then the evaluator
 * decides). */
static bool real_value(const frame_t *f, const expr_t *e, double *out);

/* real_value of a variable. */
static inline bool real_var(const frame_t *f, const expr_t *e, double *out) {
  int id = e->u.var.id;
  const ism_var_t *var = &f->m->vars[id];
  if (var->type.kind != TYPE_REAL || e->type.kind != TYPE_REAL) return false;
  const double *from = var->sensing ? (e->u.var.primed ? f->next : f->now) : f->normal;
  if (!from) return false;
  *out = from[id];
  return true;
}

/* real_value of a real variable or a literal here (inline), of anything else in real_value. */
static inline bool real_leaf(const frame_t *f, const expr_t *e, double *out) {
  if (e->kind == EXPR_VAR) return real_var(f, e, out);
  if (e->kind == EXPR_REAL && e->type.kind == TYPE_REAL) {
    *out = e->u.real.value;
    return true;
  }
  return real_value(f, e, out);
}

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
  case EXPR_VAR: return real_var(f, e, out);
  case EXPR_NEG:
    if (e->type.kind != TYPE_REAL || !real_leaf(f, e->u.op.a, &a)) return false;
    *out = -a;
    return true;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
    if (e->type.kind != TYPE_REAL || !real_leaf(f, e->u.op.a, &a) || !real_leaf(f, e->u.op.b, &b))
      return false;
    *out = e->kind == EXPR_ADD ? a + b : e->kind == EXPR_SUB ? a - b : a * b;
    return true;
  case EXPR_DIV: /* by 0: an error, the evaluator's to report */
    if (e->type.kind != TYPE_REAL || !real_leaf(f, e->u.op.a, &a) || !real_leaf(f, e->u.op.b, &b) || b == 0)
      return false;
    *out = a / b;
    return true;
  default: return false;
  }
}

/* llround(d), read_var's value of a variable that is not real, without
 * the call where d is a whole number (a bool or an int). */
static long long whole_of(double d) {
  if (d > -0x1p62 && d < 0x1p62) { /* false for NaN */
    long long i = (long long)d;
    if ((double)i == d) return i;
  }
  return (long long)llround(d);
}

static bool int_value(const frame_t *f, const expr_t *e, long long *out);

/* e's integer value as expr_eval computes it (value_t's i) for literals,
 * variables that are not real, and integer +, -, * and negation; false for
 * anything else, and where expr_eval would report an overflow. Literals and
 * variables here (inline), the rest in int_value. */
static inline bool int_leaf(const frame_t *f, const expr_t *e, long long *out) {
  if (e->type.kind == TYPE_REAL) return false;
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_ENUM: *out = e->u.ival; return true;
  case EXPR_BOOL: *out = e->u.bval; return true;
  case EXPR_VAR: {
    int id = e->u.var.id;
    const ism_var_t *var = &f->m->vars[id];
    if (var->type.kind == TYPE_REAL) return false;
    const double *from = var->sensing ? (e->u.var.primed ? f->next : f->now) : f->normal;
    if (!from) return false;
    *out = whole_of(from[id]);
    return true;
  }
  default: return int_value(f, e, out);
  }
}

static bool int_value(const frame_t *f, const expr_t *e, long long *out) {
  if (e->type.kind == TYPE_REAL) return false;
  long long a, b;
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_ENUM:
  case EXPR_BOOL:
  case EXPR_VAR: return int_leaf(f, e, out);
  case EXPR_NEG:
    if (!int_leaf(f, e->u.op.a, &a) || a == LLONG_MIN) return false;
    *out = -a;
    return true;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
    if (!int_leaf(f, e->u.op.a, &a) || !int_leaf(f, e->u.op.b, &b)) return false;
    return !(e->kind == EXPR_ADD   ? __builtin_add_overflow(a, b, out)
             : e->kind == EXPR_SUB ? __builtin_sub_overflow(a, b, out)
                                   : __builtin_mul_overflow(a, b, out));
  default: return false;
  }
}

/* e's truth as expr_eval_bool decides it (short circuits included) where it
 * reads only comparisons of real_value's or int_value's forms, truth values
 * that are variables or literals, and the connectives; false when it cannot. */
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
    if (e->u.op.a->type.kind != TYPE_REAL) { /* expr_eval compares value_t's i */
      long long p, q;
      if (!int_leaf(f, e->u.op.a, &p) || !int_leaf(f, e->u.op.b, &q)) return false;
      switch (e->kind) {
      case EXPR_EQ: *out = p == q; break;
      case EXPR_NE: *out = p != q; break;
      case EXPR_LT: *out = p < q; break;
      case EXPR_LE: *out = p <= q; break;
      case EXPR_GT: *out = p > q; break;
      default: *out = p >= q; break;
      }
      return true;
    }
    if (!real_leaf(f, e->u.op.a, &x) || !real_leaf(f, e->u.op.b, &y)) return false;
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
  case EXPR_IFF: {
    bool b;
    if (!fast_holds(f, e->u.op.a, &a) || !fast_holds(f, e->u.op.b, &b)) return false;
    *out = a == b;
    return true;
  }
  case EXPR_ITE:
    if (e->type.kind != TYPE_BOOL || !fast_holds(f, e->u.op.a, &a)) return false;
    return fast_holds(f, a ? e->u.op.b : e->u.op.c, out);
  case EXPR_BOOL: *out = e->u.bval; return true;
  case EXPR_VAR: {
    long long i;
    if (e->type.kind != TYPE_BOOL || !int_leaf(f, e, &i)) return false;
    *out = i != 0;
    return true;
  }
  default: return false;
  }
}

bool leaves_holds(const ism_model_t *m, const expr_t *e, const double *now, const double *next,
                  const double *normal) {
  frame_t f = {m, now, next, normal};
  bool fast;
  if (fast_holds(&f, e, &fast)) return fast;
  bool err = false;
  bool v = expr_eval_bool(e, read_var, &f, &err);
  return v && !err;
}

double leaves_number(const ism_model_t *m, const expr_t *e, type_kind_t as, const double *now,
                     const double *next, const double *normal) {
  frame_t f = {m, now, next, normal};
  double fast;
  if (as == TYPE_REAL && e->type.kind == TYPE_REAL && real_leaf(&f, e, &fast)) return fast;
  long long whole;
  if (e->type.kind != TYPE_REAL && int_leaf(&f, e, &whole)) return (double)whole;
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

/* *r = a / k (r not a), dividing the constant and every coefficient by k
 * as expr_eval_real divides a value (not multiplying by 1 / k). */
static void aff_div_to(aff_t *r, const aff_t *a, double k) {
  r->c = a->c / k, r->mask = a->mask, r->ok = a->ok;
  for (unsigned m = a->mask; m; m &= m - 1) r->g[__builtin_ctz(m)] = a->g[__builtin_ctz(m)] / k;
}

static aff_t aff_lin(const aff_t *a, double sa, const aff_t *b, double sb) {
  aff_t r;
  aff_lin_to(&r, a, sa, b, sb);
  return r;
}

/* *to = *from, the coefficients outside the mask left as they are. */

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
    if (var->type.kind != TYPE_REAL) return aff_const(leaves_number(j->m, e, TYPE_REAL, now, next, normal));
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
    aff_t q;
    aff_div_to(&q, a, b->c);
    return q;
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
  return aff_const(leaves_number(j->m, e, TYPE_REAL, now, next, normal));
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
  a->value = j->kind == STAGE_ACTION ? leaves_holds(j->m, e, j->env, j->after, j->actual)
                                     : leaves_holds(j->m, e, j->sensed, NULL, j->normal);
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

/* Rewrites o's program with the fused ops (a literal times a view, a
 * literal added or subtracted) in place. */
static void fuse(joint_t *j, operand_t *o) {
  cop_t *ops = &j->cops[o->at];
  int n = o->n, w = 0;
  for (int k = 0; k < n; k++) {
    cop_t op = ops[k];
    if (k + 2 < n && ops[k + 2].op == COP_MUL &&
        ((ops[k].op == COP_CONST && ops[k + 1].op == COP_VIEW) ||
         (ops[k].op == COP_VIEW && ops[k + 1].op == COP_CONST))) {
      const cop_t *view = ops[k].op == COP_VIEW ? &ops[k] : &ops[k + 1];
      const cop_t *lit = ops[k].op == COP_CONST ? &ops[k] : &ops[k + 1];
      op = (cop_t){ops[k].op == COP_CONST ? COP_SCALE_KV : COP_SCALE_VK, view->v, view->which, lit->k,
                   ops[k + 2].e};
      k += 2;
    } else if (k + 1 < n && ops[k].op == COP_CONST &&
               (ops[k + 1].op == COP_ADD || ops[k + 1].op == COP_SUB)) {
      op = (cop_t){COP_ADDK, 0, 0, (ops[k + 1].op == COP_ADD ? 1 : -1) * ops[k].k, ops[k + 1].e};
      k += 1;
    }
    ops[w++] = op;
  }
  o->n = w;
  j->ncops = o->at + (size_t)w;
}

/* The stage's affine view a program's COP_VIEW names: which 0 a sensing
 * variable now, 1 next, 2 a normal value. */
static inline const aff_t *view_of(const joint_t *j, int which, int v) {
  return which == 0 ? &j->a_now[v] : which == 1 ? &j->a_next[v] : &j->a_norm[v];
}

static operand_t operand_of(joint_t *j, const expr_t *e) {
  operand_t o = {.kind = OPD_PROG, .at = j->ncops, .e = e};
  compile_operand(j, e);
  o.n = (int)(j->ncops - o.at);
  const cop_t *op = &j->cops[o.at];
  if (o.n == 1 && op->op == COP_VIEW)
    o.kind = OPD_VIEW, o.v = op->v, o.which = op->which, o.view = view_of(j, op->which, op->v);
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
  if (o.kind == OPD_PROG) fuse(j, &o);
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

/* What a child of connective e must be when e must be `want` (1 true, -1
 * false, 0 either): the necessary parts of a constraint are its top-level
 * conjuncts, and of a negated one its top-level disjuncts (negated); under
 * anything else a leaf is not necessary. b: the second operand. */
static signed char child_need(const expr_t *e, bool b, signed char want) {
  switch (e->kind) {
  case EXPR_NOT: return (signed char)-want;
  case EXPR_AND: return want > 0 ? 1 : 0;
  case EXPR_OR: return want < 0 ? -1 : 0;
  case EXPR_IMPLIES: return want < 0 ? (b ? -1 : 1) : 0; /* not (a -> b): a and not b */
  default: return 0;
  }
}

typedef struct {
  const ism_model_t *m;
  bool *hit;
} real_ctx_t;

static void mark_real(void *ctx, const expr_t *var) {
  real_ctx_t *rc = ctx;
  if (rc->m->vars[var->u.var.id].type.kind == TYPE_REAL) *rc->hit = true;
}

/* e's leaves in the order the cells read them (leaf_holds), with their
 * classes and what each must be when e holds (need 1) and fails (-1). */
static void compile_leaves_need(joint_t *j, const expr_t *e, leaves_t *ls, signed char hold,
                                signed char fail) {
  if (!e) return;
  if (numeric_comparison(e) && e->u.op.a->type.kind == TYPE_REAL) {
    operand_t l = operand_of(j, e->u.op.a), r = operand_of(j, e->u.op.b);
    push_leaf(ls, (leaf_t){true, e, l, r, {hold, fail}, true});
    return;
  }
  if (connective(e)) switch (e->kind) {
    case EXPR_NOT: compile_leaves_need(j, e->u.op.a, ls, (signed char)-hold, (signed char)-fail); return;
    case EXPR_ITE:
      compile_leaves_need(j, e->u.op.a, ls, 0, 0), compile_leaves_need(j, e->u.op.b, ls, 0, 0),
          compile_leaves_need(j, e->u.op.c, ls, 0, 0);
      return;
    default:
      compile_leaves_need(j, e->u.op.a, ls, child_need(e, false, hold), child_need(e, false, fail));
      compile_leaves_need(j, e->u.op.b, ls, child_need(e, true, hold), child_need(e, true, fail));
      return;
    }
  bool reads_real = false;
  expr_visit_vars(e, mark_real, &(real_ctx_t){j->m, &reads_real});
  push_leaf(ls, (leaf_t){.real = false, .e = e, .need = {hold, fail}, .reads_real = reads_real});
}

static void compile_leaves(joint_t *j, const expr_t *e, leaves_t *ls) {
  compile_leaves_need(j, e, ls, 1, -1);
}

/* The value of o at the stage's views, as aff_ref(j, o->e, tmp) gives it. */
const aff_t *leaves_operand_value(joint_t *j, const operand_t *o, aff_t *tmp) {
  switch (o->kind) {
  case OPD_VIEW: return view_of(j, o->which, o->v);
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
  int sp = 0, n = o->n;
  const cop_t *ops = j->cops + o->at;
  for (int k = 0; k < n; k++) {
    const cop_t *op = &ops[k];
    if (op->op == COP_VIEW) {
      st[sp++] = view_of(j, op->which, op->v);
      continue;
    }
    aff_t *out = k + 1 == n ? tmp : &reg[k];
    switch (op->op) {
    case COP_VIEW: break;
    case COP_CONST: aff_set_const(out, op->k); break;
    case COP_NUMBER: aff_set_const(out, leaves_number(j->m, op->e, TYPE_REAL, now, next, normal)); break;
    case COP_OTHER: {
      unsigned mask = fresh_mask(j, op->e);
      if (mask)
        *out = aff_fail(mask);
      else
        aff_set_const(out, leaves_number(j->m, op->e, TYPE_REAL, now, next, normal));
      break;
    }
    case COP_NEG: aff_lin_to(out, st[sp - 1], -1, st[sp - 1], 0), sp--; break;
    case COP_ADD:
    case COP_SUB: aff_lin_to(out, st[sp - 2], 1, st[sp - 1], op->op == COP_ADD ? 1 : -1), sp -= 2; break;
    case COP_MUL: {
      const aff_t *a = st[sp - 2], *b = st[sp - 1];
      if (a->mask && b->mask)
        *out = aff_fail(a->mask | b->mask);
      else if (a->mask)
        aff_lin_to(out, a, b->c, a, 0);
      else
        aff_lin_to(out, b, a->c, b, 0);
      sp -= 2;
      break;
    }
    case COP_DIV: {
      const aff_t *a = st[sp - 2], *b = st[sp - 1];
      if (b->mask || b->c == 0)
        *out = aff_fail(a->mask | b->mask);
      else
        aff_div_to(out, a, b->c);
      sp -= 2;
      break;
    }
    case COP_SCALE_KV: { /* COP_MUL of the literal and the view: the view times k */
      const aff_t *x = view_of(j, op->which, op->v);
      aff_lin_to(out, x, op->k, x, 0);
      break;
    }
    case COP_SCALE_VK: { /* COP_MUL of the view and the literal */
      const aff_t *x = view_of(j, op->which, op->v);
      if (x->mask)
        aff_lin_to(out, x, op->k, x, 0);
      else {
        aff_t lit;
        aff_set_const(&lit, op->k);
        aff_lin_to(out, &lit, x->c, &lit, 0);
      }
      break;
    }
    case COP_ADDK: { /* aff_lin_to(out, x, 1, literal, +-1): 1 * x exact, +-1 * the literal folded in k */
      const aff_t *x = st[sp - 1];
      out->c = x->c + op->k, out->mask = x->mask, out->ok = x->ok;
      for (unsigned m = x->mask; m; m &= m - 1) out->g[__builtin_ctz(m)] = x->g[__builtin_ctz(m)];
      sp--;
      break;
    }
    }
    st[sp++] = out;
  }
  return st[0];
}

/* leaves_stage_atoms's work for one compiled leaf. */
static void leaf_atoms(joint_t *j, const leaf_t *lf, cutset_t *cs) {
  const expr_t *e = lf->e;
  if (!lf->real) {
    if (lf->reads_real) cs->presample |= fresh_mask(j, e);
    push_constant(j, e);
    return;
  }
  aff_t tl, tr;
  const aff_t *l = lf->l.kind == OPD_VIEW    ? lf->l.view
                   : lf->l.kind == OPD_CONST ? &lf->l.k
                                             : leaves_operand_value(j, &lf->l, &tl);
  const aff_t *r = lf->r.kind == OPD_VIEW    ? lf->r.view
                   : lf->r.kind == OPD_CONST ? &lf->r.k
                                             : leaves_operand_value(j, &lf->r, &tr);
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

/* Appends e's program as leaves_number evaluates it over now (env) and
 * normal (actual), next NULL (real_value's forms, a division by 0 giving
 * expr_eval's value 0); false for anything else. */
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
  case EXPR_DIV:
    if (e->type.kind != TYPE_REAL || !compile_real(j, e->u.op.a) || !compile_real(j, e->u.op.b)) return false;
    push_cop(j, (cop_t){e->kind == EXPR_ADD   ? COP_ADD
                        : e->kind == EXPR_SUB ? COP_SUB
                        : e->kind == EXPR_MUL ? COP_MUL
                                              : COP_DIV,
                        0, 0, 0, e});
    return true;
  default: return false;
  }
}

/* real_value of a program compile_real wrote. */
double leaves_real_program(const joint_t *j, size_t at, int n, const double *now, const double *normal) {
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
    case COP_DIV: /* by 0: expr_eval's value, 0 (leaves_number reads no error) */
      sp--, st[sp - 1] = st[sp] == 0 ? 0 : st[sp - 1] / st[sp];
      break;
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

void leaves_compile(joint_t *j) {
  const ism_model_t *m = j->m;
  for (size_t r = 0; r < m->nrules && !j->may_err; r++) j->may_err = leaves_may_fail(m->rules[r].when);
  for (size_t a = 0; a < m->nactions && !j->may_err; a++) {
    const ism_action_t *act = &m->actions[a];
    j->may_err = act->failure && leaves_may_fail(act->failure);
    for (size_t k = 0; k < act->neffects && !j->may_err; k++) j->may_err = leaves_may_fail(act->effects[k]);
  }
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

void leaves_free(joint_t *j) {
  free(j->atom), free(j->lim);
  for (size_t r = 0; r < j->m->nrules; r++) free(j->guard_leaves[r].leaf);
  for (size_t a = 0; a < j->m->nactions; a++) free(j->action_leaves[a].leaf);
  free(j->guard_leaves), free(j->action_leaves), free(j->cops);
  free(j->sensing), free(j->sensing_list), free(j->after_of);
}

/* ---- a cell's value from the recorded leaves ---- */

static inline bool atom_holds(const joint_t *j, const atom_t *a) {
  if (a->constant) return a->value;
  return expr_compare_reals(a->op, a->c + a->g * j->x[a->i], 0);
}

/* e's value at the current x, reading the leaves in the order leaves_stage_atoms
 * recorded them (every leaf is read: no short circuit). */
static bool leaf_holds(const joint_t *j, const expr_t *e, int *k) {
  if (!e) return false;
  /* the connectives compile_leaves descends into; == and != are leaves unless they compare truth values */
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

/* The conjunction of the n atoms from *k on; *k moves past them. */
static inline bool atoms_hold(const joint_t *j, int n, int *k) {
  const atom_t *a = &j->atom[*k];
  *k += n;
  for (int i = 0; i < n; i++)
    if (!atom_holds(j, &a[i])) return false;
  return true;
}

/* stage_value of the current cell (x), read off the leaves that the last
 * stage_atoms recorded. */
double leaves_cell_value(const joint_t *j) {
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

void leaves_stage_atoms(joint_t *j, cutset_t *cs) {
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

/* ---- the comparisons a stage cannot hold without ---- */

static limit_t *push_limit(joint_t *j) {
  if (j->nlim == j->lim_cap) {
    j->lim_cap = j->lim_cap ? 2 * j->lim_cap : 16;
    j->lim = xrealloc(j->lim, (size_t)j->lim_cap * sizeof *j->lim);
  }
  return &j->lim[j->nlim++];
}

/* Records the real leaves of ls[from, to) that read a new error and must
 * hold or fail (need[side]: side 0 when their expression holds, 1 when it
 * fails) as limits, negated where they must fail. */
static void leaves_limits(joint_t *j, const leaves_t *ls, int from, int to, int side) {
  for (int k = from; k < to; k++) {
    const leaf_t *lf = &ls->leaf[k];
    int need = lf->need[side];
    if (!lf->real || !need) continue;
    aff_t tl, tr;
    const aff_t *l = leaves_operand_value(j, &lf->l, &tl), *r = leaves_operand_value(j, &lf->r, &tr);
    if (!l->ok || !r->ok || !(l->mask | r->mask)) continue;
    limit_t *li = push_limit(j);
    aff_t d;
    aff_lin_to(&d, l, 1, r, -1);
    li->c = d.c, li->mask = d.mask;
    for (unsigned m = d.mask; m; m &= m - 1) li->g[__builtin_ctz(m)] = d.g[__builtin_ctz(m)];
    li->op = need > 0 ? lf->e->kind : expr_negated_comparison(lf->e->kind);
  }
}

void leaves_stage_limits(joint_t *j) {
  j->nlim = 0;
  const ism_model_t *m = j->m;
  if (j->kind == STAGE_SENSE) {
    int rule = j->c->rules[j->step];
    for (const int *q = m->rules_from[j->c->states[j->step]]; *q >= 0; q++) {
      const leaves_t *ls = &j->guard_leaves[*q];
      if (*q == rule) { /* the path's rule is enabled */
        leaves_limits(j, ls, 0, ls->n, 0);
        if (m->selection == ISM_SELECT_FIRST) break;
      } else if (m->selection == ISM_SELECT_FIRST) /* a rule before it is not */
        leaves_limits(j, ls, 0, ls->n, 1);
    }
    return;
  }
  const leaves_t *ls = &j->action_leaves[j->action];
  leaves_limits(j, ls, 0, ls->split, 0); /* every constraint holds */
  if (j->m->actions[j->action].failure)  /* the failure holds exactly at the path's failing action */
    leaves_limits(j, ls, ls->split, ls->n, j->want_fail ? 0 : 1);
}
