/* Unit tests of probability/: every closed form against independent
 * values (tabulated normal CDF values, uniform masses by hand), the
 * differential test closed form vs quadrature vs VEGAS vs sampling, the
 * Clopper-Pearson interval, selection: first, the memo table, prepared
 * conditions bit-identical to fresh ones, and byte-identical output of
 * `ismv verify` and `ismv simulate` run twice in-process. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/cli.h"
#include "ism/ism.h"
#include "probability/condition.h"
#include "probability/dist.h"
#include "probability/memo.h"
#include "probability/rank.h"
#include "probability/simulate.h"
#include "tests/unit/check.h"

#define CHECK_NEAR(a, b, tol)                                                                            \
  do {                                                                                                   \
    double a_ = (a), b_ = (b);                                                                           \
    if (!(fabs(a_ - b_) <= (tol))) {                                                                     \
      fprintf(stderr, "%s:%d: %s = %.12g, expected %.12g (tolerance %g)\n", __FILE__, __LINE__, #a, a_, b_, \
              (double)(tol));                                                                            \
      check_failures++;                                                                                        \
    }                                                                                                    \
  } while (0)

/* Standard normal CDF values from a table (Abramowitz & Stegun 26.2, to 16 digits). */
static const double PHI_025 = 0.5987063256829237, PHI_05 = 0.6914624612740131, PHI_1 = 0.8413447460685429,
                    PHI_196 = 0.9750021048517795, PHI_2 = 0.9772498680518208, PHI_25 = 0.9937903346742238,
                    PHI_3 = 0.9986501019683699;

static void test_dist(void) {
  dist_t wide, g, uni;
  CHECK(dist_init(&wide, ISM_DIST_GAUSSIAN, -1e3, 1e3, 0, 1));
  CHECK_NEAR(dist_mass(&wide, -1.96, 1.96), 2 * PHI_196 - 1, 1e-12);
  CHECK_NEAR(dist_mass(&wide, -1, 1), 2 * PHI_1 - 1, 1e-12);
  /* truncated to [-6, 6], sd 2: P(e >= 2) = (PHI(3) - PHI(1)) / (2 PHI(3) - 1) */
  CHECK(dist_init(&g, ISM_DIST_GAUSSIAN, -6, 6, 0, 2));
  CHECK_NEAR(dist_mass(&g, 2, 100), (PHI_3 - PHI_1) / (2 * PHI_3 - 1), 1e-12);
  CHECK_NEAR(dist_mass(&g, -100, 100), 1, 1e-15);
  CHECK_NEAR(dist_mass(&g, 7, 9), 0, 0);
  /* uniform on [-4, 4], by hand */
  CHECK(dist_init(&uni, ISM_DIST_UNIFORM, -4, 4, 0, 0));
  CHECK_NEAR(dist_mass(&uni, -1, 10), 5.0 / 8, 1e-15);
  CHECK_NEAR(dist_mass(&uni, -2, 1), 3.0 / 8, 1e-15);
  CHECK_NEAR(dist_quantile(&uni, 0.25), -2, 1e-15);
  CHECK_NEAR(dist_quantile(&g, 0.5), 0, 1e-9);
  dist_t shifted;
  CHECK(dist_init(&shifted, ISM_DIST_GAUSSIAN, -6, 6, 1, 2)); /* mean 1: P(e <= 1) = (PHI(0) - PHI(-3.5)) / (PHI(2.5) - PHI(-3.5)) */
  const double PHI_M35 = 0.00023262907903552504; /* PHI(-3.5) */
  CHECK_NEAR(dist_mass(&shifted, -6, 1), (0.5 - PHI_M35) / (PHI_25 - PHI_M35), 1e-12);
  CHECK(!dist_init(&shifted, ISM_DIST_GAUSSIAN, -6, 6, 0, 0));
  CHECK(!dist_init(&shifted, ISM_DIST_UNIFORM, 1, -1, 0, 0));
}

