#include "verifier/paths/rational.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>

#include "ism/strbuf.h"

typedef __int128 wide_t;

static wide_t gcd_wide(wide_t a, wide_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  if (a <= (wide_t)ULLONG_MAX && b <= (wide_t)ULLONG_MAX) { /* 64-bit division is much cheaper */
    unsigned long long x = (unsigned long long)a, y = (unsigned long long)b;
    while (y) {
      unsigned long long t = x % y;
      x = y;
      y = t;
    }
    return x;
  }
  while (b) {
    wide_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* num/den reduced into *out; false if den is 0 or the result does not fit. */
static bool make(wide_t num, wide_t den, rat_t *out) {
  if (den == 0) return false;
  if (den < 0) num = -num, den = -den;
  if (den != 1) {
    wide_t g = gcd_wide(num, den);
    if (g > 1) num /= g, den /= g;
  }
  if (num > LLONG_MAX || num < -LLONG_MAX || den > LLONG_MAX) return false;
  *out = (rat_t){(long long)num, (long long)den};
  return true;
}

rat_t rat_int(long long v) { return (rat_t){v, 1}; }

/* The common literal (at most 18 digits, no exponent) in 64 bits; false
 * for any other text, which rat_from_text reads in 128 bits. The same
 * reduced value either way. */
static bool short_text(const char *text, rat_t *out) {
  const char *p = text;
  bool negative = *p == '-';
  if (*p == '-' || *p == '+') p++;
  unsigned long long num = 0, den = 1;
  int n = 0;
  for (; isdigit((unsigned char)*p) && n < 18; p++, n++) num = num * 10 + (unsigned)(*p - '0');
  if (*p == '.')
    for (p++; isdigit((unsigned char)*p) && n < 18; p++, n++) num = num * 10 + (unsigned)(*p - '0'), den *= 10;
  if (n == 0 || *p) return false;
  for (unsigned long long x = num, y = den; den > 1;) { /* gcd(num, den) */
    if (y == 0) {
      num /= x, den /= x;
      break;
    }
    unsigned long long t = x % y;
    x = y, y = t;
  }
  *out = (rat_t){negative ? -(long long)num : (long long)num, (long long)den};
  return true;
}

bool rat_from_text(const char *text, rat_t *out) {
  if (short_text(text, out)) return true;
  const char *p = text;
  bool negative = *p == '-';
  if (*p == '-' || *p == '+') p++;
  wide_t num = 0, den = 1;
  const wide_t limit = (wide_t)1 << 100;
  bool digits = false;
  for (; isdigit((unsigned char)*p); p++, digits = true)
    if ((num = num * 10 + (*p - '0')) > limit) return false;
  if (*p == '.')
    for (p++; isdigit((unsigned char)*p); p++, digits = true) {
      if ((num = num * 10 + (*p - '0')) > limit || (den *= 10) > limit) return false;
    }
  if (!digits) return false;
  if (*p == 'e' || *p == 'E') {
    char *end;
    long exp = strtol(p + 1, &end, 10);
    if (end == p + 1 || exp > 30 || exp < -30) return false;
    for (; exp > 0; exp--)
      if ((num *= 10) > limit) return false;
    for (; exp < 0; exp++)
      if ((den *= 10) > limit) return false;
    p = end;
  }
  if (*p) return false;
  return make(negative ? -num : num, den, out);
}

bool rat_from_double(double d, rat_t *out) {
  char buf[STRBUF_DOUBLE_SIZE];
  return rat_from_text(strbuf_double_text(d, buf), out);
}

double rat_to_double(rat_t a) { return (double)a.num / (double)a.den; }

bool rat_add(rat_t a, rat_t b, rat_t *out) {
  return make((wide_t)a.num * b.den + (wide_t)b.num * a.den, (wide_t)a.den * b.den, out);
}

bool rat_sub(rat_t a, rat_t b, rat_t *out) {
  return make((wide_t)a.num * b.den - (wide_t)b.num * a.den, (wide_t)a.den * b.den, out);
}

bool rat_mul(rat_t a, rat_t b, rat_t *out) { return make((wide_t)a.num * b.num, (wide_t)a.den * b.den, out); }

bool rat_div(rat_t a, rat_t b, rat_t *out) {
  return b.num != 0 && make((wide_t)a.num * b.den, (wide_t)a.den * b.num, out);
}

int rat_cmp(rat_t a, rat_t b) {
  wide_t l = (wide_t)a.num * b.den, r = (wide_t)b.num * a.den;
  return (l > r) - (l < r);
}

rat_t rat_floor(rat_t a) {
  long long q = a.num / a.den;
  if (a.num % a.den != 0 && a.num < 0) q--;
  return rat_int(q);
}

rat_t rat_ceil(rat_t a) {
  long long q = a.num / a.den;
  if (a.num % a.den != 0 && a.num > 0) q++;
  return rat_int(q);
}

/* Euclidean division of integers, as the solver's div and mod. */
static bool euclid(long long a, long long b, bool want_mod, rat_t *out) {
  if (b == 0 || (a == LLONG_MIN && b == -1)) return false;
  long long q = a / b, r = a % b;
  if (r < 0) {
    r += b < 0 ? -b : b;
    q += b < 0 ? 1 : -1;
  }
  *out = rat_int(want_mod ? r : q);
  return true;
}

static rat_t truth(bool b) { return rat_int(b); }

static bool compare(expr_kind_t kind, rat_t a, rat_t b, rat_t *out) {
  int c = rat_cmp(a, b);
  bool r = kind == EXPR_EQ   ? c == 0
           : kind == EXPR_NE ? c != 0
           : kind == EXPR_LT ? c < 0
           : kind == EXPR_LE ? c <= 0
           : kind == EXPR_GT ? c > 0
                             : c >= 0;
  *out = truth(r);
  return true;
}

static bool binary(const expr_t *e, rat_t a, rat_t b, rat_t *out) {
  bool ints = e->type.kind == TYPE_INT;
  switch (e->kind) {
  case EXPR_ADD: return rat_add(a, b, out);
  case EXPR_SUB: return rat_sub(a, b, out);
  case EXPR_MUL: return rat_mul(a, b, out);
  case EXPR_DIV: return ints ? euclid(a.num, b.num, false, out) : rat_div(a, b, out);
  case EXPR_MOD: return euclid(a.num, b.num, true, out);
  case EXPR_MIN: *out = rat_cmp(a, b) <= 0 ? a : b; return true;
  case EXPR_MAX: *out = rat_cmp(a, b) >= 0 ? a : b; return true;
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE: return compare(e->kind, a, b, out);
  case EXPR_IMPLIES: *out = truth(!a.num || b.num); return true;
  case EXPR_IFF: *out = truth(!a.num == !b.num); return true;
  default: return false;
  }
}

bool rat_eval(const expr_t *e, rat_lookup_fn lookup, void *ctx, rat_t *out) {
  rat_t a, b;
  switch (e->kind) {
  case EXPR_INT: *out = rat_int(e->u.ival); return true;
  case EXPR_REAL:
    return e->u.real.text ? rat_from_text(e->u.real.text, out) : rat_from_double(e->u.real.value, out);
  case EXPR_BOOL: *out = truth(e->u.bval); return true;
  case EXPR_ENUM: *out = rat_int(e->u.ival); return true;
  case EXPR_VAR: return lookup(ctx, e->u.var.id, e->u.var.primed, out);
  case EXPR_NAME: return false;
  case EXPR_NEG:
    if (!rat_eval(e->u.op.a, lookup, ctx, &a)) return false;
    *out = (rat_t){-a.num, a.den};
    return true;
  case EXPR_NOT:
    if (!rat_eval(e->u.op.a, lookup, ctx, &a)) return false;
    *out = truth(!a.num);
    return true;
  case EXPR_ABS:
    if (!rat_eval(e->u.op.a, lookup, ctx, &a)) return false;
    *out = (rat_t){a.num < 0 ? -a.num : a.num, a.den};
    return true;
  case EXPR_TOREAL: return rat_eval(e->u.op.a, lookup, ctx, out);
  case EXPR_AND: /* short-circuit: the value does not depend on an unevaluable other side */
  case EXPR_OR:
    if (!rat_eval(e->u.op.a, lookup, ctx, &a)) return false;
    if ((e->kind == EXPR_AND) == !a.num) {
      *out = truth(e->kind == EXPR_OR);
      return true;
    }
    return rat_eval(e->u.op.b, lookup, ctx, out) && (*out = truth(out->num != 0), true);
  case EXPR_ITE:
    if (!rat_eval(e->u.op.a, lookup, ctx, &a)) return false;
    return rat_eval(a.num ? e->u.op.b : e->u.op.c, lookup, ctx, out);
  default:
    if (!rat_eval(e->u.op.a, lookup, ctx, &a) || !rat_eval(e->u.op.b, lookup, ctx, &b)) return false;
    return binary(e, a, b, out);
  }
}
