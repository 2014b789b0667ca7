#include "verifier/eventb/eventb.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"
#include "ism/vec.h"
#include "verifier/smt.h"

/* A constant smt_to_text may meet, with the text it prints as. */
typedef struct {
  char *solver_name;
  const char *text;
  type_t type;
} leaf_entry_t;

typedef struct {
  const char *section;
  const char *name;
  smt_term_t term;
  type_t type;
} wit_item_t;
typedef VEC(wit_item_t) wit_spec_t;

typedef struct {
  const eventb_model_t *m;
  const eventb_options_t *opt;
  eventb_result_t *res;
  smt_t *s;
  arena_t arena;         /* this run's scratch: state vectors, names */
  smt_term_t *mpar;      /* [nparams] */
  smt_term_t mpar_ok;    /* declared bounds of the model parameters */
  VEC(eventb_check_t) checks;
  VEC(leaf_entry_t) leaves;
  smt_term_t *hat;       /* perceived state: fresh for uncertain variables, else shared with the true state */
} ctx_t;

/* One compartment u of a robustification. */
typedef struct {
  int *u;
  size_t nu;
  smt_term_t U;          /* the perceived states whose potential true states enable exactly u */
  bool vacuous;
  smt_term_t G;          /* robustified guard over hat, parameters and model parameters */
  smt_term_t Ex;         /* exists parameters. G */
  smt_term_t **p;        /* p[k]: parameters of original event u[k] */
  smt_term_t *use;       /* repurposing: use[k] <=> p[k] is not bottom */
  char ***pnames;        /* pnames[k][j]: written name of parameter j of u[k] */
} cell_t;

typedef struct {
  eventb_method_t method;
  cell_t *cells;
  size_t ncells;
} robust_run_t;

/* ---- terms ---- */

static smt_sort_t sort_of(type_t t) {
  return t.kind == TYPE_BOOL ? SMT_SORT_BOOL : t.kind == TYPE_REAL ? SMT_SORT_REAL : SMT_SORT_INT;
}

static smt_term_t fresh(ctx_t *c, const char *name, type_t t, const char *text) {
  smt_term_t k = smt_const(c->s, name, sort_of(t));
  if (text) VEC_PUSH(&c->leaves, ((leaf_entry_t){smt_name(c->s, k), text, t}));
  return k;
}

static smt_term_t and2(ctx_t *c, smt_term_t a, smt_term_t b) { return smt_op(c->s, EXPR_AND, a, b, 0); }
static smt_term_t not1(ctx_t *c, smt_term_t a) { return smt_op(c->s, EXPR_NOT, a, 0, 0); }
static smt_term_t implies(ctx_t *c, smt_term_t a, smt_term_t b) { return smt_op(c->s, EXPR_IMPLIES, a, b, 0); }

static smt_term_t *new_state(ctx_t *c, const char *suffix) {
  const eventb_model_t *m = c->m;
  smt_term_t *st = arena_alloc(&c->arena, (m->nvars + 1) * sizeof *st);
  for (size_t i = 0; i < m->nvars; i++) {
    char *name = arena_printf(&c->arena, "%s%s", m->vars[i].name, suffix);
    st[i] = fresh(c, name, m->vars[i].type, NULL);
  }
  return st;
}

/* Enum variables range over their values. */
static smt_term_t dom(ctx_t *c, const smt_term_t *st) {
  VEC(smt_term_t) parts = {0};
  for (size_t i = 0; i < c->m->nvars; i++) {
    type_t t = c->m->vars[i].type;
    if (t.kind != TYPE_ENUM) continue;
    VEC_PUSH(&parts, smt_op(c->s, EXPR_GE, st[i], smt_int(c->s, 0), 0));
    VEC_PUSH(&parts, smt_op(c->s, EXPR_LT, st[i], smt_int(c->s, c->m->enums[t.enum_id].nvalues), 0));
  }
  smt_term_t d = smt_and(c->s, parts.data, parts.len);
  VEC_FREE(&parts);
  return d;
}

typedef struct {
  ctx_t *c;
  const smt_term_t *cur, *next, *evp;
} env_t;

static smt_term_t var_term(void *ctx, const expr_t *v) {
  env_t *e = ctx;
  int id = v->u.var.id, nv = (int)e->c->m->nvars, base = EVENTB_PARAM_BASE(e->c->m);
  if (id < nv) return v->u.var.primed ? e->next[id] : e->cur[id];
  if (id < base) return e->c->mpar[id - nv];
  return e->evp[id - base];
}

static smt_term_t tr(ctx_t *c, const expr_t *e, const smt_term_t *cur, const smt_term_t *next, const smt_term_t *evp) {
  env_t env = {c, cur, next, evp};
  return smt_translate(c->s, e, var_term, &env);
}

/* The before-after predicate with the frame rule: x' = x unless x' occurs. */
static smt_term_t action(ctx_t *c, const eventb_event_t *ev, const smt_term_t *cur, const smt_term_t *evp,
                         const smt_term_t *next) {
  smt_term_t a = tr(c, ev->action, cur, next, evp);
  for (size_t i = 0; i < c->m->nvars; i++)
    if (!ev->primed[i]) a = and2(c, a, smt_op(c->s, EXPR_EQ, next[i], cur[i], 0));
  return a;
}

static smt_term_t *new_params(ctx_t *c, const eventb_event_t *ev, char **texts) {
  smt_term_t *p = arena_alloc(&c->arena, (ev->nparams + 1) * sizeof *p);
  for (size_t j = 0; j < ev->nparams; j++) p[j] = fresh(c, ev->params[j].name, ev->params[j].type, texts ? texts[j] : NULL);
  return p;
}

