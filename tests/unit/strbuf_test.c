/* The writers' escaping: XML text and attributes, CSV fields (RFC 4180), JSON
 * strings; every name a user writes must come out of each writer intact. */
#include <stdlib.h>

#include "ism/strbuf.h"
#include "tests/unit/check.h"

static char *xml(const char *s) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_xml_text(&sb, s);
  return strbuf_take(&sb);
}

static char *xml_attr(const char *s) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_xml_attr(&sb, s);
  return strbuf_take(&sb);
}

static char *csv(const char *s) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_csv_field(&sb, s);
  return strbuf_take(&sb);
}

static char *json(const char *s) {
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_json_string(&sb, s);
  return strbuf_take(&sb);
}

#define CHECK_CONV(fn, in, want)                                                                             \
  do {                                                                                                       \
    char *got_ = fn(in);                                                                                     \
    CHECK_STREQ(got_, want);                                                                                 \
    free(got_);                                                                                              \
  } while (0)

int main(void) {
  CHECK_CONV(xml, "plain", "plain");
  CHECK_CONV(xml, "a<b & c>\"d'", "a&lt;b &amp; c&gt;&quot;d&apos;");
  CHECK_CONV(xml, "tab\tnl\ncr\r", "tab\tnl\ncr&#13;");
  CHECK_CONV(xml_attr, "tab\tnl\ncr\r<\x02", "tab&#9;nl&#10;cr&#13;&lt;\xef\xbf\xbd");
  CHECK_CONV(xml, "bell\a nul-free \x01", "bell\xef\xbf\xbd nul-free \xef\xbf\xbd");
  CHECK_CONV(xml, "caf\xc3\xa9", "caf\xc3\xa9");

  CHECK_CONV(csv, "plain", "plain");
  CHECK_CONV(csv, "", "");
  CHECK_CONV(csv, "a,b", "\"a,b\"");
  CHECK_CONV(csv, "say \"hi\"", "\"say \"\"hi\"\"\"");
  CHECK_CONV(csv, "two\nlines", "\"two\nlines\"");
  CHECK_CONV(csv, " padded", "\" padded\"");
  CHECK_CONV(csv, "A r0 A", "A r0 A");

  CHECK_CONV(json, "q\"b\\n\n\x01", "\"q\\\"b\\\\n\\n\\u0001\"");
  return CHECK_RESULT();
}
