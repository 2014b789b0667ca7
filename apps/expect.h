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

typedef enum { EXPECT_NUMBER, EXPECT_BOOL, EXPECT_STRING, EXPECT_NULL, EXPECT_NUMBER_OR_NULL } expect_kind_t;

/* One key an analysis's `expect:` block may hold, and the kind of its value
 * (EXPECT_NUMBER_OR_NULL: a number, or null when the analysis may have none,
 * e.g. masking's `faults`). Each command lists its keys once; the block is
 * validated against the list before the analysis runs, and checked against
 * the results, in the same order, after it. */
typedef struct {
  const char *key;
  expect_kind_t kind;
} expect_key_t;

typedef struct {
  const char *key;
  expect_kind_t kind;
  double number;
  bool boolean;
  const char *string;
} expect_actual_t;

/* Validates the `expect` mapping (may be NULL) against the n keys an
 * analysis offers, before it runs: a mapping, known keys, single values,
 * numbers where numbers are expected ("OP NUMBER"), flags where flags are.
 * Returns false after located errors. */
bool expect_validate(cli_ctx_t *ctx, const ynode_t *expect, const expect_key_t *keys, size_t n);

/* Checks every entry of the `expect` mapping (may be NULL: nothing to
 * check) against the actual results, actual[i] being the value of keys[i]
 * (the list given to expect_validate; a key or kind that disagrees with it
 * is an internal error, CLI_EXIT_INTERNAL). Malformed entries are located
 * errors (CLI_EXIT_INVALID); a failed expectation is a located error too
 * (CLI_EXIT_VIOLATION); else CLI_EXIT_OK. */
int expect_check(cli_ctx_t *ctx, const ynode_t *expect, const expect_key_t *keys, const expect_actual_t *actual,
                 size_t n);

/* Whether the `expect` mapping (may be NULL) has one of the n keys that
 * state the analysis's verdict: only then may expectations that hold accept
 * a violation or an inconclusive result (cli_outcome_t.expect_verdict). */
bool expect_states_verdict(const ynode_t *expect, const char *const *verdict_keys, size_t n);

#endif
