/* MaskD's concepts written in YAML: enums, typed globals, process types
 * with parameters and local variables, an `initial` condition, actions
 * (label, guard, assignments, faulty/internal), instances and a run list,
 * with every expression in our expression language (ism/expr.h). Reads
 * into the same maskd_program_t as the MaskD parser, checked by the same
 * code; the YAML tree itself is read by ism/ydoc. */
#ifndef VERIFIER_MASKD_YAML_H
#define VERIFIER_MASKD_YAML_H

#include "ism/diag.h"
#include "ism/ydoc.h"
#include "verifier/masking/maskd.h"

/* Reads the model mapping `model` (keys enums, globals, processes,
 * instances, run; see docs/masking.md). Borrows the tree: the program
 * copies what it keeps. Reports every error found, each at its YAML
 * node (expressions at their position inside the scalar), and returns
 * NULL if there was one; the caller frees the result with maskd_free. */
maskd_program_t *maskd_yaml_read(const ynode_t *model, diag_list_t *diags);

#endif
