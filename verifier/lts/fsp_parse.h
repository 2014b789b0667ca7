/* The FSP front end's reader (private to verifier/fsp*.c): the lexer, the
 * token cursor, constant expressions and action-label patterns, over the
 * types shared by the front end (the parsed file, the compile context).
 * Errors longjmp out through fsp_fail; resources opened with the stacks
 * in fsp_ctx_t are released by the caller of setjmp. */
#ifndef VERIFIER_FSP_PARSE_H
#define VERIFIER_FSP_PARSE_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "ism/alloc.h"
#include "ism/intern.h"
#include "ism/strbuf.h"
#include "ism/vec.h"
#include "verifier/lts/fsp.h"

/* The compiler is a parser-evaluator over a token array: a process body is
 * re-read from its first token for every instantiation (local process with
 * index values, label binding), with an environment of bindings. In
 * "dead" mode (false guard, first syntax pass) it only checks syntax. */

typedef enum {
  FSP_TOK_EOF,
  FSP_TOK_UIDENT,
  FSP_TOK_LIDENT,
  FSP_TOK_INT,
  FSP_TOK_STRING,
  FSP_TOK_LPAREN,
  FSP_TOK_RPAREN,
  FSP_TOK_LBRACK,
  FSP_TOK_RBRACK,
  FSP_TOK_LBRACE,
  FSP_TOK_RBRACE,
  FSP_TOK_COMMA,
  FSP_TOK_DOT,
  FSP_TOK_DOTDOT,
  FSP_TOK_COLON,
  FSP_TOK_COLONCOLON,
  FSP_TOK_ASSIGN,
  FSP_TOK_EQ,
  FSP_TOK_NE,
  FSP_TOK_LT,
  FSP_TOK_LE,
  FSP_TOK_GT,
  FSP_TOK_GE,
  FSP_TOK_SHL,
  FSP_TOK_SHR,
  FSP_TOK_PLUS,
  FSP_TOK_MINUS,
  FSP_TOK_STAR,
  FSP_TOK_SLASH,
  FSP_TOK_PERCENT,
  FSP_TOK_NOT,
  FSP_TOK_ANDAND,
  FSP_TOK_OROR,
  FSP_TOK_BAR,
  FSP_TOK_AMP,
  FSP_TOK_CARET,
  FSP_TOK_ARROW,
  FSP_TOK_BACKSLASH,
  FSP_TOK_AT,
  FSP_TOK_QUESTION,
  FSP_TOK_SEMI
} fsp_tok_kind_t;

typedef struct {
  fsp_tok_kind_t kind;
  loc_t loc;
  const char *text; /* arena copy of the spelling */
  long long value;  /* FSP_TOK_INT */
} fsp_token_t;

typedef struct {
  bool str;
  long long i;
  const char *s;
} fsp_val_t;

typedef struct {
  const char *name;
  fsp_val_t value;
} fsp_binding_t;

typedef struct {
  const char *name;
  const char **items;
  size_t count;
} fsp_named_set_t;

typedef struct {
  const char *name;
  long long lo, hi;
} fsp_named_range_t;

typedef struct {
  const char *name;
  size_t body; /* token index of the body (after '=') */
  size_t nidx; /* number of index declarations */
  size_t idx;  /* token index of the first '[' of the declarations */
} fsp_local_def_t;

/* An FLTL formula (fsp_fltl.c): a tree in the file's arena. */
typedef struct fsp_formula fsp_formula_t;

/* fluent NAME = <{initiating}, {terminating}> initially B */
typedef struct {
  const char *name;
  loc_t loc;
  const char **init, **term;
  size_t ninit, nterm;
  bool initially;
} fsp_fluent_t;

typedef struct {
  const char *name;
  loc_t loc;
  fsp_formula_t *formula; /* non-NULL: an FLTL `assert`, compiled to a safety property */
  bool composite, property;
  bool minimal, deterministic; /* LTSA's `minimal` / `deterministic` prefixes */
  bool compose_first;          /* composite: its trailer hides (\ or @) or sets a priority (<< >>),
                                  so it is composed before use, not flattened into its user */
  size_t params;               /* token index of '(' of the parameter list, or 0 */
  size_t nparams;
  VEC(fsp_local_def_t) locals; /* primitive: locals.data[0] is the main process */
  size_t body;                 /* composite: token index of the body */
  size_t trailer;              /* token index of the trailer (+{} / \ @) before '.' */
} fsp_proc_def_t;

struct fsp_file {
  arena_t arena;
  lts_labels_t *labels;
  const char *path;
  fsp_token_t *toks;
  size_t ntoks;
  VEC(fsp_binding_t) consts;
  VEC(fsp_named_range_t) ranges;
  VEC(fsp_named_set_t) sets;
  VEC(fsp_named_set_t) menus;
  VEC(fsp_proc_def_t) procs;
  VEC(fsp_fluent_t) fluents;
  VEC(fsp_progress_t) progress; /* in definition order, one per index value */
  long max_states;              /* limit on states, transitions and labels of one LTS built */
  bool limit_hit;               /* a compilation stopped at max_states */
  bool foreign; /* the file does not start like FSP (a file named by mistake): one error, unechoed */
  int nerrors;  /* syntax errors reported while parsing */
};

typedef VEC(lts_t *) fsp_ltsvec_t;

typedef VEC(const char *) fsp_strvec_t;

typedef VEC(fsp_val_t) fsp_valvec_t;

