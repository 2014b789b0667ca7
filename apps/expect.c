#include "apps/expect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

/* Parses "OP NUMBER" or "NUMBER"; *digits = decimals written (for rounding). */
static bool parse_number_spec(const char *text, char op[3], double *value, int *digits) {
  const char *p = text;
  while (*p == ' ') p++;
  op[0] = op[1] = op[2] = '\0';
  if (strchr("<>=!", *p)) {
    op[0] = *p++;
    if (*p == '=') op[1] = *p++;
    while (*p == ' ') p++;
  }
  if (op[0] == '!' && op[1] != '=') return false;
  if (op[0] == '=' && op[1] != '=') op[1] = '=';
  char *end;
  *value = strtod(p, &end);
  if (end == p || *end != '\0' || !isfinite(*value)) return false;
  const char *dot = strchr(p, '.');
  *digits = dot && !strpbrk(p, "eE") ? (int)(end - dot - 1) : -1;
  return true;
}

static bool number_matches(double actual, const char op[3], double want, int digits) {
  double eps = 1e-9 * (1 + fabs(want));
  if (!op[0] || (op[0] == '=' && op[1] == '=')) {
    if (digits >= 0 && !op[0]) return fabs(actual - want) <= 0.5 * pow(10, -digits) + eps;
    return fabs(actual - want) <= eps;
  }
  if (op[0] == '!') return fabs(actual - want) > eps;
  if (op[0] == '<') return op[1] ? actual <= want + eps : actual < want;
  return op[1] ? actual >= want - eps : actual > want;
}

static void format_actual(char *buf, size_t size, const expect_actual_t *a) {
  switch (a->kind) {
  case EXPECT_NUMBER: snprintf(buf, size, "%.6g", a->number); break;
  case EXPECT_BOOL: snprintf(buf, size, "%s", a->boolean ? "true" : "false"); break;
  case EXPECT_STRING: snprintf(buf, size, "%s", a->string); break;
  case EXPECT_NULL: snprintf(buf, size, "null"); break;
  }
}

int expect_check(cli_ctx_t *ctx, const ynode_t *expect, const expect_actual_t *actual, size_t n) {
  if (!expect) return CLI_EXIT_OK;
  if (!ydoc_expect_kind(expect, YNODE_MAP, "'expect'", &ctx->diags)) return CLI_EXIT_INVALID;
  const char **keys = xcalloc(n + 1, sizeof *keys);
  for (size_t i = 0; i < n; i++) keys[i] = actual[i].key;
  bool ok = ydoc_check_keys(expect, keys, n, "'expect'", &ctx->diags);
  free(keys);
  if (!ok) return CLI_EXIT_INVALID;
  int rc = CLI_EXIT_OK;
  for (size_t k = 0; k < expect->len; k++) {
    const ynode_t *want = expect->items[k];
    const expect_actual_t *a = NULL;
    for (size_t i = 0; i < n && !a; i++)
      if (strcmp(actual[i].key, expect->keys[k]->text) == 0) a = &actual[i];
    if (want->kind != YNODE_SCALAR) {
      diag_error(&ctx->diags, want->loc, "an expected value must be a single value");
      return CLI_EXIT_INVALID;
    }
    bool match;
    if (a->kind == EXPECT_NUMBER) {
      char op[3];
      double value;
      int digits;
      if (!parse_number_spec(want->text, op, &value, &digits)) {
        diag_error(&ctx->diags, want->loc, "expected '%s' must be a number, optionally after <, <=, >, >=, == or !=",
                   a->key);
        return CLI_EXIT_INVALID;
      }
      match = number_matches(a->number, op, value, digits);
    } else if (a->kind == EXPECT_BOOL) {
      bool b;
      if (!ydoc_bool(want, &b, "an expected flag", &ctx->diags)) return CLI_EXIT_INVALID;
      match = b == a->boolean;
    } else if (a->kind == EXPECT_NULL) {
      match = ydoc_is_null(want);
    } else {
      match = strcmp(want->text, a->string) == 0;
    }
    if (!match) {
      char buf[128];
      format_actual(buf, sizeof buf, a);
      diag_error(&ctx->diags, want->loc, "expectation failed: %s is %s, expected %s", a->key, buf, want->text);
      rc = CLI_EXIT_VIOLATION;
    }
  }
  return rc;
}

bool expect_states_verdict(const ynode_t *expect, const char *const *verdict_keys, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (ydoc_get(expect, verdict_keys[i])) return true;
  return false;
}
