/* Unit tests of the solver backend: results, models, assumptions,
 * push/pop, numerals, quantifier elimination, and that a Z3 error is
 * recorded instead of ending the process. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "verifier/smt.h"

static void test_basic(void) {
  smt_t *s = smt_new(NULL);
  smt_term_t x = smt_const(s, "x", SMT_SORT_REAL), y = smt_const(s, "y", SMT_SORT_INT);
  /* x = y / 4 (as reals), 1 <= y <= 3, x > 0.6 */
  smt_assert(
      s, smt_op(s, EXPR_EQ, x, smt_op(s, EXPR_DIV, smt_op(s, EXPR_TOREAL, y, 0, 0), smt_real(s, 4), 0), 0));
  smt_assert(s, smt_op(s, EXPR_LE, smt_int(s, 1), y, 0));
  smt_assert(s, smt_op(s, EXPR_LE, y, smt_int(s, 3), 0));
  smt_assert(s, smt_op(s, EXPR_GT, x, smt_real_text(s, "0.6"), 0));
  CHECK(smt_check(s, NULL, 0) == SMT_SAT);
  double vx = 0, vy = 0;
  char *exact = NULL;
  CHECK(smt_model_real(s, x, &vx, &exact));
  CHECK(smt_model_real(s, y, &vy, NULL));
  CHECK(vy == 3 && vx == 0.75);
  CHECK(exact && strcmp(exact, "3/4") == 0);
  free(exact);
  /* an assumption that contradicts, then the solver is still usable */
  smt_term_t small = smt_op(s, EXPR_LT, x, smt_real_text(s, "5e-1"), 0);
  CHECK(smt_check(s, &small, 1) == SMT_UNSAT);
  smt_push(s);
  smt_assert(s, small);
  CHECK(smt_check(s, NULL, 0) == SMT_UNSAT);
  smt_pop(s, 1);
  CHECK(smt_check(s, NULL, 0) == SMT_SAT);
  smt_stats_t st = smt_stats(s);
  CHECK(st.checks == 4 && st.sat == 2 && st.unsat == 2);
  smt_delete(s);
}

static void test_real_constants(void) {
  smt_t *s = smt_new(NULL);
  const double values[] = {0.1, -6, 300, 1e-7, 2.5e10};
  for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
    smt_term_t c = smt_real(s, values[i]);
    smt_term_t x = smt_const(s, "x", SMT_SORT_REAL);
    smt_push(s);
    smt_assert(s, smt_op(s, EXPR_EQ, x, c, 0));
    double v = 0;
    CHECK(smt_check(s, NULL, 0) == SMT_SAT && smt_model_real(s, x, &v, NULL) && v == values[i]);
    smt_pop(s, 1);
  }
  smt_delete(s);
}

static void test_qe(void) {
  smt_t *s = smt_new(NULL);
  smt_term_t x = smt_const(s, "x", SMT_SORT_REAL), d = smt_const(s, "d", SMT_SORT_REAL);
  /* exists x. 0 <= x <= d  <=>  d >= 0 */
  smt_term_t body =
      smt_op(s, EXPR_AND, smt_op(s, EXPR_LE, smt_real(s, 0), x, 0), smt_op(s, EXPR_LE, x, d, 0), 0);
  smt_term_t qf = smt_eliminate_quantifiers(s, smt_exists(s, &x, 1, body));
  CHECK(qf != 0);
  if (qf) {
    smt_term_t differ =
        smt_op(s, EXPR_NOT, smt_op(s, EXPR_IFF, qf, smt_op(s, EXPR_GE, d, smt_real(s, 0), 0), 0), 0, 0);
    CHECK(smt_check(s, &differ, 1) == SMT_UNSAT);
  }
  smt_delete(s);
}

static void test_error_is_recorded(void) {
  smt_t *s = smt_new(NULL);
  smt_term_t b = smt_const(s, "b", SMT_SORT_BOOL), n = smt_const(s, "n", SMT_SORT_INT);
  CHECK(smt_op(s, EXPR_ADD, b, n, 0) == 0); /* sort mismatch: Z3 reports an error */
  CHECK(smt_error(s) != NULL);
  smt_delete(s);
}

