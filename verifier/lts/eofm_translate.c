#include "verifier/lts/eofm_translate.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"
#include "ism/vec.h"
#include "verifier/lts/eofm_plan.h"
#include "verifier/lts/fsp.h"

/* ------------------------------------------------------------ naming */

/* The capitalised name, with a number when an earlier instance has it
 * (the reference tool's Name, Name1, ...) or the translation uses it. */
static const char *process_name(eofm_plan_t *p, const char *name) {
  static const char *const reserved[] = {"ENV", "ACT", "SKIP", "VAR", "END", "STOP", "ERROR", "WORLD"};
  char *cap = arena_strdup(&p->arena, name);
  cap[0] = (char)toupper((unsigned char)cap[0]);
  for (int k = 0;; k++) {
    const char *candidate = k ? arena_printf(&p->arena, "%s%d", cap, k) : cap;
    bool taken = false;
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
      taken |= strcmp(reserved[i], candidate) == 0;
    for (size_t i = 0; i < p->inst.len && !taken; i++) taken = strcmp(p->inst.data[i].name, candidate) == 0;
    if (!taken) return candidate;
  }
}

static int plan_node(eofm_plan_t *p, int node, int parent) {
  const eofm_node_t *nd = &p->m->nodes.data[node];
  inst_t in = {node, process_name(p, nd->name), parent, {0}};
  VEC_PUSH(&p->inst, in);
  int id = (int)p->inst.len - 1;
  if (nd->kind == EOFM_ACTIVITY)
    for (size_t i = 0; i < nd->children.len; i++) {
      int kid = plan_node(p, nd->children.data[i], id);
      VEC_PUSH(&p->inst.data[id].kids, kid);
    }
  return id;
}

/* ------------------------------------------------------------ checks */

static int var_index(const eofm_t *m, const char *name) {
  for (size_t i = 0; i < m->vars.len; i++)
    if (strcmp(m->vars.data[i].name, name) == 0) return (int)i;
  return -1;
}

static void append_declarations(const eofm_t *m, strbuf_t *sb) {
  for (size_t i = 0; i < m->consts.len; i++)
    strbuf_printf(sb, "const %s = %lld\n", m->consts.data[i].name, m->consts.data[i].value);
  strbuf_putc(sb, '\n');
  for (size_t i = 0; i < m->types.len; i++) {
    const eofm_type_t *t = &m->types.data[i];
    for (size_t k = 0; k < t->nvalues; k++) strbuf_printf(sb, "const %s = %zu\n", t->values[k], k);
    strbuf_printf(sb, "range %c%s = %s..%s\n\n", toupper((unsigned char)t->name[0]), t->name + 1,
                  t->values[0], t->values[t->nvalues - 1]);
  }
}

/* "[iA:TA][iB:0..3]" (declaration) or "[iA][iB]" (use) over the input
 * variables, then, with `locals`, the local variables. */
static void append_vars(const eofm_t *m, strbuf_t *sb, bool declaration, bool locals) {
  for (size_t k = 0; k < 2 * m->vars.len; k++) {
    const eofm_var_t *v = &m->vars.data[k % m->vars.len];
    if (v->local != (k >= m->vars.len) || (v->local && !locals)) continue;
    if (!declaration)
      strbuf_printf(sb, "[%s]", v->name);
    else if (v->type >= 0) {
      const char *t = m->types.data[v->type].name;
      strbuf_printf(sb, "[%s:%c%s]", v->name, toupper((unsigned char)t[0]), t + 1);
    } else
      strbuf_printf(sb, "[%s:%lld..%lld]", v->name, v->lo, v->hi);
  }
}

static void append_init(const eofm_plan_t *p, strbuf_t *sb, bool locals) {
  for (size_t k = 0; k < 2 * p->m->vars.len; k++) {
    size_t i = k % p->m->vars.len;
    if (p->m->vars.data[i].local == (k >= p->m->vars.len) && (!p->m->vars.data[i].local || locals))
      strbuf_printf(sb, "[%s]", p->init[i]);
  }
}

/* Compiles one world rule alone to report its FSP errors at the config
 * entry: from every valuation of the input variables (so that every guard
 * is evaluated), or from the initial one when there are too many. */
