#include "verifier/paths/explore.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "ism/stop.h"
#include "ism/strbuf.h"
#include "ism/vec.h"
#include "verifier/paths/extend.h"
#include "verifier/paths/repair.h"
#include "verifier/smt.h"

/* Candidate valuations one model extension may try before the solver is asked. */
enum { EXTEND_BUDGET = 96, EXTEND_BUDGET_TWO = 16 };
enum { REPAIR_ROUNDS = 12, REPAIR_TRIAL = 16, REPAIR_RATE = 8, REPAIR_RETRY = 32 };

/* The run's totals for on_progress, shared by the search threads; each
 * explorer adds its counts in batches of PROGRESS_BATCH prefixes. */
enum { PROGRESS_BATCH = 256 };
typedef struct {
  atomic_ullong paths, cexs;
  atomic_int depth;
  pthread_mutex_t lock; /* held while on_progress runs */
} tally_t;

/* Terms of one action execution, arrays indexed by variable id. */
typedef struct {
  int step, position, action;
  smt_term_t *before, *after, *actual; /* actual[v] = 0 unless uncertain normal in actual mode */
  smt_term_t fail;                     /* the action's failure, or 0 */
  extend_action_t q;                   /* the current model's values of before, after, actual */
  double *dbefore, *dafter, *dactual;  /* the same as doubles (from the solver: its rounding) */
} act_terms_t;

/* A model value read back from the solver: exact when it fits a rat_t. */
typedef struct {
  bool read, exact;
  rat_t q;
  double d;
} cached_value_t;

/* A failure check of a step alone: its rule and the constants of the
 * normal values before it (step_alone), and Z3's answer. */
typedef struct {
  char *key;
  smt_result_t r;
} alone_t;

typedef struct {
  const ism_model_t *m;
  const explore_options_t *opt;
  smt_t *smt;
  size_t nvars;
  smt_term_t *T, *H, *N;                             /* [(bound + 1) * nvars] */
  smt_term_t *fail;                                  /* [bound]: disjunction of the step's failures, or 0 */
  VEC(act_terms_t) acts;                             /* of the steps on the current path, in order */
  smt_term_t *range_lo, *range_hi, *err_lo, *err_hi; /* [nvars]: the model's bounds as terms, made once */
  cached_value_t *value_cache;                       /* read_model: model value per term id */
  size_t value_cache_len;
  /* The current model of the path (tiers: extension, then solver). Rows
   * [step * nvars]: qT/dT the true (normal: assumed) values at each sensing
   * and after the last rule, qH/dH the sensed ones. model_depth = d >= 0:
   * steps 0..d-1 and row d of qT are an exact model of the path's first d
   * rules, none failing; -1: none. */
  rat_t *qT, *qH;
  double *dT, *dH;
  int model_depth;
  const extend_prep_t *prep;                      /* shared, read-only */
  struct stream *stream;                          /* on_cex(_render) set: where counterexamples go, else NULL */
  long subtree;                                   /* index of the subtree searched (run_split), or -1 */
  tally_t *tally;                                 /* opt->on_progress set, else NULL */
  unsigned long long pending_paths, pending_cexs; /* not yet added to tally */
  int pending_depth;
  int *rules, *states; /* the current path */
  /* Path repair per last rule and check (failure, prefix): tried,
   * succeeded, skipped, [2 * nrules] (see repair_worth) */
  unsigned *repair_tries, *repair_wins, *repair_skips;
  explore_result_t *res;
  double start;
  bool out_of_budget;
  int split_depth; /* dfs stops here and records the prefix, or -1 */
  /* Top-K search: this part's state and open rules (opt->topk), the open rules last seen, and
   * reach[d * nstates + s]: an open rule is reachable from state s within d
   * steps (d = 0..bound). NULL without opt->topk. */
  void *topk_part;
  const bool *open_rules;
  bool *open_seen, *reach;
  VEC(int) frontier; /* recorded prefixes, split_depth rule ids each */
  /* The search's solver scopes, one per edge of the current path (dfs).
   * Most edges are answered by the tiers without the solver, so a scope
   * reaches Z3 (push, then its assertions) only when a check needs it: the
   * first `sent` scopes are in Z3; the others' assertions wait in `queued`
   * from queued_at[scope] on. */
  VEC(size_t) queued_at;
  VEC(smt_term_t) queued;
  size_t sent;
  /* Failure checks of a step alone (step_alone): the answers so far, and
   * per row i of N the constants of its normal values as a key (NULL: not
   * made yet for the row's current terms). */
  VEC(alone_t) alone;
  char **row_key; /* [bound + 1] */
  bool simple_solver; /* explore_witness: a solver that is quick to make (smt_options_t.simple) */
} explorer_t;

typedef VEC(smt_term_t) term_vec_t;

typedef struct {
  const explorer_t *x;
  const smt_term_t *now, *next, *normal;
} var_map_t;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static smt_sort_t sort_of(type_t t) {
  return t.kind == TYPE_BOOL ? SMT_SORT_BOOL : t.kind == TYPE_REAL ? SMT_SORT_REAL : SMT_SORT_INT;
}

static smt_term_t map_var(void *ctx, const expr_t *var) {
  const var_map_t *vm = ctx;
  int id = var->u.var.id;
  if (vm->x->m->vars[id].sensing) return var->u.var.primed ? vm->next[id] : vm->now[id];
  return vm->normal[id];
}

static smt_term_t translate(explorer_t *x, const expr_t *e, const smt_term_t *now, const smt_term_t *next,
                            const smt_term_t *normal) {
  var_map_t vm = {x, now, next, normal};
  return smt_translate(x->smt, e, map_var, &vm);
}

/* A condition that holds: defined and true (a division by 0 makes it false,
 * as it does for simulate and the re-check). */
static smt_term_t holds(explorer_t *x, const expr_t *e, const smt_term_t *now, const smt_term_t *next,
                        const smt_term_t *normal) {
  var_map_t vm = {x, now, next, normal};
  return smt_translate_holds(x->smt, e, map_var, &vm);
}

/* A value, and where it divides, the condition that it is defined added to
 * cs: a path whose app divides by 0 does not go on. */
static smt_term_t value_term(explorer_t *x, const expr_t *e, const smt_term_t *now, const smt_term_t *normal,
                             term_vec_t *cs) {
  if (expr_partial(e)) {
    var_map_t vm = {x, now, NULL, normal};
    VEC_PUSH(cs, smt_defined(x->smt, e, map_var, &vm));
  }
  return translate(x, e, now, NULL, normal);
}

static smt_term_t fresh(explorer_t *x, int var, const char *what, int step) {
  char buf[128]; /* the name in one formatting pass, on the heap only when it is long */
  int n = snprintf(buf, sizeof buf, "%s%s@%d", x->m->vars[var].name, what, step);
  char *name = n >= 0 && (size_t)n < sizeof buf ? buf : xasprintf("%s%s@%d", x->m->vars[var].name, what, step);
  smt_term_t t = smt_const(x->smt, name, sort_of(x->m->vars[var].type));
  if (name != buf) free(name);
  return t;
}

static smt_term_t between(explorer_t *x, smt_term_t t, smt_term_t lo, smt_term_t hi) {
  smt_term_t b[2] = {smt_op(x->smt, EXPR_LE, lo, t, 0), smt_op(x->smt, EXPR_LE, t, hi, 0)};
  return smt_and(x->smt, b, 2);
}

/* The bounds of every variable as terms, before any term mark is taken,
 * so that releasing a search scope never frees them. */
static void make_bound_terms(explorer_t *x) {
  size_t nv = x->nvars;
  x->range_lo = xcalloc(nv + 1, sizeof(smt_term_t));
  x->range_hi = xcalloc(nv + 1, sizeof(smt_term_t));
  x->err_lo = xcalloc(nv + 1, sizeof(smt_term_t));
  x->err_hi = xcalloc(nv + 1, sizeof(smt_term_t));
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &x->m->vars[v];
    if (var->has_range) {
      x->range_lo[v] = smt_real(x->smt, var->range_lo);
      x->range_hi[v] = smt_real(x->smt, var->range_hi);
    }
    if (var->uncertain) {
      x->err_lo[v] = smt_real(x->smt, var->err_lo);
      x->err_hi[v] = smt_real(x->smt, var->err_hi);
    }
  }
}

static void free_bound_terms(explorer_t *x) {
  free(x->range_lo), free(x->range_hi), free(x->err_lo), free(x->err_hi);
}

/* A real term for a variable's value (ints are converted). */
static smt_term_t as_real(explorer_t *x, int var, smt_term_t t) {
  return x->m->vars[var].type.kind == TYPE_INT ? smt_op(x->smt, EXPR_TOREAL, t, 0, 0) : t;
}

static void free_act(act_terms_t *a) {
  free(a->before);
  free(a->after);
  free(a->actual);
  free(a->q.before), free(a->q.after), free(a->q.actual), free(a->q.has_actual);
  free(a->dbefore), free(a->dafter), free(a->dactual);
}

