/* Lexer and recursive-descent parser of the expression language (see
 * ism/expr.h). Precedence, lowest first: if-then-else, <=>, => (right),
 * or, and, not, comparisons (non-associative), + -, * / %, unary minus. */
#include "ism/expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/number.h"
#include "ism/vec.h"

typedef enum {
  TOK_END, TOK_INT, TOK_REAL, TOK_IDENT, TOK_PRIMED_IDENT,
  TOK_LPAREN, TOK_RPAREN, TOK_COMMA,
  TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_PERCENT,
  TOK_EQ, TOK_NE, TOK_LT, TOK_LE, TOK_GT, TOK_GE,
  TOK_AND, TOK_OR, TOK_NOT, TOK_IMPLIES, TOK_IFF,
  TOK_IF, TOK_THEN, TOK_ELSE, TOK_TRUE, TOK_FALSE,
  TOK_ERROR
} tok_kind_t;

typedef struct {
  tok_kind_t kind;
  const char *start;
  size_t len;
  int offset; /* from the start of the text */
} token_t;

typedef struct {
  const char *text;
  const char *pos;
  loc_t start;
  arena_t *arena;
  diag_list_t *diags;
  token_t tok;
  bool failed;
  int depth;            /* nesting of the recursive descent, at most EXPR_MAX_DEPTH */
  VEC(int) line_starts; /* offsets just after each newline of text, ascending */
} parser_t;

/* Expressions may span lines in block scalars: a line's first column is 1. */
static loc_t loc_at(const parser_t *p, int offset) {
  loc_t l = p->start;
  size_t lo = 0, hi = p->line_starts.len; /* the last line starting at or before offset */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->line_starts.data[mid] <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) {
    l.col += offset;
  } else {
    l.line += (int)lo;
    l.col = offset - p->line_starts.data[lo - 1] + 1;
  }
  return l;
}

static void syntax_error(parser_t *p, const token_t *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void syntax_error(parser_t *p, const token_t *t, const char *fmt, ...) {
  if (p->failed) return;
  p->failed = true;
  va_list ap;
  va_start(ap, fmt);
  diag_verror(p->diags, loc_at(p, t->offset), fmt, ap);
  va_end(ap);
}

/* Guards every recursive descent: input nesting never becomes C stack depth
 * beyond EXPR_MAX_DEPTH. */
static bool enter(parser_t *p) {
  if (++p->depth <= EXPR_MAX_DEPTH) return true;
  syntax_error(p, &p->tok, "expression nested more than %d levels deep", EXPR_MAX_DEPTH);
  return false;
}

static const struct {
  const char *word;
  tok_kind_t kind;
} keywords[] = {
    {"and", TOK_AND}, {"or", TOK_OR}, {"not", TOK_NOT}, {"if", TOK_IF}, {"then", TOK_THEN},
    {"else", TOK_ELSE}, {"true", TOK_TRUE}, {"false", TOK_FALSE},
};

static void next(parser_t *p) {
  const char *s = p->pos;
  while (isspace((unsigned char)*s)) s++;
  token_t t = {TOK_END, s, 0, (int)(s - p->text)};
  if (!*s) {
    p->tok = t;
    p->pos = s;
    return;
  }
  if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
    const char *e = s;
    while (isdigit((unsigned char)*e)) e++;
    t.kind = TOK_INT;
    if (*e == '.' && isdigit((unsigned char)e[1])) {
      t.kind = TOK_REAL;
      e++;
      while (isdigit((unsigned char)*e)) e++;
    }
    if ((*e == 'e' || *e == 'E') &&
        (isdigit((unsigned char)e[1]) || ((e[1] == '-' || e[1] == '+') && isdigit((unsigned char)e[2])))) {
      t.kind = TOK_REAL;
      e += 2;
      while (isdigit((unsigned char)*e)) e++;
    }
    t.len = (size_t)(e - s);
  } else if (isalpha((unsigned char)*s) || *s == '_') {
    const char *e = s;
    while (isalnum((unsigned char)*e) || *e == '_') e++;
    t.len = (size_t)(e - s);
    t.kind = TOK_IDENT;
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
      if (strlen(keywords[i].word) == t.len && memcmp(keywords[i].word, s, t.len) == 0) t.kind = keywords[i].kind;
    if (t.kind == TOK_IDENT && *e == '\'') {
      t.kind = TOK_PRIMED_IDENT;
      t.len++;
    }
  } else {
    static const struct {
      const char *op;
      tok_kind_t kind;
    } ops[] = {
        {"<=>", TOK_IFF}, {"<->", TOK_IFF}, {"=>", TOK_IMPLIES}, {"->", TOK_IMPLIES}, {"==", TOK_EQ},
        {"!=", TOK_NE},   {"<=", TOK_LE},   {">=", TOK_GE},      {"&&", TOK_AND},     {"||", TOK_OR},
        {"<", TOK_LT},    {">", TOK_GT},    {"!", TOK_NOT},      {"+", TOK_PLUS},     {"-", TOK_MINUS},
        {"*", TOK_STAR},  {"/", TOK_SLASH}, {"%", TOK_PERCENT},  {"(", TOK_LPAREN},   {")", TOK_RPAREN},
        {",", TOK_COMMA},
    };
    t.kind = TOK_ERROR;
    t.len = 1;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
      size_t n = strlen(ops[i].op);
      if (strncmp(s, ops[i].op, n) == 0) {
        t.kind = ops[i].kind;
        t.len = n;
        break;
      }
    }
  }
  p->tok = t;
  p->pos = s + t.len;
}

