/* The interactive state machine (ISM) model of `ismv verify`: variables
 * (sensing and normal), states, interactive actions with effect constraints
 * and failure conditions, rules, uncertainty, and the options a model file
 * may set. ism_load reads and checks a YAML model; the semantics are in
 * docs/ism-format.md and docs/verify.md. */
#ifndef ISM_ISM_H
#define ISM_ISM_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/alloc.h"
#include "ism/diag.h"
#include "ism/expr.h"
#include "ism/ydoc.h"

typedef enum { ISM_DIST_UNIFORM, ISM_DIST_GAUSSIAN } ism_dist_t;

typedef struct {
  const char *name;
  loc_t loc;
  type_t type;    /* bool, int or real */
  bool sensing;   /* written by every sensing: has a true and a sensed value */
  bool dynamic;   /* sensing only: free at every sensing, even across rules without actions */
  bool has_range; /* sensing only: physical domain of the true value */
  double range_lo, range_hi;
  const expr_t *init;    /* normal only: initial value (constant expression), or NULL = free */
  bool uncertain;        /* has an error range (sensing or actuation error) */
  double err_lo, err_hi; /* error range, err_lo <= err_hi */
  ism_dist_t dist;
  double mean, sd; /* gaussian: before truncation to the error range */
} ism_var_t;

typedef struct {
  const char *name;
  loc_t loc;
  expr_t **effects; /* bool, over true values; x' = value after the action */
  size_t neffects;
  expr_t *failure;  /* NULL or bool over true values before (x) and after (x') */
  bool *constrains; /* [nvars]: sensing variable mentioned primed in an effect */
  bool *reads;      /* [nvars]: normal variable read by an effect or the failure */
} ism_action_t;

typedef enum { ISM_STEP_ACTION, ISM_STEP_ASSIGN } ism_step_kind_t;

typedef struct {
  ism_step_kind_t kind;
  loc_t loc;
  int action;    /* ISM_STEP_ACTION */
  int var;       /* ISM_STEP_ASSIGN: normal variable assigned */
  expr_t *value; /* ISM_STEP_ASSIGN: reads sensed and current normal values */
} ism_step_t;

typedef struct {
  const char *id;
  loc_t loc;
  int from, to;
  expr_t *when; /* over sensed values; never NULL (true when omitted) */
  ism_step_t *steps;
  size_t nsteps;
  bool has_action; /* executes at least one interactive action */
} ism_rule_t;

typedef enum { ISM_SELECT_ANY, ISM_SELECT_FIRST } ism_selection_t;

typedef struct {
  arena_t arena;
  const char *path;
  const char *name;
  ism_var_t *vars;
  size_t nvars;
  const char **states;
  size_t nstates;
  int initial;
  ism_action_t *actions;
  size_t nactions;
  ism_rule_t *rules;
  size_t nrules;
  int **rules_from; /* rules_from[s]: ids of rules leaving s, in file order, -1 terminated */
  expr_t *failure;  /* model-wide failure over true values after each rule, or NULL */
  expr_t **assume;  /* [nassume]: conditions on the initial true values and initial normal values */
  size_t nassume;
  ism_selection_t selection;
  const ynode_t *verify; /* the verify: block (a mapping of option names), or NULL;
                            apps/ parses it like the command line */
  const ynode_t *expect; /* the expect: block, or NULL */
  expr_scope_t scope;    /* all variables; primable = sensing */
  expr_sym_t *syms;
} ism_model_t;

/* Loads and checks a model. Reports every error to diags; returns NULL if
 * there was any. The model owns all its memory (ism_free). */
ism_model_t *ism_load(const char *path, diag_list_t *diags);
void ism_free(ism_model_t *m);

/* The sensing variable an action effect `x' == expr` defines (either side;
 * expr mentions no primed name and has x's type), with *rhs = expr; else -1.
 * The substitution rule of docs/verify.md, shared by the engine, the boundary
 * decision, the estimators and simulate's executor. */
int ism_effect_defines(const ism_model_t *m, const expr_t *e, const expr_t **rhs);

#endif
