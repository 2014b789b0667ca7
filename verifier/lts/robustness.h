/* Behavioural robustness of a machine (Zhang, Garlan, Kang, FSE'20):
 * the weakest assumption W of machine M for safety property P over the
 * interface αR = αM ∩ αE, the deviations Δ = beh(W) − beh(E↾αR) as one
 * shortest representative trace per equivalence class Π(s,a), minimal
 * explanations of each trace in a deviation model, and the comparison of
 * two designs or two properties (representative traces of W_A − W_B). */
#ifndef VERIFIER_ROBUSTNESS_H
#define VERIFIER_ROBUSTNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "verifier/lts/lts.h"

/* The interface alphabet αR = αM ∩ αE (sorted label ids) into a fresh
 * array; *n receives its length. */
int *robust_interface(const lts_t *sys, const lts_t *env, int *n);

/* A shortest trace (fresh array, *len its length) of sys ‖ env ‖ prop
 * into the property's error state: the machine violates the property
 * under the normal environment. NULL with *len = -1 when it does not, or
 * at a stop request (ism/stop.h; the caller polls). */
int *robust_normal_violation(const lts_t *sys, const lts_t *env, const lts_t *prop, int *len);

/* The weakest assumption: (M ‖ P_err) with every label outside `alpha`
 * hidden, the error state propagated backwards over τ and the result
 * determinised (subset construction, subsets with the error state are the
 * error state), then the error state removed. With `minimise`, LTSA's
 * minimise (observational equivalence) is applied before determinising and
 * to the result, as the paper's tool does; without, the result is the raw
 * subset construction (as Fortis). `prop` is a property error LTS
 * (lts_property). *empty is set when the initial state itself can reach
 * the error state by internal moves: no environment can prevent a
 * violation, and W accepts nothing. NULL at a stop request (ism/stop.h,
 * polled in the product, the subset construction and the minimisations). */
lts_t *robust_weakest_assumption(const lts_t *sys, const lts_t *prop, const int *alpha, int nalpha,
                                 bool minimise, bool *empty);

/* Fortis's variants of that construction (fortis-core `robustness`):
 * - `disables` (--disables): before the error state is removed, every
 *   label of `alpha` that a (non-error) state of the determinised
 *   assumption does not enable leads to one new sink state without
 *   transitions, so W also accepts the environment actions the machine
 *   would refuse;
 * - `unsafe` (--unsafe): the determinised (M ‖ P_err)↾alpha is returned
 *   with its error state kept and not minimised afterwards: each
 *   transition into the error state is a class of environment behaviours
 *   after which the machine may violate P (robust_error_classes). */
typedef struct {
  bool minimise, disables, unsafe;
} robust_wa_options_t;
lts_t *robust_assumption(const lts_t *sys, const lts_t *prop, const int *alpha, int nalpha,
                         const robust_wa_options_t *opt, bool *empty);

/* E↾alpha, τ-eliminated and determinised (the normative environment as the
 * analysis sees it); NULL at a stop request. */
lts_t *robust_env_view(const lts_t *env, const int *alpha, int nalpha);

typedef struct {
  int *trace; /* labels of the representative trace (owned) */
  int len;
  int *expl;    /* labels of the minimal explanation, NULL when none */
  int expl_len; /* -1 when unexplained or not explained */
  int *faults;  /* distinct fault labels of the explanation, in canonical order */
  int nfaults;
} robust_trace_t;

typedef struct {
  robust_trace_t *traces; /* one per class, sorted by (length, label names) */
  int ntraces;
} robust_traces_t;

/* Representative traces of beh(w) − beh(ref): one shortest trace per
 * transition (s, a) into the error state of w ‖ ref_err (ref must be
 * deterministic; its alphabet is used for the error completion). False,
 * with no trace, when a stop request (ism/stop.h) ended the product. */
bool robust_delta(const lts_t *w, const lts_t *ref, robust_traces_t *out);
/* One shortest representative trace per transition (s, a) into t's error
 * state (none when t has none), sorted as robust_delta's. */
void robust_error_classes(const lts_t *t, robust_traces_t *out);
void robust_traces_free(robust_traces_t *t);

/* Fortis's --expand: every trace of the deterministic `w` that starts
 * with `prefix` and goes on until it first returns to a state it has
 * visited after the prefix's first state (cycle) or reaches a state
 * without transitions (deadlock), found by a breadth-first search over
 * paths (Fortis's AcyclicTracesWithPrefixVisitor: a state counts as
 * visited when it is the source of an earlier step of the path). The
 * paths are sorted by (length, label names). Returns false, with what was
 * found so far, when there are more than `max` paths or search nodes, or at
 * a stop request. */
typedef struct {
  int *trace; /* owned */
  int len;
  bool deadlock; /* ends in a state without transitions */
} robust_path_t;
typedef struct {
  robust_path_t *paths;
  int npaths;
} robust_expansion_t;
bool robust_expand(const lts_t *w, const int *prefix, int len, long max, robust_expansion_t *out);
void robust_expansion_free(robust_expansion_t *e);

/* Minimal explanations in deviation model `dev` (BFS over sys ‖ dev ‖
 * T_σ where faults may occur only after the trace's prefix is matched).
 * `faults` are the fault actions of dev in their display order (as
 * robust_faults returns them). Fills expl/faults of every trace; a trace
 * without explanation keeps expl == NULL, expl_len == -1. A stop request
 * (ism/stop.h) ends it early: the later traces stay unexplained. */
void robust_explain(const lts_t *sys, const lts_t *dev, const int *alpha, int nalpha, const int *faults,
                    int nfaults, robust_traces_t *t);
/* The same with faults allowed at every position of the trace: the
 * explanation of an unsafe behaviour (--unsafe), whose deviation may lie
 * anywhere before the violation (as Fortis explains it). */
void robust_explain_anywhere(const lts_t *sys, const lts_t *dev, const int *alpha, int nalpha,
                             const int *faults, int nfaults, robust_traces_t *t);

/* The fault actions of `dev`: labels one of whose dot-separated
 * components (indices stripped) is in `menu`. Sorted by (menu position,
 * name). Returns a fresh array; *n receives its length. */
int *robust_faults(const lts_t *dev, const char *const *menu, size_t nmenu, int *n);

#endif