static const char *tok_text(parser_t *p, const token_t *t) {
  if (t->kind == TOK_END) return "end of expression";
  return arena_strndup(p->arena, t->start, t->len);
}

static expr_t *node(parser_t *p, expr_kind_t kind, int offset) {
  expr_t *e = arena_alloc(p->arena, sizeof *e);
  e->kind = kind;
  e->loc = loc_at(p, offset);
  return e;
}

static expr_t *parse_expr(parser_t *p);

static bool expect(parser_t *p, tok_kind_t kind, const char *what) {
  if (p->tok.kind == kind) {
    next(p);
    return true;
  }
  syntax_error(p, &p->tok, "expected %s before '%s'", what, tok_text(p, &p->tok));
  return false;
}

static expr_t *parse_call(parser_t *p, token_t name) {
  expr_kind_t kind;
  size_t arity;
  if (name.len == 3 && memcmp(name.start, "abs", 3) == 0) kind = EXPR_ABS, arity = 1;
  else if (name.len == 3 && memcmp(name.start, "min", 3) == 0) kind = EXPR_MIN, arity = 2;
  else if (name.len == 3 && memcmp(name.start, "max", 3) == 0) kind = EXPR_MAX, arity = 2;
  else {
    syntax_error(p, &name, "unknown function '%s' (functions are abs, min and max)", tok_text(p, &name));
    return NULL;
  }
  next(p); /* ( */
  expr_t *e = node(p, kind, name.offset);
  e->u.op.a = parse_expr(p);
  if (arity == 2) {
    if (!expect(p, TOK_COMMA, "','")) return NULL;
    e->u.op.b = parse_expr(p);
  }
  if (!expect(p, TOK_RPAREN, "')'")) return NULL;
  return p->failed ? NULL : e;
}

static expr_t *parse_primary(parser_t *p) {
  token_t t = p->tok;
  switch (t.kind) {
  case TOK_INT: {
    next(p);
    expr_t *e = node(p, EXPR_INT, t.offset);
    errno = 0;
    e->u.ival = strtoll(arena_strndup(p->arena, t.start, t.len), NULL, 10);
    if (errno == ERANGE) syntax_error(p, &t, "integer literal '%s' is too large", tok_text(p, &t));
    return e;
  }
  case TOK_REAL: {
    next(p);
    expr_t *e = node(p, EXPR_REAL, t.offset);
    e->u.real.text = arena_strndup(p->arena, t.start, t.len);
    char why[128];
    if (!number_in_range(e->u.real.text, &e->u.real.value, why, sizeof why))
      syntax_error(p, &t, "real literal '%s' is out of range: %s", e->u.real.text, why);
    return e;
  }
  case TOK_TRUE:
  case TOK_FALSE: {
    next(p);
    expr_t *e = node(p, EXPR_BOOL, t.offset);
    e->u.bval = t.kind == TOK_TRUE;
    return e;
  }
  case TOK_IDENT:
  case TOK_PRIMED_IDENT: {
    next(p);
    if (p->tok.kind == TOK_LPAREN && t.kind == TOK_IDENT) return parse_call(p, t);
    expr_t *e = node(p, EXPR_NAME, t.offset);
    bool primed = t.kind == TOK_PRIMED_IDENT;
    e->u.var.name = arena_strndup(p->arena, t.start, t.len - primed);
    e->u.var.primed = primed;
    e->u.var.id = -1;
    return e;
  }
  case TOK_LPAREN: {
    next(p);
    expr_t *e = parse_expr(p);
    if (!expect(p, TOK_RPAREN, "')'")) return NULL;
    return e;
  }
  case TOK_ERROR:
    if (*t.start == '=')
      syntax_error(p, &t, "unexpected '%s' (write '==' for equality)", tok_text(p, &t));
    else
      syntax_error(p, &t, "unexpected character '%s'", tok_text(p, &t));
    return NULL;
  default:
    syntax_error(p, &t, "expected an expression before '%s'", tok_text(p, &t));
    return NULL;
  }
}

