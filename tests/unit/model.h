/* The unit tests' model loader: the model, or NULL after a failed check
 * (the diagnostics are dropped; a test that needs them loads by itself). */
#ifndef TESTS_UNIT_MODEL_H
#define TESTS_UNIT_MODEL_H

#include "ism/diag.h"
#include "ism/ism.h"
#include "tests/unit/check.h"

static ism_model_t *load(const char *path) {
  diag_list_t diags;
  diag_init(&diags);
  ism_model_t *m = ism_load(path, &diags);
  diag_free(&diags);
  CHECK(m != NULL);
  return m;
}

#endif
