#include "verifier/paths/repair.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/vec.h"

enum { MAX_TERMS = 16 };

/* The coefficients of a value in the choices, exact, valid near the
 * current choices (a local linearisation where the expression is not
 * affine: the taken branch of a max or an if). Only guides the search:
 * every valuation is checked by simulating it exactly. ok false: unknown. */
typedef struct {
  bool ok;
  int n;
  int idx[MAX_TERMS]; /* increasing choice indices */
  rat_t c[MAX_TERMS];
} aff_t;

typedef struct {
  rat_t v;
  aff_t f;
} val_t;

typedef struct {
  rat_t value, lo, hi;
  bool boxed, movable, integral;
  int moved; /* the round it last moved, or -TABU - 1 */
} choice_t;

/* A choice that moved stays put for this many rounds (unless moving it
 * again leaves nothing violated): without it, two comparisons that pull
 * one choice in opposite directions take turns forever. */
enum { TABU = 2 };

/* One comparison f op 0 the path needs (f = lhs - rhs, exact value r), or
 * a constraint that is not one (affine false: only its truth is known). */
typedef struct {
  bool holds, affine;
  expr_kind_t op;
  rat_t r;
  aff_t f;
} atom_t;

typedef struct {
  const extend_prep_t *p;
  const ism_model_t *m;
  ism_mode_t mode;
  repair_path_t *io;
  VEC(choice_t) choices;
  size_t next_choice;
  bool first;                     /* this pass makes the choices (from io's start values) */
  val_t *T, *H;                   /* rows as in io */
  val_t *before, *after, *normal; /* [nacts * nvars] */
  val_t *U, *cur;                 /* [nvars]: run_step's true values after each action, normal values */
  bool *set, *defining;           /* run_action's: [nvars] after-values set, [effects] defining ones */
  bool *has_actual;               /* [nacts * nvars] */
  VEC(atom_t) atoms;
  int target, ndisjuncts; /* the way of failing enforced; how many the last step has */
  int sources;            /* the last step's actions with a failure, and the model-wide failure */
  int fail_position;
  bool broken; /* an exact evaluation failed (overflow, division by zero): give up */
  bool stale;  /* the atoms' values could not follow a move: simulate again */
} sim_t;

typedef struct {
  const sim_t *s;
  const val_t *now, *next, *normal;
} env_t;

static const val_t *var_val(const env_t *env, int id, bool primed) {
  const val_t *row = env->s->m->vars[id].sensing ? (primed ? env->next : env->now) : env->normal;
  return row ? &row[id] : NULL;
}

static bool lookup(void *ctx, int id, bool primed, rat_t *out) {
  const val_t *v = var_val(ctx, id, primed);
  if (!v) return false;
  *out = v->v;
  return true;
}

static bool eval(sim_t *s, const env_t *env, const expr_t *e, rat_t *out) {
  if (rat_eval(e, lookup, (void *)env, out)) return true;
  s->broken = true;
  return false;
}

/* ---- affine forms ---- */

static const aff_t NONE = {0};
static const aff_t CONSTANT = {.ok = true};

/* x f + y g. */
static aff_t combine(const aff_t *f, rat_t x, const aff_t *g, rat_t y) {
  if (!f->ok || !g->ok) return NONE;
  aff_t h = {.ok = true};
  int a = 0, b = 0;
  while (a < f->n || b < g->n) {
    int ia = a < f->n ? f->idx[a] : -1, ib = b < g->n ? g->idx[b] : -1;
    rat_t c, t;
    int at;
    if (ib < 0 || (ia >= 0 && ia < ib)) {
      at = ia;
      if (!rat_mul(f->c[a++], x, &c)) return NONE;
    } else if (ia < 0 || ib < ia) {
      at = ib;
      if (!rat_mul(g->c[b++], y, &c)) return NONE;
    } else {
      at = ia;
      if (!rat_mul(f->c[a++], x, &c) || !rat_mul(g->c[b++], y, &t) || !rat_add(c, t, &c)) return NONE;
    }
    if (c.num == 0) continue;
    if (h.n == MAX_TERMS) return NONE;
    h.idx[h.n] = at, h.c[h.n++] = c;
  }
  return h;
}

