/* The EOFM reader (libxml2 and the checks of the task-model rules): any
 * input is a checked model or NULL with at least one located error. */
#include "tests/fuzz/fuzz_util.h"
#include "verifier/lts/eofm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  diag_list_t diags;
  diag_init(&diags);
  eofm_t *m = eofm_parse_string("fuzz.xml", text, &diags);
  if (!m && diags.count == 0) abort(); /* a refusal always says why */
  eofm_free(m);
  diag_free(&diags);
  free(text);
  return 0;
}
