/* The LTS core: labelled transition systems with dense integer states and
 * labels, shared by the robustness, envelope and masking analyses.
 * Labels are interned in an lts_labels_t that every LTS of one analysis
 * shares (label 0 is τ, named "tau"). An LTS is built with an
 * lts_builder_t, then frozen into CSR successor and predecessor arrays;
 * every operation below returns a fresh LTS and never modifies its input.
 * An LTS may have one designated error state (LTSA's ERROR, π in the
 * papers): it has no outgoing transitions and composition propagates it. */
#ifndef VERIFIER_LTS_H
#define VERIFIER_LTS_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/bitset.h"
#include "ism/intern.h"
#include "ism/strbuf.h"

#define LTS_TAU 0 /* the label id of τ in every lts_labels_t */

/* Label names are LTSA action names written the way the robustness tools
 * print them: numeric indices in brackets ("send[0]"), other components
 * after a dot ("trans.lose", "a.x"). */
typedef struct {
  intern_t names; /* names[LTS_TAU] == "tau" */
} lts_labels_t;

void lts_labels_init(lts_labels_t *labels);
void lts_labels_free(lts_labels_t *labels);
int lts_label(lts_labels_t *labels, const char *name);            /* interns */
int lts_label_find(const lts_labels_t *labels, const char *name); /* -1 if unknown */
const char *lts_label_name(const lts_labels_t *labels, int label);
/* True when `name` is `prefix` or starts with it followed by '.' or '['
 * (LTSA's prefix matching for relabelling, hiding and interfaces). */
bool lts_label_has_prefix(const char *name, const char *prefix);

/* A frozen LTS. Invariants: transitions of state s are
 * succ_label/succ_dst[succ_off[s] .. succ_off[s+1]), sorted by (label, dst)
 * without duplicates; pred_* is the same relation indexed by target and
 * sorted by (label, src). alphabet is sorted, without τ, and contains every
 * non-τ label on a transition (it may contain more: `+{...}`). */
typedef struct {
  lts_labels_t *labels; /* borrowed, shared */
  int nstates;
  int init;  /* initial state, 0 after every operation here */
  int error; /* the error state, or -1 */
  int *alphabet;
  int nalphabet;
  int *succ_off, *succ_label, *succ_dst;
  int *pred_off, *pred_label, *pred_src;
  int ntrans;
  bitword_t *end; /* states that are LTSA END states (successful termination), may be NULL */
} lts_t;

typedef struct {
  int src, label, dst;
} lts_trans_t;

/* Collects states, transitions and alphabet; lts_freeze turns it into an
 * lts_t. The labels of its transitions other than τ join the alphabet (at
 * lts_freeze, which sorts in time linear in states, labels, transitions). */
typedef struct {
  lts_labels_t *labels;
  int nstates, init, error;
  lts_trans_t *trans;
  size_t ntrans, cap;
  int *alpha;
  size_t nalpha, alpha_cap;
  int *ends;
  size_t nends, ends_cap;
} lts_builder_t;

void lts_builder_init(lts_builder_t *b, lts_labels_t *labels);
void lts_builder_free(lts_builder_t *b);
int lts_builder_add_state(lts_builder_t *b); /* returns the new state's id */
void lts_builder_add(lts_builder_t *b, int src, int label, int dst);
void lts_builder_alphabet_add(lts_builder_t *b, int label);
void lts_builder_mark_end(lts_builder_t *b, int state);
/* Freezes b (which is left empty and may be reused or freed) into a new
 * LTS. States are kept as numbered (no reachability pruning). */
lts_t *lts_freeze(lts_builder_t *b);

void lts_free(lts_t *lts);
lts_t *lts_copy(const lts_t *lts);
bool lts_has_label(const lts_t *lts, int label); /* in the alphabet */
/* The successor of s by label, for deterministic use; -1 if none. */
int lts_step(const lts_t *lts, int s, int label);
bool lts_is_deterministic(const lts_t *lts); /* no τ, at most one successor per label */

/* Only the states reachable from init, renumbered in BFS order
 * (transitions in (label, dst) order); alphabet kept. */
lts_t *lts_reachable(const lts_t *lts);

/* Reachable-only parallel composition of n LTSs sharing one label table
 * (LTSA semantics): a label in several alphabets moves every LTS that has
 * it together, τ and private labels interleave. A tuple in which some part
 * is in its error state is the composite's single error state. */
lts_t *lts_compose(const lts_t *const *parts, int n);
/* The same, but gives up and returns NULL once the composite has more than
 * max_states states or more than max_trans transitions (<= 0: no limit),
 * and, with a state limit, at a stop request (ism/stop.h). */
lts_t *lts_compose_max(const lts_t *const *parts, int n, long max_states, long max_trans);

/* The same without a transition limit, giving up (NULL) past max_states
 * states (<= 0: no limit) or when stop(arg), polled every 1024 states (may
 * be NULL), returns true: the products an analysis makes of its inputs
 * pass stop_poll (ism/stop.h), so --timeout and signals end them. */
lts_t *lts_compose_bounded(const lts_t *const *parts, int n, long max_states, bool (*stop)(void *), void *arg);
/* lts_compose_bounded(parts, n, 0, stop, arg) of deterministic parts
 * (lts_is_deterministic each): the same LTS, built by one merge of the
 * parts' moves per state. */
lts_t *lts_compose_deterministic(const lts_t *const *parts, int n, bool (*stop)(void *), void *arg);

/* LTSA's action priority, applied in each composite state as it is
 * explored (so it changes what is reachable). With `high` (`<< {...}`)
 * the listed labels are high and every other label, τ included, low;
 * otherwise (`>> {...}`) the listed labels are low and every other label,
 * τ included, high. Where some high label is enabled, the transitions of
 * low labels are removed. `labels` is sorted, without τ. */