/* Sensing at step i: range of the true values, error of the sensed ones. */
static void add_sensing(explorer_t *x, int i, term_vec_t *cs) {
  const ism_model_t *m = x->m;
  smt_term_t *T = x->T + (size_t)i * x->nvars, *H = x->H + (size_t)i * x->nvars;
  for (size_t v = 0; v < x->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    if (!var->sensing) {
      H[v] = T[v]; /* the app's own value */
      continue;
    }
    if (var->has_range) VEC_PUSH(cs, between(x, as_real(x, (int)v, T[v]), x->range_lo[v], x->range_hi[v]));
    if (var->uncertain && x->opt->mode == ISM_MODE_ACTUAL) {
      smt_term_t e = fresh(x, (int)v, "~err", i);
      VEC_PUSH(cs, between(x, e, x->err_lo[v], x->err_hi[v]));
      H[v] = smt_op(x->smt, EXPR_ADD, T[v], e, 0);
    } else {
      H[v] = T[v];
    }
  }
}

/* The condition under which rule r is taken from its state at step i. */
static smt_term_t rule_condition(explorer_t *x, int i, int r) {
  const ism_model_t *m = x->m;
  const smt_term_t *H = x->H + (size_t)i * x->nvars, *N = x->N + (size_t)i * x->nvars;
  smt_term_t cond = holds(x, m->rules[r].when, H, NULL, N);
  if (m->selection != ISM_SELECT_FIRST) return cond;
  term_vec_t parts = {0};
  VEC_PUSH(&parts, cond);
  for (const int *o = m->rules_from[m->rules[r].from]; *o != r; o++)
    VEC_PUSH(&parts, smt_op(x->smt, EXPR_NOT, holds(x, m->rules[*o].when, H, NULL, N), 0, 0));
  smt_term_t all = smt_and(x->smt, parts.data, parts.len);
  VEC_FREE(&parts);
  return all;
}

static void run_action(explorer_t *x, int i, int position, int action, smt_term_t *U, const smt_term_t *cur,
                       term_vec_t *cs, term_vec_t *fails) {
  const ism_model_t *m = x->m;
  const ism_action_t *a = &m->actions[action];
  size_t n = x->nvars + 1;
  act_terms_t rec = {i,
                     position,
                     action,
                     xcalloc(n, sizeof(smt_term_t)),
                     xcalloc(n, sizeof(smt_term_t)),
                     xcalloc(n, sizeof(smt_term_t)),
                     0,
                     {xcalloc(n, sizeof(rat_t)), xcalloc(n, sizeof(rat_t)), xcalloc(n, sizeof(rat_t)),
                      xcalloc(n, sizeof(bool))},
                     xcalloc(n, sizeof(double)),
                     xcalloc(n, sizeof(double)),
                     xcalloc(n, sizeof(double))};
  smt_term_t *normal = xcalloc(x->nvars + 1, sizeof *normal);
  for (size_t v = 0; v < x->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    rec.before[v] = var->sensing ? U[v] : cur[v];
    rec.after[v] = var->sensing ? 0 : rec.before[v];
    if (!var->sensing && var->uncertain && x->opt->mode == ISM_MODE_ACTUAL && a->reads[v]) {
      smt_term_t e = fresh(x, (int)v, "~err", i);
      VEC_PUSH(cs, between(x, e, x->err_lo[v], x->err_hi[v]));
      rec.actual[v] = smt_op(x->smt, EXPR_ADD, cur[v], e, 0);
      normal[v] = rec.actual[v];
    } else if (!var->sensing) {
      normal[v] = cur[v];
    }
  }
  bool naive = x->opt->mode == ISM_MODE_NAIVE;
  bool *defining = xcalloc(a->neffects + 1, sizeof *defining);
  for (size_t k = 0; k < a->neffects && !naive; k++) {
    const expr_t *value;
    int v = ism_effect_defines(m, a->effects[k], &value);
    if (v < 0 || rec.after[v]) continue;
    rec.after[v] = value_term(x, value, rec.before, normal, cs);
    defining[k] = true;
  }
  for (size_t v = 0; v < x->nvars; v++)
    if (m->vars[v].sensing && !rec.after[v]) rec.after[v] = fresh(x, (int)v, "'", i);
  for (size_t k = 0; k < a->neffects && !naive; k++)
    if (!defining[k]) VEC_PUSH(cs, holds(x, a->effects[k], rec.before, rec.after, normal));
  free(defining);
  if (a->failure) {
    rec.fail = holds(x, a->failure, rec.before, rec.after, normal);
    VEC_PUSH(fails, rec.fail);
  }
  for (size_t v = 0; v < x->nvars; v++) U[v] = rec.after[v];
  free(normal);
  VEC_PUSH(&x->acts, rec);
}

/* Encodes rule r as step i of the path: returns the step's constraint and
 * sets x->fail[i]. Creates T[i+1], N[i+1] (and H[i]). */
static smt_term_t build_step(explorer_t *x, int i, int r) {
  const ism_model_t *m = x->m;
  const ism_rule_t *rule = &m->rules[r];
  size_t nv = x->nvars;
  term_vec_t cs = {0};
  term_vec_t fails = {0};
  add_sensing(x, i, &cs);
  VEC_PUSH(&cs, rule_condition(x, i, r));
  smt_term_t *U = xmalloc((nv + 1) * sizeof *U), *cur = xmalloc((nv + 1) * sizeof *cur);
  memcpy(U, x->T + (size_t)i * nv, nv * sizeof *U);
  memcpy(cur, x->N + (size_t)i * nv, nv * sizeof *cur);
  const smt_term_t *H = x->H + (size_t)i * nv;
  for (size_t k = 0; k < rule->nsteps; k++) {
    const ism_step_t *st = &rule->steps[k];
    if (st->kind == ISM_STEP_ASSIGN)
      cur[st->var] = value_term(x, st->value, H, cur, &cs);
    else
      run_action(x, i, (int)k, st->action, U, cur, &cs, &fails);
  }
  smt_term_t *Tn = x->T + (size_t)(i + 1) * nv, *Nn = x->N + (size_t)(i + 1) * nv;
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    Nn[v] = cur[v];
    if (!var->sensing)
      Tn[v] = cur[v];
    else if (rule->has_action)
      Tn[v] = U[v];
    else if (var->dynamic || x->opt->mode == ISM_MODE_NAIVE) {
      /* the environment's value at the next sensing: within the range even
       * when no sensing follows (the model-wide failure reads it) */
      Tn[v] = fresh(x, (int)v, "", i + 1);
      if (var->has_range)
        VEC_PUSH(&cs, between(x, as_real(x, (int)v, Tn[v]), x->range_lo[v], x->range_hi[v]));
    } else
      Tn[v] = x->T[(size_t)i * nv + v];
  }
  if (m->failure) VEC_PUSH(&fails, holds(x, m->failure, Tn, NULL, Nn));
  x->fail[i] = fails.len ? smt_or(x->smt, fails.data, fails.len) : 0;
  smt_term_t c = smt_and(x->smt, cs.data, cs.len);
  free(U);
  free(cur);
  VEC_FREE(&cs);
  VEC_FREE(&fails);
  return c;
}

/* Row 0 of the model: the initial values, and for the free ones the middle
 * of their range (or 0). Any values are a model of the empty prefix. */
static void init_start_model(explorer_t *x) {
  const ism_model_t *m = x->m;
  x->model_depth = 0;
  for (size_t v = 0; v < x->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    rat_t q = rat_int(0), lo, hi, sum;
    bool ok = true;
    if (var->init) {
      bool err = false;
      value_t val = expr_eval(var->init, NULL, NULL, &err);
      if (var->type.kind == TYPE_REAL)
        ok = rat_from_double(expr_eval_real(var->init, NULL, NULL, &err), &q);
      else
        q = rat_int(var->type.kind == TYPE_BOOL ? val.i != 0 : val.i);
      ok = ok && !err;
    } else if (var->has_range && var->type.kind != TYPE_BOOL) {
      ok = rat_from_double(var->range_lo, &lo) && rat_from_double(var->range_hi, &hi) &&
           rat_add(lo, hi, &sum) && rat_div(sum, rat_int(2), &q);
      if (var->type.kind == TYPE_INT) q = rat_floor(q);
    }
    if (!ok) x->model_depth = -1;
    x->qT[v] = q;
    x->dT[v] = rat_to_double(q);
  }
}

static void init_path_start(explorer_t *x) {
  const ism_model_t *m = x->m;
  for (size_t v = 0; v < x->nvars; v++) {
    const ism_var_t *var = &m->vars[v];
    if (var->sensing) {
      x->T[v] = fresh(x, (int)v, "", 0);
    } else if (var->init) {
      bool err = false;
      value_t val = expr_eval(var->init, NULL, NULL, &err);
      x->N[v] = var->type.kind == TYPE_REAL   ? smt_real(x->smt, expr_eval_real(var->init, NULL, NULL, &err))
                : var->type.kind == TYPE_BOOL ? smt_bool(x->smt, val.i != 0)
                                              : smt_int(x->smt, val.i);
      x->T[v] = x->N[v];
    } else {
      x->N[v] = x->T[v] = fresh(x, (int)v, "", 0);
    }
  }
  /* the model's assume: on the initial values (a path starts only where they hold) */
  for (size_t k = 0; k < m->nassume; k++) smt_assert(x->smt, holds(x, m->assume[k], x->T, NULL, x->N));
}

/* ---- progress ---- */

static void tally_flush(explorer_t *x) {
  tally_t *t = x->tally;
  atomic_fetch_add(&t->paths, x->pending_paths);
  atomic_fetch_add(&t->cexs, x->pending_cexs);
  for (int d = atomic_load(&t->depth);
       d < x->pending_depth && !atomic_compare_exchange_weak(&t->depth, &d, x->pending_depth);)
    ;
  x->pending_paths = x->pending_cexs = 0;
  if (pthread_mutex_trylock(&t->lock) != 0) return; /* another thread is reporting */
  explore_progress_t p = {atomic_load(&t->paths), atomic_load(&t->cexs), atomic_load(&t->depth)};
  x->opt->on_progress(x->opt->on_progress_ctx, &p);
  pthread_mutex_unlock(&t->lock);
}

