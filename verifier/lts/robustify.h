/* Robustification of an LTS design against a deviated environment
 * (Fortis's supervisory robustification): the maximally permissive
 * controllable, normal, nonblocking supervisor of plant M ‖ E' for a safety
 * language P and progress actions, under partial observation, and the
 * search over controllable/observable action sets with costs that keeps the
 * most valuable preferred behaviours at the least cost. See docs/robustify.md. */
#ifndef VERIFIER_ROBUSTIFY_H
#define VERIFIER_ROBUSTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "verifier/lts/lts.h"

#define ROBUSTIFY_MAX_PROGRESS 16  /* progress actions (a bitmask per plant state) */
#define ROBUSTIFY_MAX_PREFERRED 64 /* preferred behaviours (a 64-bit mask) */

/* A preferred behaviour: the closed loop must have a trace whose projection
 * on `alpha` is `word`. alpha holds word's labels plus any `+{...}` extras. */
typedef struct {
  int *word;
  int len;
  int *alpha;
  int nalpha;
  int priority; /* 0 (free, weight 0) .. 3 */
} robustify_pref_t;

/* An action that may be made controllable or observable, with its cost class. */
typedef struct {
  int label;
  int priority; /* 0 .. 3 */
} robustify_event_t;

/* ROBUSTIFY_OASIS is Fortis's OASIS: for growing subsets A of the
 * candidate actions (in config order, by size), M is abstracted by
 * decoupling A (robustify_abstraction) and one synthesis is run with every
 * candidate controllable/observable; the first subset with a supervisor
 * gives the solution. */
typedef enum { ROBUSTIFY_PARETO, ROBUSTIFY_FAST, ROBUSTIFY_SIMPLE, ROBUSTIFY_OASIS } robustify_method_t;

typedef struct {
  const lts_t *sys;    /* the design M (borrowed) */
  const lts_t *dev;    /* the deviated environment E' (borrowed) */
  const lts_t *safety; /* P: an action of αP that P does not enable is forbidden */
  const int *progress; /* progress labels (at most ROBUSTIFY_MAX_PROGRESS) */
  int nprogress;
  const robustify_pref_t *pref; /* in config order, at most ROBUSTIFY_MAX_PREFERRED */
  int npref;
  /* Candidate controllable/observable actions in config order. For
   * ROBUSTIFY_SIMPLE they are the fixed sets (priorities ignored). */
  const robustify_event_t *ctrl;
  int nctrl;
  const robustify_event_t *obs;
  int nobs;
  robustify_method_t method;
  /* Fortis's maxIter: how many brackets of preferred behaviours to give up
   * the search tries (1: keep every behaviour the maximal supervisor keeps;
   * each later bracket reports its solutions only when strictly cheaper
   * than all before); -1: every bracket; 0 means 1. Ignored by
   * ROBUSTIFY_SIMPLE. */
  int max_iter;
  long max_states; /* bound on plant states and on observation-set members; 0 = none */
  /* Tests: every set the search asks about gets its own cold synthesis,
   * none answered or warm-started from the syntheses of its supersets
   * (the cross-check of those shortcuts; the same results, slower). */
  bool no_shortcuts;
  /* Tests: every set a shortcut answers (an idle superset's or a symmetric
   * image's synthesis) is also synthesised cold, and a different existence,
   * kept mask or idle set is counted in shortcut_mismatches; OASIS: every
   * abstraction a symmetric image answers (no supervisor, also counted in
   * nsym_answered) gets its own plant and synthesis, a supervisor counted
   * as a mismatch. */
  bool check_shortcuts;
  /* Polled instead of ism/stop's request when not NULL (tests, embedding):
   * true stops the search and the final phase at once, with no grace. */
  bool (*stop)(void *arg);
  void *stop_arg;
} robustify_problem_t;

/* Seconds the final phase (each solution synthesised again on the plant,
 * its design and its re-check) may run past a time limit before it gives
 * up on the solutions it has not finished: well inside the 30 s after
 * which --timeout's watchdog ends the process with no report. */
#define ROBUSTIFY_FINAL_GRACE 10.0

typedef struct {
  int *ctrl, nctrl;         /* controllable labels, sorted by name */
  int *obs, nobs;           /* observable labels, sorted by name */
  uint64_t kept;            /* bit i: preferred behaviour i is kept */
  long utility;             /* sum of the kept behaviours' weights */
  long cost;                /* sum of the weights of ctrl and obs (>= 0) */
  lts_t *sup;               /* the supervisor over obs; NULL when a stop came before it was
                             * synthesised again (then disabled is empty, and kept is the search's) */
  int *disabled, ndisabled; /* labels the supervisor disables in some reachable state, sorted by name */
  lts_t *base;              /* OASIS: the abstraction of M the supervisor controls; NULL: M */
  int *hidden, nhidden;     /* OASIS: the actions decoupled in base, sorted by name */
  int iteration;            /* the bracket (1-based) that found it */
  uint64_t target;          /* the behaviours that bracket asked to keep (kept ⊇ target) */
} robustify_solution_t;

