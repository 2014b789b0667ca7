/* Terminal sets of states and LTSA's progress check. A terminal set is a
 * strongly connected set of states that no transition leaves: under LTSA's
 * fair choice every execution ends in one of them and then performs every
 * action inside it infinitely often. A progress property asks that some
 * action of a set occurs in every terminal set (or, conditionally, in those
 * where an action of a second set occurs). */
#ifndef VERIFIER_TERMINAL_H
#define VERIFIER_TERMINAL_H

#include <stdbool.h>

#include "verifier/lts/lts.h"

/* The terminal sets of an LTS, numbered by their smallest state (so a set
 * nearer the initial state of a BFS-numbered LTS comes first). A state
 * without transitions (a deadlock, STOP or END) is a terminal set of its
 * own with no actions, as in LTSA. The error state is none: a set with a
 * transition into it is not terminal (that is a safety violation). */
typedef struct {
  int nsets;
  int *set_of; /* set_of[s]: the terminal set of state s, or -1 */
  int *first;  /* first[k]: the smallest state of set k, increasing in k */
} terminal_sets_t;

/* Computes the terminal sets of the states reachable from l->init
 * (iterative Tarjan: no recursion on the LTS's depth). */
void terminal_sets(const lts_t *l, terminal_sets_t *out);
void terminal_sets_free(terminal_sets_t *t);

/* The labels (τ excluded) of the transitions inside set k, sorted by id,
 * in a fresh array; *n receives their number. */
int *terminal_actions(const lts_t *l, const terminal_sets_t *t, int k, int *n);

/* The first terminal set (lowest number) that violates a progress property
 * with the label sets `actions` and, when `conditional`, `cond` (ids in any
 * order; negative ids, names no LTS uses, never occur): none of `actions`
 * occurs in it (and, when conditional, some of `cond` does). -1 when the
 * property holds. */
int terminal_progress_violation(const lts_t *l, const terminal_sets_t *t, const int *actions, int nactions,
                                const int *cond, int ncond, bool conditional);

#endif