/* One more prefix (or path) of `depth` rules explored. */
static void count_path(explorer_t *x, int depth) {
  x->res->paths++;
  if (!x->tally) return;
  if (depth > x->pending_depth) x->pending_depth = depth;
  if (++x->pending_paths >= PROGRESS_BATCH) tally_flush(x);
}

/* ---- streaming ----
 * Counterexamples leave in report order: those found above the split
 * (few, kept until their place comes), then subtree after subtree. The
 * subtree at the head of the report streams live; subtrees searched ahead
 * of it buffer theirs until it is done: as counterexamples, or with
 * on_cex_render as texts in a spool (memory, then a temporary file). */
enum { SPOOL_MEMORY = 1 << 20 }; /* explore_options_t.spool_memory 0 */

/* Records (kind, length, bytes) waiting for their place: kind 0 a text for
 * on_cex_text, 1 the message of a failed re-check. */
typedef struct {
  strbuf_t mem;
  FILE *file; /* once mem passed SPOOL_MEMORY (NULL if none could be made: memory) */
} spool_t;

typedef struct stream {
  const explore_options_t *opt;
  const ism_model_t *m;
  explore_result_t *res; /* the run's result: nstreamed, replay failure */
  pthread_mutex_t lock;
  cex_t *top; /* found above the split, in report order */
  size_t ntop, top_next;
  const int *prefixes; /* the subtrees' prefixes, [n * depth] */
  int depth;
  size_t n, head; /* subtrees; the one being reported */
  explore_result_t *parts;
  spool_t *spools; /* [n], with on_cex_render */
  bool *done;
  size_t window;        /* a subtree is started only when fewer than this are ahead of the head */
  pthread_cond_t moved; /* the head moved */
} stream_t;

static void replay_failed(stream_t *s, const char *msg) {
  explore_result_t *res = s->res;
  if (res->replay_failed) return;
  res->replay_failed = true;
  res->replay_message = xasprintf("counterexample %zu failed its re-check: %s", res->nstreamed + 1, msg);
}

/* Hands on a rendered record in its place. Under the lock. */
static void deliver_text(stream_t *s, int kind, const char *text) {
  if (kind) {
    replay_failed(s, text);
    return;
  }
  s->res->nstreamed++;
  s->opt->on_cex_text(s->opt->on_cex_ctx, text);
}

/* Re-checks c and renders it (on_cex_render): the text, or NULL with *bad
 * set (caller frees). Outside the lock. */
static char *render(stream_t *s, cex_t *c, char **bad) {
  *bad = cex_replay(s->m, s->opt->mode, c);
  if (*bad) {
    cex_free(c);
    return NULL;
  }
  return s->opt->on_cex_render(s->opt->on_cex_ctx, c);
}

/* Re-checks c and hands it on. Under the lock (or single-threaded). */
static void deliver(stream_t *s, cex_t *c) {
  if (s->opt->on_cex_render) {
    char *bad, *text = render(s, c, &bad);
    deliver_text(s, bad != NULL, bad ? bad : text);
    free(bad), free(text);
    return;
  }
  char *msg = cex_replay(s->m, s->opt->mode, c);
  if (msg) {
    replay_failed(s, msg);
    free(msg);
    cex_free(c);
    return;
  }
  s->res->nstreamed++;
  s->opt->on_cex(s->opt->on_cex_ctx, c);
}

static void spool_put(const stream_t *s, spool_t *sp, int kind, const char *text) {
  size_t len = strlen(text), limit = s->opt->spool_memory ? s->opt->spool_memory : SPOOL_MEMORY;
  if (!sp->file && sp->mem.len + len > limit && (sp->file = tmpfile()) != NULL) {
    if (sp->mem.len) fwrite(sp->mem.data, 1, sp->mem.len, sp->file);
    strbuf_free(&sp->mem);
    strbuf_init(&sp->mem);
  }
  char head[1 + sizeof len];
  head[0] = (char)kind;
  memcpy(head + 1, &len, sizeof len);
  if (sp->file) {
    fwrite(head, 1, sizeof head, sp->file);
    fwrite(text, 1, len, sp->file);
  } else {
    strbuf_putn(&sp->mem, head, sizeof head);
    strbuf_putn(&sp->mem, text, len);
  }
}

/* Delivers a spool's records in order and empties it. A temporary file
 * that cannot be read back is a failed re-check (the report would miss
 * counterexamples). */
static void spool_drain(stream_t *s, spool_t *sp) {
  if (sp->file) {
    FILE *f = sp->file;
    sp->file = NULL;
    bool ok = fflush(f) == 0 && fseek(f, 0, SEEK_SET) == 0;
    char head[1 + sizeof(size_t)];
    char *text = NULL;
    size_t cap = 0;
    while (ok && fread(head, 1, sizeof head, f) == sizeof head) {
      size_t len;
      memcpy(&len, head + 1, sizeof len);
      if (len + 1 > cap) text = xrealloc(text, cap = len + 1);
      ok = fread(text, 1, len, f) == len;
      text[len] = '\0';
      if (ok) deliver_text(s, head[0], text);
    }
    if (!ok || ferror(f)) replay_failed(s, "a temporary file of the stream could not be read back");
    free(text);
    fclose(f);
    return;
  }
  size_t at = 0;
  while (at < sp->mem.len) {
    int kind = sp->mem.data[at];
    size_t len;
    memcpy(&len, sp->mem.data + at + 1, sizeof len);
    at += 1 + sizeof len;
    char keep = sp->mem.data[at + len];
    sp->mem.data[at + len] = '\0';
    deliver_text(s, kind, sp->mem.data + at);
    sp->mem.data[at + len] = keep;
    at += len;
  }
  strbuf_free(&sp->mem);
  strbuf_init(&sp->mem);
}

/* Is c before every path that starts with prefix (depth rules)? */
static bool before_prefix(const cex_t *c, const int *prefix, int depth) {
  for (int k = 0; k < c->length && k < depth; k++)
    if (c->rules[k] != prefix[k]) return c->rules[k] < prefix[k];
  return c->length <= depth;
}

/* Delivers everything whose place has come. Under the lock. */
static void stream_flush(stream_t *s) {
  while (s->head < s->n) {
    const int *prefix = s->prefixes + s->head * (size_t)s->depth;
    while (s->top_next < s->ntop && before_prefix(&s->top[s->top_next], prefix, s->depth))
      deliver(s, &s->top[s->top_next++]);
    explore_result_t *part = &s->parts[s->head];
    for (size_t k = 0; k < part->ncexs; k++) deliver(s, &part->cexs[k]);
    free(part->cexs);
    part->cexs = NULL, part->ncexs = 0;
    if (s->spools) spool_drain(s, &s->spools[s->head]);
    if (!s->done[s->head]) return;
    s->head++;
    pthread_cond_broadcast(&s->moved);
  }
  while (s->top_next < s->ntop) deliver(s, &s->top[s->top_next++]);
}

static void stream_take(explorer_t *x, cex_t *c) {
  stream_t *s = x->stream;
  if (x->subtree < 0) { /* no split: single-threaded, already in order */
    deliver(s, c);
    return;
  }
  char *bad = NULL, *text = s->opt->on_cex_render ? render(s, c, &bad) : NULL;
  pthread_mutex_lock(&s->lock);
  if ((size_t)x->subtree == s->head) {
    stream_flush(s);
    if (s->opt->on_cex_render)
      deliver_text(s, bad != NULL, bad ? bad : text);
    else
      deliver(s, c);
  } else if (s->opt->on_cex_render) {
    spool_put(s, &s->spools[x->subtree], bad != NULL, bad ? bad : text);
  } else {
    explore_result_t *part = x->res;
    part->cexs = xrealloc(part->cexs, (part->ncexs + 1) * sizeof *part->cexs);
    part->cexs[part->ncexs++] = *c;
  }
  pthread_mutex_unlock(&s->lock);
  free(bad), free(text);
}

static void stream_subtree_done(stream_t *s, size_t p) {
  pthread_mutex_lock(&s->lock);
  s->done[p] = true;
  stream_flush(s);
  pthread_mutex_unlock(&s->lock);
}

/* ---- the model of the path: read from the solver, or extended ---- */

/* The solver model's value of t. A path shares most terms between steps
 * (values that persist), so each term is read once per model. Clears *ok
 * when the solver cannot give it (an interrupted solver, at the deadline),
 * *exact when the value does not fit a rat_t. */
static void model_value(explorer_t *x, smt_term_t t, rat_t *q, double *d, bool *ok, bool *exact) {
  cached_value_t *c = t < x->value_cache_len ? &x->value_cache[t] : NULL, local = {0};
  if (!c) c = &local;
  if (!c->read) {
    long long num = 0, den = 1;
    smt_value_t kind = smt_model_value(x->smt, t, &num, &den, &c->d);
    c->read = kind != SMT_VALUE_NONE;
    c->exact = kind == SMT_VALUE_EXACT;
    c->q = (rat_t){num, den};
    if (!c->read) {
      *ok = false;
      return;
    }
  }
  if (!c->exact) *exact = false;
  *q = c->q;
  *d = c->d;
}