static bool check_world_rule(const eofm_plan_t *p, size_t i, diag_list_t *diags) {
  double valuations = 1;
  for (size_t k = 0; k < p->m->vars.len; k++)
    if (!p->m->vars.data[k].local) valuations *= (double)(p->m->vars.data[k].hi - p->m->vars.data[k].lo + 1);
  strbuf_t sb;
  strbuf_init(&sb);
  append_declarations(p->m, &sb);
  if (valuations <= 100000) {
    strbuf_puts(&sb, "WORLD = (eofm_valuation");
    append_vars(p->m, &sb, true, false);
    strbuf_puts(&sb, " -> VAR");
    append_vars(p->m, &sb, false, false);
    strbuf_puts(&sb, ")");
  } else {
    strbuf_puts(&sb, "WORLD = VAR");
    append_init(p, &sb, false);
  }
  strbuf_puts(&sb, ",\nVAR");
  append_vars(p->m, &sb, true, false);
  strbuf_printf(&sb, " = (\n%s\n).\n", p->w->world[i]);
  diag_list_t tmp;
  diag_init(&tmp);
  lts_labels_t labels;
  lts_labels_init(&labels);
  fsp_file_t *f = fsp_parse_string("<world rule>", strbuf_str(&sb), &labels, &tmp);
  lts_t *l = f ? fsp_compile(f, "WORLD", &tmp) : NULL;
  bool ok = l != NULL;
  if (!ok) {
    loc_t at = p->w->world_locs ? p->w->world_locs[i] : (loc_t){0};
    diag_error(diags, at, "world rule '%s': %s", p->w->world[i],
               tmp.count ? tmp.items[0].message : "invalid FSP");
  }
  lts_free(l);
  fsp_free(f);
  lts_labels_free(&labels);
  diag_free(&tmp);
  strbuf_free(&sb);
  return ok;
}

static bool is_value_of(const eofm_t *m, const eofm_var_t *v, const char *text) {
  long long x;
  char *end;
  if (v->type >= 0) {
    const eofm_type_t *t = &m->types.data[v->type];
    for (size_t k = 0; k < t->nvalues; k++)
      if (strcmp(t->values[k], text) == 0) return true;
    return false;
  }
  x = strtoll(text, &end, 10);
  if (*text && !*end) return x >= v->lo && x <= v->hi;
  return eofm_value(m, text, &x) && x >= v->lo && x <= v->hi;
}

/* FSP's spelling rules for the names the translation writes: constants
 * upper case, index variables and action labels lower case. */
static void check_spelling(const eofm_t *m, diag_list_t *diags) {
  for (size_t i = 0; i < m->types.len; i++)
    for (size_t k = 0; k < m->types.data[i].nvalues; k++)
      if (!isupper((unsigned char)m->types.data[i].values[k][0]))
        diag_error(
            diags, m->types.data[i].loc,
            "type value '%s' must start with an upper-case letter (the translation makes it an FSP constant)",
            m->types.data[i].values[k]);
  for (size_t i = 0; i < m->consts.len; i++)
    if (!isupper((unsigned char)m->consts.data[i].name[0]))
      diag_error(
          diags, m->consts.data[i].loc,
          "constant '%s' must start with an upper-case letter (the translation makes it an FSP constant)",
          m->consts.data[i].name);
  for (size_t i = 0; i < m->vars.len; i++)
    if (!islower((unsigned char)m->vars.data[i].name[0]))
      diag_error(diags, m->vars.data[i].loc,
                 "variable '%s' must start with a lower-case letter (the translation makes it an FSP index)",
                 m->vars.data[i].name);
  for (size_t i = 0; i < m->hactions.len; i++)
    if (!islower((unsigned char)m->hactions.data[i].name[0]))
      diag_error(
          diags, m->hactions.data[i].loc,
          "human action '%s' must start with a lower-case letter (the translation makes it an FSP action)",
          m->hactions.data[i].name);
}