static aff_t scaled(const aff_t *f, rat_t x) { return combine(f, x, &CONSTANT, rat_int(0)); }

static aff_t form(sim_t *s, const env_t *env, const expr_t *e);

/* Comparisons, connectives, mod: constant when every operand is. */
static aff_t constant_form(sim_t *s, const env_t *env, const expr_t *e) {
  const expr_t *ops[3] = {e->u.op.a, e->u.op.b, e->kind == EXPR_ITE ? e->u.op.c : NULL};
  for (int k = 0; k < 3 && ops[k]; k++) {
    aff_t f = form(s, env, ops[k]);
    if (!f.ok || f.n) return NONE;
  }
  return CONSTANT;
}

static aff_t form(sim_t *s, const env_t *env, const expr_t *e) {
  rat_t a, b;
  const expr_t *x = e->u.op.a, *y = e->u.op.b;
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_REAL:
  case EXPR_BOOL:
  case EXPR_ENUM: return CONSTANT;
  case EXPR_VAR: {
    const val_t *v = var_val(env, e->u.var.id, e->u.var.primed);
    return v ? v->f : NONE;
  }
  case EXPR_TOREAL: return form(s, env, x);
  case EXPR_NEG: {
    aff_t f = form(s, env, x);
    return scaled(&f, rat_int(-1));
  }
  case EXPR_ADD:
  case EXPR_SUB: {
    aff_t f = form(s, env, x), g = form(s, env, y);
    return combine(&f, rat_int(1), &g, rat_int(e->kind == EXPR_ADD ? 1 : -1));
  }
  case EXPR_MUL: { /* d(ab) = b da + a db */
    if (!eval(s, env, x, &a) || !eval(s, env, y, &b)) return NONE;
    aff_t f = form(s, env, x), g = form(s, env, y);
    return combine(&f, b, &g, a);
  }
  case EXPR_DIV: {
    aff_t g = form(s, env, y);
    if (e->type.kind != TYPE_REAL || !g.ok || g.n || !eval(s, env, y, &b) || b.num == 0) return NONE;
    aff_t f = form(s, env, x);
    return scaled(&f, (rat_t){b.den, b.num}); /* rat_mul normalises the sign */
  }
  case EXPR_ABS: {
    if (!eval(s, env, x, &a)) return NONE;
    aff_t f = form(s, env, x);
    return scaled(&f, rat_int(a.num < 0 ? -1 : 1));
  }
  case EXPR_MIN:
  case EXPR_MAX:
    if (!eval(s, env, x, &a) || !eval(s, env, y, &b)) return NONE;
    return form(s, env, (rat_cmp(a, b) <= 0) == (e->kind == EXPR_MIN) ? x : y);
  case EXPR_ITE:
    if (!eval(s, env, x, &a)) return NONE;
    return form(s, env, a.num ? y : e->u.op.c);
  default: return constant_form(s, env, e);
  }
}

/* ---- constraints ---- */

static bool compare(rat_t r, expr_kind_t op) {
  int c = r.num > 0 ? 1 : r.num < 0 ? -1 : 0;
  switch (op) {
  case EXPR_EQ: return c == 0;
  case EXPR_NE: return c != 0;
  case EXPR_LT: return c < 0;
  case EXPR_LE: return c <= 0;
  case EXPR_GT: return c > 0;
  default: return c >= 0;
  }
}

static void push_atom(sim_t *s, rat_t r, const aff_t *f, expr_kind_t op) {
  atom_t at = {compare(r, op), f->ok && f->n > 0, op, r, *f};
  VEC_PUSH(&s->atoms, at);
}

/* Constraint e must evaluate to `want`: its comparisons (through not, and,
 * a false or, a false implication) become atoms, anything else one atom
 * whose truth alone is known. */
