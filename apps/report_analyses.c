/* The report's sections of the LTS analyses and Event-B: robustness (the
 * representative traces drawn as a tree of deviations, explanations),
 * envelope (each maximal deviation set drawn), masking (the refuter's
 * play) and eventb (the checks with their witnesses). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/compartment_svg.h"
#include "apps/graph_svg.h"
#include "apps/report_html.h"

enum { MAX_DRAWN_TRACES = 60, MAX_DRAWN_DELTAS = 8, MAX_DRAWN_TRANSITIONS = 300 };

static void open_summary(strbuf_t *sb) { strbuf_puts(sb, "<table class=\"summary\">\n"); }

static void close_table(strbuf_t *sb) { strbuf_puts(sb, "</table>\n"); }

static void verdict_row(strbuf_t *sb, const char *key, const char *cls, const char *text) {
  strbuf_puts(sb, "<tr><th>");
  report_text(sb, key);
  strbuf_printf(sb, "</th><td><span class=\"verdict %s\">", cls);
  report_text(sb, text);
  strbuf_puts(sb, "</span></td></tr>\n");
}

/* ---- robustness ---- */

static void transition_text(strbuf_t *sb, const json_t *t) {
  strbuf_putc(sb, '(');
  for (size_t i = 0; t->kind == JSON_ARRAY && i < t->len; i++) {
    if (i) strbuf_puts(sb, ", ");
    report_value(sb, t->items[i]);
  }
  strbuf_putc(sb, ')');
}

/* Labels as "a, b, c" with the faults of `faults` marked. */
static void label_list(strbuf_t *sb, const json_t *labels, const json_t *faults) {
  for (size_t i = 0; labels && i < labels->len; i++) {
    const json_t *l = labels->items[i];
    bool fault = false;
    for (size_t f = 0; faults && f < faults->len && l->kind == JSON_STRING; f++)
      fault |= faults->items[f]->kind == JSON_STRING && strcmp(faults->items[f]->text, l->text) == 0;
    if (i) strbuf_puts(sb, ", ");
    if (fault) strbuf_puts(sb, "<span class=\"fault\">");
    report_value(sb, l);
    if (fault) strbuf_puts(sb, "</span>");
  }
}

/* The representative traces as a prefix tree: each trace's last action is
 * the deviation (red) that leads out of the weakest assumption's normal
 * behaviour. */
static void trace_tree(const report_section_t *s, const json_t *traces, const char *name) {
  size_t n = traces->len < MAX_DRAWN_TRACES ? traces->len : MAX_DRAWN_TRACES;
  if (!n) return;
  size_t cap = 1, count = 1;
  for (size_t t = 0; t < n; t++) {
    const json_t *tr = json_array(traces->items[t], "trace");
    cap += tr ? tr->len : 0;
  }
  int *parent = xcalloc(cap, sizeof *parent);
  const char **label = xcalloc(cap, sizeof *label);
  bool *last = xcalloc(cap, sizeof *last);
  strbuf_t dot, list;
  strbuf_init(&dot);
  strbuf_init(&list);
  strbuf_puts(&dot,
              "digraph traces {\n  rankdir=LR;\n  node [shape=circle, width=0.15, label=\"\", style=filled, "
              "fillcolor=\"#90a4ae\", color=\"#90a4ae\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n"
              "  n0 [fillcolor=black, color=black];\n");
  strbuf_puts(&list, "<ol>\n");
  for (size_t t = 0; t < n; t++) {
    const json_t *tr = json_array(traces->items[t], "trace");
    size_t at = 0;
    for (size_t k = 0; tr && k < tr->len; k++) {
      const char *l = tr->items[k]->kind == JSON_STRING ? tr->items[k]->text : "?";
      size_t next = 0;
      for (size_t c = 1; c < count && !next; c++)
        if (parent[c] == (int)at && strcmp(label[c], l) == 0) next = c;
      if (!next) {
        next = count++;
        parent[next] = (int)at, label[next] = l;
      }
      if (k + 1 == tr->len) last[next] = true;
      at = next;
    }
    strbuf_puts(&list, "<li>");
    label_list(&list, tr, NULL);
    strbuf_puts(&list, "</li>\n");
  }
  for (size_t c = 1; c < count; c++) {
    if (last[c]) strbuf_printf(&dot, "  n%zu [fillcolor=\"#d62728\", color=\"#d62728\"];\n", c);
    strbuf_printf(&dot, "  n%d -> n%zu [label=", parent[c], c);
    graph_dot_string(&dot, label[c]);
    strbuf_puts(&dot, last[c] ? ", color=\"#d62728\", fontcolor=\"#d62728\"];\n" : "];\n");
  }
  strbuf_puts(&dot, "}\n");
  strbuf_puts(&list, "</ol>\n");
  strbuf_puts(s->sb,
              "<p class=\"meta\">The traces as a tree from the initial state (black); the last action of "
              "each (red) is the deviation the system tolerates.</p>\n");
  if (n < traces->len)
    strbuf_printf(s->sb, "<p class=\"meta\">(%zu of %zu traces drawn.)</p>\n", n, traces->len);
  char id[64];
  snprintf(id, sizeof id, "%s-%s-tree", s->id, name);
  report_drawing(s->sb, id, strbuf_str(&dot), strbuf_str(&list));
  strbuf_free(&dot);
  strbuf_free(&list);
  free(parent);
  free(label);
  free(last);
}

