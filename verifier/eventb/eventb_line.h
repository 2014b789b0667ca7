/* Sets of values of one numeric variable as exact intervals, for
 * `--max-error` (the admissible values of a parameter) and the compartment
 * picture (the perceived values of a compartment): the line is cut at the
 * roots where a condition can change truth value into points and the open
 * stretches between them (for an int variable: the integers next to each
 * root and the ranges between), the caller decides one sample per piece, and
 * the pieces that belong merge back into intervals. Values are exact
 * rationals as text ("5", "-5/2"), computed through verifier/smt.h. */
#ifndef VERIFIER_EVENTB_LINE_H
#define VERIFIER_EVENTB_LINE_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/vec.h"
#include "verifier/smt.h"

/* A piece of the line: one root, or the values strictly between two
 * neighbouring roots (an int range as a closed one); lo/hi NULL = infinite. */
typedef struct {
  char *lo, *hi; /* owned */
  bool lo_closed, hi_closed;
  char *sample; /* owned: a value inside */
  bool in;      /* set by the caller: the piece belongs to the set */
} eventb_piece_t;
typedef VEC(eventb_piece_t) eventb_pieces_t;
typedef VEC(char *) eventb_texts_t;

/* a op b on rational texts (smt_q_arith), "0" when that fails; caller frees. */
char *eventb_line_q(smt_t *s, expr_kind_t op, const char *a, const char *b);
/* Inserts r (taken) into the ascending list roots unless an equal value is there. */
void eventb_line_add_root(smt_t *s, eventb_texts_t *roots, char *r);
/* Appends the pieces of the line cut at the n ascending roots to out. */
void eventb_line_cut(smt_t *s, char **roots, size_t n, bool is_int, eventb_pieces_t *out);
/* Moves the pieces with `in` set, neighbours merged, to out as intervals;
 * frees the others and empties ps. */
void eventb_line_merge(eventb_pieces_t *ps, eventb_pieces_t *out);
void eventb_line_free(eventb_pieces_t *ps);
/* The intervals as a formula over name ("0 <= D and D < 5/2", "false" when
 * empty); with expr, complete and in the expression language ((5.0 / 2.0)),
 * else summarised past six intervals. Caller frees. */
char *eventb_line_text(const char *name, const eventb_pieces_t *iv, bool expr);

#endif