static void reset_value_cache(explorer_t *x) {
  size_t n = smt_mark(x->smt);
  if (n > x->value_cache_len) {
    x->value_cache = xrealloc(x->value_cache, n * sizeof *x->value_cache);
    x->value_cache_len = n;
  }
  memset(x->value_cache, 0, x->value_cache_len * sizeof *x->value_cache);
}

/* Reads the solver's model of the first `length` steps of the path into
 * the model rows (steps 0..length-1 and the row after them). Returns false
 * when the solver gives no values; *exact says whether all were exact. */
static bool read_model(explorer_t *x, int length, bool *exact) {
  bool ok = true;
  *exact = true;
  reset_value_cache(x);
  size_t nv = x->nvars;
  for (int k = 0; k <= length; k++)
    for (size_t v = 0; v < nv; v++) {
      size_t at = (size_t)k * nv + v;
      model_value(x, x->T[at], &x->qT[at], &x->dT[at], &ok, exact);
      if (k < length) model_value(x, x->H[at], &x->qH[at], &x->dH[at], &ok, exact);
    }
  for (size_t k = 0; k < x->acts.len; k++) {
    act_terms_t *a = &x->acts.data[k];
    if (a->step >= length) continue;
    for (size_t v = 0; v < nv; v++) {
      model_value(x, a->before[v], &a->q.before[v], &a->dbefore[v], &ok, exact);
      model_value(x, a->after[v], &a->q.after[v], &a->dafter[v], &ok, exact);
      a->q.has_actual[v] = a->actual[v] != 0;
      if (a->actual[v]) model_value(x, a->actual[v], &a->q.actual[v], &a->dactual[v], &ok, exact);
    }
  }
  return ok;
}

/* The double rows of step i (sensed, actions, after) from an extension. */
static void doubles_of_step(explorer_t *x, int i) {
  size_t nv = x->nvars;
  for (size_t v = 0; v < nv; v++) {
    x->dH[(size_t)i * nv + v] = rat_to_double(x->qH[(size_t)i * nv + v]);
    x->dT[(size_t)(i + 1) * nv + v] = rat_to_double(x->qT[(size_t)(i + 1) * nv + v]);
  }
  for (size_t k = 0; k < x->acts.len; k++) {
    act_terms_t *a = &x->acts.data[k];
    if (a->step != i) continue;
    for (size_t v = 0; v < nv; v++) {
      a->dbefore[v] = rat_to_double(a->q.before[v]);
      a->dafter[v] = rat_to_double(a->q.after[v]);
      a->dactual[v] = a->q.has_actual[v] ? rat_to_double(a->q.actual[v]) : 0;
    }
  }
}

/* Records the current model of the path of `length` rules as a
 * counterexample failing at its last action with do: position
 * fail_position (-1: the model-wide failure). */
static void emit(explorer_t *x, int length, int fail_position) {
  size_t nv = x->nvars;
  x->pending_cexs++;
  cex_t c = {0};
  c.length = length;
  c.rules = xmalloc((size_t)length * sizeof *c.rules);
  c.states = xmalloc((size_t)(length + 1) * sizeof *c.states);
  memcpy(c.rules, x->rules, (size_t)length * sizeof *c.rules);
  memcpy(c.states, x->states, (size_t)(length + 1) * sizeof *c.states);
  c.truth = xmalloc(((size_t)(length + 1) * nv + 1) * sizeof *c.truth);
  c.sensed = xmalloc(((size_t)length * nv + 1) * sizeof *c.sensed);
  memcpy(c.truth, x->dT, (size_t)(length + 1) * nv * sizeof *c.truth);
  memcpy(c.sensed, x->dH, (size_t)length * nv * sizeof *c.sensed);
  c.nactions = x->acts.len;
  c.actions = xcalloc(c.nactions + 1, sizeof *c.actions);
  c.fail_position = fail_position;
  c.fail_action = fail_position >= 0 ? x->m->rules[x->rules[length - 1]].steps[fail_position].action : -1;
  for (size_t k = 0; k < x->acts.len; k++) {
    const act_terms_t *a = &x->acts.data[k];
    cex_action_t *ca = &c.actions[k];
    *ca = (cex_action_t){a->step,
                         a->position,
                         a->action,
                         xcalloc(nv + 1, sizeof(double)),
                         xcalloc(nv + 1, sizeof(double)),
                         xcalloc(nv + 1, sizeof(double)),
                         xcalloc(nv + 1, sizeof(bool))};
    memcpy(ca->before, a->dbefore, nv * sizeof(double));
    memcpy(ca->after, a->dafter, nv * sizeof(double));
    for (size_t v = 0; v < nv; v++) {
      ca->has_actual[v] = a->actual[v] != 0;
      if (a->actual[v]) ca->actual[v] = a->dactual[v];
    }
  }
  if (x->topk_part) { /* re-checked, then ranked at once by the part */
    char *msg = cex_replay(x->m, x->opt->mode, &c);
    if (msg) {
      if (!x->res->replay_failed) {
        x->res->replay_failed = true;
        x->res->replay_message = xasprintf("a counterexample failed its re-check: %s", msg);
      }
      free(msg);
      cex_free(&c);
      return;
    }
    x->res->nstreamed++;
    x->opt->topk->take(x->topk_part, &c);
    return;
  }
  if (x->stream && (x->subtree >= 0 || x->split_depth < 0)) {
    stream_take(x, &c);
    return;
  }
  explore_result_t *res = x->res;
  res->cexs = xrealloc(res->cexs, (res->ncexs + 1) * sizeof *res->cexs);
  res->cexs[res->ncexs++] = c;
}

/* Why a search stopped early: a signal, the process's time limit, or the
 * options' own budget. */
static const char *stop_why(void) {
  switch (stop_reason()) {
  case STOP_SIGNAL: return EXPLORE_INTERRUPTED;
  case STOP_TIMEOUT: return "the time limit (--timeout) ran out";
  case STOP_NONE: break;
  }
  return "the time budget is exhausted";
}

/* After a satisfiable failure check of the path of `length` rules: its
 * counterexample from the solver's model, which is also a model of the
 * path without its last rule. */
static void extract(explorer_t *x, int length) {
  bool exact;
  if (!read_model(x, length,
                  &exact)) { /* no values: the path is not reported, and the search is incomplete */
    x->out_of_budget = true;
    x->model_depth = -1;
    explore_result_t *res = x->res;
    if (!res->reason)
      res->reason =
          smt_stop_requested() || smt_deadline_passed(x->smt) ? stop_why() : "the solver gave no model";
    return;
  }
  x->model_depth = exact ? length - 1 : -1;
  int fail_position = -1;
  for (size_t k = 0; k < x->acts.len && fail_position < 0; k++) {
    const act_terms_t *a = &x->acts.data[k];
    bool fired = false;
    if (a->step == length - 1 && a->fail && smt_model_bool(x->smt, a->fail, &fired) && fired)
      fail_position = a->position;
  }
  emit(x, length, fail_position);
}

/* The model values of the actions of step i, in do: order. */
static size_t step_actions(explorer_t *x, int i, extend_action_t *out, size_t max) {
  size_t n = 0;
  for (size_t k = 0; k < x->acts.len; k++)
    if (x->acts.data[k].step == i) {
      if (n == max) return max + 1;
      out[n++] = x->acts.data[k].q;
    }
  return n;
}

enum { MAX_STEP_ACTIONS = 64 };

typedef struct {
  explorer_t *x;
  int i, rule, budget;
  bool want_fail;
  extend_action_t actions[MAX_STEP_ACTIONS];
  extend_step_t io;
} step_search_t;

static bool prepare_step(explorer_t *x, int i, int r, bool want_fail, int budget, step_search_t *st) {
  size_t nv = x->nvars;
  *st = (step_search_t){.x = x, .i = i, .rule = r, .budget = budget, .want_fail = want_fail};
  if (step_actions(x, i, st->actions, MAX_STEP_ACTIONS) > MAX_STEP_ACTIONS) return false;
  st->io = (extend_step_t){x->qT + (size_t)i * nv,
                           x->qH + (size_t)i * nv,
                           x->qT + (size_t)(i + 1) * nv,
                           st->actions,
                           -1,
                           NULL,
                           NULL};
  return true;
}

static bool run_step(void *ctx) {
  step_search_t *st = ctx;
  return extend_step(st->x->prep, st->x->opt->mode, st->rule, st->want_fail, st->budget, &st->io);
}

/* Tier 1: extends the model of the first i rules by step i (rule r),
 * failing or not; true when it found values (then they are the model).
 * When the model of step i - 1 does not extend, step i - 1 is searched
 * again together with step i (values step i - 1 left free may need others). */
static bool extend(explorer_t *x, int i, int r, bool want_fail, int *fail_position) {
  if (!x->prep || x->model_depth < i - 1 || (i == 0 && x->model_depth < 0)) return false;
  step_search_t last, before;
  if (!prepare_step(x, i, r, want_fail, EXTEND_BUDGET, &last)) return false;
  bool found = x->model_depth >= i && run_step(&last);
  if (!found && i >= 1 && prepare_step(x, i - 1, x->rules[i - 1], false, EXTEND_BUDGET_TWO, &before)) {
    last.budget = EXTEND_BUDGET_TWO;
    before.io.accept = run_step;
    before.io.accept_ctx = &last;
    found = run_step(&before);
    /* The search rewrote step i - 1: a model of it again, or none. */
    if (found)
      doubles_of_step(x, i - 1);
    else
      x->model_depth = i - 1;
  }
  if (!found) return false;
  doubles_of_step(x, i);
  *fail_position = last.io.fail_position;
  return true;
}

