#include "verifier/eventb/eventb_line.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/strbuf.h"

char *eventb_line_q(smt_t *s, expr_kind_t op, const char *a, const char *b) {
  char *r = smt_q_arith(s, op, a, b);
  return r ? r : xstrdup("0");
}

/* Adds the rational text r (taking it) to the ascending list unless present. */
void eventb_line_add_root(smt_t *s, eventb_texts_t *roots, char *r) {
  size_t i = 0;
  while (i < roots->len && smt_q_cmp(s, roots->data[i], r) < 0) i++;
  if (i < roots->len && smt_q_cmp(s, roots->data[i], r) == 0) {
    free(r);
    return;
  }
  VEC_PUSH(roots, NULL);
  memmove(roots->data + i + 1, roots->data + i, (roots->len - 1 - i) * sizeof *roots->data);
  roots->data[i] = r;
}

static void push_piece(eventb_pieces_t *ps, const char *lo, bool lo_closed, const char *hi, bool hi_closed,
                       char *sample) {
  VEC_PUSH(ps, ((eventb_piece_t){lo ? xstrdup(lo) : NULL, hi ? xstrdup(hi) : NULL, lo_closed, hi_closed,
                                 sample, false}));
}

/* The pieces between the sorted roots of a real parameter. */
static void real_pieces(smt_t *s, char **r, size_t n, eventb_pieces_t *ps) {
  if (n == 0) {
    push_piece(ps, NULL, false, NULL, false, xstrdup("0"));
    return;
  }
  push_piece(ps, NULL, false, r[0], false, eventb_line_q(s, EXPR_SUB, r[0], "1"));
  for (size_t i = 0; i < n; i++) {
    push_piece(ps, r[i], true, r[i], true, xstrdup(r[i]));
    if (i + 1 < n) {
      char *sum = eventb_line_q(s, EXPR_ADD, r[i], r[i + 1]);
      push_piece(ps, r[i], false, r[i + 1], false, eventb_line_q(s, EXPR_DIV, sum, "2"));
      free(sum);
    }
  }
  push_piece(ps, r[n - 1], false, NULL, false, eventb_line_q(s, EXPR_ADD, r[n - 1], "1"));
}

/* The same for an int parameter: the integers next to each root, and the
 * integer ranges between them. */
static void int_pieces(smt_t *s, char **r, size_t n, eventb_pieces_t *ps) {
  eventb_texts_t k = {0};
  for (size_t i = 0; i < n; i++) {
    char *fl = smt_q_floor(s, r[i]), *neg = eventb_line_q(s, EXPR_SUB, "0", r[i]), *nfl = smt_q_floor(s, neg);
    if (fl) eventb_line_add_root(s, &k, fl);
    if (nfl) eventb_line_add_root(s, &k, eventb_line_q(s, EXPR_SUB, "0", nfl));
    free(neg);
    free(nfl);
  }
  if (k.len == 0) push_piece(ps, NULL, false, NULL, false, xstrdup("0"));
  for (size_t i = 0; i < k.len; i++) {
    char *before = eventb_line_q(s, EXPR_SUB, k.data[i], "1");
    if (i == 0) push_piece(ps, NULL, false, before, true, xstrdup(before));
    push_piece(ps, k.data[i], true, k.data[i], true, xstrdup(k.data[i]));
    char *after = eventb_line_q(s, EXPR_ADD, k.data[i], "1");
    if (i + 1 == k.len)
      push_piece(ps, after, true, NULL, false, xstrdup(after));
    else if (smt_q_cmp(s, after, k.data[i + 1]) < 0) {
      char *last = eventb_line_q(s, EXPR_SUB, k.data[i + 1], "1");
      push_piece(ps, after, true, last, true, xstrdup(after));
      free(last);
    }
    free(before);
    free(after);
  }
  for (size_t i = 0; i < k.len; i++) free(k.data[i]);
  VEC_FREE(&k);
}

void eventb_line_free(eventb_pieces_t *ps) {
  for (size_t i = 0; i < ps->len; i++) {
    free(ps->data[i].lo);
    free(ps->data[i].hi);
    free(ps->data[i].sample);
  }
  VEC_FREE(ps);
}

/* The working pieces, neighbours merged, as intervals; empties ps. */
void eventb_line_merge(eventb_pieces_t *ps, eventb_pieces_t *out) {
  bool prev_in = false;
  for (size_t i = 0; i < ps->len; i++) {
    eventb_piece_t p = ps->data[i];
    if (!p.in) {
      free(p.lo), free(p.hi), free(p.sample);
    } else if (prev_in) {
      eventb_piece_t *last = &VEC_LAST(out);
      free(last->hi);
      last->hi = p.hi;
      last->hi_closed = p.hi_closed;
      free(p.lo), free(p.sample);
    } else {
      VEC_PUSH(out, p);
    }
    prev_in = p.in;
  }
  VEC_FREE(ps);
}

/* A rational as text: "5/2", or in the expression language "(5.0 / 2.0)". */
static void put_rational(strbuf_t *sb, const char *q, bool expr) {
  const char *slash = strchr(q, '/');
  if (!expr || !slash)
    strbuf_puts(sb, q);
  else
    strbuf_printf(sb, "(%.*s.0 / %s.0)", (int)(slash - q), q, slash + 1);
}

/* The intervals as a formula over the parameter, e.g. "0 <= D and D < 5/2";
 * with expr, every interval and in the syntax of the expression language. */
char *eventb_line_text(const char *name, const eventb_pieces_t *iv, bool expr) {
  if (iv->len == 0) return xstrdup("false");
  strbuf_t sb;
  strbuf_init(&sb);
  enum { SHOWN = 6 };
  for (size_t i = 0; i < iv->len && (expr || i < SHOWN); i++) {
    const eventb_piece_t *p = &iv->data[i];
    if (i) strbuf_puts(&sb, " or ");
    bool both = p->lo && p->hi, paren = iv->len > 1 && both;
    if (paren) strbuf_putc(&sb, '(');
    if (both && strcmp(p->lo, p->hi) == 0) {
      strbuf_printf(&sb, "%s == ", name);
      put_rational(&sb, p->lo, expr);
    } else {
      if (p->lo) {
        put_rational(&sb, p->lo, expr);
        strbuf_printf(&sb, " %s %s", p->lo_closed ? "<=" : "<", name);
      }
      if (both) strbuf_puts(&sb, " and ");
      if (p->hi) {
        strbuf_printf(&sb, "%s %s ", name, p->hi_closed ? "<=" : "<");
        put_rational(&sb, p->hi, expr);
      }
      if (!p->lo && !p->hi) strbuf_puts(&sb, "true");
    }
    if (paren) strbuf_putc(&sb, ')');
  }
  if (!expr && iv->len > SHOWN) strbuf_printf(&sb, " or ... (%zu intervals in all)", iv->len);
  return strbuf_take(&sb);
}

void eventb_line_cut(smt_t *s, char **roots, size_t n, bool is_int, eventb_pieces_t *out) {
  if (is_int)
    int_pieces(s, roots, n, out);
  else
    real_pieces(s, roots, n, out);
}
