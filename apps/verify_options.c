#include "apps/verify_options.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/stop.h"
#include "probability/bound.h"
#include "verifier/boundary.h"

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

static bool class_boundary_only(class_cache_t *cc, const cex_t *c) {
  if (c->length < 1) return false;
  int rule = c->rules[c->length - 1], pos = c->fail_position;
  if (pos < -1 || (size_t)(pos + 1) >= cc->stride) return false;
  signed char *k = &cc->known[(size_t)rule * cc->stride + (size_t)(pos + 1)];
  if (*k < 0) {
    if (!cc->bc) cc->bc = boundary_new(cc->m, VERIFY_BOUNDARY_RLIMIT);
    *k = boundary_class(cc->bc, rule, pos, true, NULL, NULL) == BOUNDARY_ONLY;
  }
  return *k == 1;
}

/* Decides c boundary-only or not (mode actual, bc set); an interior
 * witness that fails its re-check is dropped, the solver's values stay.
 * A member of a class that is boundary-only as a whole needs no check. */
static void classify(boundary_ctx_t *bc, class_cache_t *cc, const ism_model_t *m, const rank_options_t *ropt,
                     cex_t *c) {
  if (class_boundary_only(cc, c)) {
    c->boundary_known = c->boundary_only = true;
    return;
  }
  cex_t keep;
  cex_copy(&keep, c, m->nvars);
  boundary_t b = boundary_classify(bc, c);
  char *msg = b == BOUNDARY_INTERIOR ? cex_replay(m, ropt->mode, c) : NULL;
  if (msg || b == BOUNDARY_UNKNOWN || !ropt->optimise) cex_copy_values(c, &keep, m->nvars);
  c->boundary_known = b == BOUNDARY_ONLY || (b == BOUNDARY_INTERIOR && !msg);
  c->boundary_only = b == BOUNDARY_ONLY;
  free(msg);
  cex_free(&keep);
}

/* The reported probability of a joint estimate is min(estimate, B), B
 * the bound of c's true probability at any environment (bound_true): the
 * estimate is of the true probability at one environment, so clamping it to
 * B never increases its error. The error bar keeps its lower end, so it
 * covers [estimate - error, B] (docs/verify.md, "A bound per
 * counterexample"). */
static void clamp(bound_t *b, cex_t *c) {
  if (!b || !c->has_probability || c->boundary_only) return;
  double ub = bound_true(b, c);
  if (!(c->probability > ub)) return;
  double low = c->probability - c->probability_error;
  c->probability_error = low < ub ? ub - low : 0;
  c->probability = ub;
}

/* Whether a and b lie in different subtrees of a split at depth d (> 0):
 * their first d rules differ. */
static bool other_subtree(const cex_t *a, const cex_t *b, int d) {
  return memcmp(a->rules, b->rules, (size_t)d * sizeof *a->rules) != 0;
}

bool verify_rank_split(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n, int split_depth) {
  bool actual = ropt->mode == ISM_MODE_ACTUAL;
  /* one boundary solver for those above the split (or all, without one) and
   * a fresh one for each subtree's, in the order given */
  boundary_ctx_t *top = actual ? boundary_new(m, VERIFY_BOUNDARY_RLIMIT) : NULL, *sub = NULL;
  const cex_t *sub_first = NULL;
  class_cache_t cc;
  class_cache_init(&cc, m);
  for (size_t k = 0; actual && k < n && !(ropt->stop && ropt->stop(ropt->stop_arg)); k++) {
    boundary_ctx_t *bc = top;
    if (split_depth > 0 && cexs[k].length > split_depth) {
      if (!sub || other_subtree(&cexs[k], sub_first, split_depth)) {
        boundary_delete(sub);
        sub = boundary_new(m, VERIFY_BOUNDARY_RLIMIT);
        sub_first = &cexs[k];
      }
      bc = sub;
    }
    classify(bc, &cc, m, ropt, &cexs[k]);
  }
  class_cache_free(&cc);
  boundary_delete(sub);
  boundary_delete(top);
  bool all = rank_all(m, ropt, cexs, n);
  bound_t *b = ropt->estimator == RANK_JOINT ? bound_new(m) : NULL;
  bool moved = false;
  for (size_t k = 0; b && k < n; k++) {
    double was = cexs[k].probability;
    clamp(b, &cexs[k]);
    moved = moved || cexs[k].probability != was;
  }
  bound_delete(b);
  if (moved) cex_sort_by_probability(cexs, n); /* the order rank_all's sort gives the clamped numbers */
  return all;
}

bool verify_rank(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n) {
  return verify_rank_split(m, ropt, cexs, n, -1);
}

struct verify_ranker {
  const ism_model_t *m;
  const rank_options_t *ropt;
  boundary_ctx_t *bc; /* mode actual, else NULL */
  class_cache_t cc;
  rank_session_t *rank;
  bound_t *bound; /* joint estimator: the clamp's bound, else NULL */
};

verify_ranker_t *verify_ranker_new(const ism_model_t *m, const rank_options_t *ropt) {
  verify_ranker_t *v = xmalloc(sizeof *v);
  *v = (verify_ranker_t){.m = m, .ropt = ropt, .rank = rank_session_new(m, ropt)};
  if (ropt->estimator == RANK_JOINT) v->bound = bound_new(m);
  if (ropt->mode == ISM_MODE_ACTUAL) v->bc = boundary_new(m, VERIFY_BOUNDARY_RLIMIT);
  class_cache_init(&v->cc, m);
  return v;
}

bool verify_ranker_rank(verify_ranker_t *v, cex_t *c) {
  if (v->ropt->stop && v->ropt->stop(v->ropt->stop_arg)) return false;
  if (v->bc) classify(v->bc, &v->cc, v->m, v->ropt, c);
  rank_session_rank(v->rank, c);
  clamp(v->bound, c);
  return true;
}

void verify_ranker_delete(verify_ranker_t *v) {
  if (!v) return;
  boundary_delete(v->bc);
  class_cache_free(&v->cc);
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
