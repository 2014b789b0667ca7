/* The report's pieces shared by its section writers (apps/report*.c):
 * escaped text, JSON values as text, tables, drawings. Private to the
 * report; apps/report.h is its interface. */
#ifndef APPS_REPORT_HTML_H
#define APPS_REPORT_HTML_H

#include <stdbool.h>

#include "apps/report.h"
#include "ism/strbuf.h"

/* What a section writer gets: the page, its section's id prefix ("r2"),
 * every input (a verify section looks for its simulate result), the model. */
typedef struct {
  strbuf_t *sb;
  const char *id;
  const report_input_t *in;
  size_t n;
  const ism_model_t *model;
} report_section_t;

/* Text, escaped for HTML and SVG. */
void report_text(strbuf_t *sb, const char *s);
/* Any JSON value as compact escaped text: strings bare, numbers as written,
 * objects as "k: v, ...", arrays as "[a, b]", null as an em dash. */
void report_value(strbuf_t *sb, const json_t *v);
/* A number the shortest way that reads back ("%.6g" when round is set). */
void report_number(strbuf_t *sb, double x, bool round);
/* <tr><th>key</th><td>value</td></tr>, skipped when v is NULL. */
void report_row(strbuf_t *sb, const char *key, const json_t *v);
/* A drawing: `dot` laid out (report_drawing's <figure> holds the SVG with
 * its xmlns attributes dropped, as HTML needs none), or, without Graphviz,
 * the fallback HTML (a list). id names the figure. */
void report_drawing(strbuf_t *sb, const char *id, const char *dot, const char *fallback);
/* An SVG document inlined: from "<svg", without xmlns attributes. */
void report_inline_svg(strbuf_t *sb, const char *svg);

void report_verify(const report_section_t *s, const json_t *root);
void report_simulate(const report_section_t *s, const json_t *root);
void report_robustness(const report_section_t *s, const json_t *root);
void report_envelope(const report_section_t *s, const json_t *root);
void report_masking(const report_section_t *s, const json_t *root);
void report_eventb(const report_section_t *s, const json_t *root);

#endif
