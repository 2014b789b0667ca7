#include "apps/compartment_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/vec.h"

/* The value of an exact rational "[-]P[/Q]" (decimal digits), or NULL with
 * *v untouched when q is none: what is wrong with it, for a message. */
static const char *end_value(const char *q, double *v) {
  const char *p = q + (*q == '-'), *slash = strchr(q, '/');
  size_t num = strspn(p, "0123456789");
  if (num == 0 || (p[num] && p[num] != '/')) return "is not an exact rational (\"P\" or \"P/Q\")";
  if (slash) {
    size_t den = strspn(slash + 1, "0123456789");
    if (den == 0 || slash[1 + den]) return "is not an exact rational (\"P\" or \"P/Q\")";
    if (strspn(slash + 1, "0") == den) return "has a zero denominator";
  }
  double x = strtod(q, NULL) / (slash ? strtod(slash + 1, NULL) : 1.0);
  if (!isfinite(x)) return "lies beyond the range of a double";
  *v = x;
  return NULL;
}

/* Only for ends compartment_json_check accepted, or eventb's own. */
static double rational_value(const char *q) {
  double v = 0;
  end_value(q, &v);
  return v;
}

/* One end: NULL (infinite) or a string end_value accepts. */
static bool check_end(const json_t *iv, const char *key, double *v, bool *finite, diag_list_t *diags) {
  const json_t *e = json_get(iv, key);
  *finite = false;
  if (!e) {
    diag_error(diags, iv->loc, "this interval has no '%s' (an exact rational as a string, or null)", key);
    return false;
  }
  if (e->kind == JSON_NULL) return true;
  if (e->kind != JSON_STRING) {
    diag_error(diags, e->loc, "the interval end '%s' must be an exact rational as a string (\"5\", \"-5/2\") or null",
               key);
    return false;
  }
  const char *why = end_value(e->text, v);
  if (why) {
    diag_error(diags, e->loc, "the interval end '%s' = \"%.40s\" %s", key, e->text, why);
    return false;
  }
  *finite = true;
  return true;
}

bool compartment_json_check(const json_t *pic, diag_list_t *diags) {
  const json_t *rows = json_array(pic, "rows");
  bool ok = true;
  for (size_t k = 0; rows && k < rows->len; k++) {
    const json_t *ivs = json_get(rows->items[k], "intervals");
    if (!ivs || ivs->kind == JSON_NULL) continue;
    if (ivs->kind != JSON_ARRAY) {
      diag_error(diags, ivs->loc, "'intervals' must be an array of intervals");
      ok = false;
      continue;
    }
    for (size_t i = 0; i < ivs->len; i++) {
      const json_t *iv = ivs->items[i];
      if (iv->kind != JSON_OBJECT) {
        diag_error(diags, iv->loc, "an interval must be an object with 'lo' and 'hi'");
        ok = false;
        continue;
      }
      double lo = 0, hi = 0;
      bool lo_finite, hi_finite;
      bool good = check_end(iv, "lo", &lo, &lo_finite, diags);
      good &= check_end(iv, "hi", &hi, &hi_finite, diags);
      if (good && lo_finite && hi_finite && lo > hi) {
        diag_error(diags, iv->loc, "this interval's lower end lies above its upper end");
        good = false;
      }
      ok &= good;
    }
  }
  return ok;
}

typedef struct {
  double lo, hi;    /* the axis range */
  double x0, width; /* the plot area in pixels */
} axis_t;

static double px(const axis_t *a, double v) { return a->x0 + (v - a->lo) / (a->hi - a->lo) * a->width; }

static const char *row_colour(const compartment_row_t *row) {
  if (row->kind == COMPARTMENT_ORIGINAL) return "#8c8c8c";
  if (row->kind == COMPARTMENT_FAILS) return "firebrick";
  return strstr(row->name, "_and_") ? "darkorange" : "steelblue";
}

/* An interval as a bar; for a real variable a filled (closed) or hollow
 * (open) dot at each finite end, for an int the bar covers whole units. */
static void svg_interval(strbuf_t *sb, const axis_t *a, const compartment_interval_t *iv, bool is_int,
                         double y, const char *colour) {
  double lo = iv->lo ? rational_value(iv->lo) : a->lo, hi = iv->hi ? rational_value(iv->hi) : a->hi;
  if (is_int) {
    if (iv->lo) lo -= 0.5;
    if (iv->hi) hi += 0.5;
  }
  double x1 = px(a, lo), x2 = px(a, hi);
  strbuf_printf(
      sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"%s\" fill-opacity=\"0.8\"/>\n", x1,
      y - 5, x2 - x1 > 1 ? x2 - x1 : 1, colour);
  if (is_int) return;
  if (iv->lo)
    strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\"/>\n", x1, y,
                  iv->lo_closed ? colour : "white", colour);
  if (iv->hi)
    strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\"/>\n", x2, y,
                  iv->hi_closed ? colour : "white", colour);
}

