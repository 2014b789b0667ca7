/* The report's verify section: summary, the ISM drawn with the chosen
 * counterexample's path highlighted, the failure classes, the scatter plot
 * of a simulate result of the same model, and every counterexample as a
 * step table (the top of each class first). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/graph_svg.h"
#include "apps/report_html.h"
#include "ism/expr.h"

static int rule_index(const ism_model_t *m, const char *id) {
  for (size_t r = 0; m && r < m->nrules; r++)
    if (strcmp(m->rules[r].id, id) == 0) return (int)r;
  return -1;
}

static int state_index(const ism_model_t *m, const char *name) {
  for (size_t q = 0; m && q < m->nstates; q++)
    if (strcmp(m->states[q], name) == 0) return (int)q;
  return -1;
}

/* Marks in rule_on/state_on the rules and states of counterexample c. */
static void path_marks(const ism_model_t *m, const json_t *c, bool *rule_on, bool *state_on) {
  const json_t *path = json_array(c, "path"), *states = json_array(c, "states");
  for (size_t k = 0; path && k < path->len; k++) {
    int r = path->items[k]->kind == JSON_STRING ? rule_index(m, path->items[k]->text) : -1;
    if (r >= 0) rule_on[r] = true;
  }
  for (size_t k = 0; states && k < states->len; k++) {
    int q = states->items[k]->kind == JSON_STRING ? state_index(m, states->items[k]->text) : -1;
    if (q >= 0) state_on[q] = true;
  }
}

/* "r0 [when] / act, act" */
static char *rule_label(const ism_model_t *m, const ism_rule_t *r) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_puts(&sb, r->id);
  char *when = expr_to_string(r->when, &m->scope);
  if (strcmp(when, "true") != 0) strbuf_printf(&sb, "\n[%s]", when);
  free(when);
  bool first = true;
  for (size_t k = 0; k < r->nsteps; k++)
    if (r->steps[k].kind == ISM_STEP_ACTION) {
      strbuf_printf(&sb, "%s%s", first ? "\n/ " : ", ", m->actions[r->steps[k].action].name);
      first = false;
    }
  return strbuf_take(&sb);
}

static void machine(const report_section_t *s, const json_t *chosen) {
  const ism_model_t *m = s->model;
  bool *rule_on = xcalloc(m->nrules + 1, sizeof *rule_on),
       *state_on = xcalloc(m->nstates + 1, sizeof *state_on);
  if (chosen) path_marks(m, chosen, rule_on, state_on);
  strbuf_t dot, list;
  strbuf_init(&dot);
  strbuf_init(&list);
  strbuf_puts(&dot,
              "digraph ism {\n  rankdir=LR;\n  node [shape=ellipse, fontname=\"Helvetica\", fontsize=11];\n"
              "  edge [fontname=\"Helvetica\", fontsize=10];\n  start [shape=point, label=\"\"];\n");
  for (size_t q = 0; q < m->nstates; q++) {
    strbuf_printf(&dot, "  s%zu [id=\"%s-state-%zu\", label=", q, s->id, q);
    graph_dot_string(&dot, m->states[q]);
    strbuf_printf(&dot, "%s];\n", state_on[q] ? ", class=\"hl\"" : "");
  }
  strbuf_printf(&dot, "  start -> s%d;\n", m->initial);
  strbuf_puts(&list, "<ul class=\"edges\">\n");
  for (size_t r = 0; r < m->nrules; r++) {
    const ism_rule_t *rule = &m->rules[r];
    char *label = rule_label(m, rule);
    strbuf_printf(&dot, "  s%d -> s%d [id=\"%s-rule-%zu\", label=", rule->from, rule->to, s->id, r);
    graph_dot_string(&dot, label);
    strbuf_printf(&dot, "%s];\n", rule_on[r] ? ", class=\"hl\"" : "");
    strbuf_printf(&list, "<li id=\"%s-rule-%zu\"%s><span class=\"cond\">", s->id, r,
                  rule_on[r] ? " class=\"hl\"" : "");
    report_text(&list, label);
    strbuf_puts(&list, "</span> (");
    report_text(&list, m->states[rule->from]);
    strbuf_puts(&list, " \xe2\x86\x92 ");
    report_text(&list, m->states[rule->to]);
    strbuf_puts(&list, ")</li>\n");
    free(label);
  }
  strbuf_puts(&dot, "}\n");
  strbuf_puts(&list, "</ul>\n");
  strbuf_puts(s->sb,
              "<h3>The state machine</h3>\n<p class=\"meta\">Rules are edges labelled with their condition "
              "on sensed values and their actions; the chosen counterexample's path is red.</p>\n");
  char fig[48];
  snprintf(fig, sizeof fig, "%s-machine", s->id);
  report_drawing(s->sb, fig, strbuf_str(&dot), strbuf_str(&list));
  strbuf_free(&dot);
  strbuf_free(&list);
  free(rule_on);
  free(state_on);
}

