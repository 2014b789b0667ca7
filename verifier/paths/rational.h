/* Exact rationals with 64-bit numerator and denominator, and the exact
 * evaluation of checked expressions on them. Used by the explorer to test
 * a candidate valuation of a path step without the solver: every operation
 * either gives the exact result or reports that it cannot (overflow,
 * division by zero), never an approximation. */
#ifndef VERIFIER_RATIONAL_H
#define VERIFIER_RATIONAL_H

#include <stdbool.h>

#include "ism/expr.h"

/* num/den in lowest terms, den > 0. Bools are 0 and 1, ints have den 1. */
typedef struct {
  long long num, den;
} rat_t;

rat_t rat_int(long long v);
/* The exact value of a double's shortest decimal text ("0.1" is 1/10, as
 * the solver reads it); false if it does not fit. */
bool rat_from_double(double d, rat_t *out);
/* The exact value of decimal text ("1.5", "-2", "1e-3"); false if it does not fit. */
bool rat_from_text(const char *text, rat_t *out);
/* The nearest double. */
double rat_to_double(rat_t a);

/* Arithmetic: false on overflow or division by zero (*out untouched). */
bool rat_add(rat_t a, rat_t b, rat_t *out);
bool rat_sub(rat_t a, rat_t b, rat_t *out);
bool rat_mul(rat_t a, rat_t b, rat_t *out);
bool rat_div(rat_t a, rat_t b, rat_t *out);
/* -1, 0 or 1. */
int rat_cmp(rat_t a, rat_t b);
/* The largest integer <= a and the smallest >= a. */
rat_t rat_floor(rat_t a);
rat_t rat_ceil(rat_t a);

/* How an evaluation reads a variable: false when it has no value. */
typedef bool (*rat_lookup_fn)(void *ctx, int id, bool primed, rat_t *out);

/* Evaluates a checked expression exactly, with the solver's semantics
 * (integer div and mod are Euclidean). Returns false when it cannot:
 * overflow, division by zero (the solver leaves it unspecified), or a
 * variable without a value. */
bool rat_eval(const expr_t *e, rat_lookup_fn lookup, void *ctx, rat_t *out);

#endif
