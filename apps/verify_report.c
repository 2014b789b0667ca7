#include "apps/verify_report.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/sarif.h"

static const char *const verdict_names[] = {"verified", "violated", "inconclusive"};

void verify_value_text(strbuf_t *sb, const ism_var_t *v, double x) {
  if (v->type.kind == TYPE_BOOL)
    strbuf_puts(sb, x != 0 ? "true" : "false");
  else if (v->type.kind == TYPE_INT)
    strbuf_printf(sb, "%.0f", x);
  else
    strbuf_printf(sb, "%.6g", x == 0 ? 0 : x);
}

void verify_path_text(strbuf_t *sb, const ism_model_t *m, const cex_t *c) {
  strbuf_puts(sb, m->states[c->states[0]]);
  for (int k = 0; k < c->length; k++)
    strbuf_printf(sb, " --%s--> %s", m->rules[c->rules[k]].id, m->states[c->states[k + 1]]);
}

/* What failed, in words: "walkF: disF' <= 0" or "failure: ...". */
static char *failure_text(const ism_model_t *m, const cex_t *c) {
  if (c->fail_action >= 0) {
    char *cond = expr_to_string(m->actions[c->fail_action].failure, &m->scope);
    char *s = xasprintf("%s: %s", m->actions[c->fail_action].name, cond);
    free(cond);
    return s;
  }
  char *cond = m->failure ? expr_to_string(m->failure, &m->scope) : xstrdup("?");
  char *s = xasprintf("failure: %s", cond);
  free(cond);
  return s;
}

/* The failure of one counterexample: failure_text, and where a rule's do:
 * list runs the failing action more than once, which item failed (each
 * place that can fail is a counterexample of its own, with the same
 * failure text). */
static char *cex_failure_text(const ism_model_t *m, const cex_t *c) {
  char *s = failure_text(m, c);
  if (c->fail_action < 0 || c->fail_position < 0) return s;
  const ism_rule_t *rule = &m->rules[c->rules[c->length - 1]];
  int runs = 0;
  for (size_t k = 0; k < rule->nsteps; k++)
    runs += rule->steps[k].kind != ISM_STEP_ASSIGN && rule->steps[k].action == c->fail_action;
  if (runs < 2) return s;
  char *t = xasprintf("%s (do: item %d)", s, c->fail_position + 1);
  free(s);
  return t;
}

/* ", probability P": six significant digits, more where six would round a
 * probability below --min-prob up to it or above (0.4999998 below 0.5 is
 * not shown as 0.5 next to "below probability 0.5"). */
static void put_probability(strbuf_t *sb, const verify_report_t *rep, double p) {
  int digits = 6;
  char text[40];
  snprintf(text, sizeof text, "%.*g", digits, p);
  while (p < rep->min_prob && !(strtod(text, NULL) < rep->min_prob) && digits < 17)
    snprintf(text, sizeof text, "%.*g", ++digits, p);
  strbuf_printf(sb, ", probability %s", text);
}

static bool shows_sensed(const verify_report_t *rep, const ism_var_t *v) {
  return v->sensing && v->uncertain && rep->opt->mode == ISM_MODE_ACTUAL;
}

