#include "ism/ism.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/intern.h"
#include "ism/vec.h"

typedef struct {
  ism_model_t *m;
  diag_list_t *diags;
  arena_t *arena;
  /* name -> index, so that lookups and duplicate checks stay linear in the
   * model's size (ids are first-seen order: equal to the index while there
   * is no duplicate, and a duplicate is an error) */
  intern_t var_ids, state_ids, action_ids, rule_ids;
  const char **action_names; /* [nactions], for suggestions */
} loader_t;

#define COUNT(a) (sizeof(a) / sizeof *(a))

static const char *const top_keys[] = {"kind",    "name",        "description", "variables", "states",
                                       "initial", "actions",     "rules",       "selection", "failure",
                                       "assume",  "uncertainty", "verify",      "expect"};
static const char *const var_keys[] = {"sensing", "type", "range", "init", "dynamic", "description"};
static const char *const action_keys[] = {"effect", "failure", "description"};
static const char *const rule_keys[] = {"id", "from", "when", "do", "to", "description"};
static const char *const unc_keys[] = {"error", "distribution", "sd", "mean"};
static const char *const verify_keys[] = {"bound", "mode", "timeout", "budget", "min-prob", "top", "strategy"};

static int find_name(const char *const *names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return (int)i;
  return -1;
}

static void undefined(loader_t *l, loc_t loc, const char *what, const char *name, const char *const *names,
                      size_t n) {
  const char *best = diag_suggest(name, names, n);
  if (best)
    diag_error(l->diags, loc, "undefined %s '%s' (did you mean '%s'?)", what, name, best);
  else
    diag_error(l->diags, loc, "undefined %s '%s'", what, name);
}

static expr_t *parse_checked(loader_t *l, const ynode_t *n, const char *what, bool primed, type_kind_t want) {
  const char *text;
  if (!ydoc_string(n, &text, what, l->diags)) return NULL;
  expr_t *e = expr_parse(text, n->loc, l->arena, l->diags);
  if (!e) return NULL;
  expr_scope_t scope = l->m->scope;
  scope.allow_primed = primed;
  return expr_check(e, &scope, want, l->arena, l->diags) ? e : NULL;
}

/* [lo, hi] with numbers, lo <= hi. */
static bool parse_interval(loader_t *l, const ynode_t *n, const char *what, double *lo, double *hi) {
  if (n->kind != YNODE_SEQ || n->len != 2) {
    diag_error(l->diags, n->loc, "%s must be an interval [low, high]", what);
    return false;
  }
  if (!ydoc_number(n->items[0], lo, what, l->diags) || !ydoc_number(n->items[1], hi, what, l->diags))
    return false;
  if (*lo > *hi) {
    diag_error(l->diags, n->loc, "%s [%g, %g] is empty: the low end must not exceed the high end", what, *lo,
               *hi);
    return false;
  }
  return true;
}

