#include "apps/verify_options.h"

#include <string.h>

cli_value_t *verify_options_resolve(cli_ctx_t *ctx, const cli_command_t *self, const cli_value_t *values,
                                    const ism_model_t *m, explore_options_t *opt, rank_options_t *ropt,
                                    long long *top) {
  cli_value_t *merged = cli_merge_file_options(self, values, m->verify, &ctx->diags);
  if (!merged) return NULL;
  const cli_value_t *v;
  *opt = (explore_options_t){
      .bound = 10, .mode = ISM_MODE_ACTUAL, .strategy = EXPLORE_INCREMENTAL, .split_depth = -1};
  if ((v = cli_opt(self, merged, "bound"))->set) opt->bound = (int)v->i;
  const char *mode = (v = cli_opt(self, merged, "mode"))->set ? v->s : "actual";
  opt->mode = strcmp(mode, "naive") == 0   ? ISM_MODE_NAIVE
              : strcmp(mode, "ideal") == 0 ? ISM_MODE_IDEAL
                                           : ISM_MODE_ACTUAL;
  if ((v = cli_opt(self, merged, "budget"))->set) opt->budget_seconds = v->r;
  *top = (v = cli_opt(self, merged, "top"))->set ? v->i : 0;
  rank_options_init(ropt, opt->mode);
  if ((v = cli_opt(self, merged, "probability"))->set && strcmp(v->s, "joint") == 0)
    ropt->estimator = RANK_JOINT;
  return merged;
}
