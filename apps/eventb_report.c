#include "apps/eventb_report.h"

#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"
#include "ism/vec.h"

static const char *verdict_text(eventb_verdict_t v) {
  return v == EVENTB_HOLDS ? "holds" : v == EVENTB_FAILS ? "fails" : "unknown (solver)";
}

static void text_witness(strbuf_t *sb, const eventb_check_t *c) {
  if (c->event)
    strbuf_printf(sb, "  event %s: ", c->event);
  else
    strbuf_puts(sb, "  ");
  strbuf_printf(sb, "%s\n", c->detail ? c->detail : "witness");
  const char *section = NULL;
  for (size_t i = 0; i < c->nwitness; i++) {
    const eventb_binding_t *b = &c->witness[i];
    if (!section || strcmp(section, b->section) != 0) {
      strbuf_printf(sb, "%s    %s: ", section ? "\n" : "", b->section);
      section = b->section;
    } else {
      strbuf_puts(sb, ", ");
    }
    strbuf_printf(sb, "%s = %s", b->name, b->value);
  }
  if (section) strbuf_putc(sb, '\n');
}

static void put_subset(strbuf_t *sb, const eventb_model_t *m, const int *u, size_t nu, bool json) {
  strbuf_putc(sb, json ? '[' : '{');
  for (size_t k = 0; k < nu && u[k] >= 0; k++) {
    if (k) strbuf_puts(sb, ", ");
    if (json)
      strbuf_json_string(sb, m->ctrl[u[k]].name);
    else
      strbuf_puts(sb, m->ctrl[u[k]].name);
  }
  strbuf_putc(sb, json ? ']' : '}');
}

static bool refused_unknown(const eventb_result_t *res) {
  const eventb_check_t *c = eventb_find_check(res, res->robust.refused);
  return c && c->verdict == EVENTB_UNKNOWN;
}

static const char *row_kind_name(eventb_row_kind_t k) {
  return k == EVENTB_ROW_ORIGINAL ? "original" : k == EVENTB_ROW_COMPARTMENT ? "compartment" : "fails";
}

