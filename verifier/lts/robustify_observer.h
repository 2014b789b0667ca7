/* Observers and syntheses on the plant of a robustification (private to
 * verifier/lts/robustify*.c): the observer of G for an observable set O
 * (its observation sets, their moves, the moves of (state, set) pairs),
 * the maximally permissive controllable, normal, nonblocking supervisor
 * for a controllable set C as a least fixpoint of bad sets, the preferred
 * behaviours its closed loop keeps, and the supervisor as an LTS. */
#ifndef VERIFIER_ROBUSTIFY_OBSERVER_H
#define VERIFIER_ROBUSTIFY_OBSERVER_H

#include "verifier/lts/robustify_plant.h"

/* The observation sets of an observer: set i is the G states
 * keys[off[i] .. off[i+1]) (not sorted; set 0 starts with G's initial
 * state), closed under unobservable moves, distinct; ids in the order the
 * construction finds them (from set 0, each set's successors by label; a
 * set holding the error state is not expanded: it has no moves, and the
 * sets reached only through such sets are not built). */
typedef struct {
  VEC(int) keys;
  VEC(size_t) off;
  size_t count;
} observation_sets_t;

/* The observer of G for the observable set O. A pair (x, Y) with x ∈ Y has
 * id = the position of x in the sets' concatenated keys.
 * It depends on O only, not on C, so the syntheses of one O share it (the
 * searches change C far more often than O: pump-2's Pareto search runs 1061
 * syntheses over 16 observable sets, changing O 35 times). */
struct observer {
  bitword_t *obs; /* the O it is built for */
  observation_sets_t sets;
  VEC(int) toff, tlab, tdst;  /* observable transitions of set i: [toff[i], toff[i+1]), by label */
  int *pair_set;              /* set of each pair */
  bool *has_error;            /* sets holding the error state */
  int *foff, *flab, *fdst;    /* pair moves (none into the error state), CSR by source pair */
  int *roff, *rsrc;           /* the same reversed: source pairs, CSR by target pair */
  int *rtoff, *rtsrc, *rtlab; /* set moves reversed: (source set, label), CSR by target set */
  int *loff, *lsrc, *ldst;    /* set moves by label: (source, target), CSR by label; NULL until a
                                 warm start needs them */
  intvec_t *witness; /* per preferred behaviour: pairs of a closed-loop trace accepting it, or empty */
};

/* One synthesis for controllable set C and observable set O (bitsets over
 * labels) on the observer of O. */
typedef struct {
  search_t *s;
  const bitword_t *ctrl, *obs;
  observer_t *o;
  bool *bad, *reach; /* per set; reach only after synth_reach */
  bool exists;
  bool own_o; /* o is y's own (robustify_synth_final), freed with y */
} synth_t;

/* The observer of O on s->g (O copied), owned by the caller
 * (robustify_observer_free); NULL when a limit stopped it. */
observer_t *robustify_observer_build(search_t *s, const bitword_t *obs);
/* Frees o and everything it owns; NULL is a no-op. */
void robustify_observer_free(observer_t *o);
/* The observer of O on s->g from its cache (the last ROBUSTIFY_OBSERVERS
 * used), else built and cached; owned by s->g. NULL when a limit stopped
 * it. */
observer_t *robustify_observer_get(search_t *s, const bitword_t *obs);
/* The n bools b (each 0 or 1) as bitset w. */
void robustify_bools_to_bits(const bool *b, size_t n, bitword_t *w);
/* One synthesis for C and O (borrowed by y) on the observer of O: y->bad,
 * y->exists. `start` (or NULL) is the fixpoint of the same observer for C
 * ∪ {newly}, a warm start reaching the same fixpoint. y->o is NULL when a
 * limit stopped the observer. Free y with robustify_synth_free. */
void robustify_synth_run_from(synth_t *y, search_t *s, const bitword_t *ctrl, const bitword_t *obs,
                              const bitword_t *start, int newly);
void robustify_synth_run(synth_t *y, search_t *s, const bitword_t *ctrl, const bitword_t *obs);
void robustify_synth_free(synth_t *y);
/* A solution's synthesis for C and O on s->g (G itself), for its
 * supervisor (robustify_supervisor; *kept: the preferred behaviours its
 * closed loop keeps). When the search ran on G reduced (s->reduced), the
 * fixpoint and the kept behaviours are those of the reduced plant's
 * synthesis, and only the observation sets of G the closed loop reaches
 * (and the bad ones it moves to) are built, with their moves but no pair
 * moves: a G set is bad exactly when its image is (robustify.c,
 * search_hidden), and each is met with its image, G's initial set with
 * the reduced plant's, a move on l with the image's move on l. Else as
 * robustify_synth_run. y->o (when not NULL) has no pair moves, so only the
 * supervisor, reach and idle read it. */
void robustify_synth_final(synth_t *y, search_t *s, const bitword_t *ctrl, const bitword_t *obs,
                           uint64_t *kept);
/* The actions y's supervisor (y->exists) does without: into `stutter`
 * the observable ones on which every reachable good set moves to itself
 * or not at all, into `undisabled` the controllable ones on which no
 * reachable good set moves into a bad set (bitsets of labels, overwritten). */
void robustify_synth_idle(synth_t *y, bitword_t *stutter, bitword_t *undisabled);
/* The preferred behaviours among `among` (a mask) the closed loop keeps. */
uint64_t robustify_kept_mask(const synth_t *y, uint64_t among);
/* The supervisor over O as an LTS on `labels` (the caller owns it): the
 * reachable good sets and the observable moves between them. `disabled`
 * (or NULL) gets the actions it disables somewhere. */
lts_t *robustify_supervisor(synth_t *y, lts_labels_t *labels, bitword_t *disabled);

#endif