static expr_t *parse_unary(parser_t *p) {
  if (p->tok.kind == TOK_MINUS) {
    token_t t = p->tok;
    next(p);
    if (!enter(p)) return NULL;
    expr_t *a = parse_unary(p);
    p->depth--;
    if (!a) return NULL;
    if (a->kind == EXPR_INT && a->u.ival >= 0) {
      a->u.ival = -a->u.ival;
      a->loc = loc_at(p, t.offset);
      return a;
    }
    expr_t *e = node(p, EXPR_NEG, t.offset);
    e->u.op.a = a;
    return e;
  }
  return parse_primary(p);
}

static expr_t *binary(parser_t *p, expr_kind_t kind, expr_t *a, expr_t *b, int offset) {
  if (!a || !b) return NULL;
  expr_t *e = node(p, kind, offset);
  e->u.op.a = a;
  e->u.op.b = b;
  return e;
}

/* Operators of the left-associative levels: the kind a token stands for,
 * or EXPR_INT when it is not an operator of that level. */
static expr_kind_t mul_op(tok_kind_t k) {
  return k == TOK_STAR ? EXPR_MUL : k == TOK_SLASH ? EXPR_DIV : k == TOK_PERCENT ? EXPR_MOD : EXPR_INT;
}
static expr_kind_t add_op(tok_kind_t k) { return k == TOK_PLUS ? EXPR_ADD : k == TOK_MINUS ? EXPR_SUB : EXPR_INT; }
static expr_kind_t and_op(tok_kind_t k) { return k == TOK_AND ? EXPR_AND : EXPR_INT; }
static expr_kind_t or_op(tok_kind_t k) { return k == TOK_OR ? EXPR_OR : EXPR_INT; }

/* A chain of one associative operator (and, or) as a balanced tree of the
 * operands [lo, hi): the same value, evaluated in the same order, at depth
 * log n instead of n. */
static expr_t *balanced(parser_t *p, expr_kind_t kind, expr_t **operands, const int *offsets, size_t lo,
                        size_t hi) {
  if (hi - lo == 1) return operands[lo];
  size_t mid = lo + (hi - lo) / 2;
  return binary(p, kind, balanced(p, kind, operands, offsets, lo, mid),
                balanced(p, kind, operands, offsets, mid, hi), offsets[mid]);
}

/* operand { op operand }, grouped to the left; long and/or chains balanced. */
static expr_t *left_assoc(parser_t *p, expr_t *(*operand)(parser_t *), expr_kind_t (*op)(tok_kind_t)) {
  expr_t *e = operand(p);
  VEC(expr_t *) chain = {0};
  VEC(int) offsets = {0};
  expr_kind_t chain_kind = EXPR_INT;
  for (expr_kind_t k; e && (k = op(p->tok.kind)) != EXPR_INT;) {
    token_t t = p->tok;
    next(p);
    expr_t *b = operand(p);
    if ((k == EXPR_AND || k == EXPR_OR) && b) {
      chain_kind = k;
      if (!chain.len) {
        VEC_PUSH(&chain, e);
        VEC_PUSH(&offsets, 0);
      }
      VEC_PUSH(&chain, b);
      VEC_PUSH(&offsets, t.offset);
    }
    e = binary(p, k, e, b, t.offset);
  }
  if (e && chain.len > EXPR_CHAIN_BALANCE)
    e = balanced(p, chain_kind, chain.data, offsets.data, 0, chain.len);
  VEC_FREE(&chain);
  VEC_FREE(&offsets);
  return e;
}

static expr_t *parse_mul(parser_t *p) { return left_assoc(p, parse_unary, mul_op); }
static expr_t *parse_add(parser_t *p) { return left_assoc(p, parse_mul, add_op); }

static expr_kind_t comparison_kind(tok_kind_t k) {
  switch (k) {
  case TOK_EQ: return EXPR_EQ;
  case TOK_NE: return EXPR_NE;
  case TOK_LT: return EXPR_LT;
  case TOK_LE: return EXPR_LE;
  case TOK_GT: return EXPR_GT;
  case TOK_GE: return EXPR_GE;
  default: return EXPR_INT;
  }
}