static void summary(strbuf_t *sb, const json_t *root) {
  const char *verdict = json_str(root, "verdict", "?");
  strbuf_puts(sb, "<table class=\"summary\">\n<tr><th>verdict</th><td><span class=\"verdict ");
  report_text(sb, verdict);
  strbuf_puts(sb, "\">");
  report_text(sb, verdict);
  strbuf_puts(sb, "</span></td></tr>\n");
  report_row(sb, "mode", json_get(root, "mode"));
  report_row(sb, "bound", json_get(root, "bound"));
  report_row(sb, "reason", json_get(root, "reason"));
  report_row(sb, "counterexamples", json_get(root, "total_counterexamples"));
  report_row(sb, "boundary-only", json_get(root, "boundary_only_counterexamples"));
  report_row(sb, "below --min-prob", json_get(root, "below_min_prob"));
  report_row(sb, "probabilities", json_get(root, "estimator"));
  report_row(sb, "search", json_get(root, "stats"));
  strbuf_puts(sb, "</table>\n");
}

static void failure_text(strbuf_t *sb, const json_t *f) {
  const char *action = json_str(f, "action", NULL);
  strbuf_puts(sb, "<span class=\"cond\">");
  report_text(sb, action ? action : "failure");
  strbuf_puts(sb, ": ");
  report_text(sb, json_str(f, "condition", "?"));
  strbuf_puts(sb, "</span>");
}

static void classes(const report_section_t *s, const json_t *cls) {
  strbuf_t *sb = s->sb;
  strbuf_puts(sb,
              "<h3>Failure classes</h3>\n<p class=\"meta\">A class is a last rule and a failure; most likely "
              "first.</p>\n<table class=\"data classes\"><thead><tr><th>class</th><th>last rule</th>"
              "<th>failure</th><th>counterexamples</th><th>boundary-only</th><th>most likely</th>"
              "<th>probability</th></tr></thead><tbody>\n");
  for (size_t k = 0; k < cls->len; k++) {
    const json_t *c = cls->items[k];
    strbuf_printf(sb, "<tr class=\"failure-class\" id=\"%s-class-%zu\"><td>%zu</td><td>", s->id, k + 1,
                  k + 1);
    report_text(sb, json_str(c, "rule", "?"));
    strbuf_puts(sb, "</td><td>");
    failure_text(sb, c);
    strbuf_puts(sb, "</td><td>");
    report_value(sb, json_get(c, "count"));
    strbuf_puts(sb, "</td><td>");
    report_value(sb, json_get(c, "boundary_only"));
    double top = json_num(c, "top", 0);
    strbuf_printf(sb, "</td><td><a href=\"#%s-cex-%.0f\">counterexample %.0f</a></td><td>", s->id, top, top);
    const json_t *p = json_get(c, "probability");
    if (p && p->kind == JSON_NUMBER)
      report_number(sb, p->number, true);
    else
      report_value(sb, p);
    strbuf_puts(sb, "</td></tr>\n");
  }
  strbuf_puts(sb, "</tbody></table>\n");
}

/* One cell: the true value, and the sensed one after it when there is one. */
static void value_cell(strbuf_t *sb, const json_t *truth, const json_t *sensed) {
  strbuf_puts(sb, "<td>");
  if (truth && truth->kind == JSON_NUMBER)
    report_number(sb, truth->number, true);
  else
    report_value(sb, truth);
  if (sensed) {
    bool differs = truth && sensed->kind == JSON_NUMBER && truth->kind == JSON_NUMBER
                       ? sensed->number != truth->number
                       : !(truth && sensed->kind == truth->kind && sensed->boolean == truth->boolean);
    strbuf_printf(sb, " <span class=\"sensed%s\" title=\"sensed\">~", differs ? " differs" : "");
    if (sensed->kind == JSON_NUMBER)
      report_number(sb, sensed->number, true);
    else
      report_value(sb, sensed);
    strbuf_puts(sb, "</span>");
  }
  strbuf_puts(sb, "</td>");
}