static void traces_table(const report_section_t *s, const json_t *traces, const char *name) {
  strbuf_t *sb = s->sb;
  strbuf_puts(sb, "<table class=\"data traces\"><thead><tr><th>#</th><th>trace</th><th>explanation</th>"
                  "<th>faults</th></tr></thead><tbody>\n");
  for (size_t k = 0; k < traces->len; k++) {
    const json_t *t = traces->items[k], *faults = json_array(t, "faults");
    strbuf_printf(sb, "<tr class=\"trace\" id=\"%s-%s-%zu\"><td>%zu</td><td>", s->id, name, k + 1, k + 1);
    label_list(sb, json_array(t, "trace"), NULL);
    strbuf_puts(sb, "</td><td>");
    const json_t *e = json_get(t, "explanation");
    if (e && e->kind == JSON_ARRAY)
      label_list(sb, e, faults);
    else
      strbuf_puts(sb, "<span class=\"meta\">unexplained</span>");
    strbuf_puts(sb, "</td><td>");
    label_list(sb, faults, faults);
    strbuf_puts(sb, "</td></tr>\n");
  }
  strbuf_puts(sb, "</tbody></table>\n");
}

static void trace_group(const report_section_t *s, const json_t *g, const char *name, const char *title) {
  const json_t *traces = json_array(g, "traces");
  if (!traces) return;
  strbuf_puts(s->sb, "<h3>");
  report_text(s->sb, title);
  strbuf_puts(s->sb, "</h3>\n<p>");
  report_value(s->sb, json_get(g, "classes"));
  strbuf_puts(s->sb, " classes of deviations, one representative trace each.</p>\n");
  if (!traces->len) return;
  trace_tree(s, traces, name);
  traces_table(s, traces, name);
}

/* The weakest assumption as robustness --format dot draws it: states by
 * number, the initial one blue, the error state π red. */
