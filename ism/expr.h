/* The expression language shared by every analysis: one parser, one type
 * checker, one evaluator. Literals (int, real, bool), names (variables,
 * parameters, enum values), primed names x' (value after a step), + - * /
 * % unary minus, abs min max, comparisons, and or not => <=> (also && || !
 * -> <->), if c then a else b. Parsing only builds the tree; expr_check
 * resolves names against a caller-provided scope and computes types. */
#ifndef ISM_EXPR_H
#define ISM_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/alloc.h"
#include "ism/diag.h"

typedef enum { TYPE_NONE, TYPE_BOOL, TYPE_INT, TYPE_REAL, TYPE_ENUM } type_kind_t;

/* A value type. enum_id indexes expr_scope_t.enums when kind == TYPE_ENUM. */
typedef struct {
  type_kind_t kind;
  int enum_id;
} type_t;

typedef enum {
  EXPR_INT, EXPR_REAL, EXPR_BOOL, /* literals */
  EXPR_NAME,                      /* unresolved identifier (before expr_check) */
  EXPR_VAR,                       /* resolved variable or parameter */
  EXPR_ENUM,                      /* resolved enum constant */
  EXPR_NEG, EXPR_NOT, EXPR_ABS, EXPR_TOREAL, /* unary; TOREAL is an inserted int->real coercion */
  EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_DIV, EXPR_MOD, EXPR_MIN, EXPR_MAX,
  EXPR_EQ, EXPR_NE, EXPR_LT, EXPR_LE, EXPR_GT, EXPR_GE,
  EXPR_AND, EXPR_OR, EXPR_IMPLIES, EXPR_IFF,
  EXPR_ITE
} expr_kind_t;

typedef struct expr expr_t;
struct expr {
  expr_kind_t kind;
  type_t type; /* set by expr_check */
  loc_t loc;   /* first character of the construct */
  union {
    long long ival;          /* EXPR_INT; EXPR_ENUM: value index */
    bool bval;               /* EXPR_BOOL */
    struct {
      double value;
      const char *text;      /* decimal text as written, for exact solver terms */
    } real;                  /* EXPR_REAL */
    struct {
      const char *name;
      bool primed;
      int id;                /* EXPR_VAR: symbol id from the scope */
      int sym_kind;          /* EXPR_VAR: expr_sym_kind_t of the symbol */
    } var;                   /* EXPR_NAME, EXPR_VAR */
    struct {
      expr_t *a, *b, *c;     /* operands; c only for EXPR_ITE */
    } op;
  } u;
};

/* Input limits: no expression tree (and no nesting of the parser) deeper
 * than EXPR_MAX_DEPTH, a located error; `and`/`or` chains longer than
 * EXPR_CHAIN_BALANCE operands are grouped as a balanced tree (the same value,
 * evaluated in the same order). */
#define EXPR_MAX_DEPTH 1000
#define EXPR_CHAIN_BALANCE 64

/* Parses `text` into a tree allocated in `arena`. `start` is the location
 * of text[0]; every node's loc is computed from it. On a syntax error
 * reports it and returns NULL. */
expr_t *expr_parse(const char *text, loc_t start, arena_t *arena, diag_list_t *diags);

/* ---- scopes and checking ---- */

typedef enum { SYM_VAR, SYM_PARAM, SYM_CONST } expr_sym_kind_t;

typedef struct {
  const char *name;
  int nvalues;
  const char *const *values;
} expr_enum_t;

typedef struct {
  const char *name;
  expr_sym_kind_t kind;
  type_t type;
  int id;             /* caller's id, copied into EXPR_VAR nodes */
  bool primable;      /* may appear as name' */
} expr_sym_t;

/* A scope is borrowed by expr_check; it owns nothing. Enum value names are
 * global within a scope and must be distinct across enums. */
typedef struct {
  const expr_sym_t *syms;
  size_t nsyms;
  const expr_enum_t *enums;
  size_t nenums;
  bool allow_primed;  /* may primed names appear at all here? */
} expr_scope_t;

/* Resolves names and computes types in place. `want` is the required type
 * of the whole expression (TYPE_NONE: any). Reports every error found
 * (undefined name with a suggestion, operand types, priming where not
 * allowed) and returns false if there was one. Int operands are coerced to
 * real where a real is needed (EXPR_TOREAL nodes are inserted). */
bool expr_check(expr_t *e, const expr_scope_t *scope, type_kind_t want, arena_t *arena, diag_list_t *diags);

/* ---- evaluation ---- */

/* A run-time value: ints, bools and enum indices use i, reals use r. */
typedef struct {
  long long i;
  double r;
} value_t;

/* How an evaluation reads variables: lookup(ctx, id, primed). */
typedef value_t (*expr_lookup_fn)(void *ctx, int id, bool primed);

/* Evaluates a checked expression. Integer division and modulo by zero,
 * and overflow, set *error (if non-NULL) and yield 0. */
value_t expr_eval(const expr_t *e, expr_lookup_fn lookup, void *ctx, bool *error);
bool expr_eval_bool(const expr_t *e, expr_lookup_fn lookup, void *ctx, bool *error);
double expr_eval_real(const expr_t *e, expr_lookup_fn lookup, void *ctx, bool *error); /* int or real */

/* ---- utilities ---- */

/* Appends e in concrete syntax (fully parenthesised where needed) to a
 * fresh string; the caller frees it. Enum constants print by name when the
 * scope is given. */
char *expr_to_string(const expr_t *e, const expr_scope_t *scope);
/* Whether e divides (`/`, `%`) anywhere: its value may then be undefined
 * (expr_eval sets its error flag where a divisor is 0). NULL: false. */
bool expr_partial(const expr_t *e);
/* Calls fn for every EXPR_VAR node. */
void expr_visit_vars(const expr_t *e, void (*fn)(void *ctx, const expr_t *var), void *ctx);
/* Deep copy into arena, with each EXPR_VAR node passed through `map`
 * (may return a new node or the copy it was given). */
expr_t *expr_copy(const expr_t *e, arena_t *arena, expr_t *(*map)(void *ctx, expr_t *var), void *ctx);
/* Builders for synthesised expressions (loc is copied). */
expr_t *expr_new_binary(arena_t *arena, expr_kind_t kind, expr_t *a, expr_t *b, loc_t loc);
expr_t *expr_new_unary(arena_t *arena, expr_kind_t kind, expr_t *a, loc_t loc);
expr_t *expr_new_bool(arena_t *arena, bool b, loc_t loc);
expr_t *expr_new_int(arena_t *arena, long long v, loc_t loc);
expr_t *expr_new_var(arena_t *arena, const char *name, int id, int sym_kind, type_t type, bool primed, loc_t loc);
const char *expr_type_name(type_t t, const expr_scope_t *scope);
/* The comparison that holds exactly when comparison k (EXPR_EQ..EXPR_GE)
 * does not: < and >=, <= and >, == and !=. */
expr_kind_t expr_negated_comparison(expr_kind_t k);
/* Whether k is one of the comparisons ==, !=, <, <=, >, >=. */
bool expr_is_comparison(expr_kind_t k);
/* a k b for a comparison kind k on two reals (EXPR_GE for any other k);
 * inline: the joint estimator's cells compare every leaf with it. */
static inline bool expr_compare_reals(expr_kind_t k, double a, double b) {
  switch (k) {
  case EXPR_EQ: return a == b;
  case EXPR_NE: return a != b;
  case EXPR_LT: return a < b;
  case EXPR_LE: return a <= b;
  case EXPR_GT: return a > b;
  default: return a >= b;
  }
}

#endif
