#include "apps/verify_options.h"

#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"
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

bool verify_rank(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n) {
  bool actual = ropt->mode == ISM_MODE_ACTUAL;
  for (size_t k = 0; actual && k < n && !(ropt->stop && ropt->stop(ropt->stop_arg)); k++) {
    /* a solver per counterexample: its witness then does not depend on
     * which counterexamples were classified before (a shard or an MPI rank
     * classifies only some; docs/scale-out.md) */
    boundary_ctx_t *bc = boundary_new(m, 50000000ULL);
    cex_t keep;
    cex_copy(&keep, &cexs[k], m->nvars);
    boundary_t b = boundary_classify(bc, &cexs[k]);
    char *msg = b == BOUNDARY_INTERIOR ? cex_replay(m, ropt->mode, &cexs[k]) : NULL;
    if (msg || b == BOUNDARY_UNKNOWN || !ropt->optimise) cex_copy_values(&cexs[k], &keep, m->nvars);
    cexs[k].boundary_known = b == BOUNDARY_ONLY || (b == BOUNDARY_INTERIOR && !msg);
    cexs[k].boundary_only = b == BOUNDARY_ONLY;
    free(msg);
    cex_free(&keep);
    boundary_delete(bc);
  }
  return rank_all(m, ropt, cexs, n);
}

void verify_progress_show(void *ctx, const explore_progress_t *p) {
  verify_progress_t *vp = ctx;
  if (!progress_due(&vp->line)) return;
  double t = progress_elapsed(&vp->line);
  progress_show(&vp->line, "%s: depth %d/%d, %llu prefixes, %llu counterexamples, %.0f prefixes/s",
                vp->command, p->depth, vp->bound, p->paths, p->counterexamples,
                t > 0 ? (double)p->paths / t : 0.0);
}