static void weakest_assumption(const report_section_t *s, const json_t *lts) {
  const json_t *trans = json_array(lts, "transitions");
  if (!trans) return;
  strbuf_puts(s->sb, "<h3>The weakest assumption</h3>\n");
  if (trans->len > MAX_DRAWN_TRANSITIONS) {
    strbuf_printf(s->sb,
                  "<p class=\"meta\">(%zu transitions: too many to draw; robustness --format dot draws "
                  "it.)</p>\n",
                  trans->len);
    return;
  }
  double init = json_num(lts, "initial", -1), error = json_num(lts, "error", -1);
  strbuf_t dot, list;
  strbuf_init(&dot);
  strbuf_init(&list);
  strbuf_printf(
      &dot,
      "digraph wa {\n  rankdir=LR;\n  node [shape=circle, fontname=\"Helvetica\", fontsize=11];\n"
      "  edge [fontname=\"Helvetica\", fontsize=10];\n  \"%.0f\" [style=filled, fillcolor=lightblue];\n",
      init);
  if (error >= 0)
    strbuf_printf(&dot, "  \"%.0f\" [label=\"\xcf\x80\", style=filled, fillcolor=lightcoral];\n", error);
  strbuf_puts(&list, "<p>");
  for (size_t i = 0; i < trans->len; i++) {
    const json_t *t = trans->items[i];
    if (t->kind != JSON_ARRAY || t->len != 3 || t->items[0]->kind != JSON_NUMBER ||
        t->items[2]->kind != JSON_NUMBER)
      continue;
    strbuf_printf(&dot, "  \"%.0f\" -> \"%.0f\" [label=", t->items[0]->number, t->items[2]->number);
    graph_dot_string(&dot, t->items[1]->kind == JSON_STRING ? t->items[1]->text : "?");
    strbuf_puts(&dot, "];\n");
    if (i) strbuf_puts(&list, ", ");
    transition_text(&list, t);
  }
  strbuf_puts(&dot, "}\n");
  strbuf_puts(&list, "</p>\n");
  char id[64];
  snprintf(id, sizeof id, "%s-wa", s->id);
  report_drawing(s->sb, id, strbuf_str(&dot), strbuf_str(&list));
  strbuf_free(&dot);
  strbuf_free(&list);
}

void report_robustness(const report_section_t *s, const json_t *root) {
  strbuf_t *sb = s->sb;
  const json_t *wa = json_get(root, "weakest_assumption"), *nv = json_get(root, "normal_violation");
  open_summary(sb);
  bool violated = nv && nv->kind == JSON_ARRAY;
  verdict_row(sb, "normal behaviour", violated ? "violated" : "verified",
              violated ? "violates the property" : "satisfies the property");
  report_row(sb, "violating trace", violated ? nv : NULL);
  report_row(sb, "system", json_get(root, "system"));
  report_row(sb, "environment", json_get(root, "environment"));
  report_row(sb, "weakest assumption", wa);
  report_row(sb, "interface", json_get(root, "interface"));
  report_row(sb, "classes", json_get(root, "classes"));
  report_row(sb, "compared", json_get(root, "compare"));
  close_table(sb);
  const json_t *lts = json_get(root, "weakest_assumption_lts");
  if (lts && lts->kind == JSON_OBJECT) weakest_assumption(s, lts);
  trace_group(s, root, "trace", "Deviations the weakest assumption allows");
  trace_group(s, json_get(root, "a_not_b"), "a-not-b", "Tolerated by A, not by B");
  trace_group(s, json_get(root, "b_not_a"), "b-not-a", "Tolerated by B, not by A");
}

/* ---- envelope ---- */

/* Whether transition t is one of `normal` (the environment's own). */
static bool is_normal(const json_t *normal, const json_t *t) {
  for (size_t i = 0; normal && i < normal->len; i++) {
    const json_t *n = normal->items[i];
    bool same = n->kind == JSON_ARRAY && n->len == 3 && t->len == 3;
    for (size_t j = 0; same && j < 3; j++)
      same = n->items[j]->text && t->items[j]->text && strcmp(n->items[j]->text, t->items[j]->text) == 0;
    if (same) return true;
  }
  return false;
}

/* One d: the environment's own transitions black, the deviations green
 * (all green when the JSON does not say which are the environment's). */