static expr_t *parse_cmp(parser_t *p) {
  expr_t *e = parse_add(p);
  expr_kind_t k = comparison_kind(p->tok.kind);
  if (k == EXPR_INT || !e) return e;
  token_t t = p->tok;
  next(p);
  e = binary(p, k, e, parse_add(p), t.offset);
  if (e && comparison_kind(p->tok.kind) != EXPR_INT)
    syntax_error(p, &p->tok, "comparisons do not chain: write 'a <= b and b %s c'", tok_text(p, &p->tok));
  return e;
}

static expr_t *parse_not(parser_t *p) {
  if (p->tok.kind == TOK_NOT) {
    token_t t = p->tok;
    next(p);
    if (!enter(p)) return NULL;
    expr_t *a = parse_not(p);
    p->depth--;
    if (!a) return NULL;
    expr_t *e = node(p, EXPR_NOT, t.offset);
    e->u.op.a = a;
    return e;
  }
  return parse_cmp(p);
}

static expr_t *parse_and(parser_t *p) { return left_assoc(p, parse_not, and_op); }
static expr_t *parse_or(parser_t *p) { return left_assoc(p, parse_and, or_op); }

static expr_t *parse_implies(parser_t *p) {
  expr_t *e = parse_or(p);
  if (e && p->tok.kind == TOK_IMPLIES) {
    token_t t = p->tok;
    next(p);
    if (!enter(p)) return NULL;
    e = binary(p, EXPR_IMPLIES, e, parse_implies(p), t.offset);
    p->depth--;
  }
  return e;
}

static expr_t *parse_expr_nested(parser_t *p);

static expr_t *parse_expr(parser_t *p) {
  if (!enter(p)) return NULL;
  expr_t *e = parse_expr_nested(p);
  p->depth--;
  return e;
}

static expr_t *parse_expr_nested(parser_t *p) {
  if (p->tok.kind == TOK_IF) {
    token_t t = p->tok;
    next(p);
    expr_t *e = node(p, EXPR_ITE, t.offset);
    e->u.op.a = parse_expr(p);
    if (!expect(p, TOK_THEN, "'then'")) return NULL;
    e->u.op.b = parse_expr(p);
    if (!expect(p, TOK_ELSE, "'else'")) return NULL;
    e->u.op.c = parse_expr(p);
    return p->failed ? NULL : e;
  }
  expr_t *e = parse_implies(p);
  while (e && p->tok.kind == TOK_IFF) {
    token_t t = p->tok;
    next(p);
    e = binary(p, EXPR_IFF, e, parse_implies(p), t.offset);
  }
  return e;
}

/* The first node deeper than EXPR_MAX_DEPTH (a long chain of + or *), or
 * NULL; by an explicit stack, since the tree may be that deep. */
static const expr_t *too_deep(const expr_t *root) {
  typedef struct {
    const expr_t *e;
    int depth;
  } item_t;
  VEC(item_t) stack = {0};
  VEC_PUSH(&stack, ((item_t){root, 1}));
  const expr_t *found = NULL;
  while (stack.len && !found) {
    item_t it = VEC_POP(&stack);
    if (it.depth > EXPR_MAX_DEPTH) found = it.e;
    if (it.e->kind < EXPR_NEG) continue; /* literals and names */
    const expr_t *kids[] = {it.e->u.op.a, it.e->u.op.b, it.e->u.op.c};
    for (int k = 0; k < 3; k++)
      if (kids[k]) VEC_PUSH(&stack, ((item_t){kids[k], it.depth + 1}));
  }
  VEC_FREE(&stack);
  return found;
}

static expr_t *parse_all(parser_t *p) {
  next(p);
  if (p->tok.kind == TOK_END) {
    syntax_error(p, &p->tok, "empty expression");
    return NULL;
  }
  expr_t *e = parse_expr(p);
  if (e && !p->failed && p->tok.kind == TOK_ERROR) parse_primary(p); /* reports the bad character */
  if (e && !p->failed && p->tok.kind != TOK_END)
    syntax_error(p, &p->tok, "unexpected '%s' after the end of the expression", tok_text(p, &p->tok));
  const expr_t *deep = e && !p->failed ? too_deep(e) : NULL;
  if (deep) {
    diag_error(p->diags, deep->loc, "expression nested more than %d levels deep (split it into parts)",
               EXPR_MAX_DEPTH);
    return NULL;
  }
  return p->failed ? NULL : e;
}

expr_t *expr_parse(const char *text, loc_t start, arena_t *arena, diag_list_t *diags) {
  parser_t p = {.text = text, .pos = text, .start = start, .arena = arena, .diags = diags};
  for (const char *c = text; (c = strchr(c, '\n')); c++) VEC_PUSH(&p.line_starts, (int)(c + 1 - text));
  expr_t *e = parse_all(&p);
  VEC_FREE(&p.line_starts);
  return e;
}