static void text_cex(strbuf_t *sb, const verify_report_t *rep, size_t index, const cex_t *c) {
  const ism_model_t *m = rep->m;
  size_t nv = m->nvars;
  strbuf_printf(sb, "\ncounterexample %zu: ", index + 1);
  verify_path_text(sb, m, c);
  strbuf_putc(sb, '\n');
  if (c->has_probability) {
    strbuf_printf(sb, "  rank %zu", index + 1);
    put_probability(sb, rep, c->probability);
    if (c->probability_error > 0) strbuf_printf(sb, " (± %.2g)", c->probability_error);
    strbuf_puts(sb, rep->joint ? " (joint)\n" : " (per rule)\n");
  }
  char *fail = cex_failure_text(m, c);
  strbuf_printf(sb, "  fails at step %d (rule %s): %s\n", c->length, m->rules[c->rules[c->length - 1]].id,
                fail);
  free(fail);
  /* A table: a row per sensing (and one after the last rule), a column per variable. */
  size_t ncols = 3 + nv, nrows = (size_t)c->length + 2;
  char **cells = xcalloc(ncols * nrows, sizeof *cells);
  cells[0] = xstrdup("step"), cells[1] = xstrdup("state"), cells[2] = xstrdup("rule");
  for (size_t v = 0; v < nv; v++) cells[3 + v] = xstrdup(m->vars[v].name);
  for (int k = 0; k <= c->length; k++) {
    char **row = cells + (size_t)(k + 1) * ncols;
    row[0] = k < c->length ? xasprintf("%d", k + 1) : xstrdup("after");
    row[1] = xstrdup(m->states[c->states[k]]);
    row[2] = xstrdup(k < c->length ? m->rules[c->rules[k]].id : "");
    for (size_t v = 0; v < nv; v++) {
      strbuf_t cell;
      strbuf_init(&cell);
      verify_value_text(&cell, &m->vars[v], c->truth[(size_t)k * nv + v]);
      if (k < c->length && shows_sensed(rep, &m->vars[v])) {
        strbuf_puts(&cell, " (~");
        verify_value_text(&cell, &m->vars[v], c->sensed[(size_t)k * nv + v]);
        strbuf_putc(&cell, ')');
      }
      row[3 + v] = strbuf_take(&cell);
    }
  }
  for (size_t r = 0; r < nrows; r++) {
    strbuf_puts(sb, " ");
    for (size_t col = 0; col < ncols; col++) {
      size_t width = 0;
      for (size_t q = 0; q < nrows; q++) {
        size_t len = strlen(cells[q * ncols + col]);
        if (len > width) width = len;
      }
      strbuf_printf(sb, " %-*s", (int)width, cells[r * ncols + col]);
    }
    while (sb->len && sb->data[sb->len - 1] == ' ') sb->data[--sb->len] = '\0';
    strbuf_putc(sb, '\n');
  }
  for (size_t q = 0; q < ncols * nrows; q++) free(cells[q]);
  free(cells);
  for (size_t a = 0; a < c->nactions; a++)
    for (size_t v = 0; v < nv; v++) {
      const cex_action_t *ca = &c->actions[a];
      if (!ca->has_actual[v]) continue;
      strbuf_printf(sb, "  step %d %s: %s assumed ", ca->step + 1, m->actions[ca->action].name,
                    m->vars[v].name);
      verify_value_text(sb, &m->vars[v], ca->before[v]);
      strbuf_puts(sb, ", actual ");
      verify_value_text(sb, &m->vars[v], ca->actual[v]);
      strbuf_putc(sb, '\n');
    }
}

/* ---- the report's list: res->cexs, or what rep->keep kept of it ---- */

static size_t list_total(const verify_report_t *rep) {
  return rep->keep ? rep->keep->total : rep->res->ncexs;
}

/* The list's k-th counterexample; with rep->keep, one the report prints. */
static const cex_t *cex_at(const verify_report_t *rep, size_t k) {
  if (!rep->keep) return &rep->res->cexs[k];
  const cex_t *c = verify_keep_at(rep->keep, k);
  assert(c);
  return c;
}

/* The classes of the list's first n (with rep->keep: all of it). */
static size_t list_classes(const verify_report_t *rep, size_t n, cex_class_t **classes) {
  const verify_keep_t *k = rep->keep;
  if (!k) return cex_classes(rep->res->cexs, n, classes);
  assert(n == k->total);
  *classes = xmalloc((k->nclasses + 1) * sizeof **classes);
  if (k->nclasses) memcpy(*classes, k->classes, k->nclasses * sizeof **classes);
  return k->nclasses;
}

static size_t count_boundary_only(const verify_report_t *rep) {
  if (rep->keep) return rep->keep->boundary_only;
  size_t n = 0;
  for (size_t k = 0; k < rep->res->ncexs; k++) n += rep->res->cexs[k].boundary_only;
  return n;
}

static void boundary_line(strbuf_t *sb, const verify_report_t *rep, size_t k, size_t more) {
  const cex_t *c = cex_at(rep, k);
  char *fail = cex_failure_text(rep->m, c);
  strbuf_printf(sb, "  %zu: ", k + 1);
  verify_path_text(sb, rep->m, c);
  strbuf_printf(sb, " (%s)", fail);
  if (more) strbuf_printf(sb, ", and %zu more of its class", more);
  strbuf_putc(sb, '\n');
  free(fail);
}

/* Boundary-only counterexamples are listed, never ranked: every one shown,
 * or in the classes view the first of each class. */
