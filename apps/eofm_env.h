/* A robustness config's human environment written as an EOFM task model:
 *   environment: {eofm: model.xml, initial: {...}, world: [...],
 *                 relabels: {...}, max_errors: N}
 * loaded into the concise environment the analysis uses, and the
 * explanations of deviation traces by generated human errors
 * (omission_/commission_/repetition_ of activities). docs/eofm.md. */
#ifndef APPS_EOFM_ENV_H
#define APPS_EOFM_ENV_H

#include <stdbool.h>

#include "apps/fsp_config.h"
#include "ism/ydoc.h"
#include "verifier/lts/eofm.h"
#include "verifier/lts/eofm_explain.h"
#include "verifier/lts/eofm_translate.h"
#include "verifier/lts/lts.h"
#include "verifier/lts/robustness.h"

#define EOFM_ENV_MAX_STATES 1000000

typedef struct {
  const char *file; /* the model's path as named in the config */
  eofm_t *model;
  eofm_plan_t *plan;
  eofm_world_t world; /* arrays in the config's arena */
  lts_t *raw;         /* the translated task model (normative) */
  int max_errors;     /* bound on generated errors per explanation, -1: none */
  int max_states;     /* budget of every translation's composition */
  loc_t budget_loc;   /* where the budget is set (the max_states entry, else the eofm entry) */
  bool exceeded;      /* a translation went over max_states (reported): exit 5 */
} eofm_env_t;

/* Whether an `environment:` entry is an EOFM environment (a mapping). */
bool eofm_env_is(const ynode_t *node);

/* Reads the entry, translates the model and returns the concise
 * environment: (sys ‖ raw) restricted to the human actions, determinised
 * and minimised. `sys` is borrowed. Returns NULL after reporting a located
 * error (config entry, XML element or world rule), or with out->exceeded
 * when the translation has more than max_states states (default
 * EOFM_ENV_MAX_STATES). */
lts_t *eofm_env_load(fsp_config_t *c, const ynode_t *node, const lts_t *sys, eofm_env_t *out);

/* Explains every trace of `t` in the deviation model generated for it
 * (the candidate errors of the trace, LTSA-Robust's matchErrors, at most
 * max_errors of them on a path), filling expl and faults. Bookkeeping
 * events are hidden from the explanation. A deviation model over the
 * budget is reported, sets e->exceeded and leaves its trace unexplained. */
void eofm_env_explain(eofm_env_t *e, const lts_t *sys, const int *alpha, int nalpha, robust_traces_t *t,
                      diag_list_t *diags);

void eofm_env_free(eofm_env_t *e);

#endif