static void test_clopper_pearson(void) {
  double lo, hi;
  dist_clopper_pearson(0, 10, 0.95, &lo, &hi); /* upper = 1 - 0.025^(1/10) */
  CHECK_NEAR(lo, 0, 0);
  CHECK_NEAR(hi, 1 - pow(0.025, 0.1), 1e-9);
  dist_clopper_pearson(5, 10, 0.95, &lo, &hi); /* tabulated: [0.187086, 0.812914] */
  CHECK_NEAR(lo, 0.187086, 1e-6);
  CHECK_NEAR(hi, 0.812914, 1e-6);
  dist_clopper_pearson(3466, 10000, 0.95, &lo, &hi); /* GSL's Qinv gives NaN here; the normal approximation is close */
  CHECK_NEAR(lo, 0.3466 - 1.96 * sqrt(0.3466 * 0.6534 / 1e4), 2e-4);
  CHECK_NEAR(hi, 0.3466 + 1.96 * sqrt(0.3466 * 0.6534 / 1e4), 2e-4);
  dist_clopper_pearson(10, 10, 0.95, &lo, &hi);
  CHECK_NEAR(lo, pow(0.025, 0.1), 1e-9);
  CHECK_NEAR(hi, 1, 0);
  double a[] = {1, 2, 3, 4}, b[] = {10, 20, 30, 45}, c[] = {4, 3, 2, 1};
  CHECK_NEAR(sim_rank_correlation(a, b, 4), 1, 1e-12);
  CHECK_NEAR(sim_rank_correlation(a, c, 4), -1, 1e-12);
  CHECK(isnan(sim_rank_correlation(a, b, 1)));
}

static cond_prob_t prob(const ism_model_t *m, int rule, double x, double y, double u, cond_method_t method) {
  const expr_t *parts[] = {m->rules[rule].when};
  bool want[] = {true};
  double values[] = {x, y, u};
  cond_t c = {m, parts, want, 1, values, true};
  cond_prob_t p;
  CHECK(cond_probability(&c, method, &p));
  return p;
}

static void test_closed_forms(const ism_model_t *m) {
  double z3 = 2 * PHI_3 - 1, tail2 = (PHI_3 - PHI_2) / z3;
  cond_prob_t p = prob(m, 0, 16, 0, 0, COND_AUTO); /* x >= 20 at 16: P(e >= 4) */
  CHECK(p.how == COND_CLOSED_FORM && p.error == 0);
  CHECK_NEAR(p.p, tail2, 1e-12);
  p = prob(m, 1, 20, 0, 0, COND_AUTO); /* a union of two intervals: P(|e| > 2) */
  CHECK_NEAR(p.p, 1 - (2 * PHI_1 - 1) / z3, 1e-12);
  p = prob(m, 2, 16, 0, 0, COND_AUTO); /* product: P(e_x >= 4) P(e_u < 1) */
  CHECK_NEAR(p.p, tail2 * 5 / 8, 1e-12);
  p = prob(m, 4, 16, 0, 0, COND_AUTO); /* affine with a coefficient: 2x - 10 >= 30 <=> x >= 20 */
  CHECK_NEAR(p.p, tail2, 1e-12);
  p = prob(m, 0, 30, 0, 0, COND_AUTO); /* out of the error's reach */
  CHECK_NEAR(p.p, 1, 0);
  p = prob(m, 0, 10, 0, 0, COND_AUTO);
  CHECK_NEAR(p.p, 0, 0);
  p = prob(m, 3, 10, 10, 0, COND_AUTO); /* x >= y at equal truths: 1/2 by symmetry, by quadrature */
  CHECK(p.how == COND_QUADRATURE);
  CHECK_NEAR(p.p, 0.5, fmax(p.error, 1e-9) + 1e-9);
  p = prob(m, 5, 20, 0, 0, COND_AUTO); /* abs: not affine, so quadrature of the indicator */
  CHECK(p.how == COND_QUADRATURE);
  CHECK_NEAR(p.p, (2 * PHI_1 - 1) / z3, fmax(3 * p.error, 1e-7));
}