static void constrain(sim_t *s, const env_t *env, const expr_t *e, bool want) {
  if (s->broken) return;
  const expr_t *x = e->u.op.a, *y = e->u.op.b;
  switch (e->kind) {
  case EXPR_NOT: constrain(s, env, x, !want); return;
  case EXPR_AND:
  case EXPR_OR:
    if ((e->kind == EXPR_AND) != want) break;
    constrain(s, env, x, want), constrain(s, env, y, want);
    return;
  case EXPR_IMPLIES:
    if (want) break;
    constrain(s, env, x, true), constrain(s, env, y, false);
    return;
  case EXPR_VAR: { /* a flag the path chooses: the atom flag == want */
    const val_t *v = var_val(env, e->u.var.id, e->u.var.primed);
    if (!v || e->type.kind != TYPE_BOOL) break;
    rat_t r;
    if (!rat_sub(v->v, rat_int(want), &r)) break;
    push_atom(s, r, &v->f, EXPR_EQ);
    return;
  }
  default:
    if (expr_is_comparison(e->kind) && x->type.kind != TYPE_BOOL) {
      rat_t a, b, r;
      if (!eval(s, env, x, &a) || !eval(s, env, y, &b)) return;
      if (!rat_sub(a, b, &r)) {
        s->broken = true;
        return;
      }
      aff_t f = form(s, env, x), g = form(s, env, y);
      aff_t d = combine(&f, rat_int(1), &g, rat_int(-1));
      push_atom(s, r, &d, want ? e->kind : expr_negated_comparison(e->kind));
      return;
    }
  }
  rat_t v;
  if (!eval(s, env, e, &v)) return;
  push_atom(s, rat_int((v.num != 0) == want ? 0 : 1), &NONE, EXPR_EQ);
}

/* The last step's failure is a disjunction (of its actions' failures, the
 * model-wide failure, and the top-level `or`s in them); only the target
 * disjunct is enforced. */
static void disjunct(sim_t *s, const env_t *env, const expr_t *e) {
  if (e->kind == EXPR_OR) {
    disjunct(s, env, e->u.op.a), disjunct(s, env, e->u.op.b);
    return;
  }
  if (s->ndisjuncts++ == s->target) constrain(s, env, e, true);
}

static void bound_atom(sim_t *s, const val_t *v, rat_t bound, expr_kind_t op) {
  rat_t r;
  if (!rat_sub(v->v, bound, &r)) {
    s->broken = true;
    return;
  }
  push_atom(s, r, &v->f, op);
}

/* ---- the path as a function of its choices ---- */

static bool valid(rat_t q) { return q.den > 0; }

/* The next choice: made on the first pass (start value if valid, else
 * fallback; clamped into the box), read afterwards. */
static val_t choice(sim_t *s, int var, bool error, rat_t start, rat_t fallback) {
  const ism_var_t *v = &s->m->vars[var];
  if (s->first) {
    bool flag = v->type.kind == TYPE_BOOL;
    choice_t c = {valid(start) ? start : fallback,   {0, 1}, {0, 1},   false,
                  v->type.kind == TYPE_REAL || flag, false,  -TABU - 1};
    c.integral = v->type.kind != TYPE_REAL;
    /* errors lie in their range; values only meet theirs at a sensing (atoms) */
    c.boxed = flag ? (c.lo = rat_int(0), c.hi = rat_int(1), true)
                   : error && extend_box(s->p, var, true, &c.lo, &c.hi);
    if (error && !c.boxed) s->broken = true;
    if (c.boxed && rat_cmp(c.value, c.lo) < 0) c.value = c.lo;
    if (c.boxed && rat_cmp(c.value, c.hi) > 0) c.value = c.hi;
    VEC_PUSH(&s->choices, c);
  }
  if (s->next_choice >= s->choices.len) {
    s->broken = true;
    return (val_t){rat_int(0), NONE};
  }
  size_t k = s->next_choice++;
  const choice_t *c = &s->choices.data[k];
  val_t out = {c->value, CONSTANT};
  if (c->integral && c->value.den != 1) s->broken = true;
  if (c->movable) out.f = (aff_t){.ok = true, .n = 1, .idx = {(int)k}, .c = {rat_int(1)}};
  return out;
}

