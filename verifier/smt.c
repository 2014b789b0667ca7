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
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "ism/alloc.h"
#include "ism/strbuf.h"
#include "ism/number.h"
#include "ism/stop.h"
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
  Z3_solver alone;       /* smt_check_alone's, made on first use, or NULL */
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

/* ---- stopping every solver at once (signals, the time limit) ----
 * The request itself is ism/stop's; this keeps every live context to
 * interrupt. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static VEC(smt_t *) live; /* every context not yet deleted */

void smt_stop_all(void) {
  pthread_mutex_lock(&live_lock);
  for (size_t i = 0; i < live.len; i++) Z3_interrupt(live.data[i]->ctx);
  pthread_mutex_unlock(&live_lock);
}

bool smt_stop_requested(void) { return stop_requested(); }

void smt_set_memory_limit(size_t mb) {
  char text[32];
  snprintf(text, sizeof text, "%zu", mb);
  Z3_global_param_set("memory_max_size", text);
}

static void forget(smt_t *s) {
  pthread_mutex_lock(&live_lock);
  for (size_t i = 0; i < live.len; i++)
    if (live.data[i] == s) {
      live.data[i] = VEC_LAST(&live);
      live.len--;
      break;
    }
  if (!live.len) VEC_FREE(&live);
  pthread_mutex_unlock(&live_lock);
}

static void apply_params_to(smt_t *s, Z3_solver solver) {
  Z3_params p = Z3_mk_params(s->ctx);
  Z3_params_inc_ref(s->ctx, p);
  /* Z3's own SIGINT handler fights ours (and crashed threaded runs). */
  Z3_params_set_bool(s->ctx, p, Z3_mk_string_symbol(s->ctx, "ctrl_c"), false);
  /* A timeout starts a timer per check: set it only when asked for. */
  if (s->options.timeout_ms)
    Z3_params_set_uint(s->ctx, p, Z3_mk_string_symbol(s->ctx, "timeout"), s->options.timeout_ms);
  if (s->options.rlimit)
    Z3_params_set_uint(s->ctx, p, Z3_mk_string_symbol(s->ctx, "rlimit"), (unsigned)s->options.rlimit);
  Z3_solver_set_params(s->ctx, solver, p);
  Z3_params_dec_ref(s->ctx, p);
}

static void apply_params(smt_t *s) { apply_params_to(s, s->solver); }

/* A simple solver's first check writes about 11 MB that Z3 frees with
 * the context; glibc returns them to the kernel at once, and the next
 * context faults them in again (page faults as much CPU as the solving, a
 * solver per counterexample). A pad at the heap's top keeps them. */
static void keep_heap_top(void) {
#ifdef __GLIBC__
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

smt_t *smt_new(const smt_options_t *options) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  if (options && options->simple) pthread_once(&once, keep_heap_top);
  smt_t *s = xcalloc(1, sizeof *s);
  if (options) s->options = *options;
  Z3_config cfg = Z3_mk_config();
  Z3_set_param_value(cfg, "model", "true");
  s->ctx = Z3_mk_context_rc(cfg);
  Z3_del_config(cfg);
  if (!s->ctx) alloc_out_of_memory(0); /* Z3 past its memory limit (smt_set_memory_limit) */
  Z3_set_error_handler(s->ctx, ignore_error);
  s->solver = s->options.simple ? Z3_mk_simple_solver(s->ctx) : Z3_mk_solver(s->ctx);
  Z3_solver_inc_ref(s->ctx, s->solver);
  apply_params(s);
  VEC_PUSH(&s->terms, NULL);
  pthread_mutex_lock(&live_lock);
  VEC_PUSH(&live, s);
  if (stop_requested()) Z3_interrupt(s->ctx);
  pthread_mutex_unlock(&live_lock);
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
  forget(s);
  stop_watchdog(s);
  drop_model(s);
  for (size_t i = 1; i < s->terms.len; i++) Z3_dec_ref(s->ctx, s->terms.data[i]);
  VEC_FREE(&s->terms);
  Z3_solver_dec_ref(s->ctx, s->solver);
  if (s->alone) Z3_solver_dec_ref(s->ctx, s->alone);
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
  /* The whole name: the "!N" suffix keeps constants apart (names hold no
   * '!'). A name cut to a buffer once merged two long names into one
   * constant. Integer symbols would do too, but they change the order of
   * the terms Z3 prints. */
  char *full = xasprintf("%s!%llu", name, s->next_name++);
  smt_term_t t = add(s, Z3_mk_const(s->ctx, Z3_mk_string_symbol(s->ctx, full), sort_of(s, sort)));
  free(full);
  return t;
}

/* The printing name of a constant's symbol ("?" when it has none). */
static const char *symbol_name(const smt_t *s, Z3_symbol sym) {
  return Z3_get_symbol_kind(s->ctx, sym) == Z3_STRING_SYMBOL ? Z3_get_symbol_string(s->ctx, sym) : "?";
}

smt_term_t smt_bool(smt_t *s, bool b) { return add(s, b ? Z3_mk_true(s->ctx) : Z3_mk_false(s->ctx)); }
smt_term_t smt_int(smt_t *s, long long v) { return add(s, Z3_mk_int64(s->ctx, v, Z3_mk_int_sort(s->ctx))); }

