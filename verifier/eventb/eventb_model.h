/* The controller-plant model of `ismv eventb` (the paper's Def. 1): typed
 * variables, a safety invariant, initial states, plant and controller events
 * with parameters, guards and before-after actions, and an optional
 * (possibly parametric) interval uncertainty per variable. eventb_load reads
 * and checks the YAML format of docs/eventb.md. */
#ifndef VERIFIER_EVENTB_MODEL_H
#define VERIFIER_EVENTB_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/alloc.h"
#include "ism/diag.h"
#include "ism/expr.h"
#include "ism/ydoc.h"

/* Symbol ids in expressions: variables are 0..nvars-1, model parameters
 * nvars..nvars+nparams-1, an event's parameters from EVENTB_PARAM_BASE(m). */
/* Controller events of a model with an uncertainty: a compartment is a 64-bit set. */
#define EVENTB_MAX_CTRL 62

#define EVENTB_PARAM_BASE(m) ((int)((m)->nvars + (m)->nparams))

typedef struct {
  const char *name;
  loc_t loc;
  type_t type;     /* bool, int, real or enum (enum_id = index in enums) */
  bool uncertain;  /* true value in [perceived + lo, perceived + hi] */
  expr_t *lo, *hi; /* uncertain only: numeric, over model parameters */
  loc_t unc_loc;
} eventb_var_t;

/* A model parameter (e.g. the error bound D of `temp: [-D, D]`). */
typedef struct {
  const char *name;
  loc_t loc;
  type_t type; /* int or real */
  bool has_min, has_max;
  double min, max;
} eventb_param_t;

typedef struct {
  const char *name;
  loc_t loc;
  type_t type; /* int, real or bool */
} eventb_evparam_t;

typedef struct {
  const char *name;
  loc_t loc;
  eventb_evparam_t *params;
  size_t nparams;
  expr_t *guard;      /* bool over variables, model and event parameters */
  expr_t *action;     /* bool; x' = value after the event */
  bool *primed;       /* [nvars]: x' occurs in action (else x' = x: the frame rule) */
  expr_scope_t scope; /* variables, model parameters, this event's parameters */
} eventb_event_t;

/* One labelled invariant (Rodin's inv1, inv2, ...). */
typedef struct {
  const char *label; /* the key of `invariant:` as a map, "inv1" for a single predicate */
  expr_t *pred;      /* bool over variables */
  loc_t loc;
} eventb_inv_t;

typedef struct {
  bool has_robustify, has_max_error;
  const char *robustify; /* auto|preserving|repurposing */
  const char *max_error; /* a model parameter's name */
} eventb_settings_t;

typedef struct {
  arena_t arena;
  const char *path;
  const char *name;
  eventb_var_t *vars;
  size_t nvars;
  eventb_param_t *params;
  size_t nparams;
  expr_enum_t *enums;
  size_t nenums;
  expr_t *assume;     /* bool over model parameters beyond their min/max, or NULL */
  expr_t *invariant;  /* safety invariant I^S over variables: the conjunction of invs */
  eventb_inv_t *invs; /* ninvs >= 1, in file order */
  size_t ninvs;
  expr_t *initial; /* A_0 over variables */
  eventb_event_t *plant, *ctrl;
  size_t nplant, nctrl;
  bool has_uncertainty; /* some variable is uncertain */
  eventb_settings_t options;
  const ynode_t *expect; /* the expect: block, or NULL */
  expr_scope_t scope;    /* variables (primable) and model parameters */
} eventb_model_t;

/* Loads and checks a model. Reports every error to diags and returns NULL
 * if there was any. The model owns all its memory (eventb_free). */
eventb_model_t *eventb_load(const char *path, diag_list_t *diags);
void eventb_free(eventb_model_t *m);

#endif
