/* The Aldebaran (.aut) reader, and the writer on what it accepts: what is
 * written and read back has the same states and transitions. */
#include "tests/fuzz/fuzz_util.h"
#include "verifier/lts/aut.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  diag_list_t diags;
  diag_init(&diags);
  lts_labels_t labels;
  lts_labels_init(&labels);
  lts_t *l = aut_read_string("fuzz.aut", text, &labels, 100000, NULL, &diags);
  if (l) {
    strbuf_t out;
    strbuf_init(&out);
    aut_write(l, &out);
    lts_t *back = aut_read_string("back.aut", strbuf_str(&out), &labels, 100000, NULL, &diags);
    if (!back || back->nstates != l->nstates || back->ntrans != l->ntrans || back->init != l->init) abort();
    lts_free(back);
    strbuf_free(&out);
  }
  lts_free(l);
  lts_labels_free(&labels);
  diag_free(&diags);
  free(text);
  return 0;
}
