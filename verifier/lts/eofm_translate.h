/* EOFM task models as LTS environments, with the semantics of the
 * LTSA-Robust translator (after Bolton, Siminiceanu and Bass 2011): each
 * action becomes a process walking its ancestors' execution states
 * (Ready -> Executing -> Done through start_/repeat_/end_/skip_/reset_
 * events), each decomposition operator a process ordering its children's
 * events, each activity's conditions a process over all input variables
 * that guards start/repeat/end and follows the world rules. Generated human
 * errors (Bolton and Bass 2013): commission_A, repetition_A, omission_A when
 * A starts, repeats or ends against its conditions. docs/eofm.md. */
#ifndef VERIFIER_EOFM_TRANSLATE_H
#define VERIFIER_EOFM_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/diag.h"
#include "verifier/lts/eofm.h"
#include "verifier/lts/lts.h"

typedef struct {
  const char *name, *value;
  loc_t loc; /* of the config entry, for errors */
} eofm_pair_t;

/* What the task model needs from outside (the reference tool's "eofm"
 * config): initial values of the input variables (a variable without one
 * starts at its type's first value), the world rules (FSP choice
 * alternatives over VAR[...] telling how the input variables change, e.g.
 * "when (iMode == Edit) hPressX -> VAR[Confirm]"), and relabels (human
 * action -> the label it synchronises on). All borrowed. */
typedef struct {
  const eofm_pair_t *initial;
  size_t ninitial;
  const char *const *world;
  const loc_t *world_locs;
  size_t nworld;
  const eofm_pair_t *relabels;
  size_t nrelabels;
} eofm_world_t;

/* Which generated errors the translation contains: none, all
 * (commission/repetition/omission of every activity with conditions), or
 * only the events named in `only`. */
typedef struct {
  bool enabled;
  const char *const *only;
  size_t nonly; /* 0 with enabled: all */
} eofm_errors_t;

/* A translation plan: the model with the world, its activity instances
 * (an activity linked twice is instantiated twice) and their process names. */
typedef struct eofm_plan eofm_plan_t;

/* Checks the world against the model (initial values are values of their
 * variable's type, relabelled actions exist, each world rule is a valid FSP
 * alternative over the model's variables) and names the instances. Errors
 * are located at the config entries (world_locs, pair locs) or at the
 * model element (operator sync, which the translation does not support; a
 * local variable's value outside its type; a name FSP cannot spell; links
 * that unfold too far). Returns NULL after reporting. */
eofm_plan_t *eofm_plan_new(const eofm_t *m, const eofm_world_t *w, diag_list_t *diags);
void eofm_plan_delete(eofm_plan_t *p);

/* The FSP text of the translation (composite ENV), in a fresh string. With
 * errors, the priority of the error events (LTSA's <<) is not written:
 * eofm_translate applies it. Records the primitive processes in p (and
 * allocates the generated names in its arena). */
char *eofm_plan_fsp(eofm_plan_t *p, const eofm_errors_t *errs);

/* Compiles the translation to the LTS of ENV (reachable states only; the
 * flat composition of its primitive processes), the error events given
 * priority over every other event. `labels` is borrowed. Returns NULL after
 * reporting an FSP error (located in the generated text), or, without a
 * report and with *exceeded set, when the composition has more than
 * max_states states (0: no budget). */
lts_t *eofm_translate(eofm_plan_t *p, const eofm_errors_t *errs, lts_labels_t *labels, int max_states,
                      bool *exceeded, diag_list_t *diags);

/* The FSP process names of the top-level activities (ENV composes them). */
size_t eofm_plan_top_count(const eofm_plan_t *p);
const char *eofm_plan_top_name(const eofm_plan_t *p, size_t i);

/* The human actions as labels (after relabelling), sorted ids. */
int *eofm_plan_actions(const eofm_plan_t *p, lts_labels_t *labels, int *n);

/* Whether a label is an activity's execution-state event (start_, end_,
 * repeat_, reset_, skip_). */
bool eofm_is_activity_event(const char *label);
/* Whether a label is one of the translation's bookkeeping events
 * (start_, end_, repeat_, reset_, skip_, and eofm_set_ for local-variable
 * assignments) or a generated error. */
bool eofm_is_helper(const char *label);
bool eofm_is_error(const char *label);

#endif
