#include "apps/eventb_report.h"

#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"

static const char *verdict_text(eventb_verdict_t v) {
  return v == EVENTB_HOLDS ? "holds" : v == EVENTB_FAILS ? "fails" : "unknown (solver)";
}

static void text_witness(strbuf_t *sb, const eventb_check_t *c) {
  if (c->event) strbuf_printf(sb, "  event %s: ", c->event);
  else strbuf_puts(sb, "  ");
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
    if (json) strbuf_json_string(sb, m->ctrl[u[k]].name);
    else strbuf_puts(sb, m->ctrl[u[k]].name);
  }
  strbuf_putc(sb, json ? ']' : '}');
}

static char *render_text(const eventb_model_t *m, const eventb_result_t *res) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_printf(&sb, "model %s: %zu variable%s, %zu plant event%s, %zu controller event%s\n", m->name, m->nvars,
                m->nvars == 1 ? "" : "s", m->nplant, m->nplant == 1 ? "" : "s", m->nctrl, m->nctrl == 1 ? "" : "s");
  for (size_t i = 0; i < res->nchecks; i++) {
    const eventb_check_t *c = &res->checks[i];
    strbuf_printf(&sb, "%s: %s\n", c->name, verdict_text(c->verdict));
    if (c->verdict == EVENTB_FAILS) text_witness(&sb, c);
  }
  const eventb_robust_t *r = &res->robust;
  if (r->ran) {
    strbuf_printf(&sb, "robustification: %s", eventb_method_name(r->method));
    if (r->method != EVENTB_NONE) strbuf_printf(&sb, ", %zu events, %zu vacuous", r->nevents, r->nvacuous);
    strbuf_putc(&sb, '\n');
    for (size_t i = 0; i < r->nevents; i++) {
      const eventb_revent_t *e = &r->events[i];
      strbuf_printf(&sb, "  event %s, u = ", e->name);
      put_subset(&sb, m, e->u, e->nu, false);
      strbuf_puts(&sb, "\n    params:");
      for (size_t j = 0; j < e->nparams; j++) strbuf_printf(&sb, "%s %s: %s", j ? "," : "", e->param_names[j], e->param_types[j]);
      strbuf_printf(&sb, "%s\n    guard: %s\n    action: %s\n", e->nparams ? "" : " none", e->guard, e->action);
    }
    for (size_t i = 0; i < r->nvacuous; i++) {
      strbuf_puts(&sb, "  vacuous, dropped: u = ");
      put_subset(&sb, m, r->vacuous[i], m->nctrl, false);
      strbuf_putc(&sb, '\n');
    }
  }
  const eventb_max_error_t *me = &res->max_error;
  if (me->ran) {
    strbuf_printf(&sb, "max error of %s (%s): ", me->parameter, eventb_method_name(me->method));
    if (me->unbounded) strbuf_printf(&sb, "unbounded (%s)\n", me->formula);
    else if (me->found && me->value) strbuf_printf(&sb, "%s (%s)\n", me->value, me->formula);
    else strbuf_printf(&sb, "none (%s)\n", me->formula);
  }
  return strbuf_take(&sb);
}

/* Integers and decimals as JSON numbers, everything else as strings. */
static void json_value(strbuf_t *sb, const char *v) {
  char *end;
  double x = strtod(v, &end);
  if (*v && *end == '\0' && !strchr(v, '/')) strbuf_json_number(sb, x);
  else if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) strbuf_puts(sb, v);
  else strbuf_json_string(sb, v);
}

static void json_check(strbuf_t *sb, const eventb_check_t *c) {
  strbuf_json_string(sb, c->name);
  strbuf_printf(sb, ": {\"holds\": %s", c->verdict == EVENTB_HOLDS ? "true" : c->verdict == EVENTB_FAILS ? "false" : "null");
  if (c->verdict == EVENTB_FAILS) {
    strbuf_puts(sb, ", \"event\": ");
    if (c->event) strbuf_json_string(sb, c->event);
    else strbuf_puts(sb, "null");
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
  strbuf_puts(sb, "]}");
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
  strbuf_puts(&sb, "}");
  if (res->robust.ran) json_robust(&sb, m, &res->robust);
  const eventb_max_error_t *me = &res->max_error;
  if (me->ran) {
    strbuf_puts(&sb, ",\n  \"max_error\": {\"parameter\": ");
    strbuf_json_string(&sb, me->parameter);
    strbuf_puts(&sb, ", \"method\": ");
    strbuf_json_string(&sb, eventb_method_name(me->method));
    strbuf_printf(&sb, ", \"unbounded\": %s, \"value\": ", me->unbounded ? "true" : "false");
    if (me->found && me->value) json_value(&sb, me->value);
    else strbuf_puts(&sb, "null");
    strbuf_puts(&sb, ", \"formula\": ");
    strbuf_json_string(&sb, me->formula ? me->formula : "");
    strbuf_putc(&sb, '}');
  }
  strbuf_printf(&sb, ",\n  \"unknown\": %s}\n", res->unknown ? "true" : "false");
  return strbuf_take(&sb);
}

char *eventb_render(const eventb_model_t *m, const eventb_result_t *res, const char *format) {
  return strcmp(format, "json") == 0 ? render_json(m, res) : render_text(m, res);
}
