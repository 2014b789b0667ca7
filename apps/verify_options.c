#include "apps/verify_options.h"

#include <string.h>

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
}
