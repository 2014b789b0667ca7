/* Unit tests of the canonical witness (explore_witness, and verify_rank
 * that ranks from it): on three bundled apps at bound 3, in every mode, the
 * counterexamples of three searches whose solvers answer differently (one
 * solver, a solver per subtree of a split at depth 2, no model extension)
 * get, once re-solved, the same values bit for bit, whatever order they are
 * re-solved in; each re-solved counterexample passes cex_replay (the
 * evaluator, not the solver) on its own path and failing action. The
 * searches' own values do differ somewhere (else the test would prove
 * nothing). In mode actual, verify_rank gives the three the same values and
 * probabilities bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/verify_options.h"
#include "ism/alloc.h"
#include "tests/unit/check.h"
#include "verifier/paths/explore.h"

static ism_model_t *load(const char *path) {
  diag_list_t diags;
  diag_init(&diags);
  ism_model_t *m = ism_load(path, &diags);
  diag_free(&diags);
  CHECK(m != NULL);
  return m;
}

static bool same_doubles(const double *a, const double *b, size_t n) {
  return memcmp(a, b, n * sizeof *a) == 0;
}

static bool same_values(const cex_t *a, const cex_t *b, size_t nv) {
  if (a->length != b->length || a->nactions != b->nactions || a->fail_position != b->fail_position ||
      memcmp(a->rules, b->rules, (size_t)a->length * sizeof *a->rules) != 0)
    return false;
  bool same = same_doubles(a->truth, b->truth, (size_t)(a->length + 1) * nv) &&
              same_doubles(a->sensed, b->sensed, (size_t)a->length * nv);
  for (size_t k = 0; k < a->nactions && same; k++)
    same = same_doubles(a->actions[k].before, b->actions[k].before, nv) &&
           same_doubles(a->actions[k].after, b->actions[k].after, nv) &&
           same_doubles(a->actions[k].actual, b->actions[k].actual, nv);
  return same;
}

static void search(const ism_model_t *m, ism_mode_t mode, int split, bool solver_only, explore_result_t *res) {
  explore_options_t opt = {.bound = 3,
                           .mode = mode,
                           .strategy = EXPLORE_INCREMENTAL,
                           .jobs = 2,
                           .split_depth = split,
                           .solver_only = solver_only};
  explore_run(m, &opt, res);
  CHECK(res->reason == NULL && !res->replay_failed);
}

/* Re-solves every counterexample of res, in order or backwards; each must
 * keep its path and failure and pass the re-check. */
static void resolve(const ism_model_t *m, ism_mode_t mode, explore_result_t *res, bool backwards) {
  for (size_t q = 0; q < res->ncexs; q++) {
    cex_t *c = &res->cexs[backwards ? res->ncexs - 1 - q : q];
    int fail_position = c->fail_position, fail_action = c->fail_action;
    CHECK(explore_witness(m, mode, c));
    CHECK(c->fail_position == fail_position && c->fail_action == fail_action);
    char *msg = cex_replay(m, mode, c);
    if (msg) fprintf(stderr, "%s: %s\n", m->path, msg);
    CHECK(msg == NULL);
    free(msg);
  }
}

/* Whether the searches' own values differ for some counterexample, and how many there were. */
static bool differed;
static size_t found;

static void app(const char *path, ism_mode_t mode) {
  ism_model_t *m = load(path);
  explore_result_t r[3];
  search(m, mode, 0, false, &r[0]);
  search(m, mode, 2, false, &r[1]);
  search(m, mode, 0, true, &r[2]);
  CHECK(r[0].ncexs == r[1].ncexs && r[0].ncexs == r[2].ncexs);
  found += r[0].ncexs;
  size_t n = r[0].ncexs < r[1].ncexs ? r[0].ncexs : r[1].ncexs;
  if (r[2].ncexs < n) n = r[2].ncexs;
  for (size_t k = 0; k < n; k++)
    differed |= !same_values(&r[0].cexs[k], &r[1].cexs[k], m->nvars) ||
                !same_values(&r[0].cexs[k], &r[2].cexs[k], m->nvars);
  cex_t *copies = xcalloc(n + 1, sizeof *copies);
  for (size_t k = 0; k < n; k++) cex_copy(&copies[k], &r[0].cexs[k], m->nvars);
  resolve(m, mode, &r[0], false);
  resolve(m, mode, &r[1], true);
  resolve(m, mode, &r[2], false);
  for (size_t k = 0; k < n; k++) {
    CHECK(same_values(&r[0].cexs[k], &r[1].cexs[k], m->nvars));
    CHECK(same_values(&r[0].cexs[k], &r[2].cexs[k], m->nvars));
  }
  if (mode == ISM_MODE_ACTUAL) { /* ranked from the search's values, in other orders */
    rank_options_t ropt;
    rank_options_init(&ropt, mode);
    ropt.jobs = 2;
    explore_result_t back;
    search(m, mode, 2, false, &back);
    for (size_t k = 0; k < back.ncexs / 2; k++) { /* another order of the same counterexamples */
      cex_t t = back.cexs[k];
      back.cexs[k] = back.cexs[back.ncexs - 1 - k];
      back.cexs[back.ncexs - 1 - k] = t;
    }
    CHECK(verify_rank(m, &ropt, copies, n));
    CHECK(verify_rank(m, &ropt, back.cexs, back.ncexs));
    for (size_t k = 0; k < n && k < back.ncexs; k++) {
      CHECK(same_values(&copies[k], &back.cexs[k], m->nvars));
      CHECK(copies[k].boundary_only == back.cexs[k].boundary_only);
      CHECK(memcmp(&copies[k].probability, &back.cexs[k].probability, sizeof(double)) == 0);
    }
    explore_result_free(&back);
  }
  for (size_t k = 0; k < n; k++) cex_free(&copies[k]);
  free(copies);
  for (int k = 0; k < 3; k++) explore_result_free(&r[k]);
  ism_free(m);
}

int main(void) {
  static const char *const apps[] = {"examples/robotcar/explorer.yaml", "examples/robotcar/wall-follower.yaml",
                                     "examples/thermostat/thermostat.yaml"};
  for (size_t a = 0; a < sizeof apps / sizeof *apps; a++)
    for (int mode = ISM_MODE_ACTUAL; mode <= ISM_MODE_NAIVE; mode++) app(apps[a], (ism_mode_t)mode);
  CHECK(differed && found >= 100);
  return CHECK_RESULT();
}
