#include "verifier/eventb/eventb_model.h"

#include <stdlib.h>
#include <string.h>

#include "ism/vec.h"

typedef struct {
  eventb_model_t *m;
  diag_list_t *diags;
  arena_t *arena;
} loader_t;

#define COUNT(a) (sizeof(a) / sizeof *(a))

static const char *const top_keys[] = {"kind",        "name",      "description", "variables", "parameters",
                                       "assume",      "invariant", "initial",     "plant",     "controller",
                                       "uncertainty", "eventb",    "expect"};
static const char *const var_keys[] = {"type", "values", "description"};
static const char *const param_keys[] = {"type", "min", "max", "description"};
static const char *const event_keys[] = {"name", "params", "guard", "action", "description"};
static const char *const option_keys[] = {"robustify", "max-error"};

static int find_name(const char *const *names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return (int)i;
  return -1;
}

/* Parses a type name among `allowed` (a subset of int, real, bool, enum). */
static bool parse_type_name(loader_t *l, const ynode_t *n, const char *const *allowed, size_t nallowed,
                            const char *what, type_kind_t *out) {
  const char *s;
  if (!ydoc_string(n, &s, what, l->diags)) return false;
  if (find_name(allowed, nallowed, s) < 0) {
    const char *best = diag_suggest(s, allowed, nallowed);
    char list[64] = "";
    for (size_t i = 0; i < nallowed; i++) {
      strcat(list, allowed[i]);
      if (i + 1 < nallowed) strcat(list, i + 2 == nallowed ? " or " : ", ");
    }
    if (best)
      diag_error(l->diags, n->loc, "unknown type '%s' (did you mean '%s'?; use %s)", s, best, list);
    else
      diag_error(l->diags, n->loc, "unknown type '%s' (use %s)", s, list);
    return false;
  }
  *out = strcmp(s, "int") == 0    ? TYPE_INT
         : strcmp(s, "real") == 0 ? TYPE_REAL
         : strcmp(s, "bool") == 0 ? TYPE_BOOL
                                  : TYPE_ENUM;
  return true;
}

typedef VEC(expr_enum_t) enum_vec_t;

static void load_enum(loader_t *l, eventb_var_t *v, const ynode_t *spec, enum_vec_t *enums) {
  const ynode_t *vals = ydoc_require(spec, "values", "an enum variable", l->diags);
  const char **names = NULL;
  size_t count = 0;
  if (!vals || !ydoc_string_list(vals, l->arena, &names, &count, "'values'", l->diags)) return;
  if (count == 0) {
    diag_error(l->diags, vals->loc, "an enum needs at least one value");
    return;
  }
  for (size_t i = 0; i < count; i++) {
    loc_t at = vals->kind == YNODE_SEQ ? vals->items[i]->loc : vals->loc;
    for (size_t j = 0; j < i; j++)
      if (strcmp(names[i], names[j]) == 0) diag_error(l->diags, at, "duplicate enum value '%s'", names[i]);
    for (size_t k = 0; k < enums->len; k++)
      for (int j = 0; j < enums->data[k].nvalues; j++)
        if (strcmp(names[i], enums->data[k].values[j]) == 0)
          diag_error(l->diags, at, "enum value '%s' is already a value of '%s'", names[i],
                     enums->data[k].name);
  }
  v->type = (type_t){TYPE_ENUM, (int)enums->len};
  VEC_PUSH(enums, ((expr_enum_t){v->name, (int)count, names}));
}

