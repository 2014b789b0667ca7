#include "ism/number.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

static size_t digits(const char *s) { return strspn(s, "0123456789"); }

bool number_syntax(const char *s, bool integer) {
  if (*s == '+' || *s == '-') s++;
  size_t n = digits(s);
  s += n;
  if (integer) return n > 0 && *s == '\0';
  if (*s == '.') {
    size_t frac = digits(s + 1);
    n += frac;
    s += 1 + frac;
  }
  if (!n) return false;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    size_t exp = digits(s);
    if (!exp) return false;
    s += exp;
  }
  return *s == '\0';
}

/* The written exponent, saturated at NUMBER_MAX_EXPONENT + 1 in magnitude
 * (so "1e-99999999999999999999" cannot overflow anything). */
static long exponent(const char *s) {
  const char *e = strpbrk(s, "eE");
  if (!e) return 0;
  e++;
  bool negative = *e == '-';
  if (*e == '+' || *e == '-') e++;
  long x = 0;
  for (; *e >= '0' && *e <= '9'; e++)
    if ((x = x * 10 + (*e - '0')) > NUMBER_MAX_EXPONENT) x = NUMBER_MAX_EXPONENT + 1;
  return negative ? -x : x;
}

bool number_in_range(const char *s, double *value, char *why, size_t size) {
  long exp = exponent(s);
  if (labs(exp) > NUMBER_MAX_EXPONENT) {
    snprintf(why, size, "its exponent is beyond +-%d", NUMBER_MAX_EXPONENT);
    return false;
  }
  errno = 0;
  *value = strtod(s, NULL);
  if (!isfinite(*value)) {
    snprintf(why, size, "it is too large (at most about 1.8e308 in magnitude)");
    return false;
  }
  return true;
}

char *number_rational(const char *s) {
  bool negative = *s == '-';
  if (*s == '+' || *s == '-') s++;
  size_t len = strlen(s);
  /* all the digits of the mantissa, and where the decimal point goes */
  char *mant = xmalloc(len + 2);
  size_t n = 0;
  long scale = 0;
  bool after_point = false;
  for (; *s && *s != 'e' && *s != 'E'; s++) {
    if (*s == '.') {
      after_point = true;
      continue;
    }
    mant[n++] = *s;
    scale -= after_point;
  }
  mant[n] = '\0';
  scale += exponent(s);
  size_t lead = strspn(mant, "0");
  if (lead == n) lead = n - 1; /* keep one zero */
  const char *m = mant + lead;
  if (strcmp(m, "0") == 0) scale = 0;
  size_t zeros = (size_t)labs(scale);
  char *out = xmalloc(strlen(m) + zeros + 4);
  char *p = out;
  if (negative && strcmp(m, "0") != 0) *p++ = '-';
  p = stpcpy(p, m);
  if (scale < 0) *p++ = '/', *p++ = '1';
  memset(p, '0', zeros);
  p[zeros] = '\0';
  free(mant);
  return out;
}
