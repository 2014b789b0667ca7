#include "verifier/lts/fsp_parse.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"

void fsp_fail(fsp_ctx_t *c, loc_t loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  diag_error(c->d, loc, "%s", buf);
  longjmp(c->fail, 1);
}

void fsp_fail_limit(fsp_ctx_t *c, loc_t loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  c->f->limit_hit = true;
  if (stop_requested()) /* the composition or the process gave up at a signal or the time limit */
    fsp_fail(c, loc, "%s: the compilation stopped here", stop_message());
  else
    fsp_fail(c, loc, "%s (limit %ld; raise --max-states)", buf, c->f->max_states);
}

void fsp_check_range(fsp_ctx_t *c, loc_t loc, long long lo, long long hi) {
  if (!c->live) return;
  if (lo > hi) fsp_fail(c, loc, "empty range %lld..%lld", lo, hi);
  if ((unsigned long long)hi - (unsigned long long)lo >= (unsigned long long)c->f->max_states)
    fsp_fail_limit(c, loc, "range %lld..%lld has too many values", lo, hi);
}

/* Deep enough for any hand-written or generated model; shallow enough
 * that the recursion it bounds fits an 8 MB stack under AddressSanitizer. */
#define FSP_MAX_NESTING 1000

void fsp_nest(fsp_ctx_t *c, loc_t loc) {
  if (++c->nesting > FSP_MAX_NESTING)
    fsp_fail(c, loc,
             "the input nests more than %d levels deep here (parentheses, set-valued prefixes, aliases or "
             "operators); split it into local processes or constants",
             FSP_MAX_NESTING);
}

const char *fsp_describe(const fsp_token_t *t) { return t->kind == FSP_TOK_EOF ? "end of file" : t->text; }

const fsp_token_t *fsp_expect(fsp_ctx_t *c, fsp_tok_kind_t k, const char *what) {
  if (!at(c, k)) fsp_fail(c, peek(c)->loc, "expected %s, found '%s'", what, fsp_describe(peek(c)));
  return next(c);
}

bool fsp_is_kw(const fsp_token_t *t, const char *kw) {
  return (t->kind == FSP_TOK_UIDENT || t->kind == FSP_TOK_LIDENT) && strcmp(t->text, kw) == 0;
}

/* ------------------------------------------------------------- lexing */

