/* The configuration loaders of `ismv robustness`, `ismv envelope` and
 * `ismv robustify` (YAML, or Fortis's JSON read as YAML; the files a
 * configuration names mostly do not exist next to the input: the loaders'
 * checks are the point; robustify under small limits, as its search on a
 * loaded model may be long). */
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".yaml");
  char *robustness[] = {"ismv", "robustness", (char *)path, NULL};
  char *envelope[] = {"ismv", "envelope", (char *)path, NULL};
  fuzz_cli(3, robustness);
  fuzz_cli(3, envelope);
  char *robustify[] = {"ismv", "robustify", (char *)path, "--max-states", "20000", "--timeout", "2", NULL};
  fuzz_cli(sizeof robustify / sizeof *robustify - 1, robustify);
  return 0;
}
