/* The bound of a counterexample's true probability (probability/bound.h,
 * bound_true) is a bound at EVERY environment: the reported probability is
 * clamped to it and the top-K search prunes by it, so a bound that held
 * only where ranking looked would print wrong numbers and drop members.
 * bound_test checks it at the environment ranking found most likely; this
 * test looks for an environment that beats it.
 *
 * The adversary is `simulate`'s engine (probability/forward.c, which shares
 * no code with bound.c): for every counterexample whose bound is below 1
 * (and that is not boundary-only), a noisy hill climb over the environment
 * (the initial true values, the free initial normal values, the values an
 * action leaves free, the dynamic values), starting at the ranked
 * environment: 24 trials, each moving one value (or, every other trial,
 * every value) by up to 30%, 10% or 3% of its width (its range, else
 * max(1, |value|)), each judged by 1 000 forward runs; a trial that beats
 * the current environment's frequency replaces it. The climb's winner is
 * then confirmed with 10 000 fresh runs (another seed, so the climb's
 * selection does not bias it): the lower end of the Clopper-Pearson
 * interval of its frequency at confidence 1 - 2e-9 must not exceed the
 * bound (exact, so a small bound is tested as sharply as a large one).
 *
 * Apps and bounds: the explorer, the thermostat and the cruise at bound 5
 * (where they have such counterexamples); BOUND_ENV_TEST_BOUND sets another
 * bound, BOUND_ENV_TEST_VERBOSE prints each climb. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "apps/verify_options.h"
#include "probability/bound.h"
#include "probability/dist.h"
#include "probability/forward.h"
#include "tests/unit/check.h"
#include "tests/unit/model.h"

enum { ROUNDS = 8, CLIMB_RUNS = 1000, CONFIRM_RUNS = 10000 };

/* A small deterministic generator for the moves (xorshift64*), apart from
 * the forward runs' own. */
static double uniform(unsigned long long *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static double width(const ism_var_t *v, double x) {
  if (v->sensing && v->has_range && v->range_hi > v->range_lo) return v->range_hi - v->range_lo;
  return fabs(x) > 1 ? fabs(x) : 1;
}

static void move(const ism_var_t *v, double *x, double scale, unsigned long long *s) {
  double y = *x + (2 * uniform(s) - 1) * scale * width(v, *x);
  if (v->sensing && v->has_range) y = y < v->range_lo ? v->range_lo : y > v->range_hi ? v->range_hi : y;
  if (v->type.kind == TYPE_INT) y = round(y);
  *x = y;
}

/* The environment values of c: pointers into its arrays, with their variables. */
typedef struct {
  double **at;
  const ism_var_t **var;
  size_t n;
} env_t;

static void env_of(const ism_model_t *m, cex_t *c, env_t *e) {
  size_t nv = m->nvars, cap = nv * (c->nactions + (size_t)c->length + 2);
  e->at = xcalloc(cap, sizeof *e->at), e->var = xcalloc(cap, sizeof *e->var), e->n = 0;
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    if (var->sensing || !var->init) e->at[e->n] = &c->truth[v], e->var[e->n++] = var;
    if (!var->sensing) continue;
    for (size_t j = 0; j < c->nactions; j++) e->at[e->n] = &c->actions[j].after[v], e->var[e->n++] = var;
    if (var->dynamic)
      for (int k = 1; k <= c->length; k++) e->at[e->n] = &c->truth[(size_t)k * nv + v], e->var[e->n++] = var;
  }
}

/* Moves one environment value of e (odd trials: every value) by up to
 * `scale` of its width. */
static void perturb(const env_t *e, int trial, double scale, unsigned long long *s) {
  if (!e->n) return;
  if (trial & 1) {
    for (size_t i = 0; i < e->n; i++) move(e->var[i], e->at[i], scale, s);
    return;
  }
  size_t i = (size_t)(uniform(s) * (double)e->n);
  if (i >= e->n) i = e->n - 1;
  move(e->var[i], e->at[i], scale, s);
}

static double frequency(const ism_model_t *m, const cex_t *c, unsigned long runs, unsigned long seed,
                        double *low) {
  fwd_stats_t st;
  fwd_counterexample(m, c, runs, seed, &st);
  if (low) {
    double hi;
    dist_clopper_pearson(st.outcomes[FWD_SAME_FAILURE], st.runs, 1 - 2e-9, low, &hi);
  }
  return st.frequency;
}

static void adversary(const char *path, int bound) {
  ism_model_t *m = load(path);
  if (!m) return;
  explore_result_t res;
  CHECK(explore_ranked(m, bound, 2, &res));
  bound_t *b = bound_new(m);
  size_t climbed = 0, moved = 0;
  double worst = -1;
  for (size_t k = 0; k < res.ncexs; k++) {
    const cex_t *c = &res.cexs[k];
    double t = bound_true(b, c);
    if (!(t < 1) || c->boundary_only) continue;
    climbed++;
    unsigned long long s = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)rank_path_seed(c, 11);
    cex_t best, trial;
    cex_copy(&best, c, m->nvars);
    cex_copy(&trial, c, m->nvars);
    env_t e;
    env_of(m, &trial, &e);
    unsigned long seed = rank_path_seed(c, 13);
    double fbest = frequency(m, &best, CLIMB_RUNS, seed++, NULL);
    const double scales[] = {0.3, 0.1, 0.03};
    for (int r = 0; r < ROUNDS; r++)
      for (size_t q = 0; q < sizeof scales / sizeof *scales; q++) {
        cex_copy_values(&trial, &best, m->nvars);
        perturb(&e, r * 3 + (int)q, scales[q], &s);
        double f = frequency(m, &trial, CLIMB_RUNS, seed++, NULL);
        if (f > fbest) fbest = f, cex_copy_values(&best, &trial, m->nvars), moved++;
      }
    double low, f = frequency(m, &best, CONFIRM_RUNS, rank_path_seed(c, 17), &low);
    if (f - t > worst) worst = f - t;
    if (getenv("BOUND_ENV_TEST_VERBOSE"))
      fprintf(stderr, "  %zu: length %d, last rule %s, bound %.4f, climbed to %.4f, confirmed %.4f\n", k,
              c->length, m->rules[c->rules[c->length - 1]].id, t, fbest, f);
    if (!(low <= t)) {
      fprintf(stderr, "%s: counterexample %zu (length %d, last rule %s): an environment where its path fails "
                      "with frequency %.6f in %d runs (at least %.6f at 1 - 2e-9), above its true bound %.6f\n",
              path, k, c->length, m->rules[c->rules[c->length - 1]].id, f, CONFIRM_RUNS, low, t);
      check_failures++;
    }
    free(e.at), free(e.var);
    cex_free(&best), cex_free(&trial);
  }
  fprintf(stderr,
          "%s, bound %d: %zu counterexamples, %zu with a true bound below 1 climbed (%zu moves kept), "
          "largest confirmed frequency - bound %.4f\n",
          path, bound, res.ncexs, climbed, moved, worst);
  CHECK(climbed > 0); /* the apps and bounds are chosen to have some */
  bound_delete(b);
  explore_result_free(&res);
  ism_free(m);
}

int main(void) {
  const char *env = getenv("BOUND_ENV_TEST_BOUND");
  int bound = env ? atoi(env) : 5;
  const char *apps[] = {"examples/robotcar/explorer.yaml", "examples/thermostat/thermostat.yaml",
                        "examples/cruise/cruise.yaml"};
  for (size_t a = 0; a < sizeof apps / sizeof *apps; a++) adversary(apps[a], bound);
  return CHECK_RESULT();
}