static void load_variables(loader_t *l, const ynode_t *vars) {
  eventb_model_t *m = l->m;
  if (!ydoc_expect_kind(vars, YNODE_MAP, "'variables'", l->diags)) return;
  if (vars->len == 0) diag_error(l->diags, vars->loc, "a model needs at least one variable");
  enum_vec_t enums = {0};
  m->nvars = vars->len;
  m->vars = arena_alloc(l->arena, (vars->len + 1) * sizeof *m->vars);
  for (size_t i = 0; i < vars->len; i++) {
    eventb_var_t *v = &m->vars[i];
    const ynode_t *spec = vars->items[i];
    v->name = vars->keys[i]->text;
    v->loc = vars->keys[i]->loc;
    v->type = (type_t){TYPE_INT, -1};
    for (size_t j = 0; j < i; j++)
      if (strcmp(m->vars[j].name, v->name) == 0)
        diag_error(l->diags, v->loc, "duplicate variable '%s'", v->name);
    if (!ydoc_expect_kind(spec, YNODE_MAP, "a variable's definition", l->diags)) continue;
    ydoc_check_keys(spec, var_keys, COUNT(var_keys), "a variable", l->diags);
    static const char *const types[] = {"int", "real", "bool", "enum"};
    const ynode_t *t = ydoc_require(spec, "type", "a variable", l->diags);
    type_kind_t kind;
    if (t && parse_type_name(l, t, types, COUNT(types), "'type'", &kind)) {
      v->type = (type_t){kind, -1};
      if (kind == TYPE_ENUM) load_enum(l, v, spec, &enums);
    }
    const ynode_t *vals = ydoc_get(spec, "values");
    if (vals && v->type.kind != TYPE_ENUM)
      diag_error(l->diags, vals->loc, "'values' is only for enum variables");
  }
  m->nenums = enums.len;
  m->enums = arena_alloc(l->arena, (enums.len + 1) * sizeof *m->enums);
  if (enums.len) memcpy(m->enums, enums.data, enums.len * sizeof *m->enums);
  VEC_FREE(&enums);
}

/* Parameter types default to int when every uncertain variable is int. */
static type_kind_t default_param_type(loader_t *l, const ynode_t *unc) {
  if (!unc || unc->kind != YNODE_MAP) return TYPE_INT;
  for (size_t i = 0; i < unc->len; i++)
    for (size_t v = 0; v < l->m->nvars; v++)
      if (strcmp(unc->keys[i]->text, l->m->vars[v].name) == 0 && l->m->vars[v].type.kind != TYPE_INT)
        return TYPE_REAL;
  return TYPE_INT;
}

static void load_parameters(loader_t *l, const ynode_t *params, type_kind_t def) {
  eventb_model_t *m = l->m;
  if (!params || !ydoc_expect_kind(params, YNODE_MAP, "'parameters'", l->diags)) return;
  m->nparams = params->len;
  m->params = arena_alloc(l->arena, (params->len + 1) * sizeof *m->params);
  for (size_t i = 0; i < params->len; i++) {
    eventb_param_t *p = &m->params[i];
    const ynode_t *spec = params->items[i];
    p->name = params->keys[i]->text;
    p->loc = params->keys[i]->loc;
    p->type = (type_t){def, -1};
    for (size_t j = 0; j < m->nvars; j++)
      if (strcmp(m->vars[j].name, p->name) == 0)
        diag_error(l->diags, p->loc, "parameter '%s' has the name of a variable", p->name);
    for (size_t j = 0; j < i; j++)
      if (strcmp(m->params[j].name, p->name) == 0)
        diag_error(l->diags, p->loc, "duplicate parameter '%s'", p->name);
    if (ydoc_is_null(spec)) continue;
    if (!ydoc_expect_kind(spec, YNODE_MAP, "a parameter's definition", l->diags)) continue;
    ydoc_check_keys(spec, param_keys, COUNT(param_keys), "a parameter", l->diags);
    static const char *const types[] = {"int", "real"};
    const ynode_t *n;
    type_kind_t kind;
    if ((n = ydoc_get(spec, "type")) && parse_type_name(l, n, types, COUNT(types), "'type'", &kind))
      p->type.kind = kind;
    if ((n = ydoc_get(spec, "min"))) p->has_min = ydoc_number(n, &p->min, "'min'", l->diags);
    if ((n = ydoc_get(spec, "max"))) p->has_max = ydoc_number(n, &p->max, "'max'", l->diags);
    if (p->has_min && p->has_max && p->min > p->max)
      diag_error(l->diags, spec->loc, "parameter '%s' has min %g above max %g", p->name, p->min, p->max);
  }
}

/* The model scope: variables (primable) then model parameters. */
static void build_scope(loader_t *l) {
  eventb_model_t *m = l->m;
  size_t n = m->nvars + m->nparams;
  expr_sym_t *syms = arena_alloc(l->arena, (n + 1) * sizeof *syms);
  for (size_t i = 0; i < m->nvars; i++)
    syms[i] = (expr_sym_t){m->vars[i].name, SYM_VAR, m->vars[i].type, (int)i, true};
  for (size_t i = 0; i < m->nparams; i++)
    syms[m->nvars + i] =
        (expr_sym_t){m->params[i].name, SYM_CONST, m->params[i].type, (int)(m->nvars + i), false};
  m->scope = (expr_scope_t){.syms = syms, .nsyms = n, .enums = m->enums, .nenums = m->nenums};
}

