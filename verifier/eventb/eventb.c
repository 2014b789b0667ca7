#include "verifier/eventb/eventb.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"
#include "ism/strbuf.h"
#include "ism/vec.h"
#include "verifier/eventb/eventb_line.h"
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
  arena_t arena;      /* this run's scratch: state vectors, names */
  smt_term_t *mpar;   /* [nparams] */
  smt_term_t mpar_ok; /* declared bounds of the model parameters */
  VEC(eventb_check_t) checks;
  VEC(leaf_entry_t) leaves;
  smt_term_t *hat; /* perceived state: fresh for uncertain variables, else shared with the true state */
} ctx_t;

/* One compartment u of a robustification. */
typedef struct {
  uint64_t mask; /* u as a bit set of controller events */
  int *u;
  size_t nu;
  smt_term_t U;    /* the perceived states whose potential true states enable exactly u */
  smt_term_t G;    /* robustified guard over hat, parameters and model parameters */
  smt_term_t Ex;   /* exists parameters. G */
  smt_term_t **p;  /* p[k]: parameters of original event u[k] */
  smt_term_t *use; /* repurposing: use[k] <=> p[k] is not bottom */
  char ***pnames;  /* pnames[k][j]: written name of parameter j of u[k] */
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
static smt_term_t implies(ctx_t *c, smt_term_t a, smt_term_t b) {
  return smt_op(c->s, EXPR_IMPLIES, a, b, 0);
}

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

static smt_term_t tr(ctx_t *c, const expr_t *e, const smt_term_t *cur, const smt_term_t *next,
                     const smt_term_t *evp) {
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

static smt_term_t qe(ctx_t *c, smt_term_t t) {
  smt_term_t r = smt_eliminate_quantifiers(c->s, t);
  if (!r && stop_requested()) { /* interrupted (ism/stop.h): what is left is unknown */
    c->res->unknown = true;
    if (!c->res->reason) c->res->reason = xasprintf("%s; the report is partial", stop_message());
  } else if (!r && !c->res->reason)
    c->res->reason = xasprintf("quantifier elimination failed: %s", smt_error(c->s));
  return r ? r : t;
  return r;
}

/* Every quantifier is eliminated as an existential over a quantifier-free
 * body, innermost first: Z3 4.8.12's qe tactic answers wrongly on some
 * universal formulas over the reals (the eco heater with a real temp lost
 * its largest error that way; cf. Z3 issue #6946), so forall x. b is
 * computed as not (exists x. not b). */
static smt_term_t qe_exists(ctx_t *c, smt_term_t *bound, size_t n, smt_term_t body) {
  return n ? qe(c, smt_exists(c->s, bound, n, body)) : body;
}

static smt_term_t qe_forall(ctx_t *c, smt_term_t *bound, size_t n, smt_term_t body) {
  return n ? not1(c, qe_exists(c, bound, n, not1(c, body))) : body;
}

static smt_term_t *new_params(ctx_t *c, const eventb_event_t *ev, char **texts) {
  smt_term_t *p = arena_alloc(&c->arena, (ev->nparams + 1) * sizeof *p);
  for (size_t j = 0; j < ev->nparams; j++)
    p[j] = fresh(c, ev->params[j].name, ev->params[j].type, texts ? texts[j] : NULL);
  return p;
}

/* exists p. G(st, p), quantifier-free: the event is enabled at st. */
static smt_term_t enabled(ctx_t *c, const eventb_event_t *ev, const smt_term_t *st) {
  smt_term_t *p = new_params(c, ev, NULL);
  return qe_exists(c, p, ev->nparams, tr(c, ev->guard, st, NULL, p));
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

static void wit_state(ctx_t *c, wit_spec_t *w, const char *section, const smt_term_t *st,
                      bool only_uncertain) {
  for (size_t i = 0; i < c->m->nvars; i++)
    if (!only_uncertain || c->m->vars[i].uncertain)
      VEC_PUSH(w,
               ((wit_item_t){section,
                             only_uncertain && c->res->hat_names ? c->res->hat_names[i] : c->m->vars[i].name,
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
  if (!c->res->reason && stop_requested())
    c->res->reason = xasprintf("%s; the report is partial", stop_message());
  else if (!c->res->reason)
    c->res->reason = xasprintf("the solver answered unknown: %s", smt_error(c->s) ? smt_error(c->s) : "?");
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
      chk->witness[i] = (eventb_binding_t){w->data[i].section, w->data[i].name,
                                           model_value(c, w->data[i].term, w->data[i].type)};
    chk->nwitness = n;
  } else if (r == SMT_UNKNOWN) {
    if (chk && chk->verdict == EVENTB_HOLDS) chk->verdict = EVENTB_UNKNOWN;
    note_unknown(c);
  }
  smt_pop(c->s, 1);
  return r;
}

/* I(s) and G(s,p) and A(s,p,s') and not I(s'), for every event. */
/* One proof obligation of chk (Rodin's label, owned): query, and on the
 * first failure remember the label. */
static void obligation(ctx_t *c, eventb_check_t *chk, char *label, smt_term_t q, const char *event,
                       const char *detail, wit_spec_t *w) {
  bool failed = chk->verdict == EVENTB_FAILS;
  chk->obligations++;
  query(c, q, chk, event, detail, w);
  if (!failed && chk->verdict == EVENTB_FAILS)
    chk->label = label;
  else
    free(label);
}

/* Rodin's INV: for every labelled invariant, the initial states satisfy it
 * (INITIALISATION/inv/INV) and every event preserves it (evt/inv/INV). */
static void check_invariant(ctx_t *c) {
  const eventb_model_t *m = c->m;
  eventb_check_t *chk = new_check(c, "invariant");
  chk->po = "INV";
  for (size_t v = 0; v < m->ninvs; v++) {
    const eventb_inv_t *inv = &m->invs[v];
    smt_term_t *s0 = new_state(c, "");
    wit_spec_t w = {0};
    wit_state(c, &w, "state", s0, false);
    wit_model_params(c, &w);
    char *detail = xasprintf("an initial state violates invariant '%s'", inv->label);
    obligation(c, chk, xasprintf("INITIALISATION/%s/INV", inv->label),
               and2(c, and2(c, dom(c, s0), tr(c, m->initial, s0, NULL, NULL)),
                    not1(c, tr(c, inv->pred, s0, NULL, NULL))),
               NULL, detail, &w);
    free(detail);
    VEC_FREE(&w);
    for (size_t k = 0; k < m->nplant + m->nctrl; k++) {
      const eventb_event_t *ev = k < m->nplant ? &m->plant[k] : &m->ctrl[k - m->nplant];
      smt_term_t *s = new_state(c, ""), *s1 = new_state(c, "'");
      smt_term_t *p = new_params(c, ev, NULL);
      smt_term_t q = and2(c, and2(c, dom(c, s), dom(c, s1)), tr(c, m->invariant, s, NULL, NULL));
      q = and2(c, q, tr(c, ev->guard, s, NULL, p));
      q = and2(c, q, action(c, ev, s, p, s1));
      q = and2(c, q, not1(c, tr(c, inv->pred, s1, NULL, NULL)));
      wit_spec_t w2 = {0};
      wit_state(c, &w2, "state", s, false);
      wit_params(c, &w2, ev, p);
      wit_state(c, &w2, "next", s1, false);
      wit_model_params(c, &w2);
      detail = m->ninvs > 1 ? xasprintf("the event leads from the invariant out of '%s'", inv->label)
                            : xstrdup("the event leads from the invariant out of it");
      obligation(c, chk, xasprintf("%s/%s/INV", ev->name, inv->label), q, ev->name, detail, &w2);
      free(detail);
      VEC_FREE(&w2);
    }
  }
}

/* I(s) and G(s,p) and not exists s'. A(s,p,s'), for controller events (Def. 2). */
static void check_feasibility(ctx_t *c) {
  const eventb_model_t *m = c->m;
  eventb_check_t *chk = new_check(c, "feasibility");
  chk->po = "FIS";
  for (size_t k = 0; k < m->nctrl; k++) {
    const eventb_event_t *ev = &m->ctrl[k];
    smt_term_t *s = new_state(c, ""), *s1 = new_state(c, "'");
    smt_term_t *p = new_params(c, ev, NULL);
    smt_term_t some = qe_exists(c, s1, m->nvars, and2(c, dom(c, s1), action(c, ev, s, p, s1)));
    smt_term_t q =
        and2(c, and2(c, dom(c, s), tr(c, m->invariant, s, NULL, NULL)), tr(c, ev->guard, s, NULL, p));
    q = and2(c, q, not1(c, some));
    wit_spec_t w = {0};
    wit_state(c, &w, "state", s, false);
    wit_params(c, &w, ev, p);
    wit_model_params(c, &w);
    obligation(c, chk, xasprintf("%s/FIS", ev->name), q, ev->name,
               "the guard holds but the action has no next state", &w);
    VEC_FREE(&w);
  }
}

/* ---- well-definedness (Rodin's WD) and dead events ---- */

/* The condition under which e is defined, read left to right as Rodin does
 * (smt_defined). */
static smt_term_t wd(ctx_t *c, const expr_t *e, const smt_term_t *cur, const smt_term_t *next,
                     const smt_term_t *evp) {
  env_t env = {c, cur, next, evp};
  return smt_defined(c->s, e, var_term, &env);
}

/* Rodin's WD, where a predicate divides: each invariant (inv/WD, assuming
 * the ones before it), the initial states (INITIALISATION/WD), each guard
 * (evt/grd/WD, assuming the invariant) and each action (evt/act/WD,
 * assuming the invariant and the guard). Only run when some expression divides. */
static void check_wd(ctx_t *c) {
  const eventb_model_t *m = c->m;
  bool any = expr_partial(m->initial);
  for (size_t v = 0; v < m->ninvs; v++) any |= expr_partial(m->invs[v].pred);
  for (size_t k = 0; k < m->nplant + m->nctrl; k++) {
    const eventb_event_t *ev = k < m->nplant ? &m->plant[k] : &m->ctrl[k - m->nplant];
    any |= expr_partial(ev->guard) || expr_partial(ev->action);
  }
  if (!any) return;
  eventb_check_t *chk = new_check(c, "well-definedness");
  chk->po = "WD";
  smt_term_t *s = new_state(c, ""), *s1 = new_state(c, "'");
  wit_spec_t w = {0};
  wit_state(c, &w, "state", s, false);
  wit_model_params(c, &w);
  smt_term_t before = dom(c, s);
  for (size_t v = 0; v < m->ninvs; v++) {
    const eventb_inv_t *inv = &m->invs[v];
    if (expr_partial(inv->pred)) {
      char *detail = xasprintf("invariant '%s' divides by zero", inv->label);
      obligation(c, chk, xasprintf("%s/WD", inv->label),
                 and2(c, before, not1(c, wd(c, inv->pred, s, NULL, NULL))), NULL, detail, &w);
      free(detail);
    }
    before = and2(c, before, tr(c, inv->pred, s, NULL, NULL));
  }
  if (expr_partial(m->initial))
    obligation(c, chk, xstrdup("INITIALISATION/WD"),
               and2(c, dom(c, s), not1(c, wd(c, m->initial, s, NULL, NULL))), NULL,
               "the initial condition divides by zero", &w);
  VEC_FREE(&w);
  for (size_t k = 0; k < m->nplant + m->nctrl; k++) {
    const eventb_event_t *ev = k < m->nplant ? &m->plant[k] : &m->ctrl[k - m->nplant];
    smt_term_t *p = new_params(c, ev, NULL);
    wit_spec_t we = {0};
    wit_state(c, &we, "state", s, false);
    wit_params(c, &we, ev, p);
    wit_model_params(c, &we);
    smt_term_t inv = and2(c, and2(c, dom(c, s), dom(c, s1)), tr(c, m->invariant, s, NULL, NULL));
    if (expr_partial(ev->guard))
      obligation(c, chk, xasprintf("%s/grd/WD", ev->name),
                 and2(c, inv, not1(c, wd(c, ev->guard, s, NULL, p))), ev->name, "the guard divides by zero",
                 &we);
    if (expr_partial(ev->action))
      obligation(c, chk, xasprintf("%s/act/WD", ev->name),
                 and2(c, and2(c, inv, tr(c, ev->guard, s, NULL, p)), not1(c, wd(c, ev->action, s, s1, p))),
                 ev->name, "the action divides by zero", &we);
    VEC_FREE(&we);
  }
}

/* Events whose guard holds in no state of the invariant: warnings. */
static void find_dead_events(ctx_t *c) {
  const eventb_model_t *m = c->m;
  VEC(char *) dead = {0};
  for (size_t k = 0; k < m->nplant + m->nctrl; k++) {
    const eventb_event_t *ev = k < m->nplant ? &m->plant[k] : &m->ctrl[k - m->nplant];
    smt_term_t *s = new_state(c, "");
    smt_term_t *p = new_params(c, ev, NULL);
    smt_term_t q =
        and2(c, and2(c, dom(c, s), tr(c, m->invariant, s, NULL, NULL)), tr(c, ev->guard, s, NULL, p));
    if (query(c, q, NULL, NULL, NULL, NULL) == SMT_UNSAT) VEC_PUSH(&dead, xstrdup(ev->name));
  }
  c->res->dead_events = dead.data;
  c->res->ndead_events = dead.len;
}

/* Exactly one controller event is enabled in every state (Fig. 2, line 17). */
static void check_partitioning(ctx_t *c) {
  const eventb_model_t *m = c->m;
  eventb_check_t *chk = new_check(c, "partitioning");
  smt_term_t *s = new_state(c, "");
  smt_term_t *en = arena_alloc(&c->arena, (m->nctrl + 1) * sizeof *en);
  for (size_t i = 0; i < m->nctrl; i++) en[i] = enabled(c, &m->ctrl[i], s);
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
  chk->po = "INV";
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
    obligation(c, chk, xasprintf("%s/INV", ev->name), q, ev->name,
               "the perceived state enables the event, whose action on the true state breaks the invariant",
               &w);
    VEC_FREE(&w);
  }
}

/* ---- robustification (Figs. 7 and 9) ---- */

static smt_term_t *bound_buf(ctx_t *c) {
  return arena_alloc(&c->arena, (c->m->nvars + 1) * sizeof(smt_term_t));
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
    smt_term_t body =
        implies(c, and2(c, eps(c, t, c->hat), enabled(c, ev, t)), tr(c, ev->guard, t, NULL, cell->p[k]));
    VEC_PUSH(&parts, qe_forall(c, b, nb, body));
  }
  smt_term_t *b = bound_buf(c);
  size_t nb;
  smt_term_t *t = tilde_of(c, c->hat, b, &nb);
  smt_term_t *s1 = new_state(c, "'");
  smt_term_t inter = dom(c, s1);
  for (size_t k = 0; k < cell->nu; k++)
    inter = and2(c, inter, action(c, &m->ctrl[cell->u[k]], t, cell->p[k], s1));
  VEC_PUSH(&parts, qe_forall(c, b, nb, implies(c, eps(c, t, c->hat), qe_exists(c, s1, m->nvars, inter))));
  smt_term_t r = smt_simplify(c->s, smt_and(c->s, parts.data, parts.len));
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
  smt_term_t feasible = qe_exists(c, s1, m->nvars, and2(c, dom(c, s1), action(c, ev, t, p, s1)));
  smt_term_t unsafe = qe_exists(
      c, s2, m->nvars,
      and2(c, and2(c, dom(c, s2), action(c, ev, t, p, s2)), not1(c, tr(c, m->invariant, s2, NULL, NULL))));
  return qe_forall(c, b, nb, implies(c, eps(c, t, c->hat), and2(c, feasible, not1(c, unsafe))));
}

/* Fig. 9, lines 10-11, with use_i standing for p_i != bottom. */
static smt_term_t guard_repurposing(ctx_t *c, const cell_t *cell) {
  const eventb_model_t *m = c->m;
  VEC(smt_term_t) parts = {0};
  VEC_PUSH(&parts, cell->U);
  for (size_t k = 0; k < cell->nu; k++) {
    const eventb_event_t *ev = &m->ctrl[cell->u[k]];
    smt_term_t *q = new_params(c, ev, NULL);
    smt_term_t has = qe_exists(c, q, ev->nparams, safe_param(c, ev, q));
    VEC_PUSH(&parts, implies(c, has, and2(c, cell->use[k], safe_param(c, ev, cell->p[k]))));
    VEC_PUSH(&parts, implies(c, not1(c, has), not1(c, cell->use[k])));
  }
  VEC_PUSH(&parts, smt_or(c->s, cell->use, cell->nu));
  smt_term_t r = smt_simplify(c->s, smt_and(c->s, parts.data, parts.len));
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
        for (size_t j2 = 0; k2 != k && j2 < ev2->nparams; j2++)
          clash |= strcmp(ev2->params[j2].name, name) == 0;
      }
      cell->pnames[k][j] =
          clash ? arena_printf(&c->arena, "%s_%s", ev->name, name) : arena_strdup(&c->arena, name);
    }
    cell->p[k] = new_params(c, ev, cell->pnames[k]);
    if (with_use) {
      char *use = arena_printf(&c->arena, "use_%s", ev->name);
      cell->use[k] = fresh(c, use, (type_t){TYPE_BOOL, -1}, use);
    }
  }
}