/* Is a repair of a failure check of rule r worth its cost? Most failure
 * checks of some rules are unsatisfiable (the thermostat's heating cannot
 * make the room cold), where a repair only costs: after REPAIR_TRIAL tries,
 * a rule is tried only while at least one try in REPAIR_RATE succeeds, and
 * then once every REPAIR_RETRY checks. Depends only on what this search
 * met before, and only decides which tier answers. */
static bool repair_worth(explorer_t *x, size_t at) {
  unsigned tries = x->repair_tries[at];
  if (tries < REPAIR_TRIAL || x->repair_wins[at] * REPAIR_RATE >= tries) return true;
  return ++x->repair_skips[at] % REPAIR_RETRY == 0;
}

/* Tier 2 of a failure check (fail) or a prefix check: values of the
 * whole path of i + 1 rules, failing at its last or not (repair.h), from
 * the model of its first model_depth steps. On success they are the model
 * of the first i steps (fail) or of all i + 1 (model_depth set). */
static bool repair(explorer_t *x, int i, bool fail, int *fail_position) {
  size_t at = (size_t)x->rules[i] + (fail ? 0 : x->m->nrules);
  if (!x->prep || x->model_depth < 0 || !repair_worth(x, at)) return false;
  x->repair_tries[at]++;
  extend_action_t *acts = xmalloc((x->acts.len + 1) * sizeof *acts);
  for (size_t k = 0; k < x->acts.len; k++) acts[k] = x->acts.data[k].q;
  repair_path_t io = {x->rules, i + 1, fail, x->qT, x->qH, acts, x->acts.len, x->model_depth, -1};
  bool found = repair_path(x->prep, x->opt->mode, REPAIR_ROUNDS, &io);
  free(acts);
  if (!found) return false;
  x->repair_wins[at]++;
  for (size_t v = 0; v < x->nvars; v++) x->dT[v] = rat_to_double(x->qT[v]);
  for (int k = 0; k <= i; k++) doubles_of_step(x, k);
  x->model_depth = fail ? i : i + 1;
  *fail_position = io.fail_position;
  return true;
}

/* ---- search ---- */

const char explore_interrupted[] = "interrupted by a signal; the report is partial";

static bool budget_left(explorer_t *x) {
  if (x->out_of_budget) return false;
  if (smt_stop_requested()) {
    x->out_of_budget = true;
    if (!x->res->reason) x->res->reason = stop_why();
    return false;
  }
  double budget = x->opt->budget_seconds;
  if (budget <= 0) return true;
  double left = budget - (now_seconds() - x->start);
  if (left <= 0) {
    x->out_of_budget = true;
    x->res->reason = "the time budget is exhausted";
    return false;
  }
  return true;
}

/* ---- lazy solver scopes (explorer_t.queued) ---- */

static void scope_open(explorer_t *x) { VEC_PUSH(&x->queued_at, x->queued.len); }

/* Asserts t in the innermost scope (at once when that scope is in Z3, or
 * outside every scope). */
static void scope_assert(explorer_t *x, smt_term_t t) {
  if (x->sent == x->queued_at.len)
    smt_assert(x->smt, t);
  else
    VEC_PUSH(&x->queued, t);
}

static void scope_close(explorer_t *x) {
  assert(x->queued_at.len > 0);
  size_t at = x->queued_at.data[--x->queued_at.len];
  if (x->sent > x->queued_at.len) {
    smt_pop(x->smt, 1);
    x->sent--;
  } else {
    x->queued.len = at;
  }
}

/* Sends every waiting scope to Z3, outermost first: before a check, and
 * before a push of the check's own. */
static void scope_flush(explorer_t *x) {
  for (size_t l = x->sent; l < x->queued_at.len; l++) {
    size_t end = l + 1 < x->queued_at.len ? x->queued_at.data[l + 1] : x->queued.len;
    smt_push(x->smt);
    for (size_t k = x->queued_at.data[l]; k < end; k++) smt_assert(x->smt, x->queued.data[k]);
  }
  x->sent = x->queued_at.len;
  x->queued.len = 0;
}

static smt_result_t check(explorer_t *x, const smt_term_t *assume, size_t n) {
  if (!budget_left(x)) return SMT_UNKNOWN;
  scope_flush(x);
  smt_result_t r = smt_check(x->smt, assume, n);
  x->res->solver_checks++;
  if (r == SMT_UNKNOWN && (smt_deadline_passed(x->smt) || smt_stop_requested())) {
    x->out_of_budget = true;
    if (!x->res->reason) x->res->reason = stop_why();
  } else if (r == SMT_UNKNOWN && !x->res->reason) {
    const char *why = smt_error(x->smt);
    x->res->reason_owned = xasprintf("the solver answered unknown (%s)", why ? why : "no reason given");
    x->res->reason = x->res->reason_owned;
  }
  return r;
}

static void truncate_acts(explorer_t *x, size_t len) {
  while (x->acts.len > len) free_act(&x->acts.data[--x->acts.len]);
}

/* The failure check of step i (rule r): a counterexample when it can fail. */
/* Step i fails at do: position `position`: that action fails and no action
 * of the step before it does (-1: no action of the step fails and the
 * model-wide failure holds after it). 0 when the step has no such failure. */
static smt_term_t failure_at(explorer_t *x, int i, int position) {
  term_vec_t parts = {0};
  bool found = false;
  for (size_t k = 0; k < x->acts.len && !found; k++) {
    const act_terms_t *a = &x->acts.data[k];
    if (a->step != i || !a->fail) continue;
    found = a->position == position;
    VEC_PUSH(&parts, found ? a->fail : smt_op(x->smt, EXPR_NOT, a->fail, 0, 0));
  }
  if (!found && position < 0 && x->m->failure) {
    size_t at = (size_t)(i + 1) * x->nvars;
    VEC_PUSH(&parts, holds(x, x->m->failure, x->T + at, NULL, x->N + at));
    found = true;
  }
  smt_term_t t = found ? smt_and(x->smt, parts.data, parts.len) : 0;
  VEC_FREE(&parts);
  return t;
}

/* The places where step i can fail, in do: order, the model-wide failure
 * (-1) last; returns how many (at most max are stored). */
static size_t failure_places(const explorer_t *x, int i, int *out, size_t max) {
  size_t n = 0;
  for (size_t k = 0; k < x->acts.len; k++)
    if (x->acts.data[k].step == i && x->acts.data[k].fail) {
      if (n < max) out[n] = x->acts.data[k].position;
      n++;
    }
  if (x->m->failure) {
    if (n < max) out[n] = -1;
    n++;
  }
  return n;
}

/* A step that can fail in several places has a counterexample for each
 * place where it can fail first (each its own failure class): the solver
 * is asked for each in do: order, so which ones are reported does not
 * depend on which model a search happened to find. `assume`: check with
 * the place as an assumption (a solver of its own per path) instead of
 * pushing it. SAT if any place can fail, UNKNOWN if none can but one was
 * not decided. */
static smt_result_t check_places(explorer_t *x, int i, const int *places, size_t n, bool assume) {
  smt_result_t any = SMT_UNSAT;
  for (size_t k = 0; k < n && !x->out_of_budget; k++) {
    smt_term_t t = failure_at(x, i, places[k]);
    if (!t) continue;
    smt_result_t r;
    scope_flush(x);
    if (assume) {
      r = check(x, &t, 1);
    } else {
      smt_push(x->smt);
      smt_assert(x->smt, t);
      r = check(x, NULL, 0);
    }
    if (r == SMT_SAT) extract(x, i + 1);
    if (!assume) smt_pop(x->smt, 1);
    if (r == SMT_SAT || (r == SMT_UNKNOWN && any == SMT_UNSAT)) any = r;
  }
  return any;
}

/* ---- a step's failure alone ----
 * Most failure checks that reach the solver are unsatisfiable because of
 * the step itself (its rule's condition, the sensing and actuation error
 * bounds, the action's effects), whatever the path before it. So a step's
 * failure is first checked alone: rule r encoded as a step on fresh
 * values before it (each sensing variable's true value, each normal value
 * that is not a constant on the path), the constants kept, in a solver of
 * its own (smt_check_alone). Every failure check of a path whose step has
 * the same rule and the same constants before it asserts that step's
 * encoding and failure with the path's terms in place of the fresh values:
 * an instance of the alone check, so if Z3 finds that one unsatisfiable,
 * the path's check is too. Only UNSAT is taken from it; the answers are
 * kept per (rule, constants), at most ALONE_MAX per search. */
enum { ALONE_MAX = 64 };

/* The constants of the normal values of row i ("*" for one that is not). */
static const char *row_key(explorer_t *x, int i) {
  if (x->row_key[i]) return x->row_key[i];
  strbuf_t sb;
  strbuf_init(&sb);
  const smt_term_t *N = x->N + (size_t)i * x->nvars;
  for (size_t v = 0; v < x->nvars; v++) {
    if (x->m->vars[v].sensing) continue;
    char *k = smt_constant_text(x->smt, N[v]);
    strbuf_printf(&sb, "|%s", k ? k : "*");
    free(k);
  }
  strbuf_putc(&sb, '|');
  return x->row_key[i] = sb.data;
}