static void text_boundary_section(strbuf_t *sb, const verify_report_t *rep, const cex_class_t *cl,
                                  size_t ncl) {
  size_t n = 0;
  if (rep->classes_view)
    n = count_boundary_only(rep);
  else
    for (size_t k = 0; k < rep->shown; k++) n += cex_at(rep, k)->boundary_only;
  if (!n) return;
  strbuf_puts(sb,
              "\nboundary-only counterexamples (probability 0: they need an error exactly at the edge of its "
              "range, or an equality), not ranked:\n");
  if (!rep->classes_view) {
    for (size_t k = 0; k < rep->shown; k++)
      if (cex_at(rep, k)->boundary_only) boundary_line(sb, rep, k, 0);
    return;
  }
  for (size_t i = 0; i < ncl; i++) {
    if (!cl[i].boundary_only) continue;
    size_t first = cl[i].top;
    if (rep->keep)
      first = rep->keep->first_boundary[i];
    else
      while (!rep->res->cexs[first].boundary_only ||
             rep->res->cexs[first].rules[rep->res->cexs[first].length - 1] != cl[i].rule ||
             rep->res->cexs[first].fail_action != cl[i].action)
        first++;
    boundary_line(sb, rep, first, rep->topk ? 0 : cl[i].boundary_only - 1);
  }
}

static void text_classes(strbuf_t *sb, const verify_report_t *rep, const cex_class_t *cl, size_t ncl) {
  strbuf_printf(sb, "\nfailure classes (last rule, failure), %s:\n",
                rep->unranked ? "in the order found" : "most likely first");
  for (size_t i = 0; i < ncl; i++) {
    const cex_t *top = cex_at(rep, cl[i].top);
    char *fail = failure_text(rep->m, top);
    strbuf_printf(sb, "  class %zu: %s, %s", i + 1, rep->m->rules[cl[i].rule].id, fail);
    if (!rep->topk) strbuf_printf(sb, ": %zu counterexample%s", cl[i].count, cl[i].count == 1 ? "" : "s");
    free(fail);
    if (rep->topk && top->boundary_only) /* the most likely is boundary-only: so is every member */
      strbuf_puts(sb, ", boundary-only");
    else if (rep->topk)
      ;
    else if (cl[i].boundary_only == cl[i].count)
      strbuf_puts(sb, cl[i].count == 1 ? ", boundary-only" : ", all boundary-only");
    else if (cl[i].boundary_only)
      strbuf_printf(sb, " (%zu boundary-only)", cl[i].boundary_only);
    if (!top->boundary_only) {
      strbuf_printf(sb, rep->unranked ? "; first %zu" : "; most likely %zu", cl[i].top + 1);
      if (top->has_probability) put_probability(sb, rep, top->probability);
    }
    strbuf_putc(sb, '\n');
  }
}

