/* A growable, always NUL-terminated character buffer for building output
 * (reports, JSON, DOT) before it is written in one piece. */
#ifndef ISM_STRBUF_H
#define ISM_STRBUF_H

#include <stddef.h>

typedef struct {
  char *data; /* NUL-terminated when cap > 0 */
  size_t len;
  size_t cap;
} strbuf_t;

void strbuf_init(strbuf_t *sb);
void strbuf_free(strbuf_t *sb);
void strbuf_clear(strbuf_t *sb);
void strbuf_putc(strbuf_t *sb, char c);
void strbuf_puts(strbuf_t *sb, const char *s);
void strbuf_putn(strbuf_t *sb, const char *s, size_t n);
void strbuf_printf(strbuf_t *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal, quotes included. */
void strbuf_json_string(strbuf_t *sb, const char *s);
/* Appends s as XML 1.0 character data: & < > " ' as entities, CR as &#13;
 * (a parser would turn a literal CR into LF); control characters XML 1.0
 * forbids (all below 0x20 except tab, LF, CR) as U+FFFD, so the document
 * stays well-formed. */
void strbuf_xml_text(strbuf_t *sb, const char *s);
/* The same for an attribute value between double quotes, with tab, LF and
 * CR as character references, which attribute normalisation keeps. */
void strbuf_xml_attr(strbuf_t *sb, const char *s);
/* Appends s as one RFC 4180 CSV field: quoted (with "" for ") when it holds a
 * comma, quote, CR or LF or starts or ends with a space; verbatim otherwise. */
void strbuf_csv_field(strbuf_t *sb, const char *s);
/* Appends a double the shortest way that reads back exactly ("%.17g" trimmed),
 * as JSON needs it: integers without a fraction, no inf/nan (those become null). */
void strbuf_json_number(strbuf_t *sb, double x);
/* Writes x as the shortest "%g" decimal that reads back as the same double
 * (0.1 gives "0.1") into buf, which it returns. */
enum { STRBUF_DOUBLE_SIZE = 40 };
char *strbuf_double_text(double x, char buf[STRBUF_DOUBLE_SIZE]);
/* Returns the buffer's string (never NULL) and leaves sb empty; caller frees. */
char *strbuf_take(strbuf_t *sb);
const char *strbuf_str(const strbuf_t *sb);

#endif