smt_term_t smt_real_text(smt_t *s, const char *decimal) {
  char *r = number_rational(decimal);
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

smt_term_t smt_defined(smt_t *s, const expr_t *e, smt_var_fn var, void *ctx) {
  if (!expr_partial(e)) return smt_bool(s, true);
  smt_term_t a = smt_defined(s, e->u.op.a, var, ctx);
  smt_term_t b = e->u.op.b ? smt_defined(s, e->u.op.b, var, ctx) : smt_bool(s, true);
  if (!a || !b) return 0;
  switch (e->kind) {
  case EXPR_AND:
  case EXPR_IMPLIES:
    return smt_op(s, EXPR_AND, a, smt_op(s, EXPR_IMPLIES, smt_translate(s, e->u.op.a, var, ctx), b, 0), 0);
  case EXPR_OR: {
    smt_term_t left = smt_op(s, EXPR_NOT, smt_translate(s, e->u.op.a, var, ctx), 0, 0);
    return smt_op(s, EXPR_AND, a, smt_op(s, EXPR_IMPLIES, left, b, 0), 0);
  }
  case EXPR_ITE: {
    smt_term_t cond = smt_translate(s, e->u.op.a, var, ctx), els = smt_defined(s, e->u.op.c, var, ctx);
    smt_term_t taken = smt_op(s, EXPR_IMPLIES, cond, b, 0);
    smt_term_t other = smt_op(s, EXPR_IMPLIES, smt_op(s, EXPR_NOT, cond, 0, 0), els, 0);
    return smt_op(s, EXPR_AND, a, smt_op(s, EXPR_AND, taken, other, 0), 0);
  }
  case EXPR_DIV:
  case EXPR_MOD: {
    smt_term_t divisor = smt_translate(s, e->u.op.b, var, ctx);
    smt_term_t zero = e->u.op.b->type.kind == TYPE_REAL ? smt_real(s, 0) : smt_int(s, 0);
    smt_term_t nonzero = smt_op(s, EXPR_NOT, smt_op(s, EXPR_EQ, divisor, zero, 0), 0, 0);
    return smt_op(s, EXPR_AND, smt_op(s, EXPR_AND, a, b, 0), nonzero, 0);
  }
  default: return smt_op(s, EXPR_AND, a, b, 0);
  }
}

smt_term_t smt_translate_holds(smt_t *s, const expr_t *e, smt_var_fn var, void *ctx) {
  smt_term_t t = smt_translate(s, e, var, ctx);
  if (!t || !expr_partial(e)) return t;
  return smt_op(s, EXPR_AND, smt_defined(s, e, var, ctx), t, 0);
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
  /* an interrupt that came before the tactic started would be lost */
  if (stop_requested()) {
    set_error(s, "interrupted");
    return 0;
  }
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
  if (stop_requested()) {
    s->stats.unknown++;
    set_error(s, stop_message());
    return SMT_UNKNOWN;
  }
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

smt_result_t smt_check_alone(smt_t *s, const smt_term_t *terms, size_t n) {
  if (stop_requested()) return SMT_UNKNOWN;
  if (!s->alone) {
    s->alone = Z3_mk_simple_solver(s->ctx);
    Z3_solver_inc_ref(s->ctx, s->alone);
    apply_params_to(s, s->alone);
  }
  Z3_solver_push(s->ctx, s->alone);
  for (size_t i = 0; i < n; i++) Z3_solver_assert(s->ctx, s->alone, get(s, terms[i]));
  Z3_lbool r = z3_failed(s) ? Z3_L_UNDEF : Z3_solver_check(s->ctx, s->alone);
  if (z3_failed(s)) r = Z3_L_UNDEF;
  Z3_solver_pop(s->ctx, s->alone, 1);
  return r == Z3_L_TRUE ? SMT_SAT : r == Z3_L_FALSE ? SMT_UNSAT : SMT_UNKNOWN;
}

char *smt_constant_text(smt_t *s, smt_term_t t) {
  Z3_ast v = Z3_simplify(s->ctx, get(s, t));
  if (z3_failed(s) || !v) return NULL;
  Z3_inc_ref(s->ctx, v);
  char *text = NULL;
  if (Z3_is_numeral_ast(s->ctx, v))
    text = xstrdup(Z3_get_numeral_string(s->ctx, v));
  else if (Z3_get_bool_value(s->ctx, v) != Z3_L_UNDEF)
    text = xstrdup(Z3_get_bool_value(s->ctx, v) == Z3_L_TRUE ? "true" : "false");
  Z3_dec_ref(s->ctx, v);
  return text;
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
  const char *name = symbol_name(tc->s, Z3_get_decl_name(c, d));
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
  return xstrdup(symbol_name(s, Z3_get_decl_name(c, Z3_get_app_decl(c, Z3_to_app(c, a)))));
}

/* ---- exact rationals and the roots of one-variable linear atoms ---- */

/* Simplifies a, which Z3 owns until the next call, to a numeral; its
 * exact text or NULL. */
static char *numeral_text(smt_t *s, Z3_ast a) {
  Z3_context c = s->ctx;
  if (!a || z3_failed(s))
    return NULL;
  Z3_inc_ref(c, a);
  Z3_ast v = Z3_simplify(c, a);
  char *text = NULL;
  if (v) {
    Z3_inc_ref(c, v);
    if (Z3_is_numeral_ast(c, v))
      text = xstrdup(Z3_get_numeral_string(c, v));
    Z3_dec_ref(c, v);
  }
  Z3_dec_ref(c, a);
  return text;
}

static Z3_ast rational(smt_t *s, const char *text) {
  char *r = number_rational(text);
  Z3_ast a = Z3_mk_numeral(s->ctx, r, Z3_mk_real_sort(s->ctx));
  free(r);
  return z3_failed(s) ? NULL : a;
}

char *smt_q_arith(smt_t *s, expr_kind_t op, const char *a, const char *b) {
  Z3_context c = s->ctx;
  Z3_ast x = rational(s, a);
  if (!x)
    return NULL;
  Z3_inc_ref(c, x);
  Z3_ast y = rational(s, b);
  char *r = NULL;
  if (y) {
    Z3_inc_ref(c, y);
    Z3_ast args[2] = {x, y};
    bool zero = op == EXPR_DIV && Z3_is_numeral_ast(c, y) &&
                strcmp(Z3_get_numeral_string(c, y), "0") == 0;
    Z3_ast t = zero             ? NULL
               : op == EXPR_ADD ? Z3_mk_add(c, 2, args)
               : op == EXPR_SUB ? Z3_mk_sub(c, 2, args)
               : op == EXPR_MUL ? Z3_mk_mul(c, 2, args)
               : op == EXPR_DIV ? Z3_mk_div(c, x, y)
                                : NULL;
    r = numeral_text(s, t);
    Z3_dec_ref(c, y);
  }
  Z3_dec_ref(c, x);
  return r;
}

int smt_q_cmp(smt_t *s, const char *a, const char *b) {
  char *d = smt_q_arith(s, EXPR_SUB, a, b);
  int r = !d ? 0 : d[0] == '-' ? -1 : strcmp(d, "0") == 0 ? 0 : 1;
  free(d);
  return r;
}

char *smt_q_floor(smt_t *s, const char *a) {
  Z3_ast x = rational(s, a);
  return x ? numeral_text(s, Z3_mk_real2int(s->ctx, x)) : NULL;
}

typedef struct {
  smt_t *s;
  Z3_ast x;
  VEC(char *) roots;
  bool ok;
  unsigned *seen; /* open-addressing set of visited AST ids + 1 (the formula is
                     a DAG) */
  size_t nseen, capseen;
} roots_ctx_t;

/* Marks id visited; false when it already was. */
static bool first_visit(roots_ctx_t *rc, unsigned id) {
  if (2 * (rc->nseen + 1) > rc->capseen) {
    unsigned *old = rc->seen;
    size_t oldcap = rc->capseen;
    rc->capseen = oldcap ? 2 * oldcap : 256;
    rc->seen = xcalloc(rc->capseen, sizeof *rc->seen);
    rc->nseen = 0;
    for (size_t i = 0; i < oldcap; i++)
      if (old[i])
        first_visit(rc, old[i] - 1);
    free(old);
  }
  size_t h = (id * 2654435761u) & (rc->capseen - 1);
  while (rc->seen[h] && rc->seen[h] != id + 1)
    h = (h + 1) & (rc->capseen - 1);
  if (rc->seen[h])
    return false;
  rc->seen[h] = id + 1;
  rc->nseen++;
  return true;
}

/* Whether a is a sum of numerals and numeral multiples of constants (to_real
 * allowed), each constant accepted by leaf(c, constant, arg). */
typedef bool linear_leaf_fn(Z3_context c, Z3_ast constant, void *arg);

static bool linear_term(Z3_context c, Z3_ast a, linear_leaf_fn *leaf, void *arg) {
  if (Z3_is_numeral_ast(c, a))
    return true;
  if (Z3_get_ast_kind(c, a) != Z3_APP_AST)
    return false;
  Z3_app app = Z3_to_app(c, a);
  unsigned n = Z3_get_app_num_args(c, app);
  switch (Z3_get_decl_kind(c, Z3_get_app_decl(c, app))) {
  case Z3_OP_UNINTERPRETED:
    return n == 0 && leaf(c, a, arg);
  case Z3_OP_ADD:
  case Z3_OP_SUB:
  case Z3_OP_UMINUS:
  case Z3_OP_TO_REAL:
    for (unsigned i = 0; i < n; i++)
      if (!linear_term(c, Z3_get_app_arg(c, app, i), leaf, arg))
        return false;
    return true;
  case Z3_OP_MUL: {
    unsigned variable = 0;
    for (unsigned i = 0; i < n; i++) {
      Z3_ast arg_i = Z3_get_app_arg(c, app, i);
      if (Z3_is_numeral_ast(c, arg_i))
        continue;
      if (variable++ || !linear_term(c, arg_i, leaf, arg))
        return false;
    }
    return true;
  }
  default:
    return false;
  }
}

static bool is_x(Z3_context c, Z3_ast constant, void *rc) {
  return Z3_is_eq_ast(c, constant, ((roots_ctx_t *)rc)->x);
}

/* A sum of numerals and numeral multiples of x (to_real allowed). */
static bool linear_in(roots_ctx_t *rc, Z3_ast a) {
  return linear_term(rc->s->ctx, a, is_x, rc);
}

/* The value of the linear term f at x = v, exactly. */
static char *value_at(roots_ctx_t *rc, Z3_ast f, const char *v) {
  Z3_context c = rc->s->ctx;
  Z3_sort sort = Z3_get_sort(c, rc->x);
  Z3_ast to = Z3_mk_numeral(c, v, sort);
  Z3_inc_ref(c, to);
  Z3_ast g = Z3_substitute(c, f, 1, &rc->x, &to);
  char *r = numeral_text(rc->s, g);
  Z3_dec_ref(c, to);
  return r;
}

static void collect_roots(roots_ctx_t *rc, Z3_ast a) {
  Z3_context c = rc->s->ctx;
  if (rc->ok && !first_visit(rc, Z3_get_ast_id(c, a)))
    return;
  if (!rc->ok || Z3_get_ast_kind(c, a) != Z3_APP_AST) {
    if (Z3_get_ast_kind(c, a) != Z3_APP_AST)
      rc->ok = false;
    return;
  }
  Z3_app app = Z3_to_app(c, a);
  unsigned n = Z3_get_app_num_args(c, app);
  Z3_decl_kind k = Z3_get_decl_kind(c, Z3_get_app_decl(c, app));
  Z3_sort_kind arg_sort =
      n ? Z3_get_sort_kind(c, Z3_get_sort(c, Z3_get_app_arg(c, app, 0)))
        : Z3_BOOL_SORT;
  bool arith = arg_sort == Z3_INT_SORT || arg_sort == Z3_REAL_SORT;
  if (k == Z3_OP_TRUE || k == Z3_OP_FALSE)
    return;
  if (!arith && (k == Z3_OP_AND || k == Z3_OP_OR || k == Z3_OP_NOT ||
                 k == Z3_OP_IMPLIES || k == Z3_OP_IFF || k == Z3_OP_EQ ||
                 k == Z3_OP_DISTINCT || k == Z3_OP_ITE || k == Z3_OP_XOR)) {
    for (unsigned i = 0; i < n; i++)
      collect_roots(rc, Z3_get_app_arg(c, app, i));
    return;
  }
  bool cmp = k == Z3_OP_LE || k == Z3_OP_GE || k == Z3_OP_LT || k == Z3_OP_GT ||
             k == Z3_OP_EQ || k == Z3_OP_DISTINCT;
  if (!arith || !cmp || n != 2 || !linear_in(rc, Z3_get_app_arg(c, app, 0)) ||
      !linear_in(rc, Z3_get_app_arg(c, app, 1))) {
    rc->ok = false;
    return;
  }
  Z3_ast f = Z3_mk_sub(
      c, 2, (Z3_ast[]){Z3_get_app_arg(c, app, 0), Z3_get_app_arg(c, app, 1)});
  Z3_inc_ref(c, f);
  char *f0 = value_at(rc, f, "0"), *f1 = value_at(rc, f, "1");
  char *slope = f0 && f1 ? smt_q_arith(rc->s, EXPR_SUB, f1, f0) : NULL;
  if (!slope)
    rc->ok = false;
  else if (strcmp(slope, "0") != 0) {
    char *minus = smt_q_arith(rc->s, EXPR_SUB, "0", f0);
    char *root = minus ? smt_q_arith(rc->s, EXPR_DIV, minus, slope) : NULL;
    if (root)
      VEC_PUSH(&rc->roots, root);
    else
      rc->ok = false;
    free(minus);
  }
  free(slope);
  free(f0);
  free(f1);
  Z3_dec_ref(c, f);
}

static int cmp_text(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static double approx(const char *q) {
  const char *slash = strchr(q, '/');
  return strtod(q, NULL) / (slash ? strtod(slash + 1, NULL) : 1.0);
}

static int cmp_approx(const void *a, const void *b) {
  double x = approx(*(char *const *)a), y = approx(*(char *const *)b);
  return (x > y) - (x < y);
}

bool smt_linear_roots(smt_t *s, smt_term_t t, smt_term_t x, char ***roots,
                      size_t *nroots) {
  Z3_context c = s->ctx;
  roots_ctx_t rc = {s, get(s, x), {0}, true, NULL, 0, 0};
  Z3_ast simple = Z3_simplify(c, get(s, t));
  if (simple) {
    Z3_inc_ref(c, simple);
    collect_roots(&rc, simple);
    Z3_dec_ref(c, simple);
  } else {
    rc.ok = false;
  }
  if (rc.ok) {
    /* Z3's numeral texts are canonical: equal values have equal texts. Sort
     * by text to drop duplicates, by double value, then exactly (insertion
     * sort: the array is nearly sorted by then). */
    if (rc.roots.len > 1)
      qsort(rc.roots.data, rc.roots.len, sizeof *rc.roots.data, cmp_text);
    size_t kept = 0;
    for (size_t i = 0; i < rc.roots.len; i++) {
      if (kept && strcmp(rc.roots.data[kept - 1], rc.roots.data[i]) == 0)
        free(rc.roots.data[i]);
      else
        rc.roots.data[kept++] = rc.roots.data[i];
    }
    rc.roots.len = kept;
    if (rc.roots.len > 1)
      qsort(rc.roots.data, rc.roots.len, sizeof *rc.roots.data, cmp_approx);
    for (size_t i = 1; i < rc.roots.len; i++)
      for (size_t j = i;
           j > 0 && smt_q_cmp(s, rc.roots.data[j - 1], rc.roots.data[j]) > 0;
           j--) {
        char *swap = rc.roots.data[j];
        rc.roots.data[j] = rc.roots.data[j - 1];
        rc.roots.data[j - 1] = swap;
      }
  } else {
    set_error(
        s,
        "the condition has an atom that is not linear in the parameter alone");
    for (size_t i = 0; i < rc.roots.len; i++)
      free(rc.roots.data[i]);
    rc.roots.len = 0;
  }
  free(rc.seen);
  *roots = rc.roots.data;
  *nroots = rc.roots.len;
  return rc.ok;
}

/* ---- readable formulas: solver-found disjunctions, bounds as intervals ----
 */

typedef VEC(smt_term_t) terms_t;

/* The atoms of the quantifier-free t, each once, in first-visit order:
 * arithmetic comparisons and Boolean constants. False on anything else. */
static bool collect_atoms(smt_t *s, roots_ctx_t *seen, Z3_ast a,
                          terms_t *atoms) {
  Z3_context c = s->ctx;
  if (!first_visit(seen, Z3_get_ast_id(c, a)))
    return true;
  if (Z3_get_ast_kind(c, a) != Z3_APP_AST)
    return false;
  Z3_app app = Z3_to_app(c, a);
  unsigned n = Z3_get_app_num_args(c, app);
  Z3_decl_kind k = Z3_get_decl_kind(c, Z3_get_app_decl(c, app));
  Z3_sort_kind arg =
      n ? Z3_get_sort_kind(c, Z3_get_sort(c, Z3_get_app_arg(c, app, 0)))
        : Z3_BOOL_SORT;
  if (k == Z3_OP_TRUE || k == Z3_OP_FALSE)
    return true;
  if (k == Z3_OP_UNINTERPRETED && n == 0) {
    VEC_PUSH(atoms, add(s, a));
    return true;
  }
  bool arith = arg == Z3_INT_SORT || arg == Z3_REAL_SORT;
  if (arith && (k == Z3_OP_LE || k == Z3_OP_GE || k == Z3_OP_LT ||
                k == Z3_OP_GT || k == Z3_OP_EQ)) {
    VEC_PUSH(atoms, add(s, a));
    return true;
  }
  if (arith || !(k == Z3_OP_AND || k == Z3_OP_OR || k == Z3_OP_NOT ||
                 k == Z3_OP_IMPLIES || k == Z3_OP_IFF || k == Z3_OP_EQ ||
                 k == Z3_OP_DISTINCT || k == Z3_OP_ITE || k == Z3_OP_XOR))
    return false;
  for (unsigned i = 0; i < n; i++)
    if (!collect_atoms(s, seen, Z3_get_app_arg(c, app, i), atoms))
      return false;
  return true;
}

enum { FORM_MAX = 8 };

/* A linear form sum_k coef[k] * x[k]: constants in creation order (AST id),
 * nonzero exact coefficients, the first positive (1 for a single constant). */
typedef struct {
  size_t n;
  Z3_ast x[FORM_MAX];
  char *coef[FORM_MAX];
} form_t;

/* form op value, op one of <=, <, >=, >, ==. */
typedef struct {
  form_t f;
  Z3_decl_kind op;
  char *value;
} bound_t;

static Z3_decl_kind flip(Z3_decl_kind op) {
  return op == Z3_OP_LE   ? Z3_OP_GE
         : op == Z3_OP_LT ? Z3_OP_GT
         : op == Z3_OP_GE ? Z3_OP_LE
         : op == Z3_OP_GT ? Z3_OP_LT
                          : op;
}

static Z3_decl_kind negate(Z3_decl_kind op) {
  return op == Z3_OP_LE   ? Z3_OP_GT
         : op == Z3_OP_LT ? Z3_OP_GE
         : op == Z3_OP_GE ? Z3_OP_LT
         : op == Z3_OP_GT ? Z3_OP_LE
                          : Z3_OP_DISTINCT;
}

static void free_form(form_t *f) {
  for (size_t k = 0; k < f->n; k++)
    free(f->coef[k]);
  f->n = 0;
}

static bool collect_constant(Z3_context c, Z3_ast constant, void *form) {
  form_t *f = form;
  for (size_t k = 0; k < f->n; k++)
    if (Z3_is_eq_ast(c, f->x[k], constant))
      return true;
  if (f->n == FORM_MAX)
    return false;
  f->x[f->n++] = constant;
  return true;
}

/* Collects the constants of a linear term a into f->x; false when a is not
 * linear (a product of constants, div, mod, ite, ...) or has too many. */
static bool linear_constants(Z3_context c, Z3_ast a, form_t *f) {
  return linear_term(c, a, collect_constant, f);
}

/* f at the point where constant `one` (or none, SIZE_MAX) is 1, the others 0.
 */
static char *form_at(smt_t *s, Z3_ast f, const form_t *form, size_t one) {
  Z3_context c = s->ctx;
  Z3_ast to[FORM_MAX];
  for (size_t k = 0; k < form->n; k++) {
    to[k] = Z3_mk_numeral(c, k == one ? "1" : "0", Z3_get_sort(c, form->x[k]));
    Z3_inc_ref(c, to[k]);
  }
  char *r =
      numeral_text(s, Z3_substitute(c, f, (unsigned)form->n, form->x, to));
  for (size_t k = 0; k < form->n; k++)
    Z3_dec_ref(c, to[k]);
  return r;
}

static int cmp_ids(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return (x > y) - (x < y);
}

/* The literal (atom, or its negation) as a bound on a linear form. */
static bool as_bound(smt_t *s, Z3_ast atom, bool positive, bound_t *out) {
  Z3_context c = s->ctx;
  if (Z3_get_ast_kind(c, atom) != Z3_APP_AST ||
      Z3_get_app_num_args(c, Z3_to_app(c, atom)) != 2)
    return false;
  Z3_app app = Z3_to_app(c, atom);
  Z3_decl_kind op = Z3_get_decl_kind(c, Z3_get_app_decl(c, app));
  if (!positive)
    op = negate(op);
  Z3_ast lhs = Z3_get_app_arg(c, app, 0), rhs = Z3_get_app_arg(c, app, 1);
  form_t f = {0};
  if (op == Z3_OP_DISTINCT || !linear_constants(c, lhs, &f) ||
      !linear_constants(c, rhs, &f) || f.n == 0)
    return false;
  struct {
    unsigned id;
    Z3_ast x;
  } order[FORM_MAX];
  for (size_t k = 0; k < f.n; k++)
    order[k].id = Z3_get_ast_id(c, f.x[k]), order[k].x = f.x[k];
  qsort(order, f.n, sizeof *order, cmp_ids);
  for (size_t k = 0; k < f.n; k++)
    f.x[k] = order[k].x;
  Z3_ast diff = Z3_mk_sub(c, 2, (Z3_ast[]){lhs, rhs});
  Z3_inc_ref(c, diff);
  char *b = form_at(s, diff, &f, SIZE_MAX);
  bool ok = b != NULL;
  size_t kept = 0;
  for (size_t k = 0; k < f.n && ok; k++) {
    char *at = form_at(s, diff, &f, k),
         *coef = at ? smt_q_arith(s, EXPR_SUB, at, b) : NULL;
    ok = coef != NULL;
    free(at);
    if (ok && strcmp(coef, "0") != 0) {
      f.x[kept] = f.x[k];
      f.coef[kept++] = coef;
    } else {
      free(coef);
    }
  }
  Z3_dec_ref(c, diff);
  f.n = kept;
  if (!ok || kept == 0) {
    free_form(&f);
    free(b);
    return false;
  }
  /* coef . x + b op 0: one constant: x op' -b / coef; several: first
   * coefficient positive, form op' -b */
  bool negative = f.coef[0][0] == '-';
  char *minus_b = smt_q_arith(s, EXPR_SUB, "0", b);
  free(b);
  if (f.n == 1) {
    out->value = smt_q_arith(s, EXPR_DIV, minus_b, f.coef[0]);
    free(minus_b);
    free(f.coef[0]);
    f.coef[0] = xstrdup("1");
  } else if (negative) {
    for (size_t k = 0; k < f.n; k++) {
      char *neg = smt_q_arith(s, EXPR_SUB, "0", f.coef[k]);
      free(f.coef[k]);
      f.coef[k] = neg;
    }
    out->value = smt_q_arith(s, EXPR_SUB, "0", minus_b);
    free(minus_b);
  } else {
    out->value = minus_b;
  }
  out->f = f;
  out->op = negative ? flip(op) : op;
  if (!out->value)
    free_form(&out->f);
  return out->value != NULL;
}

static bool same_form(Z3_context c, const form_t *a, const form_t *b) {
  if (a->n != b->n)
    return false;
  for (size_t k = 0; k < a->n; k++)
    if (!Z3_is_eq_ast(c, a->x[k], b->x[k]) ||
        strcmp(a->coef[k], b->coef[k]) != 0)
      return false;
  return true;
}

/* Whether the form takes integer values only: int constants, integer
 * coefficients. */
static bool integral_form(Z3_context c, const form_t *f) {
  for (size_t k = 0; k < f->n; k++)
    if (Z3_get_sort_kind(c, Z3_get_sort(c, f->x[k])) != Z3_INT_SORT ||
        strchr(f->coef[k], '/'))
      return false;
  return true;
}

/* A form's tightest bounds among the cube's; an integral form gets
 * non-strict integer bounds. */
typedef struct {
  form_t f;
  char *lo, *hi; /* NULL: none */
  bool lo_strict, hi_strict;
} interval_t;

static void tighten(smt_t *s, interval_t *iv, const bound_t *b, bool is_int) {
  char *v = xstrdup(b->value);
  Z3_decl_kind op = b->op;
  if (is_int && op != Z3_OP_EQ) { /* x < v: x <= ceil(v) - 1; x <= v: x <=
                                     floor(v); likewise below */
    bool upper = op == Z3_OP_LE || op == Z3_OP_LT,
         strict = op == Z3_OP_LT || op == Z3_OP_GT;
    char *neg = smt_q_arith(s, EXPR_SUB, "0", v),
         *fl = neg ? smt_q_floor(s, upper ? v : neg) : NULL;
    char *k = fl ? (upper ? xstrdup(fl) : smt_q_arith(s, EXPR_SUB, "0", fl))
                 : NULL; /* floor, or ceil below */
    if (k && strict && smt_q_cmp(s, k, v) == 0) {
      char *moved = smt_q_arith(s, upper ? EXPR_SUB : EXPR_ADD, k, "1");
      free(k);
      k = moved;
    }
    free(neg), free(fl);
    if (k) {
      free(v);
      v = k;
      op = upper ? Z3_OP_LE : Z3_OP_GE;
    }
  }
  bool upper = op == Z3_OP_LE || op == Z3_OP_LT || op == Z3_OP_EQ,
       lower = op == Z3_OP_GE || op == Z3_OP_GT || op == Z3_OP_EQ;
  bool strict = op == Z3_OP_LT || op == Z3_OP_GT;
  if (upper) {
    int cmp = iv->hi ? smt_q_cmp(s, v, iv->hi) : -1;
    if (cmp < 0 || (cmp == 0 && strict)) {
      free(iv->hi);
      iv->hi = xstrdup(v);
      iv->hi_strict = strict;
    }
  }
  if (lower) {
    int cmp = iv->lo ? smt_q_cmp(s, v, iv->lo) : 1;
    if (cmp > 0 || (cmp == 0 && strict)) {
      free(iv->lo);
      iv->lo = xstrdup(v);
      iv->lo_strict = strict;
    }
  }
  free(v);
}

static void print_value(strbuf_t *sb, const char *q, bool is_int) {
  const char *slash = strchr(q, '/');
  if (slash)
    strbuf_printf(sb, "%.*s.0 / %s.0", (int)(slash - q), q, slash + 1);
  else
    strbuf_printf(sb, "%s%s", q, is_int ? "" : ".0");
}

static void print_form(text_ctx_t *tc, strbuf_t *sb, const form_t *f) {
  Z3_context c = tc->s->ctx;
  for (size_t k = 0; k < f->n; k++) {
    const char *q = f->coef[k];
    bool negative = q[0] == '-';
    if (k)
      strbuf_puts(sb, negative ? " - " : " + ");
    else if (negative)
      strbuf_puts(sb, "-");
    const char *mag = negative ? q + 1 : q;
    if (strcmp(mag, "1") != 0) {
      print_value(sb, mag,
                  Z3_get_sort_kind(c, Z3_get_sort(c, f->x[k])) == Z3_INT_SORT);
      strbuf_puts(sb, " * ");
    }
    print_ast(tc, sb, f->x[k], true);
  }
}

static void print_interval(text_ctx_t *tc, strbuf_t *sb, const interval_t *iv) {
  bool is_int = integral_form(tc->s->ctx, &iv->f);
  if (iv->lo && iv->hi && !iv->lo_strict && !iv->hi_strict &&
      smt_q_cmp(tc->s, iv->lo, iv->hi) == 0) {
    print_form(tc, sb, &iv->f);
    strbuf_puts(sb, " == ");
    print_value(sb, iv->lo, is_int);
    return;
  }
  if (iv->lo) {
    print_value(sb, iv->lo, is_int);
    strbuf_puts(sb, iv->lo_strict ? " < " : " <= ");
    print_form(tc, sb, &iv->f);
  }
  if (iv->lo && iv->hi)
    strbuf_puts(sb, " and ");
  if (iv->hi) {
    print_form(tc, sb, &iv->f);
    strbuf_puts(sb, iv->hi_strict ? " < " : " <= ");
    print_value(sb, iv->hi, is_int);
  }
}

/* A literal that is not a bound: an atom, or its negation with the
 * comparison turned round. */
static void print_literal(text_ctx_t *tc, strbuf_t *sb, Z3_ast atom,
                          bool positive) {
  Z3_context c = tc->s->ctx;
  Z3_app app = Z3_to_app(c, atom);
  unsigned n = Z3_get_app_num_args(c, app);
  if (positive || n != 2) {
    if (!positive)
      strbuf_puts(sb, "not ");
    print_ast(tc, sb, atom, positive);
    return;
  }
  Z3_decl_kind op = negate(Z3_get_decl_kind(c, Z3_get_app_decl(c, app)));
  Z3_ast x = Z3_get_app_arg(c, app, 0), y = Z3_get_app_arg(c, app, 1);
  const char *text = op == Z3_OP_LE   ? "<="
                     : op == Z3_OP_LT ? "<"
                     : op == Z3_OP_GE ? ">="
                     : op == Z3_OP_GT ? ">"
                                      : "!=";
  if (op == Z3_OP_DISTINCT && print_enum_cmp(tc, sb, x, y, "!="))
    return;
  print_ast(tc, sb, x, false);
  strbuf_printf(sb, " %s ", text);
  print_ast(tc, sb, y, false);
}

static void print_cube(text_ctx_t *tc, strbuf_t *sb, const terms_t *atoms,
                       const bool *lit, const bool *in) {
  smt_t *s = tc->s;
  Z3_context c = s->ctx;
  VEC(interval_t) ivs = {0};
  bool *is_bound = xcalloc(atoms->len + 1, sizeof *is_bound);
  for (size_t i = 0; i < atoms->len; i++) {
    bound_t b;
    if (!in[i] || !as_bound(s, get(s, atoms->data[i]), lit[i], &b))
      continue;
    is_bound[i] = true;
    size_t k = 0;
    while (k < ivs.len && !same_form(c, &ivs.data[k].f, &b.f))
      k++;
    if (k == ivs.len) {
      VEC_PUSH(&ivs, ((interval_t){b.f, NULL, NULL, false, false}));
    } else {
      free_form(&b.f);
    }
    tighten(s, &ivs.data[k], &b, integral_form(c, &ivs.data[k].f));
    free(b.value);
  }
  size_t printed = 0;
  for (size_t k = 0; k < ivs.len; k++) {
    if (ivs.data[k].lo || ivs.data[k].hi) {
      strbuf_puts(sb, printed++ ? " and " : "");
      print_interval(tc, sb, &ivs.data[k]);
    }
    free(ivs.data[k].lo), free(ivs.data[k].hi);
    free_form(&ivs.data[k].f);
  }
  for (size_t i = 0; i < atoms->len; i++) {
    if (!in[i] || is_bound[i])
      continue;
    strbuf_puts(sb, printed++ ? " and " : "");
    print_literal(tc, sb, get(s, atoms->data[i]), lit[i]);
  }
  if (!printed)
    strbuf_puts(sb, "true");
  free(is_bound);
  VEC_FREE(&ivs);
}

/* The order in which literals are tried for dropping: bounds grouped by
 * form and direction, the tightest first (an upper bound by ascending value,
 * a lower one by descending value), then the other literals. */
typedef struct {
  size_t index;
  size_t group; /* SIZE_MAX: not a bound */
  int dir;      /* 1 upper, -1 lower, 0 equality */
  char *value;
} drop_key_t;

static bool drop_before(smt_t *s, const drop_key_t *a, const drop_key_t *b) {
  if (a->group != b->group)
    return a->group < b->group;
  if (a->group == SIZE_MAX || a->dir != b->dir)
    return a->dir > b->dir;
  int cmp = smt_q_cmp(s, a->value, b->value);
  return a->dir > 0 ? cmp < 0 : cmp > 0;
}

static size_t *drop_order(smt_t *s, const terms_t *atoms, const bool *lit) {
  Z3_context c = s->ctx;
  size_t n = atoms->len;
  drop_key_t *keys = xcalloc(n + 1, sizeof *keys);
  VEC(form_t) groups = {0};
  for (size_t i = 0; i < n; i++) {
    keys[i] = (drop_key_t){i, SIZE_MAX, 0, NULL};
    bound_t b;
    if (!as_bound(s, get(s, atoms->data[i]), lit[i], &b))
      continue;
    size_t g = 0;
    while (g < groups.len && !same_form(c, &groups.data[g], &b.f))
      g++;
    if (g == groups.len)
      VEC_PUSH(&groups, b.f);
    else
      free_form(&b.f);
    keys[i].group = g;
    keys[i].dir = b.op == Z3_OP_LE || b.op == Z3_OP_LT   ? 1
                  : b.op == Z3_OP_GE || b.op == Z3_OP_GT ? -1
                                                         : 0;
    keys[i].value = b.value;
  }
  for (size_t i = 1; i < n; i++) /* insertion sort: few literals */
    for (size_t j = i; j > 0 && drop_before(s, &keys[j], &keys[j - 1]); j--) {
      drop_key_t t = keys[j];
      keys[j] = keys[j - 1];
      keys[j - 1] = t;
    }
  size_t *order = xcalloc(n + 1, sizeof *order);
  for (size_t i = 0; i < n; i++) {
    order[i] = keys[i].index;
    free(keys[i].value);
  }
  for (size_t g = 0; g < groups.len; g++)
    free_form(&groups.data[g]);
  VEC_FREE(&groups);
  free(keys);
  return order;
}

char *smt_to_readable_text(smt_t *s, smt_term_t t, smt_term_t given,
                           size_t max_cubes, smt_leaf_fn leaf, void *ctx) {
  terms_t atoms = {0};
  roots_ctx_t seen = {s, NULL, {0}, true, NULL, 0, 0};
  Z3_ast simple = Z3_simplify(s->ctx, get(s, t));
  smt_term_t st = simple ? add(s, simple) : 0;
  bool ok = st && collect_atoms(s, &seen, get(s, st), &atoms);
  free(seen.seen);
  strbuf_t sb;
  strbuf_init(&sb);
  text_ctx_t tc = {s, leaf, ctx, true};
  bool *lit = xcalloc(atoms.len + 1, sizeof *lit),
       *in = xcalloc(atoms.len + 1, sizeof *in);
  smt_push(s);
  smt_assert(s, given);
  smt_term_t not_t = ok ? smt_op(s, EXPR_NOT, st, 0, 0) : 0;
  terms_t blocked = {0}, assume = {0}, found = {0};
  VEC(char *) texts = {0};
  if (ok)
    VEC_PUSH(&blocked, st);
  size_t cubes = 0;
  while (ok) {
    smt_result_t r = smt_check(s, blocked.data, blocked.len);
    if (r == SMT_UNSAT)
      break;
    if (r != SMT_SAT || cubes == max_cubes) {
      ok = false;
      break;
    }
    for (size_t i = 0; i < atoms.len; i++) {
      in[i] = true;
      ok &= smt_model_bool(s, atoms.data[i], &lit[i]);
    }
    /* Drop each literal the rest of the cube does not need to imply t,
     * the tighter of two bounds on a form first, so the looser one stays. */
    size_t *order = drop_order(s, &atoms, lit);
    for (size_t oi = 0; oi < atoms.len && ok; oi++) {
      size_t i = order[oi];
      in[i] = false;
      assume.len = 0;
      VEC_PUSH(&assume, not_t);
      for (size_t k = 0; k < atoms.len; k++)
        if (in[k])
          VEC_PUSH(&assume, lit[k] ? atoms.data[k]
                                   : smt_op(s, EXPR_NOT, atoms.data[k], 0, 0));
      smt_result_t g = smt_check(s, assume.data, assume.len);
      if (g == SMT_SAT)
        in[i] = true;
      else if (g != SMT_UNSAT)
        ok = false;
    }
    free(order);
    if (!ok)
      break;
    strbuf_t one;
    strbuf_init(&one);
    print_cube(&tc, &one, &atoms, lit, in);
    VEC_PUSH(&texts, strbuf_take(&one));
    cubes++;
    terms_t cube = {0};
    for (size_t k = 0; k < atoms.len; k++)
      if (in[k])
        VEC_PUSH(&cube, lit[k] ? atoms.data[k]
                               : smt_op(s, EXPR_NOT, atoms.data[k], 0, 0));
    VEC_PUSH(&found, smt_and(s, cube.data, cube.len));
    VEC_PUSH(&blocked, smt_op(s, EXPR_NOT, VEC_LAST(&found), 0, 0));
    VEC_FREE(&cube);
  }
  /* Drop each conjunction the others cover. */
  for (size_t i = 0; ok && i < found.len && found.len > 1; i++) {
    assume.len = 0;
    VEC_PUSH(&assume, found.data[i]);
    for (size_t j = 0; j < found.len; j++)
      if (j != i)
        VEC_PUSH(&assume, smt_op(s, EXPR_NOT, found.data[j], 0, 0));
    smt_result_t r = smt_check(s, assume.data, assume.len);
    if (r == SMT_UNSAT) {
      free(texts.data[i]);
      memmove(texts.data + i, texts.data + i + 1,
              (texts.len - i - 1) * sizeof *texts.data);
      memmove(found.data + i, found.data + i + 1,
              (found.len - i - 1) * sizeof *found.data);
      texts.len--, found.len--, i--;
    } else if (r != SMT_SAT) {
      ok = false;
    }
  }
  smt_pop(s, 1);
  VEC_FREE(&found);
  VEC_FREE(&blocked);
  VEC_FREE(&assume);
  VEC_FREE(&atoms);
  free(lit);
  free(in);
  for (size_t i = 0; i < texts.len; i++) {
    if (texts.len > 1)
      strbuf_printf(&sb, "%s(%s)", i ? " or " : "", texts.data[i]);
    else
      strbuf_puts(&sb, texts.data[i]);
    free(texts.data[i]);
  }
  VEC_FREE(&texts);
  if (!ok || !tc.ok) {
    strbuf_free(&sb);
    return NULL;
  }
  if (cubes == 0)
    strbuf_puts(&sb, "false");
  return strbuf_take(&sb);
}