static void render_text(strbuf_t *sb, const verify_report_t *rep) {
  const explore_result_t *res = rep->res;
  size_t total = list_total(rep);
  /* every counterexample dropped after a complete search: not "verified" */
  if (res->verdict == EXPLORE_VERIFIED && total && rep->dropped == total) {
    /* the top-K search does not count them (how many it met depends on the search) */
    strbuf_printf(sb, "%s: no counterexample above probability %g", rep->m->name, rep->min_prob);
    if (!rep->topk) strbuf_printf(sb, " (%zu below)", rep->dropped);
    strbuf_printf(sb, " (mode %s, bound %d)\n", ism_mode_name(rep->opt->mode), rep->opt->bound);
  } else
    strbuf_printf(sb, "%s: %s (mode %s, bound %d)\n", rep->m->name, verdict_names[res->verdict],
                  ism_mode_name(rep->opt->mode), rep->opt->bound);
  cex_class_t *cl = NULL;
  size_t ncl = list_classes(rep, total, &cl);
  if (rep->topk && total) {
    strbuf_printf(
        sb,
        "%zu failure class%s (top-K search: the most likely counterexamples are exact, the others are "
        "not counted; --search full counts them all)",
        ncl, ncl == 1 ? "" : "es");
  } else {
    if (total)
      strbuf_printf(sb, "%zu counterexample%s", total, total == 1 ? "" : "s");
    else
      strbuf_puts(sb, "no counterexample");
    size_t nb = count_boundary_only(rep);
    if (nb) strbuf_printf(sb, " (%zu of positive probability, %zu boundary-only)", total - nb, nb);
    if (ncl) strbuf_printf(sb, " in %zu failure class%s", ncl, ncl == 1 ? "" : "es");
  }
  if (rep->topk)
    ;
  else if (rep->dropped)
    strbuf_printf(sb, ", %zu below probability %g dropped", rep->dropped, rep->min_prob);
  if (rep->topk && !total)
    ;
  else if (rep->topk && rep->classes_view)
    strbuf_puts(sb, ", the most likely of each shown");
  else if (rep->topk && rep->shown)
    strbuf_printf(sb, ", the %zu most likely shown", rep->shown);
  else if (rep->classes_view && ncl < total)
    strbuf_printf(sb, ", the %s of each shown (--all: every one)",
                  rep->unranked ? "first found" : "most likely");
  else if (rep->shown < total - rep->dropped)
    strbuf_printf(sb, rep->unranked ? ", the first %zu found shown" : ", the %zu most likely shown",
                  rep->shown);
  strbuf_putc(sb, '\n');
  if (res->reason)
    strbuf_printf(sb, "%s: %s\n", res->verdict == EXPLORE_INCONCLUSIVE ? "inconclusive" : "search incomplete",
                  res->reason);
  if (total)
    strbuf_puts(sb, "values: true (~sensed) at each sensing; 'after' = true values after the last rule\n");
  if (ncl) text_classes(sb, rep, cl, ncl);
  if (rep->classes_view) {
    for (size_t i = 0; i < ncl; i++)
      if (cl[i].top < rep->shown && !cex_at(rep, cl[i].top)->boundary_only)
        text_cex(sb, rep, cl[i].top, cex_at(rep, cl[i].top));
  } else {
    for (size_t k = 0; k < rep->shown; k++)
      if (!cex_at(rep, k)->boundary_only) text_cex(sb, rep, k, cex_at(rep, k));
  }
  text_boundary_section(sb, rep, cl, ncl);
  free(cl);
  if (!rep->timings) return; /* search statistics depend on how the search ran (split, cuts): --stats only */
  strbuf_printf(sb, "\nstats: %llu paths, %llu pruned, %llu solver checks", res->paths, res->pruned,
                res->solver_checks);
  if (rep->topk)
    strbuf_printf(sb,
                  ", %llu cut by the top-K search, %zu counterexamples found, %zu not ranked by their bound",
                  res->cut, rep->found, rep->bounded);
  strbuf_printf(sb, ", %.3f s\n", res->seconds);
}

static void json_values(strbuf_t *sb, const ism_model_t *m, const double *vals, bool sensing_only) {
  strbuf_putc(sb, '{');
  bool first = true;
  for (size_t v = 0; v < m->nvars; v++) {
    if (sensing_only && !m->vars[v].sensing) continue;
    if (!first) strbuf_puts(sb, ", ");
    first = false;
    strbuf_json_string(sb, m->vars[v].name);
    strbuf_puts(sb, ": ");
    if (m->vars[v].type.kind == TYPE_BOOL)
      strbuf_puts(sb, vals[v] != 0 ? "true" : "false");
    else
      strbuf_json_number(sb, vals[v]);
  }
  strbuf_putc(sb, '}');
}

