/* The configuration loaders of `ismv robustness`, `ismv envelope` and
 * `ismv robustify` (YAML, or Fortis's JSON read as YAML; the files a
 * configuration names mostly do not exist next to the input: the loaders'
 * checks are the point; robustify under small limits, as its search on a
 * loaded model may be long). */
#include "tests/fuzz/fuzz_util.h"

#include <sys/stat.h>

/* Models a configuration can name by absolute path, so that the loaders behind them run too
 * (the seeds tests/fuzz/seeds/config-*.yaml name them): a machine, environment, property and
 * deviation as .aut, and the machine as FSP. The thirteenth session's crash on a deviation
 * read from .aut was out of reach while every named file was missing. */
static void fixture(const char *name, const char *text) {
  char path[128];
  snprintf(path, sizeof path, "/tmp/ismv-fuzz-fixtures/%s", name);
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) == EOF || fclose(f) != 0) abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  mkdir("/tmp/ismv-fuzz-fixtures", 0755);
  fixture("m.aut", "des (0, 4, 3)\n(0, \"a\", 1)\n(1, \"b\", 0)\n(1, \"c\", 2)\n(2, \"tau\", 0)\n");
  fixture("e.aut", "des (0, 2, 2)\n(0, \"a\", 1)\n(1, \"b\", 0)\n");
  fixture("p.aut", "des (0, 2, 2)\n(0, \"a\", 1)\n(1, \"b\", 0)\n");
  fixture("d.aut", "des (0, 4, 2)\n(0, \"a\", 1)\n(1, \"b\", 0)\n(1, \"f\", 0)\n(0, \"a\", 0)\n");
  fixture("m.lts", "P = (a -> Q | c -> P), Q = (b -> P).\n||S = (x:P || P)/{c/x.c}.\n");
  return 0;
}

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
