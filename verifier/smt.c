#include "verifier/smt.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <z3.h>

#include "ism/alloc.h"
#include "ism/strbuf.h"
#include "ism/strbuf.h"
#include "ism/vec.h"

/* A deadline is enforced by a watchdog thread that interrupts Z3 when it
 * passes: unlike Z3's per-check timeout (a timer per check, and a parameter
 * change whenever the remaining time shrinks), it costs nothing per check. */
typedef struct {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  struct timespec at;
  bool running, cancelled;
  atomic_bool fired;
} watchdog_t;

struct smt {
  Z3_context ctx;
  watchdog_t watchdog;
  Z3_solver solver;
  Z3_model model;        /* of the last SAT check, or NULL */
  VEC(Z3_ast) terms;     /* terms.data[0] is unused (0 = no term) */
  smt_options_t options;
  smt_stats_t stats;
  char *error;
  unsigned long long next_name;
};

/* Z3's default handler calls exit(); ours records nothing and lets every
 * call site read Z3_get_error_code instead. */
static void ignore_error(Z3_context ctx, Z3_error_code code) {
  (void)ctx;
  (void)code;
}

static void set_error(smt_t *s, const char *msg) {
  free(s->error);
  s->error = xstrdup(msg);
}

static bool z3_failed(smt_t *s) {
  Z3_error_code code = Z3_get_error_code(s->ctx);
  if (code == Z3_OK) return false;
  set_error(s, Z3_get_error_msg(s->ctx, code));
  return true;
}

static smt_term_t add(smt_t *s, Z3_ast a) {
  if (z3_failed(s)) return 0;
  if (!a) {
    set_error(s, "Z3 could not build a term");
    return 0;
  }
  Z3_inc_ref(s->ctx, a);
  VEC_PUSH(&s->terms, a);
  return (smt_term_t)(s->terms.len - 1);
}

static Z3_ast get(const smt_t *s, smt_term_t t) {
  assert(t > 0 && t < s->terms.len);
  return s->terms.data[t];
}

static void apply_params(smt_t *s) {
  Z3_params p = Z3_mk_params(s->ctx);
  Z3_params_inc_ref(s->ctx, p);
  /* A timeout starts a timer per check: set it only when asked for. */
  if (s->options.timeout_ms)
    Z3_params_set_uint(s->ctx, p, Z3_mk_string_symbol(s->ctx, "timeout"), s->options.timeout_ms);
  if (s->options.rlimit)
    Z3_params_set_uint(s->ctx, p, Z3_mk_string_symbol(s->ctx, "rlimit"), (unsigned)s->options.rlimit);
  Z3_solver_set_params(s->ctx, s->solver, p);
  Z3_params_dec_ref(s->ctx, p);
}

smt_t *smt_new(const smt_options_t *options) {
  smt_t *s = xcalloc(1, sizeof *s);
  if (options) s->options = *options;
  Z3_config cfg = Z3_mk_config();
  Z3_set_param_value(cfg, "model", "true");
  s->ctx = Z3_mk_context_rc(cfg);
  Z3_del_config(cfg);
  Z3_set_error_handler(s->ctx, ignore_error);
  s->solver = Z3_mk_solver(s->ctx);
  Z3_solver_inc_ref(s->ctx, s->solver);
  apply_params(s);
  VEC_PUSH(&s->terms, NULL);
  return s;
}

static void drop_model(smt_t *s) {
  if (s->model) Z3_model_dec_ref(s->ctx, s->model);
  s->model = NULL;
}

