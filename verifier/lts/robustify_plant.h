/* The plant of a robustification and the state of one run around it
 * (private to verifier/lts/robustify*.c): G = M ‖ E' ‖ P_err ‖ progress
 * monitors built directly from its deterministic parts, G minimised as a
 * DFA for the search, and the limits (--timeout, --max-states, stop
 * requests) every phase polls. */
#ifndef VERIFIER_ROBUSTIFY_PLANT_H
#define VERIFIER_ROBUSTIFY_PLANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ism/bitset.h"
#include "ism/keytab.h"
#include "ism/vec.h"
#include "verifier/lts/robustify.h"

typedef struct observer observer_t;
typedef VEC(int) intvec_t;

/* Observers kept per plant (observer_get). */
#define ROBUSTIFY_OBSERVERS 4

/* Bound on the bad sets kept for warm starts (see evaluate). */
#define ROBUSTIFY_CACHE_BYTES ((size_t)256 << 20)

/* G = M ‖ E' ‖ P_err ‖ progress monitors, deterministic (the search's
 * plant reduced by robustify_plant_hide may have several moves on one
 * label from a state). Invariants: transitions of g are lab/dst[off[g]
 * .. off[g+1]) sorted by label; the error state (P violated) has none;
 * marked = every progress action seen. */
typedef struct {
  int n, error, ntrans, nlabels;
  int *off, *lab, *dst;
  bitword_t *marked;
  bitword_t *alpha; /* labels of M ‖ E' */
  observer_t
      *observer[ROBUSTIFY_OBSERVERS]; /* the observers last used on G, most recent first (a cache), or NULL */
} plant_t;

typedef struct {
  const robustify_problem_t *p;
  plant_t g;
  bool watch_stop; /* a stop request (ism/stop.h) bounds the search */
  bool final;      /* the final phase: a time limit stops it ROBUSTIFY_FINAL_GRACE s after it came */
  bool bounded;
  bool search_done;
  const char *limit; /* the first limit that stopped something, or NULL */
  long long stop_seen_ns;
  keytab_t cache; /* (sorted C, -1, sorted O) -> entry */
  VEC(uint8_t) cache_exists;
  VEC(uint64_t) cache_kept;
  VEC(bitword_t *) cache_bad; /* the bad sets of an entry with a supervisor (its O's observer), or NULL */
  VEC(bitword_t *)
  cache_idle; /* an entry with a supervisor: its stutter and undisabled actions
                 (robustify_synth_idle), one bitset of labels after the other; else NULL.
                 Exact for a synthesis of the entry's own; for one answered by an idle
                 superset (or an image of one) the stutter actions are a subset of the
                 exact ones (robustify_search.c, check_shortcut) */
  size_t bad_bytes;
  int nsynth;
  int *sym, nsym; /* symmetries of g (robustify_symmetry.h): nsym label permutations of g.nlabels ids */
  int nsym_answered; /* syntheses answered by a symmetric image's (a count for the tests) */
  int shortcut_checks, shortcut_mismatches; /* check_shortcuts (robustify.h) */
  long *pref_w, *ctrl_w, *obs_w;
  lts_t *dev_det, *prop; /* E' determinised and P_err, built with the first plant (OASIS builds many) */
  int *step[3];          /* parts 1, 2 (E', P_err): step[i][x * step_nl + a] = x's successor by a or -1 */
  int step_nl;
  int *cnum; /* plant_build's direct table of composite tuples, all -1 between builds */
  size_t cnum_cap;
  size_t plant_hint, trans_hint; /* sizes of the last plant built, to size the next one's arrays */
  size_t pairs_hint, moves_hint, sets_hint, set_moves_hint; /* and of the last observer */
  /* The plant the search ran on when it was G reduced (robustify_plant_hide), kept
   * for the final phase (robustify_synth_final); else NULL */
  plant_t *reduced;
} search_t;

/* Whether the run must stop now (a stop request, or a time limit outside
 * the final phase's grace); records the first limit in s->limit and sets
 * s->bounded, which stays set. */
bool robustify_out_of_time(search_t *s);
/* Whether n states pass --max-states (then s is bounded, as above). */
bool robustify_over_states(search_t *s, size_t n);
/* robustify_out_of_time as the stop callback of lts.c's bounded functions
 * (arg: the search_t). */
bool robustify_stop_search(void *s);
/* Deterministic l's moves as a table t[x * nl + a] (successor or -1),
 * owned by the caller, or NULL when it would pass 2^22 entries. */
int *robustify_step_table(const lts_t *l, int nl);
/* Builds s->g for system `sys` (M, or an OASIS abstraction of M) with
 * s->p's deviation, property and progress actions; s->g must be empty
 * (zeroed or freed). False when a limit stopped it (s->g then holds what
 * was built, to be freed). */
bool robustify_plant_build(search_t *s, const lts_t *sys);
/* Frees g's arrays and its cached observers (g's fields dangle after). */
void robustify_plant_free(plant_t *g);
/* s->g minimised as a DFA into *out (the error state and the marking kept
 * apart; no observers), whose syntheses answer as s->g's. False when a
 * limit stopped it (*out is then untouched). */
bool robustify_plant_minimise(search_t *s, plant_t *out);
/* s->g with the moves on `hidden` labels taken as τ, reduced by branching
 * bisimulation (the error state and the marking kept apart) into *out,
 * for the search when no synthesis of it observes the hidden labels or
 * asks about them (robustify.c, search_hidden): the quotient keeps each
 * class's moves but the hidden ones within it, state 0's class is state
 * 0. pump-3: 139 865 states, 40 133 in the quotient (79 225 minimised as
 * a DFA). False when nothing is hidden, when a cycle of hidden moves
 * joins marked and unmarked states (not reduced), or when a limit stopped
 * it (*out untouched). */
bool robustify_plant_hide(search_t *s, const bitword_t *hidden, plant_t *out);

#endif