/* exists p. G(st, p): the event is enabled at st. */
static smt_term_t enabled(ctx_t *c, const eventb_event_t *ev, const smt_term_t *st) {
  smt_term_t *p = new_params(c, ev, NULL);
  return smt_exists(c->s, p, ev->nparams, tr(c, ev->guard, st, NULL, p));
}

/* tilde in epsilon(hat): the true state is within the error of the perceived one. */
static smt_term_t eps(ctx_t *c, const smt_term_t *tilde, const smt_term_t *hat) {
  VEC(smt_term_t) parts = {0};
  for (size_t i = 0; i < c->m->nvars; i++) {
    const eventb_var_t *v = &c->m->vars[i];
    if (!v->uncertain) continue;
    smt_term_t lo = smt_op(c->s, EXPR_ADD, hat[i], tr(c, v->lo, NULL, NULL, NULL), 0);
    smt_term_t hi = smt_op(c->s, EXPR_ADD, hat[i], tr(c, v->hi, NULL, NULL, NULL), 0);
    VEC_PUSH(&parts, smt_op(c->s, EXPR_LE, lo, tilde[i], 0));
    VEC_PUSH(&parts, smt_op(c->s, EXPR_LE, tilde[i], hi, 0));
  }
  smt_term_t t = smt_and(c->s, parts.data, parts.len);
  VEC_FREE(&parts);
  return t;
}

/* A potential true state around hat: fresh uncertain variables (listed in
 * bound), the others shared with hat. */
static smt_term_t *tilde_of(ctx_t *c, const smt_term_t *hat, smt_term_t *bound, size_t *nbound) {
  smt_term_t *t = arena_alloc(&c->arena, (c->m->nvars + 1) * sizeof *t);
  *nbound = 0;
  for (size_t i = 0; i < c->m->nvars; i++) {
    if (c->m->vars[i].uncertain) {
      t[i] = fresh(c, arena_printf(&c->arena, "%s~", c->m->vars[i].name), c->m->vars[i].type, NULL);
      bound[(*nbound)++] = t[i];
    } else {
      t[i] = hat[i];
    }
  }
  return t;
}

static smt_term_t qe(ctx_t *c, smt_term_t t) {
  smt_term_t r = smt_eliminate_quantifiers(c->s, t);
  if (!r) {
    if (!c->res->reason) c->res->reason = xasprintf("quantifier elimination failed: %s", smt_error(c->s));
    return t;
  }
  return r;
}

/* ---- checks and witnesses ---- */

static char *model_value(ctx_t *c, smt_term_t t, type_t ty) {
  if (ty.kind == TYPE_BOOL) {
    bool b = false;
    if (!smt_model_bool(c->s, t, &b)) return xstrdup("?");
    return xstrdup(b ? "true" : "false");
  }
  double v;
  char *exact = NULL;
  if (!smt_model_real(c->s, t, &v, &exact)) return xstrdup("?");
  if (ty.kind == TYPE_ENUM) {
    const expr_enum_t *en = &c->m->enums[ty.enum_id];
    long long k = (long long)v;
    free(exact);
    return xstrdup(k >= 0 && k < en->nvalues ? en->values[k] : "?");
  }
  return exact;
}

static void wit_state(ctx_t *c, wit_spec_t *w, const char *section, const smt_term_t *st, bool only_uncertain) {
  for (size_t i = 0; i < c->m->nvars; i++)
    if (!only_uncertain || c->m->vars[i].uncertain)
      VEC_PUSH(w, ((wit_item_t){section, only_uncertain && c->res->hat_names ? c->res->hat_names[i] : c->m->vars[i].name,
                                st[i], c->m->vars[i].type}));
}

static void wit_params(ctx_t *c, wit_spec_t *w, const eventb_event_t *ev, const smt_term_t *p) {
  for (size_t j = 0; j < ev->nparams; j++)
    VEC_PUSH(w, ((wit_item_t){"parameters", ev->params[j].name, p[j], ev->params[j].type}));
  (void)c;
}

static void wit_model_params(ctx_t *c, wit_spec_t *w) {
  for (size_t j = 0; j < c->m->nparams; j++)
    VEC_PUSH(w, ((wit_item_t){"model parameters", c->m->params[j].name, c->mpar[j], c->m->params[j].type}));
}

static eventb_check_t *new_check(ctx_t *c, const char *name) {
  VEC_PUSH(&c->checks, ((eventb_check_t){.name = name, .verdict = EVENTB_HOLDS}));
  return &VEC_LAST(&c->checks);
}

static void note_unknown(ctx_t *c) {
  c->res->unknown = true;
  if (!c->res->reason) c->res->reason = xasprintf("the solver answered unknown: %s", smt_error(c->s) ? smt_error(c->s) : "?");
}

/* Asks whether q (with the model-parameter bounds) is satisfiable; a model
 * becomes the check's witness unless it already has one. */
static smt_result_t query(ctx_t *c, smt_term_t q, eventb_check_t *chk, const char *event, const char *detail,
                          wit_spec_t *w) {
  smt_push(c->s);
  smt_assert(c->s, and2(c, c->mpar_ok, q));
  smt_result_t r = smt_check(c->s, NULL, 0);
  if (r == SMT_SAT && chk && chk->verdict != EVENTB_FAILS) {
    chk->verdict = EVENTB_FAILS;
    chk->event = event;
    chk->detail = detail ? xstrdup(detail) : NULL;
    size_t n = w ? w->len : 0;
    chk->witness = xcalloc(n + 1, sizeof *chk->witness);
    for (size_t i = 0; i < n; i++)
      chk->witness[i] = (eventb_binding_t){w->data[i].section, w->data[i].name, model_value(c, w->data[i].term, w->data[i].type)};
    chk->nwitness = n;
  } else if (r == SMT_UNKNOWN) {
    if (chk && chk->verdict == EVENTB_HOLDS) chk->verdict = EVENTB_UNKNOWN;
    note_unknown(c);
  }
  smt_pop(c->s, 1);
  return r;
}