static void *watch(void *arg) {
  smt_t *s = arg;
  watchdog_t *w = &s->watchdog;
  pthread_mutex_lock(&w->lock);
  int rc = 0;
  while (!w->cancelled && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&w->wake, &w->lock, &w->at);
  if (!w->cancelled) {
    atomic_store(&w->fired, true);
    Z3_interrupt(s->ctx);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

static void stop_watchdog(smt_t *s) {
  watchdog_t *w = &s->watchdog;
  if (!w->running) return;
  pthread_mutex_lock(&w->lock);
  w->cancelled = true;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->lock);
  w->running = false;
}

void smt_set_deadline(smt_t *s, double seconds) {
  stop_watchdog(s);
  watchdog_t *w = &s->watchdog;
  atomic_store(&w->fired, false);
  if (seconds <= 0) return;
  clock_gettime(CLOCK_REALTIME, &w->at);
  double whole = (double)(long long)seconds;
  w->at.tv_sec += (time_t)whole;
  w->at.tv_nsec += (long)((seconds - whole) * 1e9);
  if (w->at.tv_nsec >= 1000000000L) w->at.tv_sec++, w->at.tv_nsec -= 1000000000L;
  w->cancelled = false;
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->wake, NULL);
  w->running = pthread_create(&w->thread, NULL, watch, s) == 0;
  if (!w->running) {
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
  }
}

bool smt_deadline_passed(const smt_t *s) { return atomic_load(&s->watchdog.fired); }

void smt_delete(smt_t *s) {
  if (!s) return;
  stop_watchdog(s);
  drop_model(s);
  for (size_t i = 1; i < s->terms.len; i++) Z3_dec_ref(s->ctx, s->terms.data[i]);
  VEC_FREE(&s->terms);
  Z3_solver_dec_ref(s->ctx, s->solver);
  Z3_del_context(s->ctx);
  free(s->error);
  free(s);
}

static Z3_sort sort_of(smt_t *s, smt_sort_t sort) {
  switch (sort) {
  case SMT_SORT_BOOL: return Z3_mk_bool_sort(s->ctx);
  case SMT_SORT_INT: return Z3_mk_int_sort(s->ctx);
  default: return Z3_mk_real_sort(s->ctx);
  }
}

smt_term_t smt_const(smt_t *s, const char *name, smt_sort_t sort) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s!%llu", name, s->next_name++);
  return add(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, buf), sort_of(s, sort)));
}

smt_term_t smt_bool(smt_t *s, bool b) { return add(s, b ? Z3_mk_true(s->ctx) : Z3_mk_false(s->ctx)); }
smt_term_t smt_int(smt_t *s, long long v) { return add(s, Z3_mk_int64(s->ctx, v, Z3_mk_int_sort(s->ctx))); }

/* Rewrites decimal text with an optional exponent as a rational "p/q" or "p". */
static char *decimal_to_rational(const char *text) {
  const char *e = strpbrk(text, "eE");
  if (!e) return xstrdup(text);
  long exp10 = strtol(e + 1, NULL, 10);
  char mant[128];
  size_t n = (size_t)(e - text) < sizeof mant - 1 ? (size_t)(e - text) : sizeof mant - 1;
  memcpy(mant, text, n);
  mant[n] = '\0';
  char *dot = strchr(mant, '.');
  if (dot) {
    exp10 -= (long)strlen(dot + 1);
    memmove(dot, dot + 1, strlen(dot + 1) + 1);
  }
  if (labs(exp10) > 400) return xstrdup(exp10 > 0 ? "1e400" : "0");
  size_t len = strlen(mant) + (size_t)labs(exp10) + 4;
  char *out = xmalloc(len);
  if (exp10 >= 0) {
    strcpy(out, mant);
    for (long i = 0; i < exp10; i++) strcat(out, "0");
  } else {
    snprintf(out, len, "%s/1", mant);
    for (long i = 0; i < -exp10; i++) strcat(out, "0");
  }
  return out;
}

smt_term_t smt_real_text(smt_t *s, const char *decimal) {
  char *r = decimal_to_rational(decimal);
  smt_term_t t = add(s, Z3_mk_numeral(s->ctx, r, Z3_mk_real_sort(s->ctx)));
  free(r);
  return t;
}

smt_term_t smt_real(smt_t *s, double v) {
  if (!isfinite(v)) {
    set_error(s, "non-finite real constant");
    return 0;
  }
  /* The shortest decimal that reads back as v: the number the user wrote. */
  char buf[STRBUF_DOUBLE_SIZE];
  return smt_real_text(s, strbuf_double_text(v, buf));
}