static void delta(const report_section_t *s, const json_t *d, size_t k, const char *name,
                  const json_t *normal) {
  strbuf_t dot, list;
  strbuf_init(&dot);
  strbuf_init(&list);
  strbuf_puts(&dot,
              "digraph delta {\n  rankdir=LR;\n  node [shape=circle, fontname=\"Helvetica\", fontsize=11];\n"
              "  edge [fontname=\"Helvetica\", fontsize=10];\n");
  strbuf_puts(&list, "<p>");
  size_t deviations = 0;
  for (size_t i = 0; i < d->len; i++) {
    const json_t *t = d->items[i];
    if (t->kind == JSON_ARRAY && t->len == 3) {
      bool own = is_normal(normal, t);
      deviations += !own;
      strbuf_puts(&dot, "  ");
      graph_dot_string(&dot, t->items[0]->text ? t->items[0]->text : "?");
      strbuf_puts(&dot, " -> ");
      graph_dot_string(&dot, t->items[2]->text ? t->items[2]->text : "?");
      strbuf_puts(&dot, " [label=");
      graph_dot_string(&dot, t->items[1]->text ? t->items[1]->text : "?");
      strbuf_puts(&dot, own ? "];\n" : ", color=\"#2e7d32\", fontcolor=\"#2e7d32\"];\n");
    }
    if (i) strbuf_puts(&list, ", ");
    transition_text(&list, t);
  }
  strbuf_puts(&dot, "}\n");
  strbuf_puts(&list, "</p>\n");
  strbuf_printf(s->sb, "<h4 class=\"delta\" id=\"%s-%s-%zu\">d%zu: %zu transitions", s->id, name, k + 1,
                k + 1, d->len);
  if (normal) strbuf_printf(s->sb, ", %zu deviations", deviations);
  strbuf_puts(s->sb, "</h4>\n");
  char id[64];
  snprintf(id, sizeof id, "%s-%s-%zu-drawing", s->id, name, k + 1);
  if (k < MAX_DRAWN_DELTAS)
    report_drawing(s->sb, id, strbuf_str(&dot), strbuf_str(&list));
  else
    strbuf_puts(s->sb, strbuf_str(&list));
  strbuf_free(&dot);
  strbuf_free(&list);
}

static void deltas(const report_section_t *s, const json_t *ds, const char *name, const char *title,
                   const json_t *normal) {
  if (!ds) return;
  strbuf_puts(s->sb, "<h3>");
  report_text(s->sb, title);
  strbuf_printf(
      s->sb,
      "</h3>\n<p class=\"meta\">%zu maximal sets d of environment transitions (src, action, dst) under "
      "which the controller stays safe, largest first; the first %d drawn, deviations green, the "
      "environment's own transitions black.</p>\n",
      ds->len, MAX_DRAWN_DELTAS);
  for (size_t k = 0; k < ds->len; k++)
    if (ds->items[k]->kind == JSON_ARRAY) delta(s, ds->items[k], k, name, normal);
}

void report_envelope(const report_section_t *s, const json_t *root) {
  strbuf_t *sb = s->sb;
  open_summary(sb);
  const json_t *verdict = json_get(root, "verdict"); /* the envelope's word (docs/json.md) */
  if (verdict && verdict->kind == JSON_STRING) verdict_row(sb, "verdict", "", verdict->text);
  const json_t *comparison = json_get(root, "comparison"); /* with compare: */
  if (comparison && comparison->kind == JSON_STRING) verdict_row(sb, "comparison", "", comparison->text);
  report_row(sb, "environment", json_get(root, "environment"));
  report_row(sb, "controller", json_get(root, "controller"));
  report_row(sb, "property", json_get(root, "property"));
  report_row(sb, "environment properties", json_get(root, "env_properties"));
  report_row(sb, "algorithm", json_get(root, "algorithm"));
  report_row(sb, "deviation space", json_get(root, "deviation_space"));
  report_row(sb, "partial", json_get(root, "partial"));
  report_row(sb, "normal behaviour unsafe", json_get(root, "normal_unsafe"));
  report_row(sb, "|\xce\x94|", json_get(root, "delta_size"));
  report_row(sb, "largest d", json_get(root, "largest"));
  report_row(sb, "witness", json_get(root, "witness"));
  close_table(sb);
  const json_t *normal = json_array(root, "normal");
  deltas(s, json_array(root, "deltas"), "delta", "The safe environmental envelope \xce\x94", normal);
  const json_t *cmp = json_get(root, "compare");
  if (cmp && cmp->kind == JSON_OBJECT)
    deltas(s, json_array(cmp, "deltas"), "compare-delta", "\xce\x94 of the compared design", normal);
}

/* ---- masking ---- */

