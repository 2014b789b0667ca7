/* MaskD's program representation, shared by verifier/maskd*.c (private),
 * and the syntax parser that fills it in: the lexer, expressions and the
 * declarations (maskd_yaml.c fills it in from the YAML form). Names are
 * resolved and checked afterwards, in maskd.c; maskd_explore.c enumerates
 * the state space of a checked program. */
#ifndef VERIFIER_MASKD_PARSE_H
#define VERIFIER_MASKD_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/alloc.h"
#include "ism/expr.h"
#include "ism/vec.h"
#include "verifier/masking/maskd.h"

typedef struct {
  const char *name;
  loc_t loc;
  VEC(int) values; /* indices into the merged enum */
} maskd_enum_decl_t;

/* A typed name: a global, a parameter or a local. */
typedef struct {
  const char *name;
  loc_t loc;
  const char *type_name;
  loc_t type_loc;
  type_kind_t kind;  /* TYPE_BOOL, TYPE_INT, TYPE_ENUM; TYPE_NONE if unresolved */
  int enum_decl;     /* TYPE_ENUM: index into enums */
} maskd_decl_t;

typedef struct {
  const char *lhs;
  loc_t loc;
  int sym; /* index into the process's syms */
  expr_t *rhs;
} maskd_assign_t;

typedef struct {
  const char *label;
  loc_t loc;
  bool faulty, internal;
  expr_t *guard;
  VEC(maskd_assign_t) assigns;
} maskd_branch_t;

typedef struct {
  const char *name;
  loc_t loc;
  VEC(maskd_decl_t) params, locals;
  expr_t *initial;
  VEC(maskd_branch_t) branches;
  /* scope: params, locals, then the globals they do not shadow */
  expr_sym_t *syms;
  size_t nsyms;
  int *sym_decl_enum; /* declared enum of each symbol, -1 if none */
  int *sym_global;    /* global index of a global symbol, -1 otherwise */
} maskd_proc_t;

typedef struct {
  const char *name;
  loc_t loc;
  const char *proc_name;
  loc_t proc_loc;
  int proc;
  int run; /* index into runs, -1 if never run */
} maskd_inst_t;

typedef struct {
  const char *inst;
  loc_t loc;
  VEC(const char *) args;
  VEC(loc_t) arg_locs;
  int inst_id;
  int *slot_of_sym; /* per symbol of the instance's process */
  char **labels;    /* "inst.label" per branch */
} maskd_run_t;

typedef struct {
  const char *name; /* display name: global or inst.var */
  type_kind_t kind;
} maskd_slot_t;

struct maskd_program {
  arena_t arena;
  VEC(maskd_enum_decl_t) enums;
  VEC(const char *) values; /* merged enum values; [0] is the empty default */
  expr_enum_t merged;
  VEC(maskd_decl_t) globals;
  VEC(maskd_proc_t) procs;
  VEC(maskd_inst_t) insts;
  VEC(maskd_run_t) runs;
  VEC(maskd_slot_t) slots;
  bool has_internal, has_faulty;
  bool yaml; /* written in the YAML form: messages name its keys and types */
};

/* A fresh, empty program (its `values` hold the empty default); freed
 * with maskd_free. */
maskd_program_t *maskd_new(void);
/* Resolves names and checks the declarations of `prog`, filled in by a
 * reader, unless errors were reported since `errors_before`. Returns prog,
 * or frees it and returns NULL if there was an error. */
maskd_program_t *maskd_finish(maskd_program_t *prog, size_t errors_before, diag_list_t *diags);

/* Parses the syntax of `text` into prog (whose `values` already hold the
 * empty default); see maskd_parse for start and indent. Returns false
 * after reporting a syntax error; semantic checks are the caller's. */
bool maskd_parse_syntax(maskd_program_t *prog, const char *text, loc_t start, int indent, diag_list_t *diags);

#endif