static smt_term_t junction(smt_t *s, const smt_term_t *terms, size_t n, bool conjunction) {
  if (n == 0) return smt_bool(s, conjunction);
  if (n == 1) return terms[0];
  Z3_ast *args = xmalloc(n * sizeof *args);
  for (size_t i = 0; i < n; i++) args[i] = get(s, terms[i]);
  smt_term_t t = add(s, conjunction ? Z3_mk_and(s->ctx, (unsigned)n, args) : Z3_mk_or(s->ctx, (unsigned)n, args));
  free(args);
  return t;
}

smt_term_t smt_and(smt_t *s, const smt_term_t *terms, size_t n) { return junction(s, terms, n, true); }
smt_term_t smt_or(smt_t *s, const smt_term_t *terms, size_t n) { return junction(s, terms, n, false); }

smt_term_t smt_op(smt_t *s, expr_kind_t op, smt_term_t ta, smt_term_t tb, smt_term_t tc) {
  Z3_context c = s->ctx;
  Z3_ast a = ta ? get(s, ta) : NULL, b = tb ? get(s, tb) : NULL;
  Z3_ast ab[2] = {a, b};
  switch (op) {
  case EXPR_NEG: return add(s, Z3_mk_unary_minus(c, a));
  case EXPR_NOT: return add(s, Z3_mk_not(c, a));
  case EXPR_TOREAL: return add(s, Z3_mk_int2real(c, a));
  case EXPR_ABS: {
    /* In reference-counting mode an unreferenced result lives only until
     * the next API call: keep each intermediate term in the table. */
    Z3_sort sort = Z3_get_sort(c, a);
    smt_term_t zero = add(s, Z3_get_sort_kind(c, sort) == Z3_INT_SORT ? Z3_mk_int(c, 0, sort) : Z3_mk_real(c, 0, 1));
    smt_term_t negative = zero ? add(s, Z3_mk_lt(c, a, get(s, zero))) : 0;
    smt_term_t negated = negative ? add(s, Z3_mk_unary_minus(c, a)) : 0;
    return negated ? add(s, Z3_mk_ite(c, get(s, negative), get(s, negated), a)) : 0;
  }
  case EXPR_ADD: return add(s, Z3_mk_add(c, 2, ab));
  case EXPR_SUB: return add(s, Z3_mk_sub(c, 2, ab));
  case EXPR_MUL: return add(s, Z3_mk_mul(c, 2, ab));
  case EXPR_DIV: return add(s, Z3_mk_div(c, a, b));
  case EXPR_MOD: return add(s, Z3_mk_mod(c, a, b));
  case EXPR_MIN: return add(s, Z3_mk_ite(c, Z3_mk_le(c, a, b), a, b));
  case EXPR_MAX: return add(s, Z3_mk_ite(c, Z3_mk_ge(c, a, b), a, b));
  case EXPR_EQ: return add(s, Z3_mk_eq(c, a, b));
  case EXPR_NE: return add(s, Z3_mk_not(c, Z3_mk_eq(c, a, b)));
  case EXPR_LT: return add(s, Z3_mk_lt(c, a, b));
  case EXPR_LE: return add(s, Z3_mk_le(c, a, b));
  case EXPR_GT: return add(s, Z3_mk_gt(c, a, b));
  case EXPR_GE: return add(s, Z3_mk_ge(c, a, b));
  case EXPR_AND: return add(s, Z3_mk_and(c, 2, ab));
  case EXPR_OR: return add(s, Z3_mk_or(c, 2, ab));
  case EXPR_IMPLIES: return add(s, Z3_mk_implies(c, a, b));
  case EXPR_IFF: return add(s, Z3_mk_iff(c, a, b));
  case EXPR_ITE: return add(s, Z3_mk_ite(c, a, b, get(s, tc)));
  default: assert(!"not an operator"); return 0;
  }
}