static int popcount(uint64_t x) {
  int n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

/* Subsets by size, then lexicographically by their indices. */
static int cmp_masks(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  if (popcount(x) != popcount(y)) return popcount(x) - popcount(y);
  for (uint64_t bit = 1; bit; bit <<= 1)
    if ((x & bit) != (y & bit)) return (x & bit) ? -1 : 1;
  return 0;
}

static bool is_vacuous(ctx_t *c, const cell_t *cell, smt_term_t extra) {
  return query(c, and2(c, and2(c, dom(c, c->hat), extra), cell->U), NULL, NULL, NULL, NULL) == SMT_UNSAT;
}

/* The realised compartments, from the solver: reach_i(hat) says that some
 * potential true state enables event i. A model of the perceived states not
 * yet covered gives one compartment u = {i | reach_i holds there}, which is
 * then blocked; the loop ends when every perceived state is covered. As the
 * original is partitioned (robustify runs only then), every potential true
 * state enables exactly one event, so U_u is the cube "reach_i exactly for
 * i in u" and the cost follows the compartments that exist, not 2^n. */
static smt_term_t cube(ctx_t *c, const smt_term_t *reach, uint64_t mask) {
  VEC(smt_term_t) lits = {0};
  for (size_t i = 0; i < c->m->nctrl; i++) VEC_PUSH(&lits, mask >> i & 1 ? reach[i] : not1(c, reach[i]));
  smt_term_t r = smt_and(c->s, lits.data, lits.len);
  VEC_FREE(&lits);
  return r;
}

static void build_cells(ctx_t *c, robust_run_t *run, eventb_method_t method) {
  const eventb_model_t *m = c->m;
  size_t n = m->nctrl;
  smt_term_t *reach = arena_alloc(&c->arena, (n + 1) * sizeof *reach);
  for (size_t i = 0; i < n; i++) {
    smt_term_t *b = bound_buf(c);
    size_t nb;
    smt_term_t *t = tilde_of(c, c->hat, b, &nb);
    reach[i] = qe_exists(c, b, nb, and2(c, eps(c, t, c->hat), enabled(c, &m->ctrl[i], t)));
  }
  VEC(uint64_t) masks = {0};
  smt_push(c->s);
  smt_assert(c->s, and2(c, c->mpar_ok, dom(c, c->hat)));
  for (;;) {
    smt_result_t r = smt_check(c->s, NULL, 0);
    if (r == SMT_UNKNOWN) note_unknown(c);
    if (r != SMT_SAT) break;
    uint64_t mask = 0;
    for (size_t i = 0; i < n; i++) {
      bool b = false;
      if (smt_model_bool(c->s, reach[i], &b) && b) mask |= (uint64_t)1 << i;
    }
    if (mask) VEC_PUSH(&masks, mask); /* 0: an empty uncertainty interval, no true state to act on */
    smt_assert(c->s, not1(c, cube(c, reach, mask)));
  }
  smt_pop(c->s, 1);
  if (masks.len > 1) qsort(masks.data, masks.len, sizeof *masks.data, cmp_masks);
  run->method = method;
  run->ncells = masks.len;
  run->cells = arena_alloc(&c->arena, (masks.len + 1) * sizeof *run->cells);
  for (size_t i = 0; i < masks.len; i++) {
    cell_t *cell = &run->cells[i];
    *cell = (cell_t){0};
    cell->mask = masks.data[i];
    cell->u = arena_alloc(&c->arena, (n + 1) * sizeof *cell->u);
    for (size_t k = 0; k < n; k++)
      if (masks.data[i] >> k & 1) cell->u[cell->nu++] = (int)k;
    cell->U = cube(c, reach, masks.data[i]);
    make_cell_params(c, cell, method == EVENTB_REPURPOSING);
    cell->G = method == EVENTB_PRESERVING ? guard_preserving(c, cell) : guard_repurposing(c, cell);
    VEC(smt_term_t) all = {0};
    for (size_t k = 0; k < cell->nu; k++) {
      for (size_t j = 0; j < m->ctrl[cell->u[k]].nparams; j++) VEC_PUSH(&all, cell->p[k][j]);
      if (method == EVENTB_REPURPOSING) VEC_PUSH(&all, cell->use[k]);
    }
    cell->Ex = qe_exists(c, all.data, all.len, cell->G);
    VEC_FREE(&all);
  }
  VEC_FREE(&masks);
}

static char *subset_text(ctx_t *c, const cell_t *cell) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_putc(&sb, '{');
  for (size_t k = 0; k < cell->nu; k++)
    strbuf_printf(&sb, "%s%s", k ? ", " : "", c->m->ctrl[cell->u[k]].name);
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
    VEC_PUSH(&w, ((wit_item_t){"perceived", m->vars[i].uncertain ? c->res->hat_names[i] : m->vars[i].name,
                               c->hat[i], m->vars[i].type}));
  wit_model_params(c, &w);
  for (size_t i = 0; i < run->ncells; i++) {
    const cell_t *cell = &run->cells[i];
    char *u = subset_text(c, cell);
    char *detail =
        xasprintf("the controller is unsure between %s and no parameters satisfy the robustified guard", u);
    query(c, and2(c, and2(c, and2(c, dom(c, c->hat), extra), cell->U), not1(c, cell->Ex)), chk, NULL, detail,
          &w);
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

/* A formula as readable text where `given` holds (solver-found
 * disjunction, interval bounds; see smt_to_readable_text), in parentheses
 * when it is a disjunction; NULL when it cannot be made readable. */
static char *readable(ctx_t *c, smt_term_t t, smt_term_t given) {
  char *text = smt_to_readable_text(c->s, t, given, 32, leaf_lookup, c);
  if (text && strstr(text, ") or (")) {
    char *wrapped = xasprintf("(%s)", text);
    free(text);
    text = wrapped;
  }
  return text;
}

/* A robustified guard as text: its compartment U, then what else the guard
 * asks for where U holds; the simplified term when that cannot be had. */
static char *guard_text(ctx_t *c, const cell_t *cell, smt_term_t given) {
  char *where = readable(c, cell->U, given);
  char *rest = where ? readable(c, cell->G, and2(c, given, cell->U)) : NULL;
  if (!where || !rest) {
    free(where);
    free(rest);
    return term_text(c, cell->G);
  }
  char *text = strcmp(rest, "true") == 0 ? xstrdup(where) : xasprintf("%s and %s", where, rest);
  free(where);
  free(rest);
  return text;
}

static smt_term_t value_term(ctx_t *c, const char *exact, type_t t) {
  return t.kind == TYPE_INT ? smt_int(c->s, strtoll(exact, NULL, 10)) : smt_real_text(c->s, exact);
}

/* The perceived states (and other model parameters) where compartment
 * cell is non-empty but its robustified event has no parameters. */
static smt_term_t bad_states(ctx_t *c, const cell_t *cell) {
  return and2(c, and2(c, dom(c, c->hat), cell->U), not1(c, cell->Ex));
}

/* Whether the robustification of run works with parameter pidx = v, by
 * plain checks (one per compartment) that need no quantifier elimination. */
static bool works_at(ctx_t *c, const robust_run_t *run, size_t pidx, const char *v) {
  smt_term_t at = smt_op(c->s, EXPR_EQ, c->mpar[pidx], value_term(c, v, c->m->params[pidx].type), 0);
  if (query(c, at, NULL, NULL, NULL, NULL) != SMT_SAT) return false; /* outside the declared bounds */
  for (size_t i = 0; i < run->ncells; i++)
    if (query(c, and2(c, at, bad_states(c, &run->cells[i])), NULL, NULL, NULL, NULL) != SMT_UNSAT)
      return false;
  return true;
}

/* The intervals as a term over the parameter. */
static smt_term_t intervals_term(ctx_t *c, size_t pidx, const eventb_pieces_t *iv) {
  type_t t = c->m->params[pidx].type;
  smt_term_t d = c->mpar[pidx];
  VEC(smt_term_t) any = {0};
  for (size_t i = 0; i < iv->len; i++) {
    const eventb_piece_t *p = &iv->data[i];
    smt_term_t in = smt_bool(c->s, true);
    if (p->lo)
      in = and2(c, in, smt_op(c->s, p->lo_closed ? EXPR_LE : EXPR_LT, value_term(c, p->lo, t), d, 0));
    if (p->hi)
      in = and2(c, in, smt_op(c->s, p->hi_closed ? EXPR_LE : EXPR_LT, d, value_term(c, p->hi, t), 0));
    VEC_PUSH(&any, in);
  }
  smt_term_t r = smt_or(c->s, any.data, any.len);
  VEC_FREE(&any);
  return r;
}

/* The robustification built from scratch with the parameter fixed to v:
 * whether its theorem conditions hold (the certificate of an answer). */
static bool fixed_run(ctx_t *c, eventb_method_t method, size_t pidx, const char *v) {
  smt_term_t saved = c->mpar[pidx];
  c->mpar[pidx] = value_term(c, v, c->m->params[pidx].type);
  robust_run_t run = {0};
  build_cells(c, &run, method);
  bool works = true;
  for (size_t i = 0; i < run.ncells && works; i++)
    works = query(c, bad_states(c, &run.cells[i]), NULL, NULL, NULL, NULL) == SMT_UNSAT;
  c->mpar[pidx] = saved;
  return works;
}

static void certify(ctx_t *c, eventb_max_error_t *out, size_t pidx, const char *at, bool want) {
  eventb_fixed_run_t *f = &out->certificate[out->ncertificates++];
  f->at = xstrdup(at);
  f->want = want;
  f->works = fixed_run(c, out->method, pidx, at);
  if (f->works != want && !c->res->unknown) {
    c->res->error = true;
    if (!c->res->reason)
      c->res->reason =
          xasprintf("the robustification built with %s = %s %s, but the parametric answer says it %s",
                    out->parameter, at, f->works ? "works" : "fails", want ? "works" : "fails");
  }
}

/* A value a little beyond v towards the root next (NULL: none), for a real
 * parameter: v +- min(1/1000, |next - v| / 2). */
static char *nearby(ctx_t *c, const char *v, const char *next, expr_kind_t dir) {
  char *step = xstrdup("1/1000");
  if (next) {
    char *gap = eventb_line_q(c->s, EXPR_SUB, next, v),
         *half = eventb_line_q(c->s, EXPR_DIV, gap, dir == EXPR_ADD ? "2" : "-2");
    if (smt_q_cmp(c->s, half, step) < 0) {
      free(step);
      step = half;
      half = NULL;
    }
    free(gap);
    free(half);
  }
  char *r = eventb_line_q(c->s, dir, v, step);
  free(step);
  return r;
}

/* The admissible values of model parameter pidx for run: the projection of
 * the bad perceived states onto the parameter is eliminated (exists only),
 * its atoms give the roots where admissibility can change, and plain checks
 * at one value per piece between them decide; fixed-parameter runs at the
 * supremum and next to it certify the answer. Returns the admissible set as
 * a term (false when empty). */
static smt_term_t max_error(ctx_t *c, const robust_run_t *run, size_t pidx, eventb_max_error_t *out) {
  const eventb_model_t *m = c->m;
  const eventb_param_t *par = &m->params[pidx];
  VEC(smt_term_t) bound = {0}, proj = {0};
  for (size_t i = 0; i < m->nvars; i++) VEC_PUSH(&bound, c->hat[i]);
  for (size_t j = 0; j < m->nparams; j++)
    if (j != pidx) VEC_PUSH(&bound, c->mpar[j]);
  for (size_t i = 0; i < run->ncells; i++)
    VEC_PUSH(&proj, qe_exists(c, bound.data, bound.len, and2(c, c->mpar_ok, bad_states(c, &run->cells[i]))));
  char **found = NULL;
  size_t nfound = 0;
  eventb_texts_t roots = {0};
  if (!smt_linear_roots(c->s, smt_or(c->s, proj.data, proj.len), c->mpar[pidx], &found, &nfound)) {
    c->res->error = true;
    if (!c->res->reason) c->res->reason = xasprintf("cannot bound %s: %s", par->name, smt_error(c->s));
  }
  VEC_FREE(&bound);
  VEC_FREE(&proj);
  for (size_t i = 0; i < nfound; i++) eventb_line_add_root(c->s, &roots, found[i]);
  free(found);
  char buf[STRBUF_DOUBLE_SIZE];
  if (par->has_min)
    eventb_line_add_root(c->s, &roots, eventb_line_q(c->s, EXPR_ADD, strbuf_double_text(par->min, buf), "0"));
  if (par->has_max)
    eventb_line_add_root(c->s, &roots, eventb_line_q(c->s, EXPR_ADD, strbuf_double_text(par->max, buf), "0"));
  eventb_pieces_t ps = {0}, iv = {0};
  eventb_line_cut(c->s, roots.data, roots.len, par->type.kind == TYPE_INT, &ps);
  for (size_t i = 0; i < ps.len && !c->res->error; i++)
    ps.data[i].in = works_at(c, run, pidx, ps.data[i].sample);
  eventb_line_merge(&ps, &iv);
  out->formula = eventb_line_text(par->name, &iv, false);
  out->assume = eventb_line_text(par->name, &iv, true);
  smt_term_t admissible = intervals_term(c, pidx, &iv);
  out->found = iv.len > 0;
  const eventb_piece_t *top = out->found ? &VEC_LAST(&iv) : NULL;
  out->unbounded = top && !top->hi;
  if (top && top->hi && !c->res->unknown && !c->res->error) {
    out->value = xstrdup(top->hi);
    out->attained = top->hi_closed;
    out->number = strtod(top->hi, NULL);
    char *slash = strchr(top->hi, '/');
    if (slash) out->number /= strtod(slash + 1, NULL);
    const char *next = NULL, *prev = top->lo;
    for (size_t i = 0; i < roots.len && !next; i++)
      if (smt_q_cmp(c->s, roots.data[i], top->hi) > 0) next = roots.data[i];
    bool real = par->type.kind != TYPE_INT;
    if (!out->attained) {
      char *below = nearby(c, top->hi, prev, EXPR_SUB);
      certify(c, out, pidx, below, true);
      free(below);
    }
    certify(c, out, pidx, top->hi, out->attained);
    if (!par->has_max || smt_q_cmp(c->s, top->hi, strbuf_double_text(par->max, buf)) < 0) {
      char *above = real ? nearby(c, top->hi, next, EXPR_ADD) : eventb_line_q(c->s, EXPR_ADD, top->hi, "1");
      certify(c, out, pidx, above, false);
      free(above);
    }
  }
  eventb_line_free(&iv);
  for (size_t i = 0; i < roots.len; i++) free(roots.data[i]);
  VEC_FREE(&roots);
  return admissible;
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

static int *subset_of_mask(uint64_t mask, size_t n) {
  int *u = xcalloc(n + 1, sizeof *u), k = 0;
  for (size_t i = 0; i < n; i++)
    if (mask >> i & 1) u[k++] = (int)i;
  u[k] = -1;
  return u;
}

/* The vacuous subsets: those no perceived state realises (listed only for
 * at most EVENTB_LIST_VACUOUS controller events, else only counted), and
 * realised ones the max-error condition excludes; by size, then indices. */
static void report_vacuous(ctx_t *c, const robust_run_t *run, const bool *excluded) {
  size_t n = c->m->nctrl;
  eventb_robust_t *out = &c->res->robust;
  VEC(uint64_t) list = {0};
  out->nvacuous_all = (n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1) - run->ncells;
  if (n <= EVENTB_LIST_VACUOUS) {
    for (uint64_t mask = 1; mask < (uint64_t)1 << n; mask++) {
      bool realised = false;
      for (size_t i = 0; i < run->ncells && !realised; i++) realised = run->cells[i].mask == mask;
      if (!realised) VEC_PUSH(&list, mask);
    }
  }
  for (size_t i = 0; i < run->ncells; i++)
    if (excluded[i]) {
      VEC_PUSH(&list, run->cells[i].mask);
      out->nvacuous_all++;
    }
  if (list.len > 1) qsort(list.data, list.len, sizeof *list.data, cmp_masks);
  out->vacuous = xcalloc(list.len + 1, sizeof *out->vacuous);
  for (size_t i = 0; i < list.len; i++) out->vacuous[out->nvacuous++] = subset_of_mask(list.data[i], n);
  VEC_FREE(&list);
}

static void report_events(ctx_t *c, const robust_run_t *run, smt_term_t extra) {
  const eventb_model_t *m = c->m;
  eventb_robust_t *out = &c->res->robust;
  out->events = xcalloc(run->ncells + 1, sizeof *out->events);
  bool *excluded = xcalloc(run->ncells + 1, sizeof *excluded);
  for (size_t i = 0; i < run->ncells; i++) excluded[i] = is_vacuous(c, &run->cells[i], extra);
  report_vacuous(c, run, excluded);
  for (size_t i = 0; i < run->ncells; i++) {
    const cell_t *cell = &run->cells[i];
    if (excluded[i]) continue;
    eventb_revent_t *e = &out->events[out->nevents++];
    strbuf_t sb;
    strbuf_init(&sb);
    for (size_t k = 0; k < cell->nu; k++)
      strbuf_printf(&sb, "%s%s", k ? "_and_" : "", m->ctrl[cell->u[k]].name);
    e->name = strbuf_take(&sb);
    e->u = xcalloc(cell->nu + 1, sizeof *e->u);
    memcpy(e->u, cell->u, cell->nu * sizeof *e->u);
    e->nu = cell->nu;
    e->guard = guard_text(c, cell, and2(c, and2(c, dom(c, c->hat), c->mpar_ok), extra));
    size_t np = 0;
    for (size_t k = 0; k < cell->nu; k++)
      np += m->ctrl[cell->u[k]].nparams + (run->method == EVENTB_REPURPOSING);
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
  free(excluded);
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
  /* The perceived state first: readable guards order constants by creation. */
  c->hat = arena_alloc(&c->arena, (m->nvars + 1) * sizeof *c->hat);
  for (size_t i = 0; i < m->nvars; i++) {
    const char *name = m->vars[i].uncertain ? res->hat_names[i] : m->vars[i].name;
    c->hat[i] = fresh(c, name, m->vars[i].type, name);
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
  if (m->assume) VEC_PUSH(&ok, tr(c, m->assume, NULL, NULL, NULL));
  c->mpar_ok = smt_and(c->s, ok.data, ok.len);
  VEC_FREE(&ok);
}

/* Unbounded beats bounded beats none; then the larger value, then attained. */
static bool better(ctx_t *c, const eventb_max_error_t *a, const eventb_max_error_t *b) {
  if (a->unbounded != b->unbounded) return a->unbounded;
  if (a->found != b->found) return a->found;
  if (!a->value || !b->value) return a->value != NULL;
  int cmp = smt_q_cmp(c->s, a->value, b->value);
  return cmp > 0 || (cmp == 0 && a->attained && !b->attained);
}

static void free_max_error(eventb_max_error_t *me) {
  free(me->value);
  free(me->formula);
  free(me->assume);
  for (size_t i = 0; i < me->ncertificates; i++) free(me->certificate[i].at);
}

/* ---- the compartment picture (one uncertain variable) ---- */

/* The values of perceived variable xi where q holds (q over the perceived
 * state and the model parameters, with `fixed` assumed), as intervals:
 * roots of the projection onto xi, one plain check per piece. */
static void line_set(ctx_t *c, size_t xi, smt_term_t q, smt_term_t fixed, eventb_row_t *row) {
  const eventb_model_t *m = c->m;
  smt_term_t where = and2(c, and2(c, fixed, dom(c, c->hat)), q);
  VEC(smt_term_t) bound = {0};
  for (size_t i = 0; i < m->nvars; i++)
    if (i != xi) VEC_PUSH(&bound, c->hat[i]);
  for (size_t j = 0; j < m->nparams; j++) VEC_PUSH(&bound, c->mpar[j]);
  smt_term_t proj = qe_exists(c, bound.data, bound.len, and2(c, c->mpar_ok, where));
  VEC_FREE(&bound);
  char **found = NULL;
  size_t nfound = 0;
  if (!smt_linear_roots(c->s, proj, c->hat[xi], &found, &nfound)) {
    c->res->picture.reason = xasprintf("cannot draw '%s': %s", row->name, smt_error(c->s));
    return;
  }
  eventb_pieces_t ps = {0}, iv = {0};
  bool is_int = m->vars[xi].type.kind == TYPE_INT;
  eventb_line_cut(c->s, found, nfound, is_int, &ps);
  for (size_t i = 0; i < nfound; i++) free(found[i]);
  free(found);
  for (size_t i = 0; i < ps.len; i++) {
    smt_term_t at = smt_op(c->s, EXPR_EQ, c->hat[xi], value_term(c, ps.data[i].sample, m->vars[xi].type), 0);
    ps.data[i].in = query(c, and2(c, where, at), NULL, NULL, NULL, NULL) == SMT_SAT;
  }
  eventb_line_merge(&ps, &iv);
  row->set = eventb_line_text(c->res->hat_names[xi], &iv, false);
  row->intervals = xcalloc(iv.len + 1, sizeof *row->intervals);
  for (size_t i = 0; i < iv.len; i++) {
    row->intervals[row->nintervals++] =
        (eventb_interval_t){iv.data[i].lo, iv.data[i].hi, iv.data[i].lo_closed, iv.data[i].hi_closed};
    free(iv.data[i].sample);
  }
  VEC_FREE(&iv);
}

/* The values the picture fixes the model parameters to: the largest error
 * (attained, else the certified value just below it); NULL when a
 * parameter stays free. */
static smt_term_t picture_parameters(ctx_t *c, char **text) {
  const eventb_model_t *m = c->m;
  const eventb_max_error_t *me = &c->res->max_error;
  *text = NULL;
  if (m->nparams == 0) return smt_bool(c->s, true);
  if (m->nparams > 1 || !me->ran || !me->value || me->ncertificates == 0 || !me->certificate[0].works)
    return 0;
  const char *at = me->certificate[0].at; /* at the value when attained, just below it otherwise */
  *text = xasprintf("%s = %s", m->params[0].name, at);
  return smt_op(c->s, EXPR_EQ, c->mpar[0], value_term(c, at, m->params[0].type), 0);
}

static void picture(ctx_t *c, const robust_run_t *run) {
  const eventb_model_t *m = c->m;
  eventb_picture_t *pic = &c->res->picture;
  pic->ran = true;
  pic->method = run->method;
  size_t xi = m->nvars, nuncertain = 0;
  for (size_t i = 0; i < m->nvars; i++)
    if (m->vars[i].uncertain) xi = i, nuncertain++;
  if (nuncertain != 1) {
    pic->reason = xasprintf("the picture needs exactly one uncertain variable, not %zu", nuncertain);
    return;
  }
  smt_term_t fixed = picture_parameters(c, &pic->fixed);
  if (!fixed) {
    pic->reason =
        xstrdup("the picture needs the model parameters fixed: use --max-error (drawn at the largest error)");
    return;
  }
  pic->variable = c->res->hat_names[xi];
  pic->is_int = m->vars[xi].type.kind == TYPE_INT;
  pic->rows = xcalloc(m->nctrl + run->ncells + 2, sizeof *pic->rows);
  for (size_t k = 0; k < m->nctrl && !pic->reason; k++) {
    eventb_row_t *row = &pic->rows[pic->nrows++];
    row->name = xstrdup(m->ctrl[k].name);
    row->kind = EVENTB_ROW_ORIGINAL;
    line_set(c, xi, enabled(c, &m->ctrl[k], c->hat), fixed, row);
  }
  VEC(smt_term_t) bad = {0};
  for (size_t i = 0; i < run->ncells && !pic->reason; i++) {
    const cell_t *cell = &run->cells[i];
    if (is_vacuous(c, cell, fixed)) continue;
    eventb_row_t *row = &pic->rows[pic->nrows++];
    strbuf_t sb;
    strbuf_init(&sb);
    for (size_t k = 0; k < cell->nu; k++)
      strbuf_printf(&sb, "%s%s", k ? "_and_" : "", m->ctrl[cell->u[k]].name);
    row->name = strbuf_take(&sb);
    row->kind = EVENTB_ROW_COMPARTMENT;
    line_set(c, xi, cell->U, fixed, row);
    VEC_PUSH(&bad, bad_states(c, cell));
  }
  if (!pic->reason) {
    eventb_row_t *row = &pic->rows[pic->nrows++];
    row->name = xstrdup(run->method == EVENTB_PRESERVING ? "theorem1" : "theorem2");
    row->kind = EVENTB_ROW_FAILS;
    line_set(c, xi, smt_or(c->s, bad.data, bad.len), fixed, row);
  }
  VEC_FREE(&bad);
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
      smt_term_t admissible = max_error(c, &runs[k], pidx, &me);
      if (!chosen || better(c, &me, &best)) {
        free_max_error(&best);
        best = me;
        chosen = &runs[k];
        extra = admissible;
      } else {
        free_max_error(&me);
      }
    }
    res->max_error = best;
    if (theorem_check(c, chosen, extra) && best.found) res->robust.method = chosen->method;
  } else {
    for (size_t k = first; k < last && !chosen; k++) {
      build_cells(c, &runs[k], methods[k]);
      if (theorem_check(c, &runs[k], extra)) chosen = &runs[k];
    }
    if (chosen)
      res->robust.method = chosen->method;
    else
      chosen = &runs[last - 1];
  }
  if (c->opt->picture) picture(c, chosen);
  if (res->robust.method != EVENTB_NONE) {
    report_events(c, chosen, extra);
  } else {
    res->robust.events = xcalloc(1, sizeof *res->robust.events);
    res->robust.vacuous = xcalloc(1, sizeof *res->robust.vacuous);
  }
}

static const eventb_check_t *find_check(const ctx_t *c, const char *name) {
  for (size_t i = 0; i < c->checks.len; i++)
    if (strcmp(c->checks.data[i].name, name) == 0) return &c->checks.data[i];
  return NULL;
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
  check_wd(&c);
  find_dead_events(&c);
  if (m->has_uncertainty) {
    check_injected(&c);
    /* Robustification keeps the original's guards and actions: it is only
     * claimed for a model whose own checks hold. */
    static const char *const required[] = {"invariant", "feasibility", "partitioning", "well-definedness"};
    for (size_t i = 0; i < 4 && !res->robust.refused; i++) {
      const eventb_check_t *chk = find_check(&c, required[i]);
      if (chk && chk->verdict != EVENTB_HOLDS) res->robust.refused = required[i];
    }
    if (res->robust.refused) {
      res->robust.ran = true;
      res->robust.method = EVENTB_NONE;
      res->robust.events = xcalloc(1, sizeof *res->robust.events);
      res->robust.vacuous = xcalloc(1, sizeof *res->robust.vacuous);
    } else {
      robustify(&c);
    }
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
    free(res->checks[i].label);
  }
  free(res->checks);
  for (size_t i = 0; i < res->ndead_events; i++) free(res->dead_events[i]);
  free(res->dead_events);
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
  for (size_t i = 0; i < res->picture.nrows; i++) {
    eventb_row_t *row = &res->picture.rows[i];
    for (size_t k = 0; k < row->nintervals; k++) free(row->intervals[k].lo), free(row->intervals[k].hi);
    free(row->intervals);
    free(row->name);
    free(row->set);
  }
  free(res->picture.rows);
  free(res->picture.reason);
  free(res->picture.fixed);
  free(res->max_error.value);
  free(res->max_error.formula);
  free(res->max_error.assume);
  for (size_t i = 0; i < res->max_error.ncertificates; i++) free(res->max_error.certificate[i].at);
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
