/* MaskD's guarded-command language (TACAS'19/'22 dialects): enums, typed
 * globals, processes with parameters, locals, `Initial:` (and the 2019
 * `Normative:`, parsed and ignored), actions `[label] guard -> x = e, ...`
 * marked `faulty`/`internal`, and `Main(){ inst: Proc; run inst(globals); }`.
 * Expressions are our expr_t trees, checked with expr_check; the state
 * space is enumerated explicitly through expr_eval into a masking_lts_t. */
#ifndef VERIFIER_MASKD_H
#define VERIFIER_MASKD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ism/diag.h"
#include "ism/intern.h"
#include "ism/strbuf.h"
#include "verifier/masking/masking.h"

typedef struct maskd_program maskd_program_t;

/* Parses and checks MaskD source `text`. `start` locates text[0] (its file
 * must be registered with diags, or outlive them); every later line starts
 * at column 1 + `indent` (a YAML block scalar strips that much). Reports
 * every semantic error found (a syntax error stops parsing) and returns
 * NULL if there was one. The caller frees the result with maskd_free. */
maskd_program_t *maskd_parse(const char *text, loc_t start, int indent, diag_list_t *diags);
/* Reads `path` and parses it; read errors are reported at `from`. */
maskd_program_t *maskd_load_file(const char *path, loc_t from, diag_list_t *diags);
void maskd_free(maskd_program_t *p);

/* Whether some action of a run instance is `internal` / `faulty`. */
bool maskd_has_internal(const maskd_program_t *p);
bool maskd_has_faulty(const maskd_program_t *p);
/* Number of state slots (globals plus the locals of every instance). */
size_t maskd_nslots(const maskd_program_t *p);

/* Enumerates the valuations reachable from the initial one (interleaving,
 * simultaneous assignment). State 0 is the initial state, states are
 * numbered in breadth-first order, and each state's transitions are
 * sorted by (label, target). Labels are `instance.label`, interned in
 * `labels` (shared between the two models of a game so ids compare).
 * More than `max_states` states (MASKD_TOO_BIG) or an evaluation error
 * (a value outside 32 bits, division by zero: MASKD_EVAL_ERROR) is
 * reported at the file or the action; *out is then empty.
 * On success *out (freed with masking_lts_free) holds the LTS and a copy
 * of every state's valuation, readable with maskd_state_string. A stop
 * request (ism/stop.h) ends it with MASKD_STOPPED, nothing reported and
 * only out->nstates set: the states found so far. */
typedef enum { MASKD_OK, MASKD_EVAL_ERROR, MASKD_TOO_BIG, MASKD_STOPPED } maskd_status_t;
maskd_status_t maskd_explore(const maskd_program_t *p, intern_t *labels, size_t max_states, masking_lts_t *out,
                             diag_list_t *diags);

/* Appends state `s` of an LTS built by maskd_explore from `p` in MaskD's
 * style: `<` the true Boolean variables, then `x=v` for enum and integer
 * variables `>`, each named `instance.var` (globals plain). */
void maskd_state_string(const maskd_program_t *p, const masking_lts_t *lts, size_t s, strbuf_t *out);

#endif
