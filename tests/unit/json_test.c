/* The JSON reader: values, escapes and UTF-8 as RFC 8259 defines them, and
 * one located error (line:col, message) per class of malformed input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/json.h"
#include "ism/strbuf.h"
#include "tests/unit/check.h"

/* Parses text and returns "line:col: message" of its one error, or "ok". */
static char *error_of(const char *text) {
  diag_list_t d;
  diag_init(&d);
  json_doc_t *doc = json_parse("t.json", text, &d);
  char *out;
  if (doc)
    out = xstrdup(d.count ? "ok, with diagnostics" : "ok");
  else if (d.count != 1)
    out = xasprintf("%zu diagnostics", d.count);
  else
    out = xasprintf("%d:%d: %s", d.items[0].loc.line, d.items[0].loc.col, d.items[0].message);
  json_free(doc);
  diag_free(&d);
  return out;
}

#define CHECK_ERROR(text, want)                                                                              \
  do {                                                                                                       \
    char *got_ = error_of(text);                                                                             \
    CHECK_STREQ(got_, want);                                                                                 \
    free(got_);                                                                                              \
  } while (0)

static void values(void) {
  diag_list_t d;
  diag_init(&d);
  json_doc_t *doc = json_parse("t.json",
                               "{\"a\": [1, -2.5e2, 0, true, false, null],\n"
                               " \"s\": \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\u00e9\",\n"
                               " \"o\": {}, \"e\": []}",
                               &d);
  CHECK(doc != NULL);
  if (!doc) return;
  const json_t *r = doc->root;
  CHECK(r->kind == JSON_OBJECT && r->len == 4);
  const json_t *a = json_array(r, "a");
  CHECK(a && a->len == 6);
  CHECK(a->items[0]->kind == JSON_NUMBER && a->items[0]->number == 1);
  CHECK(a->items[1]->number == -250);
  CHECK_STREQ(a->items[1]->text, "-2.5e2");
  CHECK(a->items[3]->kind == JSON_BOOL && a->items[3]->boolean);
  CHECK(a->items[4]->kind == JSON_BOOL && !a->items[4]->boolean);
  CHECK(a->items[5]->kind == JSON_NULL);
  CHECK(a->items[2]->loc.line == 1 && a->items[2]->loc.col == 19);
  CHECK_STREQ(json_str(r, "s", NULL), "x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\xc3\xa9");
  CHECK(json_get(r, "s")->loc.line == 2 && json_get(r, "s")->loc.col == 7);
  CHECK(json_get(r, "o")->kind == JSON_OBJECT && json_get(r, "o")->len == 0);
  CHECK(json_array(r, "e") && json_array(r, "e")->len == 0);
  CHECK(json_get(r, "missing") == NULL && json_num(r, "missing", 7) == 7 && json_bool(r, "o", true));
  CHECK(json_get(a, "a") == NULL);
  json_free(doc);
  diag_free(&d);
}

static void depth(void) {
  strbuf_t sb;
  strbuf_init(&sb);
  for (int i = 0; i < JSON_MAX_DEPTH; i++) strbuf_putc(&sb, '[');
  for (int i = 0; i < JSON_MAX_DEPTH; i++) strbuf_putc(&sb, ']');
  CHECK_ERROR(strbuf_str(&sb), "ok");
  strbuf_clear(&sb);
  for (int i = 0; i <= JSON_MAX_DEPTH; i++) strbuf_putc(&sb, '[');
  char want[64];
  snprintf(want, sizeof want, "1:%d: nesting deeper than %d levels", JSON_MAX_DEPTH + 1, JSON_MAX_DEPTH);
  CHECK_ERROR(strbuf_str(&sb), want);
  /* a million brackets: an error, not a stack overflow */
  for (int i = 0; i < 1000000; i++) strbuf_putc(&sb, '{');
  CHECK_ERROR(strbuf_str(&sb), want);
  strbuf_free(&sb);
}

int main(void) {
  values();
  depth();
  CHECK_ERROR("", "1:1: expected a value, found 'end of file'");
  CHECK_ERROR("  \n 1 2", "2:4: expected end of file after the value, found '2'");
  CHECK_ERROR("[1,]", "1:4: expected a value, found ']'");
  CHECK_ERROR("[1 2]", "1:4: expected ',' or ']', found '2'");
  CHECK_ERROR("{\"a\" 1}", "1:6: expected ':', found '1'");
  CHECK_ERROR("{\"a\": 1,}", "1:9: expected a key string, found '}'");
  CHECK_ERROR("{a: 1}", "1:2: expected a key string, found 'a'");
  CHECK_ERROR("{\"a\": 1,\n \"a\": 2}", "2:2: duplicate key 'a'");
  CHECK_ERROR("[01]", "1:3: expected ',' or ']', found '1'");
  CHECK_ERROR("[1.]", "1:4: expected a digit after '.', found ']'");
  CHECK_ERROR("[1e+]", "1:5: expected a digit in the exponent, found ']'");
  CHECK_ERROR("[-]", "1:3: expected a digit, found ']'");
  CHECK_ERROR("[+1]", "1:2: expected a value, found '+'");
  CHECK_ERROR("[NaN]", "1:2: expected a value, found 'N'");
  CHECK_ERROR("[tru]", "1:2: expected a value, found 't'");
  CHECK_ERROR("\"abc", "1:5: unterminated string");
  CHECK_ERROR("\"a\tb\"", "1:3: control character in string (write it as an escape)");
  CHECK_ERROR("\"\\x\"", "1:3: expected an escape (one of \"\\/bfnrtu) after '\\', found 'x'");
  CHECK_ERROR("\"\\u12g4\"", "1:6: expected four hexadecimal digits after '\\u', found 'g'");
  CHECK_ERROR("\"\\ud800\"", "1:2: unpaired UTF-16 surrogate in '\\u' escape");
  CHECK_ERROR("\"\\ud800\\u0041\"", "1:2: unpaired UTF-16 surrogate in '\\u' escape");
  CHECK_ERROR("\"\\udc00\"", "1:2: unpaired UTF-16 surrogate in '\\u' escape");
  CHECK_ERROR("\"\\u0000\"", "1:2: '\\u0000' is not supported in strings");
  CHECK_ERROR("\"\xc3\x28\"", "1:2: invalid UTF-8 in string");
  CHECK_ERROR("\"\xc0\xaf\"", "1:2: invalid UTF-8 in string");
  CHECK_ERROR("\"\xed\xa0\x80\"", "1:2: invalid UTF-8 in string");
  CHECK_ERROR("[\"ok\", \"a\xff\"]", "1:10: invalid UTF-8 in string");
  CHECK_ERROR("[1] \x01", "1:5: expected end of file after the value, found '\\x01'");
  return CHECK_RESULT();
}
