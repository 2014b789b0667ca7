#include "verifier/fsp.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/intern.h"
#include "ism/strbuf.h"
#include "ism/vec.h"

/* The compiler is a parser-evaluator over a token array: a process body is
 * re-read from its first token for every instantiation (local process with
 * index values, label binding), with an environment of bindings. In
 * "dead" mode (false guard, first syntax pass) it only checks syntax. */

/* ---------------------------------------------------------------- lexer */

typedef enum {
  T_EOF, T_UIDENT, T_LIDENT, T_INT, T_STRING,
  T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_LBRACE, T_RBRACE,
  T_COMMA, T_DOT, T_DOTDOT, T_COLON, T_COLONCOLON, T_ASSIGN, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
  T_SHL, T_SHR, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_NOT, T_ANDAND, T_OROR, T_BAR, T_AMP,
  T_CARET, T_ARROW, T_BACKSLASH, T_AT, T_QUESTION, T_SEMI
} tok_kind_t;

typedef struct {
  tok_kind_t kind;
  loc_t loc;
  const char *text; /* arena copy of the spelling */
  long long value;  /* T_INT */
} token_t;

/* ------------------------------------------------------------ the file */

typedef struct {
  bool str;
  long long i;
  const char *s;
} val_t;

typedef struct {
  const char *name;
  val_t value;
} binding_t;

typedef struct {
  const char *name;
  const char **items;
  size_t count;
} named_set_t;

typedef struct {
  const char *name;
  long long lo, hi;
} named_range_t;

typedef struct {
  const char *name;
  size_t body; /* token index of the body (after '=') */
  size_t nidx; /* number of index declarations */
  size_t idx;  /* token index of the first '[' of the declarations */
} local_def_t;

typedef struct {
  const char *name;
  loc_t loc;
  bool composite, property;
  size_t params; /* token index of '(' of the parameter list, or 0 */
  size_t nparams;
  VEC(local_def_t) locals; /* primitive: locals.data[0] is the main process */
  size_t body;    /* composite: token index of the body */
  size_t trailer; /* token index of the trailer (+{} / \ @) before '.' */
} proc_def_t;

struct fsp_file {
  arena_t arena;
  lts_labels_t *labels;
  const char *path;
  token_t *toks;
  size_t ntoks;
  VEC(binding_t) consts;
  VEC(named_range_t) ranges;
  VEC(named_set_t) sets;
  VEC(named_set_t) menus;
  VEC(proc_def_t) procs;
};

/* --------------------------------------------------------- the context */

typedef VEC(lts_t *) ltsvec_t;

typedef struct {
  const char *label; /* value */
} str_item_t;

typedef VEC(const char *) strvec_t;

typedef struct {
  fsp_file_t *f;
  diag_list_t *d;
  jmp_buf fail;
  size_t pos;
  bool live;
  VEC(binding_t) env;
  /* resources to release on failure */
  VEC(lts_t *) temps;
  VEC(lts_builder_t *) builders;
  VEC(intern_t *) interns;
  /* the primitive process being compiled */
  proc_def_t *proc;
  lts_builder_t *b;
  intern_t *inst;       /* instance key -> index in inst_state */
  VEC(int) inst_state;  /* state of an instance; -2 while an alias resolves */
  VEC(size_t) work_local; /* worklist of (local, env snapshot, state) */
  VEC(int) work_state;
  VEC(binding_t *) work_env;
  VEC(void *) owned; /* a stack of heap blocks freed on failure */
  VEC(strbuf_t *) bufs; /* label buffers being built, freed on failure */
  VEC(ltsvec_t *) lists; /* composition element lists being built, freed on failure */
  VEC(strvec_t *) strs;  /* label lists being built, freed on failure */
  VEC(size_t) work_nenv;
  int stop, end, error;
  int depth;
  size_t param_len; /* bindings of the process parameters at the bottom of env */
} ctx_t;

static strvec_t *open_strs(ctx_t *c);
static void close_strs(ctx_t *c);
static lts_t *relabelled(ctx_t *c, lts_t *l);
static lts_t *hide_or_restrict(ctx_t *c, lts_t *l);
static void fail(ctx_t *c, loc_t loc, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));
static void fail(ctx_t *c, loc_t loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  diag_error(c->d, loc, "%s", buf);
  longjmp(c->fail, 1);
}

static const token_t *peek(const ctx_t *c) { return &c->f->toks[c->pos]; }
static const token_t *peek2(const ctx_t *c) {
  return &c->f->toks[c->pos + 1 < c->f->ntoks ? c->pos + 1 : c->pos];
}
static bool at(const ctx_t *c, tok_kind_t k) { return peek(c)->kind == k; }
static const token_t *next(ctx_t *c) {
  const token_t *t = peek(c);
  if (t->kind != T_EOF) c->pos++;
  return t;
}
static bool accept(ctx_t *c, tok_kind_t k) {
  if (!at(c, k)) return false;
  next(c);
  return true;
}

static const char *describe(const token_t *t) { return t->kind == T_EOF ? "end of file" : t->text; }

static const token_t *expect(ctx_t *c, tok_kind_t k, const char *what) {
  if (!at(c, k)) fail(c, peek(c)->loc, "expected %s, found '%s'", what, describe(peek(c)));
  return next(c);
}

static bool is_kw(const token_t *t, const char *kw) {
  return (t->kind == T_UIDENT || t->kind == T_LIDENT) && strcmp(t->text, kw) == 0;
}

/* ------------------------------------------------------------- lexing */