smt_term_t smt_translate(smt_t *s, const expr_t *e, smt_var_fn var, void *ctx) {
  switch (e->kind) {
  case EXPR_INT: return e->type.kind == TYPE_REAL ? smt_real(s, (double)e->u.ival) : smt_int(s, e->u.ival);
  case EXPR_REAL: return e->u.real.text ? smt_real_text(s, e->u.real.text) : smt_real(s, e->u.real.value);
  case EXPR_BOOL: return smt_bool(s, e->u.bval);
  case EXPR_ENUM: return smt_int(s, e->u.ival);
  case EXPR_VAR: return var(ctx, e);
  case EXPR_NAME: set_error(s, "unresolved name in expression"); return 0;
  default: break;
  }
  smt_term_t a = smt_translate(s, e->u.op.a, var, ctx);
  smt_term_t b = e->u.op.b ? smt_translate(s, e->u.op.b, var, ctx) : 0;
  smt_term_t c = e->u.op.c ? smt_translate(s, e->u.op.c, var, ctx) : 0;
  if (!a || (e->u.op.b && !b) || (e->u.op.c && !c)) return 0;
  return smt_op(s, e->kind, a, b, c);
}

static smt_term_t quantify(smt_t *s, bool forall, const smt_term_t *bound, size_t n, smt_term_t body) {
  Z3_app *apps = xmalloc((n + 1) * sizeof *apps);
  for (size_t i = 0; i < n; i++) apps[i] = Z3_to_app(s->ctx, get(s, bound[i]));
  Z3_ast q = forall ? Z3_mk_forall_const(s->ctx, 0, (unsigned)n, apps, 0, NULL, get(s, body))
                    : Z3_mk_exists_const(s->ctx, 0, (unsigned)n, apps, 0, NULL, get(s, body));
  free(apps);
  return add(s, q);
}

smt_term_t smt_forall(smt_t *s, const smt_term_t *bound, size_t n, smt_term_t body) {
  return n ? quantify(s, true, bound, n, body) : body;
}
smt_term_t smt_exists(smt_t *s, const smt_term_t *bound, size_t n, smt_term_t body) {
  return n ? quantify(s, false, bound, n, body) : body;
}

smt_term_t smt_simplify(smt_t *s, smt_term_t t) { return add(s, Z3_simplify(s->ctx, get(s, t))); }

static smt_term_t apply_tactics(smt_t *s, smt_term_t t, const char *first, const char *second);

smt_term_t smt_eliminate_quantifiers(smt_t *s, smt_term_t t) { return apply_tactics(s, t, "qe", "simplify"); }

smt_term_t smt_simplify_deep(smt_t *s, smt_term_t t) {
  smt_term_t r = apply_tactics(s, t, "simplify", "ctx-solver-simplify");
  if (r) r = apply_tactics(s, r, "propagate-ineqs", "simplify");
  return r ? r : t;
}

/* The disjunction of the subgoals of tactics first then second on t. */
static smt_term_t apply_tactics(smt_t *s, smt_term_t t, const char *first, const char *second) {
  Z3_context c = s->ctx;
  Z3_tactic qe = Z3_mk_tactic(c, first);
  Z3_tactic_inc_ref(c, qe);
  Z3_tactic simp = Z3_mk_tactic(c, second);
  Z3_tactic_inc_ref(c, simp);
  Z3_tactic both = Z3_tactic_and_then(c, qe, simp);
  Z3_tactic_inc_ref(c, both);
  Z3_goal g = Z3_mk_goal(c, false, false, false);
  Z3_goal_inc_ref(c, g);
  Z3_goal_assert(c, g, get(s, t));
  smt_term_t result = 0;
  Z3_apply_result r = Z3_tactic_apply(c, both, g);
  if (!z3_failed(s) && r) {
    Z3_apply_result_inc_ref(c, r);
    unsigned ng = Z3_apply_result_get_num_subgoals(c, r);
    VEC(smt_term_t) disj = {0};
    for (unsigned i = 0; i < ng; i++) {
      Z3_goal sub = Z3_apply_result_get_subgoal(c, r, i);
      unsigned nf = Z3_goal_size(c, sub);
      VEC(smt_term_t) conj = {0};
      for (unsigned k = 0; k < nf; k++) VEC_PUSH(&conj, add(s, Z3_goal_formula(c, sub, k)));
      VEC_PUSH(&disj, smt_and(s, conj.data, conj.len));
      VEC_FREE(&conj);
    }
    result = smt_or(s, disj.data, disj.len);
    VEC_FREE(&disj);
    Z3_apply_result_dec_ref(c, r);
  }
  Z3_goal_dec_ref(c, g);
  Z3_tactic_dec_ref(c, both);
  Z3_tactic_dec_ref(c, simp);
  Z3_tactic_dec_ref(c, qe);
  return result;
}