/* A counterexample's JSON object after its id: reads rep->m only. */
static void json_cex_rest(strbuf_t *sb, const verify_report_t *rep, const cex_t *c) {
  const ism_model_t *m = rep->m;
  size_t nv = m->nvars;
  strbuf_puts(sb, "\"path\": [");
  for (int k = 0; k < c->length; k++) {
    if (k) strbuf_puts(sb, ", ");
    strbuf_json_string(sb, m->rules[c->rules[k]].id);
  }
  strbuf_puts(sb, "], \"states\": [");
  for (int k = 0; k <= c->length; k++) {
    if (k) strbuf_puts(sb, ", ");
    strbuf_json_string(sb, m->states[c->states[k]]);
  }
  strbuf_printf(sb, "],\n     \"failure\": {\"step\": %d, \"rule\": ", c->length);
  strbuf_json_string(sb, m->rules[c->rules[c->length - 1]].id);
  strbuf_puts(sb, ", \"action\": ");
  if (c->fail_action >= 0)
    strbuf_json_string(sb, m->actions[c->fail_action].name);
  else
    strbuf_puts(sb, "null");
  if (c->fail_action >= 0 && c->fail_position >= 0)
    strbuf_printf(sb, ", \"position\": %d", c->fail_position + 1);
  else
    strbuf_puts(sb, ", \"position\": null");
  char *cond =
      expr_to_string(c->fail_action >= 0 ? m->actions[c->fail_action].failure : m->failure, &m->scope);
  strbuf_puts(sb, ", \"condition\": ");
  strbuf_json_string(sb, cond);
  free(cond);
  strbuf_puts(sb, "},\n     \"steps\": [");
  for (int k = 0; k < c->length; k++) {
    strbuf_printf(sb, "%s\n       {\"step\": %d, \"state\": ", k ? "," : "", k + 1);
    strbuf_json_string(sb, m->states[c->states[k]]);
    strbuf_puts(sb, ", \"rule\": ");
    strbuf_json_string(sb, m->rules[c->rules[k]].id);
    strbuf_puts(sb, ", \"true\": ");
    json_values(sb, m, c->truth + (size_t)k * nv, false);
    strbuf_puts(sb, ", \"sensed\": ");
    json_values(sb, m, c->sensed + (size_t)k * nv, true);
    strbuf_puts(sb, ", \"actual\": [");
    bool first = true;
    for (size_t a = 0; a < c->nactions; a++)
      for (size_t v = 0; v < nv; v++) {
        const cex_action_t *ca = &c->actions[a];
        if (ca->step != k || !ca->has_actual[v]) continue;
        strbuf_puts(sb, first ? "" : ", ");
        first = false;
        strbuf_puts(sb, "{\"action\": ");
        strbuf_json_string(sb, m->actions[ca->action].name);
        strbuf_puts(sb, ", \"variable\": ");
        strbuf_json_string(sb, m->vars[v].name);
        strbuf_puts(sb, ", \"assumed\": ");
        strbuf_json_number(sb, ca->before[v]);
        strbuf_puts(sb, ", \"value\": ");
        strbuf_json_number(sb, ca->actual[v]);
        strbuf_putc(sb, '}');
      }
    strbuf_puts(sb, "]}");
  }
  strbuf_puts(sb, "],\n     \"final\": {\"state\": ");
  strbuf_json_string(sb, m->states[c->states[c->length]]);
  strbuf_puts(sb, ", \"true\": ");
  json_values(sb, m, c->truth + (size_t)c->length * nv, false);
  strbuf_puts(sb, "},\n     \"probability\": ");
  if (c->has_probability) {
    strbuf_json_number(sb, c->probability);
    strbuf_puts(sb, ", \"probability_error\": ");
    strbuf_json_number(sb, c->probability_error);
  } else {
    strbuf_puts(sb, "null");
  }
  strbuf_printf(sb, ", \"boundary_only\": %s}", c->boundary_only ? "true" : "false");
}

static void json_cex(strbuf_t *sb, const verify_report_t *rep, size_t index, const cex_t *c) {
  strbuf_printf(sb, "    {\"id\": %zu, ", index + 1);
  json_cex_rest(sb, rep, c);
}

static void json_classes(strbuf_t *sb, const verify_report_t *rep) {
  const ism_model_t *m = rep->m;
  cex_class_t *cl = NULL;
  size_t ncl = list_classes(rep, list_total(rep), &cl);
  strbuf_puts(sb, "  \"classes\": [");
  for (size_t i = 0; i < ncl; i++) {
    const cex_t *top = cex_at(rep, cl[i].top);
    strbuf_puts(sb, i ? ",\n    {\"rule\": " : "\n    {\"rule\": ");
    strbuf_json_string(sb, m->rules[cl[i].rule].id);
    strbuf_puts(sb, ", \"action\": ");
    if (cl[i].action >= 0)
      strbuf_json_string(sb, m->actions[cl[i].action].name);
    else
      strbuf_puts(sb, "null");
    char *cond = expr_to_string(cl[i].action >= 0 ? m->actions[cl[i].action].failure : m->failure, &m->scope);
    strbuf_puts(sb, ", \"condition\": ");
    strbuf_json_string(sb, cond);
    free(cond);
    strbuf_printf(sb,
                  ", \"count\": %zu, \"boundary_only\": %zu, \"top\": %zu, \"probability\": ", cl[i].count,
                  cl[i].boundary_only, cl[i].top + 1);
    if (top->has_probability)
      strbuf_json_number(sb, top->probability);
    else
      strbuf_puts(sb, "null");
    strbuf_putc(sb, '}');
  }
  strbuf_puts(sb, ncl ? "\n  ],\n" : "],\n");
  free(cl);
}

/* "stats": whether the search was complete (a result), and with --stats
 * how it ran: counts that depend on the split, the cuts and the solver's
 * models, so they are not part of the report otherwise. */
