/* The MaskD parser and a small exploration of what it parsed. */
#include "ism/intern.h"
#include "tests/fuzz/fuzz_util.h"
#include "verifier/masking/maskd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  diag_list_t diags;
  diag_init(&diags);
  maskd_program_t *p = maskd_parse(text, (loc_t){"fuzz.mskd", 1, 1}, 0, &diags);
  maskd_free(p);
  diag_free(&diags);
  free(text);
  return 0;
}
