/* The solver backend: the only module that talks to Z3. Terms are dense
 * integer handles into a table this module owns, so no Z3 type leaks out.
 * One smt_t per analysis run; incremental use through push/pop and
 * check-with-assumptions; budgets through a timeout and a resource limit.
 * Z3 errors never exit the process: they are recorded and reported. */
#ifndef VERIFIER_SMT_H
#define VERIFIER_SMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ism/expr.h"

typedef uint32_t smt_term_t; /* 0 is "no term" */

typedef enum { SMT_SORT_BOOL, SMT_SORT_INT, SMT_SORT_REAL } smt_sort_t;
typedef enum { SMT_UNSAT, SMT_SAT, SMT_UNKNOWN } smt_result_t;

typedef struct {
  unsigned timeout_ms;       /* per check; 0 = none */
  unsigned long long rlimit; /* per check, Z3 resource units (deterministic); 0 = none */
  bool simple;               /* Z3's plain SMT solver, without the preprocessing tactics of its default
                                one: about 1 ms to make and first use instead of 8 (a solver per
                                counterexample); incremental use goes to the SMT core either way */
} smt_options_t;

typedef struct smt smt_t;

typedef struct {
  unsigned long long checks; /* calls of smt_check */
  unsigned long long sat, unsat, unknown;
} smt_stats_t;

smt_t *smt_new(const smt_options_t *options);
void smt_delete(smt_t *s);

/* A fresh constant of the given sort. `name` is for printing only:
 * constants with equal names are still distinct. */
smt_term_t smt_const(smt_t *s, const char *name, smt_sort_t sort);
smt_term_t smt_bool(smt_t *s, bool b);
smt_term_t smt_int(smt_t *s, long long v);
/* A real numeral from decimal text ("1.5", "-2", "1e-3"; the syntax and
 * range of ism/number.h), exact whatever its length, or from a double as its
 * shortest decimal that reads back as the same double (0.1 is 1/10). */
smt_term_t smt_real_text(smt_t *s, const char *decimal);
smt_term_t smt_real(smt_t *s, double v);
/* Applies an operator of the expression language (EXPR_ADD, EXPR_LE, EXPR_ITE, ...)
 * to terms; b and c are 0 where the operator takes fewer operands. */
smt_term_t smt_op(smt_t *s, expr_kind_t op, smt_term_t a, smt_term_t b, smt_term_t c);
/* Conjunction/disjunction of n terms (n = 0: true/false). */
smt_term_t smt_and(smt_t *s, const smt_term_t *terms, size_t n);
smt_term_t smt_or(smt_t *s, const smt_term_t *terms, size_t n);

/* Translates a checked expression; each EXPR_VAR node is mapped to a term
 * by var(ctx, node). Returns 0 if var returned 0. */
typedef smt_term_t (*smt_var_fn)(void *ctx, const expr_t *var);
smt_term_t smt_translate(smt_t *s, const expr_t *e, smt_var_fn var, void *ctx);
/* The condition under which a checked expression is defined, read left to
 * right as Rodin's WD and as expr_eval evaluates: every divisor evaluated is
 * not 0, the right of and/or/=> only where the left lets it matter, a branch
 * of `if` only where it is taken. true (the term) when e does not divide. */
smt_term_t smt_defined(smt_t *s, const expr_t *e, smt_var_fn var, void *ctx);
/* A condition that holds: defined and true. An undefined condition is false,
 * as it is for expr_eval_bool with its error flag; the same term as
 * smt_translate when e does not divide. */
smt_term_t smt_translate_holds(smt_t *s, const expr_t *e, smt_var_fn var, void *ctx);

/* Quantifiers over constants made with smt_const. */
smt_term_t smt_forall(smt_t *s, const smt_term_t *bound, size_t n, smt_term_t body);
smt_term_t smt_exists(smt_t *s, const smt_term_t *bound, size_t n, smt_term_t body);
/* Quantifier elimination (Z3 tactics qe + simplify): a quantifier-free term
 * equivalent to `t`, or 0 (with smt_error set) when it fails, is
 * interrupted (smt_stop_all, a deadline) or a stop is requested
 * (ism/stop.h) before it starts. */
smt_term_t smt_eliminate_quantifiers(smt_t *s, smt_term_t t);
smt_term_t smt_simplify(smt_t *s, smt_term_t t);
/* An equivalent, usually smaller term: Z3's tactics simplify,
 * propagate-ineqs and ctx-solver-simplify (for display; may cost solver
 * calls). Returns t itself when the tactics fail. */
smt_term_t smt_simplify_deep(smt_t *s, smt_term_t t);

void smt_assert(smt_t *s, smt_term_t t);
void smt_push(smt_t *s);
void smt_pop(smt_t *s, unsigned n);
/* Checks the assertions together with the assumption literals. */
smt_result_t smt_check(smt_t *s, const smt_term_t *assumptions, size_t n);
/* Checks the conjunction of the n terms by themselves: in a second solver
 * of the same context (made on first use), without s's assertions, scopes
 * or model (s's last model stays). The answer is Z3's. */
smt_result_t smt_check_alone(smt_t *s, const smt_term_t *terms, size_t n);
/* The value of t when Z3's simplifier reduces it to a constant: a numeral
 * ("3", "5/2", "-1") or "true"/"false" (caller frees); else NULL. */
