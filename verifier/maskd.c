#include "verifier/maskd.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/expr.h"
#include "ism/vec.h"

/* ---- program representation ---- */

typedef struct {
  const char *name;
  loc_t loc;
  VEC(int) values; /* indices into the merged enum */
} enum_decl_t;

/* A typed name: a global, a parameter or a local. */
typedef struct {
  const char *name;
  loc_t loc;
  const char *type_name;
  loc_t type_loc;
  type_kind_t kind;  /* TYPE_BOOL, TYPE_INT, TYPE_ENUM; TYPE_NONE if unresolved */
  int enum_decl;     /* TYPE_ENUM: index into enums */
} decl_t;

typedef struct {
  const char *lhs;
  loc_t loc;
  int sym; /* index into the process's syms */
  expr_t *rhs;
} assign_t;

typedef struct {
  const char *label;
  loc_t loc;
  bool faulty, internal;
  expr_t *guard;
  VEC(assign_t) assigns;
} branch_t;

typedef struct {
  const char *name;
  loc_t loc;
  VEC(decl_t) params, locals;
  expr_t *initial;
  VEC(branch_t) branches;
  /* scope: params, locals, then the globals they do not shadow */
  expr_sym_t *syms;
  size_t nsyms;
  int *sym_decl_enum; /* declared enum of each symbol, -1 if none */
  int *sym_global;    /* global index of a global symbol, -1 otherwise */
} proc_t;

typedef struct {
  const char *name;
  loc_t loc;
  const char *proc_name;
  loc_t proc_loc;
  int proc;
  int run; /* index into runs, -1 if never run */
} inst_t;

typedef struct {
  const char *inst;
  loc_t loc;
  VEC(const char *) args;
  VEC(loc_t) arg_locs;
  int inst_id;
  int *slot_of_sym; /* per symbol of the instance's process */
  char **labels;    /* "inst.label" per branch */
} run_t;

typedef struct {
  const char *name; /* display name: global or inst.var */
  type_kind_t kind;
} slot_t;

struct maskd_program {
  arena_t arena;
  VEC(enum_decl_t) enums;
  VEC(const char *) values; /* merged enum values; [0] is the empty default */
  expr_enum_t merged;
  VEC(decl_t) globals;
  VEC(proc_t) procs;
  VEC(inst_t) insts;
  VEC(run_t) runs;
  VEC(slot_t) slots;
  bool has_internal, has_faulty;
};

/* ---- lexer ---- */

typedef enum {
  T_EOF, T_ID, T_INT, T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_SEMI, T_COLON, T_COMMA,
  T_ASSIGN, T_EQ, T_LT, T_GT, T_LE, T_GE, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_NOT, T_AND, T_OR, T_ARROW,
  T_BAD
} tok_kind_t;

typedef struct {
  tok_kind_t kind;
  const char *start;
  size_t len;
  loc_t loc;
  long long ival;
} token_t;

typedef struct {
  const char *src, *pos;
  loc_t loc; /* of *pos */
  int indent; /* columns stripped from the start of every line after the first */
  token_t tok;
  maskd_program_t *prog;
  diag_list_t *diags;
  bool failed; /* a syntax error was reported: stop */
  int depth;
} parser_t;

enum { MAX_DEPTH = 200 };

static void advance_char(parser_t *p) {
  if (*p->pos == '\n') {
    p->loc.line++;
    p->loc.col = 1 + p->indent;
  } else {
    p->loc.col++;
  }
  p->pos++;
}

static void skip_space(parser_t *p) {
  for (;;) {
    if (isspace((unsigned char)*p->pos)) {
      advance_char(p);
    } else if (p->pos[0] == '/' && p->pos[1] == '/') {
      while (*p->pos && *p->pos != '\n') advance_char(p);
    } else if (p->pos[0] == '/' && p->pos[1] == '*') {
      loc_t at = p->loc;
      advance_char(p);
      advance_char(p);
      while (*p->pos && !(p->pos[0] == '*' && p->pos[1] == '/')) advance_char(p);
      if (!*p->pos) {
        diag_error(p->diags, at, "unterminated comment");
        p->failed = true;
        return;
      }
      advance_char(p);
      advance_char(p);
    } else {
      return;
    }
  }
}

static tok_kind_t punct(parser_t *p) {
  char c = p->pos[0], d = p->pos[1];
  struct { char a, b; tok_kind_t k; } two[] = {
      {'=', '=', T_EQ}, {'<', '=', T_LE}, {'>', '=', T_GE}, {'&', '&', T_AND}, {'|', '|', T_OR}, {'-', '>', T_ARROW}};
  for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
    if (c == two[i].a && d == two[i].b) {
      advance_char(p);
      advance_char(p);
      return two[i].k;
    }
  const char *one = "{}()[];:,=<>+-*/!";
  const tok_kind_t kinds[] = {T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_SEMI, T_COLON, T_COMMA,
                              T_ASSIGN, T_LT, T_GT, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_NOT};
  const char *hit = c ? strchr(one, c) : NULL;
  if (!hit) return T_BAD;
  advance_char(p);
  return kinds[hit - one];
}

static void next(parser_t *p) {
  skip_space(p);
  token_t *t = &p->tok;
  t->start = p->pos;
  t->loc = p->loc;
  t->ival = 0;
  if (p->failed || !*p->pos) {
    t->kind = T_EOF;
  } else if (isalpha((unsigned char)*p->pos) || *p->pos == '_') {
    while (isalnum((unsigned char)*p->pos) || *p->pos == '_') advance_char(p);
    t->kind = T_ID;
  } else if (isdigit((unsigned char)*p->pos)) {
    long long v = 0;
    bool big = false;
    while (isdigit((unsigned char)*p->pos)) {
      v = v * 10 + (*p->pos - '0');
      if (v > INT32_MAX) big = true, v = INT32_MAX;
      advance_char(p);
    }
    t->kind = T_INT;
    t->ival = v;
    if (big) diag_error(p->diags, t->loc, "integer literal out of range (at most %d)", INT32_MAX);
  } else {
    t->kind = punct(p);
    if (t->kind == T_BAD) advance_char(p);
  }
  t->len = (size_t)(p->pos - t->start);
}