static char *render_text(const eventb_model_t *m, const eventb_result_t *res) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_printf(&sb, "model %s: %zu variable%s, %zu plant event%s, %zu controller event%s\n", m->name,
                m->nvars, m->nvars == 1 ? "" : "s", m->nplant, m->nplant == 1 ? "" : "s", m->nctrl,
                m->nctrl == 1 ? "" : "s");
  for (size_t i = 0; i < res->nchecks; i++) {
    const eventb_check_t *c = &res->checks[i];
    strbuf_printf(&sb, "%s: %s", c->name, verdict_text(c->verdict));
    if (c->po && c->label)
      strbuf_printf(&sb, " (%s)", c->label);
    else if (c->po)
      strbuf_printf(&sb, " (%s: %zu proof obligation%s)", c->po, c->obligations,
                    c->obligations == 1 ? "" : "s");
    strbuf_putc(&sb, '\n');
    if (c->verdict == EVENTB_FAILS) text_witness(&sb, c);
  }
  for (size_t i = 0; i < res->ndead_events; i++)
    strbuf_printf(&sb, "warning: event %s is dead: its guard holds in no state of the invariant\n",
                  res->dead_events[i]);
  const eventb_robust_t *r = &res->robust;
  if (r->ran) {
    if (r->refused)
      strbuf_printf(&sb,
                    "robustification: refused: %s %s check (robustification needs invariant, feasibility and "
                    "partitioning)",
                    refused_unknown(res) ? "the solver could not decide the model's" : "the model fails its",
                    r->refused);
    else
      strbuf_printf(&sb, "robustification: %s", eventb_method_name(r->method));
    if (r->method != EVENTB_NONE)
      strbuf_printf(&sb, ", %zu events, %llu vacuous", r->nevents, r->nvacuous_all);
    strbuf_putc(&sb, '\n');
    for (size_t i = 0; i < r->nevents; i++) {
      const eventb_revent_t *e = &r->events[i];
      strbuf_printf(&sb, "  event %s, u = ", e->name);
      put_subset(&sb, m, e->u, e->nu, false);
      strbuf_puts(&sb, "\n    params:");
      for (size_t j = 0; j < e->nparams; j++)
        strbuf_printf(&sb, "%s %s: %s", j ? "," : "", e->param_names[j], e->param_types[j]);
      strbuf_printf(&sb, "%s\n    guard: %s\n    action: %s\n", e->nparams ? "" : " none", e->guard,
                    e->action);
    }
    for (size_t i = 0; i < r->nvacuous; i++) {
      strbuf_puts(&sb, "  vacuous, dropped: u = ");
      put_subset(&sb, m, r->vacuous[i], m->nctrl, false);
      strbuf_putc(&sb, '\n');
    }
    if (r->nvacuous_all > r->nvacuous)
      strbuf_printf(&sb, "  %llu more vacuous subsets, not listed (more than %d controller events)\n",
                    r->nvacuous_all - r->nvacuous, EVENTB_LIST_VACUOUS);
  }
  const eventb_max_error_t *me = &res->max_error;
  if (me->ran) {
    strbuf_printf(&sb, "max error of %s (%s): ", me->parameter, eventb_method_name(me->method));
    if (me->unbounded)
      strbuf_puts(&sb, "unbounded");
    else if (me->value)
      strbuf_printf(&sb, "%s %s, %s", me->attained ? "max" : "sup", me->value,
                    me->attained ? "attained" : "not attained");
    else
      strbuf_puts(&sb, "none");
    strbuf_printf(&sb, " (admissible: %s)\n", me->formula ? me->formula : "?");
    if (me->ncertificates) {
      strbuf_puts(&sb, "  certified by fixed runs:");
      for (size_t i = 0; i < me->ncertificates; i++)
        strbuf_printf(&sb, "%s %s = %s %s", i ? "," : "", me->parameter, me->certificate[i].at,
                      me->certificate[i].works ? "works" : "fails");
      strbuf_putc(&sb, '\n');
    }
  }
  const eventb_picture_t *pic = &res->picture;
  if (pic->ran && !pic->reason) {
    strbuf_printf(&sb, "picture of %s%s%s:\n", pic->variable, pic->fixed ? " at " : "",
                  pic->fixed ? pic->fixed : "");
    for (size_t k = 0; k < pic->nrows; k++) {
      strbuf_printf(&sb, "  %s %s: ", row_kind_name(pic->rows[k].kind), pic->rows[k].name);
      strbuf_printf(&sb, "%s\n", pic->rows[k].set ? pic->rows[k].set : "?");
    }
  } else if (pic->ran) {
    strbuf_printf(&sb, "picture: none (%s)\n", pic->reason);
  }
  if (res->unknown && !res->error && res->reason) strbuf_printf(&sb, "inconclusive: %s\n", res->reason);
  return strbuf_take(&sb);
}

/* Integers and decimals as JSON numbers, everything else as strings. */
static void json_value(strbuf_t *sb, const char *v) {
  char *end;
  double x = strtod(v, &end);
  if (*v && *end == '\0' && !strchr(v, '/'))
    strbuf_json_number(sb, x);
  else if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
    strbuf_puts(sb, v);
  else
    strbuf_json_string(sb, v);
}

static void json_check(strbuf_t *sb, const eventb_check_t *c) {
  strbuf_json_string(sb, c->name);
  strbuf_printf(sb, ": {\"holds\": %s",
                c->verdict == EVENTB_HOLDS   ? "true"
                : c->verdict == EVENTB_FAILS ? "false"
                                             : "null");
  if (c->po) {
    strbuf_puts(sb, ", \"po\": ");
    strbuf_json_string(sb, c->po);
    strbuf_printf(sb, ", \"obligations\": %zu", c->obligations);
  }
  if (c->label) {
    strbuf_puts(sb, ", \"label\": ");
    strbuf_json_string(sb, c->label);
  }
  if (c->verdict == EVENTB_FAILS) {
    strbuf_puts(sb, ", \"event\": ");
    if (c->event)
      strbuf_json_string(sb, c->event);
    else
      strbuf_puts(sb, "null");
    strbuf_puts(sb, ", \"detail\": ");
    strbuf_json_string(sb, c->detail ? c->detail : "");
    strbuf_puts(sb, ", \"witness\": {");
    const char *section = NULL;
    for (size_t i = 0; i < c->nwitness; i++) {
      const eventb_binding_t *b = &c->witness[i];
      if (!section || strcmp(section, b->section) != 0) {
        if (section) strbuf_puts(sb, "}, ");
        strbuf_json_string(sb, b->section);
        strbuf_puts(sb, ": {");
        section = b->section;
      } else {
        strbuf_puts(sb, ", ");
      }
      strbuf_json_string(sb, b->name);
      strbuf_puts(sb, ": ");
      json_value(sb, b->value);
    }
    strbuf_puts(sb, section ? "}}" : "}");
  }
  strbuf_putc(sb, '}');
}