bool fsp_lex(fsp_file_t *f, const char *path, const char *text, diag_list_t *d) {
  VEC(fsp_token_t) toks = {0};
  int line = 1, col = 1;
  const char *p = text;
  bool ok = true;
  while (ok) {
    /* whitespace and comments */
    for (;;) {
      if (*p == '\n') {
        line++;
        col = 1;
        p++;
      } else if (isspace((unsigned char)*p)) {
        col++;
        p++;
      } else if (p[0] == '/' && p[1] == '/') {
        while (*p && *p != '\n') p++;
      } else if (p[0] == '/' && p[1] == '*') {
        loc_t at_loc = {path, line, col};
        p += 2;
        col += 2;
        while (*p && !(p[0] == '*' && p[1] == '/')) {
          if (*p == '\n') {
            line++;
            col = 1;
          } else
            col++;
          p++;
        }
        if (!*p) {
          diag_error(d, at_loc, "unterminated comment");
          ok = false;
          break;
        }
        p += 2;
        col += 2;
      } else
        break;
    }
    if (!ok) break;
    fsp_token_t t = {.loc = {path, line, col}};
    const char *start = p;
    if (!*p) {
      t.kind = FSP_TOK_EOF;
      t.text = "";
      VEC_PUSH(&toks, t);
      break;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
      while (isalnum((unsigned char)*p) || *p == '_') p++;
      t.kind = isupper((unsigned char)*start) ? FSP_TOK_UIDENT : FSP_TOK_LIDENT;
    } else if (isdigit((unsigned char)*p)) {
      while (isdigit((unsigned char)*p)) p++;
      t.kind = FSP_TOK_INT;
      t.value = strtoll(start, NULL, 10);
      if (p - start > 15) {
        diag_error(d, t.loc, "integer '%.*s' is too large", (int)(p - start), start);
        ok = false;
        break;
      }
    } else if (*p == '"') {
      p++;
      while (*p && *p != '"' && *p != '\n') p++;
      if (*p != '"') {
        diag_error(d, t.loc, "unterminated string");
        ok = false;
        break;
      }
      p++;
      t.kind = FSP_TOK_STRING;
    } else {
      static const struct {
        const char *s;
        fsp_tok_kind_t k;
      } ops[] = {{"..", FSP_TOK_DOTDOT}, {"::", FSP_TOK_COLONCOLON}, {"==", FSP_TOK_EQ},
                 {"!=", FSP_TOK_NE},     {"<=", FSP_TOK_LE},         {">=", FSP_TOK_GE},
                 {"<<", FSP_TOK_SHL},    {">>", FSP_TOK_SHR},        {"&&", FSP_TOK_ANDAND},
                 {"||", FSP_TOK_OROR},   {"->", FSP_TOK_ARROW},      {"(", FSP_TOK_LPAREN},
                 {")", FSP_TOK_RPAREN},  {"[", FSP_TOK_LBRACK},      {"]", FSP_TOK_RBRACK},
                 {"{", FSP_TOK_LBRACE},  {"}", FSP_TOK_RBRACE},      {",", FSP_TOK_COMMA},
                 {".", FSP_TOK_DOT},     {":", FSP_TOK_COLON},       {"=", FSP_TOK_ASSIGN},
                 {"<", FSP_TOK_LT},      {">", FSP_TOK_GT},          {"+", FSP_TOK_PLUS},
                 {"-", FSP_TOK_MINUS},   {"*", FSP_TOK_STAR},        {"/", FSP_TOK_SLASH},
                 {"%", FSP_TOK_PERCENT}, {"!", FSP_TOK_NOT},         {"|", FSP_TOK_BAR},
                 {"&", FSP_TOK_AMP},     {"^", FSP_TOK_CARET},       {"\\", FSP_TOK_BACKSLASH},
                 {"@", FSP_TOK_AT},      {"?", FSP_TOK_QUESTION},    {";", FSP_TOK_SEMI}};
      size_t i = 0;
      for (; i < sizeof ops / sizeof ops[0]; i++)
        if (strncmp(p, ops[i].s, strlen(ops[i].s)) == 0) break;
      if (i == sizeof ops / sizeof ops[0]) {
        if ((unsigned char)*p >= 0x80)
          diag_error(d, t.loc, "unexpected non-ASCII character");
        else
          diag_error(d, t.loc, "unexpected character '%c'", *p);
        ok = false;
        break;
      }
      t.kind = ops[i].k;
      p += strlen(ops[i].s);
    }
    t.text = arena_strndup(&f->arena, start, (size_t)(p - start));
    col += (int)(p - start);
    VEC_PUSH(&toks, t);
  }
  f->toks = arena_alloc(&f->arena, (toks.len + 1) * sizeof *f->toks);
  if (toks.len) memcpy(f->toks, toks.data, toks.len * sizeof *f->toks);
  f->ntoks = toks.len;
  VEC_FREE(&toks);
  return ok;
}

/* ------------------------------------------------------ name lookups */

const fsp_binding_t *fsp_find_binding(const fsp_ctx_t *c, const char *name) {
  for (size_t i = c->env.len; i-- > 0;)
    if (strcmp(c->env.data[i].name, name) == 0) return &c->env.data[i];
  for (size_t i = 0; i < c->f->consts.len; i++)
    if (strcmp(c->f->consts.data[i].name, name) == 0) return &c->f->consts.data[i];
  return NULL;
}

const fsp_named_range_t *fsp_find_range(const fsp_file_t *f, const char *name) {
  for (size_t i = 0; i < f->ranges.len; i++)
    if (strcmp(f->ranges.data[i].name, name) == 0) return &f->ranges.data[i];
  return NULL;
}