static val_t add(sim_t *s, const val_t *a, const val_t *b) {
  val_t out = {rat_int(0), combine(&a->f, rat_int(1), &b->f, rat_int(1))};
  if (!rat_add(a->v, b->v, &out.v)) s->broken = true;
  return out;
}

static val_t value_of(sim_t *s, const env_t *env, const expr_t *e) {
  val_t out = {rat_int(0), NONE};
  if (eval(s, env, e, &out.v)) out.f = form(s, env, e);
  return out;
}

static rat_t diff_or_invalid(rat_t a, rat_t b) {
  rat_t d;
  return valid(a) && valid(b) && rat_sub(a, b, &d) ? d : (rat_t){0, 0};
}

static void run_action(sim_t *s, int k, size_t pos, size_t ai, val_t *U, val_t *cur, bool last) {
  const ism_model_t *m = s->m;
  size_t nv = m->nvars;
  const ism_action_t *a = &m->actions[m->rules[s->io->rules[k]].steps[pos].action];
  const extend_action_t *start = &s->io->acts[ai];
  bool known = k < s->io->valid_steps;
  val_t *before = s->before + ai * nv, *after = s->after + ai * nv, *normal = s->normal + ai * nv;
  bool *has_actual = s->has_actual + ai * nv;
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    before[v] = var->sensing ? U[v] : cur[v];
    after[v] = before[v];
    normal[v] = cur[v];
    has_actual[v] = !var->sensing && var->uncertain && s->mode == ISM_MODE_ACTUAL && a->reads[v];
    if (has_actual[v]) {
      rat_t e0 =
          known && start->has_actual[v] ? diff_or_invalid(start->actual[v], start->before[v]) : (rat_t){0, 0};
      val_t e = choice(s, (int)v, true, e0, rat_int(0));
      normal[v] = add(s, &cur[v], &e);
    }
  }
  bool naive = s->mode == ISM_MODE_NAIVE;
  bool *set = s->set, *defining = s->defining;
  memset(set, 0, nv * sizeof *set);
  memset(defining, 0, a->neffects * sizeof *defining);
  env_t bef = {s, before, NULL, normal}, both = {s, before, after, normal};
  for (size_t e = 0; e < a->neffects && !naive; e++) {
    const expr_t *value;
    int v = ism_effect_defines(m, a->effects[e], &value);
    if (v < 0 || set[v]) continue;
    after[v] = value_of(s, &bef, value);
    set[v] = defining[e] = true;
  }
  for (size_t v = 0; v < nv; v++)
    if (m->vars[v].sensing && !set[v])
      after[v] = choice(s, (int)v, false, known ? start->after[v] : (rat_t){0, 0}, before[v].v);
  for (size_t e = 0; e < a->neffects && !naive; e++)
    if (!defining[e]) constrain(s, &both, a->effects[e], true);
  if (a->failure && !(last && s->io->fail)) constrain(s, &both, a->failure, false);
  if (a->failure && last && s->io->fail) {
    s->sources++;
    rat_t fired;
    if (s->fail_position < 0 && rat_eval(a->failure, lookup, &both, &fired) && fired.num)
      s->fail_position = (int)pos;
    disjunct(s, &both, a->failure);
  }
  for (size_t v = 0; v < nv; v++)
    if (m->vars[v].sensing) U[v] = after[v];
}