static bool parse_type(loader_t *l, const ynode_t *n, type_t *t) {
  const char *s;
  if (!ydoc_string(n, &s, "'type'", l->diags)) return false;
  static const char *const types[] = {"real", "int", "bool"};
  int k = find_name(types, 3, s);
  if (k < 0) {
    const char *best = diag_suggest(s, types, 3);
    diag_error(l->diags, n->loc, "unknown type '%s' (types are real, int and bool)%s%s%s", s,
               best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
    return false;
  }
  *t = (type_t){k == 0 ? TYPE_REAL : k == 1 ? TYPE_INT : TYPE_BOOL, -1};
  return true;
}

static void load_variables(loader_t *l, const ynode_t *vars) {
  ism_model_t *m = l->m;
  if (!ydoc_expect_kind(vars, YNODE_MAP, "'variables'", l->diags)) return;
  m->nvars = vars->len;
  m->vars = arena_alloc(l->arena, (vars->len + 1) * sizeof *m->vars);
  m->syms = arena_alloc(l->arena, (vars->len + 1) * sizeof *m->syms);
  for (size_t i = 0; i < vars->len; i++) {
    ism_var_t *v = &m->vars[i];
    const ynode_t *spec = vars->items[i];
    v->name = vars->keys[i]->text;
    v->loc = vars->keys[i]->loc;
    v->type = (type_t){TYPE_REAL, -1};
    if (ydoc_expect_kind(spec, YNODE_MAP, "a variable's definition", l->diags)) {
      ydoc_check_keys(spec, var_keys, COUNT(var_keys), "a variable", l->diags);
      const ynode_t *n;
      if ((n = ydoc_get(spec, "type"))) parse_type(l, n, &v->type);
      if ((n = ydoc_get(spec, "sensing"))) ydoc_bool(n, &v->sensing, "'sensing'", l->diags);
      if ((n = ydoc_get(spec, "dynamic"))) {
        ydoc_bool(n, &v->dynamic, "'dynamic'", l->diags);
        if (v->dynamic && !v->sensing) diag_error(l->diags, n->loc, "only sensing variables can be dynamic");
      }
      if ((n = ydoc_get(spec, "range"))) {
        if (!v->sensing)
          diag_error(l->diags, n->loc,
                     "'range' is for sensing variables (the physical domain of a true value)");
        else if (v->type.kind == TYPE_BOOL)
          diag_error(l->diags, n->loc, "a bool variable cannot have a range");
        else
          v->has_range = parse_interval(l, n, "'range'", &v->range_lo, &v->range_hi);
      }
    }
    m->syms[i] = (expr_sym_t){v->name, SYM_VAR, v->type, (int)i, v->sensing};
    bool added;
    intern_add2(&l->var_ids, v->name, &added);
    if (!added) diag_error(l->diags, v->loc, "duplicate variable '%s'", v->name);
  }
  m->scope = (expr_scope_t){.syms = m->syms, .nsyms = m->nvars};
  /* Initial values need the scope (they may be constant expressions). */
  for (size_t i = 0; i < vars->len; i++) {
    const ynode_t *n = vars->items[i]->kind == YNODE_MAP ? ydoc_get(vars->items[i], "init") : NULL;
    if (!n) continue;
    ism_var_t *v = &m->vars[i];
    if (v->sensing) {
      diag_error(l->diags, n->loc,
                 "a sensing variable has no initial value: its true value is sensed (use 'range')");
      continue;
    }
    expr_scope_t empty = {0};
    const char *text;
    if (!ydoc_string(n, &text, "'init'", l->diags)) continue;
    expr_t *e = expr_parse(text, n->loc, l->arena, l->diags);
    if (!e || !expr_check(e, &empty, v->type.kind, l->arena, l->diags)) continue;
    bool error = false;
    value_t value = expr_eval(e, NULL, NULL, &error);
    if (error || (v->type.kind == TYPE_REAL && !isfinite(value.r)))
      diag_error(l->diags, n->loc, "the initial value of '%s' cannot be computed: %s", v->name,
                 error ? "division by zero or overflow" : "it is not a finite number");
    else
      v->init = e;
  }
}

static void load_states(loader_t *l, const ynode_t *root) {
  ism_model_t *m = l->m;
  const ynode_t *n = ydoc_require(root, "states", "the model", l->diags);
  size_t count = 0;
  if (n && ydoc_string_list(n, l->arena, &m->states, &count, "'states'", l->diags)) m->nstates = count;
  for (size_t i = 0; i < m->nstates; i++) {
    bool added;
    intern_add2(&l->state_ids, m->states[i], &added);
    if (!added)
      diag_error(l->diags, n->kind == YNODE_SEQ ? n->items[i]->loc : n->loc, "duplicate state '%s'",
                 m->states[i]);
  }
  const ynode_t *init = ydoc_require(root, "initial", "the model", l->diags);
  const char *name;
  m->initial = -1;
  if (init && ydoc_string(init, &name, "'initial'", l->diags)) {
    m->initial = intern_find(&l->state_ids, name);
    if (m->initial < 0) undefined(l, init->loc, "state", name, m->states, m->nstates);
  }
}

static void load_actions(loader_t *l, const ynode_t *acts) {
  ism_model_t *m = l->m;
  if (!acts) return;
  if (!ydoc_expect_kind(acts, YNODE_MAP, "'actions'", l->diags)) return;
  m->nactions = acts->len;
  m->actions = arena_alloc(l->arena, (acts->len + 1) * sizeof *m->actions);
  for (size_t i = 0; i < acts->len; i++) {
    ism_action_t *a = &m->actions[i];
    a->name = acts->keys[i]->text;
    a->loc = acts->keys[i]->loc;
    a->constrains = arena_alloc(l->arena, (m->nvars + 1) * sizeof *a->constrains);
    a->reads = arena_alloc(l->arena, (m->nvars + 1) * sizeof *a->reads);
    const ynode_t *spec = acts->items[i];
    if (ydoc_is_null(spec)) continue; /* an action with no effect on the environment */
    if (!ydoc_expect_kind(spec, YNODE_MAP, "an action's definition", l->diags)) continue;
    ydoc_check_keys(spec, action_keys, COUNT(action_keys), "an action", l->diags);
    const ynode_t *eff = ydoc_get(spec, "effect");
    if (eff) {
      const ynode_t *const *items = eff->kind == YNODE_SEQ ? (const ynode_t *const *)eff->items : &eff;
      size_t n = eff->kind == YNODE_SEQ ? eff->len : 1;
      a->effects = arena_alloc(l->arena, (n + 1) * sizeof *a->effects);
      for (size_t k = 0; k < n; k++) {
        expr_t *e = parse_checked(l, items[k], "an effect", true, TYPE_BOOL);
        if (!e) continue;
        a->effects[a->neffects++] = e;
      }
    }
    const ynode_t *fail = ydoc_get(spec, "failure");
    if (fail) a->failure = parse_checked(l, fail, "'failure'", true, TYPE_BOOL);
  }
}

/* assume: a condition or a list of them, over the initial true values and
 * the normal variables' initial values. */
static void load_assume(loader_t *l, const ynode_t *n) {
  ism_model_t *m = l->m;
  const ynode_t *const *items = n->kind == YNODE_SEQ ? (const ynode_t *const *)n->items : &n;
  size_t count = n->kind == YNODE_SEQ ? n->len : 1;
  m->assume = arena_alloc(l->arena, (count + 1) * sizeof *m->assume);
  for (size_t k = 0; k < count; k++) {
    expr_t *e = parse_checked(l, items[k], "an assumption", false, TYPE_BOOL);
    if (e) m->assume[m->nassume++] = e;
  }
}

static void mark_use(void *ctx, const expr_t *var) {
  ism_action_t *a = ctx;
  if (var->u.var.primed)
    a->constrains[var->u.var.id] = true;
  else
    a->reads[var->u.var.id] = true;
}

static void load_steps(loader_t *l, ism_rule_t *r, const ynode_t *n) {
  ism_model_t *m = l->m;
  const ynode_t *const *items = n->kind == YNODE_SEQ ? (const ynode_t *const *)n->items : &n;
  size_t count = n->kind == YNODE_SEQ ? n->len : 1;
  const char **action_names = l->action_names;
  r->steps = arena_alloc(l->arena, (count + 1) * sizeof *r->steps);
  for (size_t i = 0; i < count; i++) {
    const char *text;
    if (!ydoc_string(items[i], &text, "an item of 'do'", l->diags)) continue;
    ism_step_t *s = &r->steps[r->nsteps];
    s->loc = items[i]->loc;
    const char *assign = strstr(text, ":=");
    if (!assign) {
      s->kind = ISM_STEP_ACTION;
      s->action = intern_find(&l->action_ids, text);
      if (s->action < 0) {
        undefined(l, s->loc, "action", text, action_names, m->nactions);
        continue;
      }
      r->has_action = true;
      r->nsteps++;
      continue;
    }
    s->kind = ISM_STEP_ASSIGN;
    size_t len = (size_t)(assign - text);
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t')) len--;
    size_t skip = strspn(text, " \t");
    char *name = arena_strndup(l->arena, text + skip, len > skip ? len - skip : 0);
    s->var = -1;
    for (size_t v = 0; v < m->nvars; v++)
      if (strcmp(m->vars[v].name, name) == 0) s->var = (int)v;
    if (s->var < 0) {
      const char **names = arena_alloc(l->arena, (m->nvars + 1) * sizeof *names);
      for (size_t v = 0; v < m->nvars; v++) names[v] = m->vars[v].name;
      undefined(l, (loc_t){s->loc.file, s->loc.line, s->loc.col + (int)skip}, "variable", name, names,
                m->nvars);
      continue;
    }
    if (m->vars[s->var].sensing) {
      diag_error(l->diags, s->loc, "cannot assign to sensing variable '%s': its value comes from sensing",
                 name);
      continue;
    }
    const char *rhs = assign + 2;
    loc_t at = s->loc;
    at.col += (int)(rhs - text);
    expr_t *e = expr_parse(rhs, at, l->arena, l->diags);
    if (!e || !expr_check(e, &m->scope, TYPE_NONE, l->arena, l->diags)) continue;
    type_kind_t want = m->vars[s->var].type.kind;
    bool fits = e->type.kind == want || (want == TYPE_REAL && e->type.kind == TYPE_INT);
    if (!fits) {
      diag_error(l->diags, e->loc, "cannot assign %s to '%s' of type %s", expr_type_name(e->type, NULL), name,
                 expr_type_name(m->vars[s->var].type, NULL));
      continue;
    }
    if (want == TYPE_REAL && e->type.kind == TYPE_INT)
      e = expr_new_unary(l->arena, EXPR_TOREAL, e, e->loc), e->type = (type_t){TYPE_REAL, -1};
    s->value = e;
    r->nsteps++;
  }
}

static void load_rules(loader_t *l, const ynode_t *rules) {
  ism_model_t *m = l->m;
  if (!ydoc_expect_kind(rules, YNODE_SEQ, "'rules'", l->diags)) return;
  m->nrules = rules->len;
  m->rules = arena_alloc(l->arena, (rules->len + 1) * sizeof *m->rules);
  for (size_t i = 0; i < rules->len; i++) {
    ism_rule_t *r = &m->rules[i];
    const ynode_t *spec = rules->items[i];
    r->loc = spec->loc;
    r->from = r->to = -1;
    r->id = arena_printf(l->arena, "r%zu", i);
    if (!ydoc_expect_kind(spec, YNODE_MAP, "a rule", l->diags)) {
      intern_add(&l->rule_ids, r->id);
      continue;
    }
    ydoc_check_keys(spec, rule_keys, COUNT(rule_keys), "a rule", l->diags);
    const ynode_t *n;
    bool added;
    if ((n = ydoc_get(spec, "id")) && ydoc_string(n, &r->id, "a rule's 'id'", l->diags)) {
      intern_add2(&l->rule_ids, r->id, &added);
      if (!added) diag_error(l->diags, n->loc, "duplicate rule id '%s'", r->id);
    } else {
      intern_add(&l->rule_ids, r->id); /* the default id, which a later 'id:' must not repeat */
    }
    const char *name;
    if ((n = ydoc_require(spec, "from", "a rule", l->diags)) && ydoc_string(n, &name, "'from'", l->diags)) {
      r->from = intern_find(&l->state_ids, name);
      if (r->from < 0) undefined(l, n->loc, "state", name, m->states, m->nstates);
    }
    /* In the order the keys are usually written, so errors come out in line order. */
    if ((n = ydoc_get(spec, "when"))) r->when = parse_checked(l, n, "'when'", false, TYPE_BOOL);
    if (!r->when) r->when = expr_new_bool(l->arena, true, r->loc);
    if ((n = ydoc_get(spec, "do"))) load_steps(l, r, n);
    r->to = r->from;
    if ((n = ydoc_get(spec, "to")) && ydoc_string(n, &name, "'to'", l->diags)) {
      r->to = intern_find(&l->state_ids, name);
      if (r->to < 0) undefined(l, n->loc, "state", name, m->states, m->nstates);
    }
  }
}

static void load_uncertainty(loader_t *l, const ynode_t *unc) {
  ism_model_t *m = l->m;
  if (!unc || !ydoc_expect_kind(unc, YNODE_MAP, "'uncertainty'", l->diags)) return;
  for (size_t i = 0; i < unc->len; i++) {
    const char *name = unc->keys[i]->text;
    int id = intern_find(&l->var_ids, name);
    if (id < 0) {
      const char **names = arena_alloc(l->arena, (m->nvars + 1) * sizeof *names);
      for (size_t v = 0; v < m->nvars; v++) names[v] = m->vars[v].name;
      undefined(l, unc->keys[i]->loc, "variable", name, names, m->nvars);
      continue;
    }
    ism_var_t *v = &m->vars[id];
    const ynode_t *spec = unc->items[i];
    if (!ydoc_expect_kind(spec, YNODE_MAP, "an uncertainty specification", l->diags)) continue;
    ydoc_check_keys(spec, unc_keys, COUNT(unc_keys), "an uncertainty specification", l->diags);
    if (v->type.kind != TYPE_REAL) {
      diag_error(l->diags, unc->keys[i]->loc, "uncertainty needs a real variable; '%s' is %s", name,
                 expr_type_name(v->type, NULL));
      continue;
    }
    const ynode_t *n = ydoc_require(spec, "error", "an uncertainty specification", l->diags);
    if (!n || !parse_interval(l, n, "'error'", &v->err_lo, &v->err_hi)) continue;
    v->uncertain = true;
    v->dist = ISM_DIST_UNIFORM;
    bool known_dist = true;
    if ((n = ydoc_get(spec, "distribution"))) {
      const char *d;
      static const char *const dists[] = {"uniform", "gaussian"};
      known_dist = false;
      if (ydoc_string(n, &d, "'distribution'", l->diags)) {
        int k = find_name(dists, 2, d);
        if (k < 0)
          diag_error(l->diags, n->loc, "unknown distribution '%s' (use uniform or gaussian)", d);
        else
          v->dist = k == 1 ? ISM_DIST_GAUSSIAN : ISM_DIST_UNIFORM, known_dist = true;
      }
    }
    if ((n = ydoc_get(spec, "mean"))) ydoc_number(n, &v->mean, "'mean'", l->diags);
    n = ydoc_get(spec, "sd");
    if (!known_dist) {
      /* sd cannot be judged against a distribution we do not know */
    } else if (v->dist == ISM_DIST_GAUSSIAN) {
      if (!n)
        diag_error(l->diags, spec->loc, "a gaussian error needs 'sd' (its standard deviation)");
      else if (ydoc_number(n, &v->sd, "'sd'", l->diags) && !(v->sd > 0))
        diag_error(l->diags, n->loc, "'sd' must be positive");
    } else if (n) {
      diag_error(l->diags, n->loc, "'sd' is only for gaussian errors");
    }
  }
}

/* The values are the command line's to parse (apps/); only the shape and
 * the key names are checked here. */
static void load_options(loader_t *l, const ynode_t *opts) {
  if (!opts || !ydoc_expect_kind(opts, YNODE_MAP, "'verify'", l->diags)) return;
  ydoc_check_keys(opts, verify_keys, COUNT(verify_keys), "'verify'", l->diags);
  l->m->verify = opts;
}

static void index_rules(loader_t *l) {
  ism_model_t *m = l->m;
  m->rules_from = arena_alloc(l->arena, (m->nstates + 1) * sizeof *m->rules_from);
  for (size_t s = 0; s < m->nstates; s++) {
    size_t n = 0;
    for (size_t r = 0; r < m->nrules; r++) n += m->rules[r].from == (int)s;
    m->rules_from[s] = arena_alloc(l->arena, (n + 1) * sizeof **m->rules_from);
    n = 0;
    for (size_t r = 0; r < m->nrules; r++)
      if (m->rules[r].from == (int)s) m->rules_from[s][n++] = (int)r;
    m->rules_from[s][n] = -1;
  }
}

static ism_model_t *load(loader_t *l, const char *path) {
  ism_model_t *m = l->m;
  diag_list_t *diags = l->diags;
  size_t errors_before = diag_error_count(diags);
  const ynode_t *root = ydoc_load_file(path, &m->arena, diags);
  if (!root || !ydoc_expect_kind(root, YNODE_MAP, "a model file", diags)) {
    ism_free(m);
    return NULL;
  }
  m->path = root->loc.file;
  const ynode_t *n = ydoc_require(root, "kind", "the model", diags);
  if (n && n->kind == YNODE_SCALAR && strcmp(n->text, "ism") != 0) {
    /* Another analysis's file: its keys would only add noise. */
    diag_error(diags, n->loc, "this is a '%s' file, not an ISM model ('kind: ism')", n->text);
    ism_free(m);
    return NULL;
  }
  ydoc_check_keys(root, top_keys, COUNT(top_keys), "the model", diags);
  m->name = "model";
  if ((n = ydoc_get(root, "name"))) ydoc_string(n, &m->name, "'name'", diags);
  if ((n = ydoc_require(root, "variables", "the model", diags))) load_variables(l, n);
  load_states(l, root);
  load_actions(l, ydoc_get(root, "actions"));
  l->action_names = arena_alloc(l->arena, (m->nactions + 1) * sizeof *l->action_names);
  for (size_t i = 0; i < m->nactions; i++) {
    l->action_names[i] = m->actions[i].name;
    intern_add(&l->action_ids, m->actions[i].name);
  }
  if ((n = ydoc_require(root, "rules", "the model", diags))) load_rules(l, n);
  for (size_t a = 0; a < m->nactions; a++) {
    for (size_t k = 0; k < m->actions[a].neffects; k++)
      expr_visit_vars(m->actions[a].effects[k], mark_use, &m->actions[a]);
    expr_visit_vars(m->actions[a].failure, mark_use, &m->actions[a]);
  }
  if ((n = ydoc_get(root, "failure"))) m->failure = parse_checked(l, n, "'failure'", false, TYPE_BOOL);
  if ((n = ydoc_get(root, "assume"))) load_assume(l, n);
  if ((n = ydoc_get(root, "selection"))) {
    const char *s;
    if (ydoc_string(n, &s, "'selection'", diags)) {
      if (strcmp(s, "first") == 0)
        m->selection = ISM_SELECT_FIRST;
      else if (strcmp(s, "nondeterministic") != 0 && strcmp(s, "any") != 0)
        diag_error(diags, n->loc, "unknown selection '%s' (use nondeterministic or first)", s);
    }
  }
  load_uncertainty(l, ydoc_get(root, "uncertainty"));
  load_options(l, ydoc_get(root, "verify"));
  if ((n = ydoc_get(root, "expect"))) m->expect = n;
  if (diag_error_count(diags) > errors_before) {
    ism_free(m);
    return NULL;
  }
  index_rules(l);
  return m;
}

ism_model_t *ism_load(const char *path, diag_list_t *diags) {
  ism_model_t *m = xcalloc(1, sizeof *m);
  arena_init(&m->arena);
  loader_t l = {.m = m, .diags = diags, .arena = &m->arena};
  intern_init(&l.var_ids);
  intern_init(&l.state_ids);
  intern_init(&l.action_ids);
  intern_init(&l.rule_ids);
  m = load(&l, path);
  intern_free(&l.var_ids);
  intern_free(&l.state_ids);
  intern_free(&l.action_ids);
  intern_free(&l.rule_ids);
  return m;
}

void ism_free(ism_model_t *m) {
  if (!m) return;
  arena_free(&m->arena);
  free(m);
}

static bool mentions_primed(const expr_t *e) {
  if (!e) return false;
  switch (e->kind) {
  case EXPR_VAR: return e->u.var.primed;
  case EXPR_INT:
  case EXPR_REAL:
  case EXPR_BOOL:
  case EXPR_NAME:
  case EXPR_ENUM: return false;
  default: return mentions_primed(e->u.op.a) || mentions_primed(e->u.op.b) || mentions_primed(e->u.op.c);
  }
}

int ism_effect_defines(const ism_model_t *m, const expr_t *e, const expr_t **rhs) {
  if (e->kind != EXPR_EQ) return -1;
  for (int side = 0; side < 2; side++) {
    const expr_t *l = side ? e->u.op.b : e->u.op.a, *r = side ? e->u.op.a : e->u.op.b;
    if (l->kind == EXPR_VAR && l->u.var.primed && m->vars[l->u.var.id].sensing && !mentions_primed(r) &&
        l->type.kind == r->type.kind) {
      *rhs = r;
      return l->u.var.id;
    }
  }
  return -1;
}