static void masking_play(const report_section_t *s, const json_t *trace) {
  strbuf_t dot;
  strbuf_init(&dot);
  strbuf_puts(
      &dot, "digraph play {\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", "
            "fontsize=10];\n");
  for (size_t k = 0; k < trace->len; k++) {
    const json_t *m = trace->items[k];
    bool err = json_bool(m, "error", false), fault = json_bool(m, "fault", false);
    bool refuter = strcmp(json_str(m, "player", ""), "refuter") == 0;
    strbuf_printf(&dot, "  n%zu [id=\"%s-move-%zu\", ", k, s->id, k + 1);
    if (err) {
      strbuf_puts(&dot, "label=\"ERR\", shape=doublecircle, color=red];\n");
    } else {
      strbuf_t lab;
      strbuf_init(&lab);
      strbuf_printf(&lab, "%zu. %s %s%s", k + 1, refuter ? "R" : "V",
                    json_str(m, "side", "") ? json_str(m, "side", "") : "",
                    json_str(m, "side", NULL) ? ": " : "");
      strbuf_puts(&lab, json_str(m, "action", "") ? json_str(m, "action", "") : "");
      strbuf_puts(&dot, "label=");
      graph_dot_string(&dot, strbuf_str(&lab));
      strbuf_printf(&dot, ", shape=%s%s];\n", refuter ? "box" : "ellipse",
                    fault ? ", color=orange, penwidth=2" : "");
      strbuf_free(&lab);
    }
    if (k) strbuf_printf(&dot, "  n%zu -> n%zu;\n", k - 1, k);
  }
  strbuf_puts(&dot, "}\n");
  char id[64];
  snprintf(id, sizeof id, "%s-play", s->id);
  report_drawing(s->sb, id, strbuf_str(&dot), "<p class=\"meta\">(the moves are in the table below)</p>\n");
  strbuf_free(&dot);
}

void report_masking(const report_section_t *s, const json_t *root) {
  strbuf_t *sb = s->sb;
  bool masks = json_bool(root, "masks", false);
  open_summary(sb);
  verdict_row(sb, "verdict", masks ? "verified" : "violated",
              masks ? "masks the faults" : "does not mask the faults");
  report_row(sb, "masking distance", json_get(root, "distance"));
  report_row(sb, "faults before failing", json_get(root, "faults"));
  report_row(sb, "weak", json_get(root, "weak"));
  report_row(sb, "deadlock is an error", json_get(root, "deadlock_error"));
  report_row(sb, "nominal matches", json_get(root, "nominal_match"));
  report_row(sb, "sizes", json_get(root, "sizes"));
  close_table(sb);
  const json_t *trace = json_array(root, "trace");
  if (!trace || !trace->len) return;
  strbuf_puts(sb,
              "<h3>The refuter's winning play</h3>\n<p class=\"meta\">R: the refuter moves, V: the verifier "
              "answers; faults in orange; the play ends in ERR.</p>\n");
  masking_play(s, trace);
  strbuf_puts(sb,
              "<table class=\"data play\"><thead><tr><th>#</th><th>player</th><th>side</th><th>action</th>"
              "<th>nominal state</th><th>implementation state</th></tr></thead><tbody>\n");
  for (size_t k = 0; k < trace->len; k++) {
    const json_t *m = trace->items[k];
    strbuf_printf(sb, "<tr class=\"move%s\"><td>%zu</td><td>", json_bool(m, "fault", false) ? " bad" : "",
                  k + 1);
    report_value(sb, json_get(m, "player"));
    strbuf_puts(sb, "</td><td>");
    report_value(sb, json_get(m, "side"));
    strbuf_puts(sb, "</td><td>");
    if (json_bool(m, "error", false))
      strbuf_puts(sb, "<span class=\"fault\">error reached</span>");
    else
      report_value(sb, json_get(m, "action"));
    strbuf_puts(sb, json_bool(m, "fault", false) ? " <span class=\"fault\">(fault)</span></td><td><code>"
                                                 : "</td><td><code>");
    report_value(sb, json_get(m, "nominal"));
    strbuf_puts(sb, "</code></td><td><code>");
    report_value(sb, json_get(m, "implementation"));
    strbuf_puts(sb, "</code></td></tr>\n");
  }
  strbuf_puts(sb, "</tbody></table>\n");
}

/* ---- eventb ---- */