/* I(s) and G(s,p) and A(s,p,s') and not I(s'), for every event. */
static void check_invariant(ctx_t *c) {
  const eventb_model_t *m = c->m;
  eventb_check_t *chk = new_check(c, "invariant");
  smt_term_t *s0 = new_state(c, "");
  wit_spec_t w = {0};
  wit_state(c, &w, "state", s0, false);
  wit_model_params(c, &w);
  query(c, and2(c, and2(c, dom(c, s0), tr(c, m->initial, s0, NULL, NULL)), not1(c, tr(c, m->invariant, s0, NULL, NULL))),
        chk, NULL, "an initial state violates the invariant", &w);
  VEC_FREE(&w);
  for (size_t k = 0; k < m->nplant + m->nctrl; k++) {
    const eventb_event_t *ev = k < m->nplant ? &m->plant[k] : &m->ctrl[k - m->nplant];
    smt_term_t *s = new_state(c, ""), *s1 = new_state(c, "'");
    smt_term_t *p = new_params(c, ev, NULL);
    smt_term_t q = and2(c, and2(c, dom(c, s), dom(c, s1)), tr(c, m->invariant, s, NULL, NULL));
    q = and2(c, q, tr(c, ev->guard, s, NULL, p));
    q = and2(c, q, action(c, ev, s, p, s1));
    q = and2(c, q, not1(c, tr(c, m->invariant, s1, NULL, NULL)));
    wit_spec_t w2 = {0};
    wit_state(c, &w2, "state", s, false);
    wit_params(c, &w2, ev, p);
    wit_state(c, &w2, "next", s1, false);
    wit_model_params(c, &w2);
    query(c, q, chk, ev->name, "the event leads from the invariant out of it", &w2);
    VEC_FREE(&w2);
  }
}

/* I(s) and G(s,p) and not exists s'. A(s,p,s'), for controller events (Def. 2). */
static void check_feasibility(ctx_t *c) {
  const eventb_model_t *m = c->m;
  eventb_check_t *chk = new_check(c, "feasibility");
  for (size_t k = 0; k < m->nctrl; k++) {
    const eventb_event_t *ev = &m->ctrl[k];
    smt_term_t *s = new_state(c, ""), *s1 = new_state(c, "'");
    smt_term_t *p = new_params(c, ev, NULL);
    smt_term_t some = qe(c, smt_exists(c->s, s1, m->nvars, and2(c, dom(c, s1), action(c, ev, s, p, s1))));
    smt_term_t q = and2(c, and2(c, dom(c, s), tr(c, m->invariant, s, NULL, NULL)), tr(c, ev->guard, s, NULL, p));
    q = and2(c, q, not1(c, some));
    wit_spec_t w = {0};
    wit_state(c, &w, "state", s, false);
    wit_params(c, &w, ev, p);
    wit_model_params(c, &w);
    query(c, q, chk, ev->name, "the guard holds but the action has no next state", &w);
    VEC_FREE(&w);
  }
}

/* Exactly one controller event is enabled in every state (Fig. 2, line 17). */
static void check_partitioning(ctx_t *c) {
  const eventb_model_t *m = c->m;
  eventb_check_t *chk = new_check(c, "partitioning");
  smt_term_t *s = new_state(c, "");
  smt_term_t *en = arena_alloc(&c->arena, (m->nctrl + 1) * sizeof *en);
  for (size_t i = 0; i < m->nctrl; i++) en[i] = qe(c, enabled(c, &m->ctrl[i], s));
  wit_spec_t w = {0};
  wit_state(c, &w, "state", s, false);
  wit_model_params(c, &w);
  smt_term_t none = not1(c, smt_or(c->s, en, m->nctrl));
  query(c, and2(c, dom(c, s), none), chk, NULL, "no controller event is enabled", &w);
  for (size_t i = 0; i < m->nctrl; i++)
    for (size_t j = i + 1; j < m->nctrl; j++) {
      char *detail = xasprintf("'%s' and '%s' are both enabled", m->ctrl[i].name, m->ctrl[j].name);
      query(c, and2(c, dom(c, s), and2(c, en[i], en[j])), chk, NULL, detail, &w);
      free(detail);
    }
  VEC_FREE(&w);
}

/* The controller of M^eps (Fig. 4) reads the perceived state and acts on the
 * true one: I(s), s in eps(hat), G(hat,p), A(s,p,s'), not I(s'). */