static void json_robust(strbuf_t *sb, const eventb_model_t *m, const eventb_robust_t *r) {
  strbuf_puts(sb, ",\n  \"robustification\": {\"method\": ");
  strbuf_json_string(sb, eventb_method_name(r->method));
  if (r->refused) {
    strbuf_puts(sb, ", \"refused\": ");
    strbuf_json_string(sb, r->refused);
  }
  strbuf_puts(sb, ", \"events\": [");
  for (size_t i = 0; i < r->nevents; i++) {
    const eventb_revent_t *e = &r->events[i];
    strbuf_puts(sb, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
    strbuf_json_string(sb, e->name);
    strbuf_puts(sb, ", \"u\": ");
    put_subset(sb, m, e->u, e->nu, true);
    strbuf_puts(sb, ", \"params\": {");
    for (size_t j = 0; j < e->nparams; j++) {
      if (j) strbuf_puts(sb, ", ");
      strbuf_json_string(sb, e->param_names[j]);
      strbuf_puts(sb, ": ");
      strbuf_json_string(sb, e->param_types[j]);
    }
    strbuf_puts(sb, "}, \"guard\": ");
    strbuf_json_string(sb, e->guard);
    strbuf_puts(sb, ", \"action\": ");
    strbuf_json_string(sb, e->action);
    strbuf_putc(sb, '}');
  }
  strbuf_puts(sb, r->nevents ? "],\n    \"vacuous\": [" : "], \"vacuous\": [");
  for (size_t i = 0; i < r->nvacuous; i++) {
    if (i) strbuf_puts(sb, ", ");
    put_subset(sb, m, r->vacuous[i], m->nctrl, true);
  }
  strbuf_printf(sb, "], \"vacuous_count\": %llu}", r->nvacuous_all);
}

static char *render_json(const eventb_model_t *m, const eventb_result_t *res) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_puts(&sb, "{\"model\": ");
  strbuf_json_string(&sb, m->name);
  strbuf_puts(&sb, ",\n  \"checks\": {");
  for (size_t i = 0; i < res->nchecks; i++) {
    strbuf_puts(&sb, i ? ",\n    " : "\n    ");
    json_check(&sb, &res->checks[i]);
  }
  strbuf_puts(&sb, "},\n  \"dead_events\": [");
  for (size_t i = 0; i < res->ndead_events; i++) {
    if (i) strbuf_puts(&sb, ", ");
    strbuf_json_string(&sb, res->dead_events[i]);
  }
  strbuf_puts(&sb, "]");
  if (res->robust.ran) json_robust(&sb, m, &res->robust);
  const eventb_max_error_t *me = &res->max_error;
  if (me->ran) {
    strbuf_puts(&sb, ",\n  \"max_error\": {\"parameter\": ");
    strbuf_json_string(&sb, me->parameter);
    strbuf_puts(&sb, ", \"method\": ");
    strbuf_json_string(&sb, eventb_method_name(me->method));
    strbuf_puts(&sb, ", \"value\": ");
    if (me->value)
      strbuf_json_string(&sb, me->value);
    else
      strbuf_puts(&sb, "null");
    strbuf_puts(&sb, ", \"approx\": ");
    if (me->value)
      strbuf_json_number(&sb, me->number);
    else
      strbuf_puts(&sb, "null");
    strbuf_printf(&sb, ", \"attained\": %s, \"unbounded\": %s, \"formula\": ",
                  me->value && me->attained ? "true" : "false", me->unbounded ? "true" : "false");
    strbuf_json_string(&sb, me->formula ? me->formula : "");
    strbuf_puts(&sb, ", \"certificates\": [");
    for (size_t i = 0; i < me->ncertificates; i++) {
      strbuf_puts(&sb, i ? ", {\"at\": " : "{\"at\": ");
      strbuf_json_string(&sb, me->certificate[i].at);
      strbuf_printf(&sb, ", \"works\": %s}", me->certificate[i].works ? "true" : "false");
    }
    strbuf_puts(&sb, "]}");
  }
  const eventb_picture_t *pic = &res->picture;
  if (pic->ran) {
    strbuf_puts(&sb, ",\n  \"picture\": {\"variable\": ");
    if (pic->variable)
      strbuf_json_string(&sb, pic->variable);
    else
      strbuf_puts(&sb, "null");
    strbuf_puts(&sb, ", \"fixed\": ");
    if (pic->fixed)
      strbuf_json_string(&sb, pic->fixed);
    else
      strbuf_puts(&sb, "null");
    strbuf_puts(&sb, ", \"reason\": ");
    if (pic->reason)
      strbuf_json_string(&sb, pic->reason);
    else
      strbuf_puts(&sb, "null");
    strbuf_puts(&sb, ", \"rows\": [");
    for (size_t r = 0; r < pic->nrows && !pic->reason; r++) {
      strbuf_puts(&sb, r ? ",\n    {\"name\": " : "\n    {\"name\": ");
      strbuf_json_string(&sb, pic->rows[r].name);
      strbuf_printf(&sb, ", \"kind\": \"%s\", \"set\": ", row_kind_name(pic->rows[r].kind));
      strbuf_json_string(&sb, pic->rows[r].set ? pic->rows[r].set : "");
      strbuf_putc(&sb, '}');
    }
    strbuf_puts(&sb, "]}");
  }
  strbuf_printf(&sb, ",\n  \"unknown\": %s}\n", res->unknown ? "true" : "false");
  return strbuf_take(&sb);
}