static void run_step(sim_t *s, int k, size_t *ai) {
  const ism_model_t *m = s->m;
  size_t nv = m->nvars;
  const repair_path_t *io = s->io;
  int r = io->rules[k];
  const ism_rule_t *rule = &m->rules[r];
  bool known = k < io->valid_steps, last = k == io->length - 1;
  val_t *T = s->T + (size_t)k * nv, *H = s->H + (size_t)k * nv, *Tn = T + nv;
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    rat_t lo, hi;
    if (var->sensing && extend_box(s->p, (int)v, false, &lo, &hi))
      bound_atom(s, &T[v], lo, EXPR_GE), bound_atom(s, &T[v], hi, EXPR_LE);
    else if (var->sensing && var->has_range)
      s->broken = true;
    H[v] = T[v];
    if (var->sensing && var->uncertain && s->mode == ISM_MODE_ACTUAL) {
      size_t at = (size_t)k * nv + v;
      val_t e =
          choice(s, (int)v, true, known ? diff_or_invalid(io->H[at], io->T[at]) : (rat_t){0, 0}, rat_int(0));
      H[v] = add(s, &T[v], &e);
    }
  }
  env_t sensed = {s, H, NULL, H};
  constrain(s, &sensed, rule->when, true);
  if (m->selection == ISM_SELECT_FIRST)
    for (const int *o = m->rules_from[rule->from]; *o != r; o++)
      constrain(s, &sensed, m->rules[*o].when, false);
  val_t *U = s->U, *cur = s->cur;
  memcpy(U, T, nv * sizeof *U);
  memcpy(cur, T, nv * sizeof *cur);
  for (size_t st = 0; st < rule->nsteps && !s->broken; st++) {
    if (rule->steps[st].kind == ISM_STEP_ASSIGN) {
      env_t env = {s, H, NULL, cur};
      cur[rule->steps[st].var] = value_of(s, &env, rule->steps[st].value);
    } else {
      run_action(s, k, st, (*ai)++, U, cur, last);
    }
  }
  for (size_t v = 0; v < nv && !s->broken; v++) {
    const ism_var_t *var = &m->vars[v];
    if (!var->sensing)
      Tn[v] = cur[v];
    else if (rule->has_action)
      Tn[v] = U[v];
    else if (var->dynamic || s->mode == ISM_MODE_NAIVE) {
      Tn[v] = choice(s, (int)v, false, known ? io->T[(size_t)(k + 1) * nv + v] : (rat_t){0, 0}, T[v].v);
      rat_t lo, hi; /* a value at the next sensing: within the range even when none follows */
      if (last && extend_box(s->p, (int)v, false, &lo, &hi))
        bound_atom(s, &Tn[v], lo, EXPR_GE), bound_atom(s, &Tn[v], hi, EXPR_LE);
      else if (last && var->has_range)
        s->broken = true;
    } else
      Tn[v] = T[v];
  }
  if (m->failure && !s->broken) {
    env_t after = {s, Tn, NULL, Tn};
    if (last && s->io->fail) {
      s->sources++;
      disjunct(s, &after, m->failure);
    } else {
      constrain(s, &after, m->failure, false);
    }
  }
}

/* One exact pass over the path from the current choices. */
static void simulate(sim_t *s) {
  const ism_model_t *m = s->m;
  size_t nv = m->nvars;
  s->atoms.len = 0;
  s->next_choice = 0;
  s->ndisjuncts = 0;
  s->sources = 0;
  s->fail_position = -1;
  s->broken = false;
  for (size_t v = 0; v < nv; v++) {
    bool fixed = !m->vars[v].sensing && m->vars[v].init; /* its initial value */
    if (fixed && !valid(s->io->T[v])) s->broken = true;
    s->T[v] = choice(s, (int)v, false, s->io->T[v], rat_int(0));
    if (fixed) s->T[v].f = CONSTANT;
  }
  env_t start = {s, s->T, NULL, s->T};
  for (size_t k = 0; k < m->nassume; k++) constrain(s, &start, m->assume[k], true);
  size_t ai = 0;
  for (int k = 0; k < s->io->length && !s->broken; k++) run_step(s, k, &ai);
  if (ai != s->io->nacts) s->broken = true;
}

/* ---- the search ---- */

static double as_double(rat_t q) { return (double)q.num / (double)q.den; }

static rat_t coefficient(const aff_t *f, int c) {
  for (int t = 0; t < f->n; t++)
    if (f->idx[t] == c) return f->c[t];
  return rat_int(0);
}

