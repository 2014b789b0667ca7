#include "apps/verify_options.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "apps/commands.h"
#include "ism/alloc.h"
#include "ism/stop.h"
#include "ism/workers.h"
#include "probability/bound.h"
#include "verifier/boundary.h"
#include "verifier/paths/witness.h"

/* Ranking stops on a signal and at the time limit. */
static bool stop_ranking(void *arg) {
  (void)arg;
  return stop_requested();
}

cli_value_t *verify_options_resolve(cli_ctx_t *ctx, const cli_command_t *self, const cli_value_t *values,
                                    const ism_model_t *m, explore_options_t *opt, rank_options_t *ropt,
                                    long long *top) {
  cli_value_t *merged = cli_merge_file_options(self, values, m->verify, &ctx->diags);
  if (!cli_file_time_limit(ctx, m->verify)) free(merged), merged = NULL;
  if (!merged) return NULL;
  const cli_value_t *v;
  *opt = (explore_options_t){
      .bound = 10, .mode = ISM_MODE_ACTUAL, .strategy = EXPLORE_INCREMENTAL, .split_depth = -1};
  if ((v = cli_opt(self, merged, "bound"))->set) opt->bound = (int)v->i;
  const char *mode = (v = cli_opt(self, merged, "mode"))->set ? v->s : "actual";
  opt->mode = strcmp(mode, "naive") == 0   ? ISM_MODE_NAIVE
              : strcmp(mode, "ideal") == 0 ? ISM_MODE_IDEAL
                                           : ISM_MODE_ACTUAL;
  *top = (v = cli_opt(self, merged, "top"))->set ? v->i : 0;
  rank_options_init(ropt, opt->mode);
  ropt->stop = stop_ranking;
  if ((v = cli_opt(self, merged, "probability"))->set && strcmp(v->s, "per-rule") == 0)
    ropt->estimator = RANK_PER_RULE;
  if ((v = cli_opt(self, merged, "valuation"))->set && strcmp(v->s, "solver") == 0) ropt->optimise = false;
  /* simulate's --seed is its runs' own: its ranking is verify's default one */
  if (self == &cmd_verify && (v = cli_opt(self, merged, "seed"))->set) ropt->seed = (unsigned long)v->i;
  return merged;
}

/* What is known of the classes (last rule, do: position of the failing
 * action) as a whole: every member boundary-only whatever the path before
 * (boundary_class, strict), so that their members need no solver call of
 * their own. Decided on first use with a solver of its own, so the
 * per-counterexample solver sees the same checks as without it. */
typedef struct {
  const ism_model_t *m;
  boundary_ctx_t *bc;
  signed char *known; /* [rule * stride + position + 1]: -1 not decided, 0 not all, 1 all boundary-only */
  size_t stride;
} class_cache_t;

static void class_cache_init(class_cache_t *cc, const ism_model_t *m) {
  cc->m = m, cc->bc = NULL, cc->stride = 2;
  for (size_t r = 0; r < m->nrules; r++)
    if (m->rules[r].nsteps + 2 > cc->stride) cc->stride = m->rules[r].nsteps + 2;
  cc->known = xmalloc(m->nrules * cc->stride + 1);
  memset(cc->known, -1, m->nrules * cc->stride + 1);
}

static void class_cache_free(class_cache_t *cc) {
  boundary_delete(cc->bc);
  free(cc->known);
}

static bool class_decided(class_cache_t *cc, int rule, int pos) {
  if (pos < -1 || (size_t)(pos + 1) >= cc->stride) return false;
  signed char *k = &cc->known[(size_t)rule * cc->stride + (size_t)(pos + 1)];
  if (*k < 0) {
    if (!cc->bc) cc->bc = boundary_new(cc->m, VERIFY_BOUNDARY_RLIMIT);
    *k = boundary_class(cc->bc, rule, pos, true, NULL, NULL) == BOUNDARY_ONLY;
  }
  return *k == 1;
}

static bool class_boundary_only(class_cache_t *cc, const cex_t *c) {
  return c->length >= 1 && class_decided(cc, c->rules[c->length - 1], c->fail_position);
}

/* c's values from the relaxation (verifier/paths/witness.h) when its path
 * is conjunctive affine, it finds a point with a positive margin, and the
 * point passes the re-check; else c as it was and false. */
static witness_t relaxed_witness(const ism_model_t *m, ism_mode_t mode, cex_t *c, bool interior) {
  cex_t keep;
  cex_copy(&keep, c, m->nvars);
  witness_t w = witness_find(m, mode, c, interior);
  char *msg = w != WITNESS_NONE ? cex_replay(m, mode, c) : NULL;
  if (msg) cex_copy_values(c, &keep, m->nvars), w = WITNESS_NONE;
  free(msg);
  cex_free(&keep);
  return w;
}