static smt_result_t encode_alone(explorer_t *x, int i, int r) {
  size_t nv = x->nvars, mark = smt_mark(x->smt), acts = x->acts.len;
  smt_term_t *rows[] = {x->T + (size_t)i * nv, x->H + (size_t)i * nv, x->N + (size_t)i * nv,
                        x->T + (size_t)(i + 1) * nv, x->N + (size_t)(i + 1) * nv};
  enum { NROWS = sizeof rows / sizeof *rows };
  smt_term_t *saved = xmalloc((NROWS * nv + 1) * sizeof *saved), fail = x->fail[i];
  for (size_t k = 0; k < NROWS; k++) memcpy(saved + k * nv, rows[k], nv * sizeof *saved);
  smt_term_t *T = rows[0], *N = rows[2];
  for (size_t v = 0; v < nv; v++) {
    if (x->m->vars[v].sensing) {
      T[v] = fresh(x, (int)v, "", i);
    } else {
      char *k = smt_constant_text(x->smt, N[v]);
      if (!k) N[v] = fresh(x, (int)v, "", i); /* a constant keeps its term (equal to it) */
      T[v] = N[v];
      free(k);
    }
  }
  smt_term_t step = build_step(x, i, r); /* sets x->fail[i]: before it is read */
  smt_term_t q[2] = {step, x->fail[i]};
  smt_result_t answer = SMT_UNSAT;
  if (q[1]) {
    answer = smt_check_alone(x->smt, q, 2);
    x->res->solver_checks++;
  }
  for (size_t k = 0; k < NROWS; k++) memcpy(rows[k], saved + k * nv, nv * sizeof *saved);
  x->fail[i] = fail;
  free(saved);
  truncate_acts(x, acts);
  smt_release(x->smt, mark);
  return answer;
}

/* Z3's answer to step i's failure (rule r) alone, from the cache or asked
 * now; SMT_UNKNOWN when the cache is full. */
static smt_result_t step_alone(explorer_t *x, int i, int r) {
  const char *constants = row_key(x, i);
  char *key = xasprintf("%d%s", r, constants);
  for (size_t k = 0; k < x->alone.len; k++)
    if (strcmp(x->alone.data[k].key, key) == 0) {
      free(key);
      return x->alone.data[k].r;
    }
  if (x->alone.len >= ALONE_MAX) {
    free(key);
    return SMT_UNKNOWN;
  }
  alone_t a = {key, encode_alone(x, i, r)};
  VEC_PUSH(&x->alone, a);
  return a.r;
}

static smt_result_t check_failure(explorer_t *x, int i, int r, smt_term_t fail) {
  int fail_position;
  if (x->prep && step_alone(x, i, r) == SMT_UNSAT) {
    x->res->alone_failures++;
    return SMT_UNSAT;
  }
  size_t n = failure_places(x, i, NULL, 0);
  if (n > 1) { /* each place the solver's: the tiers find one place, not which */
    int *all = xmalloc(n * sizeof *all);
    failure_places(x, i, all, n);
    x->res->solver_failures += n;
    smt_result_t any = check_places(x, i, all, n, false);
    free(all);
    return any;
  }
  if (extend(x, i, r, true, &fail_position)) {
    x->res->extended_failures++;
    emit(x, i + 1, fail_position);
    return SMT_SAT;
  }
  if (repair(x, i, true, &fail_position)) {
    x->res->repaired_failures++;
    emit(x, i + 1, fail_position);
    return SMT_SAT;
  }
  scope_flush(x);
  smt_push(x->smt);
  smt_assert(x->smt, fail);
  x->res->solver_failures++;
  smt_result_t failing = check(x, NULL, 0);
  if (failing == SMT_SAT) extract(x, i + 1);
  smt_pop(x->smt, 1);
  return failing;
}

/* Whether the path through step i (rule r) can go on without failing;
 * on SAT the model covers it (model_depth i + 1) or, when only the failure
 * check showed the rule feasible, the children's checks decide. */
static smt_result_t check_prefix(explorer_t *x, int i, int r, smt_result_t failing) {
  int fail_position;
  if (extend(x, i, r, false, &fail_position)) {
    x->res->extended_prefixes++;
    x->model_depth = i + 1;
    return SMT_SAT;
  }
  /* A satisfiable failure check shows the rule feasible; whether it can
   * also be passed without failing is left to the children's checks (they
   * include this prefix), which saves a check on most edges. When the
   * failure check is unsatisfiable, the prefix may be infeasible: check
   * it, and prune at once if so. */
  if (failing == SMT_SAT) return SMT_SAT;
  if (repair(x, i, false, &fail_position)) {
    x->res->repaired_prefixes++;
    return SMT_SAT;
  }
  x->res->solver_prefixes++;
  smt_result_t feasible = check(x, NULL, 0);
  bool exact = false;
  if (feasible == SMT_SAT && !x->opt->solver_only && read_model(x, i + 1, &exact) && exact)
    x->model_depth = i + 1;
  return feasible;
}

/* ---- top-K search: which states can still reach an open rule ---- */

static void refresh_reach(explorer_t *x) {
  const ism_model_t *m = x->m;
  size_t ns = m->nstates;
  memcpy(x->open_seen, x->open_rules, m->nrules * sizeof *x->open_seen);
  memset(x->reach, 0, ns * sizeof *x->reach);
  for (int d = 1; d <= x->opt->bound; d++)
    for (size_t s = 0; s < ns; s++) {
      bool any = false;
      for (const int *r = m->rules_from[s]; *r >= 0 && !any; r++)
        any = x->open_seen[*r] || x->reach[(size_t)(d - 1) * ns + (size_t)m->rules[*r].to];
      x->reach[(size_t)d * ns + s] = any;
    }
}

/* Can a path of at most `steps` more rules from `state` end with an open rule? */
static bool reachable(explorer_t *x, int state, int steps) {
  if (memcmp(x->open_seen, x->open_rules, x->m->nrules * sizeof *x->open_seen) != 0) refresh_reach(x);
  return x->reach[(size_t)steps * x->m->nstates + (size_t)state];
}

static void dfs(explorer_t *x, int i) {
  const ism_model_t *m = x->m;
  if (i == x->split_depth) {
    for (int k = 0; k < i; k++) VEC_PUSH(&x->frontier, x->rules[k]);
    return;
  }
  int state = x->states[i];
  if (x->reach && !reachable(x, state, x->opt->bound - i)) {
    x->res->cut++;
    return;
  }
  if (x->topk_part && i > 0 && x->opt->topk->prefix_cut &&
      x->opt->topk->prefix_cut(x->topk_part, x->rules, x->states, i)) {
    x->res->cut++; /* every counterexample below is bounded below what the report already has */
    return;
  }
  /* budget_left on every edge: model extension answers checks without the
   * solver, whose deadline would otherwise be the only clock */
  for (const int *r = m->rules_from[state]; *r >= 0 && budget_left(x); r++) {
    int to = m->rules[*r].to, left = x->opt->bound - i - 1;
    if (x->reach && !x->open_rules[*r] && !(left > 0 && reachable(x, to, left))) {
      x->res->cut++; /* neither this edge's failure nor anything below it can change the report */
      continue;
    }
    size_t mark = smt_mark(x->smt), acts = x->acts.len;
    scope_open(x);
    x->rules[i] = *r;
    x->states[i + 1] = m->rules[*r].to;
    count_path(x, i + 1);
    scope_assert(x, build_step(x, i, *r));
    free(x->row_key[i + 1]); /* row i + 1 has new terms */
    x->row_key[i + 1] = NULL;
    smt_term_t fail = x->fail[i];
    bool want_fail = !x->reach || x->open_rules[*r];
    smt_result_t failing = fail && want_fail ? check_failure(x, i, *r, fail) : SMT_UNSAT;
    bool extend_path =
        left > 0 && (!x->reach || reachable(x, to, left)); /* after on_cex may have closed rules */
    if (x->reach && left > 0 && !extend_path) x->res->cut++;
    if (extend_path && !x->out_of_budget) {
      if (fail) scope_assert(x, smt_op(x->smt, EXPR_NOT, fail, 0, 0));
      smt_result_t feasible = check_prefix(x, i, *r, failing);
      if (feasible == SMT_UNSAT)
        x->res->pruned++;
      else
        dfs(x, i + 1); /* sat, or unknown: do not prune what we cannot refute */
    }
    if (x->model_depth > i) x->model_depth = i;
    scope_close(x);
    truncate_acts(x, acts);
    smt_release(x->smt, mark);
  }
}

static void explorer_init(explorer_t *x, const ism_model_t *m, const explore_options_t *opt,
                          explore_result_t *res, double start) {
  memset(x, 0, sizeof *x);
  *x = (explorer_t){
      .m = m, .opt = opt, .nvars = m->nvars, .res = res, .start = start, .split_depth = -1, .subtree = -1};
  size_t cells = (size_t)(opt->bound + 1) * (m->nvars + 1);
  x->T = xcalloc(cells, sizeof *x->T);
  x->H = xcalloc(cells, sizeof *x->H);
  x->N = xcalloc(cells, sizeof *x->N);
  x->fail = xcalloc((size_t)opt->bound + 1, sizeof *x->fail);
  x->rules = xcalloc((size_t)opt->bound + 1, sizeof *x->rules);
  x->states = xcalloc((size_t)opt->bound + 2, sizeof *x->states);
  x->states[0] = m->initial;
  x->repair_tries = xcalloc(2 * m->nrules + 1, sizeof *x->repair_tries);
  x->repair_wins = xcalloc(2 * m->nrules + 1, sizeof *x->repair_wins);
  x->repair_skips = xcalloc(2 * m->nrules + 1, sizeof *x->repair_skips);
  x->qT = xcalloc(cells, sizeof *x->qT);
  x->qH = xcalloc(cells, sizeof *x->qH);
  x->dT = xcalloc(cells, sizeof *x->dT);
  x->dH = xcalloc(cells, sizeof *x->dH);
  x->model_depth = -1;
  x->row_key = xcalloc((size_t)opt->bound + 1, sizeof *x->row_key);
}

