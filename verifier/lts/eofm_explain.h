/* What the robustness analysis needs from a translated EOFM task model:
 * the concise environment, the candidate human errors that may explain a
 * deviation trace (LTSA-Robust's matchErrors) and a bound on the number of
 * errors. docs/eofm.md. */
#ifndef VERIFIER_EOFM_EXPLAIN_H
#define VERIFIER_EOFM_EXPLAIN_H

#include "verifier/lts/eofm_translate.h"
#include "verifier/lts/lts.h"

/* The concise environment: (sys ‖ raw)↾actions, τ-eliminated, determinised
 * and minimised, as the reference tool feeds it to the robustness analysis.
 * NULL at a stop request (ism/stop.h), polled in the product and the subset
 * construction. */
lts_t *eofm_concise(const lts_t *sys, const lts_t *raw, const int *actions, int nactions);

/* The candidate errors that may explain `trace` (the reference tool's
 * matchErrors): the errors of the activities on the way to the trace's last
 * action, given the activity states the normative prefix reaches in
 * sys ‖ raw. `alpha` is the interface the trace is over. Returns a fresh
 * array of fresh strings (*n entries), in the order they were found. */
char **eofm_candidate_errors(const eofm_plan_t *p, const lts_t *sys, const lts_t *raw, const int *alpha,
                             int nalpha, const int *trace, int len, int *n);

/* An LTS that allows at most `max` events of `faults` (sorted label ids):
 * composed with a deviation model it bounds the number of human errors. */
lts_t *eofm_error_budget(lts_labels_t *labels, const int *faults, int nfaults, int max);

#endif