void smt_assert(smt_t *s, smt_term_t t) {
  Z3_solver_assert(s->ctx, s->solver, get(s, t));
  z3_failed(s);
}

void smt_push(smt_t *s) { Z3_solver_push(s->ctx, s->solver); }

void smt_pop(smt_t *s, unsigned n) {
  drop_model(s);
  Z3_solver_pop(s->ctx, s->solver, n);
}

smt_result_t smt_check(smt_t *s, const smt_term_t *assumptions, size_t n) {
  drop_model(s);
  Z3_ast *lits = xmalloc((n + 1) * sizeof *lits);
  for (size_t i = 0; i < n; i++) lits[i] = get(s, assumptions[i]);
  Z3_lbool r = Z3_solver_check_assumptions(s->ctx, s->solver, (unsigned)n, lits);
  free(lits);
  s->stats.checks++;
  if (z3_failed(s)) r = Z3_L_UNDEF;
  if (r == Z3_L_TRUE) {
    s->stats.sat++;
    s->model = Z3_solver_get_model(s->ctx, s->solver);
    if (s->model) Z3_model_inc_ref(s->ctx, s->model);
    return SMT_SAT;
  }
  if (r == Z3_L_FALSE) {
    s->stats.unsat++;
    return SMT_UNSAT;
  }
  s->stats.unknown++;
  if (!s->error) set_error(s, Z3_solver_get_reason_unknown(s->ctx, s->solver));
  return SMT_UNKNOWN;
}

/* Evaluates t in the last model; the caller Z3_dec_refs *out. */
static bool eval_model(smt_t *s, smt_term_t t, Z3_ast *out) {
  if (!s->model) return false;
  *out = NULL;
  bool ok = Z3_model_eval(s->ctx, s->model, get(s, t), true, out);
  if (ok && *out) Z3_inc_ref(s->ctx, *out);
  if (z3_failed(s) || !ok || !*out) {
    if (*out) Z3_dec_ref(s->ctx, *out);
    return false;
  }
  return true;
}

bool smt_model_real(smt_t *s, smt_term_t t, double *value, char **exact) {
  Z3_ast v;
  if (!eval_model(s, t, &v)) return false;
  bool ok = true;
  if (Z3_is_numeral_ast(s->ctx, v)) {
    *value = Z3_get_numeral_double(s->ctx, v);
    if (exact) *exact = xstrdup(Z3_get_numeral_string(s->ctx, v));
  } else if (Z3_is_algebraic_number(s->ctx, v)) {
    Z3_string str = Z3_get_numeral_decimal_string(s->ctx, v, 20);
    *value = strtod(str, NULL);
    if (exact) *exact = xstrdup(str);
  } else {
    ok = false;
  }
  Z3_dec_ref(s->ctx, v);
  return ok && !z3_failed(s);
}

