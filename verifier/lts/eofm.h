/* EOFM (Enhanced Operator Function Model) human task models: the XML
 * reader (the only user of libxml2) and the checked model it produces.
 * A model has user-defined types, constants, human operators with input
 * and local variables, human actions and a forest of activities whose
 * decompositions order sub-activities and actions. Translation to an
 * LTS is in verifier/lts/eofm_translate.h; format: docs/eofm.md. */
#ifndef VERIFIER_EOFM_H
#define VERIFIER_EOFM_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/alloc.h"
#include "ism/diag.h"
#include "ism/vec.h"

typedef enum {
  EOFM_ORD,
  EOFM_AND_SEQ,
  EOFM_AND_PAR,
  EOFM_OR_SEQ,
  EOFM_OR_PAR,
  EOFM_OPTOR_SEQ,
  EOFM_OPTOR_PAR,
  EOFM_XOR,
  EOFM_SYNC
} eofm_op_t;

/* The operator's XML spelling ("and_seq"). */
const char *eofm_op_name(eofm_op_t op);

/* A user-defined type: an enumeration; value i of the type is the integer i. */
typedef struct {
  const char *name;
  const char **values;
  size_t nvalues;
  loc_t loc;
} eofm_type_t;

/* A constant (<constant name=".." basictype="INTEGER">3</constant>): an integer,
 * or a value of a user-defined type. */
typedef struct {
  const char *name;
  long long value;
  loc_t loc;
} eofm_const_t;

/* An input or local variable; type indexes m->types, or -1 for a basic type
 * (INTEGER/BOOLEAN; lo..hi is its range, 0..1 for BOOLEAN). */
typedef struct {
  const char *name;
  int type;
  long long lo, hi;
  bool local;
  const char *initial; /* local variables: <initialvalue> text, else NULL */
  loc_t loc;
} eofm_var_t;

typedef struct {
  const char *name;
  const char *behavior; /* "autoreset", "toggle", ... as written */
  loc_t loc;
} eofm_haction_t;

/* A condition as written, checked against the model's names, and its
 * FSP spelling (EOFM's `=` / `/=` / and / or / not written as C). */
typedef struct {
  const char *text;
  const char *fsp;
  loc_t loc;
} eofm_cond_t;

typedef enum { EOFM_ACTIVITY, EOFM_ACTION } eofm_node_kind_t;

/* One node of the activity forest, by id (index in m->nodes). Activity
 * names may repeat (each is its own activity). An activitylink is resolved
 * to the id of the first activity of that name: the same
 * activity may therefore be a child of several nodes (the translation
 * instantiates it once per occurrence, as the reference tool does). */
typedef struct {
  eofm_node_kind_t kind;
  const char *name; /* activity name, or the human action of an action */
  loc_t loc;
  /* activities */
  VEC(eofm_cond_t) pre, completion, repeat;
  eofm_op_t op;
  VEC(int) children; /* node ids in document order */
  /* actions */
  int haction;       /* index in m->hactions, or -1 for a local-variable assignment */
  int local;         /* index in m->vars of the assigned local variable, or -1 */
  const char *value; /* the assigned value's text (local assignments) */
} eofm_node_t;

typedef struct {
  const char *name;
  loc_t loc;
  VEC(int) tops; /* ids of its top-level activities (one per <eofm>) */
} eofm_operator_t;

/* A checked model. Invariants: names of types, constants, type values,
 * variables and human actions are unique; every condition names only
 * variables, constants and type values; every action names a declared
 * human action; every activity has a decomposition with at least one child. */
typedef struct {
  arena_t arena;
  const char *path; /* as registered with the diag list */
  VEC(eofm_type_t) types;
  VEC(eofm_const_t) consts;
  VEC(eofm_var_t) vars;
  VEC(eofm_haction_t) hactions;
  VEC(eofm_operator_t) operators;
  VEC(eofm_node_t) nodes;
  VEC(int) tops; /* every top-level activity, in document order */
} eofm_t;

/* Reads and checks an EOFM file. Malformed XML and every violation of the
 * schema rules (unknown element or operator, missing attribute, undefined
 * name in a condition, action not declared as a human action, duplicate
 * names) are reported located (file:line:col); returns NULL when there was
 * any error. */
eofm_t *eofm_parse_file(const char *path, diag_list_t *diags);
/* The same for text in memory; `name` names it in diagnostics. */
eofm_t *eofm_parse_string(const char *name, const char *text, diag_list_t *diags);
void eofm_free(eofm_t *m);

/* The integer value of a name in the model (type value or constant);
 * false when the name is neither. */
bool eofm_value(const eofm_t *m, const char *name, long long *out);

#endif
