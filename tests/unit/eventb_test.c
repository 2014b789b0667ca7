/* Unit tests of verifier/eventb: the paper's heater examples, with every
 * answer re-checked independently (witness replay by evaluation, guard
 * equivalence by the solver, reload of the written model). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/expr.h"
#include "verifier/eventb/eventb.h"
#include "verifier/smt.h"
#include "tests/unit/check.h"

static eventb_model_t *load(const char *path) {
  diag_list_t d;
  diag_init(&d);
  eventb_model_t *m = eventb_load(path, &d);
  if (!m) fprintf(stderr, "cannot load %s (%zu errors)\n", path, d.errors);
  diag_free(&d);
  return m;
}

static const char *witness(const eventb_check_t *c, const char *section, const char *name) {
  for (size_t i = 0; i < c->nwitness; i++)
    if (strcmp(c->witness[i].section, section) == 0 && strcmp(c->witness[i].name, name) == 0)
      return c->witness[i].value;
  return NULL;
}

static bool holds(const eventb_result_t *r, const char *name) {
  const eventb_check_t *c = eventb_find_check(r, name);
  return c && c->verdict == EVENTB_HOLDS;
}

typedef struct {
  long long temp, dh;
} heat_env_t;

static value_t lookup_heat(void *ctx, int id, bool primed) {
  heat_env_t *e = ctx;
  (void)primed;
  value_t v = {0, 0};
  v.i = id == 1 ? e->temp : e->dh; /* id 1: temp; the event's parameter otherwise */
  return v;
}

/* The injected model is unsafe, and the witness really is a violation. */
static void test_injection(const eventb_model_t *m, const eventb_result_t *r) {
  CHECK(holds(r, "invariant") && holds(r, "feasibility") && holds(r, "partitioning"));
  const eventb_check_t *c = eventb_find_check(r, "injected-invariant");
  CHECK(c && c->verdict == EVENTB_FAILS && c->event);
  if (!c || c->verdict != EVENTB_FAILS) return;
  const eventb_event_t *ev = NULL;
  for (size_t i = 0; i < m->nctrl; i++)
    if (strcmp(m->ctrl[i].name, c->event) == 0) ev = &m->ctrl[i];
  CHECK(ev && ev->nparams == 1);
  const char *hat = witness(c, "perceived", "temp_hat"), *temp = witness(c, "state", "temp");
  const char *par = ev ? witness(c, "parameters", ev->params[0].name) : NULL,
             *next = witness(c, "next", "temp");
  CHECK(hat && temp && par && next);
  if (!hat || !temp || !par || !next || !ev) return;
  long long th = atoll(hat), t = atoll(temp), p = atoll(par), t1 = atoll(next);
  CHECK(th - 3 <= t && t <= th + 3);
  heat_env_t env = {th, p};
  bool err = false;
  CHECK(expr_eval_bool(ev->guard, lookup_heat, &env, &err) && !err);
  CHECK(t1 < 30 || t1 > 40);
  CHECK_STREQ(witness(c, "next", "tn"), "c");
}

static bool has_vacuous(const eventb_result_t *r, const int *u) {
  for (size_t i = 0; i < r->robust.nvacuous; i++) {
    size_t k = 0;
    while (u[k] >= 0 && r->robust.vacuous[i][k] == u[k]) k++;
    if (u[k] < 0 && r->robust.vacuous[i][k] < 0) return true;
  }
  return false;
}

typedef struct {
  smt_t *s;
  smt_term_t t[3];
} guard_env_t;

static smt_term_t guard_var(void *ctx, const expr_t *v) { return ((guard_env_t *)ctx)->t[v->u.var.id]; }