static void check_world(eofm_plan_t *p, diag_list_t *diags) {
  const eofm_t *m = p->m;
  const eofm_world_t *w = p->w;
  check_spelling(m, diags);
  for (size_t i = 0; i < w->ninitial; i++) {
    int v = var_index(m, w->initial[i].name);
    if (v < 0 || m->vars.data[v].local) {
      diag_error(diags, w->initial[i].loc, "'%s' is not an input variable of the task model",
                 w->initial[i].name);
      continue;
    }
    if (!is_value_of(m, &m->vars.data[v], w->initial[i].value)) {
      diag_error(diags, w->initial[i].loc, "'%s' is not a value of '%s'", w->initial[i].value,
                 w->initial[i].name);
      continue;
    }
    p->init[v] = w->initial[i].value;
  }
  for (size_t i = 0; i < w->nrelabels; i++) {
    int a = -1;
    for (size_t k = 0; k < m->hactions.len; k++)
      if (strcmp(m->hactions.data[k].name, w->relabels[i].name) == 0) a = (int)k;
    if (a < 0)
      diag_error(diags, w->relabels[i].loc, "relabel of '%s', which is not a human action",
                 w->relabels[i].name);
    else if (!islower((unsigned char)w->relabels[i].value[0]))
      diag_error(diags, w->relabels[i].loc,
                 "relabel '%s' must start with a lower-case letter (an FSP action)", w->relabels[i].value);
    else
      p->action_labels[a] = w->relabels[i].value;
  }
  for (size_t i = 0; i < m->nodes.len; i++) {
    const eofm_node_t *nd = &m->nodes.data[i];
    if (nd->kind == EOFM_ACTIVITY && nd->op == EOFM_SYNC)
      diag_error(diags, nd->loc,
                 "activity '%s': the translation does not support operator 'sync' (as the reference tool)",
                 nd->name);
    if (nd->kind == EOFM_ACTION && nd->local >= 0 && !is_value_of(m, &m->vars.data[nd->local], nd->value))
      diag_error(diags, nd->loc, "'%s' is not a value of local variable '%s'", nd->value, nd->name);
  }
  for (size_t i = 0; i < m->vars.len; i++)
    if (m->vars.data[i].local && m->vars.data[i].initial) {
      if (!is_value_of(m, &m->vars.data[i], m->vars.data[i].initial))
        diag_error(diags, m->vars.data[i].loc, "initial value '%s' is not a value of '%s'",
                   m->vars.data[i].initial, m->vars.data[i].name);
      else
        p->init[i] = m->vars.data[i].initial;
    }
}

#define MAX_OCCURRENCES 100000

/* Activity links share activities; the translation unfolds them into a
 * tree. Reports when it would have more than MAX_OCCURRENCES nodes. */
static void check_unfolding(const eofm_t *m, diag_list_t *diags) {
  /* nodes are numbered parents first, except link targets: iterate to a fixpoint */
  double *size = xcalloc(m->nodes.len + 1, sizeof *size);
  for (size_t round = 0; round <= m->nodes.len; round++) {
    bool changed = false;
    for (size_t i = m->nodes.len; i-- > 0;) {
      double n = 1;
      for (size_t k = 0; k < m->nodes.data[i].children.len; k++) n += size[m->nodes.data[i].children.data[k]];
      if (n > 1e18) n = 1e18;
      if (n != size[i]) size[i] = n, changed = true;
    }
    if (!changed) break;
  }
  double total = 0;
  for (size_t i = 0; i < m->tops.len; i++) total += size[m->tops.data[i]];
  if (total > MAX_OCCURRENCES)
    diag_error(diags, m->nodes.data[m->tops.data[0]].loc,
               "the activity links unfold to more than %d activity and action occurrences", MAX_OCCURRENCES);
  free(size);
}

eofm_plan_t *eofm_plan_new(const eofm_t *m, const eofm_world_t *w, diag_list_t *diags) {
  static const eofm_world_t none = {0};
  eofm_plan_t *p = xcalloc(1, sizeof *p);
  arena_init(&p->arena);
  p->m = m;
  p->w = w ? w : &none;
  p->init = arena_alloc(&p->arena, (m->vars.len + 1) * sizeof *p->init);
  for (size_t i = 0; i < m->vars.len; i++) {
    const eofm_var_t *v = &m->vars.data[i];
    p->init[i] = v->type >= 0 ? m->types.data[v->type].values[0] : arena_printf(&p->arena, "%lld", v->lo);
  }
  p->action_labels = arena_alloc(&p->arena, (m->hactions.len + 1) * sizeof *p->action_labels);
  for (size_t i = 0; i < m->hactions.len; i++) p->action_labels[i] = m->hactions.data[i].name;
  size_t before = diag_error_count(diags);
  check_world(p, diags);
  for (size_t i = 0; diag_error_count(diags) == before && i < p->w->nworld; i++) check_world_rule(p, i, diags);
  if (diag_error_count(diags) == before) check_unfolding(m, diags);
  if (diag_error_count(diags) != before) {
    eofm_plan_delete(p);
    return NULL;
  }
  for (size_t i = 0; i < m->tops.len; i++) {
    int id = plan_node(p, m->tops.data[i], -1);
    VEC_PUSH(&p->tops, id);
  }
  return p;
}

