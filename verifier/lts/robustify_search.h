/* The search over controllable/observable sets of a robustification
 * (private to verifier/lts/robustify*.c): syntheses with a cache of the
 * sets already tried (and their bad sets, for warm starts), Fortis's
 * removeUnnecessary, minimizePareto and minimizeFast, the brackets of
 * preferred behaviours given up (SolutionIterator), and the solutions. */
#ifndef VERIFIER_ROBUSTIFY_SEARCH_H
#define VERIFIER_ROBUSTIFY_SEARCH_H

#include "verifier/lts/robustify_plant.h"

/* A controllable set C and an observable set O, bitsets over the labels. */
typedef struct {
  bitword_t *c, *o;
} events_t;
typedef VEC(events_t) events_list_t;

/* A set found by the search, with the bracket that found it and the
 * behaviours that bracket asked to keep. */
typedef struct {
  events_t e;
  int iteration;
  uint64_t target;
} candidate_t;

typedef VEC(candidate_t) candidate_list_t;

/* Empty sets, a copy (the caller owns both) and their release. */
events_t robustify_events_new(const search_t *s);
events_t robustify_events_copy(const search_t *s, events_t e);
void robustify_events_free(events_t e);
/* Adds the candidate actions ev[0 .. n) that are in the plant's alphabet. */
void robustify_events_from(search_t *s, const robustify_event_t *ev, int n, bitword_t *into);
/* Whether a supervisor exists for e (*kept: the behaviours its closed loop
 * keeps), from the cache or a synthesis counted in s->nsynth. */
bool robustify_evaluate(search_t *s, events_t e, uint64_t *kept);
/* Drops the cached bad sets, before the plant changes. */
void robustify_cache_drop_bad(search_t *s);
/* e's cost: the weights of its controllable and observable candidates. */
long robustify_cost_of(const search_t *s, events_t e);
/* Fortis's removeUnnecessary on e (evaluated with a supervisor just
 * before): a new set the caller owns. */
events_t robustify_remove_unnecessary(search_t *s, events_t e);
/* Fortis's SolutionIterator from `init` (max_kept: the behaviours the
 * maximal supervisor keeps): appends the candidates to *out, the brackets
 * tried to *iterations. */
void robustify_iterate(search_t *s, events_t init, uint64_t max_kept, candidate_list_t *out, int *iterations);
/* The candidates as out's solutions (at most `max`, of the least cost when
 * fewer than all), each synthesised again on s->g. */
void robustify_collect(search_t *s, const candidate_list_t *cands, int max, robustify_result_t *out);
void robustify_candidates_free(candidate_list_t *l);
/* b's labels sorted by name (the caller owns the array; *n its length). */
int *robustify_labels_of(const search_t *s, const bitword_t *b, int *n);
/* k-subsets of 0..n-1 in lexicographic order (Fortis's combinations): the
 * first, and the next (false after the last). */
void robustify_comb_first(int *a, int k);
bool robustify_comb_next(int *a, int k, int n);

#endif