typedef struct {
  robustify_solution_t *sols; /* the least-cost solutions of each improving bracket, in search order
                               * (one when bounded in the first bracket) */
  int nsols;
  int nsynth;       /* supervisor syntheses run (cache misses, as Fortis counts) */
  int nsym_answered; /* of those, answered from a symmetric set's (not reported; for the tests) */
  int shortcut_checks, shortcut_mismatches; /* with check_shortcuts: answers re-synthesised, and differing */
  int plant_states; /* of M ‖ E' ‖ P ‖ progress monitors */
  int plant_trans;
  bool no_supervisor; /* none exists even with every candidate action */
  bool bounded;       /* a limit stopped the search or the final phase: sols is the
                         best found so far, some perhaps without a supervisor */
  bool search_done;   /* the search ran to its end (a stop came in the final phase) */
  long long stop_seen_ns; /* when the run first saw a stop request (CLOCK_MONOTONIC), or 0 */
  const char *limit;  /* which limit when bounded: "max-states", or a stop request
                         (ism/stop.h) of "timeout" or "signal" */
  uint64_t max_kept;  /* behaviours the maximal supervisor keeps */
  long *pref_weight;  /* weight of each preferred behaviour (npref entries) */
  int npref;
  int iterations; /* brackets tried */
} robustify_result_t;

/* Runs the search of p.method. Borrows everything in p; fills *out, which
 * the caller releases with robustify_result_free. Never fails except on
 * out-of-memory; a limit sets out->bounded. A stop request ends the search;
 * its best sets are then synthesised again within ROBUSTIFY_FINAL_GRACE
 * (robustify_final_stop), and those it does not reach are reported
 * without a supervisor. */
void robustify_run(const robustify_problem_t *p, robustify_result_t *out);
void robustify_result_free(robustify_result_t *r);

/* The redesigned system: M (determinised; for OASIS the abstraction
 * s->base) ‖ S for solution s, minimised (a fresh deterministic LTS).
 * Outside the contexts E' allows it may refuse actions M offers; under E'
 * it differs from M (the abstraction) only by disabled actions. */
lts_t *robustify_design(const lts_t *sys, const robustify_solution_t *s);
/* The same, NULL when stop(arg) (may be NULL) returns true first. */
lts_t *robustify_design_bounded(const lts_t *sys, const robustify_solution_t *s, bool (*stop)(void *),
                                void *arg);

/* Whether the final phase must stop: p->stop says so, a signal came, or a
 * time limit ran out more than ROBUSTIFY_FINAL_GRACE seconds ago (the first
 * call that sees it starts the clock, in r->stop_seen_ns). Sets r->bounded
 * and r->limit when it answers true. */
bool robustify_final_stop(const robustify_problem_t *p, robustify_result_t *r);

/* Fortis's OASIS abstracter: M with the labels abs[0..nabs) decoupled from
 * the rest, (M with abs hidden) ‖ (M with everything else hidden), each
 * determinised, not minimised (as Fortis): M's orderings among the other
 * actions and among abs are kept, those between the two groups dropped.
 * A fresh LTS over αM, or NULL when a determinisation or the product
 * passes max_states states (<= 0: no limit) or stop(arg) (may be NULL;
 * polled as lts_determinise_bounded and lts_compose_bounded poll it)
 * returns true. */
lts_t *robustify_abstraction(const lts_t *sys, const int *abs, int nabs, long max_states, bool (*stop)(void *),
                             void *arg);

/* Re-checks solution s with its design (robustify_design) on closed loops
 * built by lts_compose, independently of the synthesis state space:
 * design ‖ E' ‖ P_err has no reachable error state, every progress action
 * stays reachable, the kept preferred behaviours are accepted, and beside
 * M ‖ E' (OASIS: s->base ‖ E') the design only blocks controllable
 * observable actions and adds nothing. Returns NULL when all hold, else what failed (static text). */
const char *robustify_check(const robustify_problem_t *p, const robustify_solution_t *s, const lts_t *design);
/* The same, returning ROBUSTIFY_CHECK_STOPPED (nothing was decided) when
 * stop(arg) (may be NULL) returns true first. */
extern const char ROBUSTIFY_CHECK_STOPPED[];
const char *robustify_check_bounded(const robustify_problem_t *p, const robustify_solution_t *s,
                                    const lts_t *design, bool (*stop)(void *), void *arg);

/* Fortis's weights (computeWeights): classes 0..3 in order; inside a class
 * preferred behaviours, then controllable, then observable actions, each
 * weighing (sum of the weights given so far) + 1; class 0 weighs 0. Fills
 * pref_w[npref], ctrl_w[nctrl], obs_w[nobs] (positive numbers). */
void robustify_weights(const robustify_problem_t *p, long *pref_w, long *ctrl_w, long *obs_w);

#endif
