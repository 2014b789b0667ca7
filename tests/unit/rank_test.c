/* Unit tests of the per-rule estimator's valuation search
 * (probability/rank.c) against closed forms: on the analytic model the
 * supremum 1/2 of P(e >= 12 - d) (d = 12, tests/cases/probability/
 * analytic.yaml), on the bimodal model the global maximum 0.684536 at x =
 * 67.5 (tests/cases/probability/bimodal.yaml), each within 1%, from several
 * starts (the solver's witness the search would otherwise get), all ending
 * at the same value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "apps/verify_options.h"
#include "probability/rank.h"
#include "tests/unit/check.h"
#include "tests/unit/model.h"

/* The per-rule optimum of the model's only counterexample from each start
 * of its first variable: within 1% of the closed form, all within 1e-6. */
static void optimum(const char *path, double closed, const double *starts, size_t nstarts) {
  ism_model_t *m = load(path);
  if (!m) return;
  explore_options_t opt = {
      .bound = 1, .mode = ISM_MODE_ACTUAL, .strategy = EXPLORE_INCREMENTAL, .split_depth = -1};
  explore_result_t res;
  explore_run(m, &opt, &res);
  CHECK(res.ncexs == 1);
  rank_options_t ro;
  rank_options_init(&ro, ISM_MODE_ACTUAL);
  ro.estimator = RANK_PER_RULE;
  double first = -1;
  for (size_t s = 0; s < nstarts && res.ncexs == 1; s++) {
    cex_t c;
    cex_copy(&c, &res.cexs[0], m->nvars);
    /* x = start with error 0 everywhere (the bimodal model's x never changes) */
    c.truth[0] = c.truth[m->nvars] = c.sensed[0] = starts[s];
    for (size_t a = 0; a < c.nactions; a++) c.actions[a].before[0] = c.actions[a].after[0] = starts[s];
    char *msg = cex_replay(m, ISM_MODE_ACTUAL, &c);
    if (msg) { /* not a counterexample from there: the witness's */
      cex_free(&c);
      cex_copy(&c, &res.cexs[0], m->nvars);
    }
    free(msg);
    rank_counterexample(m, &ro, &c);
    if (!(fabs(c.probability - closed) <= 0.01 * closed) ||
        (first >= 0 && !(fabs(c.probability - first) <= 1e-6))) {
      fprintf(stderr, "%s from %g: per-rule %.8f at %g (closed form %.6f)\n", path, starts[s], c.probability,
              c.truth[0], closed);
      check_failures++;
    }
    if (first < 0) first = c.probability;
    cex_free(&c);
  }
  explore_result_free(&res);
  ism_free(m);
}

int main(void) {
  const double analytic[] = {12}, bimodal[] = {21.1, 67.5, 44};
  optimum("tests/cases/probability/analytic.yaml", 0.5, analytic, 1);
  optimum("tests/cases/probability/bimodal.yaml", 0.684536, bimodal, 3);
  return CHECK_RESULT();
}
