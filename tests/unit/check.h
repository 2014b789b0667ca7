/* The unit tests' assertion: counts failures instead of stopping, so one
 * run reports every broken check. A test's main returns CHECK_RESULT(). */
#ifndef TESTS_UNIT_CHECK_H
#define TESTS_UNIT_CHECK_H

#include <stdio.h>

static int check_failures;
#define CHECK(cond)                                                                \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
      check_failures++;                                                            \
    }                                                                              \
  } while (0)
#define CHECK_RESULT() (check_failures ? 1 : 0)

#endif
