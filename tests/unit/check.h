/* The unit tests' assertions: they count failures instead of stopping, so
 * one run reports every broken check. A test's main returns CHECK_RESULT(). */
#ifndef TESTS_UNIT_CHECK_H
#define TESTS_UNIT_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
#define CHECK(cond)                                                                \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
      check_failures++;                                                            \
    }                                                                              \
  } while (0)
/* Both strings exist and are equal; on failure prints what was wanted and got. */
#define CHECK_STREQ(got, want)                                                     \
  do {                                                                             \
    const char *check_got_ = (got), *check_want_ = (want);                         \
    if (!check_got_ || !check_want_ || strcmp(check_got_, check_want_) != 0) {     \
      fprintf(stderr, "%s:%d: check failed: %s == %s\n  want: %s\n  got:  %s\n",   \
              __FILE__, __LINE__, #got, #want, check_want_ ? check_want_ : "(null)", \
              check_got_ ? check_got_ : "(null)");                                 \
      check_failures++;                                                            \
    }                                                                              \
  } while (0)
#define CHECK_RESULT() (check_failures ? 1 : 0)

#endif