static void check_injected(ctx_t *c) {
  const eventb_model_t *m = c->m;
  eventb_check_t *chk = new_check(c, "injected-invariant");
  for (size_t k = 0; k < m->nctrl; k++) {
    const eventb_event_t *ev = &m->ctrl[k];
    smt_term_t *s = new_state(c, ""), *s1 = new_state(c, "'");
    smt_term_t *hat = arena_alloc(&c->arena, (m->nvars + 1) * sizeof *hat);
    for (size_t i = 0; i < m->nvars; i++)
      hat[i] = m->vars[i].uncertain ? fresh(c, c->res->hat_names[i], m->vars[i].type, NULL) : s[i];
    smt_term_t *p = new_params(c, ev, NULL);
    smt_term_t q = and2(c, and2(c, dom(c, s), dom(c, s1)), tr(c, m->invariant, s, NULL, NULL));
    q = and2(c, q, eps(c, s, hat));
    q = and2(c, q, tr(c, ev->guard, hat, NULL, p));
    q = and2(c, q, action(c, ev, s, p, s1));
    q = and2(c, q, not1(c, tr(c, m->invariant, s1, NULL, NULL)));
    wit_spec_t w = {0};
    wit_state(c, &w, "perceived", hat, true);
    wit_state(c, &w, "state", s, false);
    wit_params(c, &w, ev, p);
    wit_state(c, &w, "next", s1, false);
    wit_model_params(c, &w);
    query(c, q, chk, ev->name, "the perceived state enables the event, whose action on the true state breaks the invariant", &w);
    VEC_FREE(&w);
  }
}


/* ---- robustification (Figs. 7 and 9) ---- */

static smt_term_t *bound_buf(ctx_t *c) { return arena_alloc(&c->arena, (c->m->nvars + 1) * sizeof(smt_term_t)); }

/* u = { idx(t) | t in eps(hat) }: every potential true state enables an
 * event of u, and each event of u is enabled by one of them. */
static smt_term_t compartment(ctx_t *c, const int *u, size_t nu) {
  const eventb_model_t *m = c->m;
  smt_term_t *b = bound_buf(c);
  size_t nb;
  smt_term_t *t = tilde_of(c, c->hat, b, &nb);
  VEC(smt_term_t) parts = {0}, en = {0};
  for (size_t k = 0; k < nu; k++) VEC_PUSH(&en, enabled(c, &m->ctrl[u[k]], t));
  VEC_PUSH(&parts, smt_forall(c->s, b, nb, implies(c, eps(c, t, c->hat), smt_or(c->s, en.data, en.len))));
  for (size_t k = 0; k < nu; k++) {
    smt_term_t *b2 = bound_buf(c);
    size_t nb2;
    smt_term_t *t2 = tilde_of(c, c->hat, b2, &nb2);
    VEC_PUSH(&parts, smt_exists(c->s, b2, nb2, and2(c, eps(c, t2, c->hat), enabled(c, &m->ctrl[u[k]], t2))));
  }
  smt_term_t r = qe(c, smt_and(c->s, parts.data, parts.len));
  VEC_FREE(&parts);
  VEC_FREE(&en);
  return r;
}

/* Fig. 7, lines 11-13: each p_i in par_i(hat), and the actions share a next
 * state from every potential true state. */
static smt_term_t guard_preserving(ctx_t *c, const cell_t *cell) {
  const eventb_model_t *m = c->m;
  VEC(smt_term_t) parts = {0};
  VEC_PUSH(&parts, cell->U);
  for (size_t k = 0; k < cell->nu; k++) {
    const eventb_event_t *ev = &m->ctrl[cell->u[k]];
    smt_term_t *b = bound_buf(c);
    size_t nb;
    smt_term_t *t = tilde_of(c, c->hat, b, &nb);
    smt_term_t body = implies(c, and2(c, eps(c, t, c->hat), enabled(c, ev, t)), tr(c, ev->guard, t, NULL, cell->p[k]));
    VEC_PUSH(&parts, smt_forall(c->s, b, nb, body));
  }
  smt_term_t *b = bound_buf(c);
  size_t nb;
  smt_term_t *t = tilde_of(c, c->hat, b, &nb);
  smt_term_t *s1 = new_state(c, "'");
  smt_term_t inter = dom(c, s1);
  for (size_t k = 0; k < cell->nu; k++) inter = and2(c, inter, action(c, &m->ctrl[cell->u[k]], t, cell->p[k], s1));
  VEC_PUSH(&parts, smt_forall(c->s, b, nb, implies(c, eps(c, t, c->hat), smt_exists(c->s, s1, m->nvars, inter))));
  smt_term_t r = qe(c, smt_and(c->s, parts.data, parts.len));
  VEC_FREE(&parts);
  return r;
}

/* p in safpar(hat, I): from every potential true state the action has a
 * next state and all its next states satisfy the invariant. */
static smt_term_t safe_param(ctx_t *c, const eventb_event_t *ev, const smt_term_t *p) {
  const eventb_model_t *m = c->m;
  smt_term_t *b = bound_buf(c);
  size_t nb;
  smt_term_t *t = tilde_of(c, c->hat, b, &nb);
  smt_term_t *s1 = new_state(c, "'"), *s2 = new_state(c, "'");
  smt_term_t feasible = smt_exists(c->s, s1, m->nvars, and2(c, dom(c, s1), action(c, ev, t, p, s1)));
  smt_term_t safe = smt_forall(c->s, s2, m->nvars,
                               implies(c, and2(c, dom(c, s2), action(c, ev, t, p, s2)), tr(c, m->invariant, s2, NULL, NULL)));
  return smt_forall(c->s, b, nb, implies(c, eps(c, t, c->hat), and2(c, feasible, safe)));
}

/* Fig. 9, lines 10-11, with use_i standing for p_i != bottom. */
static smt_term_t guard_repurposing(ctx_t *c, const cell_t *cell) {
  const eventb_model_t *m = c->m;
  VEC(smt_term_t) parts = {0};
  VEC_PUSH(&parts, cell->U);
  for (size_t k = 0; k < cell->nu; k++) {
    const eventb_event_t *ev = &m->ctrl[cell->u[k]];
    smt_term_t *q = new_params(c, ev, NULL);
    smt_term_t has = qe(c, smt_exists(c->s, q, ev->nparams, safe_param(c, ev, q)));
    VEC_PUSH(&parts, implies(c, has, and2(c, cell->use[k], safe_param(c, ev, cell->p[k]))));
    VEC_PUSH(&parts, implies(c, not1(c, has), not1(c, cell->use[k])));
  }
  VEC_PUSH(&parts, smt_or(c->s, cell->use, cell->nu));
  smt_term_t r = qe(c, smt_and(c->s, parts.data, parts.len));
  VEC_FREE(&parts);
  return r;
}