static void check_rows(const report_section_t *s, const json_t *checks) {
  strbuf_t *sb = s->sb;
  strbuf_puts(
      sb, "<h3>Checks</h3>\n<table class=\"data checks\"><thead><tr><th>check</th><th>result</th>"
          "<th>proof obligations</th><th>event</th><th>detail</th><th>witness</th></tr></thead><tbody>\n");
  for (size_t k = 0; k < checks->len; k++) {
    const json_t *c = checks->items[k];
    bool holds = json_bool(c, "holds", false);
    strbuf_printf(sb, "<tr class=\"check%s\" id=\"%s-check-%zu\"><td>", holds ? "" : " bad", s->id, k + 1);
    report_text(sb, checks->keys[k]);
    strbuf_printf(sb, "</td><td><span class=\"verdict %s\">%s</span></td><td>", holds ? "holds" : "fails",
                  holds ? "holds" : "fails");
    report_value(sb, json_get(c, "po"));
    if (json_get(c, "obligations")) {
      strbuf_puts(sb, " (");
      report_value(sb, json_get(c, "obligations"));
      strbuf_puts(sb, ")");
    }
    strbuf_puts(sb, "</td><td>");
    report_value(sb, json_get(c, "event"));
    strbuf_puts(sb, "</td><td>");
    report_value(sb, json_get(c, "detail"));
    strbuf_puts(sb, "</td><td>");
    const json_t *w = json_get(c, "witness");
    for (size_t i = 0; w && w->kind == JSON_OBJECT && i < w->len; i++) {
      if (i) strbuf_puts(sb, "<br/>");
      strbuf_puts(sb, "<b>");
      report_text(sb, w->keys[i]);
      strbuf_puts(sb, "</b>: <code>");
      report_value(sb, w->items[i]);
      strbuf_puts(sb, "</code>");
    }
    strbuf_puts(sb, "</td></tr>\n");
  }
  strbuf_puts(sb, "</tbody></table>\n");
}

static void robust_events(strbuf_t *sb, const json_t *rob) {
  const json_t *events = json_array(rob, "events");
  strbuf_puts(sb, "<h3>Robustification (");
  report_value(sb, json_get(rob, "method"));
  strbuf_puts(sb, ")</h3>\n");
  if (events && events->len) {
    strbuf_puts(sb, "<table class=\"data events\"><thead><tr><th>event</th><th>merges</th><th>parameters</th>"
                    "<th>guard</th><th>action</th></tr></thead><tbody>\n");
    for (size_t k = 0; k < events->len; k++) {
      const json_t *e = events->items[k];
      strbuf_puts(sb, "<tr><td>");
      report_value(sb, json_get(e, "name"));
      strbuf_puts(sb, "</td><td>");
      report_value(sb, json_get(e, "u"));
      strbuf_puts(sb, "</td><td>");
      report_value(sb, json_get(e, "params"));
      strbuf_puts(sb, "</td><td class=\"cond\">");
      report_value(sb, json_get(e, "guard"));
      strbuf_puts(sb, "</td><td class=\"cond\">");
      report_value(sb, json_get(e, "action"));
      strbuf_puts(sb, "</td></tr>\n");
    }
    strbuf_puts(sb, "</tbody></table>\n");
  }
  open_summary(sb);
  report_row(sb, "vacuous combinations", json_get(rob, "vacuous"));
  close_table(sb);
}

static compartment_kind_t compartment_kind(const char *kind) {
  return strcmp(kind, "original") == 0 ? COMPARTMENT_ORIGINAL
         : strcmp(kind, "fails") == 0  ? COMPARTMENT_FAILS
                                       : COMPARTMENT_EVENT;
}

/* An interval end of the JSON: an exact rational as text, or NULL (infinite). */
static const char *interval_end(const json_t *iv, const char *key) {
  const json_t *v = json_get(iv, key);
  return v && v->kind == JSON_STRING ? v->text : NULL;
}

/* The picture drawn as `eventb --svg` draws it (apps/compartment_svg), from
 * the JSON's rows and their intervals. */
