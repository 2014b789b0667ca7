/* Unit tests of divisions in the joint estimator (probability/leaves.c).
 * leaves_may_fail: whether expr_eval may report an error for some values
 * of an expression's variables. The expected answers follow expr_eval's
 * rules (ism/expr.c): a real division fails exactly when its divisor is 0,
 * an int division or modulo when its divisor is 0 or it is LLONG_MIN / -1,
 * int +, -, *, negation and abs when they overflow. Each answer "cannot
 * fail" is also checked by evaluating at many values (huge, infinite, NaN,
 * the least and greatest int), each "may fail" by a value that fails.
 * The compiled programs: every sensing variable's definition and every
 * real comparison's operand of tests/models/leaves-div.yaml that divides
 * is compiled, and computes expr_eval's value exactly (at constant views
 * and finite values). The bundled apps that divide are compiled. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/expr.h"
#include "probability/joint.h"
#include "probability/leaves.h"
#include "tests/unit/check.h"
#include "tests/unit/model.h"

static const expr_sym_t syms[] = {
    {"x", SYM_VAR, {TYPE_REAL, -1}, 0, true},
    {"y", SYM_VAR, {TYPE_REAL, -1}, 1, true},
    {"n", SYM_VAR, {TYPE_INT, -1}, 2, true},
    {"k", SYM_VAR, {TYPE_INT, -1}, 3, true},
};
static const expr_scope_t scope = {syms, 4, NULL, 0, true};

static const double REALS[] = {0,     1,      -1,       0.5,       3,   -7.25, 1e-300,
                               1e300, -1e300, INFINITY, -INFINITY, NAN, -0.0};
static const long long INTS[] = {0, 1, -1, 2, -2, 7, LLONG_MIN, LLONG_MAX, LLONG_MIN + 1, LLONG_MAX - 1};
enum { NREALS = sizeof REALS / sizeof *REALS, NINTS = sizeof INTS / sizeof *INTS };

static value_t at[4];

static value_t lookup(void *ctx, int id, bool primed) {
  (void)ctx, (void)primed;
  return at[id];
}

/* Whether expr_eval reports an error at some of the values above (every
 * combination of the four variables). */
static bool fails_somewhere(const expr_t *e) {
  for (int a = 0; a < NREALS; a++)
    for (int b = 0; b < NREALS; b++)
      for (int c = 0; c < NINTS; c++)
        for (int d = 0; d < NINTS; d++) {
          at[0] = (value_t){0, REALS[a]}, at[1] = (value_t){0, REALS[b]};
          at[2] = (value_t){INTS[c], 0}, at[3] = (value_t){INTS[d], 0};
          bool err = false;
          expr_eval(e, lookup, NULL, &err);
          if (err) return true;
        }
  return false;
}