static void actual_cell(strbuf_t *sb, const json_t *actual) {
  strbuf_puts(sb, "<td>");
  for (size_t a = 0; actual && a < actual->len; a++) {
    const json_t *x = actual->items[a];
    if (a) strbuf_puts(sb, "<br/>");
    report_text(sb, json_str(x, "action", "?"));
    strbuf_puts(sb, ": ");
    report_text(sb, json_str(x, "variable", "?"));
    strbuf_puts(sb, " assumed ");
    report_number(sb, json_num(x, "assumed", NAN), true);
    strbuf_puts(sb, ", actual ");
    report_number(sb, json_num(x, "value", NAN), true);
  }
  strbuf_puts(sb, "</td>");
}

static void steps_table(strbuf_t *sb, const json_t *c) {
  const json_t *steps = json_array(c, "steps"), *final = json_get(c, "final");
  const json_t *vars = json_get(final, "true");
  if (!steps || !vars || vars->kind != JSON_OBJECT) return;
  strbuf_puts(sb, "<table class=\"data steps\"><thead><tr><th>step</th><th>state</th><th>rule</th>");
  for (size_t v = 0; v < vars->len; v++) {
    strbuf_puts(sb, "<th>");
    report_text(sb, vars->keys[v]);
    strbuf_puts(sb, "</th>");
  }
  strbuf_puts(sb, "<th>actuation</th></tr></thead><tbody>\n");
  for (size_t k = 0; k < steps->len; k++) {
    const json_t *st = steps->items[k];
    strbuf_puts(sb, "<tr><td>");
    report_value(sb, json_get(st, "step"));
    strbuf_puts(sb, "</td><td>");
    report_text(sb, json_str(st, "state", "?"));
    strbuf_puts(sb, "</td><td>");
    report_text(sb, json_str(st, "rule", "?"));
    strbuf_puts(sb, "</td>");
    for (size_t v = 0; v < vars->len; v++)
      value_cell(sb, json_get(json_get(st, "true"), vars->keys[v]),
                 json_get(json_get(st, "sensed"), vars->keys[v]));
    actual_cell(sb, json_array(st, "actual"));
    strbuf_puts(sb, "</tr>\n");
  }
  strbuf_puts(sb, "<tr class=\"fail\"><td>after</td><td>");
  report_text(sb, json_str(final, "state", "?"));
  strbuf_puts(sb, "</td><td></td>");
  for (size_t v = 0; v < vars->len; v++) value_cell(sb, vars->items[v], NULL);
  strbuf_puts(sb, "<td></td></tr>\n</tbody></table>\n");
}

/* The ids of c's rules and states in the machine drawing, for its button. */
static void path_ids(strbuf_t *sb, const report_section_t *s, const json_t *c) {
  const ism_model_t *m = s->model;
  bool *rule_on = xcalloc(m->nrules + 1, sizeof *rule_on),
       *state_on = xcalloc(m->nstates + 1, sizeof *state_on);
  path_marks(m, c, rule_on, state_on);
  bool first = true;
  for (size_t r = 0; r < m->nrules; r++)
    if (rule_on[r]) strbuf_printf(sb, "%s%s-rule-%zu", first ? "" : " ", s->id, r), first = false;
  for (size_t q = 0; q < m->nstates; q++)
    if (state_on[q]) strbuf_printf(sb, "%s%s-state-%zu", first ? "" : " ", s->id, q), first = false;
  free(rule_on);
  free(state_on);
}

