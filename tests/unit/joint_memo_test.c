/* The joint estimator's stage memo (probability/joint.c, stage_memo: the
 * cells of a stage of a run no draw has reached, reused when a stage with
 * the same key comes again) must never answer a stage it does not hold: a
 * key missing one of its components (kind, state, rule or action, failing
 * or not, the action's record, the distributions, the inputs bit for bit)
 * would return another stage's cells. The oracle is the estimator itself
 * with the memo off (joint_stage_memo): on every counterexample of several
 * models (the bundled apps that have some at a small bound, and the test
 * models), estimated in ranked order; again in reverse order (another
 * stage left in each slot); with one initial value one ulp away; with one
 * value after each action one ulp away; in the initial values of each of
 * the first four and their values after their actions at the same step and
 * position (the same inputs on other paths: other rules, other actions, a
 * failing action where the other path's does not fail); and maximised (the
 * search's wide distributions, moving environments), the estimates, error
 * bars and maximised environments with the memo on must be those with it
 * off, bit for bit. The memo must have answered stages (else nothing was
 * tested). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "probability/joint.h"
#include "tests/unit/check.h"
#include "tests/unit/model.h"

enum { SAMPLES = 600, MAXIMISED = 3, DONORS = 4 };

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The estimates of c by the memo's joint and the plain one agree bit for bit. */
static void agree(const char *path, const char *what, size_t k, joint_t *on, joint_t *off, const cex_t *c,
                  unsigned long seed) {
  double p1, e1, p2, e2;
  joint_estimate(on, c, SAMPLES, seed, &p1, &e1);
  joint_estimate(off, c, SAMPLES, seed, &p2, &e2);
  if (!same_bits(p1, p2) || !same_bits(e1, e2)) {
    fprintf(stderr, "%s counterexample %zu (%s): memo %.17g +- %.17g, no memo %.17g +- %.17g\n", path, k + 1,
            what, p1, e1, p2, e2);
    check_failures++;
  }
}

/* Returns the stages the memo answered. */
static unsigned long model(const char *path, int bound) {
  ism_model_t *m = load(path);
  if (!m) return 0;
  explore_result_t res;
  explore_ranked(m, bound, 0, &res);
  joint_options_t jo;
  joint_options_init(&jo);
  joint_t *on = joint_new(m, &jo), *off = joint_new(m, &jo);
  joint_stage_memo(off, false);
  size_t n = res.ncexs, nv = m->nvars;
  for (size_t k = 0; k < n; k++) agree(path, "ranked order", k, on, off, &res.cexs[k], 5);
  for (size_t k = n; k-- > 0;) agree(path, "reverse order", k, on, off, &res.cexs[k], 6);
  for (size_t k = 0; k < n; k++) { /* one initial value one ulp away */
    cex_t c;
    cex_copy(&c, &res.cexs[k], nv);
    if (nv > 0) {
      size_t v = k % nv;
      c.truth[v] = nextafter(c.truth[v], INFINITY);
    }
    agree(path, "one ulp", k, on, off, &c, 5);
    cex_free(&c);
  }
  for (size_t k = 0; k < n && nv > 0; k++) { /* one value after each action one ulp away */
    cex_t c;
    cex_copy(&c, &res.cexs[k], nv);
    for (size_t i = 0; i < c.nactions; i++) {
      size_t v = (k + i) % nv;
      c.actions[i].after[v] = nextafter(c.actions[i].after[v], INFINITY);
    }
    if (c.nactions > 0) agree(path, "after one ulp", k, on, off, &c, 5);
    cex_free(&c);
  }
  for (size_t a = 0; a < n && a < DONORS; a++) /* every path in another's initial values */
    for (size_t k = 0; k < n; k++) {
      cex_t c;
      cex_copy(&c, &res.cexs[k], nv);
      memcpy(c.truth, res.cexs[a].truth, nv * sizeof *c.truth);
      for (size_t i = 0; i < c.nactions; i++) /* and its values after its actions at the same places */
        for (size_t h = 0; h < res.cexs[a].nactions; h++) {
          const cex_action_t *d = &res.cexs[a].actions[h];
          if (d->step == c.actions[i].step && d->position == c.actions[i].position)
            memcpy(c.actions[i].after, d->after, nv * sizeof *d->after);
        }
      agree(path, "another's initial values", k, on, off, &c, 7);
      cex_free(&c);
    }
  for (size_t k = 0; k < n && k < MAXIMISED; k++) {
    cex_t a, b;
    cex_copy(&a, &res.cexs[k], nv);
    cex_copy(&b, &res.cexs[k], nv);
    bool ra = joint_maximise(on, &a), rb = joint_maximise(off, &b);
    bool same = ra == rb && same_bits(a.probability, b.probability) &&
                memcmp(a.truth, b.truth, (size_t)(a.length + 1) * nv * sizeof *a.truth) == 0;
    if (!same) {
      fprintf(stderr, "%s counterexample %zu (maximised): memo %.17g, no memo %.17g\n", path, k + 1,
              a.probability, b.probability);
      check_failures++;
    }
    cex_free(&a), cex_free(&b);
  }
  unsigned long hits = joint_stage_memo(on, true);
  CHECK(joint_stage_memo(off, false) == 0);
  printf("joint_memo_test: %s bound %d: %zu counterexamples, %lu stages from the memo\n", path, bound, n,
         hits);
  joint_delete(on), joint_delete(off);
  explore_result_free(&res);
  ism_free(m);
  return hits;
}

int main(void) {
  gsl_set_error_handler_off();
  static const struct {
    const char *path;
    int bound;
  } models[] = {
      {"examples/robotcar/explorer.yaml", 3},       {"examples/robotcar/wall-follower.yaml", 3},
      {"examples/thermostat/thermostat.yaml", 3},   {"examples/cruise/cruise.yaml", 4},
      {"tests/cases/probability/corridor.yaml", 2}, {"tests/cases/probability/mixed.yaml", 2},
      {"tests/cases/probability/coupled.yaml", 2},  {"tests/cases/probability/rare.yaml", 3},
      {"tests/cases/probability/bimodal.yaml", 1},  {"tests/cases/probability/analytic.yaml", 1},
  };
  unsigned long hits = 0;
  for (size_t i = 0; i < sizeof models / sizeof *models; i++) hits += model(models[i].path, models[i].bound);
  CHECK(hits > 0);
  if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures);
  return CHECK_RESULT();
}
