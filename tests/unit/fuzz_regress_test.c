/* Every FSP input a fuzz harness ever failed on (the .lts files in tests/fuzz/crashes)
 * goes through what fuzz_fsp does (parse, compile up to 8 processes); under
 * `make check MODE=asan` a crash, an undefined behaviour or a leak (LSan)
 * fails this test, so the fix stays. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/lts.h"

static int run_one(const char *path) {
  diag_list_t diags;
  diag_init(&diags);
  lts_labels_t labels;
  lts_labels_init(&labels);
  fsp_file_t *file = fsp_parse_file(path, &labels, &diags);
  for (size_t i = 0; file && i < fsp_process_count(file) && i < 8; i++)
    lts_free(fsp_compile(file, fsp_process_name(file, i), &diags));
  fsp_free(file);
  lts_labels_free(&labels);
  diag_free(&diags);
  return 1;
}

int main(void) {
  const char *dir = "tests/fuzz/crashes";
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".lts") != 0) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    n += run_one(path);
  }
  if (d) closedir(d);
  CHECK(n >= 4); /* two leaks; two null-pointer offsets (clang's UBSan, which gcc's does not check) */
  return CHECK_RESULT();
}
