/* The compartment picture of `ismv eventb` (the paper's Fig. 6: where, over
 * the perceived value of the one uncertain variable, each original event is
 * enabled and each robustified event's compartment lies) as an SVG document:
 * `eventb --svg` draws it from the analysis, `ismv report` from the JSON. */
#ifndef APPS_COMPARTMENT_SVG_H
#define APPS_COMPARTMENT_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/diag.h"
#include "ism/json.h"
#include "ism/strbuf.h"

typedef enum { COMPARTMENT_ORIGINAL, COMPARTMENT_EVENT, COMPARTMENT_FAILS } compartment_kind_t;

/* A set of values: lo and hi are exact rationals as text ("5", "-5/2"), NULL
 * for an infinite end (its closed flag is then ignored). */
typedef struct {
  const char *lo, *hi;
  bool lo_closed, hi_closed;
} compartment_interval_t;

/* One row: an original event's guard (grey), a compartment (blue, orange
 * when its name joins events with "_and_") or where the theorem condition
 * fails (red). Intervals ascending and disjoint. */
typedef struct {
  const char *name;
  compartment_kind_t kind;
  const compartment_interval_t *intervals;
  size_t nintervals;
} compartment_row_t;

/* Everything the drawing shows; all strings borrowed, escaped when drawn. */
typedef struct {
  const char *model;    /* the model's name, in the title */
  const char *variable; /* the perceived variable of the axis */
  const char *method;   /* "preserving" or "repurposing" */
  const char *fixed;    /* the model parameters it is drawn at ("D = 5"), or NULL */
  bool is_int;          /* an int variable: bars cover whole units, no end dots */
  const compartment_row_t *rows;
  size_t nrows;
} compartment_picture_t;

/* Checks a picture as `eventb --format json` writes it, before `ismv report`
 * draws it: every interval of every row is an object whose ends "lo" and
 * "hi" are null (infinite) or an exact rational as a string ("5", "-5/2")
 * with a nonzero denominator and a value finite as a double, lo not above
 * hi. Each bad end or interval is a located error in diags; returns whether
 * there was none. `pic` may be NULL or no object (nothing to check). */
bool compartment_json_check(const json_t *pic, diag_list_t *diags);

/* Appends the picture as an <svg> document (900 pixels wide, 28 per row). */
void compartment_svg(strbuf_t *sb, const compartment_picture_t *pic);

#endif
