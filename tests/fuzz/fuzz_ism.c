/* The ISM YAML loader and a bound-2 search (`ismv verify --bound 2`). */
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".yaml");
  char *argv[] = {
      "ismv", "verify",        (char *)path, "--bound",       "2",    "--timeout", "2",    "--jobs",
      "1",    "--split-depth", "0",          "--probability", "none", "-f",        "json", NULL};
  fuzz_cli(sizeof argv / sizeof *argv - 1, argv);
  return 0;
}
