/* The FSP front end: parse, then compile every process (LTSA semantics). */
#include "tests/fuzz/fuzz_util.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/lts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  diag_list_t diags;
  diag_init(&diags);
  lts_labels_t labels;
  lts_labels_init(&labels);
  fsp_file_t *file = fsp_parse_string("fuzz.lts", text, &labels, &diags);
  for (size_t i = 0; file && i < fsp_process_count(file) && i < 8; i++)
    lts_free(fsp_compile(file, fsp_process_name(file, i), &diags));
  fsp_free(file);
  lts_labels_free(&labels);
  diag_free(&diags);
  free(text);
  return 0;
}