static bool is_kw(const parser_t *p, const char *kw) {
  return p->tok.kind == T_ID && p->tok.len == strlen(kw) && memcmp(p->tok.start, kw, p->tok.len) == 0;
}

static void syntax_error(parser_t *p, const char *expected) {
  if (p->failed) return;
  if (p->tok.kind == T_EOF)
    diag_error(p->diags, p->tok.loc, "expected %s, found end of file", expected);
  else
    diag_error(p->diags, p->tok.loc, "expected %s, found '%.*s'", expected, (int)p->tok.len, p->tok.start);
  p->failed = true;
}

static bool accept(parser_t *p, tok_kind_t k) {
  if (p->failed || p->tok.kind != k) return false;
  next(p);
  return true;
}

static bool expect(parser_t *p, tok_kind_t k, const char *what) {
  if (accept(p, k)) return true;
  syntax_error(p, what);
  return false;
}

static bool expect_kw(parser_t *p, const char *kw) {
  if (!p->failed && is_kw(p, kw)) {
    next(p);
    return true;
  }
  char buf[64];
  snprintf(buf, sizeof buf, "'%s'", kw);
  syntax_error(p, buf);
  return false;
}

static const char *const KEYWORDS[] = {"Enum",     "Global", "Process", "Initial", "Normative", "Main", "run",
                                       "faulty",   "internal", "BOOL",  "INT",     "true",      "false"};

static bool is_keyword_tok(const parser_t *p) {
  for (size_t i = 0; i < sizeof KEYWORDS / sizeof KEYWORDS[0]; i++)
    if (is_kw(p, KEYWORDS[i])) return true;
  return false;
}

/* An identifier that is not a keyword; returns its arena copy or NULL. */
static const char *expect_name(parser_t *p, const char *what, loc_t *loc) {
  if (p->failed || p->tok.kind != T_ID || is_keyword_tok(p)) {
    syntax_error(p, what);
    return NULL;
  }
  const char *s = arena_strndup(&p->prog->arena, p->tok.start, p->tok.len);
  if (loc) *loc = p->tok.loc;
  next(p);
  return s;
}

/* ---- expressions ---- */

static expr_t *parse_expr(parser_t *p);

static expr_t *new_name(parser_t *p, const char *name, loc_t loc) {
  expr_t *e = arena_alloc(&p->prog->arena, sizeof *e);
  e->kind = EXPR_NAME;
  e->loc = loc;
  e->u.var.name = name;
  return e;
}

