/* The FSP front end: LTSA's Finite State Processes language compiled to
 * LTSs of the LTS core. Supported: const, range, set, menu, primitive
 * processes with local (indexed) processes and parameters, when guards,
 * if/then/else, choice, STOP/END/ERROR, sequential composition A;B,
 * action labels with indices, ranges,
 * sets and bindings, +{...}, property, || composition with prefix labels
 * a:P, a[i:R]:P and {a,b}::P, relabelling /{new/old}, priority << >>,
 * hiding \{...} and interfaces @{...}, FLTL fluents and `assert [] φ`
 * safety invariants (compiled to property LTSs), progress properties
 * (checked by verifier/lts/terminal.h). The other LTSA extensions are rejected with
 * a located "not supported" error. See docs/fsp.md. */
#ifndef VERIFIER_FSP_H
#define VERIFIER_FSP_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/diag.h"
#include "verifier/lts/lts.h"

typedef struct fsp_file fsp_file_t; /* a parsed file: declarations, not yet compiled processes */

/* The default of fsp_set_max_states. */
#define FSP_DEFAULT_MAX_STATES 5000000L

/* Reads and parses `path` (registered with diags for caret rendering).
 * Constants, ranges, sets and menus are evaluated; process bodies are
 * syntax-checked. On errors reports every one (file:line:col; parsing
 * resumes after the '.' that ends the definition in error) and returns NULL.
 * `labels` is borrowed and must outlive every LTS compiled from the file. */
fsp_file_t *fsp_parse_file(const char *path, lts_labels_t *labels, diag_list_t *diags);
/* The same for text in memory; `name` names it in diagnostics. */
fsp_file_t *fsp_parse_string(const char *name, const char *text, lts_labels_t *labels, diag_list_t *diags);
void fsp_free(fsp_file_t *file);

/* Limits every LTS that fsp_compile builds (a process, a composition, the
 * labels of one action pattern, a range) to `max` states and transitions
 * (max <= 0: the default). Past it fsp_compile fails with a located error
 * and fsp_limit_reached becomes true. Input nesting (parentheses, aliases,
 * expressions) is bounded too, with a located error. */
void fsp_set_max_states(fsp_file_t *file, long max);
bool fsp_limit_reached(const fsp_file_t *file);

/* Whether a top-level process or composite `name` is defined. */
bool fsp_has_process(const fsp_file_t *file, const char *name);
/* The last top-level process or composite defined in the file (LTSA's
 * DEFAULT target), or NULL when there is none. */
const char *fsp_last_process(const fsp_file_t *file);
/* The top-level processes and composites in definition order. */
size_t fsp_process_count(const fsp_file_t *file);
const char *fsp_process_name(const fsp_file_t *file, size_t i);
/* `preferred` if defined, else the last process (the robustness tools'
 * convention: SYS / ENV / P, otherwise the last definition). */
const char *fsp_pick_process(const fsp_file_t *file, const char *preferred);

/* Compiles top-level process or composite `name` (parameters take their
 * defaults) into a fresh reachable-only LTS the caller frees. Properties
 * come back as their error LTS. On an error reports it and returns NULL. */
lts_t *fsp_compile(fsp_file_t *file, const char *name, diag_list_t *diags);

/* A progress property (LTSA): `progress NAME = {a, b}` holds when some
 * action of `actions` occurs in every terminal set of states of the
 * checked system; `progress NAME = if {c} then {a}` only asks it of the
 * terminal sets in which an action of `cond` occurs. `progress NAME[i:R] =
 * ...` gives one property per value, named NAME[v] (NAME.v for a set).
 * Action names are borrowed from the file. */
typedef struct {
  const char *name;
  loc_t loc;
  const char *const *actions;
  size_t nactions;
  const char *const *cond; /* NULL when unconditional */
  size_t ncond;
} fsp_progress_t;

size_t fsp_progress_count(const fsp_file_t *file);
const fsp_progress_t *fsp_progress_at(const fsp_file_t *file, size_t i);

/* The action names of `menu NAME = {...}` (NULL and *count = 0 if there
 * is no such menu, or file is NULL: a model read from .aut or .fsm). Borrowed from the file. */
const char *const *fsp_menu(const fsp_file_t *file, const char *name, size_t *count);

#endif