/* Closed form, nested quadrature, VEGAS and direct sampling agree within their error bars. */
static void test_differential(const ism_model_t *m) {
  struct { int rule; double x, y, u; } cases[] = {{2, 16, 0, 0}, {1, 20, 0, 0}, {0, 17, 0, 0}, {6, 19, 19, 0}, {3, 12, 10, 0}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    cond_prob_t a = prob(m, cases[k].rule, cases[k].x, cases[k].y, cases[k].u, COND_AUTO);
    cond_prob_t n = prob(m, cases[k].rule, cases[k].x, cases[k].y, cases[k].u, COND_NUMERIC);
    cond_prob_t v = prob(m, cases[k].rule, cases[k].x, cases[k].y, cases[k].u, COND_MONTE_CARLO);
    CHECK_NEAR(n.p, a.p, 3 * (n.error + a.error) + 1e-7);
    CHECK_NEAR(v.p, a.p, 4 * (v.error + a.error) + 1e-4);
    /* sampling: draw the errors, count */
    dist_t dx, du;
    dist_init(&dx, ISM_DIST_GAUSSIAN, -6, 6, 0, 2);
    dist_init(&du, ISM_DIST_UNIFORM, -4, 4, 0, 0);
    dist_rng_t *rng = dist_rng_new(7 + k);
    const expr_t *parts[] = {m->rules[cases[k].rule].when};
    bool want[] = {true};
    double values[] = {cases[k].x, cases[k].y, cases[k].u};
    cond_t c = {m, parts, want, 1, values, true};
    long hits = 0, runs = 200000;
    for (long r = 0; r < runs; r++) {
      double e[3] = {dist_sample(&dx, rng), dist_sample(&dx, rng), dist_sample(&du, rng)};
      hits += cond_holds(&c, e);
    }
    dist_rng_delete(rng);
    double f = (double)hits / (double)runs, sigma = sqrt(a.p * (1 - a.p) / (double)runs);
    CHECK_NEAR(f, a.p, 4.5 * sigma + a.error + 1e-9);
  }
}

/* selection: first adds "no earlier rule holds" (corridor: go after halt). */
static void test_selection_first(void) {
  diag_list_t diags;
  diag_init(&diags);
  ism_model_t *m = ism_load("tests/cases/probability/corridor.yaml", &diags);
  CHECK(m != NULL);
  if (!m) return;
  int go = 1;
  CHECK(strcmp(m->rules[go].id, "go") == 0);
  double truth[] = {16, 20, 10, 0, 0, 0};
  int rules[] = {go}, states[] = {0, 0};
  cex_t c = {.length = 1, .rules = rules, .states = states, .truth = truth};
  cond_prob_t p;
  CHECK(rank_step(m, ISM_MODE_ACTUAL, &c, 0, COND_AUTO, &p));
  /* P(16 + e >= 15) with e ~ N(0, 4) truncated to [-10, 10]; side 20 is out of its error's reach */
  double z = 2 * PHI_25 - 1;
  CHECK_NEAR(p.p, (PHI_25 - (1 - PHI_025)) / z, 1e-12);
  truth[0] = 13; /* dist < 15 must fail, so e >= 2 */
  CHECK(rank_step(m, ISM_MODE_ACTUAL, &c, 0, COND_AUTO, &p));
  CHECK_NEAR(p.p, (PHI_25 - PHI_05) / z, 1e-12);
  CHECK(rank_step(m, ISM_MODE_IDEAL, &c, 0, COND_AUTO, &p)); /* no error: the true value decides */
  CHECK_NEAR(p.p, 0, 0);
  ism_free(m);
  diag_free(&diags);
}