static expr_t *parse_factor(parser_t *p) {
  if (p->failed) return NULL;
  loc_t loc = p->tok.loc;
  arena_t *a = &p->prog->arena;
  if (++p->depth > MAX_DEPTH) {
    diag_error(p->diags, loc, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
    p->failed = true;
    return NULL;
  }
  expr_t *e = NULL;
  if (accept(p, T_NOT)) {
    expr_t *x = parse_factor(p);
    e = x ? expr_new_unary(a, EXPR_NOT, x, loc) : NULL;
  } else if (accept(p, T_MINUS)) {
    expr_t *x = parse_factor(p);
    e = x ? expr_new_unary(a, EXPR_NEG, x, loc) : NULL;
  } else if (p->tok.kind == T_INT) {
    e = expr_new_int(a, p->tok.ival, loc);
    next(p);
  } else if (is_kw(p, "true") || is_kw(p, "false")) {
    e = expr_new_bool(a, is_kw(p, "true"), loc);
    next(p);
  } else if (p->tok.kind == T_ID && !is_keyword_tok(p)) {
    const char *name = expect_name(p, "a name", NULL);
    e = new_name(p, name, loc);
  } else if (accept(p, T_LPAREN)) {
    e = parse_expr(p);
    if (!expect(p, T_RPAREN, "')'")) e = NULL;
  } else {
    syntax_error(p, "an expression");
  }
  p->depth--;
  return p->failed ? NULL : e;
}

typedef struct {
  tok_kind_t tok;
  expr_kind_t kind;
} binop_t;

/* One left-associative (or, with `once`, non-associative) precedence level. */
static expr_t *parse_level(parser_t *p, int level);

static const binop_t LEVELS[][4] = {
    {{T_OR, EXPR_OR}},
    {{T_AND, EXPR_AND}},
    {{T_EQ, EXPR_EQ}},
    {{T_LT, EXPR_LT}, {T_GT, EXPR_GT}, {T_LE, EXPR_LE}, {T_GE, EXPR_GE}},
    {{T_PLUS, EXPR_ADD}, {T_MINUS, EXPR_SUB}},
    {{T_STAR, EXPR_MUL}, {T_SLASH, EXPR_DIV}},
};
enum { NLEVELS = sizeof LEVELS / sizeof LEVELS[0] };

static expr_t *parse_level(parser_t *p, int level) {
  if (level == NLEVELS) return parse_factor(p);
  expr_t *e = parse_level(p, level + 1);
  bool once = level == 2 || level == 3; /* == and relations do not chain */
  while (e && !p->failed) {
    const binop_t *op = NULL;
    for (int i = 0; i < 4 && LEVELS[level][i].tok; i++)
      if (p->tok.kind == LEVELS[level][i].tok) op = &LEVELS[level][i];
    if (!op) break;
    loc_t loc = p->tok.loc;
    next(p);
    expr_t *r = parse_level(p, level + 1);
    if (!r) return NULL;
    e = expr_new_binary(&p->prog->arena, op->kind, e, r, loc);
    if (once) break;
  }
  return p->failed ? NULL : e;
}

static expr_t *parse_expr(parser_t *p) { return parse_level(p, 0); }

/* ---- declarations ---- */

static void parse_type(parser_t *p, decl_t *d) {
  d->type_loc = p->tok.loc;
  if (is_kw(p, "BOOL") || is_kw(p, "INT")) {
    d->kind = is_kw(p, "BOOL") ? TYPE_BOOL : TYPE_INT;
    d->type_name = is_kw(p, "BOOL") ? "BOOL" : "INT";
    next(p);
  } else {
    d->kind = TYPE_NONE; /* an enum, resolved later */
    d->type_name = expect_name(p, "a type ('BOOL', 'INT' or an enum name)", NULL);
  }
  d->enum_decl = -1;
}

/* `a, b : T` appended to *out. */
static void parse_decl_list(parser_t *p, void *out_vec) {
  VEC(decl_t) *out = out_vec;
  size_t first = out->len;
  do {
    decl_t d = {0};
    d.name = expect_name(p, "a variable name", &d.loc);
    if (!d.name) return;
    VEC_PUSH(out, d);
  } while (accept(p, T_COMMA));
  if (!expect(p, T_COLON, "':'")) return;
  decl_t t = {0};
  parse_type(p, &t);
  for (size_t i = first; i < out->len; i++) {
    out->data[i].type_name = t.type_name;
    out->data[i].type_loc = t.type_loc;
    out->data[i].kind = t.kind;
    out->data[i].enum_decl = -1;
  }
}

static void parse_enum(parser_t *p) {
  enum_decl_t en = {0};
  next(p);
  en.name = expect_name(p, "an enum name", &en.loc);
  if (!expect(p, T_ASSIGN, "'='") || !expect(p, T_LBRACE, "'{'")) return;
  VEC(const char *) names = {0};
  VEC(loc_t) locs = {0};
  do {
    loc_t loc;
    const char *v = expect_name(p, "an enum value", &loc);
    if (!v) break;
    VEC_PUSH(&names, v);
    VEC_PUSH(&locs, loc);
  } while (accept(p, T_COMMA));
  if (!p->failed) expect(p, T_RBRACE, "'}'");
  maskd_program_t *prog = p->prog;
  for (size_t i = 0; i < names.len && !p->failed; i++) {
    size_t k = 1;
    while (k < prog->values.len && strcmp(prog->values.data[k], names.data[i]) != 0) k++;
    if (k == prog->values.len) VEC_PUSH(&prog->values, names.data[i]);
    for (size_t j = 0; j < en.values.len; j++)
      if (en.values.data[j] == (int)k)
        diag_error(p->diags, locs.data[i], "enum value '%s' listed twice in '%s'", names.data[i], en.name);
    VEC_PUSH(&en.values, (int)k);
  }
  VEC_FREE(&names);
  VEC_FREE(&locs);
  if (p->failed) {
    VEC_FREE(&en.values);
    return;
  }
  VEC_PUSH(&prog->enums, en);
}

static void parse_branch(parser_t *p, proc_t *pr) {
  branch_t b = {0};
  b.loc = p->tok.loc;
  b.label = "";
  if (accept(p, T_LBRACK)) {
    if (p->tok.kind != T_RBRACK) b.label = expect_name(p, "an action label", NULL);
    if (!expect(p, T_RBRACK, "']'")) return;
    if (accept(p, T_LT)) { /* reward <n>, ignored as in MaskD */
      accept(p, T_MINUS);
      if (!expect(p, T_INT, "an integer reward") || !expect(p, T_GT, "'>'")) return;
    }
  }
  if (is_kw(p, "faulty")) b.faulty = true, next(p);
  if (is_kw(p, "internal")) b.internal = true, next(p);
  if (!b.faulty && is_kw(p, "faulty")) b.faulty = true, next(p);
  b.guard = parse_expr(p);
  if (!b.guard || !expect(p, T_ARROW, "'->'")) return;
  do {
    assign_t a = {0};
    a.lhs = expect_name(p, "a variable to assign", &a.loc);
    if (!a.lhs || !expect(p, T_ASSIGN, "'='")) break;
    a.rhs = parse_expr(p);
    if (!a.rhs) break;
    VEC_PUSH(&b.assigns, a);
  } while (accept(p, T_COMMA));
  if (p->failed) {
    VEC_FREE(&b.assigns);
    return;
  }
  VEC_PUSH(&pr->branches, b);
}

static void parse_process(parser_t *p) {
  proc_t pr = {0};
  next(p);
  pr.name = expect_name(p, "a process name", &pr.loc);
  if (accept(p, T_LPAREN)) {
    do {
      decl_t d = {0};
      d.name = expect_name(p, "a parameter name", &d.loc);
      if (!d.name || !expect(p, T_COLON, "':'")) break;
      parse_type(p, &d);
      VEC_PUSH(&pr.params, d);
    } while (accept(p, T_COMMA));
    expect(p, T_RPAREN, "')'");
  }
  expect(p, T_LBRACE, "'{'");
  while (!p->failed && p->tok.kind == T_ID && !is_keyword_tok(p)) {
    parse_decl_list(p, &pr.locals);
    expect(p, T_SEMI, "';'");
  }
  if (expect_kw(p, "Initial") && expect(p, T_COLON, "':'")) {
    pr.initial = parse_expr(p);
    expect(p, T_SEMI, "';'");
  }
  if (!p->failed && is_kw(p, "Normative")) { /* 2019 dialect: parsed, ignored */
    next(p);
    if (expect(p, T_COLON, "':'") && parse_expr(p)) expect(p, T_SEMI, "';'");
  }
  while (!p->failed && p->tok.kind != T_RBRACE && p->tok.kind != T_EOF) {
    parse_branch(p, &pr);
    if (p->tok.kind != T_RBRACE) expect(p, T_SEMI, "';'");
  }
  expect(p, T_RBRACE, "'}'");
  VEC_PUSH(&p->prog->procs, pr); /* pushed even when failed, so maskd_free frees it */
}

static void parse_main(parser_t *p) {
  maskd_program_t *prog = p->prog;
  if (!expect_kw(p, "Main") || !expect(p, T_LPAREN, "'('") || !expect(p, T_RPAREN, "')'") ||
      !expect(p, T_LBRACE, "'{'"))
    return;
  while (!p->failed && p->tok.kind == T_ID && !is_kw(p, "run")) {
    size_t first = prog->insts.len;
    do {
      inst_t in = {.proc = -1, .run = -1};
      in.name = expect_name(p, "an instance name", &in.loc);
      if (!in.name) return;
      VEC_PUSH(&prog->insts, in);
    } while (accept(p, T_COMMA));
    if (!expect(p, T_COLON, "':'")) return;
    loc_t ploc;
    const char *proc = expect_name(p, "a process name", &ploc);
    for (size_t i = first; i < prog->insts.len; i++) prog->insts.data[i].proc_name = proc, prog->insts.data[i].proc_loc = ploc;
    expect(p, T_SEMI, "';'");
  }
  while (!p->failed && is_kw(p, "run")) {
    next(p);
    run_t r = {.inst_id = -1};
    r.inst = expect_name(p, "an instance name", &r.loc);
    if (!r.inst || !expect(p, T_LPAREN, "'('")) return;
    if (p->tok.kind != T_RPAREN) do {
        loc_t loc;
        const char *g = expect_name(p, "a global variable", &loc);
        if (!g) break;
        VEC_PUSH(&r.args, g);
        VEC_PUSH(&r.arg_locs, loc);
      } while (accept(p, T_COMMA));
    VEC_PUSH(&prog->runs, r);
    expect(p, T_RPAREN, "')'");
    if (p->tok.kind != T_RBRACE) expect(p, T_SEMI, "';'");
  }
  if (!p->failed && prog->runs.len == 0) syntax_error(p, "'run'");
  expect(p, T_RBRACE, "'}'");
}

static void parse_spec(parser_t *p) {
  while (!p->failed && (is_kw(p, "Enum") || is_kw(p, "Global"))) {
    if (is_kw(p, "Enum")) {
      parse_enum(p);
    } else {
      next(p);
      parse_decl_list(p, &p->prog->globals);
    }
    expect(p, T_SEMI, "';'");
  }
  while (!p->failed && is_kw(p, "Process")) parse_process(p);
  if (!p->failed && p->prog->procs.len == 0) {
    syntax_error(p, "'Enum', 'Global' or 'Process'");
    return;
  }
  parse_main(p);
  if (!p->failed && p->tok.kind != T_EOF) syntax_error(p, "end of file");
}


/* ---- checking ---- */

static int find_enum(const maskd_program_t *prog, const char *name) {
  for (size_t i = 0; i < prog->enums.len; i++)
    if (strcmp(prog->enums.data[i].name, name) == 0) return (int)i;
  return -1;
}

static void resolve_type(maskd_program_t *prog, decl_t *d, diag_list_t *diags) {
  if (d->kind != TYPE_NONE || !d->type_name) return;
  d->enum_decl = find_enum(prog, d->type_name);
  if (d->enum_decl >= 0) {
    d->kind = TYPE_ENUM;
    return;
  }
  VEC(const char *) cands = {0};
  VEC_PUSH(&cands, "BOOL");
  VEC_PUSH(&cands, "INT");
  for (size_t i = 0; i < prog->enums.len; i++) VEC_PUSH(&cands, prog->enums.data[i].name);
  const char *hint = diag_suggest(d->type_name, cands.data, cands.len);
  if (hint)
    diag_error(diags, d->type_loc, "unknown type '%s' (did you mean '%s'?)", d->type_name, hint);
  else
    diag_error(diags, d->type_loc, "unknown type '%s' (expected 'BOOL', 'INT' or an enum name)", d->type_name);
  VEC_FREE(&cands);
}

static type_t decl_type(const decl_t *d) {
  type_t t = {d->kind, d->kind == TYPE_ENUM ? 0 : -1}; /* one merged enum, see check_enum_uses */
  return t;
}

/* Reports names declared twice among decls[0..n). */
static void check_unique(const decl_t *decls, size_t n, const char *what, diag_list_t *diags) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(decls[i].name, decls[j].name) == 0) {
        diag_error(diags, decls[i].loc, "%s '%s' declared twice (first at line %d)", what, decls[i].name,
                   decls[j].loc.line);
        break;
      }
}

