/* DESops FSM (.fsm) files, the automaton format Fortis and the CAV'23
 * tool's later examples also read: the number of states, then for each
 * state a line `NAME<TAB>MARKED<TAB>NTRANS` followed by NTRANS lines
 * `EVENT<TAB>TARGET<TAB>c|uc<TAB>o|uo[<TAB>PROB]` (blank lines are
 * skipped). The first state listed is the initial one. Event names are
 * LTSA's (`rld.card.5`) and are read as ismv spells labels (`rld.card[5]`),
 * so they synchronise with the same actions of FSP files. As in Fortis, an
 * unmarked state (MARKED 0) is the LTS's error state; there may be at most
 * one. Controllability and observability are checked for form and
 * otherwise ignored (the configs name them). */
#ifndef VERIFIER_FSM_H
#define VERIFIER_FSM_H

#include <stdbool.h>

#include "ism/diag.h"
#include "verifier/lts/lts.h"

/* Reads the .fsm file at `path` (registered with diags) into a fresh LTS
 * over `labels` (borrowed); states are numbered in the order the file
 * names them, every one kept. Malformed counts, lines or fields, a state
 * defined twice, more than one unmarked state or one with transitions, and
 * a target never defined as a state are located errors (at most 50); more
 * than `max` states or transitions is one too and sets *limit_hit. Returns
 * NULL after reporting. */
lts_t *fsm_read_file(const char *path, lts_labels_t *labels, long max, bool *limit_hit, diag_list_t *diags);
lts_t *fsm_read_string(const char *name, const char *text, lts_labels_t *labels, long max, bool *limit_hit,
                       diag_list_t *diags);

#endif