/* Added for the explorer's model extension (issue 14). */
smt_value_t smt_model_value(smt_t *s, smt_term_t t, long long *num, long long *den, double *approx) {
  Z3_ast v;
  if (!eval_model(s, t, &v)) return SMT_VALUE_NONE;
  smt_value_t kind = SMT_VALUE_NONE;
  Z3_sort_kind sort = Z3_get_sort_kind(s->ctx, Z3_get_sort(s->ctx, v));
  if (sort == Z3_BOOL_SORT) {
    Z3_lbool b = Z3_get_bool_value(s->ctx, v);
    if (b != Z3_L_UNDEF) {
      *num = b == Z3_L_TRUE, *den = 1, *approx = (double)*num;
      kind = SMT_VALUE_EXACT;
    }
  } else if (Z3_is_numeral_ast(s->ctx, v)) {
    int64_t n, d;
    *approx = Z3_get_numeral_double(s->ctx, v);
    kind = SMT_VALUE_APPROX;
    if (Z3_get_numeral_small(s->ctx, v, &n, &d) && d > 0 && n > INT64_MIN) {
      *num = n, *den = d;
      kind = SMT_VALUE_EXACT;
    }
  } else if (Z3_is_algebraic_number(s->ctx, v)) {
    *approx = strtod(Z3_get_numeral_decimal_string(s->ctx, v, 20), NULL);
    kind = SMT_VALUE_APPROX;
  }
  Z3_dec_ref(s->ctx, v);
  return z3_failed(s) ? SMT_VALUE_NONE : kind;
}

bool smt_model_bool(smt_t *s, smt_term_t t, bool *value) {
  Z3_ast v;
  if (!eval_model(s, t, &v)) return false;
  Z3_lbool b = Z3_get_bool_value(s->ctx, v);
  Z3_dec_ref(s->ctx, v);
  *value = b == Z3_L_TRUE;
  return b != Z3_L_UNDEF;
}

size_t smt_mark(const smt_t *s) { return s->terms.len; }

void smt_release(smt_t *s, size_t mark) {
  assert(mark >= 1 && mark <= s->terms.len);
  for (size_t i = mark; i < s->terms.len; i++) Z3_dec_ref(s->ctx, s->terms.data[i]);
  s->terms.len = mark;
}

char *smt_to_string(smt_t *s, smt_term_t t) { return xstrdup(Z3_ast_to_string(s->ctx, get(s, t))); }
const char *smt_error(const smt_t *s) { return s->error; }
smt_stats_t smt_stats(const smt_t *s) { return s->stats; }

/* ---- smt_to_text ---- */

typedef struct {
  smt_t *s;
  smt_leaf_fn leaf;
  void *ctx;
  bool ok;
} text_ctx_t;

static void print_ast(text_ctx_t *tc, strbuf_t *sb, Z3_ast a, bool top);

static bool leaf_of(text_ctx_t *tc, Z3_ast a, smt_leaf_t *out) {
  Z3_context c = tc->s->ctx;
  if (Z3_get_ast_kind(c, a) != Z3_APP_AST) return false;
  Z3_app app = Z3_to_app(c, a);
  Z3_func_decl d = Z3_get_app_decl(c, app);
  if (Z3_get_decl_kind(c, d) != Z3_OP_UNINTERPRETED || Z3_get_app_num_args(c, app) != 0) return false;
  Z3_symbol sym = Z3_get_decl_name(c, d);
  const char *name = Z3_get_symbol_kind(c, sym) == Z3_STRING_SYMBOL ? Z3_get_symbol_string(c, sym) : "?";
  *out = (smt_leaf_t){0};
  return tc->leaf(tc->ctx, name, out);
}

static void print_numeral(text_ctx_t *tc, strbuf_t *sb, Z3_ast a, bool top) {
  Z3_context c = tc->s->ctx;
  const char *str = Z3_get_numeral_string(c, a);
  bool real = Z3_get_sort_kind(c, Z3_get_sort(c, a)) == Z3_REAL_SORT;
  const char *slash = strchr(str, '/');
  bool neg = str[0] == '-';
  bool wrap = !top && (neg || slash);
  if (wrap) strbuf_putc(sb, '(');
  if (slash)
    strbuf_printf(sb, "%.*s.0 / %s.0", (int)(slash - str), str, slash + 1);
  else
    strbuf_printf(sb, "%s%s", str, real ? ".0" : "");
  if (wrap) strbuf_putc(sb, ')');
}

