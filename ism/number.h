/* Decimal numerals as written in models and on the command line: one
 * syntax for all (sign, digits, optional fraction, optional decimal
 * exponent: no nan, inf, hexadecimal or blanks), and their exact value as a
 * rational for the solver, whatever the length of the mantissa. */
#ifndef ISM_NUMBER_H
#define ISM_NUMBER_H

#include <stdbool.h>
#include <stddef.h>

/* The documented range of a literal: the magnitude of its decimal exponent,
 * as written, is at most NUMBER_MAX_EXPONENT, and its value is finite as a
 * double (at most about 1.8e308 in magnitude). */
#define NUMBER_MAX_EXPONENT 9999

/* Whether the whole of s is a decimal numeral: [+-]digits, then (unless
 * `integer`) an optional .digits (digits on at least one side) and an
 * optional e[+-]digits. */
bool number_syntax(const char *s, bool integer);

/* Whether a numeral with valid syntax lies in the documented range; if not,
 * writes why ("its exponent ...", "it is too large ...") into why. *value
 * receives the nearest double (a nonzero value below the double range
 * gives 0 or a subnormal: only the solver sees it exactly). */
bool number_in_range(const char *s, double *value, char *why, size_t size);

/* The exact value of a numeral with valid syntax and in range as "P" or
 * "P/Q" with decimal integers (sign on P), for a solver; caller frees. */
char *number_rational(const char *s);

#endif