static void json_stats(strbuf_t *sb, const verify_report_t *rep, bool complete) {
  const explore_result_t *res = rep->res;
  strbuf_printf(sb, "  \"stats\": {\"complete\": %s", complete ? "true" : "false");
  if (rep->timings) {
    strbuf_printf(sb, ", \"paths\": %llu, \"pruned\": %llu, \"solver_checks\": %llu", res->paths, res->pruned,
                  res->solver_checks);
    if (rep->topk)
      strbuf_printf(sb, ", \"cut\": %llu, \"bounded\": %zu, \"found\": %zu, \"found_boundary_only\": %zu",
                    res->cut, rep->bounded, rep->found, rep->found_boundary_only);
    strbuf_printf(sb,
                  ", \"extended_failures\": %llu, \"repaired_failures\": %llu, \"alone_failures\": %llu, "
                  "\"solver_failures\": %llu, "
                  "\"extended_prefixes\": %llu, \"repaired_prefixes\": %llu, \"solver_prefixes\": %llu, "
                  "\"seconds\": ",
                  res->extended_failures, res->repaired_failures, res->alone_failures, res->solver_failures,
                  res->extended_prefixes, res->repaired_prefixes, res->solver_prefixes);
    strbuf_json_number(sb, res->seconds);
  }
  strbuf_puts(sb, "}\n");
}

static void render_json(strbuf_t *sb, const verify_report_t *rep) {
  const explore_result_t *res = rep->res;
  strbuf_puts(sb, "{\n  \"model\": ");
  strbuf_json_string(sb, rep->m->name);
  /* "verdict", "partial" and "reason" are the envelope's (apps/json_envelope.h), written by the command */
  strbuf_printf(sb, ",\n  \"mode\": \"%s\",\n  \"bound\": %d,\n", ism_mode_name(rep->opt->mode),
                rep->opt->bound);
  if (rep->topk) strbuf_puts(sb, "  \"search\": \"top-k\",\n");
  if (rep->topk) /* not counted: what the top-K search meets depends on the search (stats.found) */
    strbuf_puts(sb, "  \"total_counterexamples\": null,\n  \"boundary_only_counterexamples\": null,\n");
  else
    strbuf_printf(sb, "  \"total_counterexamples\": %zu,\n  \"boundary_only_counterexamples\": %zu,\n",
                  list_total(rep), count_boundary_only(rep));
  if (rep->dropped && !rep->topk) strbuf_printf(sb, "  \"below_min_prob\": %zu,\n", rep->dropped);
  if (list_total(rep)) strbuf_printf(sb, "  \"estimator\": \"%s\",\n", rep->joint ? "joint" : "per-rule");
  json_classes(sb, rep);
  strbuf_puts(sb, "  \"counterexamples\": [");
  for (size_t k = 0; k < rep->shown; k++) {
    strbuf_puts(sb, k ? ",\n" : "\n");
    json_cex(sb, rep, k, cex_at(rep, k));
  }
  strbuf_printf(sb, "%s],\n", rep->shown ? "\n  " : "");
  json_stats(sb, rep, res->reason == NULL);
  strbuf_puts(sb, "}\n");
}

/* ---- SARIF: a result per failure class ---- */

enum { RULE_FAILURE, RULE_ACTION_FAILURE };
static const sarif_rule_t verify_rules[] = {
    {"ISMV-VERIFY-FAILURE", "ReachableFailure", "The app can reach its failure condition within the bound.",
     "Bounded verification found paths of the interactive state machine, of at most K rules, on which the "
     "model-wide failure condition holds for some environment within the sensing and actuation error ranges. "
     "One result per failure class (the last rule of the path); its code flow is the most likely "
     "counterexample of the class, its rank that counterexample's probability in percent.",
     "Run `ismv verify MODEL.yaml` to see each class with its most likely counterexample (true and sensed "
     "values at every step), then strengthen the rule's guard (the margin the sensing error needs) or the "
     "model's assumptions. docs/verify.md explains the report."},
    {"ISMV-VERIFY-ACTION-FAILURE", "ActionFailure", "An action of the app can fail within the bound.",
     "Bounded verification found paths of the interactive state machine, of at most K rules, whose last rule "
     "runs an action whose failure condition holds for some environment within the sensing and actuation "
     "error ranges. One result per failure class (the last rule and the failing action); its code flow "
     "is the most likely counterexample of the class, its rank that counterexample's probability in "
     "percent.",
     "Run `ismv verify MODEL.yaml` to see each class with its most likely counterexample (true and sensed "
     "values at every step), then strengthen the guard of the rule that runs the action or the action's "
     "effect. docs/verify.md explains the report."},
};

