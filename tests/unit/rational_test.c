/* Exact rationals and exact expression evaluation (verifier/paths/rational.h). */
#include "verifier/paths/rational.h"

#include <limits.h>

#include "ism/alloc.h"
#include "tests/unit/check.h"

static bool rat_is(rat_t r, long long num, long long den) { return r.num == num && r.den == den; }

static bool no_vars(void *ctx, int id, bool primed, rat_t *out) {
  (void)ctx, (void)id, (void)primed, (void)out;
  return false;
}

/* Parses and checks a closed expression and evaluates it exactly. */
static bool eval_text(const char *text, rat_t *out) {
  arena_t arena;
  arena_init(&arena);
  diag_list_t diags;
  diag_init(&diags);
  loc_t loc = {0};
  expr_t *e = expr_parse(text, loc, &arena, &diags);
  expr_scope_t scope = {0};
  bool ok = e && expr_check(e, &scope, TYPE_NONE, &arena, &diags) && rat_eval(e, no_vars, NULL, out);
  diag_free(&diags);
  arena_free(&arena);
  return ok;
}

int main(void) {
  rat_t r;
  CHECK(rat_from_text("0.1", &r) && rat_is(r, 1, 10));
  CHECK(rat_from_text("-2.50", &r) && rat_is(r, -5, 2));
  CHECK(rat_from_text("1e-3", &r) && rat_is(r, 1, 1000));
  CHECK(rat_from_text("12E2", &r) && rat_is(r, 1200, 1));
  CHECK(!rat_from_text("1e40", &r));
  CHECK(!rat_from_text("abc", &r));
  /* literals of at most 18 digits take a 64-bit path, longer ones the 128-bit one: the same reduced values */
  CHECK(rat_from_text("0", &r) && rat_is(r, 0, 1));
  CHECK(rat_from_text("-0.000", &r) && rat_is(r, 0, 1));
  CHECK(rat_from_text("+7.", &r) && rat_is(r, 7, 1));
  CHECK(rat_from_text(".25", &r) && rat_is(r, 1, 4));
  CHECK(rat_from_text("0.75", &r) && rat_is(r, 3, 4));
  CHECK(rat_from_text("-12.5", &r) && rat_is(r, -25, 2));
  CHECK(rat_from_text("999999999999999999", &r) && rat_is(r, 999999999999999999LL, 1));   /* 18 digits */
  CHECK(rat_from_text("1000000000000000001", &r) && rat_is(r, 1000000000000000001LL, 1));  /* 19 digits */
  CHECK(rat_from_text("0.00000000000000000025", &r) && rat_is(r, 1, 4000000000000000000LL)); /* 21 digits */
  CHECK(rat_from_text("1234567.8901234500", &r) && rat_is(r, 24691357802469, 20000000));
  CHECK(!rat_from_text(".", &r) && !rat_from_text("-", &r) && !rat_from_text("1.2.3", &r) && !rat_from_text("", &r));
  CHECK(rat_from_double(0.1, &r) && rat_is(r, 1, 10)); /* the shortest decimal, as the solver reads it */
  CHECK(rat_from_double(-6, &r) && rat_is(r, -6, 1));
  rat_t third = {1, 3}, sixth = {1, 6};
  CHECK(rat_add(third, sixth, &r) && rat_is(r, 1, 2));
  CHECK(rat_sub(sixth, third, &r) && rat_is(r, -1, 6));
  CHECK(rat_mul(third, rat_int(3), &r) && rat_is(r, 1, 1));
  CHECK(rat_div(third, sixth, &r) && rat_is(r, 2, 1));
  CHECK(!rat_div(third, rat_int(0), &r));
  CHECK(!rat_mul(rat_int(LLONG_MAX), rat_int(2), &r)); /* overflow is reported, never wrapped */
  CHECK(rat_cmp(third, sixth) > 0 && rat_cmp(sixth, third) < 0 && rat_cmp(third, (rat_t){1, 3}) == 0);
  CHECK(rat_is(rat_floor((rat_t){-7, 2}), -4, 1) && rat_is(rat_ceil((rat_t){-7, 2}), -3, 1));
  CHECK(rat_is(rat_floor((rat_t){7, 2}), 3, 1) && rat_is(rat_ceil((rat_t){7, 2}), 4, 1));
  /* Expressions, with the solver's semantics: 0.1 + 0.2 == 0.3 exactly, Euclidean div and mod. */
  CHECK(eval_text("0.1 + 0.2 == 0.3", &r) && rat_is(r, 1, 1));
  CHECK(eval_text("1.0 / 3 * 3", &r) && rat_is(r, 1, 1));
  CHECK(eval_text("1 / 3 * 3", &r) && rat_is(r, 0, 1)); /* integer division */
  CHECK(eval_text("-7 / 2", &r) && rat_is(r, -4, 1));
  CHECK(eval_text("-7 % 2", &r) && rat_is(r, 1, 1));
  CHECK(eval_text("7 % -2", &r) && rat_is(r, 1, 1));
  CHECK(eval_text("abs(-2.5) + min(1, 2) + max(0.5, 0.25)", &r) && rat_is(r, 4, 1));
  CHECK(eval_text("if 1 < 2 then 0.5 else 1 / (0.5 - 0.5)", &r) && rat_is(r, 1, 2));
  CHECK(eval_text("false and 1 / (0.5 - 0.5) > 1", &r) && rat_is(r, 0, 1)); /* the other side is not needed */
  CHECK(!eval_text("1 / (0.5 - 0.5) > 1 or false", &r));                    /* unspecified: no answer */
  CHECK(eval_text("true => false", &r) && rat_is(r, 0, 1));
  CHECK(eval_text("(1 < 2) <=> (2 < 3)", &r) && rat_is(r, 1, 1));
  return CHECK_RESULT();
}