typedef struct {
  const int *labels;
  int nlabels;
  bool high;
} lts_priority_t;

/* lts_compose_max under `prio` (NULL: none); also with n == 1. */
lts_t *lts_compose_priority(const lts_t *const *parts, int n, long max_states, long max_trans,
                            const lts_priority_t *prio);

/* lts_determinise(lts_restrict(lts_compose(parts, n), keep, nkeep), true),
 * the same LTS built without the composition: its subsets are sets of
 * composite tuples whose moves are computed from the parts when the
 * subset is expanded, so memory is the parts', the result's and one
 * subset's (pump-5's M ‖ P, 31 M transitions, is never stored). NULL when
 * stop(arg) (polled every 256 subsets; stop may be NULL) returns true. */
lts_t *lts_determinise_composed(const lts_t *const *parts, int n, const int *keep, int nkeep, bool (*stop)(void *),
                                void *arg);

/* Every transition whose label is in `hide` (a sorted label array)
 * becomes τ; those labels leave the alphabet. */
lts_t *lts_hide(const lts_t *lts, const int *hide, int nhide);
/* Hides every label not in `keep` (sorted): LTSA's interface `@`. */
lts_t *lts_restrict(const lts_t *lts, const int *keep, int nkeep);

/* The τ-closure of state s (s included) into `out` (nstates bits, cleared
 * first). */
void lts_tau_closure(const lts_t *lts, int s, bitword_t *out);

/* Subset construction after τ-elimination. When error_absorbing, every
 * subset containing the error state is the (single) error state of the
 * result, which is the backward τ-propagation of the error state the
 * weakest-assumption construction asks for. Result is deterministic. */
lts_t *lts_determinise(const lts_t *lts, bool error_absorbing);
/* The same, but gives up and returns NULL once it has more than max_states
 * subsets (<= 0: no limit) or when stop(arg) (may be NULL) returns true:
 * polled every 256 subsets, and every 2^16 τ-edges while the τ-closures
 * are computed (quadratic in a τ-DAG's size). */
lts_t *lts_determinise_bounded(const lts_t *lts, bool error_absorbing, long max_states, bool (*stop)(void *),
                               void *arg);

/* The coarsest partition of a deterministic automaton's n states (moves
 * lab/dst[off[s] .. off[s+1]), sorted by label, at most one per label)
 * that refines the initial classes in `block` (ints) and in which the
 * states of a block have, for every label, moves into one block or all
 * none: strong bisimulation, i.e. minimisation of a partial DFA with `no
 * move' distinct from a move into a dead state. On return block[s] is s's
 * block, blocks numbered in the order of their least state; returns the
 * number of blocks, or -1 (block unchanged) when stop(arg) (may be NULL;
 * polled once per pass over the moves) asks to stop. */
int lts_dfa_partition(int n, const int *off, const int *lab, const int *dst, int *block, bool (*stop)(void *),
                      void *arg);

/* Minimisation up to observational (weak) equivalence, as LTSA's
 * `minimise`: partition refinement on the τ*-saturated relation, the error
 * state only equivalent to itself, END states only to END states; the
 * quotient keeps the original transitions between blocks minus τ
 * self-loops. On a deterministic LTS this is DFA minimisation. At a stop
 * request (ism/stop.h, polled all along) it returns the reachable part of
 * `lts` unminimised: equivalent, so still correct; the caller polls. */
lts_t *lts_minimise(const lts_t *lts);

/* Without its τ transitions: they are deleted, not closed over (the CAV'23
 * envelope tool's stripTauTransitions). States keep their numbers, so some
 * may become unreachable; alphabet, error and END states are kept. */
lts_t *lts_strip_tau(const lts_t *lts);

/* Without the error state and the transitions into it. */
lts_t *lts_remove_error(const lts_t *lts);

/* The error LTS of a safety property (LTSA `property`): determinised
 * first if needed, then every label of the alphabet not enabled in a state
 * leads to the error state. */
lts_t *lts_property(const lts_t *lts);
/* The same, its determinisation bounded as lts_determinise_bounded's:
 * NULL past max_states subsets (<= 0: no limit) or when stop(arg) returns
 * true (the FSP compiler's `property` processes pass stop_poll). */
lts_t *lts_property_bounded(const lts_t *lts, long max_states, bool (*stop)(void *), void *arg);

/* Breadth-first search from init. Tie-break: states are expanded in
 * queue order and their transitions in (label id, dst) order; the first
 * discovery of a state wins, so the result is deterministic. */
typedef struct {
  int *parent;       /* parent[s]: predecessor on the BFS tree, -1 for init or unreached */
  int *parent_label; /* label of that transition */
  int *depth;        /* -1 when unreachable */
} lts_bfs_t;

void lts_bfs(const lts_t *lts, lts_bfs_t *out);
void lts_bfs_free(lts_bfs_t *bfs);
/* The labels of the shortest path from init to s (τ included) into a fresh
 * array; *len receives its length. Returns NULL with *len = 0 for init,
 * and when s is unreachable sets *len = -1. */
int *lts_bfs_trace(const lts_bfs_t *bfs, const lts_t *lts, int s, int *len);

/* Graphviz text of the LTS (states by number, error state as "π"). */
void lts_to_dot(const lts_t *lts, const char *name, strbuf_t *out);
/* FSP text, one local process per state (NAME, NAME_1, ...), the error
 * state as ERROR, alphabet labels on no transition as `+{...}`: LTSA reads
 * it back as the same LTS when labels are FSP names (no τ). */
void lts_to_fsp(const lts_t *lts, const char *name, strbuf_t *out);

#endif