void eofm_plan_delete(eofm_plan_t *p) {
  if (!p) return;
  for (size_t i = 0; i < p->inst.len; i++) VEC_FREE(&p->inst.data[i].kids);
  VEC_FREE(&p->inst);
  VEC_FREE(&p->tops);
  VEC_FREE(&p->prims);
  arena_free(&p->arena);
  free(p);
}

/* ------------------------------------------------------------ FSP text */

static bool wants(const eofm_errors_t *errs, const char *kind, const char *name) {
  if (!errs || !errs->enabled) return false;
  if (errs->nonly == 0) return true;
  char buf[512];
  snprintf(buf, sizeof buf, "%s_%s", kind, name);
  for (size_t i = 0; i < errs->nonly; i++)
    if (strcmp(errs->only[i], buf) == 0) return true;
  return false;
}

/* The action process: walks the execution states of every ancestor. */
/* The event of an action: its human action (relabelled), or for a
 * local-variable assignment eofm_set_<variable>_<value>. */
static const char *action_label(const eofm_plan_t *p, const eofm_node_t *nd, strbuf_t *buf) {
  if (nd->haction >= 0) return p->action_labels[nd->haction];
  strbuf_clear(buf);
  strbuf_printf(buf, "eofm_set_%s_%s", nd->name, nd->value);
  return strbuf_str(buf);
}

static void emit_action(const eofm_plan_t *p, int a, strbuf_t *sb) {
  const char *act = p->inst.data[a].name;
  strbuf_t buf;
  strbuf_init(&buf);
  const char *label = action_label(p, node_of(p, a), &buf);
  VEC(const char *) anc = {0};
  for (int x = p->inst.data[a].parent; x >= 0; x = p->inst.data[x].parent)
    VEC_PUSH(&anc, p->inst.data[x].name);
  size_t n = anc.len;
  for (size_t i = 0; i < n / 2; i++) {
    const char *t = anc.data[i];
    anc.data[i] = anc.data[n - 1 - i], anc.data[n - 1 - i] = t;
  }
  for (size_t i = 0; i < n; i++) {
    const char *name = anc.data[i], *nxt = i + 1 < n ? anc.data[i + 1] : "ACT";
    strbuf_printf(sb, "%s = (start_%s -> %s", i == 0 ? act : name, name, nxt);
    if (i > 0)
      strbuf_printf(sb, " | end_%s -> END_REPEAT_%s | skip_%s -> END_REPEAT_%s),\n", name, anc.data[i - 1],
                    name, anc.data[i - 1]);
    else
      strbuf_printf(sb, " | end_%s -> reset_%s -> %s),\n", name, name, act);
  }
  strbuf_printf(sb, "ACT = (%s -> END_REPEAT_%s),\n", label, anc.data[n - 1]);
  for (size_t k = n; k-- > 0;) {
    const char *name = anc.data[k], *nxt = k + 1 < n ? anc.data[k + 1] : "ACT";
    strbuf_printf(sb, "END_REPEAT_%s = (repeat_%s -> %s", name, name, nxt);
    if (k > 0)
      strbuf_printf(sb, " | end_%s -> END_REPEAT_%s),\n", name, anc.data[k - 1]);
    else
      strbuf_printf(sb, " | end_%s -> reset_%s -> %s).\n\n", name, name, act);
  }
  VEC_FREE(&anc);
  strbuf_free(&buf);
}