static size_t violated(const sim_t *s) {
  size_t n = 0;
  for (size_t q = 0; q < s->atoms.len; q++) n += !s->atoms.data[q].holds;
  return n;
}

/* How many atoms a move of choice c by delta leaves violated, by the
 * atoms' linear forms (an estimate; the next pass decides). */
static size_t violated_after(const sim_t *s, int c, double delta) {
  size_t n = 0;
  for (size_t q = 0; q < s->atoms.len; q++) {
    const atom_t *at = &s->atoms.data[q];
    if (!at->affine) {
      n += !at->holds;
      continue;
    }
    double r = as_double(at->r) + as_double(coefficient(&at->f, c)) * delta;
    bool ok = at->op == EXPR_LE   ? r <= 0
              : at->op == EXPR_LT ? r < 0
              : at->op == EXPR_GE ? r >= 0
              : at->op == EXPR_GT ? r > 0
              : at->op == EXPR_EQ ? r == 0
                                  : r != 0;
    n += !ok;
  }
  return n;
}

/* The value of choice c that makes atom `at` hold (at its bound for a
 * non-strict comparison, 1/16 inside for a strict one), in c's box. */
static bool solve_for(const sim_t *s, const atom_t *at, int c, rat_t *out) {
  rat_t a = coefficient(&at->f, c), goal = rat_int(0), need, step;
  const choice_t *ch = &s->choices.data[c];
  if (at->op == EXPR_LT) goal = (rat_t){-1, 16};
  if (at->op == EXPR_GT || (at->op == EXPR_NE && at->r.num == 0)) goal = (rat_t){1, 16};
  if (at->op == EXPR_NE && at->r.num != 0) return false;
  if (!rat_sub(goal, at->r, &need) || !rat_div(need, a, &step) || !rat_add(ch->value, step, out))
    return false;
  if (ch->boxed && rat_cmp(*out, ch->lo) < 0) *out = ch->lo;
  if (ch->boxed && rat_cmp(*out, ch->hi) > 0) *out = ch->hi;
  return rat_cmp(*out, ch->value) != 0 && (!ch->integral || out->den == 1);
}

/* One move: the first violated atom with a form, solved for the choice
 * that leaves the fewest atoms violated (ties: the atom itself fixed, then
 * the latest choice), not one that moved in the last TABU rounds. False
 * when every move adds a violated atom (two, when it fixes this one: one
 * that a later move may fix, which coordinated moves need). */
static bool move(sim_t *s, int round) {
  size_t now = violated(s);
  const atom_t *at = NULL;
  for (size_t q = 0; q < s->atoms.len && !at; q++)
    if (!s->atoms.data[q].holds && s->atoms.data[q].affine) at = &s->atoms.data[q];
  if (!at) return false;
  int best = -1;
  size_t best_count = now + 1;
  rat_t best_value = rat_int(0);
  bool best_fixes = false;
  for (int pass = 0; pass < 2 && best < 0; pass++) /* then tabu ones too, but not the last moved */
    for (int t = at->f.n - 1; t >= 0; t--) {
      int c = at->f.idx[t];
      rat_t value;
      if (!s->choices.data[c].movable || !solve_for(s, at, c, &value)) continue;
      double delta = as_double(value) - as_double(s->choices.data[c].value);
      size_t count = violated_after(s, c, delta);
      int since = round - s->choices.data[c].moved;
      if (count > 0 && (pass == 0 ? since <= TABU : since <= 1)) continue;
      rat_t moved;
      bool fixes = rat_sub(value, s->choices.data[c].value, &moved) &&
                   rat_mul(moved, coefficient(&at->f, c), &moved) && rat_add(at->r, moved, &moved) &&
                   compare(moved, at->op);
      if (count < best_count || (count == best_count && fixes && !best_fixes)) {
        best = c, best_count = count, best_value = value, best_fixes = fixes;
      }
    }
  if (best < 0 || best_count > now + (best_fixes ? 1 : 0)) return false;
  choice_t *c = &s->choices.data[best];
  rat_t delta;
  s->stale = !rat_sub(best_value, c->value, &delta);
  for (size_t q = 0; q < s->atoms.len && !s->stale; q++) { /* the atoms by their forms, until the next pass */
    atom_t *other = &s->atoms.data[q];
    rat_t a = coefficient(&other->f, best), change;
    if (!other->affine || a.num == 0) continue;
    s->stale = !rat_mul(a, delta, &change) || !rat_add(other->r, change, &other->r);
    other->holds = compare(other->r, other->op);
  }
  c->value = best_value;
  c->moved = round;
  return true;
}