char *smt_constant_text(smt_t *s, smt_term_t t);
/* Interrupts any check still running `seconds` from now (0: no deadline),
 * through a watchdog thread: no cost per check. A check interrupted this
 * way answers SMT_UNKNOWN and smt_deadline_passed turns true. */
void smt_set_deadline(smt_t *s, double seconds);
bool smt_deadline_passed(const smt_t *s);

/* Interrupts every running check of the process (after a stop request of
 * ism/stop.h: a signal, the time limit): it answers SMT_UNKNOWN, and so
 * does every later check while the request stands. Thread-safe; not for a
 * signal handler itself (call it from a thread the handler wakes). */
void smt_stop_all(void);
/* Whether a stop was requested (ism/stop.h's stop_requested). */
bool smt_stop_requested(void);
/* Caps the memory of every solver made afterwards at mb mebibytes (beyond
 * it a check answers SMT_UNKNOWN). */
void smt_set_memory_limit(size_t mb);

/* After SAT: the model's value of t (model completion on). Reals and ints
 * as a double (*exact, if given, gets the exact rational text "p/q" or
 * "p", or a decimal approximation for algebraic numbers; caller frees). */
bool smt_model_real(smt_t *s, smt_term_t t, double *value, char **exact);
bool smt_model_bool(smt_t *s, smt_term_t t, bool *value);
/* After SAT: the model's value of t (real, int or bool) as an exact
 * rational num/den (den > 0; bools 0 or 1) when it fits in 64 bits
 * (SMT_VALUE_EXACT, *approx set too), else only as a double
 * (SMT_VALUE_APPROX: a big rational or an algebraic number), or none. */
typedef enum { SMT_VALUE_NONE, SMT_VALUE_APPROX, SMT_VALUE_EXACT } smt_value_t;
smt_value_t smt_model_value(smt_t *s, smt_term_t t, long long *num, long long *den, double *approx);

/* Term table marks: terms made after a mark can be released in one go,
 * which keeps memory flat in a depth-first search. */
size_t smt_mark(const smt_t *s);
void smt_release(smt_t *s, size_t mark);

/* The term in SMT-LIB syntax (caller frees). */
char *smt_to_string(smt_t *s, smt_term_t t);
/* The last Z3 error or "unknown" reason, or NULL. */
const char *smt_error(const smt_t *s);
smt_stats_t smt_stats(const smt_t *s);

/* ---- back from terms to the expression language (used to write models) ---- */

/* How smt_to_text prints an uninterpreted constant: `text`, and for an
 * enum-typed constant its value names (a numeral compared with it by = or
 * distinct prints as the value's name). */
typedef struct {
  const char *text;
  const char *const *enum_values;
  int nenum_values;
} smt_leaf_t;
/* Called with the constant's solver name (as made by smt_const, with its
 * "!N" suffix); returns false when the constant is unknown. */
typedef bool (*smt_leaf_fn)(void *ctx, const char *const_name, smt_leaf_t *out);
/* The quantifier-free term t in the concrete syntax of ism/expr.h (caller
 * frees), or NULL (with smt_error set) when t uses something the language
 * cannot express: quantifiers, integer div/mod, to_int, unknown constants. */
char *smt_to_text(smt_t *s, smt_term_t t, smt_leaf_fn leaf, void *ctx);
/* A readable equivalent of the quantifier-free t where `given` holds, in the
 * syntax of smt_to_text: a disjunction of conjunctions found by the solver
 * (a model of t, its atoms' truth values, then every literal dropped that the
 * rest does not need to imply t; the conjunction is blocked and the next
 * model sought), each conjunction with the bounds on one numeric constant
 * merged into an interval ("27 <= temp_hat and temp_hat <= 32") before the
 * other literals. Caller frees. NULL (nothing printed) when t has more than
 * max_cubes conjunctions, an atom the language lacks, or a check is unknown:
 * the caller falls back to smt_to_text. Uses the solver (push/pop). */
char *smt_to_readable_text(smt_t *s, smt_term_t t, smt_term_t given, size_t max_cubes, smt_leaf_fn leaf,
                           void *ctx);
/* The solver name of a constant made with smt_const (caller frees). */
char *smt_name(smt_t *s, smt_term_t constant);

/* ---- exact rationals (Z3's arbitrary-precision numerals) ---- */

/* a op b for op EXPR_ADD, EXPR_SUB, EXPR_MUL or EXPR_DIV on rational texts
 * ("p", "-p", "p/q" or decimals such as "2.5"); the exact result as "p" or
 * "p/q" (caller frees), or NULL for malformed text or a division by zero. */
char *smt_q_arith(smt_t *s, expr_kind_t op, const char *a, const char *b);
/* -1, 0 or 1 as a < b, a = b, a > b (0 also for malformed text). */
int smt_q_cmp(smt_t *s, const char *a, const char *b);
/* The largest integer <= a, as text (caller frees), or NULL. */
char *smt_q_floor(smt_t *s, const char *a);
/* The points where the arithmetic atoms of the quantifier-free term t change
 * truth value, when every atom compares two terms linear in the constant x
 * alone: the root of each non-constant atom, exact, ascending, without
 * duplicates (caller frees each and the array). Returns false (smt_error
 * set, no roots) when an atom mentions another constant, mod, div, ite or a
 * product of variables. */
bool smt_linear_roots(smt_t *s, smt_term_t t, smt_term_t x, char ***roots, size_t *nroots);

#endif