static bool name_taken(ctx_t *c, const char *name) {
  const eventb_model_t *m = c->m;
  for (size_t i = 0; i < m->scope.nsyms; i++)
    if (strcmp(m->scope.syms[i].name, name) == 0) return true;
  for (size_t i = 0; i < m->nvars; i++)
    if (c->res->hat_names[i] && strcmp(c->res->hat_names[i], name) == 0) return true;
  return false;
}

/* Parameters of E_u keep their names unless two events of u (or a
 * variable) share one; then they are prefixed with their event's name. */
static void make_cell_params(ctx_t *c, cell_t *cell, bool with_use) {
  const eventb_model_t *m = c->m;
  cell->p = arena_alloc(&c->arena, (cell->nu + 1) * sizeof *cell->p);
  cell->pnames = arena_alloc(&c->arena, (cell->nu + 1) * sizeof *cell->pnames);
  cell->use = arena_alloc(&c->arena, (cell->nu + 1) * sizeof *cell->use);
  for (size_t k = 0; k < cell->nu; k++) {
    const eventb_event_t *ev = &m->ctrl[cell->u[k]];
    cell->pnames[k] = arena_alloc(&c->arena, (ev->nparams + 1) * sizeof **cell->pnames);
    for (size_t j = 0; j < ev->nparams; j++) {
      const char *name = ev->params[j].name;
      bool clash = name_taken(c, name);
      for (size_t k2 = 0; k2 < cell->nu && !clash; k2++) {
        const eventb_event_t *ev2 = &m->ctrl[cell->u[k2]];
        for (size_t j2 = 0; k2 != k && j2 < ev2->nparams; j2++) clash |= strcmp(ev2->params[j2].name, name) == 0;
      }
      cell->pnames[k][j] = clash ? arena_printf(&c->arena, "%s_%s", ev->name, name) : arena_strdup(&c->arena, name);
    }
    cell->p[k] = new_params(c, ev, cell->pnames[k]);
    if (with_use) {
      char *use = arena_printf(&c->arena, "use_%s", ev->name);
      cell->use[k] = fresh(c, use, (type_t){TYPE_BOOL, -1}, use);
    }
  }
}

static int popcount(unsigned x) {
  int n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

/* Subsets by size, then lexicographically by their indices. */
static int cmp_masks(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  if (popcount(x) != popcount(y)) return popcount(x) - popcount(y);
  for (unsigned bit = 1; bit; bit <<= 1)
    if ((x & bit) != (y & bit)) return (x & bit) ? -1 : 1;
  return 0;
}

static bool is_vacuous(ctx_t *c, const cell_t *cell, smt_term_t extra) {
  return query(c, and2(c, and2(c, dom(c, c->hat), extra), cell->U), NULL, NULL, NULL, NULL) == SMT_UNSAT;
}

static void build_cells(ctx_t *c, robust_run_t *run, eventb_method_t method) {
  const eventb_model_t *m = c->m;
  size_t n = m->nctrl, count = ((size_t)1 << n) - 1;
  unsigned *masks = xmalloc(count * sizeof *masks);
  for (size_t i = 0; i < count; i++) masks[i] = (unsigned)(i + 1);
  qsort(masks, count, sizeof *masks, cmp_masks);
  run->method = method;
  run->ncells = count;
  run->cells = arena_alloc(&c->arena, count * sizeof *run->cells);
  for (size_t i = 0; i < count; i++) {
    cell_t *cell = &run->cells[i];
    cell->u = arena_alloc(&c->arena, (n + 1) * sizeof *cell->u);
    for (size_t k = 0; k < n; k++)
      if (masks[i] & (1u << k)) cell->u[cell->nu++] = (int)k;
    cell->U = compartment(c, cell->u, cell->nu);
    cell->vacuous = is_vacuous(c, cell, smt_bool(c->s, true));
    if (cell->vacuous) continue;
    make_cell_params(c, cell, method == EVENTB_REPURPOSING);
    cell->G = method == EVENTB_PRESERVING ? guard_preserving(c, cell) : guard_repurposing(c, cell);
    VEC(smt_term_t) all = {0};
    for (size_t k = 0; k < cell->nu; k++) {
      for (size_t j = 0; j < m->ctrl[cell->u[k]].nparams; j++) VEC_PUSH(&all, cell->p[k][j]);
      if (method == EVENTB_REPURPOSING) VEC_PUSH(&all, cell->use[k]);
    }
    cell->Ex = qe(c, smt_exists(c->s, all.data, all.len, cell->G));
    VEC_FREE(&all);
  }
  free(masks);
}

static char *subset_text(ctx_t *c, const cell_t *cell) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_putc(&sb, '{');
  for (size_t k = 0; k < cell->nu; k++) strbuf_printf(&sb, "%s%s", k ? ", " : "", c->m->ctrl[cell->u[k]].name);
  strbuf_putc(&sb, '}');
  return strbuf_take(&sb);
}

/* Theorems 1 and 2, in the form of the guards: wherever the controller is
 * unsure between the events of u, the robustified event E_u is enabled. */