/* "start_X -> end_X -> T | end_X -> T" for every child X, joined by `sep`. */
static void seq_choices(strbuf_t *sb, const char *const *kids, size_t n, const char *target, bool skip) {
  for (size_t i = 0; i < n; i++) {
    strbuf_printf(sb, "%sstart_%s -> end_%s -> %s | end_%s -> %s", i ? "\n\t|\t" : "\t\t", kids[i], kids[i],
                  target, kids[i], target);
    if (skip) strbuf_printf(sb, " | skip_%s -> %s", kids[i], target);
  }
}

static void par_choices(strbuf_t *sb, const char *const *kids, size_t n, const char *target, bool skip) {
  for (size_t i = 0; i < n; i++) {
    strbuf_printf(sb, "%sstart_%s -> %s | end_%s -> %s", i ? "\n\t|\t" : "\t\t", kids[i], target, kids[i],
                  target);
    if (skip) strbuf_printf(sb, " | skip_%s -> %s", kids[i], target);
  }
}

static void skips(strbuf_t *sb, const char *const *kids, size_t n) {
  strbuf_puts(sb, "+{");
  for (size_t i = 0; i < n; i++) strbuf_printf(sb, "%sskip_%s", i ? ", " : "", kids[i]);
  strbuf_putc(sb, '}');
}

/* The decomposition operator's process; returns its name. */
static const char *emit_operator(eofm_plan_t *p, int a, strbuf_t *sb) {
  const inst_t *in = &p->inst.data[a];
  eofm_op_t op = node_of(p, a)->op;
  VEC(const char *) kids = {0};
  for (size_t i = 0; i < in->kids.len; i++) VEC_PUSH(&kids, p->inst.data[in->kids.data[i]].name);
  strbuf_t nm;
  strbuf_init(&nm);
  for (const char *s = eofm_op_name(op); *s; s++) strbuf_putc(&nm, (char)toupper((unsigned char)*s));
  for (size_t i = 0; i < kids.len; i++) strbuf_printf(&nm, "_%s", kids.data[i]);
  const char *name = arena_strdup(&p->arena, strbuf_str(&nm));
  strbuf_free(&nm);
  const char *const *k = kids.data;
  size_t n = kids.len;
  const char *parent = in->name;
  switch (op) {
  case EOFM_ORD:
    for (size_t i = 0; i < n; i++) {
      const char *target = i + 1 < n ? k[i + 1] : name;
      strbuf_printf(sb, "%s = (start_%s -> end_%s -> %s | end_%s -> %s)", i == 0 ? name : k[i], k[i], k[i],
                    target, k[i], target);
      if (i + 1 < n) strbuf_puts(sb, ",\n");
    }
    skips(sb, k, n);
    strbuf_puts(sb, ".\n\n");
    break;
  case EOFM_AND_SEQ:
    strbuf_printf(sb, "%s = (\n", name);
    seq_choices(sb, k, n, name, false);
    strbuf_puts(sb, "\n)");
    skips(sb, k, n);
    strbuf_puts(sb, ".\n\n");
    break;
  case EOFM_AND_PAR:
    strbuf_printf(sb, "%s = END", name);
    skips(sb, k, n);
    strbuf_puts(sb, ".\n\n");
    break;
  case EOFM_OR_SEQ:
  case EOFM_OR_PAR: {
    void (*choices)(strbuf_t *, const char *const *, size_t, const char *, bool) =
        op == EOFM_OR_SEQ ? seq_choices : par_choices;
    strbuf_printf(sb, "%s = (\n", name);
    choices(sb, k, n, "SKIP", false);
    strbuf_printf(sb, "\n\t|\tend_%s -> %s\n),\nSKIP = (\n", parent, name);
    choices(sb, k, n, "SKIP", true);
    strbuf_printf(sb, "\n\t|\trepeat_%s -> %s | end_%s -> %s\n).\n\n", parent, name, parent, name);
    break;
  }
  case EOFM_OPTOR_SEQ:
    strbuf_printf(sb, "%s = (\n", name);
    seq_choices(sb, k, n, name, true);
    strbuf_puts(sb, "\n).\n\n");
    break;
  case EOFM_OPTOR_PAR: strbuf_printf(sb, "%s = END.\n\n", name); break;
  case EOFM_XOR:
    strbuf_printf(sb, "%s = (\n", name);
    seq_choices(sb, k, n, "SKIP", false);
    strbuf_printf(sb, "\n\t|\tend_%s -> %s\n),\nSKIP = (", parent, name);
    for (size_t i = 0; i < n; i++) strbuf_printf(sb, "skip_%s -> SKIP | ", k[i]);
    strbuf_printf(sb, "repeat_%s -> %s | end_%s -> %s).\n\n", parent, name, parent, name);
    break;
  case EOFM_SYNC: /* rejected by eofm_plan_new */ break;
  }
  VEC_FREE(&kids);
  return name;
}

