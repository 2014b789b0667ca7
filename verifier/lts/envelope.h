/* Safe environmental envelopes (transition-based robustness, CAV'23):
 * Δ(E, C, P, P_env) is the set of maximal deviations d ⊆ Q_E × αE × Q_E
 * (sets of environment transitions, E's own ones included) such that
 * E_d ‖ C satisfies the safety property P and E_d satisfies P_env.
 * Three algorithms compute it (see docs/envelope.md): the default one
 * enumerates maximal robust sets with incremental linear-time checks over
 * the meta-system E_full ‖ C ‖ P_err; the paper's Algorithm 1 with its
 * connectivity heuristic and sequential P_env treatment; brute force. */
#ifndef VERIFIER_ENVELOPE_H
#define VERIFIER_ENVELOPE_H

#include <stdbool.h>

#include "ism/bitset.h"
#include "verifier/lts/lts.h"

/* ENVELOPE_CLAUSES is the default of sessions 4-5 (blocking clauses only),
 * kept as a differential oracle for the unit test; the CLI does not offer it. */
typedef enum { ENVELOPE_DEFAULT, ENVELOPE_PAPER, ENVELOPE_BRUTE_FORCE, ENVELOPE_CLAUSES } envelope_algorithm_t;

/* The transitions a deviation is made of. Transition t = (a * nq + i) * nq
 * + j is (states[i], actions[a], states[j]), so ascending ids are the
 * reference tool's print order: by action (display) name, then source, then
 * target. */
typedef struct {
  const lts_labels_t *labels; /* borrowed */
  int nq;                     /* states of E that take part: all but E's error state */
  int *states;                /* states[i]: the E state number of index i, ascending */
  int nactions;
  int *actions;      /* αE (τ excluded), sorted by display name */
  char **names;      /* names[a]: actions[a] as LTSA and the CAV'23 tool print
                        it, indices after dots ("enter.0", not "enter[0]") */
  int ntrans;        /* nactions * nq * nq */
  bitword_t *normal; /* E's own transitions (ntrans bits) */
} envelope_space_t;

/* What the analysis is about. prop and env_prop are error LTSs
 * (lts_property, or FSP processes with ERROR); env_prop may be NULL (no
 * environmental constraint) and is the parallel composition of all of
 * them. All share one label table. */
typedef struct {
  const lts_t *env, *ctrl, *prop, *env_prop;
} envelope_problem_t;

typedef struct envelope envelope_t;

/* Builds the deviation space and the meta-systems F = E_full ‖ C ‖ P_err
 * (and E_full ‖ P_env,err). The problem's LTSs are borrowed only during the
 * call; τ transitions of E and C are deleted (not closed over), as the
 * reference tool does. Returns NULL and a fresh message in *error when the
 * meta-system (or C ‖ P) would exceed `max_states` states, or at a stop
 * request (ism/stop.h) while composing C ‖ P. */
envelope_t *envelope_new(const envelope_problem_t *problem, long max_states, char **error);
void envelope_free(envelope_t *env);
const envelope_space_t *envelope_space(const envelope_t *env);
/* Meta-states of F (index 0) and of the P_env meta-system (index 1; 0 if none). */
int envelope_meta_states(const envelope_t *env, int which);

typedef struct {
  bitword_t **deltas; /* the maximal robust deviations (ntrans bits each, E's own
                         transitions included), sorted: larger first, then by
                         their transition lists */
  int ndeltas;
  bool normal_unsafe; /* E itself violates P or P_env: Δ is empty */
  bool partial;       /* a stop was requested (ism/stop.h: a signal, the time limit)
                         during the default algorithm's search: every d found is
                         maximal and robust, but Δ may have more */
  long checks;        /* robustness checks (default), state sets explored (paper),
                         subsets checked (brute force) */
} envelope_result_t;

/* Computes Δ with the given algorithm. Brute force refuses more than 22
 * deviation candidates and the paper algorithm more than 24 successor
 * states of one state set (it branches over their power set); they then
 * return false with a fresh message in *error. */
bool envelope_compute(envelope_t *env, envelope_algorithm_t algorithm, envelope_result_t *out, char **error);
/* The default algorithm's pair table (which candidate pairs are robust
 * together, a pruning only) is built up to this many pairs (default 2^24);
 * for tests, which run without it too. */
void envelope_set_pair_table_limit(long max_pairs);
void envelope_result_free(envelope_result_t *r);

/* Whether deviation d (ntrans bits; E's own transitions are added) is
 * robust: E_d ‖ C ⊨ P and E_d ⊨ P_env. Linear in the meta-systems. */
bool envelope_robust(const envelope_t *env, const bitword_t *d);

/* The number of transitions in d. */
int envelope_size(const envelope_space_t *space, const bitword_t *d);

/* E_d as an LTS: env's states and initial state, the space's actions as
 * its alphabet, and the transitions whose bits are set in d. */
lts_t *envelope_deviation_lts(const envelope_space_t *space, const lts_t *env, const bitword_t *d);

typedef enum { ENVELOPE_EQUAL, ENVELOPE_MORE, ENVELOPE_LESS, ENVELOPE_INCOMPARABLE } envelope_verdict_t;
const char *envelope_verdict_name(envelope_verdict_t v); /* "equal", "more robust", ... */

/* Compares Δ_a with Δ_b (Def. 6/7: a is at least as robust as b when every
 * d_b is contained in some d_a); a and b must be over the same environment.
 * *a_only (else NULL) receives a witness deviation robust for a and not for
 * b: only deviation transitions (no E transition), minimal (removing any one
 * makes it robust for b); *b_only the reverse. Both are fresh bitsets. */
envelope_verdict_t envelope_compare(const envelope_t *a, const envelope_result_t *ra, const envelope_t *b,
                                    const envelope_result_t *rb, bitword_t **a_only, bitword_t **b_only);

#endif