static bool theorem_check(ctx_t *c, const robust_run_t *run, smt_term_t extra) {
  const eventb_model_t *m = c->m;
  eventb_check_t *chk = new_check(c, run->method == EVENTB_PRESERVING ? "theorem1" : "theorem2");
  wit_spec_t w = {0};
  for (size_t i = 0; i < m->nvars; i++)
    VEC_PUSH(&w, ((wit_item_t){"perceived", m->vars[i].uncertain ? c->res->hat_names[i] : m->vars[i].name, c->hat[i],
                               m->vars[i].type}));
  wit_model_params(c, &w);
  for (size_t i = 0; i < run->ncells; i++) {
    const cell_t *cell = &run->cells[i];
    if (cell->vacuous) continue;
    char *u = subset_text(c, cell);
    char *detail = xasprintf("the controller is unsure between %s and no parameters satisfy the robustified guard", u);
    query(c, and2(c, and2(c, and2(c, dom(c, c->hat), extra), cell->U), not1(c, cell->Ex)), chk, NULL, detail, &w);
    free(detail);
    free(u);
  }
  VEC_FREE(&w);
  return chk->verdict == EVENTB_HOLDS;
}

/* ---- the largest tolerable error ---- */

static bool leaf_lookup(void *ctx, const char *name, smt_leaf_t *out) {
  ctx_t *c = ctx;
  for (size_t i = 0; i < c->leaves.len; i++) {
    const leaf_entry_t *e = &c->leaves.data[i];
    if (strcmp(e->solver_name, name) != 0) continue;
    out->text = e->text;
    if (e->type.kind == TYPE_ENUM) {
      out->enum_values = c->m->enums[e->type.enum_id].values;
      out->nenum_values = c->m->enums[e->type.enum_id].nvalues;
    }
    return true;
  }
  return false;
}

static char *term_text(ctx_t *c, smt_term_t t) {
  char *text = smt_to_text(c->s, smt_simplify_deep(c->s, t), leaf_lookup, c);
  if (!text) {
    c->res->error = true;
    if (!c->res->reason) c->res->reason = xasprintf("cannot write a formula: %s", smt_error(c->s));
    return xstrdup("?");
  }
  return text;
}

static smt_term_t value_term(ctx_t *c, const char *exact, type_t t) {
  return t.kind == TYPE_INT ? smt_int(c->s, strtoll(exact, NULL, 10)) : smt_real_text(c->s, exact);
}

/* The largest value of parameter P satisfying phi: a model of phi, raised
 * by galloping while phi allows more; exact once phi and P > best is
 * unsatisfiable (the two plain checks that confirm the answer). */
static void search_max(ctx_t *c, smt_term_t phi, size_t pidx, eventb_max_error_t *out) {
  const eventb_param_t *par = &c->m->params[pidx];
  smt_term_t d = c->mpar[pidx];
  smt_push(c->s);
  smt_assert(c->s, and2(c, c->mpar_ok, phi));
  smt_result_t r = smt_check(c->s, NULL, 0);
  char *best = NULL;
  double num = 0;
  if (r == SMT_SAT) smt_model_real(c->s, d, &num, &best);
  int rounds = 0;
  while (r == SMT_SAT && best && rounds++ < 64) {
    r = smt_check(c->s, (smt_term_t[]){smt_op(c->s, EXPR_GT, d, value_term(c, best, par->type), 0)}, 1);
    if (r != SMT_SAT) break;
    free(best);
    best = NULL;
    smt_model_real(c->s, d, &num, &best);
    for (long long step = 1; best && step < (1LL << 50); step *= 2) {
      char *target = xasprintf("%.17g", num + (double)step);
      smt_term_t ge = smt_op(c->s, EXPR_GE, d, value_term(c, target, par->type), 0);
      free(target);
      if (smt_check(c->s, &ge, 1) != SMT_SAT) break;
      free(best);
      best = NULL;
      smt_model_real(c->s, d, &num, &best);
    }
    if (num > 1e15) {
      out->unbounded = true;
      break;
    }
  }
  smt_pop(c->s, 1);
  out->found = best != NULL;
  if (r == SMT_UNKNOWN) note_unknown(c);
  if (out->found && !out->unbounded && r == SMT_UNSAT) {
    out->value = best;
    out->number = num;
    best = NULL;
    smt_term_t le = smt_op(c->s, EXPR_LE, d, value_term(c, out->value, par->type), 0);
    if (query(c, not1(c, smt_op(c->s, EXPR_IFF, phi, le, 0)), NULL, NULL, NULL, NULL) == SMT_UNSAT)
      out->formula = xasprintf("%s <= %s", par->name, out->value);
  } else if (out->found && !out->unbounded && r == SMT_SAT) {
    out->found = false; /* a supremum not attained within the rounds: only the formula */
  }
  free(best);
  if (!out->formula) out->formula = term_text(c, phi);
}

/* phi(P): every compartment of the robustification has an enabled event. */
static smt_term_t error_condition(ctx_t *c, const robust_run_t *run) {
  VEC(smt_term_t) parts = {0};
  for (size_t i = 0; i < run->ncells; i++) {
    const cell_t *cell = &run->cells[i];
    if (cell->vacuous) continue;
    smt_term_t body = implies(c, and2(c, dom(c, c->hat), cell->U), cell->Ex);
    VEC_PUSH(&parts, qe(c, smt_forall(c->s, c->hat, c->m->nvars, body)));
  }
  smt_term_t r = smt_and(c->s, parts.data, parts.len);
  VEC_FREE(&parts);
  return r;
}

/* ---- reporting the robustified events ---- */

typedef struct {
  const eventb_model_t *m;
  char **names;
} rename_t;