/* The axis: every finite end of every interval, padded. */
static axis_t picture_axis(const compartment_picture_t *pic, double x0, double width) {
  axis_t a = {0, 0, x0, width};
  bool any = false;
  for (size_t r = 0; r < pic->nrows; r++)
    for (size_t k = 0; k < pic->rows[r].nintervals; k++) {
      const compartment_interval_t *iv = &pic->rows[r].intervals[k];
      const char *ends[2] = {iv->lo, iv->hi};
      for (int e = 0; e < 2; e++) {
        if (!ends[e]) continue;
        double v = rational_value(ends[e]);
        if (!any || v < a.lo) a.lo = v;
        if (!any || v > a.hi) a.hi = v;
        any = true;
      }
    }
  double pad = (a.hi - a.lo) * 0.1 > 1 ? (a.hi - a.lo) * 0.1 : 1;
  a.lo -= pad;
  a.hi += pad;
  return a;
}

static void svg_title(strbuf_t *sb, const compartment_picture_t *pic) {
  strbuf_puts(sb, "<text x=\"10\" y=\"20\" font-size=\"14\">");
  strbuf_xml_text(sb, pic->model);
  strbuf_puts(sb, ": compartments of the perceived ");
  strbuf_xml_text(sb, pic->variable);
  strbuf_puts(sb, " (");
  strbuf_xml_text(sb, pic->method);
  strbuf_puts(sb, " robustification");
  if (pic->fixed) {
    strbuf_puts(sb, ", ");
    strbuf_xml_text(sb, pic->fixed);
  }
  strbuf_puts(sb, ")</text>\n");
  strbuf_puts(sb, "<text x=\"10\" y=\"38\" fill=\"#555\">grey: original guard (perceived = true value); "
                  "blue: one event; orange: "
                  "unsure between events; red: the theorem condition fails</text>\n");
}

typedef struct {
  double x;
  const char *text;
} tick_t;

/* Ticks at the ends of the compartments, in order, skipping crowded ones. */
static void svg_ticks(strbuf_t *sb, const compartment_picture_t *pic, const axis_t *a, double ya) {
  VEC(tick_t) ticks = {0};
  for (size_t r = 0; r < pic->nrows; r++)
    for (size_t k = 0; k < pic->rows[r].nintervals && pic->rows[r].kind == COMPARTMENT_EVENT; k++) {
      const compartment_interval_t *iv = &pic->rows[r].intervals[k];
      if (iv->lo) VEC_PUSH(&ticks, ((tick_t){px(a, rational_value(iv->lo)), iv->lo}));
      if (iv->hi) VEC_PUSH(&ticks, ((tick_t){px(a, rational_value(iv->hi)), iv->hi}));
    }
  for (size_t i = 1; i < ticks.len; i++) /* insertion sort by position: few ticks */
    for (size_t j = i; j > 0 && ticks.data[j - 1].x > ticks.data[j].x; j--) {
      tick_t t = ticks.data[j];
      ticks.data[j] = ticks.data[j - 1];
      ticks.data[j - 1] = t;
    }
  double last = -1e9;
  for (size_t i = 0; i < ticks.len; i++) {
    if (ticks.data[i].x - last < 28) continue;
    last = ticks.data[i].x;
    strbuf_printf(sb, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", last,
                  last, ya, ya + 5);
    strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", last, ya + 18);
    strbuf_xml_text(sb, ticks.data[i].text);
    strbuf_puts(sb, "</text>\n");
  }
  VEC_FREE(&ticks);
}

void compartment_svg(strbuf_t *sb, const compartment_picture_t *pic) {
  const double left = 250, width = 620, top = 50, step = 28;
  double height = top + step * (double)pic->nrows + 60;
  axis_t a = picture_axis(pic, left, width);
  strbuf_printf(
      sb,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      left + width + 30, height);
  svg_title(sb, pic);
  for (size_t r = 0; r < pic->nrows; r++) {
    const compartment_row_t *row = &pic->rows[r];
    double y = top + step * ((double)r + 0.5);
    strbuf_printf(sb, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s", left - 10, y + 4,
                  row->kind == COMPARTMENT_ORIGINAL ? "original " : "");
    strbuf_xml_text(sb, row->name);
    strbuf_printf(sb, "%s</text>\n", row->kind == COMPARTMENT_FAILS ? " fails" : "");
    strbuf_printf(sb, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", left,
                  left + width, y, y);
    for (size_t k = 0; k < row->nintervals; k++)
      svg_interval(sb, &a, &row->intervals[k], pic->is_int, y, row_colour(row));
  }
  double ya = top + step * (double)pic->nrows + 10;
  strbuf_printf(sb, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", left,
                left + width, ya, ya);
  svg_ticks(sb, pic, &a, ya);
  strbuf_printf(sb, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"middle\">perceived ", left + width / 2,
                ya + 38);
  strbuf_xml_text(sb, pic->variable);
  strbuf_puts(sb, "</text>\n");
  strbuf_puts(sb, "</svg>\n");
}
