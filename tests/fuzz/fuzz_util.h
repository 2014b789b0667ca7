/* What the libFuzzer harnesses share: the input as a file (the loaders
 * read paths), and the whole CLI run in-process with its output discarded.
 * Each harness defines LLVMFuzzerTestOneInput; `make fuzz` builds and runs
 * them (docs/reliability.md). */
#ifndef TESTS_FUZZ_FUZZ_UTIL_H
#define TESTS_FUZZ_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apps/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (caller frees). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* Writes the input to a file of this process named with `suffix` and
 * returns its path (static storage). */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix) {
  static char path[256];
  snprintf(path, sizeof path, "/tmp/ismv-fuzz-%d%s", (int)getpid(), suffix);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
  return path;
}

/* Runs `ismv ARGS...` in-process, stdout and stderr discarded; the exit code
 * must be one of the documented ones (anything else is a harness failure). */
static inline int fuzz_cli(int argc, char **argv) {
  static FILE *null_out;
  if (!null_out && !(null_out = fopen("/dev/null", "w"))) abort();
  int rc = cli_main(argc, argv, null_out, null_out);
  if (rc != 0 && rc != 1 && rc != 2 && rc != 5 && rc != 10) {
    fprintf(stderr, "fuzz: exit code %d\n", rc);
    abort();
  }
  return rc;
}

#endif