/* "(c1) && (c2)" of a condition list, or NULL when empty. */
static const char *conjunction(eofm_plan_t *p, const eofm_cond_t *c, size_t n) {
  if (n == 0) return NULL;
  strbuf_t sb;
  strbuf_init(&sb);
  for (size_t i = 0; i < n; i++) strbuf_printf(&sb, "%s(%s)", i ? " && " : "", c[i].fsp);
  const char *s = arena_strdup(&p->arena, strbuf_str(&sb));
  strbuf_free(&sb);
  return s;
}

/* The guard "g && !(c)" of start (g = preconditions) or repeat (g = repeat
 * conditions), or NULL when unconstrained. */
static const char *guard_with(eofm_plan_t *p, const char *g, const char *completion) {
  if (g && completion) return arena_printf(&p->arena, "%s && !(%s)", g, completion);
  if (g) return g;
  if (completion) return arena_printf(&p->arena, "!(%s)", completion);
  return NULL;
}

static void cond_branch(strbuf_t *sb, const char **tab, const char *guard, const char *event,
                        const char *name, const char *error, const char *vars) {
  if (guard)
    strbuf_printf(sb, "%swhen (%s) %s_%s -> VAR%s\n", *tab, guard, event, name, vars);
  else
    strbuf_printf(sb, "%s%s_%s -> VAR%s\n", *tab, event, name, vars);
  *tab = "\t|\t";
  if (guard && error) {
    strbuf_printf(sb, "%swhen (!(%s)) %s_%s -> %s_%s -> VAR%s\n", *tab, guard, event, name, error, name,
                  vars);
  }
}

/* A world rule with the local variables appended to each VAR[...] target
 * (the rules are written over the input variables only). */
static void append_world_rule(const eofm_t *m, const char *rule, strbuf_t *sb) {
  strbuf_t locals;
  strbuf_init(&locals);
  for (size_t i = 0; i < m->vars.len; i++)
    if (m->vars.data[i].local) strbuf_printf(&locals, "[%s]", m->vars.data[i].name);
  const char *s = rule;
  while (*s) {
    bool word_start = s == rule || !(isalnum((unsigned char)s[-1]) || s[-1] == '_');
    if (word_start && strncmp(s, "VAR", 3) == 0 && !(isalnum((unsigned char)s[3]) || s[3] == '_')) {
      strbuf_puts(sb, "VAR");
      s += 3;
      while (*s == '[') { /* copy the index groups, nested brackets included */
        int depth = 0;
        do {
          if (*s == '[') depth++;
          if (*s == ']') depth--;
          strbuf_putc(sb, *s++);
        } while (*s && depth > 0);
      }
      strbuf_puts(sb, strbuf_str(&locals));
    } else
      strbuf_putc(sb, *s++);
  }
  strbuf_free(&locals);
}

/* eofm_set_<l>_<V> -> VAR[...][V at l's place][...] for every assignment in the model. */
static void append_assignments(const eofm_plan_t *p, strbuf_t *sb, const char *tab) {
  const eofm_t *m = p->m;
  for (size_t i = 0; i < m->nodes.len; i++) {
    const eofm_node_t *nd = &m->nodes.data[i];
    if (nd->kind != EOFM_ACTION || nd->local < 0) continue;
    bool seen = false;
    for (size_t k = 0; k < i && !seen; k++)
      seen = m->nodes.data[k].kind == EOFM_ACTION && m->nodes.data[k].local == nd->local &&
             strcmp(m->nodes.data[k].value, nd->value) == 0;
    if (seen) continue;
    strbuf_printf(sb, "%seofm_set_%s_%s -> VAR", tab, nd->name, nd->value);
    tab = "\t|\t";
    for (size_t k = 0; k < 2 * m->vars.len; k++) {
      size_t v = k % m->vars.len;
      if (m->vars.data[v].local != (k >= m->vars.len)) continue;
      strbuf_printf(sb, "[%s]", (int)v == nd->local ? nd->value : m->vars.data[v].name);
    }
    strbuf_putc(sb, '\n');
  }
}

