/* `expect:` blocks: a model file's statement of the results it should
 * give, checked after the analysis (so `ismv check` turns model files into
 * regression tests). Numbers may be given as a value ("0.333": equal when
 * rounded to the digits written) or with a comparison ("<= 0.34", "> 2",
 * "!= 0"); booleans and strings must match exactly. */
#ifndef APPS_EXPECT_H
#define APPS_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "apps/cli.h"
#include "ism/ydoc.h"

typedef enum { EXPECT_NUMBER, EXPECT_BOOL, EXPECT_STRING, EXPECT_NULL } expect_kind_t;

typedef struct {
  const char *key;
  expect_kind_t kind;
  double number;
  bool boolean;
  const char *string;
} expect_actual_t;

/* Checks every entry of the `expect` mapping (may be NULL: nothing to
 * check) against the actual results. Unknown keys and malformed values are
 * located errors (returns CLI_EXIT_INVALID); a failed expectation is a
 * located error too (returns CLI_EXIT_VIOLATION); else CLI_EXIT_OK. */
int expect_check(cli_ctx_t *ctx, const ynode_t *expect, const expect_actual_t *actual, size_t n);

/* Whether the `expect` mapping (may be NULL) has one of the n keys that
 * state the analysis's verdict: only then may expectations that hold accept
 * a violation or an inconclusive result (cli_outcome_t.expect_verdict). */
bool expect_states_verdict(const ynode_t *expect, const char *const *verdict_keys, size_t n);

#endif
