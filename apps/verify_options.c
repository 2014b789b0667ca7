#include "apps/verify_options.h"

#include <stdlib.h>
#include <string.h>

#include "verifier/boundary.h"

void verify_options_resolve(const cli_command_t *self, const cli_value_t *values, const ism_model_t *m,
                            explore_options_t *opt, rank_options_t *ropt, long long *top) {
  const ism_options_t *mo = &m->options;
  const cli_value_t *v;
  *opt = (explore_options_t){
      .bound = 10, .mode = ISM_MODE_ACTUAL, .strategy = EXPLORE_INCREMENTAL, .split_depth = -1};
  if ((v = cli_opt(self, values, "bound"))->set)
    opt->bound = (int)v->i;
  else if (mo->has_bound)
    opt->bound = (int)mo->bound;
  const char *mode = (v = cli_opt(self, values, "mode"))->set ? v->s : mo->has_mode ? mo->mode : "actual";
  opt->mode = strcmp(mode, "naive") == 0   ? ISM_MODE_NAIVE
              : strcmp(mode, "ideal") == 0 ? ISM_MODE_IDEAL
                                           : ISM_MODE_ACTUAL;
  if ((v = cli_opt(self, values, "budget"))->set)
    opt->budget_seconds = v->r;
  else if (mo->has_budget)
    opt->budget_seconds = mo->budget;
  *top = (v = cli_opt(self, values, "top"))->set ? v->i : mo->has_top ? mo->top : 0;
  rank_options_init(ropt, opt->mode);
  if ((v = cli_opt(self, values, "probability"))->set && strcmp(v->s, "per-rule") == 0)
    ropt->estimator = RANK_PER_RULE;
  if ((v = cli_opt(self, values, "valuation"))->set && strcmp(v->s, "solver") == 0) ropt->optimise = false;
}

void verify_rank(const ism_model_t *m, const rank_options_t *ropt, cex_t *cexs, size_t n) {
  boundary_ctx_t *bc = ropt->mode == ISM_MODE_ACTUAL ? boundary_new(m, 50000000ULL) : NULL;
  for (size_t k = 0; bc && k < n; k++) {
    cex_t keep;
    cex_copy(&keep, &cexs[k], m->nvars);
    boundary_t b = boundary_classify(bc, &cexs[k]);
    char *msg = b == BOUNDARY_INTERIOR ? cex_replay(m, ropt->mode, &cexs[k]) : NULL;
    if (msg || b == BOUNDARY_UNKNOWN || !ropt->optimise) cex_copy_values(&cexs[k], &keep, m->nvars);
    cexs[k].boundary_known = b == BOUNDARY_ONLY || (b == BOUNDARY_INTERIOR && !msg);
    cexs[k].boundary_only = b == BOUNDARY_ONLY;
    free(msg);
    cex_free(&keep);
  }
  boundary_delete(bc);
  rank_all(m, ropt, cexs, n);
}