static const char *emit_condition(eofm_plan_t *p, int a, const eofm_errors_t *errs, strbuf_t *sb) {
  const eofm_node_t *nd = node_of(p, a);
  const char *name = p->inst.data[a].name;
  const char *pre = conjunction(p, nd->pre.data, nd->pre.len);
  const char *rep = conjunction(p, nd->repeat.data, nd->repeat.len);
  const char *comp = conjunction(p, nd->completion.data, nd->completion.len);
  strbuf_t vars;
  strbuf_init(&vars);
  append_vars(p->m, &vars, false, true);
  const char *cond = arena_printf(&p->arena, "%s_COND", name);
  strbuf_printf(sb, "%s = VAR", cond);
  append_init(p, sb, true);
  strbuf_puts(sb, ",\nVAR");
  append_vars(p->m, sb, true, true);
  strbuf_puts(sb, " = (\n");
  const char *tab = "\t\t";
  cond_branch(sb, &tab, guard_with(p, pre, comp), "start", name,
              wants(errs, "commission", name) ? "commission" : NULL, strbuf_str(&vars));
  cond_branch(sb, &tab, guard_with(p, rep, comp), "repeat", name,
              wants(errs, "repetition", name) ? "repetition" : NULL, strbuf_str(&vars));
  cond_branch(sb, &tab, comp, "end", name, wants(errs, "omission", name) ? "omission" : NULL,
              strbuf_str(&vars));
  for (size_t i = 0; i < p->w->nworld; i++) {
    strbuf_puts(sb, tab);
    append_world_rule(p->m, p->w->world[i], sb);
    strbuf_putc(sb, '\n');
    tab = "\t|\t";
  }
  append_assignments(p, sb, tab);
  strbuf_printf(sb, ")+{start_%s, repeat_%s, end_%s}.\n\n", name, name, name);
  strbuf_free(&vars);
  return cond;
}

/* Appends the processes of activity instance a and its subtree. */
static void emit_activity(eofm_plan_t *p, int a, const eofm_errors_t *errs, strbuf_t *sb) {
  const inst_t *in = &p->inst.data[a];
  const eofm_node_t *nd = node_of(p, a);
  VEC(const char *) procs = {0};
  bool leaf = in->kids.len == 1;
  for (size_t i = 0; i < in->kids.len; i++) {
    int kid = in->kids.data[i];
    if (node_of(p, kid)->kind == EOFM_ACTIVITY) {
      emit_activity(p, kid, errs, sb);
      leaf = false;
    } else {
      emit_action(p, kid, sb);
      VEC_PUSH(&p->prims, p->inst.data[kid].name);
    }
    VEC_PUSH(&procs, p->inst.data[kid].name);
  }
  if (!leaf) VEC_PUSH(&procs, emit_operator(p, a, sb));
  if (!leaf) VEC_PUSH(&p->prims, VEC_LAST(&procs));
  if (nd->pre.len || nd->repeat.len || nd->completion.len) VEC_PUSH(&procs, emit_condition(p, a, errs, sb));
  if (nd->pre.len || nd->repeat.len || nd->completion.len) VEC_PUSH(&p->prims, VEC_LAST(&procs));
  strbuf_printf(sb, "||%s = (", in->name);
  for (size_t i = 0; i < procs.len; i++) strbuf_printf(sb, "%s%s", i ? " || " : "", procs.data[i]);
  strbuf_puts(sb, ").\n\n");
  VEC_FREE(&procs);
}

char *eofm_plan_fsp(eofm_plan_t *p, const eofm_errors_t *errs) {
  strbuf_t sb;
  strbuf_init(&sb);
  VEC_CLEAR(&p->prims);
  append_declarations(p->m, &sb);
  for (size_t i = 0; i < p->tops.len; i++) emit_activity(p, p->tops.data[i], errs, &sb);
  strbuf_puts(&sb, "||ENV = (");
  for (size_t i = 0; i < p->tops.len; i++)
    strbuf_printf(&sb, "%s%s", i ? " || " : "", p->inst.data[p->tops.data[i]].name);
  strbuf_puts(&sb, ").\n");
  return strbuf_take(&sb);
}

