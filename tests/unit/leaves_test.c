/* Unit tests of the joint estimator's concrete evaluation
 * (probability/leaves.c: leaves_holds, leaves_number) against the
 * expression evaluator (ism/expr.c) it must agree with exactly: every
 * condition and int assignment of tests/models/leaves-eval.yaml (truth
 * values, int comparisons and arithmetic with overflow, connectives,
 * if-then-else, equivalence, reals mixed in) at values of the variables
 * that are whole, halves (llround's ties), huge, infinite and NaN. The
 * oracle reads a variable as the evaluator's callers do: an int or bool
 * value is llround of its double. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probability/leaves.h"
#include "tests/unit/check.h"
#include "tests/unit/model.h"

typedef struct {
  const ism_model_t *m;
  const double *now, *normal;
} env_t;

static value_t lookup(void *ctx, int id, bool primed) {
  const env_t *env = ctx;
  (void)primed;
  double d = env->m->vars[id].sensing ? env->now[id] : env->normal[id];
  value_t v = {0, d};
  if (env->m->vars[id].type.kind != TYPE_REAL) v.i = llround(d);
  return v;
}

static const double VALUES[] = {0,
                                1,
                                -1,
                                2,
                                3,
                                4,
                                7,
                                -3,
                                0.5,
                                -0.5,
                                1.5,
                                2.5,
                                0.49999999999999994,
                                3.7,
                                -2.2,
                                4611686018427387904.0,
                                -9.3e18,
                                1e300,
                                INFINITY,
                                -INFINITY,
                                NAN,
                                -0.0};
enum { NVALUES = sizeof VALUES / sizeof *VALUES };

int main(void) {
  ism_model_t *m = load("tests/models/leaves-eval.yaml");
  if (!m) return CHECK_RESULT();
  size_t nv = m->nvars;
  double *now = calloc(nv + 1, sizeof *now), *normal = calloc(nv + 1, sizeof *normal);
  unsigned long seed = 1, compared = 0;
  size_t big = 0;
  while (big < nv && strcmp(m->vars[big].name, "big")) big++;
  CHECK(big < nv);
  for (int round = 0; round < 20000; round++) {
    for (size_t v = 0; v < nv; v++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      double d = VALUES[(seed >> 33) % NVALUES];
      if (m->vars[v].type.kind == TYPE_BOOL && (seed >> 20) % 4) d = (double)((seed >> 40) & 1);
      if (m->vars[v].sensing)
        now[v] = d;
      else
        normal[v] = d;
    }
    if (round % 3 == 0) normal[big] = 4611686018427387904.0; /* overflow in g8, g9, a0 */
    env_t env = {m, now, normal};
    for (size_t r = 0; r < m->nrules; r++) {
      const ism_rule_t *rule = &m->rules[r];
      bool err = false;
      bool want = expr_eval_bool(rule->when, lookup, &env, &err) && !err;
      bool got = leaves_holds(m, rule->when, now, NULL, normal);
      if (got != want)
        fprintf(stderr, "rule %s: leaves_holds %d, expr_eval %d (round %d)\n", rule->id, got, want, round);
      CHECK(got == want);
      compared++;
      for (size_t p = 0; p < rule->nsteps; p++) {
        const ism_step_t *st = &rule->steps[p];
        if (st->kind != ISM_STEP_ASSIGN) continue;
        double w = (double)expr_eval(st->value, lookup, &env, NULL).i;
        double g = leaves_number(m, st->value, m->vars[st->var].type.kind, now, NULL, normal);
        CHECK(w == g || (isnan(w) && isnan(g)));
        double wr = expr_eval_real(st->value, lookup, &env, NULL);
        double gr = leaves_number(m, st->value, TYPE_REAL, now, NULL, normal);
        CHECK(wr == gr || (isnan(wr) && isnan(gr)));
        compared += 2;
      }
    }
  }
  CHECK(compared > 200000);
  free(now), free(normal);
  ism_free(m);
  return CHECK_RESULT();
}
