/* The expression parser and checker; every expression that checks must
 * print as text that parses and checks again to the same text. */
#include "ism/alloc.h"
#include "ism/expr.h"
#include "tests/fuzz/fuzz_util.h"

static const char *const colours[] = {"red", "green"};
static const expr_enum_t enums[] = {{"colour", 2, colours}};
static const expr_sym_t syms[] = {
    {"x", SYM_VAR, {TYPE_REAL, -1}, 0, true},
    {"n", SYM_VAR, {TYPE_INT, -1}, 1, true},
    {"b", SYM_VAR, {TYPE_BOOL, -1}, 2, false},
    {"c", SYM_VAR, {TYPE_ENUM, 0}, 3, true},
};

static value_t lookup(void *ctx, int id, bool primed) {
  (void)ctx;
  return (value_t){id + primed, 0.5 * id - primed};
}

static char *parse_print(const char *text, const expr_scope_t *scope, arena_t *arena, diag_list_t *diags) {
  expr_t *e = expr_parse(text, (loc_t){"fuzz", 1, 1}, arena, diags);
  if (!e || !expr_check(e, scope, TYPE_NONE, arena, diags)) return NULL;
  bool error = false;
  expr_eval(e, lookup, NULL, &error);
  return expr_to_string(e, scope);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  expr_scope_t scope = {syms, 4, enums, 1, true};
  arena_t arena;
  arena_init(&arena);
  diag_list_t diags;
  diag_init(&diags);
  char *printed = parse_print(text, &scope, &arena, &diags);
  if (printed) {
    size_t before = diag_error_count(&diags);
    char *again = parse_print(printed, &scope, &arena, &diags);
    if (!again || diag_error_count(&diags) != before || strcmp(again, printed) != 0) {
      fprintf(stderr, "fuzz: '%s' printed as '%s', which reads back as '%s'\n", text, printed,
              again ? again : "(error)");
      abort();
    }
    free(again);
  }
  free(printed);
  diag_free(&diags);
  arena_free(&arena);
  free(text);
  return 0;
}