/* Gives c the values it is ranked from and shown with, as a function of
 * its path and failure alone (not of the search, the split, the threads or
 * the ranks that found it), and in mode actual decides it boundary-only or
 * not. A boundary-only counterexample (its class as a whole, or its own
 * path by a fresh boundary solver, verifier/boundary.h) is not ranked: it
 * is shown with the relaxation's point (verifier/paths/witness.h, margin
 * 0), no solver. A counterexample that is ranked starts the ranking from a
 * solver's witness, as before: a fresh boundary solver's interior witness
 * when it passes its re-check and the valuation is optimised, else a fresh
 * solver's for its own path (explore_witness; the paper's witness with
 * --valuation solver, and in modes ideal and naive). With --valuation
 * solver a point of the relaxation with every inequality strict decides
 * "not boundary-only" without the boundary solver. Every branch depends on
 * c's path and failure alone. */
static void canonical(class_cache_t *cc, const ism_model_t *m, const rank_options_t *ropt, cex_t *c) {
  ism_mode_t mode = ropt->mode;
  if (mode != ISM_MODE_ACTUAL) {
    explore_witness(m, mode, c);
    return;
  }
  if (class_boundary_only(cc, c)) {
    c->boundary_known = c->boundary_only = true;
    if (!relaxed_witness(m, mode, c, false)) explore_witness(m, mode, c);
    return;
  }
  if (!ropt->optimise && relaxed_witness(m, mode, c, true) == WITNESS_INTERIOR) {
    c->boundary_known = true, c->boundary_only = false;
    explore_witness(m, mode, c);
    return;
  }
  cex_t keep;
  cex_copy(&keep, c, m->nvars);
  boundary_ctx_t *bc = boundary_new(m, VERIFY_BOUNDARY_RLIMIT);
  boundary_t b = boundary_classify(bc, c);
  boundary_delete(bc);
  char *msg = b == BOUNDARY_INTERIOR ? cex_replay(m, mode, c) : NULL;
  if (msg || b != BOUNDARY_INTERIOR || !ropt->optimise) {
    cex_copy_values(c, &keep, m->nvars);
    if (b != BOUNDARY_ONLY || !relaxed_witness(m, mode, c, false)) explore_witness(m, mode, c);
  }
  c->boundary_known = b == BOUNDARY_ONLY || (b == BOUNDARY_INTERIOR && !msg);
  c->boundary_only = b == BOUNDARY_ONLY;
  free(msg);
  cex_free(&keep);
}

/* The witness of a counterexample that is not ranked: the relaxation's
 * point (margin: with a positive margin; false at once for a member of a
 * class that is boundary-only as a whole, where none is possible), else a
 * fresh solver's, under solver_lock when one is given. */
static void witness_with(const ism_model_t *m, ism_mode_t mode, cex_t *c, bool margin,
                         pthread_mutex_t *solver_lock) {
  if (relaxed_witness(m, mode, c, margin)) return;
  if (solver_lock) pthread_mutex_lock(solver_lock);
  explore_witness(m, mode, c);
  if (solver_lock) pthread_mutex_unlock(solver_lock);
}

static void witness(class_cache_t *cc, const ism_model_t *m, ism_mode_t mode, cex_t *c) {
  witness_with(m, mode, c, mode != ISM_MODE_ACTUAL || !class_boundary_only(cc, c), NULL);
}

/* The reported probability of a joint estimate is min(estimate, B), B
 * the bound of c's true probability at any environment (bound_true): the
 * estimate is of the true probability at one environment, so clamping it to
 * B never increases its error. The error bar keeps its lower end, so it
 * covers [estimate - error, B] (docs/verify.md, "A bound per
 * counterexample"). */
static void clamp(bound_t *b, cex_t *c, double ub) {
  if (!b || !c->has_probability || c->boundary_only) return;
  if (ub < 0) ub = bound_true(b, c);
  if (!(c->probability > ub)) return;
  double low = c->probability - c->probability_error;
  c->probability_error = low < ub ? ub - low : 0;
  c->probability = ub;
}

/* The counterexamples made canonical by several threads, each taking the
 * next one not taken (each depends on its own path only, so the result
 * does not depend on the threads). The class cache is filled first. */
typedef struct {
  class_cache_t *cc;
  const ism_model_t *m;
  const rank_options_t *ropt;
  cex_t *cexs;
  size_t n;
  atomic_size_t next;
  bool witness_only; /* unranked: explore_witness alone */
} canon_pool_t;

static void *canon_worker(void *arg) {
  canon_pool_t *pool = arg;
  const rank_options_t *ropt = pool->ropt;
  for (size_t k;
       !(ropt->stop && ropt->stop(ropt->stop_arg)) && (k = atomic_fetch_add(&pool->next, 1)) < pool->n;)
    if (pool->witness_only)
      witness(pool->cc, pool->m, ropt->mode, &pool->cexs[k]);
    else
      canonical(pool->cc, pool->m, ropt, &pool->cexs[k]);
  return NULL;
}

