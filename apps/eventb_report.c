#include "apps/eventb_report.h"

#include <stdlib.h>
#include <string.h>

#include "apps/compartment_svg.h"
#include "apps/sarif.h"
#include "ism/alloc.h"
#include "ism/strbuf.h"

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

/* An exact end ("5/2") as a string, an infinite one as null. */
static void json_interval(strbuf_t *sb, const eventb_interval_t *iv, size_t k) {
  strbuf_puts(sb, k ? ", {\"lo\": " : "{\"lo\": ");
  if (iv->lo)
    strbuf_json_string(sb, iv->lo);
  else
    strbuf_puts(sb, "null");
  strbuf_puts(sb, ", \"hi\": ");
  if (iv->hi)
    strbuf_json_string(sb, iv->hi);
  else
    strbuf_puts(sb, "null");
  strbuf_printf(sb, ", \"lo_closed\": %s, \"hi_closed\": %s}", iv->lo && iv->lo_closed ? "true" : "false",
                iv->hi && iv->hi_closed ? "true" : "false");
}

static char *render_json(const eventb_model_t *m, const eventb_result_t *res) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_puts(&sb, "{\n  \"model\": ");
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
    strbuf_printf(&sb, ", \"method\": \"%s\", \"integer\": %s, \"rows\": [", eventb_method_name(pic->method),
                  !pic->variable ? "null"
                  : pic->is_int  ? "true"
                                 : "false");
    for (size_t r = 0; r < pic->nrows && !pic->reason; r++) {
      strbuf_puts(&sb, r ? ",\n    {\"name\": " : "\n    {\"name\": ");
      strbuf_json_string(&sb, pic->rows[r].name);
      strbuf_printf(&sb, ", \"kind\": \"%s\", \"set\": ", row_kind_name(pic->rows[r].kind));
      strbuf_json_string(&sb, pic->rows[r].set ? pic->rows[r].set : "");
      strbuf_puts(&sb, ", \"intervals\": [");
      for (size_t k = 0; k < pic->rows[r].nintervals; k++) json_interval(&sb, &pic->rows[r].intervals[k], k);
      strbuf_puts(&sb, "]}");
    }
    strbuf_puts(&sb, "]}");
  }
  strbuf_printf(&sb, ",\n  \"unknown\": %s}\n", res->unknown ? "true" : "false");
  return strbuf_take(&sb);
}

/* ---- SARIF: a result per check that makes the run violated ---- */

enum { RULE_CHECK, RULE_NO_ROBUSTIFICATION };
static const sarif_rule_t eventb_rules[] = {
    {"ISMV-EVENTB-CHECK", "ModelCheckFails",
     "A proof obligation of the Event-B model fails: invariant, feasibility, partitioning or "
     "well-definedness.",
     "The solver found a witness against one of the model's own checks (Rodin's INV, FIS or WD proof "
     "obligations, or the partitioning of the controller events' guards). The result is located at the event "
     "(or invariant) of the witness; the message gives the failing obligation and the witness's values.",
     "Run `ismv eventb MODEL.yaml` for the full witness, then fix the event's guard or action, or the "
     "invariant. docs/eventb.md explains each check."},
    {"ISMV-EVENTB-NO-ROBUSTIFICATION", "NoRobustification",
     "The controller cannot be robustified against the model's uncertainty.",
     "The model declares an uncertainty (perceived values within an error of the true ones) but neither the "
     "action-preserving nor the repurposing robustification satisfies its theorem's conditions, or it was "
     "refused because a model check fails. The result is located at the uncertainty.",
     "Run `ismv eventb MODEL.yaml` to see which theorem condition fails; reduce the error bound (--max-error "
     "finds the largest that works) or widen the controller's margins. docs/eventb.md explains the method."},
};

static bool required_check(const char *name) {
  static const char *const required[] = {"invariant", "feasibility", "partitioning", "well-definedness"};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++)
    if (strcmp(name, required[i]) == 0) return true;
  return false;
}

/* Where a check's witness points in the model: its event, else the
 * invariant its label names, else nowhere in particular (line 0). */
static loc_t check_loc(const eventb_model_t *m, const eventb_check_t *c) {
  const eventb_event_t *groups[2] = {m->plant, m->ctrl};
  size_t sizes[2] = {m->nplant, m->nctrl};
  for (int g = 0; g < 2 && c->event; g++)
    for (size_t i = 0; i < sizes[g]; i++)
      if (strcmp(groups[g][i].name, c->event) == 0) return groups[g][i].loc;
  for (size_t i = 0; i < m->ninvs && c->label; i++) {
    char *part = xasprintf("/%s/", m->invs[i].label);
    bool named = strstr(c->label, part) != NULL;
    free(part);
    if (named) return m->invs[i].loc;
  }
  return (loc_t){0};
}