static void test_may_fail(void) {
  arena_t a;
  arena_init(&a);
  diag_list_t d;
  diag_init(&d);
  struct {
    const char *text;
    bool may_fail;
    bool witness; /* a failing value exists (else the answer is conservative) */
  } cases[] = {
      /* cannot fail: a constant divisor expr_eval never fails by, the dividend checked too */
      {"x / 4", false, false},
      {"x - (x - y) / 4 > y", false, false},
      {"y + x - y - x / 2 >= 0", false, false},
      {"x / -4", false, false},
      {"x / 0.5", false, false},
      {"x / 1e-300", false, false},
      {"x / (2 * 3)", false, false},
      {"x / (0.5 - 0.25)", false, false},
      {"x / 2 / 2", false, false},
      {"x * 2 / 4 < min(x, y) / 3", false, false},
      {"if x > 0 then x / 2 else y / 3", false, false},
      {"n / 2", false, false},
      {"n % 3", false, false},
      {"n / -2", false, false},
      {"n % (3 - 5)", false, false},
      {"x / 3 > y and n / 7 < 2", false, false},
      /* may fail */
      {"x / y", true, true},
      {"x / (y - 1)", true, true},
      {"n / k", true, true},
      {"n % k", true, true},
      {"n / -1", true, true},      /* LLONG_MIN / -1 */
      {"n % -1", true, true},      /* the same */
      {"n / (2 - 3)", true, true}, /* a divisor of -1 */
      {"x / (1 - 1)", true, true}, /* a divisor of 0 the type checker does not see */
      {"x / (0.5 - 0.5)", true, true},
      {"(n + 1) / 2", true, true}, /* the dividend overflows */
      {"x / 2 > y / k", true, true},
      {"x / 4 > 0 and n * 2 > 0", true, true},
      {"n / (9223372036854775807 + 1)", true, true}, /* the divisor itself overflows */
      /* conservative: a divisor that is not finite (expr_eval reports nothing) */
      {"x / (1e300 * 1e300)", true, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    expr_t *e = expr_parse(cases[i].text, (loc_t){"t", 1, 1}, &a, &d);
    bool ok = e && expr_check(e, &scope, TYPE_NONE, &a, &d);
    if (!ok) fprintf(stderr, "%s: does not parse or check\n", cases[i].text);
    CHECK(ok);
    if (!ok) continue;
    bool got = leaves_may_fail(e), fails = fails_somewhere(e);
    if (got != cases[i].may_fail || fails != cases[i].witness)
      fprintf(stderr, "%s: leaves_may_fail %d (want %d), expr_eval fails somewhere %d (want %d)\n",
              cases[i].text, got, cases[i].may_fail, fails, cases[i].witness);
    CHECK(got == cases[i].may_fail);
    CHECK(fails == cases[i].witness);
  }
  diag_free(&d);
  arena_free(&a);
}

/* The frame of the compiled programs: sensing variables now and next,
 * the others' normal values. */
typedef struct {
  const ism_model_t *m;
  const double *now, *next, *normal;
} frame_t;

static value_t frame_lookup(void *ctx, int id, bool primed) {
  const frame_t *f = ctx;
  double v = f->m->vars[id].sensing ? (primed ? f->next[id] : f->now[id]) : f->normal[id];
  return (value_t){0, v};
}

static const double FINITE[] = {0, 1, -1, 0.5, 3, -7.25, 2.2, 1e-300, 1e300, -0.0, 13.7, -100};
enum { NFINITE = sizeof FINITE / sizeof *FINITE };

static void set_views(joint_t *j, const double *now, const double *next, const double *normal) {
  for (size_t v = 0; v < j->nv; v++) {
    aff_set_const(&j->a_now[v], now[v]);
    aff_set_const(&j->a_next[v], next[v]);
    aff_set_const(&j->a_norm[v], normal[v]);
  }
}

/* Every real leaf's operands of ls that are programs with a division. */
static void check_leaves(joint_t *j, const leaves_t *ls, const frame_t *f, unsigned long *compared,
                         unsigned long *divided) {
  for (int k = 0; k < ls->n; k++) {
    const leaf_t *lf = &ls->leaf[k];
    CHECK(lf->real);
    const operand_t *ops[2] = {&lf->l, &lf->r};
    for (int s = 0; s < 2; s++) {
      const operand_t *o = ops[s];
      aff_t tmp;
      const aff_t *got = leaves_operand_value(j, o, &tmp);
      bool err = false;
      double want = expr_eval_real(o->e, frame_lookup, (void *)f, &err);
      CHECK(!err);
      CHECK(got->ok && got->mask == 0);
      if (!(got->c == want)) fprintf(stderr, "operand program: %.17g, expr_eval %.17g\n", got->c, want);
      CHECK(got->c == want);
      (*compared)++;
      if (o->kind == OPD_PROG)
        for (int q = 0; q < o->n; q++) *divided += j->cops[o->at + (size_t)q].op == COP_DIV;
    }
  }
}

static void test_programs(void) {
  ism_model_t *m = load("tests/models/leaves-div.yaml");
  if (!m) return;
  joint_options_t o;
  joint_options_init(&o);
  joint_t *j = joint_new(m, &o);
  size_t nv = m->nvars;
  double *now = calloc(nv, sizeof *now), *next = calloc(nv, sizeof *next),
         *normal = calloc(nv, sizeof *normal);
  unsigned long seed = 7, compared = 0, divided = 0, programs = 0;
  for (int round = 0; round < 3000; round++) {
    for (size_t v = 0; v < nv; v++) {
      double *to[3] = {now, next, normal};
      for (int w = 0; w < 3; w++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        to[w][v] = FINITE[(seed >> 33) % NFINITE];
      }
    }
    frame_t f = {m, now, next, normal};
    /* the definitions: after_of's programs over env (now) and actual (normal) */
    for (size_t a = 0; a < m->nactions; a++)
      for (size_t v = 0; v < nv; v++) {
        if (!m->vars[v].sensing) continue;
        const after_t *af = &j->after_of[a * nv + v];
        if (!af->e) continue;
        CHECK(af->kind == AFTER_PROG); /* every definition here divides: compiled */
        if (af->kind != AFTER_PROG) continue;
        double got = leaves_real_program(j, af->at, af->n, now, normal);
        bool err = false;
        double want = expr_eval_real(af->e, frame_lookup, &f, &err);
        /* a division by 0 (x / z at z == 0): expr_eval's value 0, with its error (leaves_number reads none)
         */
        if (!(got == want || (isnan(got) && isnan(want))))
          fprintf(stderr, "definition program: %.17g, expr_eval %.17g\n", got, want);
        CHECK(got == want || (isnan(got) && isnan(want)));
        programs++;
      }
    /* the leaves' operand programs over constant views */
    set_views(j, now, next, normal);
    for (size_t r = 0; r < m->nrules; r++) check_leaves(j, &j->guard_leaves[r], &f, &compared, &divided);
    for (size_t a = 0; a < m->nactions; a++) check_leaves(j, &j->action_leaves[a], &f, &compared, &divided);
  }
  CHECK(programs == 3000 * 3);
  CHECK(compared > 20000);
  CHECK(divided >= 3000 * 6); /* the divisions of the guards, constraints and failures are compiled ops */
  free(now), free(next), free(normal);
  joint_delete(j);
  ism_free(m);
}

/* The bundled apps that divide (by 4 and by 2) and do no int arithmetic in
 * their guards, effects and failures: nothing there can fail to evaluate. */
static void test_apps(void) {
  const char *apps[] = {"examples/thermostat/thermostat.yaml", "examples/cruise/cruise.yaml",
                        "examples/drone/drone.yaml"};
  for (size_t i = 0; i < sizeof apps / sizeof *apps; i++) {
    ism_model_t *m = load(apps[i]);
    if (!m) continue;
    joint_options_t o;
    joint_options_init(&o);
    joint_t *j = joint_new(m, &o);
    if (j->may_err) fprintf(stderr, "%s: may_err\n", apps[i]);
    CHECK(!j->may_err);
    joint_delete(j);
    ism_free(m);
  }
}

int main(void) {
  test_may_fail();
  test_apps();
  test_programs();
  return CHECK_RESULT();
}
