/* Masking fault-tolerance distance (Castro, D'Argenio, Demasi, Putruele):
 * the masking game between a nominal LTS and an implementation with fault
 * transitions, its value by a layered backward attractor over fault counts,
 * the distance 1/w and the refuter's winning play. Weak masking is the
 * strong game on τ-saturated LTSs (masking_saturate).
 * Its LTSs are masking_lts_t, not verifier/lts/lts.h's lts_t: every transition
 * here carries a kind (normal, fault, internal) that lts_t has no place for;
 * sharing the type needs a per-transition kind array in lts_t. */
#ifndef VERIFIER_MASKING_H
#define VERIFIER_MASKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ism/diag.h"
#include "ism/strbuf.h"

/* Kinds of transitions: ordinary, fault (∈ F), internal (τ). */
enum { MASKING_NORMAL = 0, MASKING_FAULT = 1, MASKING_TAU = 2 };

/* An explicit LTS. State 0 is initial. The transitions of state s are
 * indices off[s] .. off[s+1]-1 of label/dst/kind, sorted by (label, dst).
 * Labels are ids of an intern table owned by the caller; a τ transition
 * keeps the id of its written label (for display) but matches any τ.
 * `vals` (optional) holds nslots values per state for display. */
typedef struct {
  size_t nstates, nedges;
  size_t *off;
  int *label;
  int *dst;
  uint8_t *kind;
  size_t nslots;
  int32_t *vals;
} masking_lts_t;

void masking_lts_free(masking_lts_t *lts);

/* One transition of an LTS being built, before it is frozen into the arrays. */
typedef struct {
  int label, dst;
  uint8_t kind;
} masking_edge_t;
/* Sorts edges[first..len) by (label, dst, kind) and drops repeats; returns
 * the new length. */
size_t masking_edges_sort_unique(masking_edge_t *edges, size_t first, size_t len);
/* Fills *out (cleared first) with nstates states whose transitions are
 * edges[off[s]..off[s+1]); takes ownership of `off` (nstates + 1 entries),
 * copies the edges. nslots and vals stay empty. */
void masking_lts_from_edges(masking_lts_t *out, size_t nstates, size_t *off, const masking_edge_t *edges,
                            size_t nedges);

/* The weak transition relation with τ self-loops added: p =a⇒ q iff
 * p τ* a τ* q for a non-fault a, p =τ⇒ q iff p τ* q, and fault
 * transitions as they are (not saturated). τ-closures come from the SCC
 * condensation of the τ graph and bitset unions in topological order:
 * O(n·m/64) words, no cubic matrix. `tau_label` is the label id given to
 * saturated τ moves. Fills *out (vals copied). */
void masking_saturate(const masking_lts_t *in, int tau_label, masking_lts_t *out);

typedef struct {
  bool deadlock_error; /* MaskD -l: an implementation deadlock is an error */
  bool nominal_match;  /* false = MaskD -nb: the refuter may not play spec moves */
  size_t max_nodes;    /* give up (inconclusive) beyond this many game nodes */
} masking_options_t;

typedef enum { MASKING_PLAYER_R, MASKING_PLAYER_V, MASKING_PLAYER_ERR } masking_player_t;
/* Who moved into a V node: the implementation, the spec, or nobody
 * (the deadlock node of --deadlock-error). */
typedef enum { MASKING_SIDE_NONE, MASKING_SIDE_IMP, MASKING_SIDE_SPEC, MASKING_SIDE_DEADLOCK } masking_side_t;

/* One position of the game. R nodes carry side NONE and label -1. */
typedef struct {
  int spec, imp;        /* LTS states */
  int label;            /* label of the move that led here (V nodes) */
  uint8_t player;       /* masking_player_t */
  uint8_t side;         /* masking_side_t */
  uint8_t fault;        /* V node reached by an implementation fault */
  uint8_t tau;          /* V node reached by an internal (τ) move */
} masking_node_t;

/* The game graph: node 0 is initial, node `err` (1) is the error sink.
 * succ is CSR (succ_off has nnodes+1 entries). value[n] is the least w
 * such that the refuter forces ERR from n with w-1 faults (ERR: 1), or 0
 * when the verifier wins from n. */
typedef struct {
  size_t nnodes, nedges;
  masking_node_t *nodes;
  size_t *succ_off;
  int *succ;
  int err;
  uint32_t *value;
  uint32_t *order; /* order in which the attractor won a node (trace tie-break) */
} masking_game_t;

typedef enum { MASKING_OK, MASKING_TOO_BIG, MASKING_STOPPED } masking_status_t;

/* Builds the game of nominal `spec` against implementation `imp` (both
 * already saturated for the weak game) and solves it. Labels of both LTSs
 * must come from one intern table. Returns MASKING_TOO_BIG (game freed)
 * past opts->max_nodes, MASKING_STOPPED at a stop request (ism/stop.h;
 * game freed but game->nnodes: the nodes built so far). */
masking_status_t masking_solve(const masking_lts_t *spec, const masking_lts_t *imp, const masking_options_t *opts,
                               masking_game_t *game);
void masking_game_free(masking_game_t *game);

/* w for the initial node (0: every fault is masked) and the distance 1/w. */
uint32_t masking_value(const masking_game_t *game);
double masking_distance(const masking_game_t *game);

/* The refuter's winning play from the initial node to ERR as node ids
 * (refuter: least value, earliest won; verifier: greatest value, latest
 * won). Returns the number of nodes written to a fresh *path (caller
 * frees), 0 when the verifier wins. Each step strictly decreases the
 * attractor order, so the play is finite and ends in ERR. */
size_t masking_trace(const masking_game_t *game, int **path);

/* Re-checks the solved values against the game's equations (R: min, V:
 * max, +1 on fault nodes; unwon nodes have no winning move). Returns false
 * and writes a reason on a failure. */
bool masking_check(const masking_game_t *game, strbuf_t *why);

#endif