static void sarif_check(strbuf_t *sb, bool *first, const eventb_model_t *m, const eventb_check_t *c) {
  strbuf_t msg;
  strbuf_init(&msg);
  strbuf_printf(&msg, "%s fails", c->name);
  if (c->label) strbuf_printf(&msg, " (%s)", c->label);
  strbuf_puts(&msg, ":\n");
  text_witness(&msg, c);
  sarif_result_begin(sb, first, eventb_rules, RULE_CHECK, "error", strbuf_str(&msg));
  strbuf_free(&msg);
  loc_t at = check_loc(m, c);
  strbuf_puts(sb, ", \"locations\": [");
  sarif_location(sb, m->path, at.line, at.col);
  char *key = xasprintf("%s\x1f%s\x1f%s", c->name, c->label ? c->label : "", c->event ? c->event : "");
  strbuf_puts(sb, "], ");
  sarif_fingerprints(sb, "ismvEventbCheck/v1", key);
  strbuf_putc(sb, '}');
  free(key);
}

static void sarif_no_robustification(strbuf_t *sb, bool *first, const eventb_model_t *m,
                                     const eventb_result_t *res) {
  strbuf_t msg;
  strbuf_init(&msg);
  if (res->robust.refused)
    strbuf_printf(&msg, "no robustification: refused, the model fails its %s check", res->robust.refused);
  else
    strbuf_puts(&msg, "no robustification satisfies its theorem's conditions");
  for (size_t i = 0; i < res->nchecks; i++) {
    const eventb_check_t *c = &res->checks[i];
    if (c->verdict != EVENTB_FAILS || required_check(c->name)) continue;
    strbuf_printf(&msg, "\n%s fails", c->name);
    if (c->label) strbuf_printf(&msg, " (%s)", c->label);
    strbuf_puts(&msg, ":\n");
    text_witness(&msg, c);
  }
  sarif_result_begin(sb, first, eventb_rules, RULE_NO_ROBUSTIFICATION, "error", strbuf_str(&msg));
  strbuf_free(&msg);
  loc_t at = {0};
  for (size_t v = 0; v < m->nvars && !at.line; v++)
    if (m->vars[v].uncertain) at = m->vars[v].unc_loc;
  strbuf_puts(sb, ", \"locations\": [");
  sarif_location(sb, m->path, at.line, at.col);
  strbuf_puts(sb, "], ");
  sarif_fingerprints(sb, "ismvEventbCheck/v1", "no-robustification");
  strbuf_putc(sb, '}');
}

static char *render_sarif(const eventb_model_t *m, const eventb_result_t *res) {
  strbuf_t sb;
  strbuf_init(&sb);
  sarif_begin(&sb, eventb_rules, sizeof eventb_rules / sizeof *eventb_rules);
  bool first = true, any_required = false;
  for (size_t i = 0; i < res->nchecks; i++) {
    const eventb_check_t *c = &res->checks[i];
    if (c->verdict != EVENTB_FAILS || !required_check(c->name)) continue;
    sarif_check(&sb, &first, m, c);
    any_required = true;
  }
  /* a refused robustification is explained by the failing check above */
  if (m->has_uncertainty && res->robust.method == EVENTB_NONE && !any_required && !res->unknown &&
      !res->error)
    sarif_no_robustification(&sb, &first, m, res);
  bool complete = !res->unknown && !res->error;
  char *note = xasprintf("%s: %s", res->error ? "internal error" : "inconclusive",
                         res->reason ? res->reason : "the solver answered unknown");
  const char *notes[] = {note};
  sarif_end(&sb, complete, notes, 1);
  free(note);
  return strbuf_take(&sb);
}

char *eventb_render(const eventb_model_t *m, const eventb_result_t *res, const char *format) {
  if (strcmp(format, "sarif") == 0) return render_sarif(m, res);
  return strcmp(format, "json") == 0 ? render_json(m, res) : render_text(m, res);
}

/* ---- the compartment picture ---- */

char *eventb_render_svg(const eventb_model_t *m, const eventb_result_t *res) {
  const eventb_picture_t *pic = &res->picture;
  compartment_row_t *rows = xcalloc(pic->nrows + 1, sizeof *rows);
  size_t total = 0;
  for (size_t r = 0; r < pic->nrows; r++) total += pic->rows[r].nintervals;
  compartment_interval_t *ivs = xcalloc(total + 1, sizeof *ivs), *next = ivs;
  for (size_t r = 0; r < pic->nrows; r++) {
    const eventb_row_t *row = &pic->rows[r];
    rows[r] = (compartment_row_t){row->name,
                                  row->kind == EVENTB_ROW_ORIGINAL      ? COMPARTMENT_ORIGINAL
                                  : row->kind == EVENTB_ROW_COMPARTMENT ? COMPARTMENT_EVENT
                                                                        : COMPARTMENT_FAILS,
                                  next, row->nintervals};
    for (size_t k = 0; k < row->nintervals; k++, next++) {
      const eventb_interval_t *iv = &row->intervals[k];
      *next = (compartment_interval_t){iv->lo, iv->hi, iv->lo_closed, iv->hi_closed};
    }
  }
  compartment_picture_t view = {.model = m->name,
                                .variable = pic->variable,
                                .method = eventb_method_name(pic->method),
                                .fixed = pic->fixed,
                                .is_int = pic->is_int,
                                .rows = rows,
                                .nrows = pic->nrows};
  strbuf_t sb;
  strbuf_init(&sb);
  compartment_svg(&sb, &view);
  free(ivs);
  free(rows);
  return strbuf_take(&sb);
}
