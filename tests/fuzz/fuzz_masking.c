/* `ismv masking` on a configuration: the masking YAML form (models inline)
 * and the MaskD/FSP forms, with small state limits. */
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".yaml");
  char *argv[] = {"ismv", "masking", (char *)path, "--max-states", "2000", "--max-nodes", "20000", NULL};
  fuzz_cli(sizeof argv / sizeof *argv - 1, argv);
  return 0;
}