static void build_scope(maskd_program_t *prog, proc_t *pr, diag_list_t *diags) {
  size_t np = pr->params.len, nl = pr->locals.len, ng = prog->globals.len;
  decl_t *own = xmalloc((np + nl + 1) * sizeof *own);
  for (size_t i = 0; i < np; i++) resolve_type(prog, &pr->params.data[i], diags), own[i] = pr->params.data[i];
  for (size_t i = 0; i < nl; i++) resolve_type(prog, &pr->locals.data[i], diags), own[np + i] = pr->locals.data[i];
  check_unique(own, np + nl, "variable", diags);
  size_t cap = np + nl + ng;
  pr->syms = arena_alloc(&prog->arena, (cap + 1) * sizeof *pr->syms);
  pr->sym_decl_enum = arena_alloc(&prog->arena, (cap + 1) * sizeof(int));
  pr->sym_global = arena_alloc(&prog->arena, (cap + 1) * sizeof(int));
  size_t n = 0;
  for (size_t i = 0; i < np + nl + ng; i++) {
    const decl_t *d = i < np + nl ? &own[i] : &prog->globals.data[i - np - nl];
    bool shadowed = false;
    for (size_t j = 0; j < n && i >= np + nl; j++) shadowed |= strcmp(pr->syms[j].name, d->name) == 0;
    if (shadowed) continue;
    pr->syms[n] = (expr_sym_t){.name = d->name, .kind = i < np ? SYM_PARAM : SYM_VAR, .type = decl_type(d), .id = (int)n};
    pr->sym_decl_enum[n] = d->enum_decl;
    pr->sym_global[n] = i < np + nl ? -1 : (int)(i - np - nl);
    n++;
  }
  pr->nsyms = n;
  free(own);
}

static expr_scope_t proc_scope(const maskd_program_t *prog, const proc_t *pr) {
  expr_scope_t sc = {.syms = pr->syms, .nsyms = pr->nsyms, .enums = &prog->merged, .nenums = prog->enums.len ? 1 : 0};
  return sc;
}

static bool enum_has(const maskd_program_t *prog, int decl, long long value) {
  const enum_decl_t *en = &prog->enums.data[decl];
  for (size_t i = 0; i < en->values.len; i++)
    if (en->values.data[i] == value) return true;
  return false;
}

/* Enum values are global names in MaskD, shared between enums; the merged
 * enum type cannot tell `s == fst` with s: SSTATE from a correct use, so
 * comparisons of a variable with a constant are checked here. */