const fsp_named_set_t *fsp_find_set(const fsp_file_t *f, const char *name) {
  for (size_t i = 0; i < f->sets.len; i++)
    if (strcmp(f->sets.data[i].name, name) == 0) return &f->sets.data[i];
  return NULL;
}

fsp_proc_def_t *fsp_find_proc(const fsp_file_t *f, const char *name) {
  for (size_t i = 0; i < f->procs.len; i++)
    if (strcmp(f->procs.data[i].name, name) == 0) return &f->procs.data[i];
  return NULL;
}

void fsp_push_binding(fsp_ctx_t *c, const char *name, fsp_val_t v) {
  VEC_PUSH(&c->env, ((fsp_binding_t){name, v}));
}

/* -------------------------------------------------------- expressions */

static long long as_int(fsp_ctx_t *c, fsp_val_t v, loc_t loc) {
  if (v.str && c->live) fsp_fail(c, loc, "expected a number, found the label '%s'", v.s);
  return v.str ? 0 : v.i;
}

fsp_val_t fsp_ival(long long i) { return (fsp_val_t){false, i, NULL}; }

static fsp_val_t primary(fsp_ctx_t *c) {
  const fsp_token_t *t = next(c);
  switch (t->kind) {
  case FSP_TOK_INT: return fsp_ival(t->value);
  case FSP_TOK_LPAREN: {
    fsp_nest(c, t->loc);
    fsp_val_t v = fsp_expr(c);
    fsp_expect(c, FSP_TOK_RPAREN, "')'");
    fsp_unnest(c);
    return v;
  }
  case FSP_TOK_MINUS:
  case FSP_TOK_PLUS:
  case FSP_TOK_NOT: {
    fsp_nest(c, t->loc);
    long long x = as_int(c, primary(c), t->loc);
    fsp_unnest(c);
    if (t->kind == FSP_TOK_NOT) return fsp_ival(!x);
    if (t->kind == FSP_TOK_PLUS) return fsp_ival(x);
    if (x == LLONG_MIN) {
      if (c->live) fsp_fail(c, t->loc, "integer overflow in '-(%lld)'", x);
      return fsp_ival(0);
    }
    return fsp_ival(-x);
  }
  case FSP_TOK_UIDENT:
  case FSP_TOK_LIDENT: {
    const fsp_binding_t *b = fsp_find_binding(c, t->text);
    if (b) return b->value;
    if (c->live) fsp_fail(c, t->loc, "undefined name '%s'", t->text);
    return fsp_ival(0);
  }
  default: fsp_fail(c, t->loc, "expected an expression, found '%s'", fsp_describe(t));
  }
}

/* Precedence climbing over C's binary operators. */
static int prec(fsp_tok_kind_t k) {
  switch (k) {
  case FSP_TOK_OROR: return 1;
  case FSP_TOK_ANDAND: return 2;
  case FSP_TOK_BAR: return 3;
  case FSP_TOK_CARET: return 4;
  case FSP_TOK_AMP: return 5;
  case FSP_TOK_EQ:
  case FSP_TOK_NE: return 6;
  case FSP_TOK_LT:
  case FSP_TOK_LE:
  case FSP_TOK_GT:
  case FSP_TOK_GE: return 7;
  case FSP_TOK_SHL:
  case FSP_TOK_SHR: return 8;
  case FSP_TOK_PLUS:
  case FSP_TOK_MINUS: return 9;
  case FSP_TOK_STAR:
  case FSP_TOK_SLASH:
  case FSP_TOK_PERCENT: return 10;
  default: return 0;
  }
}