static void picture_drawing(strbuf_t *sb, const json_t *pic, const json_t *rows, const char *model) {
  compartment_row_t *crows = xcalloc(rows->len + 1, sizeof *crows);
  size_t total = 0;
  for (size_t k = 0; k < rows->len; k++) {
    const json_t *ivs = json_array(rows->items[k], "intervals");
    total += ivs ? ivs->len : 0;
  }
  compartment_interval_t *civs = xcalloc(total + 1, sizeof *civs), *next = civs;
  for (size_t k = 0; k < rows->len; k++) {
    const json_t *r = rows->items[k];
    const json_t *ivs = json_array(r, "intervals");
    crows[k] = (compartment_row_t){json_str(r, "name", "?"), compartment_kind(json_str(r, "kind", "")), next,
                                   ivs ? ivs->len : 0};
    for (size_t i = 0; ivs && i < ivs->len; i++, next++)
      *next = (compartment_interval_t){interval_end(ivs->items[i], "lo"), interval_end(ivs->items[i], "hi"),
                                       json_bool(ivs->items[i], "lo_closed", false),
                                       json_bool(ivs->items[i], "hi_closed", false)};
  }
  compartment_picture_t cp = {model,
                              json_str(pic, "variable", "?"),
                              json_str(pic, "method", "?"),
                              json_str(pic, "fixed", NULL),
                              json_bool(pic, "integer", false),
                              crows,
                              rows->len};
  strbuf_t svg;
  strbuf_init(&svg);
  compartment_svg(&svg, &cp);
  strbuf_puts(sb, "<figure class=\"compartments\">\n");
  report_inline_svg(sb, strbuf_str(&svg));
  strbuf_puts(sb, "</figure>\n");
  strbuf_free(&svg);
  free(civs);
  free(crows);
}

static void picture(strbuf_t *sb, const json_t *pic, const char *model) {
  strbuf_puts(sb, "<h3>Compartments of ");
  report_value(sb, json_get(pic, "variable"));
  strbuf_puts(sb, "</h3>\n");
  const json_t *rows = json_array(pic, "rows");
  if (json_str(pic, "reason", NULL) || !rows) {
    strbuf_puts(sb, "<p>none: ");
    report_value(sb, json_get(pic, "reason"));
    strbuf_puts(sb, "</p>\n");
    return;
  }
  picture_drawing(sb, pic, rows, model);
  strbuf_puts(sb,
              "<table class=\"data picture\"><thead><tr><th>event</th><th>kind</th><th>set</th></tr></thead>"
              "<tbody>\n");
  for (size_t k = 0; k < rows->len; k++) {
    const json_t *r = rows->items[k];
    strbuf_printf(sb, "<tr class=\"%s\"><td>", strcmp(json_str(r, "kind", ""), "fails") == 0 ? "bad" : "");
    report_value(sb, json_get(r, "name"));
    strbuf_puts(sb, "</td><td>");
    report_value(sb, json_get(r, "kind"));
    strbuf_puts(sb, "</td><td class=\"cond\">");
    report_value(sb, json_get(r, "set"));
    strbuf_puts(sb, "</td></tr>\n");
  }
  strbuf_puts(sb, "</tbody></table>\n");
}

void report_eventb(const report_section_t *s, const json_t *root) {
  strbuf_t *sb = s->sb;
  const json_t *checks = json_get(root, "checks");
  bool all = true;
  for (size_t k = 0; checks && checks->kind == JSON_OBJECT && k < checks->len; k++)
    all &= json_bool(checks->items[k], "holds", false);
  open_summary(sb);
  verdict_row(sb, "checks", all ? "holds" : "fails", all ? "all hold" : "some fail");
  report_row(sb, "solver gave up", json_get(root, "unknown"));
  report_row(sb, "dead events", json_get(root, "dead_events"));
  report_row(sb, "max error", json_get(root, "max_error"));
  close_table(sb);
  if (checks && checks->kind == JSON_OBJECT) check_rows(s, checks);
  const json_t *rob = json_get(root, "robustification");
  if (rob && rob->kind == JSON_OBJECT) robust_events(sb, rob);
  const json_t *pic = json_get(root, "picture");
  if (pic && pic->kind == JSON_OBJECT) picture(sb, pic, json_str(root, "model", "?"));
}
