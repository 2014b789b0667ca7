#include "ism/strbuf.h"

#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

void strbuf_init(strbuf_t *sb) {
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

void strbuf_free(strbuf_t *sb) {
  free(sb->data);
  strbuf_init(sb);
}

void strbuf_clear(strbuf_t *sb) {
  sb->len = 0;
  if (sb->data) sb->data[0] = '\0';
}

static void reserve(strbuf_t *sb, size_t extra) {
  size_t need = sb->len + extra + 1;
  if (need <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < need) cap *= 2;
  sb->data = xrealloc(sb->data, cap);
  sb->cap = cap;
}

void strbuf_putn(strbuf_t *sb, const char *s, size_t n) {
  reserve(sb, n);
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void strbuf_putc(strbuf_t *sb, char c) { strbuf_putn(sb, &c, 1); }
void strbuf_puts(strbuf_t *sb, const char *s) { strbuf_putn(sb, s, strlen(s)); }

void strbuf_printf(strbuf_t *sb, const char *fmt, ...) {
  va_list ap, copy;
  va_start(ap, fmt);
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n > 0) {
    reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
  }
  va_end(ap);
}

void strbuf_json_string(strbuf_t *sb, const char *s) {
  strbuf_putc(sb, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': strbuf_puts(sb, "\\\""); break;
    case '\\': strbuf_puts(sb, "\\\\"); break;
    case '\n': strbuf_puts(sb, "\\n"); break;
    case '\t': strbuf_puts(sb, "\\t"); break;
    case '\r': strbuf_puts(sb, "\\r"); break;
    default:
      if (*p < 0x20)
        strbuf_printf(sb, "\\u%04x", *p);
      else
        strbuf_putc(sb, (char)*p);
    }
  }
  strbuf_putc(sb, '"');
}

static void xml_escaped(strbuf_t *sb, const char *s, bool attr) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '&': strbuf_puts(sb, "&amp;"); break;
    case '<': strbuf_puts(sb, "&lt;"); break;
    case '>': strbuf_puts(sb, "&gt;"); break;
    case '"': strbuf_puts(sb, "&quot;"); break;
    case '\'': strbuf_puts(sb, "&apos;"); break;
    case '\r': strbuf_puts(sb, "&#13;"); break;
    case '\t':
    case '\n':
      if (attr)
        strbuf_printf(sb, "&#%d;", *p);
      else
        strbuf_putc(sb, (char)*p);
      break;
    default:
      if (*p < 0x20)
        strbuf_puts(sb, "\xef\xbf\xbd"); /* U+FFFD */
      else
        strbuf_putc(sb, (char)*p);
    }
  }
}

void strbuf_xml_text(strbuf_t *sb, const char *s) { xml_escaped(sb, s, false); }
void strbuf_xml_attr(strbuf_t *sb, const char *s) { xml_escaped(sb, s, true); }

void strbuf_csv_field(strbuf_t *sb, const char *s) {
  size_t n = strlen(s);
  bool quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
  for (const char *p = s; *p && !quote; p++) quote = *p == ',' || *p == '"' || *p == '\n' || *p == '\r';
  if (!quote) {
    strbuf_puts(sb, s);
    return;
  }
  strbuf_putc(sb, '"');
  for (const char *p = s; *p; p++) {
    if (*p == '"') strbuf_putc(sb, '"');
    strbuf_putc(sb, *p);
  }
  strbuf_putc(sb, '"');
}

void strbuf_json_number(strbuf_t *sb, double x) {
  if (!isfinite(x)) {
    strbuf_puts(sb, "null");
    return;
  }
  if (x == 0) x = 0; /* no "-0" */
  char buf[STRBUF_DOUBLE_SIZE];
  strbuf_puts(sb, strbuf_double_text(x, buf));
}

char *strbuf_double_text(double x, char buf[STRBUF_DOUBLE_SIZE]) {
  /* An integer of at most 15 digits is what "%.15g" prints, without
   * printf's floating-point conversion (most witness values are integers). */
  if (x == trunc(x) && fabs(x) < 1e15 && !(x == 0 && signbit(x))) {
    long long v = (long long)x;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    char digits[24];
    int n = 0;
    do digits[n++] = (char)('0' + u % 10), u /= 10;
    while (u);
    int at = 0;
    if (v < 0) buf[at++] = '-';
    while (n) buf[at++] = digits[--n];
    buf[at] = '\0';
    return buf;
  }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, STRBUF_DOUBLE_SIZE, "%.*g", prec, x);
    if (strtod(buf, NULL) == x) break;
  }
  return buf;
}

char *strbuf_take(strbuf_t *sb) {
  char *s = sb->data ? sb->data : xstrdup("");
  strbuf_init(sb);
  return s;
}

const char *strbuf_str(const strbuf_t *sb) { return sb->data ? sb->data : ""; }