/* Prints an = or distinct whose one side is an enum constant and the other
 * a numeral naming one of its values; returns false otherwise. */
static bool print_enum_cmp(text_ctx_t *tc, strbuf_t *sb, Z3_ast x, Z3_ast y, const char *op) {
  Z3_context c = tc->s->ctx;
  smt_leaf_t lf;
  if (Z3_is_numeral_ast(c, x)) {
    Z3_ast t = x;
    x = y;
    y = t;
  }
  int v;
  if (!Z3_is_numeral_ast(c, y) || !leaf_of(tc, x, &lf) || !lf.enum_values || !Z3_get_numeral_int(c, y, &v) || v < 0 ||
      v >= lf.nenum_values)
    return false;
  strbuf_printf(sb, "%s %s %s", lf.text, op, lf.enum_values[v]);
  return true;
}

static void print_nary(text_ctx_t *tc, strbuf_t *sb, Z3_app app, const char *op) {
  Z3_context c = tc->s->ctx;
  unsigned n = Z3_get_app_num_args(c, app);
  for (unsigned i = 0; i < n; i++) {
    if (i) strbuf_printf(sb, " %s ", op);
    print_ast(tc, sb, Z3_get_app_arg(c, app, i), false);
  }
}

/* a + (-1 * b) prints as a - b. */
static void print_sum(text_ctx_t *tc, strbuf_t *sb, Z3_app app) {
  Z3_context c = tc->s->ctx;
  unsigned n = Z3_get_app_num_args(c, app);
  for (unsigned i = 0; i < n; i++) {
    Z3_ast arg = Z3_get_app_arg(c, app, i);
    Z3_app sub = Z3_get_ast_kind(c, arg) == Z3_APP_AST ? Z3_to_app(c, arg) : NULL;
    int k;
    if (i > 0 && sub && Z3_get_decl_kind(c, Z3_get_app_decl(c, sub)) == Z3_OP_MUL && Z3_get_app_num_args(c, sub) == 2 &&
        Z3_is_numeral_ast(c, Z3_get_app_arg(c, sub, 0)) && Z3_get_numeral_int(c, Z3_get_app_arg(c, sub, 0), &k) &&
        k == -1) {
      strbuf_puts(sb, " - ");
      print_ast(tc, sb, Z3_get_app_arg(c, sub, 1), false);
      continue;
    }
    if (i) strbuf_puts(sb, " + ");
    print_ast(tc, sb, arg, false);
  }
}