static expr_t *parse_checked(loader_t *l, const ynode_t *n, const char *what, const expr_scope_t *scope,
                             bool primed, type_kind_t want) {
  const char *text;
  if (!ydoc_string(n, &text, what, l->diags)) return NULL;
  expr_t *e = expr_parse(text, n->loc, l->arena, l->diags);
  if (!e) return NULL;
  expr_scope_t s = *scope;
  s.allow_primed = primed;
  return expr_check(e, &s, want, l->arena, l->diags) ? e : NULL;
}

static void mark_primed(void *ctx, const expr_t *var) {
  bool *primed = ctx;
  if (var->u.var.primed && var->u.var.sym_kind == SYM_VAR) primed[var->u.var.id] = true;
}

static void load_event_params(loader_t *l, eventb_event_t *e, const ynode_t *params) {
  eventb_model_t *m = l->m;
  if (!params || !ydoc_expect_kind(params, YNODE_MAP, "'params'", l->diags)) return;
  e->nparams = params->len;
  e->params = arena_alloc(l->arena, (params->len + 1) * sizeof *e->params);
  static const char *const types[] = {"int", "real", "bool"};
  for (size_t i = 0; i < params->len; i++) {
    eventb_evparam_t *p = &e->params[i];
    p->name = params->keys[i]->text;
    p->loc = params->keys[i]->loc;
    p->type = (type_t){TYPE_INT, -1};
    type_kind_t kind;
    if (parse_type_name(l, params->items[i], types, COUNT(types), "a parameter's type", &kind))
      p->type.kind = kind;
    for (size_t j = 0; j < m->scope.nsyms; j++)
      if (strcmp(m->scope.syms[j].name, p->name) == 0)
        diag_error(l->diags, p->loc, "event parameter '%s' hides the %s '%s'", p->name,
                   j < m->nvars ? "variable" : "model parameter", p->name);
  }
}

static void load_event(loader_t *l, eventb_event_t *e, const ynode_t *spec, const char *what) {
  eventb_model_t *m = l->m;
  e->loc = spec->loc;
  e->name = "?";
  e->primed = arena_alloc(l->arena, (m->nvars + 1) * sizeof *e->primed);
  if (!ydoc_expect_kind(spec, YNODE_MAP, what, l->diags)) return;
  ydoc_check_keys(spec, event_keys, COUNT(event_keys), "an event", l->diags);
  const ynode_t *n;
  if ((n = ydoc_require(spec, "name", "an event", l->diags)))
    ydoc_string(n, &e->name, "an event's 'name'", l->diags);
  load_event_params(l, e, ydoc_get(spec, "params"));
  size_t ns = m->scope.nsyms + e->nparams;
  expr_sym_t *syms = arena_alloc(l->arena, (ns + 1) * sizeof *syms);
  memcpy(syms, m->scope.syms, m->scope.nsyms * sizeof *syms);
  for (size_t i = 0; i < e->nparams; i++)
    syms[m->scope.nsyms + i] =
        (expr_sym_t){e->params[i].name, SYM_PARAM, e->params[i].type, EVENTB_PARAM_BASE(m) + (int)i, false};
  e->scope = m->scope;
  e->scope.syms = syms;
  e->scope.nsyms = ns;
  if ((n = ydoc_require(spec, "guard", "an event", l->diags)))
    e->guard = parse_checked(l, n, "'guard'", &e->scope, false, TYPE_BOOL);
  if ((n = ydoc_require(spec, "action", "an event", l->diags))) {
    e->action = parse_checked(l, n, "'action'", &e->scope, true, TYPE_BOOL);
    if (e->action) expr_visit_vars(e->action, mark_primed, e->primed);
  }
}

static eventb_event_t *load_events(loader_t *l, const ynode_t *seq, const char *what, size_t *count,
                                   const eventb_event_t *others, size_t nothers) {
  if (!seq || !ydoc_expect_kind(seq, YNODE_SEQ, what, l->diags)) return NULL;
  eventb_event_t *events = arena_alloc(l->arena, (seq->len + 1) * sizeof *events);
  *count = seq->len;
  for (size_t i = 0; i < seq->len; i++) {
    load_event(l, &events[i], seq->items[i], "an event");
    for (size_t j = 0; j < i; j++)
      if (strcmp(events[i].name, events[j].name) == 0)
        diag_error(l->diags, events[i].loc, "duplicate event '%s'", events[i].name);
    for (size_t j = 0; j < nothers; j++)
      if (strcmp(events[i].name, others[j].name) == 0)
        diag_error(l->diags, events[i].loc, "duplicate event '%s'", events[i].name);
  }
  return events;
}

