/* The unit tests' model loader: the model, or NULL after a failed check
 * (the diagnostics are dropped; a test that needs them loads by itself). */
#ifndef TESTS_UNIT_MODEL_H
#define TESTS_UNIT_MODEL_H

#include "apps/verify_options.h"
#include "ism/diag.h"
#include "ism/ism.h"
#include "tests/unit/check.h"

static ism_model_t *load(const char *path) {
  diag_list_t diags;
  diag_init(&diags);
  ism_model_t *m = ism_load(path, &diags);
  diag_free(&diags);
  CHECK(m != NULL);
  return m;
}

/* m's counterexamples up to bound (actual mode, incremental search), ranked
 * as `verify --seed SEED` ranks them (jobs > 0: on that many threads); verify_rank's result. */
static inline bool explore_ranked_seed(const ism_model_t *m, int bound, int jobs, unsigned long seed,
                                       explore_result_t *res) {
  explore_options_t opt = {
      .bound = bound, .mode = ISM_MODE_ACTUAL, .strategy = EXPLORE_INCREMENTAL, .split_depth = -1};
  explore_run(m, &opt, res);
  rank_options_t ro;
  rank_options_init(&ro, ISM_MODE_ACTUAL);
  if (jobs > 0) ro.jobs = jobs;
  ro.seed = seed;
  return verify_rank(m, &ro, res->cexs, res->ncexs);
}

/* explore_ranked_seed with the estimators' default seed (1, verify's). */
static inline bool explore_ranked(const ism_model_t *m, int bound, int jobs, explore_result_t *res) {
  return explore_ranked_seed(m, bound, jobs, 1, res);
}

#endif