static expr_t *rename_param(void *ctx, expr_t *v) {
  rename_t *r = ctx;
  if (v->u.var.sym_kind == SYM_PARAM) v->u.var.name = r->names[v->u.var.id - EVENTB_PARAM_BASE(r->m)];
  return v;
}

static void put_action(ctx_t *c, strbuf_t *sb, const eventb_event_t *ev, char **pnames) {
  rename_t r = {c->m, pnames};
  expr_t *copy = expr_copy(ev->action, &c->arena, rename_param, &r);
  char *text = expr_to_string(copy, &c->m->scope);
  strbuf_printf(sb, "(%s", text);
  free(text);
  for (size_t i = 0; i < c->m->nvars; i++)
    if (!ev->primed[i]) strbuf_printf(sb, " and %s' == %s", c->m->vars[i].name, c->m->vars[i].name);
  strbuf_putc(sb, ')');
}

static void put_eps_next(ctx_t *c, strbuf_t *sb) {
  for (size_t i = 0; i < c->m->nvars; i++) {
    const eventb_var_t *v = &c->m->vars[i];
    if (!v->uncertain) continue;
    char *lo = expr_to_string(v->lo, &c->m->scope), *hi = expr_to_string(v->hi, &c->m->scope);
    const char *h = c->res->hat_names[i];
    strbuf_printf(sb, " and %s' + (%s) <= %s' and %s' <= %s' + (%s)", h, lo, v->name, v->name, h, hi);
    free(lo);
    free(hi);
  }
}

static void report_events(ctx_t *c, const robust_run_t *run, smt_term_t extra) {
  const eventb_model_t *m = c->m;
  eventb_robust_t *out = &c->res->robust;
  out->events = xcalloc(run->ncells + 1, sizeof *out->events);
  out->vacuous = xcalloc(run->ncells + 1, sizeof *out->vacuous);
  for (size_t i = 0; i < run->ncells; i++) {
    const cell_t *cell = &run->cells[i];
    if (cell->vacuous || is_vacuous(c, cell, extra)) {
      int *u = xcalloc(cell->nu + 1, sizeof *u);
      memcpy(u, cell->u, cell->nu * sizeof *u);
      u[cell->nu] = -1;
      out->vacuous[out->nvacuous++] = u;
      continue;
    }
    eventb_revent_t *e = &out->events[out->nevents++];
    strbuf_t sb;
    strbuf_init(&sb);
    for (size_t k = 0; k < cell->nu; k++) strbuf_printf(&sb, "%s%s", k ? "_and_" : "", m->ctrl[cell->u[k]].name);
    e->name = strbuf_take(&sb);
    e->u = xcalloc(cell->nu + 1, sizeof *e->u);
    memcpy(e->u, cell->u, cell->nu * sizeof *e->u);
    e->nu = cell->nu;
    e->guard = term_text(c, cell->G);
    size_t np = 0;
    for (size_t k = 0; k < cell->nu; k++) np += m->ctrl[cell->u[k]].nparams + (run->method == EVENTB_REPURPOSING);
    e->param_names = xcalloc(np + 1, sizeof *e->param_names);
    e->param_types = xcalloc(np + 1, sizeof *e->param_types);
    strbuf_init(&sb);
    if (run->method == EVENTB_REPURPOSING) strbuf_putc(&sb, '(');
    for (size_t k = 0; k < cell->nu; k++) {
      const eventb_event_t *ev = &m->ctrl[cell->u[k]];
      for (size_t j = 0; j < ev->nparams; j++) {
        e->param_names[e->nparams] = xstrdup(cell->pnames[k][j]);
        e->param_types[e->nparams++] = expr_type_name(ev->params[j].type, NULL);
      }
      if (run->method == EVENTB_REPURPOSING) {
        e->param_names[e->nparams] = xasprintf("use_%s", ev->name);
        e->param_types[e->nparams++] = "bool";
        strbuf_printf(&sb, "%s(use_%s and ", k ? " or " : "", ev->name);
        put_action(c, &sb, ev, cell->pnames[k]);
        strbuf_putc(&sb, ')');
      } else {
        if (k) strbuf_puts(&sb, " and ");
        put_action(c, &sb, ev, cell->pnames[k]);
      }
    }
    if (run->method == EVENTB_REPURPOSING) strbuf_putc(&sb, ')');
    put_eps_next(c, &sb);
    e->action = strbuf_take(&sb);
  }
}

/* ---- the whole analysis ---- */

static void setup(ctx_t *c) {
  const eventb_model_t *m = c->m;
  eventb_result_t *res = c->res;
  res->hat_names = xcalloc(m->nvars + 1, sizeof *res->hat_names);
  res->nhat_names = m->nvars;
  for (size_t i = 0; i < m->nvars; i++) {
    if (!m->vars[i].uncertain) continue;
    char *name = xasprintf("%s_hat", m->vars[i].name);
    while (name_taken(c, name)) {
      char *longer = xasprintf("%s_", name);
      free(name);
      name = longer;
    }
    res->hat_names[i] = name;
  }
  c->mpar = arena_alloc(&c->arena, (m->nparams + 1) * sizeof *c->mpar);
  VEC(smt_term_t) ok = {0};
  for (size_t j = 0; j < m->nparams; j++) {
    const eventb_param_t *p = &m->params[j];
    c->mpar[j] = fresh(c, p->name, p->type, p->name);
    char buf[64];
    if (p->has_min) {
      snprintf(buf, sizeof buf, "%.17g", p->min);
      VEC_PUSH(&ok, smt_op(c->s, EXPR_GE, c->mpar[j], smt_real_text(c->s, buf), 0));
    }
    if (p->has_max) {
      snprintf(buf, sizeof buf, "%.17g", p->max);
      VEC_PUSH(&ok, smt_op(c->s, EXPR_LE, c->mpar[j], smt_real_text(c->s, buf), 0));
    }
  }
  c->mpar_ok = smt_and(c->s, ok.data, ok.len);
  VEC_FREE(&ok);
  c->hat = arena_alloc(&c->arena, (m->nvars + 1) * sizeof *c->hat);
  for (size_t i = 0; i < m->nvars; i++) {
    const char *name = m->vars[i].uncertain ? res->hat_names[i] : m->vars[i].name;
    c->hat[i] = fresh(c, name, m->vars[i].type, name);
  }
}