char *eventb_render(const eventb_model_t *m, const eventb_result_t *res, const char *format) {
  return strcmp(format, "json") == 0 ? render_json(m, res) : render_text(m, res);
}

/* ---- the compartment picture ---- */

static double rational_value(const char *q) {
  const char *slash = strchr(q, '/');
  return strtod(q, NULL) / (slash ? strtod(slash + 1, NULL) : 1.0);
}

typedef struct {
  double lo, hi;    /* the axis range */
  double x0, width; /* the plot area in pixels */
} axis_t;

static double px(const axis_t *a, double v) { return a->x0 + (v - a->lo) / (a->hi - a->lo) * a->width; }

static const char *row_colour(const eventb_row_t *row) {
  if (row->kind == EVENTB_ROW_ORIGINAL) return "#8c8c8c";
  if (row->kind == EVENTB_ROW_FAILS) return "firebrick";
  return strstr(row->name, "_and_") ? "darkorange" : "steelblue";
}

/* An interval as a bar; for a real variable a filled (closed) or hollow
 * (open) dot at each finite end, for an int the bar covers whole units. */
static void svg_interval(strbuf_t *sb, const axis_t *a, const eventb_interval_t *iv, bool is_int, double y,
                         const char *colour) {
  double lo = iv->lo ? rational_value(iv->lo) : a->lo, hi = iv->hi ? rational_value(iv->hi) : a->hi;
  if (is_int) {
    if (iv->lo) lo -= 0.5;
    if (iv->hi) hi += 0.5;
  }
  double x1 = px(a, lo), x2 = px(a, hi);
  strbuf_printf(
      sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"%s\" fill-opacity=\"0.8\"/>\n", x1,
      y - 5, x2 - x1 > 1 ? x2 - x1 : 1, colour);
  if (is_int) return;
  if (iv->lo)
    strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\"/>\n", x1, y,
                  iv->lo_closed ? colour : "white", colour);
  if (iv->hi)
    strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\"/>\n", x2, y,
                  iv->hi_closed ? colour : "white", colour);
}

