/* Writes a robustified model in the YAML format eventb_load reads: the
 * perceived copies become variables, the invariant is I^S and I^U, plant
 * events act on the true state and re-perceive it (Fig. 4, line 11), and the
 * controller events are the non-vacuous E_u of the robustification. */
#include "verifier/eventb/eventb.h"

#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"

static void put_quoted(strbuf_t *sb, const char *text) {
  strbuf_putc(sb, '"');
  for (const char *p = text; *p; p++) {
    if (*p == '"' || *p == '\\') strbuf_putc(sb, '\\');
    strbuf_putc(sb, *p);
  }
  strbuf_putc(sb, '"');
}

static void put_expr(strbuf_t *sb, const expr_t *e, const expr_scope_t *scope) {
  char *t = expr_to_string(e, scope);
  strbuf_puts(sb, t);
  free(t);
}

/* s in eps(hat), with suffix "'" for the next state. */
static void put_eps(strbuf_t *sb, const eventb_model_t *m, const eventb_result_t *res, const char *suffix) {
  bool first = true;
  for (size_t i = 0; i < m->nvars; i++) {
    const eventb_var_t *v = &m->vars[i];
    if (!v->uncertain) continue;
    char *lo = expr_to_string(v->lo, &m->scope), *hi = expr_to_string(v->hi, &m->scope);
    strbuf_printf(sb, "%s%s%s + (%s) <= %s%s and %s%s <= %s%s + (%s)", first ? "" : " and ",
                  res->hat_names[i], suffix, lo, v->name, suffix, v->name, suffix, res->hat_names[i], suffix,
                  hi);
    first = false;
    free(lo);
    free(hi);
  }
  if (first) strbuf_puts(sb, "true");
}

static void put_variables(strbuf_t *sb, const eventb_model_t *m, const eventb_result_t *res) {
  strbuf_puts(sb, "variables:\n");
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < m->nvars; i++) {
      const eventb_var_t *v = &m->vars[i];
      if (pass == 1 && !v->uncertain) continue;
      strbuf_printf(sb, "  %s: {type: %s", pass ? res->hat_names[i] : v->name,
                    v->type.kind == TYPE_ENUM ? "enum" : expr_type_name(v->type, NULL));
      if (v->type.kind == TYPE_ENUM) {
        const expr_enum_t *en = &m->enums[v->type.enum_id];
        strbuf_puts(sb, ", values: [");
        for (int k = 0; k < en->nvalues; k++) strbuf_printf(sb, "%s%s", k ? ", " : "", en->values[k]);
        strbuf_putc(sb, ']');
      }
      strbuf_puts(sb, "}\n");
    }
}

static void put_parameters(strbuf_t *sb, const eventb_model_t *m, const eventb_result_t *res) {
  if (m->nparams == 0) return;
  strbuf_puts(sb, "parameters:\n");
  for (size_t j = 0; j < m->nparams; j++) {
    const eventb_param_t *p = &m->params[j];
    strbuf_printf(sb, "  %s: {type: %s", p->name, expr_type_name(p->type, NULL));
    if (p->has_min) strbuf_printf(sb, ", min: %.17g", p->min);
    if (p->has_max) strbuf_printf(sb, ", max: %.17g", p->max);
    strbuf_puts(sb, "}\n");
  }
  /* The robustification is only claimed for the admissible error values. */
  const eventb_max_error_t *me = &res->max_error;
  char *assume = m->assume ? expr_to_string(m->assume, &m->scope) : NULL;
  if (assume || (me->ran && me->assume)) {
    strbuf_puts(sb, "assume: \"");
    if (assume) strbuf_printf(sb, "(%s)%s", assume, me->ran && me->assume ? " and " : "");
    if (me->ran && me->assume) strbuf_printf(sb, "(%s)", me->assume);
    strbuf_puts(sb, "\"\n");
  }
  free(assume);
}