/* Exact rationals, and the roots of atoms linear in one constant. */
static void test_rationals(void) {
  smt_t *s = smt_new(NULL);
  char *r = smt_q_arith(s, EXPR_DIV, "5", "2"), *sum = smt_q_arith(s, EXPR_ADD, "1/3", "2.5");
  CHECK_STREQ(r, "5/2");
  CHECK_STREQ(sum, "17/6");
  CHECK(smt_q_arith(s, EXPR_DIV, "1", "0") == NULL);
  CHECK(smt_q_cmp(s, "5/2", "2.5") == 0 && smt_q_cmp(s, "-1/3", "0") < 0 && smt_q_cmp(s, "7/3", "2") > 0);
  char *fl = smt_q_floor(s, "-5/2");
  CHECK_STREQ(fl, "-3");
  free(r), free(sum), free(fl);
  smt_term_t d = smt_const(s, "D", SMT_SORT_REAL), e = smt_const(s, "E", SMT_SORT_REAL);
  /* (2D < 5 and D >= 0) or D == 7 or 3 - D <= D: roots 0, 3/2, 5/2, 7 */
  smt_term_t two_d = smt_op(s, EXPR_MUL, smt_real(s, 2), d, 0);
  smt_term_t t = smt_op(s, EXPR_AND, smt_op(s, EXPR_LT, two_d, smt_real(s, 5), 0),
                        smt_op(s, EXPR_GE, d, smt_real(s, 0), 0), 0);
  t = smt_op(s, EXPR_OR, t, smt_op(s, EXPR_EQ, d, smt_real(s, 7), 0), 0);
  t = smt_op(s, EXPR_OR, t, smt_op(s, EXPR_LE, smt_op(s, EXPR_SUB, smt_real(s, 3), d, 0), d, 0), 0);
  char **roots = NULL;
  size_t n = 0;
  CHECK(smt_linear_roots(s, t, d, &roots, &n));
  CHECK(n == 4);
  const char *want[] = {"0", "3/2", "5/2", "7"};
  for (size_t i = 0; i < n && i < 4; i++) CHECK_STREQ(roots[i], want[i]);
  for (size_t i = 0; i < n; i++) free(roots[i]);
  free(roots);
  /* another constant in an atom: refused */
  CHECK(!smt_linear_roots(s, smt_op(s, EXPR_LE, d, e, 0), d, &roots, &n) && n == 0);
  free(roots);
  smt_delete(s);
}

static bool leaf_name(void *ctx, const char *name, smt_leaf_t *out) {
  (void)ctx;
  out->text = name[0] == 'x' ? "x" : "y";
  return true;
}

/* Readable text: bounds on one form merged into an interval, a covered
 * conjunction dropped, a disjunction in parentheses. */
static void test_readable(void) {
  smt_t *s = smt_new(NULL);
  smt_term_t x = smt_const(s, "x", SMT_SORT_INT), y = smt_const(s, "y", SMT_SORT_INT);
  smt_term_t t = smt_op(s, EXPR_AND, smt_op(s, EXPR_NOT, smt_op(s, EXPR_LT, x, smt_int(s, 3), 0), 0, 0),
                        smt_op(s, EXPR_NOT, smt_op(s, EXPR_GT, x, smt_int(s, 7), 0), 0, 0), 0);
  t = smt_op(s, EXPR_AND, t, smt_op(s, EXPR_LE, smt_op(s, EXPR_ADD, x, y, 0), smt_int(s, 4), 0), 0);
  char *text = smt_to_readable_text(s, t, smt_bool(s, true), 8, leaf_name, NULL);
  CHECK_STREQ(text, "3 <= x and x <= 7 and x + y <= 4");
  free(text);
  /* x < 3 or (x < 2 and y > 0) is x < 3, an integer bound */
  smt_term_t u = smt_op(s, EXPR_OR, smt_op(s, EXPR_LT, x, smt_int(s, 3), 0),
                        smt_op(s, EXPR_AND, smt_op(s, EXPR_LT, x, smt_int(s, 2), 0),
                               smt_op(s, EXPR_GT, y, smt_int(s, 0), 0), 0),
                        0);
  text = smt_to_readable_text(s, u, smt_bool(s, true), 8, leaf_name, NULL);
  CHECK_STREQ(text, "x <= 2");
  free(text);
  /* where y >= 10 holds, x <= 4 - y or x >= 20 is ... or ... */
  smt_term_t v = smt_op(s, EXPR_OR, smt_op(s, EXPR_LE, smt_op(s, EXPR_ADD, x, y, 0), smt_int(s, 4), 0),
                        smt_op(s, EXPR_GE, x, smt_int(s, 20), 0), 0);
  text = smt_to_readable_text(s, v, smt_op(s, EXPR_GE, y, smt_int(s, 10), 0), 8, leaf_name, NULL);
  CHECK(text && strstr(text, ") or (") && strstr(text, "20 <= x") && strstr(text, "x + y <= 4"));
  free(text);
  smt_delete(s);
}

/* Every smt_const is a constant of its own, whatever its name: two names
 * that differ only after byte 255, and one name given twice. */
static void test_long_names(void) {
  smt_t *s = smt_new(NULL);
  char a[301], b[301];
  memset(a, 'v', 300);
  a[300] = '\0';
  memcpy(b, a, sizeof a);
  b[299] = 'w';
  smt_term_t x = smt_const(s, a, SMT_SORT_INT), y = smt_const(s, b, SMT_SORT_INT);
  smt_term_t z = smt_const(s, a, SMT_SORT_INT);
  CHECK(x != y && x != z);
  smt_term_t differ[2] = {smt_op(s, EXPR_NE, x, y, 0), smt_op(s, EXPR_NE, x, z, 0)};
  CHECK(smt_check(s, differ, 2) == SMT_SAT);
  char *name = smt_name(s, y);
  CHECK(name && strlen(name) > 300 && strncmp(name, b, 300) == 0);
  free(name);
  smt_delete(s);
}

int main(void) {
  test_basic();
  test_long_names();
  test_readable();
  test_rationals();
  test_real_constants();
  test_qe();
  test_error_is_recorded();
  return CHECK_RESULT();
}