/* ------------------------------------------------------------ LTS */

bool eofm_is_activity_event(const char *l) {
  return strncmp(l, "start_", 6) == 0 || strncmp(l, "end_", 4) == 0 || strncmp(l, "repeat_", 7) == 0 ||
         strncmp(l, "reset_", 6) == 0 || strncmp(l, "skip_", 5) == 0;
}

bool eofm_is_helper(const char *l) { return eofm_is_activity_event(l) || strncmp(l, "eofm_set_", 9) == 0; }

bool eofm_is_error(const char *l) {
  return strncmp(l, "omission_", 9) == 0 || strncmp(l, "commission_", 11) == 0 ||
         strncmp(l, "repetition_", 11) == 0;
}

/* LTSA's high priority (<<): in a state where an error event is enabled,
 * every other transition is dropped. */
static lts_t *error_priority(const lts_t *l) {
  lts_builder_t b;
  lts_builder_init(&b, l->labels);
  for (int s = 0; s < l->nstates; s++) lts_builder_add_state(&b);
  b.init = l->init;
  b.error = l->error;
  for (int i = 0; i < l->nalphabet; i++) lts_builder_alphabet_add(&b, l->alphabet[i]);
  for (int s = 0; s < l->nstates; s++) {
    bool urgent = false;
    for (int t = l->succ_off[s]; t < l->succ_off[s + 1] && !urgent; t++)
      urgent = eofm_is_error(lts_label_name(l->labels, l->succ_label[t]));
    for (int t = l->succ_off[s]; t < l->succ_off[s + 1]; t++)
      if (!urgent || eofm_is_error(lts_label_name(l->labels, l->succ_label[t])))
        lts_builder_add(&b, s, l->succ_label[t], l->succ_dst[t]);
  }
  lts_t *frozen = lts_freeze(&b);
  lts_builder_free(&b);
  lts_t *r = lts_reachable(frozen);
  lts_free(frozen);
  return r;
}

lts_t *eofm_translate(eofm_plan_t *p, const eofm_errors_t *errs, lts_labels_t *labels, int max_states,
                      bool *exceeded, diag_list_t *diags) {
  char *text = eofm_plan_fsp(p, errs);
  char *name = xasprintf("%s (translated)", p->m->path);
  fsp_file_t *f = fsp_parse_string(name, text, labels, diags);
  *exceeded = false;
  /* ENV flattened: its primitive processes composed at once, under the budget */
  VEC(lts_t *) parts = {0};
  bool ok = f != NULL;
  for (size_t i = 0; ok && i < p->prims.len; i++) {
    lts_t *part = fsp_compile(f, p->prims.data[i], diags);
    if (part)
      VEC_PUSH(&parts, part);
    else
      ok = false;
  }
  lts_t *l = ok ? lts_compose_max((const lts_t *const *)parts.data, (int)parts.len, max_states, 0) : NULL;
  if (ok && !l) *exceeded = true;
  for (size_t i = 0; i < parts.len; i++) lts_free(parts.data[i]);
  VEC_FREE(&parts);
  fsp_free(f);
  free(name);
  free(text);
  if (l && errs && errs->enabled) {
    lts_t *q = error_priority(l);
    lts_free(l);
    l = q;
  }
  return l;
}

size_t eofm_plan_top_count(const eofm_plan_t *p) { return p->tops.len; }

const char *eofm_plan_top_name(const eofm_plan_t *p, size_t i) { return p->inst.data[p->tops.data[i]].name; }

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int *eofm_plan_actions(const eofm_plan_t *p, lts_labels_t *labels, int *n) {
  int *out = xmalloc((p->m->hactions.len + 1) * sizeof *out);
  int k = 0;
  for (size_t i = 0; i < p->m->hactions.len; i++) {
    int l = lts_label(labels, p->action_labels[i]);
    bool dup = false;
    for (int j = 0; j < k; j++) dup |= out[j] == l;
    if (!dup) out[k++] = l;
  }
  qsort(out, (size_t)k, sizeof *out, cmp_int);
  *n = k;
  return out;
}