static void check_enum_uses(const maskd_program_t *prog, const proc_t *pr, const expr_t *e, diag_list_t *diags) {
  if (!e) return;
  switch (e->kind) {
  case EXPR_INT: case EXPR_REAL: case EXPR_BOOL: case EXPR_NAME: case EXPR_VAR: case EXPR_ENUM:
    return;
  case EXPR_NEG: case EXPR_NOT: case EXPR_ABS: case EXPR_TOREAL:
    check_enum_uses(prog, pr, e->u.op.a, diags);
    return;
  default:
    break;
  }
  const expr_t *a = e->u.op.a, *b = e->u.op.b;
  if (e->kind == EXPR_EQ || e->kind == EXPR_NE) {
    if (b && b->kind == EXPR_VAR) {
      const expr_t *t = a;
      a = b, b = t;
    }
    if (a && b && a->kind == EXPR_VAR && b->kind == EXPR_ENUM) {
      int decl = pr->sym_decl_enum[a->u.var.id];
      if (decl >= 0 && !enum_has(prog, decl, b->u.ival))
        diag_error(diags, b->loc, "'%s' is not a value of enum '%s' (the type of '%s')", prog->values.data[b->u.ival],
                   prog->enums.data[decl].name, a->u.var.name);
    }
  }
  check_enum_uses(prog, pr, e->u.op.a, diags);
  check_enum_uses(prog, pr, e->u.op.b, diags);
  if (e->kind == EXPR_ITE) check_enum_uses(prog, pr, e->u.op.c, diags);
}

static int find_sym(const proc_t *pr, const char *name) {
  for (size_t i = 0; i < pr->nsyms; i++)
    if (strcmp(pr->syms[i].name, name) == 0) return (int)i;
  return -1;
}

static void unknown_variable(const proc_t *pr, const char *name, loc_t loc, diag_list_t *diags) {
  const char **names = xmalloc((pr->nsyms + 1) * sizeof *names);
  for (size_t i = 0; i < pr->nsyms; i++) names[i] = pr->syms[i].name;
  const char *hint = diag_suggest(name, names, pr->nsyms);
  if (hint)
    diag_error(diags, loc, "unknown variable '%s' (did you mean '%s'?)", name, hint);
  else
    diag_error(diags, loc, "unknown variable '%s'", name);
  free(names);
}

/* Initial: a conjunction of x, !x, x == e (or e == x), true. */
static void check_initial_form(const expr_t *e, diag_list_t *diags) {
  if (e->kind == EXPR_AND) {
    check_initial_form(e->u.op.a, diags);
    check_initial_form(e->u.op.b, diags);
    return;
  }
  bool ok = (e->kind == EXPR_BOOL && e->u.bval) || e->kind == EXPR_VAR ||
            (e->kind == EXPR_NOT && e->u.op.a->kind == EXPR_VAR) ||
            (e->kind == EXPR_EQ && (e->u.op.a->kind == EXPR_VAR || e->u.op.b->kind == EXPR_VAR));
  if (!ok)
    diag_error(diags, e->loc,
               "unsupported initial condition: 'Initial:' must be a conjunction of 'x', '!x' and 'x == value'");
}

static void check_branch(maskd_program_t *prog, proc_t *pr, branch_t *b, diag_list_t *diags) {
  expr_scope_t sc = proc_scope(prog, pr);
  if (expr_check(b->guard, &sc, TYPE_BOOL, &prog->arena, diags)) check_enum_uses(prog, pr, b->guard, diags);
  for (size_t i = 0; i < b->assigns.len; i++) {
    assign_t *a = &b->assigns.data[i];
    a->sym = find_sym(pr, a->lhs);
    for (size_t j = 0; j < i; j++)
      if (strcmp(b->assigns.data[j].lhs, a->lhs) == 0)
        diag_error(diags, a->loc, "'%s' is assigned twice in one action", a->lhs);
    if (a->sym < 0) {
      unknown_variable(pr, a->lhs, a->loc, diags);
      continue;
    }
    type_t t = pr->syms[a->sym].type;
    if (!expr_check(a->rhs, &sc, t.kind, &prog->arena, diags)) continue;
    int decl = pr->sym_decl_enum[a->sym];
    if (decl >= 0 && a->rhs->kind == EXPR_ENUM && !enum_has(prog, decl, a->rhs->u.ival))
      diag_error(diags, a->rhs->loc, "'%s' is not a value of enum '%s' (the type of '%s')",
                 prog->values.data[a->rhs->u.ival], prog->enums.data[decl].name, a->lhs);
    check_enum_uses(prog, pr, a->rhs, diags);
  }
  if (b->faulty) prog->has_faulty = true; /* narrowed to run instances later */
}

static void check_process(maskd_program_t *prog, proc_t *pr, diag_list_t *diags) {
  build_scope(prog, pr, diags);
  expr_scope_t sc = proc_scope(prog, pr);
  if (pr->initial && expr_check(pr->initial, &sc, TYPE_BOOL, &prog->arena, diags)) {
    check_initial_form(pr->initial, diags);
    check_enum_uses(prog, pr, pr->initial, diags);
  }
  for (size_t i = 0; i < pr->branches.len; i++) check_branch(prog, pr, &pr->branches.data[i], diags);
}

static int find_global(const maskd_program_t *prog, const char *name) {
  for (size_t i = 0; i < prog->globals.len; i++)
    if (strcmp(prog->globals.data[i].name, name) == 0) return (int)i;
  return -1;
}

static void check_instances(maskd_program_t *prog, diag_list_t *diags) {
  for (size_t i = 0; i < prog->insts.len; i++) {
    inst_t *in = &prog->insts.data[i];
    for (size_t j = 0; j < i; j++)
      if (strcmp(prog->insts.data[j].name, in->name) == 0) {
        diag_error(diags, in->loc, "instance '%s' declared twice", in->name);
        break;
      }
    for (size_t j = 0; j < prog->procs.len; j++)
      if (strcmp(prog->procs.data[j].name, in->proc_name) == 0) in->proc = (int)j;
    if (in->proc >= 0) continue;
    const char **names = xmalloc((prog->procs.len + 1) * sizeof *names);
    for (size_t j = 0; j < prog->procs.len; j++) names[j] = prog->procs.data[j].name;
    const char *hint = diag_suggest(in->proc_name, names, prog->procs.len);
    if (hint)
      diag_error(diags, in->proc_loc, "unknown process '%s' (did you mean '%s'?)", in->proc_name, hint);
    else
      diag_error(diags, in->proc_loc, "unknown process '%s'", in->proc_name);
    free(names);
  }
}

