#include "verifier/masking/maskd_parse.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  bool whole_file; /* the text is a file of its own (not a program inside a YAML config) */
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

static void parse_type(parser_t *p, maskd_decl_t *d) {
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
  VEC(maskd_decl_t) *out = out_vec;
  size_t first = out->len;
  do {
    maskd_decl_t d = {0};
    d.name = expect_name(p, "a variable name", &d.loc);
    if (!d.name) return;
    VEC_PUSH(out, d);
  } while (accept(p, T_COMMA));
  if (!expect(p, T_COLON, "':'")) return;
  maskd_decl_t t = {0};
  parse_type(p, &t);
  for (size_t i = first; i < out->len; i++) {
    out->data[i].type_name = t.type_name;
    out->data[i].type_loc = t.type_loc;
    out->data[i].kind = t.kind;
    out->data[i].enum_decl = -1;
  }
}

static void parse_enum(parser_t *p) {
  maskd_enum_decl_t en = {0};
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

static void parse_branch(parser_t *p, maskd_proc_t *pr) {
  maskd_branch_t b = {0};
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
    maskd_assign_t a = {0};
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
  maskd_proc_t pr = {0};
  next(p);
  pr.name = expect_name(p, "a process name", &pr.loc);
  if (accept(p, T_LPAREN)) {
    do {
      maskd_decl_t d = {0};
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
      maskd_inst_t in = {.proc = -1, .run = -1};
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
    maskd_run_t r = {.inst_id = -1};
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
  if (!p->failed && p->prog->procs.len == 0 && p->prog->enums.len == 0 && p->prog->globals.len == 0 &&
      p->whole_file && p->tok.kind != T_EOF) {
    /* the first token: perhaps a file named by mistake, not to be echoed */
    diag_source_conceal(p->diags, p->tok.loc.file);
    diag_error(p->diags, p->tok.loc, "expected 'Enum', 'Global' or 'Process' at the start of the file: is this a "
                                     "MaskD program?");
    p->failed = true;
    return;
  }
  if (!p->failed && p->prog->procs.len == 0) {
    syntax_error(p, "'Enum', 'Global' or 'Process'");
    return;
  }
  parse_main(p);
  if (!p->failed && p->tok.kind != T_EOF) syntax_error(p, "end of file");
}

bool maskd_parse_syntax(maskd_program_t *prog, const char *text, loc_t start, int indent, diag_list_t *diags) {
  parser_t p = {.src = text, .pos = text, .loc = start, .indent = indent, .prog = prog, .diags = diags};
  p.whole_file = start.line == 1 && start.col == 1 && indent == 0;
  if (p.whole_file) diag_source_conceal_binary(diags, start.file); /* a binary named by mistake */
  next(&p);
  parse_spec(&p);
  return !p.failed;
}