static void canonical_all(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n,
                          bool witness_only) {
  class_cache_t cc;
  class_cache_init(&cc, m);
  for (size_t k = 0; k < n && ropt->mode == ISM_MODE_ACTUAL; k++) class_boundary_only(&cc, &cexs[k]);
  canon_pool_t pool = {&cc, m, ropt, cexs, n, 0, witness_only};
  workers_run(ropt->jobs, n, canon_worker, &pool);
  class_cache_free(&cc);
}

bool verify_rank(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n) {
  canonical_all(m, ropt, cexs, n, false);
  bool all = rank_all(m, ropt, cexs, n);
  bound_t *b = ropt->estimator == RANK_JOINT ? bound_new(m) : NULL;
  bool moved = false;
  for (size_t k = 0; b && k < n; k++) {
    double was = cexs[k].probability;
    clamp(b, &cexs[k], -1);
    moved = moved || cexs[k].probability != was;
  }
  bound_delete(b);
  if (moved) cex_sort_by_probability(cexs, n); /* the order rank_all's sort gives the clamped numbers */
  return all;
}

void verify_witnesses(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n) {
  canonical_all(m, ropt, cexs, n, true);
}

struct verify_ranker {
  const ism_model_t *m;
  const rank_options_t *ropt;
  class_cache_t cc;
  pthread_mutex_t cc_lock;     /* verify_ranker_witness: cc from several threads */
  pthread_mutex_t solver_lock; /* verify_ranker_witness: one solver's witness at a time */
  rank_session_t *rank;
  bound_t *bound; /* joint estimator: the clamp's bound, else NULL */
};

verify_ranker_t *verify_ranker_new(const ism_model_t *m, const rank_options_t *ropt) {
  verify_ranker_t *v = xmalloc(sizeof *v);
  *v = (verify_ranker_t){.m = m, .ropt = ropt, .rank = rank_session_new(m, ropt)};
  if (ropt->estimator == RANK_JOINT) v->bound = bound_new(m);
  class_cache_init(&v->cc, m);
  pthread_mutex_init(&v->cc_lock, NULL);
  pthread_mutex_init(&v->solver_lock, NULL);
  return v;
}

bool verify_ranker_rank(verify_ranker_t *v, cex_t *c, double ub) {
  if (v->ropt->stop && v->ropt->stop(v->ropt->stop_arg)) return false;
  canonical(&v->cc, v->m, v->ropt, c);
  rank_session_rank(v->rank, c);
  clamp(v->bound, c, ub);
  return true;
}

void verify_ranker_witness(verify_ranker_t *v, cex_t *c) {
  if (v->ropt->stop && v->ropt->stop(v->ropt->stop_arg)) return;
  ism_mode_t mode = v->ropt->mode;
  pthread_mutex_lock(&v->cc_lock);
  bool margin = mode != ISM_MODE_ACTUAL || !class_boundary_only(&v->cc, c);
  pthread_mutex_unlock(&v->cc_lock);
  /* The solver's witness makes a Z3 context (~17 MB): one at a time, so
   * that the threads' fallbacks do not add up to the peak. */
  witness_with(v->m, mode, c, margin, &v->solver_lock);
}

void verify_ranker_decide_classes(verify_ranker_t *v) {
  const ism_model_t *m = v->m;
  if (v->ropt->mode != ISM_MODE_ACTUAL) return;
  for (size_t r = 0; r < m->nrules; r++)
    for (int pos = -1; pos < (int)m->rules[r].nsteps; pos++) {
      const ism_step_t *st = pos >= 0 ? &m->rules[r].steps[pos] : NULL;
      if (st ? st->kind == ISM_STEP_ACTION && m->actions[st->action].failure : m->failure != NULL)
        class_decided(&v->cc, (int)r, pos);
    }
  boundary_delete(v->cc.bc);
  v->cc.bc = NULL;
}

void verify_ranker_delete(verify_ranker_t *v) {
  if (!v) return;
  class_cache_free(&v->cc);
  pthread_mutex_destroy(&v->cc_lock);
  pthread_mutex_destroy(&v->solver_lock);
  rank_session_delete(v->rank);
  bound_delete(v->bound);
  free(v);
}

void verify_progress_show(void *ctx, const explore_progress_t *p) {
  verify_progress_t *vp = ctx;
  if (!progress_due(&vp->line)) return;
  double t = progress_elapsed(&vp->line);
  progress_show(&vp->line, "%s: depth %d/%d, %llu prefixes, %llu counterexamples, %.0f prefixes/s",
                vp->command, p->depth, vp->bound, p->paths, p->counterexamples,
                t > 0 ? (double)p->paths / t : 0.0);
}