static fsp_val_t binary(fsp_ctx_t *c, int min) {
  fsp_val_t a = primary(c);
  for (;;) {
    const fsp_token_t *op = peek(c);
    int p = prec(op->kind);
    if (p == 0 || p < min) return a;
    next(c);
    fsp_val_t bv = binary(c, p + 1);
    if ((op->kind == FSP_TOK_EQ || op->kind == FSP_TOK_NE) && (a.str || bv.str)) {
      bool eq = a.str && bv.str ? strcmp(a.s, bv.s) == 0 : false;
      a = fsp_ival(op->kind == FSP_TOK_EQ ? eq : !eq);
      continue;
    }
    long long x = as_int(c, a, op->loc), y = as_int(c, bv, op->loc), r = 0;
    bool overflow = false;
    switch (op->kind) {
    case FSP_TOK_OROR: r = x || y; break;
    case FSP_TOK_ANDAND: r = x && y; break;
    case FSP_TOK_BAR: r = x | y; break;
    case FSP_TOK_CARET: r = x ^ y; break;
    case FSP_TOK_AMP: r = x & y; break;
    case FSP_TOK_EQ: r = x == y; break;
    case FSP_TOK_NE: r = x != y; break;
    case FSP_TOK_LT: r = x < y; break;
    case FSP_TOK_LE: r = x <= y; break;
    case FSP_TOK_GT: r = x > y; break;
    case FSP_TOK_GE: r = x >= y; break;
    case FSP_TOK_SHL:
    case FSP_TOK_SHR:
      if (y < 0 || y > 62) {
        if (c->live) fsp_fail(c, op->loc, "shift by %lld (expected 0..62)", y);
      } else if (op->kind == FSP_TOK_SHR)
        r = x >= 0 ? x >> y : -((-(x + 1)) >> y) - 1;
      else if (__builtin_mul_overflow(x, 1LL << y, &r))
        overflow = true;
      break;
    case FSP_TOK_PLUS: overflow = __builtin_add_overflow(x, y, &r); break;
    case FSP_TOK_MINUS: overflow = __builtin_sub_overflow(x, y, &r); break;
    case FSP_TOK_STAR: overflow = __builtin_mul_overflow(x, y, &r); break;
    case FSP_TOK_SLASH:
    case FSP_TOK_PERCENT:
      if (y == 0) {
        if (c->live) fsp_fail(c, op->loc, "division by zero");
      } else if (x == LLONG_MIN && y == -1)
        overflow = op->kind == FSP_TOK_SLASH;
      else
        r = op->kind == FSP_TOK_SLASH ? x / y : x % y;
      break;
    default: break;
    }
    if (overflow) {
      if (c->live) fsp_fail(c, op->loc, "integer overflow in '%lld %s %lld'", x, op->text, y);
      r = 0;
    }
    a = fsp_ival(r);
  }
}

/* LTSA's conditional: e ? a : b is not supported; plain C operators are. */
fsp_val_t fsp_expr(fsp_ctx_t *c) { return binary(c, 1); }

long long fsp_int_expr(fsp_ctx_t *c) {
  loc_t loc = peek(c)->loc;
  return as_int(c, fsp_expr(c), loc);
}

/* ------------------------------------------------------ label patterns */

/* An action label is a sequence of parts; each part contributes one or
 * more strings and may bind a variable. Patterns are re-read from tokens
 * at every enumeration, so they are just token positions here. */
typedef struct {
  fsp_ctx_t *c;
  strbuf_t *sb; /* registered in c->owned_bufs while enumerating */
  fsp_label_fn fn;
  void *data;
  bool called;
  long count; /* labels enumerated so far */
  loc_t at;   /* where the pattern starts */
} enum_t;

/* Keywords that start a declaration: `{a}.const` ends a definition. */
static bool is_decl_keyword(const fsp_token_t *t) {
  static const char *const kws[] = {"const",         "range",      "set",         "menu",      "property",
                                    "fluent",        "assert",     "progress",    "animation", "minimal",
                                    "deterministic", "constraint", "ltl_property"};
  for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
    if (fsp_is_kw(t, kws[i])) return true;
  return false;
}

/* After a label part: does ". x" continue the label? */
static bool dot_continues(const fsp_ctx_t *c) {
  const fsp_token_t *n = peek2(c);
  return at(c, FSP_TOK_DOT) && (n->kind == FSP_TOK_LBRACE || n->kind == FSP_TOK_INT ||
                                (n->kind == FSP_TOK_LIDENT && !is_decl_keyword(n)));
}