static void print_ast(text_ctx_t *tc, strbuf_t *sb, Z3_ast a, bool top) {
  Z3_context c = tc->s->ctx;
  if (!tc->ok) return;
  if (Z3_get_ast_kind(c, a) == Z3_NUMERAL_AST) {
    print_numeral(tc, sb, a, top);
    return;
  }
  if (Z3_get_ast_kind(c, a) != Z3_APP_AST) {
    tc->ok = false;
    set_error(tc->s, "a quantifier is left in the formula");
    return;
  }
  Z3_app app = Z3_to_app(c, a);
  Z3_decl_kind k = Z3_get_decl_kind(c, Z3_get_app_decl(c, app));
  unsigned n = Z3_get_app_num_args(c, app);
  Z3_ast x = n > 0 ? Z3_get_app_arg(c, app, 0) : NULL, y = n > 1 ? Z3_get_app_arg(c, app, 1) : NULL;
  smt_leaf_t lf;
  if (k == Z3_OP_TRUE || k == Z3_OP_FALSE) {
    strbuf_puts(sb, k == Z3_OP_TRUE ? "true" : "false");
    return;
  }
  if (k == Z3_OP_UNINTERPRETED && n == 0) {
    if (leaf_of(tc, a, &lf)) {
      strbuf_puts(sb, lf.text);
    } else {
      tc->ok = false;
      set_error(tc->s, "a formula mentions an unknown constant");
    }
    return;
  }
  if (k == Z3_OP_TO_REAL) {
    print_ast(tc, sb, x, top);
    return;
  }
  if (!top) strbuf_putc(sb, '(');
  bool bool_args = n > 0 && Z3_get_sort_kind(c, Z3_get_sort(c, x)) == Z3_BOOL_SORT;
  switch (k) {
  case Z3_OP_AND: print_nary(tc, sb, app, "and"); break;
  case Z3_OP_OR: print_nary(tc, sb, app, "or"); break;
  case Z3_OP_NOT: strbuf_puts(sb, "not "); print_ast(tc, sb, x, false); break;
  case Z3_OP_IMPLIES: print_nary(tc, sb, app, "=>"); break;
  case Z3_OP_IFF: print_nary(tc, sb, app, "<=>"); break;
  case Z3_OP_EQ:
    if (!print_enum_cmp(tc, sb, x, y, "==")) print_nary(tc, sb, app, bool_args ? "<=>" : "==");
    break;
  case Z3_OP_DISTINCT:
    if (n != 2) goto unsupported;
    if (!print_enum_cmp(tc, sb, x, y, "!=")) {
      if (bool_args) strbuf_puts(sb, "not ");
      print_nary(tc, sb, app, bool_args ? "<=>" : "!=");
    }
    break;
  case Z3_OP_LE: print_nary(tc, sb, app, "<="); break;
  case Z3_OP_GE: print_nary(tc, sb, app, ">="); break;
  case Z3_OP_LT: print_nary(tc, sb, app, "<"); break;
  case Z3_OP_GT: print_nary(tc, sb, app, ">"); break;
  case Z3_OP_ADD: print_sum(tc, sb, app); break;
  case Z3_OP_SUB: print_nary(tc, sb, app, "-"); break;
  case Z3_OP_MUL: {
    int k1;
    if (n == 2 && Z3_is_numeral_ast(c, x) && Z3_get_numeral_int(c, x, &k1) && k1 == -1) {
      strbuf_puts(sb, "-");
      print_ast(tc, sb, y, false);
    } else {
      print_nary(tc, sb, app, "*");
    }
    break;
  }
  case Z3_OP_DIV: print_nary(tc, sb, app, "/"); break;
  case Z3_OP_UMINUS: strbuf_puts(sb, "-"); print_ast(tc, sb, x, false); break;
  case Z3_OP_ITE:
    strbuf_puts(sb, "if ");
    print_ast(tc, sb, x, false);
    strbuf_puts(sb, " then ");
    print_ast(tc, sb, y, false);
    strbuf_puts(sb, " else ");
    print_ast(tc, sb, Z3_get_app_arg(c, app, 2), false);
    break;
  default:
  unsupported:
    tc->ok = false;
    set_error(tc->s, "the formula uses an operator the expression language lacks");
  }
  if (!top) strbuf_putc(sb, ')');
}

char *smt_to_text(smt_t *s, smt_term_t t, smt_leaf_fn leaf, void *ctx) {
  text_ctx_t tc = {s, leaf, ctx, true};
  strbuf_t sb;
  strbuf_init(&sb);
  print_ast(&tc, &sb, get(s, t), true);
  if (!tc.ok) {
    strbuf_free(&sb);
    return NULL;
  }
  return strbuf_take(&sb);
}

char *smt_name(smt_t *s, smt_term_t constant) {
  Z3_context c = s->ctx;
  Z3_ast a = get(s, constant);
  assert(Z3_get_ast_kind(c, a) == Z3_APP_AST);
  Z3_symbol sym = Z3_get_decl_name(c, Z3_get_app_decl(c, Z3_to_app(c, a)));
  return xstrdup(Z3_get_symbol_kind(c, sym) == Z3_STRING_SYMBOL ? Z3_get_symbol_string(c, sym) : "?");
}
