/* The writers' escaping: XML text and attributes, CSV fields (RFC 4180), JSON
 * strings; every name a user writes must come out of each writer intact.
 * Numbers: strbuf_double_text is the shortest of "%.15g".."%.17g" that reads
 * back (printf itself is the oracle), integers included. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void by_printf(double x, char *buf) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, STRBUF_DOUBLE_SIZE, "%.*g", prec, x);
    if (strtod(buf, NULL) == x) return;
  }
}

static void double_text(void) {
  static const double fixed[] = {0,    -0.0, 1,   -1,  14,        1e14, 999999999999999, -999999999999999,
                                 1e15, 1e16, 0.1, 7.5, -2.25e-300, 1e300, 4503599627370496.0, 123456.789};
  char got[STRBUF_DOUBLE_SIZE], want[STRBUF_DOUBLE_SIZE];
  for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) {
    by_printf(fixed[k], want);
    CHECK_STREQ(strbuf_double_text(fixed[k], got), want);
  }
  unsigned long long r = 88172645463325252ULL; /* xorshift: integers and thousandths of every size */
  for (int k = 0; k < 200000; k++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    double x = (double)(long long)(r >> (k % 50)) * (k % 3 == 0 ? -1 : 1) / (k % 2 ? 1 : 1000);
    by_printf(x, want);
    strbuf_double_text(x, got);
    if (strcmp(got, want) != 0) {
      CHECK_STREQ(got, want);
      break;
    }
  }
}

int main(void) {
  double_text();
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
