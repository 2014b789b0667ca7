/* The analyses of `ismv eventb` (Kobayashi et al., "Robustifying controller
 * specifications of cyber-physical systems against perceptual uncertainty"):
 * invariant preservation, feasibility and partitioning of a controller-plant
 * model (Def. 2), uncertainty injection (Fig. 4), action-preserving and
 * action-repurposing robustification (Figs. 7 and 9) with vacuity checks and
 * the conditions of Theorems 1 and 2, and the largest tolerable error of a
 * parametric uncertainty. Every answer is a Z3 query; see docs/eventb.md. */
#ifndef VERIFIER_EVENTB_H
#define VERIFIER_EVENTB_H

#include <stdbool.h>
#include <stddef.h>

#include "verifier/eventb/eventb_model.h"

/* Up to this many controller events, the vacuous subsets are listed. */
#define EVENTB_LIST_VACUOUS 6

typedef enum { EVENTB_AUTO, EVENTB_PRESERVING, EVENTB_REPURPOSING, EVENTB_NONE } eventb_method_t;
typedef enum { EVENTB_HOLDS, EVENTB_FAILS, EVENTB_UNKNOWN } eventb_verdict_t;

typedef struct {
  eventb_method_t method;    /* EVENTB_AUTO: Fig. 1's workflow */
  const char *max_error;     /* a model parameter to maximise, or NULL */
  unsigned timeout_ms;       /* per solver check; 0 = none */
  unsigned long long rlimit; /* per solver check, Z3 resource units; 0 = none */
  bool picture;              /* compute eventb_picture_t (one uncertain variable only) */
} eventb_options_t;

/* One value of a witness; section is "state", "perceived", "parameters",
 * "model parameters" or "next". */
typedef struct {
  const char *section;
  const char *name;
  char *value; /* owned; exact (ints, p/q rationals, enum names, true/false) */
} eventb_binding_t;

typedef struct {
  const char *name; /* "invariant", "feasibility", ... */
  eventb_verdict_t verdict;
  const char *event;         /* the event of the witness, or NULL */
  char *detail;              /* owned, or NULL: what the witness shows */
  eventb_binding_t *witness; /* owned, nwitness items; only when verdict == EVENTB_FAILS */
  const char *po;     /* Rodin's proof-obligation kind ("INV", "FIS", "WD"), or NULL when Rodin has none */
  size_t obligations; /* proof obligations (solver queries) of that kind behind the verdict */
  char *label; /* owned, or NULL: the failing obligation in Rodin's naming, e.g. "ctrl_heat/inv1/INV" */
  size_t nwitness;
} eventb_check_t;

/* A robustified controller event E_u. */
typedef struct {
  char *name; /* owned */
  int *u;     /* owned: indices of original controller events, ascending */
  size_t nu;
  char *guard;              /* owned: quantifier-free guard over perceived state and parameters */
  char *action;             /* owned: before-after predicate over true state (see docs/eventb.md) */
  char **param_names;       /* owned, nparams items */
  const char **param_types; /* "int", "real", "bool" */
  size_t nparams;
} eventb_revent_t;

typedef struct {
  bool ran;                /* an uncertainty was given and injection was analysed */
  const char *refused;     /* the first of invariant, feasibility, partitioning that does not hold
                              (robustification not attempted), or NULL */
  eventb_method_t method;  /* the robustification reported (EVENTB_NONE: none succeeded) */
  eventb_revent_t *events; /* non-vacuous events of the chosen method */
  size_t nevents;
  int **vacuous; /* subsets u (each -1 terminated) whose events are vacuous: all of them when
                    there are at most EVENTB_LIST_VACUOUS controller events, else only those
                    the max-error condition excludes */
  size_t nvacuous;
  unsigned long long nvacuous_all; /* vacuous subsets in all, listed or not */
} eventb_robust_t;

/* One robustification built from scratch with the parameter fixed to a
 * number: the certificate of a largest error. */
typedef struct {
  char *at;   /* owned: the parameter's value, exact */
  bool works; /* the theorem conditions hold there */
  bool want;  /* what the parametric answer predicts */
} eventb_fixed_run_t;

typedef struct {
  bool ran;
  const char *parameter;
  eventb_method_t method; /* method the value is for */
  bool found;             /* some value within the declared bounds works */
  bool unbounded;         /* the admissible values have no upper bound */
  bool attained;          /* value itself works (a maximum, not only a supremum) */
  char *value;            /* owned: the supremum of the admissible values, exact ("5", "5/2"), or NULL */
  double number;          /* value as a double */
  char *formula;          /* owned: the admissible values as intervals, e.g. "0 <= D and D <= 2" (long unions
                             summarised) */
  char *assume;           /* owned: the same, complete, in the expression language */
  eventb_fixed_run_t certificate[3]; /* below (a supremum only), at and above the value */
  size_t ncertificates;
} eventb_max_error_t;

/* A set of values of one variable: an interval, exact; lo/hi NULL = infinite. */
typedef struct {
  char *lo, *hi; /* owned */
  bool lo_closed, hi_closed;
} eventb_interval_t;

typedef enum { EVENTB_ROW_ORIGINAL, EVENTB_ROW_COMPARTMENT, EVENTB_ROW_FAILS } eventb_row_kind_t;

/* One row of the compartment picture: where (in perceived values) an
 * original event is enabled, a robustified event's compartment lies, or the
 * theorem condition fails. */
typedef struct {
  char *name; /* owned */
  eventb_row_kind_t kind;
  eventb_interval_t *intervals; /* owned, ascending, disjoint */
  size_t nintervals;
  char *
      set; /* owned: the intervals as a formula over the variable, e.g. "27 <= temp_hat and temp_hat <= 32" */
} eventb_row_t;

/* The paper's compartment figure for a one-dimensional uncertainty. */
typedef struct {
  bool ran;
  char *reason;           /* owned: why there is no picture (or it is partial), or NULL */
  const char *variable;   /* the perceived variable of the axis */
  eventb_method_t method; /* the robustification drawn: the reported one, else the last tried */
  bool is_int;
  char *fixed;        /* owned: model parameter values the picture is drawn at ("D = 5"), or NULL */
  eventb_row_t *rows; /* owned */
  size_t nrows;
} eventb_picture_t;

typedef struct {
  eventb_check_t *checks; /* in a fixed order */
  size_t nchecks;
  char **dead_events; /* owned: events whose guard holds in no state of the invariant */
  size_t ndead_events;
  eventb_robust_t robust;
  eventb_max_error_t max_error;
  eventb_picture_t picture;
  char **
      hat_names; /* owned [nhat_names = nvars]: names of perceived copies of uncertain variables, else NULL */
  size_t nhat_names;
  bool unknown; /* some solver answer was unknown: never report success */
  char *reason; /* owned: why, when unknown or when a formula could not be written */
  bool error;   /* an internal failure (QE, conversion): reason says which */
} eventb_result_t;

/* Runs every analysis the model and options call for. Borrows m. */
void eventb_analyse(const eventb_model_t *m, const eventb_options_t *opt, eventb_result_t *res);
void eventb_result_free(eventb_result_t *res);
/* The check named `name`, or NULL. */
const eventb_check_t *eventb_find_check(const eventb_result_t *res, const char *name);
/* The robustified model (perceived copies as variables, invariant I^S and
 * I^U, robustified controller events) as YAML that eventb_load reads back;
 * caller frees. Requires res->robust.method != EVENTB_NONE. */
char *eventb_write_model(const eventb_model_t *m, const eventb_result_t *res);
const char *eventb_method_name(eventb_method_t method);

#endif