static bool better(const eventb_max_error_t *a, const eventb_max_error_t *b) {
  if (a->unbounded != b->unbounded) return a->unbounded;
  if (a->found != b->found) return a->found;
  return a->found && a->number > b->number;
}

static void robustify(ctx_t *c) {
  const eventb_model_t *m = c->m;
  eventb_result_t *res = c->res;
  eventb_method_t methods[2] = {EVENTB_PRESERVING, EVENTB_REPURPOSING};
  size_t first = c->opt->method == EVENTB_REPURPOSING, last = c->opt->method == EVENTB_PRESERVING ? 1 : 2;
  robust_run_t runs[2] = {{0}};
  res->robust.ran = true;
  res->robust.method = EVENTB_NONE;
  const robust_run_t *chosen = NULL;
  smt_term_t extra = smt_bool(c->s, true);
  if (c->opt->max_error) {
    size_t pidx = 0;
    while (strcmp(m->params[pidx].name, c->opt->max_error) != 0) pidx++;
    eventb_max_error_t best = {0};
    for (size_t k = first; k < last; k++) {
      build_cells(c, &runs[k], methods[k]);
      eventb_max_error_t me = {.ran = true, .parameter = m->params[pidx].name, .method = methods[k]};
      search_max(c, error_condition(c, &runs[k]), pidx, &me);
      if (!chosen || better(&me, &best)) {
        free(best.value);
        free(best.formula);
        best = me;
        chosen = &runs[k];
      } else {
        free(me.value);
        free(me.formula);
      }
    }
    res->max_error = best;
    if (best.found && !best.unbounded)
      extra = smt_op(c->s, EXPR_LE, c->mpar[pidx], value_term(c, best.value, m->params[pidx].type), 0);
    else if (!best.found)
      extra = smt_bool(c->s, false);
    if (theorem_check(c, chosen, extra) && best.found) res->robust.method = chosen->method;
  } else {
    for (size_t k = first; k < last && !chosen; k++) {
      build_cells(c, &runs[k], methods[k]);
      if (theorem_check(c, &runs[k], extra)) chosen = &runs[k];
    }
    if (chosen) res->robust.method = chosen->method;
    else chosen = &runs[last - 1];
  }
  if (res->robust.method != EVENTB_NONE) {
    report_events(c, chosen, extra);
  } else {
    res->robust.events = xcalloc(1, sizeof *res->robust.events);
    res->robust.vacuous = xcalloc(1, sizeof *res->robust.vacuous);
  }
}

void eventb_analyse(const eventb_model_t *m, const eventb_options_t *opt, eventb_result_t *res) {
  memset(res, 0, sizeof *res);
  ctx_t c = {.m = m, .opt = opt, .res = res};
  arena_init(&c.arena);
  smt_options_t so = {.timeout_ms = opt->timeout_ms, .rlimit = opt->rlimit};
  c.s = smt_new(&so);
  setup(&c);
  check_invariant(&c);
  check_feasibility(&c);
  check_partitioning(&c);
  if (m->has_uncertainty) {
    check_injected(&c);
    robustify(&c);
  }
  res->checks = c.checks.data;
  res->nchecks = c.checks.len;
  for (size_t i = 0; i < c.leaves.len; i++) free(c.leaves.data[i].solver_name);
  VEC_FREE(&c.leaves);
  smt_delete(c.s);
  arena_free(&c.arena);
}

void eventb_result_free(eventb_result_t *res) {
  for (size_t i = 0; i < res->nchecks; i++) {
    for (size_t k = 0; k < res->checks[i].nwitness; k++) free(res->checks[i].witness[k].value);
    free(res->checks[i].witness);
    free(res->checks[i].detail);
  }
  free(res->checks);
  for (size_t i = 0; i < res->robust.nevents; i++) {
    eventb_revent_t *e = &res->robust.events[i];
    free(e->name);
    free(e->u);
    free(e->guard);
    free(e->action);
    for (size_t k = 0; k < e->nparams; k++) free(e->param_names[k]);
    free(e->param_names);
    free(e->param_types);
  }
  free(res->robust.events);
  for (size_t i = 0; i < res->robust.nvacuous; i++) free(res->robust.vacuous[i]);
  free(res->robust.vacuous);
  free(res->max_error.value);
  free(res->max_error.formula);
  for (size_t i = 0; i < res->nhat_names; i++) free(res->hat_names[i]);
  free(res->hat_names);
  free(res->reason);
  memset(res, 0, sizeof *res);
}

const eventb_check_t *eventb_find_check(const eventb_result_t *res, const char *name) {
  for (size_t i = 0; i < res->nchecks; i++)
    if (strcmp(res->checks[i].name, name) == 0) return &res->checks[i];
  return NULL;
}

const char *eventb_method_name(eventb_method_t method) {
  static const char *const names[] = {"auto", "preserving", "repurposing", "none"};
  return names[method];
}