static void check_run(maskd_program_t *prog, run_t *r, diag_list_t *diags) {
  for (size_t j = 0; j < prog->insts.len; j++)
    if (strcmp(prog->insts.data[j].name, r->inst) == 0) r->inst_id = (int)j;
  if (r->inst_id < 0) {
    diag_error(diags, r->loc, "unknown instance '%s' (declare it as '%s: Process;')", r->inst, r->inst);
    return;
  }
  inst_t *in = &prog->insts.data[r->inst_id];
  if (in->run >= 0) {
    diag_error(diags, r->loc, "instance '%s' is run twice", r->inst);
    return;
  }
  in->run = (int)(r - prog->runs.data);
  if (in->proc < 0) return;
  const proc_t *pr = &prog->procs.data[in->proc];
  if (r->args.len != pr->params.len) {
    diag_error(diags, r->loc, "process '%s' takes %zu parameter%s, but '%s' is run with %zu", pr->name,
               pr->params.len, pr->params.len == 1 ? "" : "s", r->inst, r->args.len);
    return;
  }
  for (size_t k = 0; k < r->args.len; k++) {
    int g = find_global(prog, r->args.data[k]);
    const decl_t *par = &pr->params.data[k];
    if (g < 0) {
      diag_error(diags, r->arg_locs.data[k], "'%s' is not a global variable (parameters are passed by reference)",
                 r->args.data[k]);
      continue;
    }
    const decl_t *gd = &prog->globals.data[g];
    if (par->kind != TYPE_NONE && gd->kind != TYPE_NONE && (gd->kind != par->kind || gd->enum_decl != par->enum_decl))
      diag_error(diags, r->arg_locs.data[k], "global '%s' has type %s, but parameter '%s' of '%s' has type %s",
                 gd->name, gd->type_name, par->name, pr->name, par->type_name);
  }
}

/* Slots: globals, then the locals of each run instance. */
static void build_slots(maskd_program_t *prog) {
  for (size_t i = 0; i < prog->globals.len; i++)
    VEC_PUSH(&prog->slots, ((slot_t){prog->globals.data[i].name, prog->globals.data[i].kind}));
  prog->has_faulty = false;
  for (size_t r = 0; r < prog->runs.len; r++) {
    run_t *run = &prog->runs.data[r];
    const proc_t *pr = &prog->procs.data[prog->insts.data[run->inst_id].proc];
    run->slot_of_sym = arena_alloc(&prog->arena, (pr->nsyms + 1) * sizeof(int));
    size_t np = pr->params.len;
    for (size_t s = 0; s < pr->nsyms; s++) {
      if (pr->sym_global[s] >= 0) {
        run->slot_of_sym[s] = pr->sym_global[s];
      } else if (s < np) {
        run->slot_of_sym[s] = find_global(prog, run->args.data[s]);
      } else {
        run->slot_of_sym[s] = (int)prog->slots.len;
        const char *name = arena_printf(&prog->arena, "%s.%s", run->inst, pr->syms[s].name);
        VEC_PUSH(&prog->slots, ((slot_t){name, pr->syms[s].type.kind}));
      }
    }
    run->labels = arena_alloc(&prog->arena, (pr->branches.len + 1) * sizeof(char *));
    for (size_t b = 0; b < pr->branches.len; b++) {
      const branch_t *br = &pr->branches.data[b];
      run->labels[b] = arena_printf(&prog->arena, "%s.%s", run->inst, br->label);
      prog->has_faulty |= br->faulty;
      prog->has_internal |= br->internal && !br->faulty;
    }
  }
}

static void check_program(maskd_program_t *prog, diag_list_t *diags) {
  size_t before = diags->errors;
  if (prog->enums.len) {
    for (size_t i = 0; i < prog->enums.len; i++)
      for (size_t j = 0; j < i; j++)
        if (strcmp(prog->enums.data[i].name, prog->enums.data[j].name) == 0)
          diag_error(diags, prog->enums.data[i].loc, "enum '%s' declared twice", prog->enums.data[i].name);
    prog->merged = (expr_enum_t){.name = "enum", .nvalues = (int)prog->values.len, .values = prog->values.data};
  }
  for (size_t i = 0; i < prog->globals.len; i++) resolve_type(prog, &prog->globals.data[i], diags);
  check_unique(prog->globals.data, prog->globals.len, "global", diags);
  for (size_t i = 0; i < prog->procs.len; i++) {
    for (size_t j = 0; j < i; j++)
      if (strcmp(prog->procs.data[i].name, prog->procs.data[j].name) == 0)
        diag_error(diags, prog->procs.data[i].loc, "process '%s' declared twice", prog->procs.data[i].name);
    check_process(prog, &prog->procs.data[i], diags);
  }
  check_instances(prog, diags);
  for (size_t r = 0; r < prog->runs.len; r++) check_run(prog, &prog->runs.data[r], diags);
  if (diags->errors > before) return;
  for (size_t i = 0; i < prog->insts.len; i++)
    if (prog->insts.data[i].run < 0)
      diag_warning(diags, prog->insts.data[i].loc, "instance '%s' is never run", prog->insts.data[i].name);
  build_slots(prog);
}

maskd_program_t *maskd_parse(const char *text, loc_t start, int indent, diag_list_t *diags) {
  maskd_program_t *prog = xcalloc(1, sizeof *prog);
  arena_init(&prog->arena);
  VEC_PUSH(&prog->values, ""); /* an enum variable no Initial mentions holds "" */
  parser_t p = {.src = text, .pos = text, .loc = start, .indent = indent, .prog = prog, .diags = diags};
  size_t before = diags->errors;
  next(&p);
  parse_spec(&p);
  if (!p.failed && diags->errors == before) check_program(prog, diags);
  if (diags->errors > before) {
    maskd_free(prog);
    return NULL;
  }
  return prog;
}