/* E_{1,2} admits exactly dh = dt in [33 - t, 37 - t] for perceived t in [27, 33). */
static void test_hetero_guard(const eventb_result_t *r) {
  const eventb_revent_t *e = NULL;
  for (size_t i = 0; i < r->robust.nevents; i++)
    if (r->robust.events[i].nu == 2 && r->robust.events[i].u[0] == 0 && r->robust.events[i].u[1] == 1)
      e = &r->robust.events[i];
  CHECK(e != NULL);
  if (!e) return;
  expr_sym_t syms[] = {{"temp_hat", SYM_VAR, {TYPE_INT, -1}, 0, false},
                       {"dh", SYM_PARAM, {TYPE_INT, -1}, 1, false},
                       {"dt", SYM_PARAM, {TYPE_INT, -1}, 2, false}};
  expr_scope_t scope = {.syms = syms, .nsyms = 3};
  arena_t a;
  arena_init(&a);
  diag_list_t d;
  diag_init(&d);
  loc_t at = {"guard", 1, 1};
  expr_t *g = expr_parse(e->guard, at, &a, &d);
  expr_t *want = expr_parse(
      "27 <= temp_hat and temp_hat < 33 and dh == dt and 33 - temp_hat <= dh and dh <= 37 - temp_hat", at, &a,
      &d);
  CHECK(g && want && expr_check(g, &scope, TYPE_BOOL, &a, &d) && expr_check(want, &scope, TYPE_BOOL, &a, &d));
  if (g && want && !diag_has_errors(&d)) {
    guard_env_t env = {smt_new(NULL), {0}};
    env.t[0] = smt_const(env.s, "temp_hat", SMT_SORT_INT);
    env.t[1] = smt_const(env.s, "dh", SMT_SORT_INT);
    env.t[2] = smt_const(env.s, "dt", SMT_SORT_INT);
    smt_term_t differ = smt_op(env.s, EXPR_NOT,
                               smt_op(env.s, EXPR_IFF, smt_translate(env.s, g, guard_var, &env),
                                      smt_translate(env.s, want, guard_var, &env), 0),
                               0, 0);
    smt_assert(env.s, differ);
    CHECK(smt_check(env.s, NULL, 0) == SMT_UNSAT);
    smt_delete(env.s);
  }
  diag_free(&d);
  arena_free(&a);
}

static void test_written_model(const eventb_model_t *m, const eventb_result_t *r) {
  char *text = eventb_write_model(m, r);
  char path[] = "/tmp/ismv_eventb_testXXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  free(text);
  eventb_model_t *m2 = load(path);
  CHECK(m2 != NULL);
  if (m2) {
    eventb_options_t opt = {.method = EVENTB_AUTO};
    eventb_result_t r2;
    eventb_analyse(m2, &opt, &r2);
    CHECK(holds(&r2, "invariant") && holds(&r2, "feasibility") && holds(&r2, "partitioning"));
    CHECK(!r2.unknown && !r2.error);
    eventb_result_free(&r2);
    eventb_free(m2);
  }
  remove(path);
}

static void test_heater(void) {
  eventb_model_t *m = load("examples/eventb/heater.yaml");
  CHECK(m != NULL);
  if (!m) return;
  eventb_options_t opt = {.method = EVENTB_PRESERVING};
  eventb_result_t r;
  eventb_analyse(m, &opt, &r);
  CHECK(!r.unknown && !r.error);
  test_injection(m, &r);
  CHECK(r.robust.method == EVENTB_PRESERVING && holds(&r, "theorem1"));
  CHECK(has_vacuous(&r, (int[]){0, 1, 2, -1}));
  CHECK(has_vacuous(&r, (int[]){0, 2, -1}));
  CHECK(r.robust.nevents == 5);
  test_hetero_guard(&r);
  test_written_model(m, &r);
  eventb_result_free(&r);
  eventb_free(m);
}

static void test_max_error(eventb_method_t method, double want) {
  eventb_model_t *m = load("examples/eventb/heater_eco_param.yaml");
  CHECK(m != NULL);
  if (!m) return;
  eventb_options_t opt = {.method = method, .max_error = "D"};
  eventb_result_t r;
  eventb_analyse(m, &opt, &r);
  CHECK(r.max_error.ran && r.max_error.found && !r.max_error.unbounded);
  CHECK(r.max_error.number == want && r.max_error.attained);
  char formula[32];
  snprintf(formula, sizeof formula, "0 <= D and D <= %g", want);
  CHECK_STREQ(r.max_error.formula, formula);
  /* the certificate: fixed runs at the value (works) and at value + 1 (fails) */
  CHECK(r.max_error.ncertificates == 2 && r.max_error.certificate[0].works &&
        !r.max_error.certificate[1].works);
  CHECK(r.robust.method == method);
  eventb_result_free(&r);
  eventb_free(m);
}

int main(void) {
  test_heater();
  test_max_error(EVENTB_PRESERVING, 2);
  test_max_error(EVENTB_REPURPOSING, 5);
  return CHECK_RESULT();
}