bool repair_path(const extend_prep_t *p, ism_mode_t mode, int rounds, repair_path_t *io) {
  const ism_model_t *m = extend_model(p);
  size_t nv = m->nvars, cells = io->nacts * nv + 1;
  sim_t s = {.p = p, .m = m, .mode = mode, .io = io};
  s.T = xmalloc(((size_t)(io->length + 1) * nv + 1) * sizeof *s.T);
  s.H = xmalloc(((size_t)io->length * nv + 1) * sizeof *s.H);
  s.before = xmalloc(cells * sizeof *s.before);
  s.after = xmalloc(cells * sizeof *s.after);
  s.normal = xmalloc(cells * sizeof *s.normal);
  s.has_actual = xcalloc(cells, sizeof *s.has_actual);
  s.U = xmalloc((nv + 1) * sizeof *s.U);
  s.cur = xmalloc((nv + 1) * sizeof *s.cur);
  size_t neffects = 0;
  for (size_t a = 0; a < m->nactions; a++)
    if (m->actions[a].neffects > neffects) neffects = m->actions[a].neffects;
  s.set = xcalloc(nv + 1, sizeof *s.set);
  s.defining = xcalloc(neffects + 1, sizeof *s.defining);
  bool found = false;
  int ways = 1;
  for (s.target = 0; s.target < ways && !found; s.target++) {
    s.choices.len = 0;
    s.first = true;
    simulate(&s);
    s.first = false;
    /* 0: the last step cannot fail at all. A step that can fail in more
     * than one place (two actions, or an action and the model-wide
     * failure) is left to the solver: which one fails is the
     * counterexample's class, and the solver's model decides it. */
    ways = !io->fail ? 1 : s.sources > 1 ? 0 : s.ndisjuncts;
    if (s.target >= ways) break;
    /* Moves follow the atoms' forms (exact while the path is affine); a
     * pass checks the valuation when they say it is done, when they cannot
     * follow a move, and once more when no move is left. */
    bool exact = true;
    for (int moves = 0; !s.broken;) {
      if (!exact && (s.stale || violated(&s) == 0)) {
        simulate(&s);
        exact = true;
        continue;
      }
      if (violated(&s) == 0) {
        found = true;
        break;
      }
      if (moves < rounds && move(&s, moves)) {
        moves++, exact = false;
      } else if (exact) {
        break;
      } else {
        s.stale = true;
      }
    }
  }
  if (found) {
    for (size_t k = 0; k < (size_t)(io->length + 1) * nv; k++) io->T[k] = s.T[k].v;
    for (size_t k = 0; k < (size_t)io->length * nv; k++) io->H[k] = s.H[k].v;
    for (size_t a = 0; a < io->nacts; a++)
      for (size_t v = 0; v < nv; v++) {
        size_t at = a * nv + v;
        io->acts[a].before[v] = s.before[at].v;
        io->acts[a].after[v] = s.after[at].v;
        io->acts[a].has_actual[v] = s.has_actual[at];
        io->acts[a].actual[v] = s.has_actual[at] ? s.normal[at].v : rat_int(0);
      }
    io->fail_position = s.fail_position;
  }
  free(s.T), free(s.H), free(s.before), free(s.after), free(s.normal), free(s.has_actual);
  free(s.U), free(s.cur), free(s.set), free(s.defining);
  VEC_FREE(&s.choices);
  VEC_FREE(&s.atoms);
  return found;
}
