/* Unit tests of the expression language: parsing and precedence, type
 * checking with coercions and located errors, evaluation (Euclidean
 * division like SMT-LIB), printing that parses back to the same tree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/expr.h"
#include "tests/unit/check.h"

static const expr_sym_t syms[] = {
    {"x", SYM_VAR, {TYPE_REAL, -1}, 0, true},
    {"n", SYM_VAR, {TYPE_INT, -1}, 1, true},
    {"b", SYM_VAR, {TYPE_BOOL, -1}, 2, false},
    {"c", SYM_VAR, {TYPE_ENUM, 0}, 3, true},
};
static const char *const colours[] = {"red", "green"};
static const expr_enum_t enums[] = {{"colour", 2, colours}};
static const expr_scope_t scope = {syms, 4, enums, 1, true};

static value_t lookup(void *ctx, int id, bool primed) {
  (void)ctx;
  value_t v = {0, 0};
  switch (id) {
  case 0: v.r = primed ? 2.5 : 1.5; break;
  case 1: v.i = primed ? -7 : 7; break;
  case 2: v.i = 1; break;
  default: v.i = 1; break;
  }
  return v;
}

static expr_t *parse(arena_t *a, diag_list_t *d, const char *text, type_kind_t want) {
  expr_t *e = expr_parse(text, (loc_t){"t", 1, 1}, a, d);
  return e && expr_check(e, &scope, want, a, d) ? e : NULL;
}

static void test_eval(void) {
  arena_t a;
  arena_init(&a);
  diag_list_t d;
  diag_init(&d);
  struct {
    const char *text;
    double want;
  } cases[] = {
      {"1 + 2 * 3", 7},          {"(1 + 2) * 3", 9},      {"-7 / 2", -4},           {"-7 % 2", 1},
      {"7 / -2", -3},            {"x + n", 8.5},          {"x' - x", 1},            {"abs(n')", 7},
      {"min(x, n)", 1.5},        {"max(n', x)", 1.5},     {"if b then n else 0", 7}, {"1.5e1 / 2", 7.5},
      {"if n > 3 then 1 else 2", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    expr_t *e = parse(&a, &d, cases[i].text, TYPE_NONE);
    CHECK(e != NULL);
    if (e) CHECK(fabs(expr_eval_real(e, lookup, NULL, NULL) - cases[i].want) < 1e-12);
  }
  const char *truths[] = {"not b or true", "b and n > 3 => x < 2", "x' > x <=> n == 7", "c == green", "!(n != 7) && b",
                          "n >= 7 -> n' < 0", "c' != red"};
  for (size_t i = 0; i < sizeof truths / sizeof *truths; i++) {
    expr_t *e = parse(&a, &d, truths[i], TYPE_BOOL);
    CHECK(e != NULL);
    if (e) CHECK(expr_eval_bool(e, lookup, NULL, NULL));
  }
  bool error = false;
  expr_t *e = parse(&a, &d, "n / (n - 7)", TYPE_INT);
  CHECK(e && (expr_eval(e, lookup, NULL, &error), error));
  CHECK(d.count == 0);
  diag_free(&d);
  arena_free(&a);
}

/* Each bad expression gives exactly one error with this message and column. */
static void test_errors(void) {
  struct {
    const char *text;
    type_kind_t want;
    int col;
    const char *message;
  } cases[] = {
      {"x +", TYPE_NONE, 4, "expected an expression before 'end of expression'"},
      {"x = 1", TYPE_NONE, 3, "unexpected '=' (write '==' for equality)"},
      {"1 < x < 2", TYPE_BOOL, 7, "comparisons do not chain: write 'a <= b and b < c'"},
      {"y + 1", TYPE_NONE, 1, "undefined name 'y'"},
      {"b + 1", TYPE_NONE, 1, "operator '+' needs numbers, not bool"},
      {"x and b", TYPE_BOOL, 1, "operator 'and' needs a condition (bool), not real"},
      {"x % 2", TYPE_NONE, 3, "operator '%' needs integers, not real"},
      {"c == 1", TYPE_BOOL, 3, "cannot compare colour with int"},
      {"b'", TYPE_BOOL, 1, "'b' cannot be primed: it does not change in a step"},
      {"x + 1", TYPE_BOOL, 1, "expected a condition (bool) here, but this expression is real"},
      {"sqrt(x)", TYPE_NONE, 1, "unknown function 'sqrt' (functions are abs, min and max)"},
      {"if b then 1 else red", TYPE_NONE, 1, "the branches of 'if' have different types (int and colour)"},
      {"", TYPE_NONE, 1, "empty expression"},
      {"x # 2", TYPE_NONE, 3, "unexpected character '#'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    arena_t a;
    arena_init(&a);
    diag_list_t d;
    diag_init(&d);
    CHECK(parse(&a, &d, cases[i].text, cases[i].want) == NULL);
    CHECK(d.count == 1);
    if (d.count == 1) {
      if (strcmp(d.items[0].message, cases[i].message) != 0 || d.items[0].loc.col != cases[i].col)
        fprintf(stderr, "  '%s': got %d: %s\n", cases[i].text, d.items[0].loc.col, d.items[0].message);
      CHECK(strcmp(d.items[0].message, cases[i].message) == 0);
      CHECK(d.items[0].loc.col == cases[i].col);
    }
    diag_free(&d);
    arena_free(&a);
  }
}

/* Printing then parsing gives a tree that prints the same. */
static void test_print_roundtrip(void) {
  const char *texts[] = {"a - (b - c)", "a - b - c", "a => b => c", "(a => b) => c", "-(a + b) * c",
                         "not (a and b) or c", "if a then b else c + 1", "min(a, b) / (c % 2)",
                         "a <=> b <=> c",
                         /* fuzz_expr: -(-(-a)) printed deeper than it parsed, and past the depth limit */
                         "0 > ---a", NULL};
  char deep[1200] = "0 > ";
  memset(deep + 4, '-', 900);
  strcpy(deep + 904, "a");
  texts[sizeof texts / sizeof *texts - 1] = deep;
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    arena_t a;
    arena_init(&a);
    diag_list_t d;
    diag_init(&d);
    expr_t *e = expr_parse(texts[i], (loc_t){"t", 1, 1}, &a, &d);
    CHECK(e != NULL);
    char *s1 = expr_to_string(e, NULL);
    expr_t *e2 = expr_parse(s1, (loc_t){"t", 1, 1}, &a, &d);
    CHECK(e2 != NULL);
    char *s2 = e2 ? expr_to_string(e2, NULL) : NULL;
    CHECK(s2 && strcmp(s1, s2) == 0);
    CHECK(strcmp(s1, texts[i]) == 0);
    if (strcmp(s1, texts[i]) != 0) fprintf(stderr, "  printed '%s' as '%s'\n", texts[i], s1);
    free(s1);
    free(s2);
    diag_free(&d);
    arena_free(&a);
  }
}

int main(void) {
  test_eval();
  test_errors();
  test_print_roundtrip();
  return CHECK_RESULT();
}
