/* Aldebaran (.aut) files, the plain LTS format of CADP and mCRL2: a header
 * `des (initial, ntransitions, nstates)`, then one transition per line,
 * `(from, "label", to)` (the label may also be written without quotes);
 * states are 0 .. nstates-1, `tau` and `i` are the internal action τ. The
 * format has no error state and no END states. */
#ifndef VERIFIER_AUT_H
#define VERIFIER_AUT_H

#include <stdbool.h>

#include "ism/diag.h"
#include "ism/strbuf.h"
#include "verifier/lts/lts.h"

/* Reads the .aut file at `path` (registered with diags for caret rendering)
 * into a fresh LTS over `labels` (borrowed), its states numbered as in the
 * file, the initial state the header's (every state is kept, reachable or
 * not). A malformed header or line, a state out of range, or a transition
 * count that differs from the header's is a located error (every bad line
 * is reported, at most 50); so is a header with more than `max` states or
 * transitions (*limit_hit is then set). Returns NULL after reporting. */
lts_t *aut_read_file(const char *path, lts_labels_t *labels, long max, bool *limit_hit, diag_list_t *diags);
/* The same for text in memory; `name` names it in diagnostics. */
lts_t *aut_read_string(const char *name, const char *text, lts_labels_t *labels, long max, bool *limit_hit,
                       diag_list_t *diags);

/* Appends `lts` in .aut: states as numbered, τ as "tau", every label
 * quoted (a '"' in a label is not representable and is written as '\''). The
 * error state is written as a state without transitions and END marks are
 * dropped: the format has neither. */
void aut_write(const lts_t *lts, strbuf_t *out);

#endif