static void count_vars(void *ctx, const expr_t *var) {
  (void)var;
  ++*(int *)ctx;
}

static bool is_constant(const expr_t *e) {
  int n = 0;
  expr_visit_vars(e, count_vars, &n);
  return n == 0;
}

static value_t no_vars(void *ctx, int id, bool primed) {
  (void)ctx, (void)id, (void)primed;
  return (value_t){0, 0};
}

static expr_scope_t params_scope(const eventb_model_t *m) {
  expr_scope_t params_only = m->scope;
  params_only.syms += m->nvars;
  params_only.nsyms -= m->nvars;
  return params_only;
}

static void load_uncertainty(loader_t *l, const ynode_t *unc) {
  eventb_model_t *m = l->m;
  if (!unc || !ydoc_expect_kind(unc, YNODE_MAP, "'uncertainty'", l->diags)) return;
  expr_scope_t params_only = params_scope(m);
  for (size_t i = 0; i < unc->len; i++) {
    const char *name = unc->keys[i]->text;
    const ynode_t *iv = unc->items[i];
    eventb_var_t *v = NULL;
    for (size_t k = 0; k < m->nvars && !v; k++)
      if (strcmp(m->vars[k].name, name) == 0) v = &m->vars[k];
    if (!v) {
      const char **names = xcalloc(m->nvars + 1, sizeof *names);
      for (size_t k = 0; k < m->nvars; k++) names[k] = m->vars[k].name;
      const char *best = diag_suggest(name, names, m->nvars);
      free(names);
      if (best)
        diag_error(l->diags, unc->keys[i]->loc, "undefined variable '%s' (did you mean '%s'?)", name, best);
      else
        diag_error(l->diags, unc->keys[i]->loc, "undefined variable '%s'", name);
      continue;
    }
    if (v->type.kind != TYPE_INT && v->type.kind != TYPE_REAL) {
      diag_error(l->diags, iv->loc, "only int and real variables can be uncertain ('%s' is %s)", name,
                 expr_type_name(v->type, &m->scope));
      continue;
    }
    if (iv->kind != YNODE_SEQ || iv->len != 2) {
      diag_error(l->diags, iv->loc, "the uncertainty of '%s' must be an interval [low, high]", name);
      continue;
    }
    v->lo = parse_checked(l, iv->items[0], "an uncertainty bound", &params_only, false, v->type.kind);
    v->hi = parse_checked(l, iv->items[1], "an uncertainty bound", &params_only, false, v->type.kind);
    v->unc_loc = iv->loc;
    v->uncertain = v->lo && v->hi;
    if (v->uncertain && is_constant(v->lo) && is_constant(v->hi)) {
      bool err = false;
      double lo = expr_eval_real(v->lo, no_vars, NULL, &err), hi = expr_eval_real(v->hi, no_vars, NULL, &err);
      if (!err && !(lo <= 0 && 0 <= hi))
        diag_error(l->diags, iv->loc,
                   "the uncertainty [%g, %g] of '%s' must contain 0 (a true value is a possible perception "
                   "of itself)",
                   lo, hi, name);
    }
    m->has_uncertainty |= v->uncertain;
  }
}

static void load_options(loader_t *l, const ynode_t *opts) {
  eventb_settings_t *o = &l->m->options;
  if (!opts || !ydoc_expect_kind(opts, YNODE_MAP, "'eventb'", l->diags)) return;
  ydoc_check_keys(opts, option_keys, COUNT(option_keys), "'eventb'", l->diags);
  const ynode_t *n;
  if ((n = ydoc_get(opts, "robustify")) &&
      (o->has_robustify = ydoc_string(n, &o->robustify, "'robustify'", l->diags))) {
    static const char *const methods[] = {"auto", "preserving", "repurposing"};
    if (find_name(methods, COUNT(methods), o->robustify) < 0) {
      diag_error(l->diags, n->loc, "unknown robustification '%s' (use auto, preserving or repurposing)",
                 o->robustify);
      o->has_robustify = false;
    }
  }
  if ((n = ydoc_get(opts, "max-error")) &&
      (o->has_max_error = ydoc_string(n, &o->max_error, "'max-error'", l->diags))) {
    bool found = false;
    for (size_t i = 0; i < l->m->nparams; i++) found |= strcmp(l->m->params[i].name, o->max_error) == 0;
    if (!found) {
      diag_error(l->diags, n->loc, "'max-error' names '%s', which is not a model parameter", o->max_error);
      o->has_max_error = false;
    }
  }
}