static void put_plant(strbuf_t *sb, const eventb_model_t *m, const eventb_result_t *res) {
  if (m->nplant == 0) return;
  strbuf_puts(sb, "plant:\n");
  for (size_t k = 0; k < m->nplant; k++) {
    const eventb_event_t *ev = &m->plant[k];
    strbuf_printf(sb, "  - name: %s\n", ev->name);
    if (ev->nparams) {
      strbuf_puts(sb, "    params: {");
      for (size_t j = 0; j < ev->nparams; j++)
        strbuf_printf(sb, "%s%s: %s", j ? ", " : "", ev->params[j].name,
                      expr_type_name(ev->params[j].type, NULL));
      strbuf_puts(sb, "}\n");
    }
    strbuf_puts(sb, "    guard: ");
    char *g = expr_to_string(ev->guard, &ev->scope);
    put_quoted(sb, g);
    free(g);
    strbuf_t a;
    strbuf_init(&a);
    strbuf_putc(&a, '(');
    put_expr(&a, ev->action, &ev->scope);
    strbuf_putc(&a, ')');
    for (size_t i = 0; i < m->nvars; i++)
      if (!ev->primed[i]) strbuf_printf(&a, " and %s' == %s", m->vars[i].name, m->vars[i].name);
    strbuf_puts(&a, " and ");
    put_eps(&a, m, res, "'");
    strbuf_puts(sb, "\n    action: ");
    put_quoted(sb, strbuf_str(&a));
    strbuf_puts(sb, "\n");
    strbuf_free(&a);
  }
}

static void put_controller(strbuf_t *sb, const eventb_model_t *m, const eventb_result_t *res) {
  strbuf_puts(sb, "controller:\n");
  for (size_t i = 0; i < res->robust.nevents; i++) {
    const eventb_revent_t *e = &res->robust.events[i];
    strbuf_printf(sb, "  - name: %s\n    description: \"E_u for u = {", e->name);
    for (size_t k = 0; k < e->nu; k++) strbuf_printf(sb, "%s%s", k ? ", " : "", m->ctrl[e->u[k]].name);
    strbuf_puts(sb, "}\"\n");
    if (e->nparams) {
      strbuf_puts(sb, "    params: {");
      for (size_t j = 0; j < e->nparams; j++)
        strbuf_printf(sb, "%s%s: %s", j ? ", " : "", e->param_names[j], e->param_types[j]);
      strbuf_puts(sb, "}\n");
    }
    strbuf_puts(sb, "    guard: ");
    put_quoted(sb, e->guard);
    strbuf_puts(sb, "\n    action: ");
    put_quoted(sb, e->action);
    strbuf_puts(sb, "\n");
  }
}

char *eventb_write_model(const eventb_model_t *m, const eventb_result_t *res) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_printf(&sb, "# %s robustification of '%s' by ismv eventb (docs/eventb.md)\n",
                res->robust.method == EVENTB_PRESERVING ? "action-preserving" : "action-repurposing",
                m->name);
  strbuf_printf(&sb, "kind: eventb\nname: %s_%s\n", m->name, eventb_method_name(res->robust.method));
  put_variables(&sb, m, res);
  put_parameters(&sb, m, res);
  strbuf_t t;
  strbuf_init(&t);
  strbuf_putc(&t, '(');
  put_expr(&t, m->invariant, &m->scope);
  strbuf_puts(&t, ") and ");
  put_eps(&t, m, res, "");
  strbuf_puts(&sb, "invariant: ");
  put_quoted(&sb, strbuf_str(&t));
  strbuf_clear(&t);
  strbuf_putc(&t, '(');
  put_expr(&t, m->initial, &m->scope);
  strbuf_puts(&t, ") and ");
  put_eps(&t, m, res, "");
  strbuf_puts(&sb, "\ninitial: ");
  put_quoted(&sb, strbuf_str(&t));
  strbuf_puts(&sb, "\n");
  strbuf_free(&t);
  put_plant(&sb, m, res);
  put_controller(&sb, m, res);
  return strbuf_take(&sb);
}