/* The most likely counterexample of a class as a thread flow: a location per
 * rule (at the rule), then the failure (at its condition). */
static void sarif_code_flow(strbuf_t *sb, const verify_report_t *rep, const cex_t *c, loc_t fail_loc,
                            const char *fail) {
  const ism_model_t *m = rep->m;
  sarif_flow_begin(sb);
  for (int k = 0; k < c->length; k++) {
    const ism_rule_t *r = &m->rules[c->rules[k]];
    char *msg = xasprintf("step %d: %s --%s--> %s", k + 1, m->states[c->states[k]], r->id,
                          m->states[c->states[k + 1]]);
    sarif_flow_location(sb, k == 0, m->path, r->loc.line, r->loc.col, msg);
    free(msg);
  }
  char *text = xasprintf("fails: %s", fail);
  sarif_flow_location(sb, false, m->path, fail_loc.line, fail_loc.col, text);
  free(text);
  sarif_flow_end(sb);
}

static void sarif_class(strbuf_t *sb, bool *first, const verify_report_t *rep, const cex_class_t *cl) {
  const ism_model_t *m = rep->m;
  const cex_t *top = cex_at(rep, cl->top);
  const ism_rule_t *rule = &m->rules[cl->rule];
  const expr_t *cond_expr = cl->action >= 0 ? m->actions[cl->action].failure : m->failure;
  char *cond = expr_to_string(cond_expr, &m->scope);
  char *fail = failure_text(m, top);
  strbuf_t msg;
  strbuf_init(&msg);
  strbuf_printf(&msg, "the app can fail (%s) at rule %s: %zu counterexample%s within bound %d (mode %s)",
                fail, rule->id, cl->count, cl->count == 1 ? "" : "s", rep->opt->bound,
                ism_mode_name(rep->opt->mode));
  if (cl->boundary_only == cl->count)
    strbuf_puts(&msg,
                cl->count == 1 ? ", boundary-only (probability 0)" : ", all boundary-only (probability 0)");
  strbuf_puts(&msg, "; ");
  strbuf_puts(&msg, cl->boundary_only == cl->count ? "for example " : "the most likely ");
  verify_path_text(&msg, m, top);
  if (top->has_probability && cl->boundary_only < cl->count) put_probability(&msg, rep, top->probability);
  int rule_index = cl->action >= 0 ? RULE_ACTION_FAILURE : RULE_FAILURE;
  sarif_result_begin(sb, first, verify_rules, rule_index, "error", strbuf_str(&msg));
  strbuf_free(&msg);
  strbuf_puts(sb, ",\n         \"locations\": [");
  sarif_location(sb, m->path, cond_expr->loc.line, cond_expr->loc.col);
  /* the class itself: rule, action and condition; not the bound, the run or the paths */
  char *key = xasprintf("%s\x1f%s\x1f%s", rule->id, cl->action >= 0 ? m->actions[cl->action].name : "", cond);
  char fp[SARIF_FINGERPRINT_SIZE];
  strbuf_printf(sb, "],\n         \"partialFingerprints\": {\"ismvFailureClass/v1\": \"%s\"}",
                sarif_fingerprint(key, fp));
  free(key);
  if (top->has_probability) {
    strbuf_puts(sb, ", \"rank\": ");
    strbuf_json_number(sb, cl->boundary_only == cl->count ? 0 : top->probability * 100);
  }
  sarif_code_flow(sb, rep, top, cond_expr->loc, fail);
  strbuf_putc(sb, '}');
  free(fail);
  free(cond);
}

static void render_sarif(strbuf_t *sb, const verify_report_t *rep) {
  const explore_result_t *res = rep->res;
  sarif_begin(sb, verify_rules, sizeof verify_rules / sizeof *verify_rules);
  /* the kept counterexamples: --min-prob drops from the end of the ranked list */
  cex_class_t *cl = NULL;
  size_t ncl = list_classes(rep, list_total(rep) - rep->dropped, &cl);
  bool first = true;
  for (size_t i = 0; i < ncl; i++) sarif_class(sb, &first, rep, &cl[i]);
  free(cl);
  bool complete = res->verdict != EXPLORE_INCONCLUSIVE && !res->reason;
  char *note = res->reason ? xasprintf("inconclusive: %s", res->reason) : NULL;
  const char *notes[] = {note ? note : "inconclusive"};
  sarif_end(sb, complete, notes, 1);
  free(note);
}

