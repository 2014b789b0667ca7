#include "apps/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/cli.h"
#include "apps/compartment_svg.h"
#include "apps/graph_svg.h"
#include "apps/json_envelope.h"
#include "apps/report_html.h"
#include "apps/scatter_svg.h"
#include "ism/strbuf.h"

/* ---- shared pieces ---- */

void report_text(strbuf_t *sb, const char *s) { strbuf_xml_text(sb, s); }

void report_number(strbuf_t *sb, double x, bool round) {
  char buf[STRBUF_DOUBLE_SIZE];
  if (!isfinite(x))
    strbuf_puts(sb, isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
  else if (round)
    strbuf_printf(sb, "%.6g", x == 0 ? 0 : x);
  else
    strbuf_puts(sb, strbuf_double_text(x, buf));
}

void report_value(strbuf_t *sb, const json_t *v) {
  if (!v) return;
  switch (v->kind) {
  case JSON_NULL: strbuf_puts(sb, "\xe2\x80\x94"); break;
  case JSON_BOOL: strbuf_puts(sb, v->boolean ? "true" : "false"); break;
  case JSON_NUMBER: report_text(sb, v->text); break;
  case JSON_STRING: report_text(sb, v->text); break;
  case JSON_ARRAY:
    strbuf_putc(sb, '[');
    for (size_t i = 0; i < v->len; i++) {
      if (i) strbuf_puts(sb, ", ");
      report_value(sb, v->items[i]);
    }
    strbuf_putc(sb, ']');
    break;
  case JSON_OBJECT:
    for (size_t i = 0; i < v->len; i++) {
      if (i) strbuf_puts(sb, v->items[i]->kind == JSON_OBJECT ? "; " : ", ");
      report_text(sb, v->keys[i]);
      strbuf_puts(sb, v->items[i]->kind == JSON_OBJECT ? ": " : "=");
      report_value(sb, v->items[i]);
    }
    break;
  }
}

void report_row(strbuf_t *sb, const char *key, const json_t *v) {
  if (!v) return;
  strbuf_puts(sb, "<tr><th>");
  report_text(sb, key);
  strbuf_puts(sb, "</th><td>");
  report_value(sb, v);
  strbuf_puts(sb, "</td></tr>\n");
}

void report_inline_svg(strbuf_t *sb, const char *svg) {
  const char *p = strstr(svg, "<svg");
  if (!p) return;
  const char *tag_end = strchr(p, '>');
  while (*p) {
    const char *x = strstr(p, " xmlns");
    if (!x || !tag_end || x > tag_end) break;
    const char *q = strchr(x + 1, '"');
    q = q ? strchr(q + 1, '"') : NULL;
    if (!q) break;
    strbuf_putn(sb, p, (size_t)(x - p));
    p = q + 1;
  }
  strbuf_puts(sb, p);
}

void report_drawing(strbuf_t *sb, const char *id, const char *dot, const char *fallback) {
  char *svg = graph_svg(dot);
  strbuf_printf(sb, "<figure class=\"drawing%s\" id=\"%s\">\n", svg ? "" : " list", id);
  if (svg)
    report_inline_svg(sb, svg);
  else
    strbuf_puts(sb, fallback);
  strbuf_puts(sb, "</figure>\n");
  free(svg);
}

/* ---- simulate: the scatter plot and its table ---- */

/* The lower (i = 0) or upper (i = 1) end of a row's 95% interval "ci", or
 * `absent`. */
static double ci_bound(const json_t *row, size_t i, double absent) {
  const json_t *ci = json_array(row, "ci");
  return ci && ci->len == 2 && ci->items[i]->kind == JSON_NUMBER ? ci->items[i]->number : absent;
}

void report_simulate(const report_section_t *s, const json_t *root) {
  strbuf_t *sb = s->sb;
  const json_t *rows = json_array(root, "rows");
  size_t n = rows ? rows->len : 0;
  scatter_point_t *pts = xcalloc(n + 1, sizeof *pts);
  strbuf_t labels;
  strbuf_init(&labels);
  size_t *at = xcalloc(n + 1, sizeof *at), npts = 0;
  for (size_t k = 0; k < n; k++) {
    const json_t *r = rows->items[k];
    if (json_bool(r, "boundary_only", false)) continue;
    at[npts] = labels.len;
    strbuf_printf(&labels, "rank %g: ", json_num(r, "rank", 0));
    const json_t *path = json_array(r, "path");
    for (size_t i = 0; path && i < path->len; i++)
      strbuf_printf(&labels, "%s%s", i ? " " : "",
                    path->items[i]->kind == JSON_STRING ? path->items[i]->text : "?");
    strbuf_putc(&labels, '\0');
    pts[npts++] = (scatter_point_t){json_num(r, "predicted", 0), json_num(r, "observed", 0), ci_bound(r, 0, 0),
                                    ci_bound(r, 1, 0), json_bool(r, "agrees", false), NULL};
  }
  for (size_t k = 0; k < npts; k++) pts[k].label = labels.data + at[k];
  char *title = xasprintf("%s: predicted (%s) vs simulated", json_str(root, "model", "?"),
                          json_str(root, "estimator", "?"));
  strbuf_t svg;
  strbuf_init(&svg);
  scatter_svg(&svg, title, pts, npts);
  strbuf_printf(sb, "<h3>Predicted vs simulated</h3>\n<figure class=\"scatter\" id=\"%s-scatter\">\n", s->id);
  report_inline_svg(sb, strbuf_str(&svg));
  strbuf_puts(sb, "</figure>\n<p>");
  report_number(sb, json_num(root, "agreeing", 0), false);
  strbuf_puts(sb, " of ");
  report_number(sb, json_num(root, "ranked", 0), false);
  strbuf_puts(sb, " ranked predictions lie in the observed 95% interval; Spearman's rank correlation ");
  const json_t *rho = json_get(root, "spearman");
  if (rho && rho->kind == JSON_NUMBER)
    report_number(sb, rho->number, true);
  else
    strbuf_puts(sb, "undefined");
  strbuf_puts(sb, " (");
  report_value(sb, json_get(root, "runs"));
  strbuf_puts(sb, " runs each, seed ");
  report_value(sb, json_get(root, "seed"));
  strbuf_puts(sb, ").</p>\n<table class=\"data\"><thead><tr><th>rank</th><th>path</th><th>predicted</th>"
                  "<th>observed</th><th>95% interval</th><th>agrees</th></tr></thead><tbody>\n");
  for (size_t k = 0; k < n; k++) {
    const json_t *r = rows->items[k];
    strbuf_printf(sb, "<tr class=\"%s\"><td>", json_bool(r, "agrees", false) ? "ok" : "bad");
    report_value(sb, json_get(r, "rank"));
    strbuf_puts(sb, json_bool(r, "boundary_only", false) ? " (boundary-only)</td><td>" : "</td><td>");
    report_value(sb, json_get(r, "path"));
    strbuf_puts(sb, "</td><td>");
    report_number(sb, json_num(r, "predicted", NAN), true);
    strbuf_puts(sb, "</td><td>");
    report_number(sb, json_num(r, "observed", NAN), true);
    strbuf_puts(sb, "</td><td>[");
    report_number(sb, ci_bound(r, 0, NAN), true);
    strbuf_puts(sb, ", ");
    report_number(sb, ci_bound(r, 1, NAN), true);
    strbuf_printf(sb, "]</td><td>%s</td></tr>\n", json_bool(r, "agrees", false) ? "yes" : "no");
  }
  strbuf_puts(sb, "</tbody></table>\n");
  free(title);
  free(at);
  free(pts);
  strbuf_free(&labels);
  strbuf_free(&svg);
}

/* ---- the page ---- */

static const char css[] =
    "body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}\n"
    "header{background:#263238;color:#fff;padding:12px 24px}header h1{margin:0;font-size:1.4em}\n"
    "header a{color:#b3e5fc}nav ul{margin:4px 0 0;padding-left:18px}\n"
    "main{padding:8px 24px 40px}section.result{background:#fff;border:1px solid #ddd;border-radius:6px;"
    "padding:8px 16px 16px;margin:16px 0}\n"
    "h2{font-size:1.25em;border-bottom:1px solid "
    "#eee;padding-bottom:4px}h3{font-size:1.05em;margin-top:1.4em}\n"
    ".meta{color:#666;font-size:.9em}.verdict{font-weight:bold;padding:1px 8px;border-radius:10px;"
    "background:#eee}\n"
    ".verdict.violated,.verdict.fails{background:#ffcdd2;color:#b71c1c}.verdict.verified,.verdict.holds"
    "{background:#c8e6c9;color:#1b5e20}.verdict.inconclusive{background:#fff9c4;color:#795548}\n"
    "table{border-collapse:collapse;margin:6px 0;font-size:.92em}th,td{border:1px solid #ddd;padding:3px 7px;"
    "text-align:left;vertical-align:top}\n"
    "thead th{background:#f0f0f0}table.summary th{background:#f7f7f7;font-weight:600}\n"
    "tr.bad td,td.bad{background:#fff0f0}tr.fail td{background:#ffebee}.sensed{color:#1565c0}"
    ".differs{font-weight:bold}\n"
    ".fault{color:#e65100;font-weight:bold}code,.cond{font-family:ui-monospace,monospace;font-size:.95em}\n"
    "details.cex{border:1px solid #e0e0e0;border-radius:4px;margin:6px 0;padding:4px 8px}"
    "details.cex.current{border-color:#d62728;box-shadow:0 0 0 1px #d62728}\n"
    "details.cex summary{cursor:pointer}figure{margin:8px 0;overflow:auto}"
    "figure.drawing svg{max-width:100%;height:auto}\n"
    "figure .hl path,figure .hl polygon,figure .hl ellipse{stroke:#d62728;stroke-width:3}"
    "figure .hl text{fill:#d62728;font-weight:bold}\n"
    "figure.list li.hl{color:#d62728;font-weight:bold}\n"
    "button.show{font-size:.85em;margin-left:8px}html.nojs button.show{display:none}\n";

/* Clicking "show on drawing" highlights a counterexample's rules and
 * states (their ids in data-ids) in the figure data-figure names. */
static const char script[] =
    "/*<![CDATA[*/\n"
    "(function () {\n"
    "  document.documentElement.className = 'js';\n"
    "  document.addEventListener('click', function (e) {\n"
    "    var b = e.target.closest ? e.target.closest('button.show') : null;\n"
    "    if (!b) return;\n"
    "    var fig = document.getElementById(b.getAttribute('data-figure'));\n"
    "    if (!fig) return;\n"
    "    fig.querySelectorAll('.hl').forEach(function (el) { el.classList.remove('hl'); });\n"
    "    b.getAttribute('data-ids').split(' ').forEach(function (id) {\n"
    "      var el = document.getElementById(id);\n"
    "      if (el) el.classList.add('hl');\n"
    "    });\n"
    "    document.querySelectorAll('details.cex.current').forEach(function (el) {\n"
    "      el.classList.remove('current');\n"
    "    });\n"
    "    var cex = b.closest('details.cex');\n"
    "    if (cex) cex.classList.add('current');\n"
    "    fig.scrollIntoView({block: 'nearest'});\n"
    "  });\n"
    "  document.documentElement.setAttribute('data-ready', 'yes');\n"
    "})();\n"
    "/*]]>*/\n";

typedef void (*section_fn)(const report_section_t *, const json_t *);

static const struct {
  const char *name;
  section_fn render;
} analyses[] = {
    {"verify", report_verify},     {"simulate", report_simulate}, {"robustness", report_robustness},
    {"envelope", report_envelope}, {"masking", report_masking},   {"eventb", report_eventb},
};
enum { NANALYSES = sizeof analyses / sizeof *analyses };

/* Which analysis wrote root: its `command`, else recognised by its keys. */
static int analysis_of(const json_t *root) {
  const char *c = json_str(root, "command", NULL);
  if (!c) {
    c = json_get(root, "counterexamples") && json_get(root, "bound")    ? "verify"
        : json_get(root, "rows") && json_get(root, "spearman")          ? "simulate"
        : json_get(root, "weakest_assumption")                          ? "robustness"
        : json_get(root, "deltas") || json_get(root, "deviation_space") ? "envelope"
        : json_get(root, "masks") && json_get(root, "distance")         ? "masking"
        : json_get(root, "checks")                                      ? "eventb"
                                                                        : "";
  }
  for (int i = 0; i < NANALYSES; i++)
    if (strcmp(analyses[i].name, c) == 0) return i;
  return -1;
}

/* A short name of what a result is about, for titles. */
static const char *subject_of(const json_t *root) {
  const char *name = json_str(root, "model", NULL);
  if (name) return name;
  const json_t *sys = json_get(root, "system");
  if (sys && json_str(sys, "files", NULL)) return json_str(sys, "files", NULL);
  const json_t *env = json_get(root, "environment");
  if (env && json_str(env, "files", NULL)) return json_str(env, "files", NULL);
  const json_t *imp = json_get(json_get(root, "sizes"), "implementation");
  if (imp && json_str(imp, "file", NULL)) return json_str(imp, "file", NULL);
  return json_str(root, "input", "");
}

static bool check_inputs(const report_input_t *in, size_t n, const ism_model_t *model, int *kind,
                         diag_list_t *diags) {
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    const json_t *r = in[i].root;
    kind[i] = r->kind == JSON_OBJECT ? analysis_of(r) : -1;
    if (kind[i] < 0) {
      const char *c = json_str(r, "command", NULL);
      if (c)
        diag_error(diags, json_get(r, "command")->loc, "the report cannot show results of '%s'", c);
      else
        diag_error(diags, r->loc,
                   "not a result of ismv verify, simulate, robustness, envelope, masking or eventb "
                   "(write it with --format json)");
      ok = false;
      continue;
    }
    const json_t *name = json_get(r, "model");
    bool ism = kind[i] == 0 || kind[i] == 1;
    if (model && ism && name && name->kind == JSON_STRING && strcmp(name->text, model->name) != 0) {
      diag_error(diags, name->loc, "this result is of model '%s', not of '%s' (--model %s)", name->text,
                 model->name, model->path);
      ok = false;
    }
    if (strcmp(analyses[kind[i]].name, "eventb") == 0 && !compartment_json_check(json_get(r, "picture"), diags))
      ok = false;
  }
  return ok;
}