typedef struct {
  fsp_file_t *f;
  diag_list_t *d;
  jmp_buf fail;
  size_t pos;
  bool live;
  VEC(fsp_binding_t) env;
  /* resources to release on failure */
  VEC(lts_t *) temps;
  VEC(lts_builder_t *) builders;
  VEC(intern_t *) interns;
  /* the primitive process being compiled */
  fsp_proc_def_t *proc;
  lts_builder_t *b;
  intern_t *inst;         /* instance key -> index in inst_state */
  VEC(int) inst_state;    /* state of an instance; -2 while an alias resolves */
  VEC(size_t) work_local; /* worklist of (local, env snapshot, state) */
  VEC(int) work_state;
  VEC(fsp_binding_t *) work_env;
  VEC(void *) owned;         /* a stack of heap blocks freed on failure */
  VEC(strbuf_t *) bufs;      /* label buffers being built, freed on failure */
  VEC(fsp_ltsvec_t *) lists; /* composition element lists being built, freed on failure */
  VEC(fsp_strvec_t *) strs;  /* label lists being built, freed on failure */
  VEC(size_t) work_nenv;
  int stop, end, error;
  int depth;
  int nesting;      /* current depth of fsp_nest */
  size_t param_len; /* bindings of the process parameters at the bottom of env */
} fsp_ctx_t;

/* The token cursor; next never moves past FSP_TOK_EOF. */
static inline const fsp_token_t *peek(const fsp_ctx_t *c) { return &c->f->toks[c->pos]; }
static inline const fsp_token_t *peek2(const fsp_ctx_t *c) {
  return &c->f->toks[c->pos + 1 < c->f->ntoks ? c->pos + 1 : c->pos];
}
static inline bool at(const fsp_ctx_t *c, fsp_tok_kind_t k) { return peek(c)->kind == k; }
static inline const fsp_token_t *next(fsp_ctx_t *c) {
  const fsp_token_t *t = peek(c);
  if (t->kind != FSP_TOK_EOF) c->pos++;
  return t;
}
static inline bool accept(fsp_ctx_t *c, fsp_tok_kind_t k) {
  if (!at(c, k)) return false;
  next(c);
  return true;
}

/* Reports an error at `loc` and longjmps to c->fail. */
void fsp_fail(fsp_ctx_t *c, loc_t loc, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));
/* The same for a size limit (--max-states): also sets f->limit_hit; the
 * message gets " (limit N; raise --max-states)". */
void fsp_fail_limit(fsp_ctx_t *c, loc_t loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* Fails on an empty range lo..hi, or one with more than max_states values. */
void fsp_check_range(fsp_ctx_t *c, loc_t loc, long long lo, long long hi);
/* Enters one level of nesting of the input (parentheses, prefixes, aliases,
 * expressions), failing with a located error past FSP_MAX_NESTING: the
 * front end recurses on these, so its stack stays bounded. */
void fsp_nest(fsp_ctx_t *c, loc_t loc);
static inline void fsp_unnest(fsp_ctx_t *c) { c->nesting--; }
/* The spelling of t for messages ("end of file" at the end). */
const char *fsp_describe(const fsp_token_t *t);
/* Consumes a token of kind k or fails with "expected `what`". */
const fsp_token_t *fsp_expect(fsp_ctx_t *c, fsp_tok_kind_t k, const char *what);
bool fsp_is_kw(const fsp_token_t *t, const char *kw);

/* Splits `text` into f->toks (ending with FSP_TOK_EOF), the spellings in
 * f->arena. Reports the first lexical error and returns false. */
bool fsp_lex(fsp_file_t *f, const char *path, const char *text, diag_list_t *d);

/* Name lookups; NULL when undefined. fsp_find_binding searches the environment
 * innermost first, then the constants. */
const fsp_binding_t *fsp_find_binding(const fsp_ctx_t *c, const char *name);
const fsp_named_range_t *fsp_find_range(const fsp_file_t *f, const char *name);
const fsp_named_set_t *fsp_find_set(const fsp_file_t *f, const char *name);
fsp_proc_def_t *fsp_find_proc(const fsp_file_t *f, const char *name);
void fsp_push_binding(fsp_ctx_t *c, const char *name, fsp_val_t v);

fsp_val_t fsp_ival(long long i);
/* A C expression over constants and bindings (in dead mode undefined names
 * and type errors are not reported). */
fsp_val_t fsp_expr(fsp_ctx_t *c);
long long fsp_int_expr(fsp_ctx_t *c);

/* Called with each label of a pattern (the label lives in the file's arena). */
typedef void (*fsp_label_fn)(fsp_ctx_t *c, const char *label, void *data);
bool fsp_starts_label(const fsp_ctx_t *c);
/* Moves the cursor over the label pattern there, checking its syntax only. */
void fsp_skip_label(fsp_ctx_t *c);
/* Enumerates the label pattern at the cursor, calling fn(label) for every
 * value with its bindings pushed. Leaves the cursor after the pattern. */
void fsp_enum_label(fsp_ctx_t *c, fsp_label_fn fn, void *data);
/* Appends all the labels of the pattern at the cursor to out. */
void fsp_labels_of(fsp_ctx_t *c, fsp_strvec_t *out);
const char *fsp_label_dup(fsp_ctx_t *c, const char *s);
/* Appends a value as a label part: numbers in brackets, names after a dot. */
void fsp_put_value(strbuf_t *sb, fsp_val_t v);
/* A set expression `{...}` or a named set: appends all its labels to out. */
void fsp_set_expr(fsp_ctx_t *c, fsp_strvec_t *out);

/* A label list on c's stack of lists released on failure; closed LIFO. */
fsp_strvec_t *fsp_open_strs(fsp_ctx_t *c);
void fsp_close_strs(fsp_ctx_t *c);

#endif