/* Whether the tokens at the cursor start an action label. */
bool fsp_starts_label(const fsp_ctx_t *c) {
  return (at(c, FSP_TOK_LIDENT) && !fsp_is_kw(peek(c), "if")) || at(c, FSP_TOK_LBRACE) ||
         at(c, FSP_TOK_LBRACK);
}

static void enum_parts(enum_t *e, size_t pos, size_t first);

/* A label buffer that a failure (longjmp) releases: a stack in ctx. */
static strbuf_t *open_buf(fsp_ctx_t *c) {
  strbuf_t *sb = xmalloc(sizeof *sb);
  strbuf_init(sb);
  strbuf_puts(sb, "");
  VEC_PUSH(&c->bufs, sb);
  return sb;
}

static void close_buf(fsp_ctx_t *c) {
  strbuf_t *sb = VEC_POP(&c->bufs);
  strbuf_free(sb);
  free(sb);
}

static void collect_cb(fsp_ctx_t *c, const char *label, void *data) {
  (void)c;
  VEC_PUSH(((fsp_strvec_t *)data), label);
}

/* Enumerates label pattern at the cursor, calling fn(label) for every value
 * with its bindings pushed. Leaves the cursor after the pattern. */
void fsp_enum_label(fsp_ctx_t *c, fsp_label_fn fn, void *data) {
  size_t start = c->pos;
  fsp_skip_label(c);
  size_t end = c->pos;
  enum_t e = {c, open_buf(c), fn, data, false, 0, c->f->toks[start].loc};
  if (c->live) enum_parts(&e, start, 1);
  close_buf(c);
  c->pos = end;
}

/* Collects all the labels of the pattern at the cursor (no bindings kept). */
void fsp_labels_of(fsp_ctx_t *c, fsp_strvec_t *out) { fsp_enum_label(c, collect_cb, out); }

const char *fsp_label_dup(fsp_ctx_t *c, const char *s) { return arena_strdup(&c->f->arena, s); }

/* Appends a value to the label being built: numbers in brackets, names
 * after a dot. */
void fsp_put_value(strbuf_t *sb, fsp_val_t v) {
  if (v.str)
    strbuf_printf(sb, ".%s", v.s);
  else
    strbuf_printf(sb, "[%lld]", v.i);
}

/* Skips an index part [...] of a label, checking its syntax only. */
static void skip_index(fsp_ctx_t *c) {
  fsp_expect(c, FSP_TOK_LBRACK, "'['");
  bool live = c->live;
  c->live = false;
  if (at(c, FSP_TOK_LIDENT) && peek2(c)->kind == FSP_TOK_COLON) {
    next(c);
    next(c);
  }
  if (at(c, FSP_TOK_LBRACE)) {
    next(c);
    if (!at(c, FSP_TOK_RBRACE)) do
        fsp_skip_label(c);
      while (accept(c, FSP_TOK_COMMA));
    fsp_expect(c, FSP_TOK_RBRACE, "'}'");
  } else {
    fsp_expr(c);
    if (accept(c, FSP_TOK_DOTDOT)) fsp_expr(c);
  }
  c->live = live;
  fsp_expect(c, FSP_TOK_RBRACK, "']'");
}

void fsp_skip_label(fsp_ctx_t *c) {
  bool first = true;
  for (;;) {
    if (at(c, FSP_TOK_LIDENT) && first)
      next(c);
    else if (at(c, FSP_TOK_LBRACE) && first) {
      next(c);
      if (!at(c, FSP_TOK_RBRACE)) do {
          if (at(c, FSP_TOK_UIDENT))
            next(c);
          else
            fsp_skip_label(c);
        } while (accept(c, FSP_TOK_COMMA));
      fsp_expect(c, FSP_TOK_RBRACE, "'}'");
    } else if (at(c, FSP_TOK_LBRACK))
      skip_index(c);
    else if (!first && dot_continues(c)) {
      next(c);
      if (at(c, FSP_TOK_INT))
        next(c);
      else {
        first = true;
        continue;
      }
    } else if (first)
      fsp_fail(c, peek(c)->loc, "expected an action label, found '%s'", fsp_describe(peek(c)));
    else
      return;
    first = false;
  }
}