/* A simulate result shown inside the verify section of the same model. */
static bool paired(const report_input_t *in, size_t n, const int *kind, size_t i) {
  if (strcmp(analyses[kind[i]].name, "simulate") != 0) return false;
  for (size_t j = 0; j < n; j++)
    if (strcmp(analyses[kind[j]].name, "verify") == 0 &&
        strcmp(json_str(in[j].root, "model", ""), json_str(in[i].root, "model", "")) == 0)
      return true;
  return false;
}

static void page_header(strbuf_t *sb, const report_input_t *in, size_t n, const int *kind) {
  strbuf_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\" class=\"nojs\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                  "<meta name=\"generator\" content=\"ismv ");
  report_text(sb, cli_version());
  strbuf_puts(sb, "\"/>\n<title>ismv report");
  if (n == 1) {
    strbuf_printf(sb, ": %s ", analyses[kind[0]].name);
    report_text(sb, subject_of(in[0].root));
  }
  strbuf_printf(
      sb, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>ismv report</h1>\n<nav><ul>\n", css);
  for (size_t i = 0; i < n; i++) {
    if (paired(in, n, kind, i)) continue;
    strbuf_printf(sb, "<li><a href=\"#r%zu\">%s: ", i + 1, analyses[kind[i]].name);
    report_text(sb, subject_of(in[i].root));
    strbuf_puts(sb, "</a>");
    if (in[i].source) {
      strbuf_puts(sb, " (");
      report_text(sb, in[i].source);
      strbuf_putc(sb, ')');
    }
    strbuf_puts(sb, "</li>\n");
  }
  strbuf_puts(sb, "</ul></nav>\n</header>\n<main>\n");
}

