/* Drawings for the HTML report: a DOT graph laid out by Graphviz's dot
 * and rendered as an SVG element to inline in a page. The one module that
 * includes Graphviz; built without it (make GRAPHVIZ=0, or libgvc absent),
 * graph_svg returns NULL and the report lists the edges instead. */
#ifndef APPS_GRAPH_SVG_H
#define APPS_GRAPH_SVG_H

#include <stdbool.h>

#include "ism/strbuf.h"

/* Whether this build lays out drawings. */
bool graph_svg_available(void);
/* The layout of `dot` as an <svg> element (no XML prolog, no comments),
 * fresh (caller frees); NULL without Graphviz, or when dot does not parse
 * or cannot be laid out. Deterministic: only the built-in dot layout and
 * SVG renderer are loaded, text is measured by Graphviz's own font
 * metrics, never by the fonts of the machine. */
char *graph_svg(const char *dot);
/* Appends s as a DOT double-quoted string, quotes included. */
void graph_dot_string(strbuf_t *sb, const char *s);

#endif
