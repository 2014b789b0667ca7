/* Unit tests of the canonical witness (explore_witness, and verify_rank
 * that ranks from it): on three bundled apps at bound 3, in every mode, the
 * counterexamples of three searches whose solvers answer differently (one
 * solver, a solver per subtree of a split at depth 2, no model extension)
 * get, once re-solved, the same values bit for bit, whatever order they are
 * re-solved in; each re-solved counterexample passes cex_replay (the
 * evaluator, not the solver) on its own path and failing action. The
 * searches' own values do differ somewhere (else the test would prove
 * nothing). In mode actual, verify_rank gives the three the same values and
 * probabilities bit for bit.
 * The relaxation's witness (verifier/paths/witness.h) likewise: the same
 * kind and bit-identical values from the three searches, each passing
 * cex_replay. On every bundled app at bounds 2-5 in mode actual, no
 * counterexample it finds a strictly interior point for is boundary-only
 * by the solver (class check, then a fresh boundary solver: the decision
 * verify_rank makes), verify_rank with --valuation solver (which lets the
 * relaxation decide) gives the solver's decisions, and it finds a point
 * for most counterexamples (else it would save nothing). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/verify_options.h"
#include "ism/alloc.h"
#include "tests/unit/check.h"
#include "tests/unit/model.h"
#include "verifier/boundary.h"
#include "verifier/paths/explore.h"
#include "verifier/paths/witness.h"

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

static void search(const ism_model_t *m, ism_mode_t mode, int split, bool solver_only,
                   explore_result_t *res) {
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

/* witness_find on copies of res's counterexamples: the kinds and values. */
static witness_t *relaxed(const ism_model_t *m, ism_mode_t mode, const explore_result_t *res, cex_t *out) {
  witness_t *kinds = xcalloc(res->ncexs + 1, sizeof *kinds);
  for (size_t k = 0; k < res->ncexs; k++) {
    cex_copy(&out[k], &res->cexs[k], m->nvars);
    kinds[k] = witness_find(m, mode, &out[k], mode == ISM_MODE_ACTUAL || k % 2);
    if (kinds[k] == WITNESS_NONE) continue;
    CHECK(out[k].fail_position == res->cexs[k].fail_position);
    char *msg = cex_replay(m, mode, &out[k]);
    if (msg) fprintf(stderr, "%s: relaxed witness %zu: %s\n", m->path, k, msg);
    CHECK(msg == NULL);
    free(msg);
  }
  return kinds;
}

static size_t relaxed_found, relaxed_tried;

static void relaxed_same(const ism_model_t *m, ism_mode_t mode, explore_result_t *r) {
  size_t n = r[0].ncexs;
  cex_t *a = xcalloc(n + 1, sizeof *a), *b = xcalloc(n + 1, sizeof *b);
  witness_t *ka = relaxed(m, mode, &r[1], a), *kb = relaxed(m, mode, &r[2], b);
  for (size_t k = 0; k < n; k++) {
    CHECK(ka[k] == kb[k]);
    if (ka[k] != WITNESS_NONE && kb[k] != WITNESS_NONE) CHECK(same_values(&a[k], &b[k], m->nvars));
    relaxed_found += ka[k] != WITNESS_NONE, relaxed_tried++;
    cex_free(&a[k]), cex_free(&b[k]);
  }
  free(a), free(b), free(ka), free(kb);
}

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
  relaxed_same(m, mode, r);
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

/* The solver's decision for c as verify_rank made it before the
 * relaxation: its class as a whole, else a fresh boundary solver. */
static boundary_t solver_decision(const ism_model_t *m, boundary_ctx_t *classes, const cex_t *c) {
  if (boundary_class(classes, c->rules[c->length - 1], c->fail_position, true, NULL, NULL) == BOUNDARY_ONLY)
    return BOUNDARY_ONLY;
  cex_t t;
  cex_copy(&t, c, m->nvars);
  boundary_ctx_t *bc = boundary_new(m, VERIFY_BOUNDARY_RLIMIT);
  boundary_t b = boundary_classify(bc, &t);
  boundary_delete(bc);
  cex_free(&t);
  return b;
}

