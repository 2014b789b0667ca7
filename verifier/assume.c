#include "verifier/assume.h"

#include <stdlib.h>

#include "ism/alloc.h"
#include "verifier/smt.h"

typedef struct {
  const ism_model_t *m;
  smt_term_t *init; /* [nvars]: each variable's initial value */
} start_t;

static smt_term_t read_init(void *ctx, const expr_t *var) { return ((start_t *)ctx)->init[var->u.var.id]; }

static smt_sort_t sort_of(type_t t) {
  return t.kind == TYPE_BOOL ? SMT_SORT_BOOL : t.kind == TYPE_REAL ? SMT_SORT_REAL : SMT_SORT_INT;
}

/* The initial values: sensing variables within their ranges, normal ones at their init (or free). */
static void encode_start(smt_t *s, start_t *st) {
  const ism_model_t *m = st->m;
  for (size_t v = 0; v < m->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    st->init[v] = smt_const(s, var->name, sort_of(var->type));
    smt_term_t t = var->type.kind == TYPE_INT ? smt_op(s, EXPR_TOREAL, st->init[v], 0, 0) : st->init[v];
    if (var->sensing && var->has_range) {
      smt_assert(s, smt_op(s, EXPR_LE, smt_real(s, var->range_lo), t, 0));
      smt_assert(s, smt_op(s, EXPR_LE, t, smt_real(s, var->range_hi), 0));
    }
    if (!var->sensing && var->init) {
      start_t none = {m, NULL};
      smt_assert(s, smt_op(s, EXPR_EQ, st->init[v], smt_translate(s, var->init, read_init, &none), 0));
    }
  }
}

bool assume_check(const ism_model_t *m, diag_list_t *diags) {
  if (!m->nassume) return true;
  smt_options_t so = {0, 0, false};
  smt_t *s = smt_new(&so);
  start_t st = {m, xcalloc(m->nvars + 1, sizeof(smt_term_t))};
  encode_start(s, &st);
  smt_term_t *a = xcalloc(m->nassume + 1, sizeof *a);
  bool ok = true;
  for (size_t k = 0; k < m->nassume; k++) {
    a[k] = smt_translate(s, m->assume[k], read_init, &st);
    if (smt_check(s, &a[k], 1) == SMT_UNSAT) {
      diag_error(diags, m->assume[k]->loc,
                 "this assumption cannot hold for any initial values within the ranges");
      ok = false;
    }
  }
  if (ok && smt_check(s, a, m->nassume) == SMT_UNSAT) {
    diag_error(diags, m->assume[m->nassume - 1]->loc,
               "the assumptions cannot hold together for any initial values within the ranges");
    ok = false;
  }
  free(a), free(st.init);
  smt_delete(s);
  return ok;
}
