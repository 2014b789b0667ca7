/* The configuration loaders of `ismv robustness` and `ismv envelope` (the
 * files a configuration names mostly do not exist next to the input: the
 * loaders' checks are the point). */
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".yaml");
  char *robustness[] = {"ismv", "robustness", (char *)path, NULL};
  char *envelope[] = {"ismv", "envelope", (char *)path, NULL};
  fuzz_cli(3, robustness);
  fuzz_cli(3, envelope);
  return 0;
}