/* The axis: every finite end of every interval, padded. */
static axis_t picture_axis(const eventb_picture_t *pic, double x0, double width) {
  axis_t a = {0, 0, x0, width};
  bool any = false;
  for (size_t r = 0; r < pic->nrows; r++)
    for (size_t k = 0; k < pic->rows[r].nintervals; k++) {
      const eventb_interval_t *iv = &pic->rows[r].intervals[k];
      const char *ends[2] = {iv->lo, iv->hi};
      for (int e = 0; e < 2; e++) {
        if (!ends[e]) continue;
        double v = rational_value(ends[e]);
        if (!any || v < a.lo) a.lo = v;
        if (!any || v > a.hi) a.hi = v;
        any = true;
      }
    }
  double pad = (a.hi - a.lo) * 0.1 > 1 ? (a.hi - a.lo) * 0.1 : 1;
  a.lo -= pad;
  a.hi += pad;
  return a;
}

char *eventb_render_svg(const eventb_model_t *m, const eventb_result_t *res) {
  const eventb_picture_t *pic = &res->picture;
  const double left = 250, width = 620, top = 50, step = 28;
  double height = top + step * (double)pic->nrows + 60;
  axis_t a = picture_axis(pic, left, width);
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_printf(
      &sb,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      left + width + 30, height);
  strbuf_printf(
      &sb,
      "<text x=\"10\" y=\"20\" font-size=\"14\">%s: compartments of the perceived %s (%s "
      "robustification%s%s)</text>\n",
      m->name, pic->variable,
      eventb_method_name(res->robust.method == EVENTB_NONE ? res->max_error.method : res->robust.method),
      pic->fixed ? ", " : "", pic->fixed ? pic->fixed : "");
  strbuf_puts(&sb, "<text x=\"10\" y=\"38\" fill=\"#555\">grey: original guard (perceived = true value); "
                   "blue: one event; orange: "
                   "unsure between events; red: the theorem condition fails</text>\n");
  for (size_t r = 0; r < pic->nrows; r++) {
    const eventb_row_t *row = &pic->rows[r];
    double y = top + step * ((double)r + 0.5);
    strbuf_printf(&sb, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s%s%s</text>\n", left - 10, y + 4,
                  row->kind == EVENTB_ROW_ORIGINAL ? "original " : "", row->name,
                  row->kind == EVENTB_ROW_FAILS ? " fails" : "");
    strbuf_printf(&sb, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", left,
                  left + width, y, y);
    for (size_t k = 0; k < row->nintervals; k++)
      svg_interval(&sb, &a, &row->intervals[k], pic->is_int, y, row_colour(row));
  }
  double ya = top + step * (double)pic->nrows + 10;
  strbuf_printf(&sb, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", left,
                left + width, ya, ya);
  /* ticks at the ends of the compartments, in order, skipping crowded ones */
  typedef struct {
    double x;
    const char *text;
  } tick_t;
  VEC(tick_t) ticks = {0};
  for (size_t r = 0; r < pic->nrows; r++)
    for (size_t k = 0; k < pic->rows[r].nintervals && pic->rows[r].kind == EVENTB_ROW_COMPARTMENT; k++) {
      const eventb_interval_t *iv = &pic->rows[r].intervals[k];
      if (iv->lo) VEC_PUSH(&ticks, ((tick_t){px(&a, rational_value(iv->lo)), iv->lo}));
      if (iv->hi) VEC_PUSH(&ticks, ((tick_t){px(&a, rational_value(iv->hi)), iv->hi}));
    }
  for (size_t i = 1; i < ticks.len; i++) /* insertion sort by position: few ticks */
    for (size_t j = i; j > 0 && ticks.data[j - 1].x > ticks.data[j].x; j--) {
      tick_t t = ticks.data[j];
      ticks.data[j] = ticks.data[j - 1];
      ticks.data[j - 1] = t;
    }
  double last = -1e9;
  for (size_t i = 0; i < ticks.len; i++) {
    if (ticks.data[i].x - last < 28) continue;
    last = ticks.data[i].x;
    strbuf_printf(&sb, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", last,
                  last, ya, ya + 5);
    strbuf_printf(&sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", last, ya + 18,
                  ticks.data[i].text);
  }
  VEC_FREE(&ticks);
  strbuf_printf(&sb, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"middle\">perceived %s</text>\n",
                left + width / 2, ya + 38, pic->variable);
  strbuf_puts(&sb, "</svg>\n");
  return strbuf_take(&sb);
}