static void counterexample(const report_section_t *s, const json_t *c, bool open) {
  strbuf_t *sb = s->sb;
  double id = json_num(c, "id", 0);
  strbuf_printf(sb, "<details class=\"cex%s\" id=\"%s-cex-%.0f\"%s>\n<summary>counterexample %.0f: ",
                open ? " current" : "", s->id, id, open ? " open=\"open\"" : "", id);
  const json_t *path = json_array(c, "path"), *states = json_array(c, "states");
  for (size_t k = 0; states && k < states->len; k++) {
    if (k) {
      strbuf_puts(sb, " \xe2\x80\x94");
      if (path && k - 1 < path->len) report_value(sb, path->items[k - 1]);
      strbuf_puts(sb, "\xe2\x86\x92 ");
    }
    report_value(sb, states->items[k]);
  }
  const json_t *p = json_get(c, "probability");
  if (json_bool(c, "boundary_only", false)) {
    strbuf_puts(sb, "; boundary-only (probability 0)");
  } else if (p && p->kind == JSON_NUMBER) {
    strbuf_puts(sb, "; probability ");
    report_number(sb, p->number, true);
    double err = json_num(c, "probability_error", 0);
    if (err > 0) {
      strbuf_puts(sb, " (\xc2\xb1 ");
      strbuf_printf(sb, "%.2g)", err);
    }
  }
  const json_t *f = json_get(c, "failure");
  strbuf_puts(sb, "</summary>\n<p>fails at step ");
  report_value(sb, json_get(f, "step"));
  strbuf_puts(sb, " (rule ");
  report_text(sb, json_str(f, "rule", "?"));
  strbuf_puts(sb, "): ");
  failure_text(sb, f);
  if (s->model) {
    strbuf_printf(sb, " <button type=\"button\" class=\"show\" data-figure=\"%s-machine\" data-ids=\"",
                  s->id);
    path_ids(sb, s, c);
    strbuf_puts(sb, "\">show on the drawing</button>");
  }
  strbuf_puts(sb,
              "</p>\n<p class=\"meta\">True values at each sensing, <span class=\"sensed\">~sensed</span> "
              "after them (bold where they differ); the last row holds the true values after the last "
              "rule.</p>\n");
  steps_table(sb, c);
  strbuf_puts(sb, "</details>\n");
}

/* The first simulate result of the same model, or NULL. */
static const json_t *simulation_of(const report_section_t *s, const json_t *root) {
  const char *model = json_str(root, "model", "");
  for (size_t i = 0; i < s->n; i++) {
    const json_t *r = s->in[i].root;
    if (json_get(r, "rows") && json_get(r, "spearman") && strcmp(json_str(r, "model", ""), model) == 0) return r;
  }
  return NULL;
}

void report_verify(const report_section_t *s, const json_t *root) {
  strbuf_t *sb = s->sb;
  summary(sb, root);
  const json_t *cexs = json_array(root, "counterexamples"), *cls = json_array(root, "classes");
  size_t n = cexs ? cexs->len : 0;
  /* the chosen counterexample: the most likely of the most likely class */
  const json_t *chosen = n ? cexs->items[0] : NULL;
  if (cls && cls->len)
    for (size_t k = 0; k < n; k++)
      if (json_num(cexs->items[k], "id", -1) == json_num(cls->items[0], "top", -2)) chosen = cexs->items[k];
  if (s->model)
    machine(s, chosen);
  else
    strbuf_puts(sb, "<p class=\"meta\">(Give the model with --model to see the state machine drawn.)</p>\n");
  if (cls && cls->len) classes(s, cls);
  const json_t *sim = simulation_of(s, root);
  if (sim) {
    char id[48];
    snprintf(id, sizeof id, "%s-sim", s->id);
    report_section_t t = *s;
    t.id = id;
    report_simulate(&t, sim);
  }
  if (!n) return;
  strbuf_printf(
      sb, "<h3>Counterexamples</h3>\n<p class=\"meta\">%zu shown, the most likely of each class first.</p>\n",
      n);
  bool *done = xcalloc(n + 1, sizeof *done);
  for (size_t k = 0; cls && k < cls->len; k++)
    for (size_t j = 0; j < n; j++)
      if (!done[j] && json_num(cexs->items[j], "id", -1) == json_num(cls->items[k], "top", -2)) {
        counterexample(s, cexs->items[j], cexs->items[j] == chosen);
        done[j] = true;
      }
  for (size_t j = 0; j < n; j++)
    if (!done[j]) counterexample(s, cexs->items[j], cexs->items[j] == chosen);
  free(done);
}