static size_t decided_interior, solver_interior, close_found, solver_only;

static void decisions(const char *path, int bound) {
  ism_model_t *m = load(path);
  explore_options_t opt = {
      .bound = bound, .mode = ISM_MODE_ACTUAL, .strategy = EXPLORE_INCREMENTAL, .jobs = 2};
  explore_result_t res;
  explore_run(m, &opt, &res);
  CHECK(res.reason == NULL && !res.replay_failed);
  boundary_ctx_t *classes = boundary_new(m, VERIFY_BOUNDARY_RLIMIT);
  boundary_t *old = xcalloc(res.ncexs + 1, sizeof *old);
  for (size_t k = 0; k < res.ncexs; k++) {
    cex_t *c = &res.cexs[k];
    old[k] = solver_decision(m, classes, c);
    solver_interior += old[k] == BOUNDARY_INTERIOR, solver_only += old[k] == BOUNDARY_ONLY;
    cex_t t;
    cex_copy(&t, c, m->nvars);
    witness_t w = witness_find(m, ISM_MODE_ACTUAL, &t, true);
    if (w == WITNESS_INTERIOR) CHECK(old[k] == BOUNDARY_INTERIOR);
    decided_interior += w == WITNESS_INTERIOR;
    close_found += old[k] == BOUNDARY_ONLY && w == WITNESS_CLOSE;
    cex_free(&t);
  }
  rank_options_t ropt;
  rank_options_init(&ropt, ISM_MODE_ACTUAL);
  ropt.estimator = RANK_PER_RULE, ropt.optimise = false, ropt.jobs = 2;
  verify_rank(m, &ropt, res.cexs, res.ncexs); /* sorts: compare by path and failure */
  explore_result_t again;
  explore_run(m, &opt, &again);
  for (size_t k = 0; k < res.ncexs; k++) {
    const cex_t *c = &res.cexs[k];
    size_t q = 0;
    while (q < again.ncexs &&
           !(again.cexs[q].length == c->length && again.cexs[q].fail_position == c->fail_position &&
             memcmp(again.cexs[q].rules, c->rules, (size_t)c->length * sizeof *c->rules) == 0))
      q++;
    CHECK(q < again.ncexs);
    if (q == again.ncexs || old[q] == BOUNDARY_UNKNOWN) continue;
    CHECK(c->boundary_known && c->boundary_only == (old[q] == BOUNDARY_ONLY));
  }
  free(old);
  boundary_delete(classes);
  explore_result_free(&res);
  explore_result_free(&again);
  ism_free(m);
}

int main(void) {
  static const char *const apps[] = {"examples/robotcar/explorer.yaml",
                                     "examples/robotcar/wall-follower.yaml",
                                     "examples/thermostat/thermostat.yaml"};
  for (size_t a = 0; a < sizeof apps / sizeof *apps; a++)
    for (int mode = ISM_MODE_ACTUAL; mode <= ISM_MODE_NAIVE; mode++) app(apps[a], (ism_mode_t)mode);
  CHECK(differed && found >= 100);
  fprintf(stderr, "witness_test: relaxation found %zu of %zu witnesses at bound 3\n", relaxed_found,
          relaxed_tried);
  CHECK(relaxed_found * 2 > relaxed_tried);
  static const char *const all[] = {"examples/robotcar/explorer.yaml", "examples/robotcar/wall-follower.yaml",
                                    "examples/robotcar/cautious.yaml", "examples/thermostat/thermostat.yaml",
                                    "examples/cruise/cruise.yaml",     "examples/drone/drone.yaml"};
  for (size_t a = 0; a < sizeof all / sizeof *all; a++)
    for (int bound = 2; bound <= 5; bound++) decisions(all[a], bound);
  fprintf(stderr,
          "witness_test: bounds 2-5, mode actual: %zu interior by the solver, %zu of them by the relaxation; "
          "%zu boundary-only, %zu with a relaxed point\n",
          solver_interior, decided_interior, solver_only, close_found);
  CHECK(solver_interior > 0 && solver_only > 0);
  CHECK(decided_interior * 2 > solver_interior && close_found * 2 > solver_only);
  return CHECK_RESULT();
}
