/* The JSON reader `ismv report` reads results with: any input parses or
 * fails with exactly one located error; a parsed tree is walked whole. */
#include "ism/json.h"
#include "tests/fuzz/fuzz_util.h"

static size_t walk(const json_t *v) {
  size_t n = 1;
  if (v->kind == JSON_STRING) n += strlen(v->text);
  for (size_t i = 0; (v->kind == JSON_ARRAY || v->kind == JSON_OBJECT) && i < v->len; i++) {
    if (v->kind == JSON_OBJECT && json_get(v, v->keys[i]) != v->items[i]) abort(); /* keys are distinct */
    n += walk(v->items[i]);
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (memchr(data, 0, size)) return 0; /* the reader takes NUL-terminated text */
  char *text = fuzz_text(data, size);
  diag_list_t diags;
  diag_init(&diags);
  json_doc_t *doc = json_parse("fuzz.json", text, &diags);
  if (doc ? diags.count != 0 || walk(doc->root) == 0 : diags.count != 1 || diags.items[0].loc.line < 1)
    abort();
  json_free(doc);
  diag_free(&diags);
  free(text);
  return 0;
}