/* `invariant:` is one predicate (labelled inv1) or a map label: predicate. */
static void load_invariants(loader_t *l, const ynode_t *n) {
  eventb_model_t *m = l->m;
  size_t count = n->kind == YNODE_MAP ? n->len : 1;
  if (n->kind == YNODE_MAP && count == 0) {
    diag_error(l->diags, n->loc, "'invariant' needs at least one predicate");
    return;
  }
  m->invs = arena_alloc(l->arena, count * sizeof *m->invs);
  bool ok = true;
  for (size_t i = 0; i < count; i++) {
    const ynode_t *pred = n->kind == YNODE_MAP ? n->items[i] : n;
    const char *label = n->kind == YNODE_MAP ? n->keys[i]->text : "inv1";
    expr_t *e = parse_checked(l, pred, "an invariant", &m->scope, false, TYPE_BOOL);
    m->invs[m->ninvs++] = (eventb_inv_t){label, e, pred->loc};
    ok &= e != NULL;
  }
  if (!ok) return;
  m->invariant = m->invs[0].pred;
  for (size_t i = 1; i < m->ninvs; i++) {
    m->invariant = expr_new_binary(l->arena, EXPR_AND, m->invariant, m->invs[i].pred, m->invs[i].loc);
    m->invariant->type = m->invs[i].pred->type;
  }
}

eventb_model_t *eventb_load(const char *path, diag_list_t *diags) {
  eventb_model_t *m = xcalloc(1, sizeof *m);
  arena_init(&m->arena);
  loader_t l = {m, diags, &m->arena};
  size_t errors_before = diag_error_count(diags);
  const ynode_t *root = ydoc_load_file(path, &m->arena, diags);
  if (!root || !ydoc_expect_kind(root, YNODE_MAP, "a model file", diags)) {
    eventb_free(m);
    return NULL;
  }
  m->path = root->loc.file;
  ydoc_check_keys(root, top_keys, COUNT(top_keys), "the model", diags);
  const ynode_t *n = ydoc_require(root, "kind", "the model", diags);
  if (n && n->kind == YNODE_SCALAR && strcmp(n->text, "eventb") != 0)
    diag_error(diags, n->loc, "this is a '%s' file, not an Event-B model ('kind: eventb')", n->text);
  m->name = "model";
  if ((n = ydoc_get(root, "name"))) ydoc_string(n, &m->name, "'name'", diags);
  if ((n = ydoc_require(root, "variables", "the model", diags))) load_variables(&l, n);
  const ynode_t *unc = ydoc_get(root, "uncertainty");
  load_parameters(&l, ydoc_get(root, "parameters"), default_param_type(&l, unc));
  build_scope(&l);
  if ((n = ydoc_get(root, "assume"))) {
    expr_scope_t params_only = params_scope(m);
    m->assume = parse_checked(&l, n, "'assume'", &params_only, false, TYPE_BOOL);
  }
  if ((n = ydoc_require(root, "invariant", "the model", diags))) load_invariants(&l, n);
  if ((n = ydoc_require(root, "initial", "the model", diags)))
    m->initial = parse_checked(&l, n, "'initial'", &m->scope, false, TYPE_BOOL);
  m->plant = load_events(&l, ydoc_get(root, "plant"), "'plant'", &m->nplant, NULL, 0);
  m->ctrl = load_events(&l, ydoc_require(root, "controller", "the model", diags), "'controller'", &m->nctrl,
                        m->plant, m->nplant);
  if ((n = ydoc_get(root, "controller")) && n->kind == YNODE_SEQ && n->len == 0)
    diag_error(diags, n->loc, "a model needs at least one controller event");
  load_uncertainty(&l, unc);
  if (m->has_uncertainty && m->nctrl > EVENTB_MAX_CTRL)
    diag_error(
        diags, ydoc_get(root, "controller")->loc,
        "robustification represents a compartment as a set of controller events; at most %d are supported, "
        "not %zu",
        EVENTB_MAX_CTRL, m->nctrl);
  load_options(&l, ydoc_get(root, "eventb"));
  if ((n = ydoc_get(root, "expect"))) m->expect = n;
  if (diag_error_count(diags) > errors_before) {
    eventb_free(m);
    return NULL;
  }
  return m;
}

void eventb_free(eventb_model_t *m) {
  if (!m) return;
  arena_free(&m->arena);
  free(m);
}
