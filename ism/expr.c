/* Name resolution, type checking, evaluation and printing of expressions.
 * The parser is in expr_parse.c. */
#include "ism/expr.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"
#include "ism/vec.h"

typedef struct {
  const expr_scope_t *scope;
  arena_t *arena;
  diag_list_t *diags;
  bool ok;
} checker_t;

static type_t type_of(type_kind_t k) { return (type_t){k, -1}; }
static bool is_numeric(type_t t) { return t.kind == TYPE_INT || t.kind == TYPE_REAL; }

const char *expr_type_name(type_t t, const expr_scope_t *scope) {
  switch (t.kind) {
  case TYPE_BOOL: return "bool";
  case TYPE_INT: return "int";
  case TYPE_REAL: return "real";
  case TYPE_ENUM:
    if (scope && t.enum_id >= 0 && (size_t)t.enum_id < scope->nenums) return scope->enums[t.enum_id].name;
    return "enum";
  default: return "nothing";
  }
}

static void type_error(checker_t *c, const expr_t *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void type_error(checker_t *c, const expr_t *e, const char *fmt, ...) {
  c->ok = false;
  va_list ap;
  va_start(ap, fmt);
  diag_verror(c->diags, e->loc, fmt, ap);
  va_end(ap);
}

static const char *op_name(expr_kind_t k) {
  switch (k) {
  case EXPR_NEG: return "-";
  case EXPR_NOT: return "not";
  case EXPR_ABS: return "abs";
  case EXPR_ADD: return "+";
  case EXPR_SUB: return "-";
  case EXPR_MUL: return "*";
  case EXPR_DIV: return "/";
  case EXPR_MOD: return "%";
  case EXPR_MIN: return "min";
  case EXPR_MAX: return "max";
  case EXPR_EQ: return "==";
  case EXPR_NE: return "!=";
  case EXPR_LT: return "<";
  case EXPR_LE: return "<=";
  case EXPR_GT: return ">";
  case EXPR_GE: return ">=";
  case EXPR_AND: return "and";
  case EXPR_OR: return "or";
  case EXPR_IMPLIES: return "=>";
  case EXPR_IFF: return "<=>";
  case EXPR_ITE: return "if";
  default: return "?";
  }
}

/* Wraps an int-typed operand in a coercion to real. */
static expr_t *to_real(checker_t *c, expr_t *e) {
  if (e->type.kind != TYPE_INT) return e;
  if (e->kind == EXPR_INT) {
    long long v = e->u.ival;
    e->kind = EXPR_REAL;
    e->u.real.value = (double)v;
    e->u.real.text = arena_printf(c->arena, "%lld", v);
    e->type = type_of(TYPE_REAL);
    return e;
  }
  expr_t *w = expr_new_unary(c->arena, EXPR_TOREAL, e, e->loc);
  w->type = type_of(TYPE_REAL);
  return w;
}

static void check(checker_t *c, expr_t *e);

static void resolve_name(checker_t *c, expr_t *e) {
  const expr_scope_t *s = c->scope;
  const char *name = e->u.var.name;
  bool primed = e->u.var.primed;
  for (size_t i = 0; i < s->nsyms; i++) {
    const expr_sym_t *sym = &s->syms[i];
    if (strcmp(sym->name, name) != 0) continue;
    if (primed && !s->allow_primed) {
      type_error(c, e, "primed name '%s'' is not allowed here", name);
    } else if (primed && !sym->primable) {
      type_error(c, e, "'%s' cannot be primed: it does not change in a step", name);
    }
    e->kind = EXPR_VAR;
    e->u.var.id = sym->id;
    e->u.var.sym_kind = (int)sym->kind;
    e->type = sym->type;
    return;
  }
  for (size_t k = 0; k < s->nenums; k++) {
    for (int v = 0; v < s->enums[k].nvalues; v++) {
      if (strcmp(s->enums[k].values[v], name) != 0) continue;
      if (primed) type_error(c, e, "enum value '%s' cannot be primed", name);
      e->kind = EXPR_ENUM;
      e->u.ival = v;
      e->type = (type_t){TYPE_ENUM, (int)k};
      return;
    }
  }
  VEC(const char *) names = {0};
  for (size_t i = 0; i < s->nsyms; i++) VEC_PUSH(&names, s->syms[i].name);
  for (size_t k = 0; k < s->nenums; k++)
    for (int v = 0; v < s->enums[k].nvalues; v++) VEC_PUSH(&names, s->enums[k].values[v]);
  const char *best = diag_suggest(name, names.data, names.len);
  c->ok = false;
  if (best)
    diag_error(c->diags, e->loc, "undefined name '%s' (did you mean '%s'?)", name, best);
  else
    diag_error(c->diags, e->loc, "undefined name '%s'", name);
  VEC_FREE(&names);
  e->type = type_of(TYPE_NONE);
}

/* A literal 0 (possibly negated), as written: 0, 0.0, 0e5, -0. */
static bool zero_literal(const expr_t *e) {
  while (e->kind == EXPR_NEG || e->kind == EXPR_TOREAL) e = e->u.op.a;
  if (e->kind == EXPR_INT) return e->u.ival == 0;
  if (e->kind != EXPR_REAL) return false;
  if (!e->u.real.text) return e->u.real.value == 0;
  for (const char *p = e->u.real.text; *p && *p != 'e' && *p != 'E'; p++)
    if (*p >= '1' && *p <= '9') return false;
  return true;
}

static void check_arith(checker_t *c, expr_t *e) {
  expr_t *a = e->u.op.a, *b = e->u.op.b;
  if (a->type.kind == TYPE_NONE || (b && b->type.kind == TYPE_NONE)) return;
  if (!is_numeric(a->type) || (b && !is_numeric(b->type))) {
    const expr_t *bad = !is_numeric(a->type) ? a : b;
    type_error(c, bad, "operator '%s' needs numbers, not %s", op_name(e->kind), expr_type_name(bad->type, c->scope));
    return;
  }
  bool real = a->type.kind == TYPE_REAL || (b && b->type.kind == TYPE_REAL);
  if (e->kind == EXPR_MOD && real) {
    type_error(c, e, "operator '%%' needs integers, not real");
    return;
  }
  if ((e->kind == EXPR_DIV || e->kind == EXPR_MOD) && zero_literal(b)) {
    type_error(c, b, "division by zero");
    return;
  }
  if (real) {
    e->u.op.a = to_real(c, a);
    if (b) e->u.op.b = to_real(c, b);
  }
  e->type = type_of(real ? TYPE_REAL : TYPE_INT);
}

static void check_compare(checker_t *c, expr_t *e) {
  expr_t *a = e->u.op.a, *b = e->u.op.b;
  e->type = type_of(TYPE_BOOL);
  if (a->type.kind == TYPE_NONE || b->type.kind == TYPE_NONE) return;
  if (is_numeric(a->type) && is_numeric(b->type)) {
    if (a->type.kind != b->type.kind) {
      e->u.op.a = to_real(c, a);
      e->u.op.b = to_real(c, b);
    }
    return;
  }
  bool equality = e->kind == EXPR_EQ || e->kind == EXPR_NE;
  if (equality && a->type.kind == b->type.kind && a->type.enum_id == b->type.enum_id) return;
  if (!equality && (!is_numeric(a->type) || !is_numeric(b->type))) {
    const expr_t *bad = !is_numeric(a->type) ? a : b;
    type_error(c, bad, "operator '%s' needs numbers, not %s", op_name(e->kind), expr_type_name(bad->type, c->scope));
    return;
  }
  c->ok = false;
  diag_error(c->diags, e->loc, "cannot compare %s with %s", expr_type_name(a->type, c->scope),
             expr_type_name(b->type, c->scope));
}

static void want_bool(checker_t *c, const expr_t *e, const char *op) {
  if (e->type.kind == TYPE_NONE || e->type.kind == TYPE_BOOL) return;
  type_error(c, e, "operator '%s' needs a condition (bool), not %s", op, expr_type_name(e->type, c->scope));
}

static void check(checker_t *c, expr_t *e) {
  switch (e->kind) {
  case EXPR_INT: e->type = type_of(TYPE_INT); return;
  case EXPR_REAL: e->type = type_of(TYPE_REAL); return;
  case EXPR_BOOL: e->type = type_of(TYPE_BOOL); return;
  case EXPR_NAME: resolve_name(c, e); return;
  case EXPR_VAR:
  case EXPR_ENUM:
  case EXPR_TOREAL: return; /* already checked (synthesised) */
  default: break;
  }
  check(c, e->u.op.a);
  if (e->u.op.b) check(c, e->u.op.b);
  if (e->u.op.c) check(c, e->u.op.c);
  switch (e->kind) {
  case EXPR_NEG:
  case EXPR_ABS:
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_MIN:
  case EXPR_MAX: check_arith(c, e); return;
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE: check_compare(c, e); return;
  case EXPR_NOT:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_IMPLIES:
  case EXPR_IFF:
    want_bool(c, e->u.op.a, op_name(e->kind));
    if (e->u.op.b) want_bool(c, e->u.op.b, op_name(e->kind));
    e->type = type_of(TYPE_BOOL);
    return;
  case EXPR_ITE: {
    want_bool(c, e->u.op.a, "if");
    expr_t *a = e->u.op.b, *b = e->u.op.c;
    if (a->type.kind == TYPE_NONE || b->type.kind == TYPE_NONE) return;
    if (is_numeric(a->type) && is_numeric(b->type)) {
      bool real = a->type.kind == TYPE_REAL || b->type.kind == TYPE_REAL;
      if (real) {
        e->u.op.b = to_real(c, a);
        e->u.op.c = to_real(c, b);
      }
      e->type = type_of(real ? TYPE_REAL : TYPE_INT);
    } else if (a->type.kind == b->type.kind && a->type.enum_id == b->type.enum_id) {
      e->type = a->type;
    } else {
      c->ok = false;
      diag_error(c->diags, e->loc, "the branches of 'if' have different types (%s and %s)",
                 expr_type_name(a->type, c->scope), expr_type_name(b->type, c->scope));
    }
    return;
  }
  default: assert(!"unreachable expression kind"); return;
  }
}

/* Where the text of e starts: binary operators are located at the operator. */
static loc_t start_loc(const expr_t *e) {
  while (e->kind >= EXPR_ADD && e->kind <= EXPR_IFF && e->kind != EXPR_MIN && e->kind != EXPR_MAX) e = e->u.op.a;
  return e->loc;
}

bool expr_check(expr_t *e, const expr_scope_t *scope, type_kind_t want, arena_t *arena, diag_list_t *diags) {
  checker_t c = {scope, arena, diags, true};
  check(&c, e);
  if (!c.ok) return false;
  if (want == TYPE_NONE || e->type.kind == want) return true;
  if (want == TYPE_REAL && e->type.kind == TYPE_INT) return true; /* callers read numbers with expr_eval_real */
  diag_error(diags, start_loc(e), "expected %s here, but this expression is %s",
             want == TYPE_BOOL ? "a condition (bool)" : expr_type_name(type_of(want), scope),
             expr_type_name(e->type, scope));
  return false;
}

/* ---- evaluation ---- */

static long long ediv(long long a, long long b) { /* Euclidean, as SMT-LIB */
  long long q = a / b, r = a % b;
  if (r < 0) q += b > 0 ? -1 : 1;
  return q;
}

static long long emod(long long a, long long b) {
  long long r = a % b;
  if (r < 0) r += b > 0 ? b : -b;
  return r;
}

static value_t vint(long long i) { return (value_t){i, 0}; }
static value_t vreal(double r) { return (value_t){0, r}; }

static value_t eval(const expr_t *e, expr_lookup_fn lookup, void *ctx, bool *error) {
  bool real = e->type.kind == TYPE_REAL;
  switch (e->kind) {
  case EXPR_INT: return vint(e->u.ival);
  case EXPR_REAL: return vreal(e->u.real.value);
  case EXPR_BOOL: return vint(e->u.bval);
  case EXPR_ENUM: return vint(e->u.ival);
  case EXPR_VAR: return lookup(ctx, e->u.var.id, e->u.var.primed);
  case EXPR_NAME: *error = true; return vint(0);
  default: break;
  }
  value_t a = eval(e->u.op.a, lookup, ctx, error);
  switch (e->kind) {
  case EXPR_TOREAL: return vreal((double)a.i);
  case EXPR_NEG:
    if (real) return vreal(-a.r);
    if (a.i == LLONG_MIN) { /* no int is its negation: an error, and the value it wrapped to before */
      *error = true;
      return vint(a.i);
    }
    return vint(-a.i);
  case EXPR_ABS:
    if (real) return vreal(fabs(a.r));
    if (a.i == LLONG_MIN) { /* the same */
      *error = true;
      return vint(a.i);
    }
    return vint(a.i < 0 ? -a.i : a.i);
  case EXPR_NOT: return vint(!a.i);
  case EXPR_AND: return a.i ? vint(eval(e->u.op.b, lookup, ctx, error).i != 0) : vint(0);
  case EXPR_OR: return a.i ? vint(1) : vint(eval(e->u.op.b, lookup, ctx, error).i != 0);
  case EXPR_IMPLIES: return a.i ? vint(eval(e->u.op.b, lookup, ctx, error).i != 0) : vint(1);
  case EXPR_ITE: return eval(a.i ? e->u.op.b : e->u.op.c, lookup, ctx, error);
  default: break;
  }
  value_t b = eval(e->u.op.b, lookup, ctx, error);
  bool real_operands = e->u.op.a->type.kind == TYPE_REAL;
  long long r;
  switch (e->kind) {
  case EXPR_ADD:
    if (real) return vreal(a.r + b.r);
    if (__builtin_add_overflow(a.i, b.i, &r)) *error = true;
    return vint(r);
  case EXPR_SUB:
    if (real) return vreal(a.r - b.r);
    if (__builtin_sub_overflow(a.i, b.i, &r)) *error = true;
    return vint(r);
  case EXPR_MUL:
    if (real) return vreal(a.r * b.r);
    if (__builtin_mul_overflow(a.i, b.i, &r)) *error = true;
    return vint(r);
  case EXPR_DIV:
    if (real) {
      if (b.r == 0) *error = true;
      return vreal(b.r == 0 ? 0 : a.r / b.r);
    }
    if (b.i == 0 || (a.i == LLONG_MIN && b.i == -1)) {
      *error = true;
      return vint(0);
    }
    return vint(ediv(a.i, b.i));
  case EXPR_MOD:
    if (b.i == 0 || (a.i == LLONG_MIN && b.i == -1)) {
      *error = true;
      return vint(0);
    }
    return vint(emod(a.i, b.i));
  case EXPR_MIN: return real ? vreal(fmin(a.r, b.r)) : vint(a.i < b.i ? a.i : b.i);
  case EXPR_MAX: return real ? vreal(fmax(a.r, b.r)) : vint(a.i > b.i ? a.i : b.i);
  case EXPR_EQ: return vint(real_operands ? a.r == b.r : a.i == b.i);
  case EXPR_NE: return vint(real_operands ? a.r != b.r : a.i != b.i);
  case EXPR_LT: return vint(real_operands ? a.r < b.r : a.i < b.i);
  case EXPR_LE: return vint(real_operands ? a.r <= b.r : a.i <= b.i);
  case EXPR_GT: return vint(real_operands ? a.r > b.r : a.i > b.i);
  case EXPR_GE: return vint(real_operands ? a.r >= b.r : a.i >= b.i);
  case EXPR_IFF: return vint((a.i != 0) == (b.i != 0));
  default: assert(!"unreachable expression kind"); return vint(0);
  }
}

value_t expr_eval(const expr_t *e, expr_lookup_fn lookup, void *ctx, bool *error) {
  bool dummy = false;
  return eval(e, lookup, ctx, error ? error : &dummy);
}

bool expr_eval_bool(const expr_t *e, expr_lookup_fn lookup, void *ctx, bool *error) {
  return expr_eval(e, lookup, ctx, error).i != 0;
}

double expr_eval_real(const expr_t *e, expr_lookup_fn lookup, void *ctx, bool *error) {
  value_t v = expr_eval(e, lookup, ctx, error);
  return e->type.kind == TYPE_REAL ? v.r : (double)v.i;
}

/* ---- printing ---- */

static int precedence(const expr_t *e) {
  switch (e->kind) {
  case EXPR_ITE: return 0;
  case EXPR_IFF: return 1;
  case EXPR_IMPLIES: return 2;
  case EXPR_OR: return 3;
  case EXPR_AND: return 4;
  case EXPR_NOT: return 5;
  case EXPR_EQ: case EXPR_NE: case EXPR_LT: case EXPR_LE: case EXPR_GT: case EXPR_GE: return 6;
  case EXPR_ADD: case EXPR_SUB: return 7;
  case EXPR_MUL: case EXPR_DIV: case EXPR_MOD: return 8;
  case EXPR_NEG: return 9;
  case EXPR_TOREAL: return precedence(e->u.op.a);
  default: return 10;
  }
}

static void print(strbuf_t *sb, const expr_t *e, const expr_scope_t *scope, int min_prec) {
  int prec = precedence(e);
  bool paren = prec < min_prec;
  if (paren) strbuf_putc(sb, '(');
  switch (e->kind) {
  case EXPR_INT: strbuf_printf(sb, "%lld", e->u.ival); break;
  case EXPR_REAL: strbuf_puts(sb, e->u.real.text ? e->u.real.text : "0"); break;
  case EXPR_BOOL: strbuf_puts(sb, e->u.bval ? "true" : "false"); break;
  case EXPR_NAME:
  case EXPR_VAR: strbuf_printf(sb, "%s%s", e->u.var.name, e->u.var.primed ? "'" : ""); break;
  case EXPR_ENUM:
    if (scope && e->type.enum_id >= 0 && (size_t)e->type.enum_id < scope->nenums)
      strbuf_puts(sb, scope->enums[e->type.enum_id].values[e->u.ival]);
    else
      strbuf_printf(sb, "%lld", e->u.ival);
    break;
  case EXPR_TOREAL: print(sb, e->u.op.a, scope, min_prec); break;
  case EXPR_NEG:
    strbuf_putc(sb, '-');
    print(sb, e->u.op.a, scope, 9);
    break; /* --x: no deeper in print than in source */
  case EXPR_NOT: strbuf_puts(sb, "not "); print(sb, e->u.op.a, scope, 5); break;
  case EXPR_ABS:
  case EXPR_MIN:
  case EXPR_MAX:
    strbuf_printf(sb, "%s(", op_name(e->kind));
    print(sb, e->u.op.a, scope, 0);
    if (e->u.op.b) {
      strbuf_puts(sb, ", ");
      print(sb, e->u.op.b, scope, 0);
    }
    strbuf_putc(sb, ')');
    break;
  case EXPR_ITE:
    strbuf_puts(sb, "if ");
    print(sb, e->u.op.a, scope, 0);
    strbuf_puts(sb, " then ");
    print(sb, e->u.op.b, scope, 0);
    strbuf_puts(sb, " else ");
    print(sb, e->u.op.c, scope, 0);
    break;
  default: {
    /* Left-associative operators print their right operand one level
     * tighter; => is right-associative; comparisons do not chain. */
    bool right_assoc = e->kind == EXPR_IMPLIES;
    bool nonassoc = prec == 6;
    print(sb, e->u.op.a, scope, right_assoc || nonassoc ? prec + 1 : prec);
    strbuf_printf(sb, " %s ", op_name(e->kind));
    print(sb, e->u.op.b, scope, right_assoc ? prec : prec + 1);
  }
  }
  if (paren) strbuf_putc(sb, ')');
}

bool expr_partial(const expr_t *e) {
  if (!e) return false;
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_REAL:
  case EXPR_BOOL:
  case EXPR_ENUM:
  case EXPR_VAR:
  case EXPR_NAME: return false;
  case EXPR_DIV:
  case EXPR_MOD: return true;
  default: return expr_partial(e->u.op.a) || expr_partial(e->u.op.b) || expr_partial(e->u.op.c);
  }
}