static bool lex(fsp_file_t *f, const char *path, const char *text, diag_list_t *d) {
  VEC(token_t) toks = {0};
  int line = 1, col = 1;
  const char *p = text;
  bool ok = true;
  while (ok) {
    /* whitespace and comments */
    for (;;) {
      if (*p == '\n') { line++; col = 1; p++; }
      else if (isspace((unsigned char)*p)) { col++; p++; }
      else if (p[0] == '/' && p[1] == '/') { while (*p && *p != '\n') p++; }
      else if (p[0] == '/' && p[1] == '*') {
        loc_t at_loc = {path, line, col};
        p += 2; col += 2;
        while (*p && !(p[0] == '*' && p[1] == '/')) {
          if (*p == '\n') { line++; col = 1; } else col++;
          p++;
        }
        if (!*p) { diag_error(d, at_loc, "unterminated comment"); ok = false; break; }
        p += 2; col += 2;
      } else break;
    }
    if (!ok) break;
    token_t t = {.loc = {path, line, col}};
    const char *start = p;
    if (!*p) {
      t.kind = T_EOF;
      t.text = "";
      VEC_PUSH(&toks, t);
      break;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
      while (isalnum((unsigned char)*p) || *p == '_') p++;
      t.kind = isupper((unsigned char)*start) ? T_UIDENT : T_LIDENT;
    } else if (isdigit((unsigned char)*p)) {
      while (isdigit((unsigned char)*p)) p++;
      t.kind = T_INT;
      t.value = strtoll(start, NULL, 10);
      if (p - start > 15) { diag_error(d, t.loc, "integer '%.*s' is too large", (int)(p - start), start); ok = false; break; }
    } else if (*p == '"') {
      p++;
      while (*p && *p != '"' && *p != '\n') p++;
      if (*p != '"') { diag_error(d, t.loc, "unterminated string"); ok = false; break; }
      p++;
      t.kind = T_STRING;
    } else {
      static const struct { const char *s; tok_kind_t k; } ops[] = {
        {"..", T_DOTDOT}, {"::", T_COLONCOLON}, {"==", T_EQ}, {"!=", T_NE}, {"<=", T_LE}, {">=", T_GE},
        {"<<", T_SHL}, {">>", T_SHR}, {"&&", T_ANDAND}, {"||", T_OROR}, {"->", T_ARROW},
        {"(", T_LPAREN}, {")", T_RPAREN}, {"[", T_LBRACK}, {"]", T_RBRACK}, {"{", T_LBRACE}, {"}", T_RBRACE},
        {",", T_COMMA}, {".", T_DOT}, {":", T_COLON}, {"=", T_ASSIGN}, {"<", T_LT}, {">", T_GT}, {"+", T_PLUS},
        {"-", T_MINUS}, {"*", T_STAR}, {"/", T_SLASH}, {"%", T_PERCENT}, {"!", T_NOT}, {"|", T_BAR},
        {"&", T_AMP}, {"^", T_CARET}, {"\\", T_BACKSLASH}, {"@", T_AT}, {"?", T_QUESTION}, {";", T_SEMI}};
      size_t i = 0;
      for (; i < sizeof ops / sizeof ops[0]; i++)
        if (strncmp(p, ops[i].s, strlen(ops[i].s)) == 0) break;
      if (i == sizeof ops / sizeof ops[0]) {
        if ((unsigned char)*p >= 0x80) diag_error(d, t.loc, "unexpected non-ASCII character");
        else diag_error(d, t.loc, "unexpected character '%c'", *p);
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

static const binding_t *find_binding(const ctx_t *c, const char *name) {
  for (size_t i = c->env.len; i-- > 0;)
    if (strcmp(c->env.data[i].name, name) == 0) return &c->env.data[i];
  for (size_t i = 0; i < c->f->consts.len; i++)
    if (strcmp(c->f->consts.data[i].name, name) == 0) return &c->f->consts.data[i];
  return NULL;
}

static const named_range_t *find_range(const fsp_file_t *f, const char *name) {
  for (size_t i = 0; i < f->ranges.len; i++)
    if (strcmp(f->ranges.data[i].name, name) == 0) return &f->ranges.data[i];
  return NULL;
}

static const named_set_t *find_set(const fsp_file_t *f, const char *name) {
  for (size_t i = 0; i < f->sets.len; i++)
    if (strcmp(f->sets.data[i].name, name) == 0) return &f->sets.data[i];
  return NULL;
}

static proc_def_t *find_proc(const fsp_file_t *f, const char *name) {
  for (size_t i = 0; i < f->procs.len; i++)
    if (strcmp(f->procs.data[i].name, name) == 0) return &f->procs.data[i];
  return NULL;
}

static void push_binding(ctx_t *c, const char *name, val_t v) { VEC_PUSH(&c->env, ((binding_t){name, v})); }

/* -------------------------------------------------------- expressions */

static val_t expr(ctx_t *c);

static long long as_int(ctx_t *c, val_t v, loc_t loc) {
  if (v.str && c->live) fail(c, loc, "expected a number, found the label '%s'", v.s);
  return v.str ? 0 : v.i;
}

static val_t ival(long long i) { return (val_t){false, i, NULL}; }

static val_t primary(ctx_t *c) {
  const token_t *t = next(c);
  switch (t->kind) {
  case T_INT: return ival(t->value);
  case T_LPAREN: {
    val_t v = expr(c);
    expect(c, T_RPAREN, "')'");
    return v;
  }
  case T_MINUS: return ival(-as_int(c, primary(c), t->loc));
  case T_PLUS: return ival(as_int(c, primary(c), t->loc));
  case T_NOT: return ival(!as_int(c, primary(c), t->loc));
  case T_UIDENT:
  case T_LIDENT: {
    const binding_t *b = find_binding(c, t->text);
    if (b) return b->value;
    if (c->live) fail(c, t->loc, "undefined name '%s'", t->text);
    return ival(0);
  }
  default: fail(c, t->loc, "expected an expression, found '%s'", describe(t));
  }
}

/* Precedence climbing over C's binary operators. */
static int prec(tok_kind_t k) {
  switch (k) {
  case T_OROR: return 1;
  case T_ANDAND: return 2;
  case T_BAR: return 3;
  case T_CARET: return 4;
  case T_AMP: return 5;
  case T_EQ: case T_NE: return 6;
  case T_LT: case T_LE: case T_GT: case T_GE: return 7;
  case T_SHL: case T_SHR: return 8;
  case T_PLUS: case T_MINUS: return 9;
  case T_STAR: case T_SLASH: case T_PERCENT: return 10;
  default: return 0;
  }
}

static val_t binary(ctx_t *c, int min) {
  val_t a = primary(c);
  for (;;) {
    const token_t *op = peek(c);
    int p = prec(op->kind);
    if (p == 0 || p < min) return a;
    next(c);
    val_t bv = binary(c, p + 1);
    if ((op->kind == T_EQ || op->kind == T_NE) && (a.str || bv.str)) {
      bool eq = a.str && bv.str ? strcmp(a.s, bv.s) == 0 : false;
      a = ival(op->kind == T_EQ ? eq : !eq);
      continue;
    }
    long long x = as_int(c, a, op->loc), y = as_int(c, bv, op->loc), r = 0;
    switch (op->kind) {
    case T_OROR: r = x || y; break;
    case T_ANDAND: r = x && y; break;
    case T_BAR: r = x | y; break;
    case T_CARET: r = x ^ y; break;
    case T_AMP: r = x & y; break;
    case T_EQ: r = x == y; break;
    case T_NE: r = x != y; break;
    case T_LT: r = x < y; break;
    case T_LE: r = x <= y; break;
    case T_GT: r = x > y; break;
    case T_GE: r = x >= y; break;
    case T_SHL: r = (y >= 0 && y < 62) ? x << y : 0; break;
    case T_SHR: r = (y >= 0 && y < 62) ? x >> y : 0; break;
    case T_PLUS: r = x + y; break;
    case T_MINUS: r = x - y; break;
    case T_STAR: r = x * y; break;
    case T_SLASH:
    case T_PERCENT:
      if (y == 0) {
        if (c->live) fail(c, op->loc, "division by zero");
        r = 0;
      } else r = op->kind == T_SLASH ? x / y : x % y;
      break;
    default: break;
    }
    a = ival(r);
  }
}

/* LTSA's conditional: e ? a : b is not supported; plain C operators are. */
static val_t expr(ctx_t *c) { return binary(c, 1); }

static long long int_expr(ctx_t *c) {
  loc_t loc = peek(c)->loc;
  return as_int(c, expr(c), loc);
}

/* ------------------------------------------------------ label patterns */

/* An action label is a sequence of parts; each part contributes one or
 * more strings and may bind a variable. Patterns are re-read from tokens
 * at every enumeration, so they are just token positions here. */
typedef void (*label_fn)(ctx_t *c, const char *label, void *data);

typedef struct {
  ctx_t *c;
  strbuf_t *sb; /* registered in c->owned_bufs while enumerating */
  label_fn fn;
  void *data;
  bool called;
} enum_t;

/* Whether the tokens at the cursor start an action label. */
/* Keywords that start a declaration: `{a}.const` ends a definition. */
static bool is_decl_keyword(const token_t *t) {
  static const char *const kws[] = {"const", "range", "set", "menu", "property", "fluent", "assert", "progress",
                                    "animation", "minimal", "deterministic", "constraint", "ltl_property"};
  for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
    if (is_kw(t, kws[i])) return true;
  return false;
}

/* After a label part: does ". x" continue the label? */
static bool dot_continues(const ctx_t *c) {
  const token_t *n = peek2(c);
  return at(c, T_DOT) && (n->kind == T_LBRACE || n->kind == T_INT || (n->kind == T_LIDENT && !is_decl_keyword(n)));
}

static bool starts_label(const ctx_t *c) {
  return (at(c, T_LIDENT) && !is_kw(peek(c), "if")) || at(c, T_LBRACE) || at(c, T_LBRACK);
}

static void skip_label(ctx_t *c);
static void enum_parts(enum_t *e, size_t pos, size_t first);

/* A label buffer that a failure (longjmp) releases: a stack in ctx. */
static strbuf_t *open_buf(ctx_t *c) {
  strbuf_t *sb = xmalloc(sizeof *sb);
  strbuf_init(sb);
  strbuf_puts(sb, "");
  VEC_PUSH(&c->bufs, sb);
  return sb;
}

static void close_buf(ctx_t *c) {
  strbuf_t *sb = VEC_POP(&c->bufs);
  strbuf_free(sb);
  free(sb);
}

/* Enumerates the values of a set literal {l1, l2, ...} at pos (each
 * element itself a label pattern); calls back with each string. */
typedef struct {
  strvec_t *out;
} collect_t;

static void collect_cb(ctx_t *c, const char *label, void *data) {
  (void)c;
  VEC_PUSH(((strvec_t *)data), label);
}

/* Enumerates label pattern at the cursor, calling fn(label) for every value
 * with its bindings pushed. Leaves the cursor after the pattern. */
static void enum_label(ctx_t *c, label_fn fn, void *data) {
  size_t start = c->pos;
  skip_label(c);
  size_t end = c->pos;
  enum_t e = {c, open_buf(c), fn, data, false};
  if (c->live) enum_parts(&e, start, 1);
  close_buf(c);
  c->pos = end;
}

/* Collects all the labels of the pattern at the cursor (no bindings kept). */
static void labels_of(ctx_t *c, strvec_t *out) { enum_label(c, collect_cb, out); }

static const char *label_dup(ctx_t *c, const char *s) { return arena_strdup(&c->f->arena, s); }

/* Appends a value to the label being built: numbers in brackets, names
 * after a dot. */
static void put_value(strbuf_t *sb, val_t v) {
  if (v.str) strbuf_printf(sb, ".%s", v.s);
  else strbuf_printf(sb, "[%lld]", v.i);
}

/* Syntax of one part; returns false at the end of the pattern. */
static void skip_index(ctx_t *c) {
  expect(c, T_LBRACK, "'['");
  bool live = c->live;
  c->live = false;
  if (at(c, T_LIDENT) && peek2(c)->kind == T_COLON) {
    next(c);
    next(c);
  }
  if (at(c, T_LBRACE)) {
    next(c);
    if (!at(c, T_RBRACE))
      do skip_label(c); while (accept(c, T_COMMA));
    expect(c, T_RBRACE, "'}'");
  } else {
    expr(c);
    if (accept(c, T_DOTDOT)) expr(c);
  }
  c->live = live;
  expect(c, T_RBRACK, "']'");
}

static void skip_label(ctx_t *c) {
  bool first = true;
  for (;;) {
    if (at(c, T_LIDENT) && first) next(c);
    else if (at(c, T_LBRACE) && first) {
      next(c);
      if (!at(c, T_RBRACE))
        do {
          if (at(c, T_UIDENT)) next(c);
          else skip_label(c);
        } while (accept(c, T_COMMA));
      expect(c, T_RBRACE, "'}'");
    } else if (at(c, T_LBRACK)) skip_index(c);
    else if (!first && dot_continues(c)) {
      next(c);
      if (at(c, T_INT)) next(c);
      else {
        first = true;
        continue;
      }
    } else if (first) fail(c, peek(c)->loc, "expected an action label, found '%s'", describe(peek(c)));
    else return;
    first = false;
  }
}

typedef struct {
  enum_t *e;
  size_t rest; /* token index after the element */
  size_t base; /* sb length before */
} set_elem_t;

static void set_elem_cb(ctx_t *c, const char *label, void *data) {
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
  ctx_t *c = e->c;
  c->pos = pos;
  size_t keep = e->sb->len;
  const token_t *t = peek(c);
  if (t->kind == T_LIDENT && first) {
    next(c);
    strbuf_puts(e->sb, t->text);
    enum_parts(e, c->pos, 0);
  } else if (t->kind == T_LBRACE && first) {
    /* each element is a label pattern or a named set */
    next(c);
    VEC(size_t) elems = {0};
    if (!at(c, T_RBRACE))
      do {
        VEC_PUSH(&elems, c->pos);
        if (at(c, T_UIDENT)) next(c);
        else skip_label(c);
      } while (accept(c, T_COMMA));
    expect(c, T_RBRACE, "'}'");
    size_t rest = c->pos;
    VEC_PUSH(&c->owned, elems.data);
    for (size_t i = 0; i < elems.len; i++) {
      c->pos = elems.data[i];
      if (at(c, T_UIDENT)) {
        const named_set_t *s = find_set(c->f, peek(c)->text);
        if (!s) fail(c, peek(c)->loc, "undefined set '%s'", peek(c)->text);
        for (size_t k = 0; k < s->count; k++) {
          strbuf_puts(e->sb, s->items[k]);
          enum_parts(e, rest, 0);
          e->sb->len = keep;
          e->sb->data[keep] = '\0';
        }
        continue;
      }
      set_elem_t se = {e, rest, keep};
      enum_t inner = {c, open_buf(c), set_elem_cb, &se, false};
      enum_parts(&inner, elems.data[i], 1);
      close_buf(c);
    }
    c->owned.len--;
    VEC_FREE(&elems);
  } else if (t->kind == T_LBRACK) {
    next(c);
    const char *var = NULL;
    if (at(c, T_LIDENT) && peek2(c)->kind == T_COLON) {
      var = next(c)->text;
      next(c);
    }
    /* the domain: named range/set, set literal, lo..hi, or one value */
    VEC(val_t) vals = {0};
    if (at(c, T_UIDENT) && peek2(c)->kind == T_RBRACK && (find_range(c->f, peek(c)->text) || find_set(c->f, peek(c)->text))) {
      const named_range_t *r = find_range(c->f, peek(c)->text);
      if (r)
        for (long long v = r->lo; v <= r->hi; v++) VEC_PUSH(&vals, ival(v));
      else {
        const named_set_t *s = find_set(c->f, peek(c)->text);
        for (size_t k = 0; k < s->count; k++) VEC_PUSH(&vals, ((val_t){true, 0, s->items[k]}));
      }
      next(c);
    } else if (at(c, T_LBRACE)) {
      strvec_t items = {0};
      labels_of(c, &items);
      for (size_t k = 0; k < items.len; k++) VEC_PUSH(&vals, ((val_t){true, 0, items.data[k]}));
      VEC_FREE(&items);
    } else {
      val_t lo = expr(c);
      if (accept(c, T_DOTDOT)) {
        loc_t l2 = peek(c)->loc;
        long long hi = int_expr(c);
        for (long long v = as_int(c, lo, l2); v <= hi; v++) VEC_PUSH(&vals, ival(v));
      } else VEC_PUSH(&vals, lo);
    }
    expect(c, T_RBRACK, "']'");
    size_t rest = c->pos;
    VEC_PUSH(&c->owned, vals.data);
    for (size_t k = 0; k < vals.len; k++) {
      put_value(e->sb, vals.data[k]);
      if (var) push_binding(c, var, vals.data[k]);
      enum_parts(e, rest, 0);
      if (var) c->env.len--;
      e->sb->len = keep;
      e->sb->data[keep] = '\0';
    }
    c->owned.len--;
    VEC_FREE(&vals);
  } else if (t->kind == T_DOT && !first && dot_continues(c)) {
    next(c);
    if (at(c, T_INT)) {
      strbuf_printf(e->sb, "[%lld]", next(c)->value);
      enum_parts(e, c->pos, 0);
    } else {
      strbuf_putc(e->sb, '.');
      enum_parts(e, c->pos, 1);
    }
  } else {
    /* end of the pattern */
    size_t end = c->pos;
    e->fn(c, label_dup(c, strbuf_str(e->sb)), e->data);
    c->pos = end;
  }
  e->sb->len = keep;
  if (e->sb->data) e->sb->data[keep] = '\0';
}

/* A set expression `{...}` or a named set: all its labels. */
static void set_expr(ctx_t *c, strvec_t *out) {
  if (at(c, T_UIDENT)) {
    const token_t *t = next(c);
    const named_set_t *s = find_set(c->f, t->text);
    if (!s) {
      if (c->live) fail(c, t->loc, "undefined set '%s'", t->text);
      return;
    }
    for (size_t k = 0; k < s->count; k++) VEC_PUSH(out, s->items[k]);
    return;
  }
  if (!at(c, T_LBRACE)) fail(c, peek(c)->loc, "expected a set, found '%s'", describe(peek(c)));
  labels_of(c, out);
}

/* ------------------------------------------------- primitive processes */

static int new_state(ctx_t *c) { return c->live ? lts_builder_add_state(c->b) : -1; }

static void add_trans(ctx_t *c, int src, const char *label, int dst) {
  if (!c->live) return;
  lts_builder_add(c->b, src, lts_label(c->f->labels, label), dst);
}

static int target(ctx_t *c);
static void choice(ctx_t *c, int src);

/* LTSA tells local processes apart by name and number of indices
 * (ALARM = ALARM[0], ALARM[a:R] = ... is legal). */
static local_def_t *find_local(ctx_t *c, const char *name, size_t nidx) {
  local_def_t *any = NULL;
  for (size_t i = 0; i < c->proc->locals.len; i++)
    if (strcmp(c->proc->locals.data[i].name, name) == 0) {
      if (c->proc->locals.data[i].nidx == nidx) return &c->proc->locals.data[i];
      any = &c->proc->locals.data[i];
    }
  return any;
}

/* Binds the index variables of local `ld` to `vals`, checking ranges. */
static void bind_indices(ctx_t *c, const local_def_t *ld, const val_t *vals, loc_t loc) {
  size_t save = c->pos;
  c->pos = ld->idx;
  for (size_t k = 0; k < ld->nidx; k++) {
    expect(c, T_LBRACK, "'['");
    const char *var = expect(c, T_LIDENT, "an index variable")->text;
    expect(c, T_COLON, "':'");
    long long lo, hi;
    bool in = true;
    if (at(c, T_UIDENT) && peek2(c)->kind == T_RBRACK && find_range(c->f, peek(c)->text)) {
      const named_range_t *r = find_range(c->f, next(c)->text);
      lo = r->lo;
      hi = r->hi;
      in = !vals[k].str && vals[k].i >= lo && vals[k].i <= hi;
    } else if (at(c, T_UIDENT) && peek2(c)->kind == T_RBRACK && find_set(c->f, peek(c)->text)) {
      const named_set_t *s = find_set(c->f, next(c)->text);
      in = false;
      for (size_t i = 0; i < s->count; i++)
        if (vals[k].str && strcmp(vals[k].s, s->items[i]) == 0) in = true;
      lo = hi = 0;
    } else {
      lo = int_expr(c);
      expect(c, T_DOTDOT, "'..'");
      hi = int_expr(c);
      in = !vals[k].str && vals[k].i >= lo && vals[k].i <= hi;
    }
    expect(c, T_RBRACK, "']'");
    if (!in) {
      if (vals[k].str) fail(c, loc, "index '%s' of '%s' is out of its range", vals[k].s, ld->name);
      fail(c, loc, "index %lld of '%s' is out of range %lld..%lld", vals[k].i, ld->name, lo, hi);
    }
    push_binding(c, var, vals[k]);
  }
  c->pos = save;
}

/* The state of local process `ld` at index values `vals`. */
static int instantiate(ctx_t *c, local_def_t *ld, const val_t *vals, size_t nvals, loc_t loc) {
  if (nvals != ld->nidx)
    fail(c, loc, "'%s' takes %zu ind%s, %zu given", ld->name, ld->nidx, ld->nidx == 1 ? "ex" : "ices", nvals);
  strbuf_t key;
  strbuf_init(&key);
  strbuf_puts(&key, ld->name);
  for (size_t k = 0; k < nvals; k++) put_value(&key, vals[k]);
  bool added;
  int id = intern_add2(c->inst, strbuf_str(&key), &added);
  strbuf_free(&key);
  if (!added) {
    int s = c->inst_state.data[id];
    if (s == -2) fail(c, loc, "process '%s' is defined in terms of itself without an action", ld->name);
    return s;
  }
  VEC_PUSH(&c->inst_state, -2);
  size_t env_len = c->env.len;
  binding_t *caller = xmalloc((env_len + 1) * sizeof *caller);
  if (env_len) memcpy(caller, c->env.data, env_len * sizeof *caller);
  VEC_PUSH(&c->owned, caller); /* released on failure; popped below */
  c->env.len = c->param_len;
  bind_indices(c, ld, vals, loc);
  size_t save = c->pos;
  c->pos = ld->body;
  int s;
  if (at(c, T_LPAREN)) {
    s = new_state(c);
    binding_t *snap = xmalloc((c->env.len + 1) * sizeof *snap);
    if (c->env.len) memcpy(snap, c->env.data, c->env.len * sizeof *snap);
    VEC_PUSH(&c->work_local, (size_t)(ld - c->proc->locals.data));
    VEC_PUSH(&c->work_state, s);
    VEC_PUSH(&c->work_env, snap);
    VEC_PUSH(&c->work_nenv, c->env.len);
  } else {
    if (++c->depth > 10000) fail(c, loc, "aliases nest too deeply");
    s = target(c);
    c->depth--;
  }
  c->pos = save;
  c->env.len = 0;
  for (size_t i = 0; i < env_len; i++) VEC_PUSH(&c->env, caller[i]);
  c->owned.len--;
  free(caller);
  c->inst_state.data[id] = s;
  return s;
}

static int special_state(ctx_t *c, int *slot, bool end) {
  if (!c->live) return -1;
  if (*slot < 0) {
    *slot = lts_builder_add_state(c->b);
    if (end) lts_builder_mark_end(c->b, *slot);
  }
  return *slot;
}

/* A process term after '->' or '=': returns its state. */
static int target(ctx_t *c) {
  const token_t *t = peek(c);
  if (is_kw(t, "STOP")) return next(c), special_state(c, &c->stop, false);
  if (is_kw(t, "END")) return next(c), special_state(c, &c->end, true);
  if (is_kw(t, "ERROR")) {
    next(c);
    int s = special_state(c, &c->error, false);
    if (c->live) c->b->error = s;
    return s;
  }
  if (is_kw(t, "if")) {
    next(c);
    bool live = c->live;
    bool cond = int_expr(c) != 0;
    if (!is_kw(peek(c), "then")) fail(c, peek(c)->loc, "expected 'then', found '%s'", describe(peek(c)));
    next(c);
    c->live = live && cond;
    int a = target(c);
    int r = a;
    c->live = live && !cond;
    if (is_kw(peek(c), "else")) {
      next(c);
      r = target(c);
    } else if (live && !cond) r = special_state(c, &c->stop, false);
    c->live = live;
    return cond ? a : r;
  }
  if (t->kind == T_LPAREN) {
    next(c);
    int s = new_state(c);
    choice(c, s);
    expect(c, T_RPAREN, "')'");
    return s;
  }
  if (t->kind == T_UIDENT) {
    next(c);
    val_t vals[16];
    size_t nvals = 0;
    while (accept(c, T_LBRACK)) {
      loc_t l = peek(c)->loc;
      val_t v = expr(c);
      if (nvals == 16) fail(c, l, "more than 16 indices");
      vals[nvals++] = v;
      expect(c, T_RBRACK, "']'");
    }
    if (!c->live) return -1;
    local_def_t *ld = find_local(c, t->text, nvals);
    if (!ld) {
      if (find_proc(c->f, t->text))
        fail(c, t->loc, "'%s' is a top-level process; a process body may only refer to its own local processes", t->text);
      const char *cands[64];
      size_t nc = 0;
      for (size_t i = 0; i < c->proc->locals.len && nc < 64; i++) cands[nc++] = c->proc->locals.data[i].name;
      const char *sug = diag_suggest(t->text, cands, nc);
      if (sug) fail(c, t->loc, "undefined process '%s' (did you mean '%s'?)", t->text, sug);
      fail(c, t->loc, "undefined process '%s'", t->text);
    }
    return instantiate(c, ld, vals, nvals, t->loc);
  }
  fail(c, t->loc, "expected a process (a name, STOP, END, ERROR or '('), found '%s'", describe(t));
}

typedef struct {
  int src;
  size_t after; /* token index after '->' */
  size_t end;
} chain_t;

static void chain_from(ctx_t *c, int src);

static void chain_cb(ctx_t *c, const char *label, void *data) {
  chain_t *ch = data;
  c->pos = ch->after;
  if (starts_label(c)) {
    int s = new_state(c);
    add_trans(c, ch->src, label, s);
    chain_from(c, s);
  } else {
    int dst = target(c);
    add_trans(c, ch->src, label, dst);
  }
  ch->end = c->pos;
}

/* label -> label -> ... -> target, from state src. */
static void chain_from(ctx_t *c, int src) {
  size_t start = c->pos;
  skip_label(c);
  expect(c, T_ARROW, "'->'");
  chain_t ch = {src, c->pos, 0};
  c->pos = start;
  enum_label(c, chain_cb, &ch);
  if (ch.end == 0) {
    /* nothing enumerated (dead code or an empty set): check the syntax */
    bool live = c->live;
    c->live = false;
    chain_cb(c, "", &ch);
    c->live = live;
  }
  c->pos = ch.end;
}

static void choice(ctx_t *c, int src) {
  do {
    bool live = c->live;
    if (is_kw(peek(c), "when")) {
      next(c);
      bool g = int_expr(c) != 0;
      c->live = live && g;
    }
    chain_from(c, src);
    c->live = live;
  } while (accept(c, T_BAR));
}

/* Relabel pairs new/old from `/{...}` at the cursor. */
typedef struct {
  strvec_t *news, *olds; /* opened with open_strs */
} relabel_t;

typedef struct {
  relabel_t *r;
  size_t old_pos;
} relabel_cb_t;

static void relabel_new_cb(ctx_t *c, const char *label, void *data) {
  relabel_cb_t *rc = data;
  size_t save = c->pos;
  c->pos = rc->old_pos;
  strvec_t *olds = open_strs(c);
  labels_of(c, olds);
  for (size_t i = 0; i < olds->len; i++) {
    VEC_PUSH(rc->r->news, label);
    VEC_PUSH(rc->r->olds, olds->data[i]);
  }
  close_strs(c);
  c->pos = save;
}

static void parse_relabel(ctx_t *c, relabel_t *r) {
  expect(c, T_LBRACE, "'{'");
  if (!at(c, T_RBRACE))
    do {
      size_t new_pos = c->pos;
      skip_label(c);
      expect(c, T_SLASH, "'/'");
      size_t old_pos = c->pos;
      skip_label(c);
      size_t end = c->pos;
      c->pos = new_pos;
      relabel_cb_t rc = {r, old_pos};
      enum_label(c, relabel_new_cb, &rc);
      c->pos = end;
    } while (accept(c, T_COMMA));
  expect(c, T_RBRACE, "'}'");
}

static lts_t *keep_temp(ctx_t *c, lts_t *l) {
  VEC_PUSH(&c->temps, l);
  return l;
}

static lts_t *apply_relabel(ctx_t *c, const lts_t *l, const relabel_t *r) {
  lts_builder_t *b = xmalloc(sizeof *b);
  VEC_PUSH(&c->builders, b);
  lts_builder_init(b, c->f->labels);
  b->nstates = l->nstates;
  b->init = l->init;
  b->error = l->error;
  strbuf_t sb;
  strbuf_init(&sb);
  int nlab = (int)c->f->labels->names.count;
  /* map each label once: the list of its new names */
  VEC(int) *map = xcalloc((size_t)nlab, sizeof *map);
  bool *done = xcalloc((size_t)nlab, sizeof *done);
#define MAP_LABEL(lab)                                                                    \
  do {                                                                                    \
    if ((lab) < nlab && !done[lab]) {                                                     \
      done[lab] = true;                                                                   \
      const char *nm = lts_label_name(c->f->labels, (lab));                               \
      for (size_t k = 0; k < r->olds->len; k++)                                            \
        if (lts_label_has_prefix(nm, r->olds->data[k])) {                                  \
          strbuf_clear(&sb);                                                              \
          strbuf_puts(&sb, r->news->data[k]);                                              \
          strbuf_puts(&sb, nm + strlen(r->olds->data[k]));                                 \
          VEC_PUSH(&map[lab], lts_label(c->f->labels, strbuf_str(&sb)));                  \
        }                                                                                 \
      if (map[lab].len == 0) VEC_PUSH(&map[lab], (lab));                                  \
    }                                                                                     \
  } while (0)
  for (int i = 0; i < l->nalphabet; i++) {
    int a = l->alphabet[i];
    MAP_LABEL(a);
    for (size_t k = 0; k < map[a].len; k++) lts_builder_alphabet_add(b, map[a].data[k]);
  }
  for (int s = 0; s < l->nstates; s++) {
    if (l->end && bitset_get(l->end, (size_t)s)) lts_builder_mark_end(b, s);
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      int a = l->succ_label[i];
      if (a == LTS_TAU) {
        lts_builder_add(b, s, a, l->succ_dst[i]);
        continue;
      }
      MAP_LABEL(a);
      for (size_t k = 0; k < map[a].len; k++) lts_builder_add(b, s, map[a].data[k], l->succ_dst[i]);
    }
  }
#undef MAP_LABEL
  for (int i = 0; i < nlab; i++) VEC_FREE(&map[i]);
  free(map);
  free(done);
  strbuf_free(&sb);
  c->builders.len--;
  lts_t *r2 = lts_freeze(b);
  free(b);
  return keep_temp(c, r2);
}

/* The sorted ids of alphabet labels having some prefix in `set`. */
static int matching_labels(ctx_t *c, const lts_t *l, const strvec_t *set, int **out) {
  int *ids = xmalloc(((size_t)l->nalphabet + 1) * sizeof *ids);
  int n = 0;
  for (int i = 0; i < l->nalphabet; i++) {
    const char *nm = lts_label_name(c->f->labels, l->alphabet[i]);
    for (size_t k = 0; k < set->len; k++)
      if (lts_label_has_prefix(nm, set->data[k])) {
        ids[n++] = l->alphabet[i];
        break;
      }
  }
  *out = ids;
  return n;
}

/* The trailer: + {ext} / {relabel} \ {hide} or @ {interface}, then '.'. */
static lts_t *apply_trailer(ctx_t *c, lts_t *l, bool primitive) {
  if (primitive && accept(c, T_PLUS)) {
    strvec_t ext = {0};
    set_expr(c, &ext);
    lts_builder_t b;
    lts_builder_init(&b, c->f->labels);
    for (size_t i = 0; i < ext.len; i++) lts_builder_alphabet_add(&b, lts_label(c->f->labels, ext.data[i]));
    VEC_FREE(&ext);
    /* merge the extension into a copy of l */
    lts_t *cp = lts_copy(l);
    int *alpha = xmalloc(((size_t)cp->nalphabet + b.nalpha + 1) * sizeof *alpha);
    if (cp->nalphabet) memcpy(alpha, cp->alphabet, (size_t)cp->nalphabet * sizeof *alpha);
    if (b.nalpha) memcpy(alpha + cp->nalphabet, b.alpha, b.nalpha * sizeof *alpha);
    int n = cp->nalphabet + (int)b.nalpha;
    lts_builder_free(&b);
    /* sort-unique */
    for (int i = 1; i < n; i++)
      for (int j = i; j > 0 && alpha[j - 1] > alpha[j]; j--) {
        int t = alpha[j];
        alpha[j] = alpha[j - 1];
        alpha[j - 1] = t;
      }
    int m = 0;
    for (int i = 0; i < n; i++)
      if (m == 0 || alpha[m - 1] != alpha[i]) alpha[m++] = alpha[i];
    free(cp->alphabet);
    cp->alphabet = alpha;
    cp->nalphabet = m;
    l = keep_temp(c, cp);
  }
  if (accept(c, T_SLASH)) l = relabelled(c, l);
  if (at(c, T_BACKSLASH) || at(c, T_AT)) l = hide_or_restrict(c, l);
  return l;
}

/* Binds the parameters of `p` to `args` (or to their defaults). */
static void bind_params(ctx_t *c, const proc_def_t *p, const val_t *args, size_t nargs, loc_t loc) {
  if (nargs > p->nparams) fail(c, loc, "'%s' takes %zu parameter%s, %zu given", p->name, p->nparams, p->nparams == 1 ? "" : "s", nargs);
  if (!p->params) return;
  size_t save = c->pos;
  c->pos = p->params;
  expect(c, T_LPAREN, "'('");
  for (size_t k = 0; k < p->nparams; k++) {
    const char *name = next(c)->text;
    expect(c, T_ASSIGN, "'='");
    val_t v = expr(c);
    push_binding(c, name, k < nargs ? args[k] : v);
    accept(c, T_COMMA);
  }
  c->pos = save;
}

static lts_t *compile_primitive(ctx_t *c, proc_def_t *p, const val_t *args, size_t nargs, loc_t loc) {
  proc_def_t *saved_proc = c->proc;
  lts_builder_t *saved_b = c->b;
  intern_t *saved_inst = c->inst;
  int saved_stop = c->stop, saved_end = c->end, saved_error = c->error;
  size_t env_len = c->env.len;
  c->proc = p;
  c->b = xmalloc(sizeof *c->b);
  VEC_PUSH(&c->builders, c->b);
  lts_builder_init(c->b, c->f->labels);
  c->inst = xmalloc(sizeof *c->inst);
  intern_init(c->inst);
  VEC_PUSH(&c->interns, c->inst);
  VEC_CLEAR(&c->inst_state);
  c->stop = c->end = c->error = -1;
  bind_params(c, p, args, nargs, loc);
  c->param_len = c->env.len;
  size_t base_work = c->work_state.len;
  c->b->init = instantiate(c, &p->locals.data[0], NULL, 0, p->loc);
  while (c->work_state.len > base_work) {
    size_t k = c->work_state.len - 1;
    local_def_t *ld = &p->locals.data[c->work_local.data[k]];
    int s = c->work_state.data[k];
    binding_t *snap = c->work_env.data[k];
    size_t nenv = c->work_nenv.data[k];
    c->work_local.len--;
    c->work_state.len--;
    c->work_env.len--;
    c->work_nenv.len--;
    c->env.len = 0;
    for (size_t i = 0; i < nenv; i++) VEC_PUSH(&c->env, snap[i]);
    free(snap);
    c->pos = ld->body;
    expect(c, T_LPAREN, "'('");
    choice(c, s);
    expect(c, T_RPAREN, "')'");
  }
  c->env.len = env_len;
  bind_params(c, p, args, nargs, loc);
  lts_builder_t *b = c->b;
  c->builders.len--;
  lts_t *raw = keep_temp(c, lts_freeze(b));
  free(b);
  c->pos = p->trailer;
  lts_t *l = apply_trailer(c, raw, true);
  c->env.len = env_len;
  lts_t *r = keep_temp(c, lts_reachable(l));
  if (p->property) r = keep_temp(c, lts_property(r));
  c->interns.len--;
  intern_free(c->inst);
  free(c->inst);
  c->proc = saved_proc;
  c->b = saved_b;
  c->inst = saved_inst;
  c->stop = saved_stop;
  c->end = saved_end;
  c->error = saved_error;
  return r;
}

/* ---------------------------------------------------------- composites */

static lts_t *compile_def(ctx_t *c, proc_def_t *p, const val_t *args, size_t nargs, loc_t loc);

static lts_t *prefix_lts(ctx_t *c, const lts_t *l, const strvec_t *prefixes) {
  relabel_t r = {open_strs(c), open_strs(c)};
  /* every label x becomes p.x for each prefix p: relabel with old = each label */
  for (int i = 0; i < l->nalphabet; i++) {
    const char *nm = lts_label_name(c->f->labels, l->alphabet[i]);
    for (size_t k = 0; k < prefixes->len; k++) {
      VEC_PUSH(r.news, label_dup(c, arena_printf(&c->f->arena, "%s.%s", prefixes->data[k], nm)));
      VEC_PUSH(r.olds, nm);
    }
  }
  /* exact matches only: use a private relabel where old == whole label */
  lts_t *out = apply_relabel(c, l, &r);
  close_strs(c);
  close_strs(c);
  return out;
}

static void comp_list(ctx_t *c, ltsvec_t *parts);

typedef struct {
  strvec_t *out;
} prefix_collect_t;

/* One element of a composition; appends its LTSs to parts. */
/* Heap vectors that a failure (longjmp) releases: stacks in ctx. */
static ltsvec_t *open_list(ctx_t *c) {
  ltsvec_t *v = xcalloc(1, sizeof *v);
  VEC_PUSH(&c->lists, v);
  return v;
}

static void close_list(ctx_t *c) {
  ltsvec_t *v = VEC_POP(&c->lists);
  VEC_FREE(v);
  free(v);
}

static strvec_t *open_strs(ctx_t *c) {
  strvec_t *v = xcalloc(1, sizeof *v);
  VEC_PUSH(&c->strs, v);
  return v;
}

static void close_strs(ctx_t *c) {
  strvec_t *v = VEC_POP(&c->strs);
  VEC_FREE(v);
  free(v);
}

static lts_t *hide_or_restrict(ctx_t *c, lts_t *l) {
  bool hide = next(c)->kind == T_BACKSLASH;
  strvec_t *set = open_strs(c);
  set_expr(c, set);
  if (l) {
    int *ids;
    int n = matching_labels(c, l, set, &ids);
    l = keep_temp(c, hide ? lts_hide(l, ids, n) : lts_restrict(l, ids, n));
    free(ids);
  }
  close_strs(c);
  return l;
}

static lts_t *relabelled(ctx_t *c, lts_t *l) {
  relabel_t r = {open_strs(c), open_strs(c)};
  parse_relabel(c, &r);
  if (l) l = apply_relabel(c, l, &r);
  close_strs(c);
  close_strs(c);
  return l;
}

/* One element of a composition; appends its LTSs to parts. */
static void comp_elem(ctx_t *c, void *partsv) {
  ltsvec_t *parts = partsv;
  strvec_t *prefixes = open_strs(c);
  bool shared = false;
  if (starts_label(c)) {
    labels_of(c, prefixes);
    if (accept(c, T_COLONCOLON)) shared = true;
    else expect(c, T_COLON, "':' or '::'");
  }
  ltsvec_t *inner = open_list(c);
  loc_t loc = peek(c)->loc;
  if (accept(c, T_LPAREN)) {
    comp_list(c, inner);
    expect(c, T_RPAREN, "')'");
  } else {
    const token_t *t = expect(c, T_UIDENT, "a process name");
    val_t args[16];
    size_t nargs = 0;
    if (accept(c, T_LPAREN)) {
      if (!at(c, T_RPAREN))
        do {
          loc_t l = peek(c)->loc;
          val_t v = expr(c);
          if (nargs == 16) fail(c, l, "more than 16 arguments");
          args[nargs++] = v;
        } while (accept(c, T_COMMA));
      expect(c, T_RPAREN, "')'");
    }
    if (c->live) {
      proc_def_t *p = find_proc(c->f, t->text);
      if (!p) {
        const char *cands[256];
        size_t nc = 0;
        for (size_t i = 0; i < c->f->procs.len && nc < 256; i++) cands[nc++] = c->f->procs.data[i].name;
        const char *sug = diag_suggest(t->text, cands, nc);
        if (sug) fail(c, t->loc, "undefined process '%s' (did you mean '%s'?)", t->text, sug);
        fail(c, t->loc, "undefined process '%s'", t->text);
      }
      VEC_PUSH(inner, compile_def(c, p, args, nargs, loc));
    }
  }
  lts_t *l = NULL;
  if (c->live) l = inner->len == 1 ? inner->data[0] : keep_temp(c, lts_compose((const lts_t *const *)inner->data, (int)inner->len));
  close_list(c);
  if (accept(c, T_SLASH)) l = relabelled(c, l);
  if (at(c, T_BACKSLASH) || at(c, T_AT)) l = hide_or_restrict(c, l);
  if (l) {
    if (prefixes->len == 0) VEC_PUSH(parts, l);
    else if (shared) VEC_PUSH(parts, prefix_lts(c, l, prefixes));
    else
      for (size_t k = 0; k < prefixes->len; k++) {
        strvec_t *one = open_strs(c);
        VEC_PUSH(one, prefixes->data[k]);
        VEC_PUSH(parts, prefix_lts(c, l, one));
        close_strs(c);
      }
  }
  close_strs(c);
}

static void comp_list(ctx_t *c, ltsvec_t *parts) {
  do {
    if (is_kw(peek(c), "forall")) fail(c, peek(c)->loc, "'forall' is not supported");
    comp_elem(c, parts);
  } while (accept(c, T_OROR));
}

static lts_t *compile_composite(ctx_t *c, proc_def_t *p, const val_t *args, size_t nargs, loc_t loc) {
  size_t env_len = c->env.len;
  bind_params(c, p, args, nargs, loc);
  c->pos = p->body;
  ltsvec_t *parts = open_list(c);
  if (accept(c, T_LPAREN)) {
    comp_list(c, parts);
    expect(c, T_RPAREN, "')'");
  } else comp_elem(c, parts);
  lts_t *l = parts->len == 1 ? parts->data[0] : keep_temp(c, lts_compose((const lts_t *const *)parts->data, (int)parts->len));
  close_list(c);
  l = apply_trailer(c, l, false);
  c->env.len = env_len;
  lts_t *r = keep_temp(c, lts_reachable(l));
  if (p->property) r = keep_temp(c, lts_property(r));
  return r;
}

static lts_t *compile_def(ctx_t *c, proc_def_t *p, const val_t *args, size_t nargs, loc_t loc) {
  if (++c->depth > 100) fail(c, loc, "process '%s' is composed of itself", p->name);
  size_t save = c->pos;
  size_t env_len = c->env.len;
  /* a definition sees only its own parameters and the constants */
  VEC(binding_t) saved = {0};
  for (size_t i = 0; i < c->env.len; i++) VEC_PUSH(&saved, c->env.data[i]);
  c->env.len = 0;
  lts_t *l = p->composite ? compile_composite(c, p, args, nargs, loc) : compile_primitive(c, p, args, nargs, loc);
  c->env.len = 0;
  for (size_t i = 0; i < env_len; i++) VEC_PUSH(&c->env, saved.data[i]);
  VEC_FREE(&saved);
  c->pos = save;
  c->depth--;
  return l;
}

/* ------------------------------------------------------ declarations */

static const char *const unsupported[] = {"fluent", "assert", "progress", "animation", "minimal", "deterministic",
                                          "constraint", "ltl_property", "controller", "starenv", "display", "compose"};

static void parse_params(ctx_t *c, proc_def_t *p) {
  p->params = c->pos;
  expect(c, T_LPAREN, "'('");
  do {
    expect(c, T_UIDENT, "a parameter name (upper case)");
    expect(c, T_ASSIGN, "'='");
    bool live = c->live;
    c->live = false;
    expr(c);
    c->live = live;
    p->nparams++;
  } while (accept(c, T_COMMA));
  expect(c, T_RPAREN, "')'");
}

static void skip_trailer(ctx_t *c, bool primitive) {
  bool live = c->live;
  c->live = false;
  strvec_t tmp = {0};
  if (primitive && accept(c, T_PLUS)) set_expr(c, &tmp);
  if (accept(c, T_SLASH)) {
    relabel_t r = {open_strs(c), open_strs(c)};
    parse_relabel(c, &r);
    close_strs(c);
    close_strs(c);
  }
  if (accept(c, T_BACKSLASH) || accept(c, T_AT)) set_expr(c, &tmp);
  VEC_FREE(&tmp);
  c->live = live;
}

static void parse_process(ctx_t *c, bool property, const token_t *name) {
  proc_def_t p = {0};
  p.name = name->text;
  p.loc = name->loc;
  p.property = property;
  if (find_proc(c->f, p.name)) fail(c, name->loc, "process '%s' is defined twice", p.name);
  VEC_PUSH(&c->f->procs, p);
  proc_def_t *pp = &VEC_LAST(&c->f->procs);
  if (at(c, T_LPAREN)) parse_params(c, pp);
  bool live = c->live;
  c->live = false;
  const token_t *lname = name;
  for (;;) {
    local_def_t ld = {lname->text, 0, 0, c->pos};
    while (at(c, T_LBRACK)) {
      next(c);
      expect(c, T_LIDENT, "an index variable (lower case)");
      expect(c, T_COLON, "':'");
      if (at(c, T_UIDENT) && peek2(c)->kind == T_RBRACK) next(c);
      else {
        expr(c);
        expect(c, T_DOTDOT, "'..'");
        expr(c);
      }
      expect(c, T_RBRACK, "']'");
      ld.nidx++;
    }
    expect(c, T_ASSIGN, "'='");
    ld.body = c->pos;
    for (size_t i = 0; i < pp->locals.len; i++)
      if (strcmp(pp->locals.data[i].name, ld.name) == 0 && pp->locals.data[i].nidx == ld.nidx) fail(c, lname->loc, "local process '%s' is defined twice", ld.name);
    VEC_PUSH(&pp->locals, ld);
    /* syntax check of the body: a dead run */
    c->proc = pp;
    target(c);
    if (!accept(c, T_COMMA)) break;
    lname = expect(c, T_UIDENT, "a local process name (upper case)");
  }
  pp->trailer = c->pos;
  skip_trailer(c, true);
  c->live = live;
  expect(c, T_DOT, "'.' at the end of the definition");
}

static void parse_composite(ctx_t *c, bool property) {
  const token_t *name = expect(c, T_UIDENT, "a composite process name (upper case)");
  proc_def_t p = {0};
  p.name = name->text;
  p.loc = name->loc;
  p.property = property;
  p.composite = true;
  if (find_proc(c->f, p.name)) fail(c, name->loc, "process '%s' is defined twice", p.name);
  VEC_PUSH(&c->f->procs, p);
  proc_def_t *pp = &VEC_LAST(&c->f->procs);
  if (at(c, T_LPAREN)) parse_params(c, pp);
  if (at(c, T_LBRACK)) fail(c, peek(c)->loc, "indexed composite processes are not supported");
  expect(c, T_ASSIGN, "'='");
  pp->body = c->pos;
  bool live = c->live;
  c->live = false;
  ltsvec_t parts = {0};
  if (accept(c, T_LPAREN)) {
    comp_list(c, &parts);
    expect(c, T_RPAREN, "')'");
  } else comp_elem(c, (void *)&parts);
  VEC_FREE(&parts);
  pp->trailer = c->pos;
  skip_trailer(c, false);
  c->live = live;
  expect(c, T_DOT, "'.' at the end of the definition");
}

static void add_named_set(ctx_t *c, bool menu) {
  const token_t *name = expect(c, T_UIDENT, menu ? "a menu name (upper case)" : "a set name (upper case)");
  expect(c, T_ASSIGN, "'='");
  strvec_t items = {0};
  set_expr(c, &items);
  named_set_t s = {name->text, arena_alloc(&c->f->arena, (items.len + 1) * sizeof(char *)), items.len};
  if (items.len) memcpy(s.items, items.data, items.len * sizeof(char *));
  VEC_FREE(&items);
  if (menu) VEC_PUSH(&c->f->menus, s);
  else {
    if (find_set(c->f, s.name)) fail(c, name->loc, "set '%s' is defined twice", s.name);
    VEC_PUSH(&c->f->sets, s);
  }
}

static void parse_decls(ctx_t *c) {
  while (!at(c, T_EOF)) {
    const token_t *t = peek(c);
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
      if (is_kw(t, unsupported[i]))
        fail(c, t->loc, "'%s' is not supported (ismv compiles FSP processes, not FLTL or LTSA's other extensions)", t->text);
    if (is_kw(t, "const")) {
      next(c);
      const token_t *n = expect(c, T_UIDENT, "a constant name (upper case)");
      expect(c, T_ASSIGN, "'='");
      if (find_binding(c, n->text)) fail(c, n->loc, "constant '%s' is defined twice", n->text);
      long long v = int_expr(c);
      VEC_PUSH(&c->f->consts, ((binding_t){n->text, ival(v)}));
    } else if (is_kw(t, "range")) {
      next(c);
      const token_t *n = expect(c, T_UIDENT, "a range name (upper case)");
      expect(c, T_ASSIGN, "'='");
      long long lo = int_expr(c);
      expect(c, T_DOTDOT, "'..'");
      long long hi = int_expr(c);
      if (find_range(c->f, n->text)) fail(c, n->loc, "range '%s' is defined twice", n->text);
      if (hi - lo > 1000000) fail(c, n->loc, "range '%s' has more than a million values", n->text);
      VEC_PUSH(&c->f->ranges, ((named_range_t){n->text, lo, hi}));
    } else if (is_kw(t, "set")) {
      next(c);
      add_named_set(c, false);
    } else if (is_kw(t, "menu")) {
      next(c);
      add_named_set(c, true);
    } else if (is_kw(t, "property")) {
      next(c);
      if (accept(c, T_OROR)) parse_composite(c, true);
      else parse_process(c, true, expect(c, T_UIDENT, "a process name (upper case)"));
    } else if (t->kind == T_OROR) {
      next(c);
      parse_composite(c, false);
    } else if (t->kind == T_UIDENT) {
      next(c);
      parse_process(c, false, t);
    } else
      fail(c, t->loc, "expected a declaration (const, range, set, menu, property, a process or '||'), found '%s'", describe(t));
  }
}

/* ------------------------------------------------------------- API */

static void ctx_init(ctx_t *c, fsp_file_t *f, diag_list_t *d) {
  memset(c, 0, sizeof *c);
  c->f = f;
  c->d = d;
  c->live = true;
  c->stop = c->end = c->error = -1;
}

static void ctx_free(ctx_t *c, lts_t *keep) {
  for (size_t i = 0; i < c->temps.len; i++)
    if (c->temps.data[i] != keep) lts_free(c->temps.data[i]);
  for (size_t i = 0; i < c->builders.len; i++) {
    lts_builder_free(c->builders.data[i]);
    free(c->builders.data[i]);
  }
  for (size_t i = 0; i < c->interns.len; i++) {
    intern_free(c->interns.data[i]);
    free(c->interns.data[i]);
  }
  for (size_t i = 0; i < c->work_env.len; i++) free(c->work_env.data[i]);
  for (size_t i = 0; i < c->owned.len; i++) free(c->owned.data[i]);
  VEC_FREE(&c->owned);
  for (size_t i = 0; i < c->bufs.len; i++) {
    strbuf_free(c->bufs.data[i]);
    free(c->bufs.data[i]);
  }
  VEC_FREE(&c->bufs);
  for (size_t i = 0; i < c->lists.len; i++) {
    VEC_FREE(c->lists.data[i]);
    free(c->lists.data[i]);
  }
  VEC_FREE(&c->lists);
  for (size_t i = 0; i < c->strs.len; i++) {
    VEC_FREE(c->strs.data[i]);
    free(c->strs.data[i]);
  }
  VEC_FREE(&c->strs);
  VEC_FREE(&c->temps);
  VEC_FREE(&c->builders);
  VEC_FREE(&c->interns);
  VEC_FREE(&c->env);
  VEC_FREE(&c->inst_state);
  VEC_FREE(&c->work_local);
  VEC_FREE(&c->work_state);
  VEC_FREE(&c->work_env);
  VEC_FREE(&c->work_nenv);
}

fsp_file_t *fsp_parse_string(const char *name, const char *text, lts_labels_t *labels, diag_list_t *diags) {
  fsp_file_t *f = xcalloc(1, sizeof *f);
  arena_init(&f->arena);
  f->labels = labels;
  f->path = diag_add_source(diags, name, text);
  if (!lex(f, f->path, text, diags)) {
    fsp_free(f);
    return NULL;
  }
  ctx_t c;
  ctx_init(&c, f, diags);
  if (setjmp(c.fail)) {
    ctx_free(&c, NULL);
    fsp_free(f);
    return NULL;
  }
  parse_decls(&c);
  ctx_free(&c, NULL);
  return f;
}

fsp_file_t *fsp_parse_file(const char *path, lts_labels_t *labels, diag_list_t *diags) {
  const char *registered;
  const char *text = diag_read_file(diags, path, (loc_t){0}, &registered);
  if (!text) return NULL;
  return fsp_parse_string(registered, text, labels, diags);
}

void fsp_free(fsp_file_t *f) {
  if (!f) return;
  for (size_t i = 0; i < f->procs.len; i++) VEC_FREE(&f->procs.data[i].locals);
  VEC_FREE(&f->procs);
  VEC_FREE(&f->consts);
  VEC_FREE(&f->ranges);
  VEC_FREE(&f->sets);
  VEC_FREE(&f->menus);
  arena_free(&f->arena);
  free(f);
}

bool fsp_has_process(const fsp_file_t *f, const char *name) { return find_proc(f, name) != NULL; }

size_t fsp_process_count(const fsp_file_t *f) { return f->procs.len; }
const char *fsp_process_name(const fsp_file_t *f, size_t i) { return i < f->procs.len ? f->procs.data[i].name : NULL; }

const char *fsp_last_process(const fsp_file_t *f) { return f->procs.len ? VEC_LAST(&f->procs).name : NULL; }

const char *fsp_pick_process(const fsp_file_t *f, const char *preferred) {
  if (preferred && find_proc(f, preferred)) return preferred;
  return fsp_last_process(f);
}

lts_t *fsp_compile(fsp_file_t *f, const char *name, diag_list_t *diags) {
  ctx_t c;
  ctx_init(&c, f, diags);
  proc_def_t *p = find_proc(f, name);
  if (!p) {
    diag_error(diags, (loc_t){f->path, 1, 1}, "no process '%s' in '%s'", name, f->path);
    return NULL;
  }
  if (setjmp(c.fail)) {
    ctx_free(&c, NULL);
    return NULL;
  }
  lts_t *l = compile_def(&c, p, NULL, 0, p->loc);
  /* the result must not alias a temporary that is freed */
  ctx_free(&c, l);
  return l;
}

const char *const *fsp_menu(const fsp_file_t *f, const char *name, size_t *count) {
  for (size_t i = 0; i < f->menus.len; i++)
    if (strcmp(f->menus.data[i].name, name) == 0) {
      *count = f->menus.data[i].count;
      return f->menus.data[i].items;
    }
  *count = 0;
  return NULL;
}