/* The top-K search: a part of its own for what x searches. */
static void topk_begin(explorer_t *x, const int *prefix, int depth) {
  const explore_topk_t *t = x->opt->topk;
  if (!t || x->opt->strategy != EXPLORE_INCREMENTAL) return;
  x->topk_part = t->part_new(t->ctx, prefix, depth);
  x->open_rules = t->open_rules(x->topk_part);
  x->open_seen = xcalloc(x->m->nrules + 1, sizeof *x->open_seen);
  x->reach = xcalloc((size_t)(x->opt->bound + 1) * x->m->nstates + 1, sizeof *x->reach);
  refresh_reach(x);
}

/* Hands the part over (lock: serialises part_done, or NULL when single-threaded). */
static void topk_end(explorer_t *x, pthread_mutex_t *lock) {
  if (!x->topk_part) return;
  if (lock) pthread_mutex_lock(lock);
  x->opt->topk->part_done(x->opt->topk->ctx, x->topk_part);
  if (lock) pthread_mutex_unlock(lock);
  x->topk_part = NULL;
}

static void explorer_free(explorer_t *x) {
  free(x->open_seen), free(x->reach);
  truncate_acts(x, 0);
  VEC_FREE(&x->acts);
  VEC_FREE(&x->frontier);
  VEC_FREE(&x->queued_at);
  VEC_FREE(&x->queued);
  for (size_t k = 0; k < x->alone.len; k++) free(x->alone.data[k].key);
  VEC_FREE(&x->alone);
  for (int k = 0; k <= x->opt->bound; k++) free(x->row_key[k]);
  free(x->row_key);
  free(x->value_cache);
  free(x->T), free(x->H), free(x->N), free(x->fail), free(x->rules), free(x->states);
  free(x->qT), free(x->qH), free(x->dT), free(x->dH);
  free(x->repair_tries), free(x->repair_wins), free(x->repair_skips);
}

/* The incremental search pushes a scope before its first check, and from
 * there Z3's default solver uses its SMT core alone, which is what the
 * simple solver is; the simple one is made and first used in a fraction of
 * the time (a solver per subtree of the split). The per-path strategy
 * checks without a scope: Z3's default solver with its tactics, as the
 * paper's algorithm ran. */
static void open_solver(explorer_t *x) {
  smt_options_t so = {.simple = x->simple_solver || x->opt->strategy == EXPLORE_INCREMENTAL};
  x->smt = smt_new(&so);
  if (x->opt->budget_seconds > 0) {
    double left = x->opt->budget_seconds - (now_seconds() - x->start);
    smt_set_deadline(x->smt, left > 0.001 ? left : 0.001);
  }
  make_bound_terms(x);
  init_path_start(x);
}

static void close_solver(explorer_t *x) {
  truncate_acts(x, 0);
  free_bound_terms(x);
  smt_delete(x->smt);
  x->smt = NULL;
}

/* The paper's algorithm: every syntactic path up to the bound gets a fresh
 * solver and one check, with no pruning. */
static void check_whole_path(explorer_t *x, int length) {
  open_solver(x);
  for (int k = 0; k < length; k++) {
    smt_assert(x->smt, build_step(x, k, x->rules[k]));
    if (k + 1 < length && x->fail[k]) smt_assert(x->smt, smt_op(x->smt, EXPR_NOT, x->fail[k], 0, 0));
  }
  count_path(x, length);
  smt_term_t fail = x->fail[length - 1];
  size_t n = failure_places(x, length - 1, NULL, 0);
  if (n > 1) {
    int *all = xmalloc(n * sizeof *all);
    failure_places(x, length - 1, all, n);
    check_places(x, length - 1, all, n, true);
    free(all);
  } else if (fail && check(x, &fail, 1) == SMT_SAT) {
    extract(x, length);
  }
  close_solver(x);
}

static void enumerate_paths(explorer_t *x, int i) {
  const ism_model_t *m = x->m;
  for (const int *r = m->rules_from[x->states[i]]; *r >= 0 && !x->out_of_budget; r++) {
    x->rules[i] = *r;
    x->states[i + 1] = m->rules[*r].to;
    check_whole_path(x, i + 1);
    if (i + 1 < x->opt->bound) enumerate_paths(x, i + 1);
  }
}

/* ---- parallel incremental search ----
 * The search is split at a depth (split_depth_for): the levels above it are searched
 * first, recording every feasible prefix of that length; each prefix's
 * subtree is then searched with a fresh solver of its own. Which thread
 * searches a subtree does not change what its solver sees, so the output
 * is the same for any number of threads. */

/* Automatic split: at depth 2, and only for bounds of at least 7, where the
 * subtrees are deep enough to pay for a solver each (a Z3 context costs
 * milliseconds to make). */
enum { AUTO_SPLIT_DEPTH = 2, AUTO_SPLIT_MIN_BOUND = 7, MAX_JOBS = 64 };
/* Streaming: subtrees of at most this many levels. A Z3 context's memory
 * grows with what its subtree asserted (explorer, --all --probability none,
 * bound 9: 129 MB peak split at depth 2, 84 MB at 3), so a fixed subtree
 * depth keeps the peak from growing with the bound. */
enum { STREAM_SUBTREE_LEVELS = 6 };

static int split_depth_for(const explore_options_t *opt) {
  int d = opt->split_depth;
  /* Streaming: smaller subtrees, so that one searched ahead buffers less. */
  /* The top-K search: one part, which cuts by everything found before; parts
   * on threads only when asked (each part finds again what closes a class). */
  if (d < 0 && opt->topk) return -1;
  if (d < 0 && (opt->on_cex || opt->on_cex_render) && opt->bound >= AUTO_SPLIT_MIN_BOUND)
    d = opt->bound - STREAM_SUBTREE_LEVELS > AUTO_SPLIT_DEPTH + 1 ? opt->bound - STREAM_SUBTREE_LEVELS
                                                                  : AUTO_SPLIT_DEPTH + 1;
  if (d < 0) d = opt->bound >= AUTO_SPLIT_MIN_BOUND ? AUTO_SPLIT_DEPTH : 0;
  return d > 0 && d < opt->bound ? d : -1;
}

int explore_split_depth(const explore_options_t *opt) {
  return opt->strategy == EXPLORE_INCREMENTAL ? split_depth_for(opt) : -1;
}

typedef struct {
  const ism_model_t *m;
  const explore_options_t *opt;
  const int *prefixes; /* [nprefixes * depth] */
  size_t nprefixes;
  int depth;
  explore_result_t *results; /* [nprefixes] */
  const extend_prep_t *prep;
  stream_t *stream;
  tally_t *tally;
  double start;
  atomic_size_t next;
  pthread_mutex_t lock; /* serialises the top-K parts' part_done */
} split_work_t;

static void search_subtree(split_work_t *w, size_t p) {
  explorer_t x;
  explorer_init(&x, w->m, w->opt, &w->results[p], w->start);
  x.prep = w->prep;
  x.stream = w->stream;
  x.subtree = (long)p;
  x.tally = w->tally;
  topk_begin(&x, w->prefixes + p * (size_t)w->depth, w->depth);
  /* a run that is stopping opens no solver for the subtrees left (a Z3 context each: with
   * hundreds left that alone outlived the time limit by many seconds) */
  if (budget_left(&x)) {
    open_solver(&x);
    for (int k = 0; k < w->depth; k++) {
      int r = w->prefixes[p * (size_t)w->depth + (size_t)k];
      x.rules[k] = r;
      x.states[k + 1] = w->m->rules[r].to;
      smt_assert(x.smt, build_step(&x, k, r));
      if (x.fail[k]) smt_assert(x.smt, smt_op(x.smt, EXPR_NOT, x.fail[k], 0, 0));
    }
    dfs(&x, w->depth);
    close_solver(&x);
  }
  topk_end(&x, &w->lock);
  if (x.tally) tally_flush(&x);
  explorer_free(&x);
}

/* The next subtree to search: the next in order, or the one opt->next_subtree names. */
static bool next_task(split_work_t *w, size_t *p) {
  const explore_options_t *opt = w->opt;
  if (!opt->next_subtree) return (*p = atomic_fetch_add(&w->next, 1)) < w->nprefixes;
  long q = opt->next_subtree(opt->subtree_ctx, w->nprefixes, w->prefixes, w->depth);
  *p = q >= 0 ? (size_t)q : 0;
  return q >= 0 && (size_t)q < w->nprefixes;
}

static void *split_worker(void *arg) {
  split_work_t *w = arg;
  for (size_t p; next_task(w, &p);) {
    stream_t *s = w->stream;
    if (s) { /* do not run ahead of the output by more than the window */
      pthread_mutex_lock(&s->lock);
      while (p >= s->head + s->window) pthread_cond_wait(&s->moved, &s->lock);
      pthread_mutex_unlock(&s->lock);
    }
    search_subtree(w, p);
    if (w->stream) stream_subtree_done(w->stream, p);
    if (w->opt->subtree_done) {
      w->opt->subtree_done(w->opt->subtree_ctx, p, &w->results[p]);
      explore_result_free(&w->results[p]);
    }
  }
  return NULL;
}