maskd_program_t *maskd_load_file(const char *path, loc_t from, diag_list_t *diags) {
  const char *reg = NULL;
  const char *text = diag_read_file(diags, path, from, &reg);
  return text ? maskd_parse(text, (loc_t){reg, 1, 1}, 0, diags) : NULL;
}

void maskd_free(maskd_program_t *p) {
  if (!p) return;
  for (size_t i = 0; i < p->enums.len; i++) VEC_FREE(&p->enums.data[i].values);
  for (size_t i = 0; i < p->procs.len; i++) {
    proc_t *pr = &p->procs.data[i];
    for (size_t b = 0; b < pr->branches.len; b++) VEC_FREE(&pr->branches.data[b].assigns);
    VEC_FREE(&pr->branches);
    VEC_FREE(&pr->params);
    VEC_FREE(&pr->locals);
  }
  for (size_t r = 0; r < p->runs.len; r++) {
    VEC_FREE(&p->runs.data[r].args);
    VEC_FREE(&p->runs.data[r].arg_locs);
  }
  VEC_FREE(&p->enums);
  VEC_FREE(&p->values);
  VEC_FREE(&p->globals);
  VEC_FREE(&p->procs);
  VEC_FREE(&p->insts);
  VEC_FREE(&p->runs);
  VEC_FREE(&p->slots);
  arena_free(&p->arena);
  free(p);
}

bool maskd_has_internal(const maskd_program_t *p) { return p->has_internal; }
bool maskd_has_faulty(const maskd_program_t *p) { return p->has_faulty; }
size_t maskd_nslots(const maskd_program_t *p) { return p->slots.len; }

/* ---- explicit state space ---- */

typedef struct {
  const int32_t *state;
  const int *slot_of_sym;
} lookup_ctx_t;

static value_t lookup(void *ctx, int id, bool primed) {
  (void)primed;
  const lookup_ctx_t *c = ctx;
  value_t v = {0};
  v.i = c->state[c->slot_of_sym[id]];
  return v;
}

typedef struct {
  int label;
  int dst;
  uint8_t kind;
} edge_t;

typedef struct {
  const maskd_program_t *prog;
  size_t nslots;
  VEC(int32_t) vals;  /* nslots per state */
  uint32_t *table;    /* open addressing over state ids; UINT32_MAX empty */
  size_t table_cap;   /* power of two, > 2 * number of states */
  diag_list_t *diags;
} space_t;

static uint64_t hash_state(const int32_t *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint32_t)s[i]) * 1099511628211ull;
  return h ^ (h >> 31);
}

static size_t nstates_of(const space_t *sp) { return sp->nslots ? sp->vals.len / sp->nslots : 1; }

static void rehash(space_t *sp, size_t cap) {
  free(sp->table);
  sp->table = xmalloc(cap * sizeof *sp->table);
  memset(sp->table, 0xff, cap * sizeof *sp->table);
  sp->table_cap = cap;
  size_t n = nstates_of(sp);
  for (size_t id = 0; id < n; id++) {
    size_t h = hash_state(sp->vals.data + id * sp->nslots, sp->nslots) & (cap - 1);
    while (sp->table[h] != UINT32_MAX) h = (h + 1) & (cap - 1);
    sp->table[h] = (uint32_t)id;
  }
}

/* The id of valuation s, adding it when new. */
static int intern_state(space_t *sp, const int32_t *s, bool *added) {
  size_t n = sp->nslots;
  size_t h = hash_state(s, n) & (sp->table_cap - 1);
  for (; sp->table[h] != UINT32_MAX; h = (h + 1) & (sp->table_cap - 1))
    if (memcmp(sp->vals.data + (size_t)sp->table[h] * n, s, n * sizeof *s) == 0) {
      *added = false;
      return (int)sp->table[h];
    }
  int id = (int)nstates_of(sp);
  if (n == 0 && id == 1) id = 0; /* no variables: one state */
  *added = true;
  VEC_RESERVE(&sp->vals, sp->vals.len + n);
  memcpy(sp->vals.data + sp->vals.len, s, n * sizeof *s);
  sp->vals.len += n;
  sp->table[h] = (uint32_t)id;
  if (2 * nstates_of(sp) >= sp->table_cap) rehash(sp, 2 * sp->table_cap);
  return id;
}

/* Evaluates e; reports `what` at e's location on an evaluation error. */
static bool eval_checked(const expr_t *e, lookup_ctx_t *ctx, long long *out, const char *what, diag_list_t *diags) {
  bool err = false;
  value_t v = expr_eval(e, lookup, ctx, &err);
  if (!err && e->type.kind == TYPE_BOOL) v.i = v.i != 0;
  if (err || v.i < INT32_MIN || v.i > INT32_MAX) {
    diag_error(diags, e->loc, "%s: %s", what, err ? "division by zero or integer overflow" : "value outside 32 bits");
    return false;
  }
  *out = v.i;
  return true;
}

static void apply_initial(const expr_t *e, int32_t *st, const int *slot_of_sym, bool *ok, diag_list_t *diags) {
  if (e->kind == EXPR_AND) {
    apply_initial(e->u.op.a, st, slot_of_sym, ok, diags);
    apply_initial(e->u.op.b, st, slot_of_sym, ok, diags);
    return;
  }
  lookup_ctx_t ctx = {st, slot_of_sym};
  long long v;
  if (e->kind == EXPR_VAR) {
    st[slot_of_sym[e->u.var.id]] = 1;
  } else if (e->kind == EXPR_NOT) {
    st[slot_of_sym[e->u.op.a->u.var.id]] = 0;
  } else if (e->kind == EXPR_EQ) {
    const expr_t *var = e->u.op.a->kind == EXPR_VAR ? e->u.op.a : e->u.op.b;
    const expr_t *val = var == e->u.op.a ? e->u.op.b : e->u.op.a;
    if (eval_checked(val, &ctx, &v, "in the initial condition", diags))
      st[slot_of_sym[var->u.var.id]] = (int32_t)v;
    else
      *ok = false;
  }
}