char *report_html(const report_input_t *in, size_t n, const ism_model_t *model, diag_list_t *diags) {
  int *kind = xcalloc(n + 1, sizeof *kind);
  if (!check_inputs(in, n, model, kind, diags)) {
    free(kind);
    return NULL;
  }
  strbuf_t sb;
  strbuf_init(&sb);
  page_header(&sb, in, n, kind);
  for (size_t i = 0; i < n; i++) {
    if (paired(in, n, kind, i)) continue;
    char id[32];
    snprintf(id, sizeof id, "r%zu", i + 1);
    const json_t *r = in[i].root;
    strbuf_printf(&sb, "<section class=\"result %s\" id=\"%s\">\n<h2>%s: ", analyses[kind[i]].name, id,
                  analyses[kind[i]].name);
    report_text(&sb, subject_of(r));
    strbuf_puts(&sb, "</h2>\n<p class=\"meta\">");
    if (in[i].source) {
      strbuf_puts(&sb, "from ");
      report_text(&sb, in[i].source);
    }
    if (json_str(r, "tool", NULL)) {
      strbuf_puts(&sb, in[i].source ? "; written by " : "written by ");
      report_text(&sb, json_str(r, "tool", ""));
      strbuf_putc(&sb, ' ');
      report_text(&sb, json_str(r, "version", ""));
    }
    strbuf_puts(&sb, "</p>\n");
    report_section_t s = {&sb, id, in, n, model};
    analyses[kind[i]].render(&s, r);
    strbuf_puts(&sb, "</section>\n");
  }
  strbuf_printf(&sb, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", script);
  free(kind);
  return strbuf_take(&sb);
}

char *report_html_of(char *json, const ism_model_t *model, diag_list_t *diags) {
  json_doc_t *doc = json_parse("(the command's JSON)", json, diags);
  free(json);
  if (!doc) return NULL;
  report_input_t in = {NULL, doc->root};
  char *page = report_html(&in, 1, model, diags);
  json_free(doc);
  return page;
}

int report_write_result(cli_ctx_t *ctx, const json_envelope_t *e, const char *json, bool html,
                        const ism_model_t *model) {
  if (!html) return json_envelope_write(ctx, e, json);
  char *page = report_html_of(json_envelope_wrap(e, json), model, &ctx->diags);
  int rc = page ? cli_write_output(ctx, page) : CLI_EXIT_INTERNAL;
  free(page);
  return rc;
}