static int jobs_for(const explore_options_t *opt, size_t tasks) {
  long n = opt->jobs > 0 ? opt->jobs : sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (n > MAX_JOBS) n = MAX_JOBS;
  if ((size_t)n > tasks) n = (long)tasks;
  return (int)n;
}

void explore_result_add(explore_result_t *into, explore_result_t *part) {
  if (part->ncexs) {
    into->cexs = xrealloc(into->cexs, (into->ncexs + part->ncexs) * sizeof *into->cexs);
    memcpy(into->cexs + into->ncexs, part->cexs, part->ncexs * sizeof *part->cexs);
    into->ncexs += part->ncexs;
  }
  part->ncexs = 0;
  into->paths += part->paths;
  into->pruned += part->pruned;
  into->cut += part->cut;
  into->nstreamed += part->nstreamed; /* the top-K search's; streaming counts in the run's result */
  into->solver_checks += part->solver_checks;
  into->extended_prefixes += part->extended_prefixes;
  into->extended_failures += part->extended_failures;
  into->repaired_failures += part->repaired_failures;
  into->alone_failures += part->alone_failures;
  into->repaired_prefixes += part->repaired_prefixes;
  into->solver_prefixes += part->solver_prefixes;
  into->solver_failures += part->solver_failures;
  into->seconds += part->seconds; /* (a run's own total is set after its parts are added) */
  if (!into->reason && part->reason) {
    into->reason =
        part->reason == part->reason_owned ? (into->reason_owned = part->reason_owned) : part->reason;
    if (into->reason_owned == part->reason_owned) part->reason_owned = NULL;
  }
  explore_result_free(part);
}

/* Depth-first (preorder) order of paths: by rule index, a prefix before its extensions. */
static int compare_paths(const void *pa, const void *pb) {
  const cex_t *a = pa, *b = pb;
  for (int k = 0; k < a->length && k < b->length; k++)
    if (a->rules[k] != b->rules[k]) return a->rules[k] < b->rules[k] ? -1 : 1;
  return (a->length > b->length) - (a->length < b->length);
}

static void run_split(explorer_t *top, const explore_options_t *opt, explore_result_t *res) {
  int depth = top->split_depth;
  size_t n = top->frontier.len / (size_t)depth;
  split_work_t w = {.m = top->m,
                    .opt = opt,
                    .prefixes = top->frontier.data,
                    .nprefixes = n,
                    .depth = depth,
                    .results = xcalloc(n + 1, sizeof(explore_result_t)),
                    .start = top->start,
                    .prep = top->prep,
                    .stream = top->stream,
                    .tally = top->tally};
  atomic_init(&w.next, 0);
  pthread_mutex_init(&w.lock, NULL);
  stream_t *s = top->stream;
  if (s) { /* what the search above the split found waits for its place */
    s->top = res->cexs, s->ntop = res->ncexs;
    res->cexs = NULL, res->ncexs = 0;
    s->prefixes = w.prefixes, s->depth = depth, s->n = n, s->parts = w.results;
    s->done = xcalloc(n + 1, sizeof *s->done);
    if (opt->on_cex_render) {
      s->spools = xcalloc(n + 1, sizeof *s->spools);
      for (size_t p = 0; p < n; p++) strbuf_init(&s->spools[p].mem);
    }
    s->window = (size_t)jobs_for(opt, n);
    stream_flush(s);
  }
  int jobs = jobs_for(opt, n);
  pthread_t threads[MAX_JOBS];
  int started = 0;
  for (int t = 1; t < jobs; t++)
    if (pthread_create(&threads[started], NULL, split_worker, &w) == 0) started++;
  split_worker(&w);
  for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
  if (s) {
    stream_flush(s);
    for (size_t p = 0; s->spools && p < n; p++) { /* empty unless a search stopped */
      if (s->spools[p].file) fclose(s->spools[p].file);
      strbuf_free(&s->spools[p].mem);
    }
    free(s->top), free(s->done), free(s->spools);
    s->spools = NULL;
    s->top = NULL, s->ntop = s->top_next = 0, s->n = 0, s->done = NULL;
  }
  for (size_t p = 0; p < n; p++) explore_result_add(res, &w.results[p]);
  free(w.results);
  pthread_mutex_destroy(&w.lock);
  if (res->ncexs > 1) qsort(res->cexs, res->ncexs, sizeof *res->cexs, compare_paths);
}

void explore_run(const ism_model_t *m, const explore_options_t *opt, explore_result_t *res) {
  memset(res, 0, sizeof *res);
  assert(opt->bound >= 1);
  assert(!((opt->on_cex || opt->on_cex_render) && opt->next_subtree));
  explorer_t x;
  explorer_init(&x, m, opt, res, now_seconds());
  extend_prep_t *prep = opt->solver_only ? NULL : extend_prepare(m);
  x.prep = prep;
  stream_t stream = {.opt = opt, .m = m, .res = res};
  tally_t tally = {0};
  if (opt->on_progress) {
    pthread_mutex_init(&tally.lock, NULL);
    x.tally = &tally;
  }
  if (opt->on_cex || opt->on_cex_render) {
    pthread_mutex_init(&stream.lock, NULL);
    pthread_cond_init(&stream.moved, NULL);
    x.stream = &stream;
  }
  if (opt->strategy == EXPLORE_PER_PATH) {
    enumerate_paths(&x, 0);
  } else {
    x.split_depth = split_depth_for(opt);
    topk_begin(&x, NULL, 0);
    open_solver(&x);
    init_start_model(&x);
    dfs(&x, 0);
    close_solver(&x);
    topk_end(&x, NULL); /* before the subtrees' parts start */
    if (x.split_depth > 0 && !x.out_of_budget) run_split(&x, opt, res);
  }
  if (x.tally) {
    tally_flush(&x);
    pthread_mutex_destroy(&tally.lock);
  }
  if (x.stream) { /* a search stopped above the split leaves its finds here */
    for (size_t k = 0; k < res->ncexs; k++) deliver(&stream, &res->cexs[k]);
    free(res->cexs);
    res->cexs = NULL, res->ncexs = 0;
    pthread_mutex_destroy(&stream.lock);
    pthread_cond_destroy(&stream.moved);
  }
  explorer_free(&x);
  extend_prep_free(prep);
  res->seconds = now_seconds() - x.start;
  for (size_t k = 0; k < res->ncexs && !res->replay_failed; k++) {
    char *msg = cex_replay(m, opt->mode, &res->cexs[k]);
    if (msg) {
      res->replay_failed = true;
      res->replay_message = xasprintf("counterexample %zu failed its re-check: %s", k + 1, msg);
      free(msg);
    }
  }
  res->verdict = res->ncexs || res->nstreamed ? EXPLORE_VIOLATED
                 : res->reason                ? EXPLORE_INCONCLUSIVE
                                              : EXPLORE_VERIFIED;
}

/* ---- a counterexample's own witness ---- */

/* The failure of c's last step as c fails (failure_at), so the witness
 * keeps c's class. 0 when the encoding has no such failure (a
 * counterexample of another model). */
static smt_term_t own_failure(explorer_t *x, const cex_t *c) {
  return failure_at(x, c->length - 1, c->fail_position);
}

bool explore_witness(const ism_model_t *m, ism_mode_t mode, cex_t *c) {
  explore_options_t opt = {.bound = c->length, .mode = mode, .strategy = EXPLORE_PER_PATH};
  explore_result_t res = {0};
  explorer_t x;
  explorer_init(&x, m, &opt, &res, now_seconds());
  x.simple_solver = true;
  open_solver(&x);
  for (int k = 0; k < c->length; k++) {
    x.rules[k] = c->rules[k];
    x.states[k + 1] = m->rules[c->rules[k]].to;
    smt_assert(x.smt, build_step(&x, k, c->rules[k]));
    if (k + 1 < c->length && x.fail[k]) smt_assert(x.smt, smt_op(x.smt, EXPR_NOT, x.fail[k], 0, 0));
  }
  smt_term_t fail = x.acts.len == c->nactions ? own_failure(&x, c) : 0;
  bool exact, ok = fail && check(&x, &fail, 1) == SMT_SAT && read_model(&x, c->length, &exact);
  if (ok) {
    size_t nv = x.nvars;
    memcpy(c->truth, x.dT, (size_t)(c->length + 1) * nv * sizeof *c->truth);
    memcpy(c->sensed, x.dH, (size_t)c->length * nv * sizeof *c->sensed);
    for (size_t k = 0; k < x.acts.len; k++) {
      const act_terms_t *a = &x.acts.data[k];
      cex_action_t *ca = &c->actions[k];
      memcpy(ca->before, a->dbefore, nv * sizeof(double));
      memcpy(ca->after, a->dafter, nv * sizeof(double));
      for (size_t v = 0; v < nv; v++) ca->actual[v] = a->actual[v] ? a->dactual[v] : 0;
    }
  }
  close_solver(&x);
  explorer_free(&x);
  explore_result_free(&res);
  return ok;
}

void explore_result_free(explore_result_t *res) {
  for (size_t k = 0; k < res->ncexs; k++) cex_free(&res->cexs[k]);
  free(res->cexs);
  free(res->reason_owned);
  free(res->replay_message);
  memset(res, 0, sizeof *res);
}