static void render_junit(strbuf_t *sb, const verify_report_t *rep) {
  const explore_result_t *res = rep->res;
  bool failed = res->verdict == EXPLORE_VIOLATED, error = res->verdict == EXPLORE_INCONCLUSIVE;
  strbuf_puts(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"");
  strbuf_xml_attr(sb, rep->m->name);
  strbuf_printf(
      sb, "\" tests=\"1\" failures=\"%d\" errors=\"%d\">\n    <testcase classname=\"ismv.verify\" name=\"",
      failed, error);
  strbuf_xml_attr(sb, rep->m->name);
  strbuf_printf(sb, " (mode %s, bound %d)\"", ism_mode_name(rep->opt->mode), rep->opt->bound);
  if (!failed && !error) {
    strbuf_puts(sb, "/>\n  </testsuite>\n</testsuites>\n");
    return;
  }
  strbuf_puts(sb, ">\n");
  if (error) {
    strbuf_puts(sb, "      <error message=\"");
    strbuf_xml_attr(sb, res->reason);
    strbuf_puts(sb, "\"/>\n");
  }
  if (failed) {
    strbuf_printf(sb, "      <failure message=\"%zu counterexample%s\">", list_total(rep),
                  list_total(rep) == 1 ? "" : "s");
    strbuf_t body;
    strbuf_init(&body);
    for (size_t k = 0; k < rep->shown; k++) {
      const cex_t *c = cex_at(rep, k);
      strbuf_printf(&body, "\n%zu: ", k + 1);
      verify_path_text(&body, rep->m, c);
      char *fail = cex_failure_text(rep->m, c);
      strbuf_printf(&body, " (%s)", fail);
      free(fail);
    }
    strbuf_xml_text(sb, strbuf_str(&body));
    strbuf_free(&body);
    strbuf_puts(sb, "\n      </failure>\n");
  }
  strbuf_puts(sb, "    </testcase>\n  </testsuite>\n</testsuites>\n");
}

char *verify_render(const verify_report_t *rep, const char *format) {
  strbuf_t sb;
  strbuf_init(&sb);
  if (strcmp(format, "json") == 0)
    render_json(&sb, rep);
  else if (strcmp(format, "sarif") == 0)
    render_sarif(&sb, rep);
  else if (strcmp(format, "junit") == 0)
    render_junit(&sb, rep);
  else
    render_text(&sb, rep);
  return strbuf_take(&sb);
}

/* ---- streaming (--all --format json) ----
 * The same JSON object as render_json with the fields that are only known
 * at the end (verdict, counts, stats) after the counterexamples. */

void verify_stream_begin(strbuf_t *sb, const verify_report_t *rep, const json_envelope_t *e) {
  strbuf_puts(sb, "{\n");
  json_envelope_head(sb, e);
  strbuf_puts(sb, "  \"model\": ");
  strbuf_json_string(sb, rep->m->name);
  strbuf_printf(sb, ",\n  \"mode\": \"%s\",\n  \"bound\": %d,\n", ism_mode_name(rep->opt->mode),
                rep->opt->bound);
  strbuf_puts(sb, "  \"counterexamples\": [");
}

void verify_stream_cex(strbuf_t *sb, const verify_report_t *rep, size_t index, const cex_t *c) {
  strbuf_puts(sb, index ? ",\n" : "\n");
  json_cex(sb, rep, index, c);
}

void verify_stream_cex_text(strbuf_t *sb, const verify_report_t *rep, const cex_t *c) {
  json_cex_rest(sb, rep, c);
}

void verify_stream_cex_head(strbuf_t *sb, size_t index) {
  strbuf_printf(sb, "%s    {\"id\": %zu, ", index ? ",\n" : "\n", index + 1);
}

void verify_stream_end(strbuf_t *sb, const verify_report_t *rep, const json_envelope_t *e) {
  const explore_result_t *res = rep->res;
  strbuf_printf(sb, "%s],\n", rep->shown ? "\n  " : "");
  json_envelope_tail(sb, e);
  strbuf_printf(sb, "  \"total_counterexamples\": %zu,\n", res->nstreamed);
  if (rep->dropped) strbuf_printf(sb, "  \"below_min_prob\": %zu,\n", rep->dropped);
  if (res->nstreamed) strbuf_printf(sb, "  \"estimator\": \"%s\",\n", rep->joint ? "joint" : "per-rule");
  json_stats(sb, rep, res->reason == NULL);
  strbuf_puts(sb, "}\n");
}
