/* The Event-B model loader. */
#include "tests/fuzz/fuzz_util.h"
#include "verifier/eventb/eventb_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".yaml");
  diag_list_t diags;
  diag_init(&diags);
  eventb_free(eventb_load(path, &diags));
  diag_free(&diags);
  return 0;
}