char *expr_to_string(const expr_t *e, const expr_scope_t *scope) {
  strbuf_t sb;
  strbuf_init(&sb);
  print(&sb, e, scope, 0);
  return strbuf_take(&sb);
}

void expr_visit_vars(const expr_t *e, void (*fn)(void *ctx, const expr_t *var), void *ctx) {
  if (!e) return;
  switch (e->kind) {
  case EXPR_VAR: fn(ctx, e); return;
  case EXPR_INT: case EXPR_REAL: case EXPR_BOOL: case EXPR_NAME: case EXPR_ENUM: return;
  default:
    expr_visit_vars(e->u.op.a, fn, ctx);
    expr_visit_vars(e->u.op.b, fn, ctx);
    expr_visit_vars(e->u.op.c, fn, ctx);
  }
}

expr_t *expr_copy(const expr_t *e, arena_t *arena, expr_t *(*map)(void *ctx, expr_t *var), void *ctx) {
  if (!e) return NULL;
  expr_t *c = arena_alloc(arena, sizeof *c);
  *c = *e;
  switch (e->kind) {
  case EXPR_VAR: return map ? map(ctx, c) : c;
  case EXPR_INT: case EXPR_REAL: case EXPR_BOOL: case EXPR_NAME: case EXPR_ENUM: return c;
  default:
    c->u.op.a = expr_copy(e->u.op.a, arena, map, ctx);
    c->u.op.b = expr_copy(e->u.op.b, arena, map, ctx);
    c->u.op.c = expr_copy(e->u.op.c, arena, map, ctx);
    return c;
  }
}

