#include "apps/expect.h"

#include <math.h>
#include <stdio.h>
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
  case EXPECT_NULL:
  case EXPECT_NUMBER_OR_NULL: snprintf(buf, size, "null"); break; /* a result is never the latter */
  }
}

/* One entry's value against the kind its key takes; located errors. */
static bool entry_valid(cli_ctx_t *ctx, const ynode_t *want, const char *key, expect_kind_t kind) {
  if (want->kind != YNODE_SCALAR) {
    diag_error(&ctx->diags, want->loc, "an expected value must be a single value");
    return false;
  }
  char op[3];
  double value;
  int digits;
  bool b;
  switch (kind) {
  case EXPECT_NUMBER_OR_NULL:
    if (ydoc_is_null(want)) return true;
    /* fall through */
  case EXPECT_NUMBER:
    if (parse_number_spec(want->text, op, &value, &digits)) return true;
    diag_error(&ctx->diags, want->loc, "expected '%s' must be a number%s, optionally after <, <=, >, >=, == or !=",
               key, kind == EXPECT_NUMBER_OR_NULL ? " (or null)" : "");
    return false;
  case EXPECT_BOOL: return ydoc_bool(want, &b, "an expected flag", &ctx->diags);
  case EXPECT_STRING:
  case EXPECT_NULL: return true;
  }
  return true;
}

static const expect_key_t *find_key(const expect_key_t *keys, size_t n, const char *key, size_t *at) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(keys[i].key, key) == 0) {
      *at = i;
      return &keys[i];
    }
  return NULL;
}

bool expect_validate(cli_ctx_t *ctx, const ynode_t *expect, const expect_key_t *keys, size_t n) {
  if (!expect) return true;
  if (!ydoc_expect_kind(expect, YNODE_MAP, "'expect'", &ctx->diags)) return false;
  const char **names = xcalloc(n + 1, sizeof *names);
  for (size_t i = 0; i < n; i++) names[i] = keys[i].key;
  bool ok = ydoc_check_keys(expect, names, n, "'expect'", &ctx->diags);
  free(names);
  for (size_t k = 0; ok && k < expect->len; k++) {
    size_t at = 0;
    const expect_key_t *key = find_key(keys, n, expect->keys[k]->text, &at);
    ok = entry_valid(ctx, expect->items[k], key->key, key->kind);
  }
  return ok;
}

/* Whether actual (the result of a key of kind `kind`) may stand for it. */
static bool kind_agrees(expect_kind_t kind, expect_kind_t actual) {
  if (kind == EXPECT_NUMBER_OR_NULL) return actual == EXPECT_NUMBER || actual == EXPECT_NULL;
  return kind == actual;
}

int expect_check(cli_ctx_t *ctx, const ynode_t *expect, const expect_key_t *keys, const expect_actual_t *actual,
                 size_t n) {
  if (!expect) return CLI_EXIT_OK;
  for (size_t i = 0; i < n; i++)
    if (strcmp(keys[i].key, actual[i].key) != 0 || !kind_agrees(keys[i].kind, actual[i].kind)) {
      fprintf(ctx->err, "ismv: internal error: expect: result %zu is '%s', the key list says '%s'\n", i,
              actual[i].key, keys[i].key);
      return CLI_EXIT_INTERNAL;
    }
  if (!expect_validate(ctx, expect, keys, n)) return CLI_EXIT_INVALID;
  int rc = CLI_EXIT_OK;
  for (size_t k = 0; k < expect->len; k++) {
    const ynode_t *want = expect->items[k];
    size_t at = 0;
    find_key(keys, n, expect->keys[k]->text, &at); /* validated: every key is there */
    const expect_actual_t *a = &actual[at];
    bool match;
    if (a->kind == EXPECT_NUMBER) {
      char op[3];
      double value;
      int digits;
      if (!parse_number_spec(want->text, op, &value, &digits)) { /* null for a number-or-null key */
        match = false;
      } else {
        match = number_matches(a->number, op, value, digits);
      }
    } else if (a->kind == EXPECT_BOOL) {
      bool b;
      ydoc_bool(want, &b, "an expected flag", &ctx->diags);
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