/* Successors of `cur` appended to *edges (unsorted); false on an error. */
static bool successors(space_t *sp, const int32_t *cur, int32_t *nxt, const int *label_ids, void *edges_vec) {
  VEC(edge_t) *edges = edges_vec;
  const maskd_program_t *prog = sp->prog;
  const int *lid = label_ids;
  for (size_t r = 0; r < prog->runs.len; r++) {
    const run_t *run = &prog->runs.data[r];
    const proc_t *pr = &prog->procs.data[prog->insts.data[run->inst_id].proc];
    lookup_ctx_t ctx = {cur, run->slot_of_sym};
    for (size_t b = 0; b < pr->branches.len; b++, lid++) {
      const branch_t *br = &pr->branches.data[b];
      long long g, v;
      if (!eval_checked(br->guard, &ctx, &g, "in a guard", sp->diags)) return false;
      if (!g) continue;
      memcpy(nxt, cur, sp->nslots * sizeof *cur);
      for (size_t i = 0; i < br->assigns.len; i++) {
        const assign_t *a = &br->assigns.data[i];
        if (!eval_checked(a->rhs, &ctx, &v, "in an assignment", sp->diags)) return false;
        nxt[run->slot_of_sym[a->sym]] = (int32_t)v;
      }
      bool added;
      int dst = intern_state(sp, nxt, &added);
      uint8_t kind = br->faulty ? MASKING_FAULT : br->internal ? MASKING_TAU : MASKING_NORMAL;
      VEC_PUSH(edges, ((edge_t){*lid, dst, kind}));
    }
  }
  return true;
}

static int cmp_edge(const void *x, const void *y) {
  const edge_t *a = x, *b = y;
  if (a->label != b->label) return a->label < b->label ? -1 : 1;
  if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
  return (int)a->kind - (int)b->kind;
}

maskd_status_t maskd_explore(const maskd_program_t *p, intern_t *labels, size_t max_states, masking_lts_t *out,
                             diag_list_t *diags) {
  memset(out, 0, sizeof *out);
  space_t sp = {.prog = p, .nslots = p->slots.len, .diags = diags};
  size_t n = sp.nslots;
  VEC(int) label_ids = {0};
  for (size_t r = 0; r < p->runs.len; r++) {
    const proc_t *pr = &p->procs.data[p->insts.data[p->runs.data[r].inst_id].proc];
    for (size_t b = 0; b < pr->branches.len; b++) VEC_PUSH(&label_ids, intern_add(labels, p->runs.data[r].labels[b]));
  }
  int32_t *cur = xcalloc(n + 1, sizeof *cur), *nxt = xcalloc(n + 1, sizeof *nxt);
  bool ok = true;
  for (size_t r = 0; r < p->runs.len; r++) {
    const run_t *run = &p->runs.data[r];
    const proc_t *pr = &p->procs.data[p->insts.data[run->inst_id].proc];
    apply_initial(pr->initial, cur, run->slot_of_sym, &ok, diags);
  }
  rehash(&sp, 64);
  bool added;
  intern_state(&sp, cur, &added);
  VEC(edge_t) edges = {0};
  VEC(size_t) off = {0};
  maskd_status_t status = ok ? MASKD_OK : MASKD_EVAL_ERROR;
  for (size_t s = 0; status == MASKD_OK && s < nstates_of(&sp); s++) {
    VEC_PUSH(&off, edges.len);
    memcpy(cur, sp.vals.data + s * n, n * sizeof *cur);
    size_t first = edges.len;
    if (!successors(&sp, cur, nxt, label_ids.data, &edges)) {
      status = MASKD_EVAL_ERROR;
      break;
    }
    qsort(edges.data + first, edges.len - first, sizeof *edges.data, cmp_edge);
    size_t w = first;
    for (size_t i = first; i < edges.len; i++)
      if (w == first || cmp_edge(&edges.data[w - 1], &edges.data[i]) != 0) edges.data[w++] = edges.data[i];
    edges.len = w;
    if (nstates_of(&sp) > max_states) {
      diag_error(diags, p->runs.data[0].loc,
                 "state space exceeds %zu states (the variables must have finitely many reachable values)",
                 max_states);
      status = MASKD_TOO_BIG;
    }
  }
  if (status == MASKD_OK) {
    VEC_PUSH(&off, edges.len);
    out->nstates = nstates_of(&sp);
    out->nedges = edges.len;
    out->off = off.data;
    out->label = xmalloc((edges.len + 1) * sizeof(int));
    out->dst = xmalloc((edges.len + 1) * sizeof(int));
    out->kind = xmalloc(edges.len + 1);
    for (size_t i = 0; i < edges.len; i++) {
      out->label[i] = edges.data[i].label;
      out->dst[i] = edges.data[i].dst;
      out->kind[i] = edges.data[i].kind;
    }
    out->nslots = n;
    out->vals = sp.vals.data;
    sp.vals.data = NULL;
  } else {
    VEC_FREE(&off);
  }
  VEC_FREE(&edges);
  VEC_FREE(&sp.vals);
  VEC_FREE(&label_ids);
  free(sp.table);
  free(cur);
  free(nxt);
  return status;
}

void maskd_state_string(const maskd_program_t *p, const masking_lts_t *lts, size_t s, strbuf_t *out) {
  const int32_t *v = lts->vals + s * lts->nslots;
  strbuf_putc(out, '<');
  bool first = true;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < p->slots.len; i++) {
      const slot_t *sl = &p->slots.data[i];
      if ((sl->kind == TYPE_BOOL) != (pass == 0) || (sl->kind == TYPE_BOOL && !v[i])) continue;
      if (!first) strbuf_puts(out, ", ");
      first = false;
      strbuf_puts(out, sl->name);
      if (sl->kind == TYPE_ENUM)
        strbuf_printf(out, "=%s", v[i] > 0 && (size_t)v[i] < p->values.len ? p->values.data[v[i]] : "\"\"");
      else if (sl->kind == TYPE_INT)
        strbuf_printf(out, "=%d", (int)v[i]);
    }
  strbuf_putc(out, '>');
}