/* Keys compare bit for bit; a full table forgets everything and stays correct. */
static void test_memo(void) {
  memo_t t;
  memo_init(&t, 2, sizeof(int), 100);
  for (int k = 0; k < 250; k++) {
    double key[2] = {k, -k * 0.5};
    CHECK(memo_get(&t, key) == NULL);
    memo_put(&t, key, &k);
    const int *hit = memo_get(&t, key);
    CHECK(hit && *hit == k);
  }
  double early[2] = {3, -1.5}, late[2] = {240, -120};
  CHECK(memo_get(&t, early) == NULL); /* forgotten when the table filled at 200 */
  CHECK(memo_get(&t, late) && *(const int *)memo_get(&t, late) == 240);
  double zero[2] = {0.0, 7}, minus_zero[2] = {-0.0, 7};
  int one = 1;
  memo_put(&t, zero, &one);
  CHECK(memo_get(&t, zero) != NULL && memo_get(&t, minus_zero) == NULL);
  memo_free(&t);
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A prepared condition gives exactly cond_probability's and cond_likely_point's results, fresh or memoised. */
static void test_prepared(const ism_model_t *m) {
  struct { int rule; double x, y, u; } cases[] = {{0, 16, 0, 0}, {2, 16, 0, 0}, {3, 12, 10, 0}, {5, 20, 0, 0}, {6, 19, 19, 0}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const expr_t *parts[] = {m->rules[cases[k].rule].when};
    bool want[] = {true};
    double values[] = {cases[k].x, cases[k].y, cases[k].u};
    cond_t c = {m, parts, want, 1, values, true};
    cond_prep_t *prep = cond_prep_new(&c);
    for (int round = 0; round < 2; round++) {
      cond_prob_t a = prob(m, cases[k].rule, cases[k].x, cases[k].y, cases[k].u, COND_AUTO), b;
      CHECK(cond_prep_probability(prep, values, COND_AUTO, &b));
      CHECK(same_bits(a.p, b.p) && same_bits(a.error, b.error) && a.how == b.how);
      double e1[3] = {1, -1, 0.5}, e2[3] = {1, -1, 0.5};
      CHECK(cond_likely_point(&c, e1) == cond_prep_likely_point(prep, values, e2));
      for (int v = 0; v < 3; v++) CHECK(same_bits(e1[v], e2[v]));
    }
    cond_prep_delete(prep);
  }
}

static char *run_cli(const char *const *args, int n) {
  char *out = NULL, *err = NULL;
  size_t olen = 0, elen = 0;
  FILE *fo = open_memstream(&out, &olen), *fe = open_memstream(&err, &elen);
  char *argv[16];
  for (int k = 0; k < n; k++) argv[k] = (char *)args[k];
  cli_main(n, argv, fo, fe);
  fclose(fo);
  fclose(fe);
  free(err);
  return out;
}

static void test_deterministic(void) {
  const char *verify[] = {"ismv", "verify", "tests/cases/probability/corridor.yaml", "--format", "json"};
  const char *joint[] = {"ismv", "verify", "examples/robotcar/explorer.yaml", "--bound", "2", "--probability", "joint"};
  const char *sim[] = {"ismv", "simulate", "tests/cases/probability/corridor.yaml", "--runs", "500", "--format", "csv"};
  const char *const *cmds[] = {verify, joint, sim};
  int lens[] = {5, 7, 7};
  for (int k = 0; k < 3; k++) {
    char *a = run_cli(cmds[k], lens[k]), *b = run_cli(cmds[k], lens[k]);
    CHECK(a && b && strlen(a) > 100 && strcmp(a, b) == 0);
    free(a);
    free(b);
  }
}

int main(void) {
  test_dist();
  test_clopper_pearson();
  test_memo();
  diag_list_t diags;
  diag_init(&diags);
  ism_model_t *m = ism_load("tests/models/probability-conds.yaml", &diags);
  CHECK(m != NULL);
  if (m) {
    test_closed_forms(m);
    test_differential(m);
    test_prepared(m);
    ism_free(m);
  }
  diag_free(&diags);
  test_selection_first();
  test_deterministic();
  if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures);
  return check_failures ? 1 : 0;
}