typedef struct {
  enum_t *e;
  size_t rest; /* token index after the element */
  size_t base; /* sb length before */
} set_elem_t;

static void set_elem_cb(fsp_ctx_t *c, const char *label, void *data) {
  set_elem_t *se = data;
  enum_t *e = se->e;
  size_t keep = e->sb->len;
  strbuf_puts(e->sb, label);
  size_t pos = c->pos;
  enum_parts(e, se->rest, 0);
  c->pos = pos;
  e->sb->len = keep;
  e->sb->data[keep] = '\0';
}

/* Enumerates the pattern from token `pos`; `first` says whether the next
 * part starts the label (no separator). */
static void enum_parts(enum_t *e, size_t pos, size_t first) {
  fsp_ctx_t *c = e->c;
  c->pos = pos;
  size_t keep = e->sb->len;
  const fsp_token_t *t = peek(c);
  fsp_nest(c, t->loc);
  if (t->kind == FSP_TOK_LIDENT && first) {
    next(c);
    strbuf_puts(e->sb, t->text);
    enum_parts(e, c->pos, 0);
  } else if (t->kind == FSP_TOK_LBRACE && first) {
    /* each element is a label pattern or a named set */
    next(c);
    VEC(size_t) elems = {0};
    size_t slot = c->owned.len; /* elems.data, released on failure (a bad label, no '}') */
    VEC_PUSH(&c->owned, NULL);
    if (!at(c, FSP_TOK_RBRACE)) do {
        VEC_PUSH(&elems, c->pos);
        c->owned.data[slot] = elems.data;
        if (at(c, FSP_TOK_UIDENT))
          next(c);
        else
          fsp_skip_label(c);
      } while (accept(c, FSP_TOK_COMMA));
    fsp_expect(c, FSP_TOK_RBRACE, "'}'");
    size_t rest = c->pos;
    for (size_t i = 0; i < elems.len; i++) {
      c->pos = elems.data[i];
      if (at(c, FSP_TOK_UIDENT)) {
        const fsp_named_set_t *s = fsp_find_set(c->f, peek(c)->text);
        if (!s) fsp_fail(c, peek(c)->loc, "undefined set '%s'", peek(c)->text);
        for (size_t k = 0; k < s->count; k++) {
          strbuf_puts(e->sb, s->items[k]);
          enum_parts(e, rest, 0);
          e->sb->len = keep;
          e->sb->data[keep] = '\0';
        }
        continue;
      }
      set_elem_t se = {e, rest, keep};
      enum_t inner = {c, open_buf(c), set_elem_cb, &se, false, 0, c->f->toks[elems.data[i]].loc};
      enum_parts(&inner, elems.data[i], 1);
      close_buf(c);
    }
    c->owned.len--;
    VEC_FREE(&elems);
  } else if (t->kind == FSP_TOK_LBRACK) {
    next(c);
    const char *var = NULL;
    if (at(c, FSP_TOK_LIDENT) && peek2(c)->kind == FSP_TOK_COLON) {
      var = next(c)->text;
      next(c);
    }
    /* the domain: named range/set, set literal, lo..hi, or one value */
    VEC(fsp_val_t) vals = {0};
    if (at(c, FSP_TOK_UIDENT) && peek2(c)->kind == FSP_TOK_RBRACK &&
        (fsp_find_range(c->f, peek(c)->text) || fsp_find_set(c->f, peek(c)->text))) {
      const fsp_named_range_t *r = fsp_find_range(c->f, peek(c)->text);
      if (r) fsp_check_range(c, peek(c)->loc, r->lo, r->hi);
      if (r)
        for (long long v = r->lo; v <= r->hi; v++) VEC_PUSH(&vals, fsp_ival(v));
      else {
        const fsp_named_set_t *s = fsp_find_set(c->f, peek(c)->text);
        for (size_t k = 0; k < s->count; k++) VEC_PUSH(&vals, ((fsp_val_t){true, 0, s->items[k]}));
      }
      next(c);
    } else if (at(c, FSP_TOK_LBRACE)) {
      fsp_strvec_t *items = fsp_open_strs(c); /* released by a failure's longjmp too */
      fsp_labels_of(c, items);
      for (size_t k = 0; k < items->len; k++) VEC_PUSH(&vals, ((fsp_val_t){true, 0, items->data[k]}));
      fsp_close_strs(c);
    } else {
      loc_t l1 = peek(c)->loc;
      fsp_val_t lo = fsp_expr(c);
      if (accept(c, FSP_TOK_DOTDOT)) {
        loc_t l2 = peek(c)->loc;
        long long hi = fsp_int_expr(c);
        long long from = as_int(c, lo, l2);
        fsp_check_range(c, l1, from, hi);
        for (long long v = from; v <= hi; v++) VEC_PUSH(&vals, fsp_ival(v));
      } else
        VEC_PUSH(&vals, lo);
    }
    VEC_PUSH(&c->owned, vals.data); /* released on failure, a missing ']' included */
    fsp_expect(c, FSP_TOK_RBRACK, "']'");
    size_t rest = c->pos;
    for (size_t k = 0; k < vals.len; k++) {
      if (keep == 0 && vals.data[k].str)
        strbuf_puts(e->sb, vals.data[k].s); /* a label that starts with [s] is s, not ".s" */
      else
        fsp_put_value(e->sb, vals.data[k]);
      if (var) fsp_push_binding(c, var, vals.data[k]);
      enum_parts(e, rest, 0);
      if (var) c->env.len--;
      e->sb->len = keep;
      e->sb->data[keep] = '\0';
    }
    c->owned.len--;
    VEC_FREE(&vals);
  } else if (t->kind == FSP_TOK_DOT && !first && dot_continues(c)) {
    next(c);
    if (at(c, FSP_TOK_INT)) {
      strbuf_printf(e->sb, "[%lld]", next(c)->value);
      enum_parts(e, c->pos, 0);
    } else {
      strbuf_putc(e->sb, '.');
      enum_parts(e, c->pos, 1);
    }
  } else {
    /* end of the pattern */
    size_t end = c->pos;
    if (++e->count > c->f->max_states)
      fsp_fail_limit(c, e->at, "this action label stands for too many labels");
    e->fn(c, fsp_label_dup(c, strbuf_str(e->sb)), e->data);
    c->pos = end;
  }
  e->sb->len = keep;
  if (e->sb->data) e->sb->data[keep] = '\0';
  fsp_unnest(c);
}

/* A set expression `{...}` or a named set: all its labels. */
void fsp_set_expr(fsp_ctx_t *c, fsp_strvec_t *out) {
  if (at(c, FSP_TOK_UIDENT)) {
    const fsp_token_t *t = next(c);
    const fsp_named_set_t *s = fsp_find_set(c->f, t->text);
    if (!s) {
      if (c->live) fsp_fail(c, t->loc, "undefined set '%s'", t->text);
      return;
    }
    for (size_t k = 0; k < s->count; k++) VEC_PUSH(out, s->items[k]);
    return;
  }
  if (!at(c, FSP_TOK_LBRACE)) fsp_fail(c, peek(c)->loc, "expected a set, found '%s'", fsp_describe(peek(c)));
  fsp_labels_of(c, out);
}

fsp_strvec_t *fsp_open_strs(fsp_ctx_t *c) {
  fsp_strvec_t *v = xcalloc(1, sizeof *v);
  VEC_PUSH(&c->strs, v);
  return v;
}

void fsp_close_strs(fsp_ctx_t *c) {
  fsp_strvec_t *v = VEC_POP(&c->strs);
  VEC_FREE(v);
  free(v);
}