expr_t *expr_new_binary(arena_t *arena, expr_kind_t kind, expr_t *a, expr_t *b, loc_t loc) {
  expr_t *e = arena_alloc(arena, sizeof *e);
  e->kind = kind;
  e->loc = loc;
  e->u.op.a = a;
  e->u.op.b = b;
  return e;
}

expr_kind_t expr_negated_comparison(expr_kind_t k) {
  switch (k) {
  case EXPR_LT: return EXPR_GE;
  case EXPR_LE: return EXPR_GT;
  case EXPR_GT: return EXPR_LE;
  case EXPR_GE: return EXPR_LT;
  case EXPR_EQ: return EXPR_NE;
  default: return EXPR_EQ;
  }
}

bool expr_is_comparison(expr_kind_t k) {
  return k == EXPR_EQ || k == EXPR_NE || k == EXPR_LT || k == EXPR_LE || k == EXPR_GT || k == EXPR_GE;
}

expr_t *expr_new_unary(arena_t *arena, expr_kind_t kind, expr_t *a, loc_t loc) {
  return expr_new_binary(arena, kind, a, NULL, loc);
}

static expr_t *leaf(arena_t *arena, expr_kind_t kind, type_t type, loc_t loc) {
  expr_t *e = arena_alloc(arena, sizeof *e);
  e->kind = kind;
  e->type = type;
  e->loc = loc;
  return e;
}

expr_t *expr_new_bool(arena_t *arena, bool b, loc_t loc) {
  expr_t *e = leaf(arena, EXPR_BOOL, type_of(TYPE_BOOL), loc);
  e->u.bval = b;
  return e;
}

expr_t *expr_new_int(arena_t *arena, long long v, loc_t loc) {
  expr_t *e = leaf(arena, EXPR_INT, type_of(TYPE_INT), loc);
  e->u.ival = v;
  return e;
}

expr_t *expr_new_var(arena_t *arena, const char *name, int id, int sym_kind, type_t type, bool primed, loc_t loc) {
  expr_t *e = leaf(arena, EXPR_VAR, type, loc);
  e->u.var.name = name;
  e->u.var.id = id;
  e->u.var.sym_kind = sym_kind;
  e->u.var.primed = primed;
  return e;
}
