/* The predicted-vs-observed scatter plot (the ASE'14 paper's figure) as an
 * SVG element: `ismv simulate --svg` writes it, `ismv report` inlines it. */
#ifndef APPS_SCATTER_SVG_H
#define APPS_SCATTER_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/strbuf.h"

typedef struct {
  double predicted;    /* x, in [0, 1] */
  double observed;     /* y, in [0, 1] */
  double ci_lo, ci_hi; /* the observed frequency's 95% interval (a vertical bar) */
  bool agrees;         /* drawn blue, else red */
  const char *label;   /* the point's tooltip (escaped here) */
} scatter_point_t;

/* Appends the plot: a 480x480 <svg> with `title` (escaped) on top, the
 * unit square, its diagonal, and a point with its bar per entry. */
void scatter_svg(strbuf_t *sb, const char *title, const scatter_point_t *pts, size_t n);

#endif
