/* Unit tests of the supervisory synthesis behind `ismv robustify` on
 * models small enough to solve by hand (the expected supervisors are
 * worked out in the comments), and of Fortis's weights against the values
 * Fortis's own test (SupervisoryRobustifierTests.testComputeWeights)
 * asserts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/robustify.h"
#include "verifier/lts/robustify_observer.h"

static lts_t *load(lts_labels_t *L, const char *text) {
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f = fsp_parse_string("t.lts", text, L, &d);
  lts_t *l = f ? fsp_compile(f, fsp_last_process(f), &d) : NULL;
  CHECK(l != NULL);
  fsp_free(f);
  diag_free(&d);
  return l;
}

static robustify_event_t ev(lts_labels_t *L, const char *name, int prio) {
  return (robustify_event_t){lts_label(L, name), prio};
}

/* After `a` the machine must do the forbidden, uncontrollable `u`: the
 * only safe supervisor disables `a` (controllable). Pareto: removing `a`
 * from the controllable set loses the supervisor, removing `b` keeps it,
 * so the one least-cost solution is C = {a} (cost 1), and the preferred
 * behaviour "b, v" survives. */
static void test_controllability(void) {
  lts_labels_t L;
  lts_labels_init(&L);
  lts_t *m = load(&L, "M = (a -> P1 | b -> P2), P1 = (u -> M), P2 = (v -> M).");
  lts_t *e = load(&L, "E = (a -> E | b -> E | u -> E | v -> E).");
  lts_t *p = load(&L, "P = (a -> P | b -> P | v -> P) + {u}.");
  int progress[] = {lts_label(&L, "v")};
  int word[] = {lts_label(&L, "b"), lts_label(&L, "v")};
  robustify_pref_t pref = {word, 2, word, 2, 3};
  robustify_event_t ctrl[] = {ev(&L, "a", 1), ev(&L, "b", 1)};
  robustify_event_t obs[] = {ev(&L, "a", 0), ev(&L, "b", 0), ev(&L, "u", 0), ev(&L, "v", 0)};
  robustify_problem_t pb = {.sys = m,
                            .dev = e,
                            .safety = p,
                            .progress = progress,
                            .nprogress = 1,
                            .pref = &pref,
                            .npref = 1,
                            .ctrl = ctrl,
                            .nctrl = 2,
                            .obs = obs,
                            .nobs = 4,
                            .method = ROBUSTIFY_PARETO};
  robustify_result_t r;
  robustify_run(&pb, &r);
  CHECK(!r.no_supervisor && !r.bounded);
  CHECK(r.nsols == 1);
  if (r.nsols == 1) {
    robustify_solution_t *s = &r.sols[0];
    CHECK(s->nctrl == 1 && s->ctrl[0] == lts_label(&L, "a"));
    CHECK(s->nobs == 4);
    CHECK(s->cost == 1);
    CHECK(s->kept == 1);
    CHECK(s->ndisabled == 1 && s->disabled[0] == lts_label(&L, "a"));
    lts_t *design = robustify_design(m, s);
    CHECK(lts_step(design, design->init, lts_label(&L, "a")) < 0);
    int after_b = lts_step(design, design->init, lts_label(&L, "b"));
    CHECK(after_b >= 0 && lts_step(design, after_b, lts_label(&L, "v")) == design->init);
    CHECK(robustify_check(&pb, s, design) == NULL);
    /* the re-check refuses the original (unsafe) and a design that stops after b (v unreachable) */
    const char *why = robustify_check(&pb, s, m);
    CHECK(why && strstr(why, "safety"));
    lts_t *stuck = load(&L, "B = (b -> STOP) + {a, u, v}.");
    why = robustify_check(&pb, s, stuck);
    CHECK(why && strstr(why, "progress"));
    lts_free(stuck);
    /* ... one that refuses the uncontrollable b, one that offers v where M
     * does not (kept behaviours not asked: b, v is not kept by them); an
     * action of P alone (z) is no move of the design */
    robustify_solution_t s0 = *s;
    s0.kept = 0;
    lts_t *no_b = load(&L, "NB = (a -> NB | v -> NB) + {b, u}.");
    why = robustify_check(&pb, &s0, no_b);
    CHECK(why && strstr(why, "blocks"));
    lts_free(no_b);
    lts_t *more = load(&L, "D = (b -> D | v -> D) + {a, u}.");
    why = robustify_check(&pb, &s0, more);
    CHECK(why && strstr(why, "adds"));
    lts_free(more);
    lts_t *pz = load(&L, "PZ = (a -> PZ | b -> PZ | v -> PZ | z -> PZ) + {u}.");
    robustify_problem_t pbz = pb;
    pbz.safety = pz;
    CHECK(robustify_check(&pbz, s, design) == NULL);
    lts_free(pz);
    lts_free(design);
  }
  robustify_result_free(&r);
  lts_free(m);
  lts_free(e);
  lts_free(p);
  lts_labels_free(&L);
}

/* The environment secretly picks h1 (then only d is safe) or h2 (then only
 * c is possible and safe); the machine offers c and d. Observing h1/h2
 * the supervisor disables c after h1 only. Without observing them it must
 * disable c everywhere (normality), which is safe but blocks the h2 branch
 * for good: with progress c no supervisor exists, without progress one
 * does (deadlock is not blocking when nothing is required). */
static robustify_result_t run_hidden(lts_labels_t *L, bool observe_h, bool progress_c) {
  lts_t *m = load(L, "M = (c -> M | d -> M).");
  lts_t *e = load(L, "E = (h1 -> E1 | h2 -> E2), E1 = (c -> E | d -> E), E2 = (c -> E).");
  lts_t *p = load(L, "P = (h1 -> Q1 | h2 -> Q2), Q1 = (d -> P), Q2 = (c -> P).");
  int progress[] = {lts_label(L, "c")};
  int w1[] = {lts_label(L, "h1"), lts_label(L, "d")}, w2[] = {lts_label(L, "h2"), lts_label(L, "c")};
  robustify_pref_t pref[] = {{w1, 2, w1, 2, 3}, {w2, 2, w2, 2, 3}};
  robustify_event_t ctrl[] = {ev(L, "c", 0), ev(L, "d", 0)};
  robustify_event_t obs[] = {ev(L, "c", 0), ev(L, "d", 0), ev(L, "h1", 0), ev(L, "h2", 0)};
  robustify_problem_t pb = {.sys = m,
                            .dev = e,
                            .safety = p,
                            .progress = progress,
                            .nprogress = progress_c ? 1 : 0,
                            .pref = pref,
                            .npref = 2,
                            .ctrl = ctrl,
                            .nctrl = 2,
                            .obs = obs,
                            .nobs = observe_h ? 4 : 2,
                            .method = ROBUSTIFY_SIMPLE};
  robustify_result_t r;
  robustify_run(&pb, &r);
  for (int i = 0; i < r.nsols; i++) {
    lts_t *design = robustify_design(m, &r.sols[i]);
    CHECK(robustify_check(&pb, &r.sols[i], design) == NULL);
    lts_free(design);
  }
  lts_free(m);
  lts_free(e);
  lts_free(p);
  return r;
}

static void test_partial_observation(void) {
  lts_labels_t L;
  lts_labels_init(&L);
  robustify_result_t r = run_hidden(&L, true, true);
  CHECK(r.nsols == 1 && !r.no_supervisor);
  if (r.nsols == 1) CHECK(r.sols[0].kept == 3); /* both h1,d and h2,c */
  robustify_result_free(&r);
  r = run_hidden(&L, false, true);
  CHECK(r.nsols == 0 && r.no_supervisor);
  robustify_result_free(&r);
  r = run_hidden(&L, false, false);
  CHECK(r.nsols == 1);
  if (r.nsols == 1) {
    CHECK(r.sols[0].kept == 1); /* h1,d only: c is disabled everywhere */
    CHECK(r.sols[0].ndisabled == 1 && r.sols[0].disabled[0] == lts_label(&L, "c"));
  }
  robustify_result_free(&r);
  lts_labels_free(&L);
}

/* Fortis's testComputeWeights (voting): P0 weighs 0, the P2 observable
 * actions 1 each, the P3 preferred behaviour 5, the P3 controllable 5. */
static void test_weights(void) {
  robustify_pref_t pref = {NULL, 0, NULL, 0, 3};
  robustify_event_t ctrl[9], obs[9];
  for (int i = 0; i < 9; i++) {
    ctrl[i] = (robustify_event_t){i, i < 5 ? 0 : 3};
    obs[i] = (robustify_event_t){i, i < 5 ? 0 : 2};
  }
  robustify_problem_t pb = {.pref = &pref, .npref = 1, .ctrl = ctrl, .nctrl = 9, .obs = obs, .nobs = 9};
  long pw[1], cw[9], ow[9];
  robustify_weights(&pb, pw, cw, ow);
  for (int i = 0; i < 5; i++) CHECK(cw[i] == 0 && ow[i] == 0);
  for (int i = 5; i < 9; i++) CHECK(ow[i] == 1 && cw[i] == 5);
  CHECK(pw[0] == 5);
}

/* OASIS's abstraction of M = a, b, c, a, b, c, ...: decoupling {b} keeps
 * the order of a and c and lets b happen anywhere: minimised, 2 states
 * (before and after a) with a b self-loop on both, 4 transitions, so
 * "b, a" is now a trace. As in Fortis the two projections are determinised
 * but not minimised: M with a, c hidden has the subsets {s0, s1} and
 * {s0, s1, s2}, so the product has 4 states and 8 transitions. Decoupling
 * nothing gives M back. */
static void test_abstraction(void) {
  lts_labels_t L;
  lts_labels_init(&L);
  lts_t *m = load(&L, "M = (a -> b -> c -> M).");
  int a = lts_label(&L, "a"), b = lts_label(&L, "b"), c = lts_label(&L, "c");
  lts_t *none = robustify_abstraction(m, NULL, 0, 0, NULL, NULL);
  CHECK(none->nstates == 3 && none->ntrans == 3 && none->nalphabet == 3);
  lts_t *dec = robustify_abstraction(m, &b, 1, 0, NULL, NULL);
  CHECK(dec->nstates == 4 && dec->ntrans == 8 && dec->nalphabet == 3);
  lts_t *min = lts_minimise(dec);
  CHECK(min->nstates == 2 && min->ntrans == 4);
  int s0 = min->init, s1 = lts_step(min, s0, a);
  CHECK(lts_step(min, s0, b) == s0 && s1 >= 0 && s1 != s0);
  CHECK(lts_step(min, s1, b) == s1 && lts_step(min, s1, c) == s0 && lts_step(min, s0, c) < 0);
  lts_free(min);
  lts_free(none);
  lts_free(dec);
  lts_free(m);
  lts_labels_free(&L);
}

/* A stop callback that says stop from its `at`-th poll on (0-based). */
typedef struct {
  int polls, at;
} stopper_t;

static bool stop_at(void *arg) {
  stopper_t *t = arg;
  return t->polls++ >= t->at;
}

static bool stop_now(void *arg) {
  (void)arg;
  return true;
}

/* The stop path, at every poll of test_controllability's Pareto search:
 * a stop in the search leaves its best set so far (never nothing once a
 * set was found); a stop after the search, while the solution is
 * synthesised again, leaves the search's solution (C = {a}, cost 1, "b, v"
 * kept) without a supervisor. The designs and re-checks stop too. */
static void test_stop(void) {
  lts_labels_t L;
  lts_labels_init(&L);
  lts_t *m = load(&L, "M = (a -> P1 | b -> P2), P1 = (u -> M), P2 = (v -> M).");
  lts_t *e = load(&L, "E = (a -> E | b -> E | u -> E | v -> E).");
  lts_t *p = load(&L, "P = (a -> P | b -> P | v -> P) + {u}.");
  int progress[] = {lts_label(&L, "v")};
  int word[] = {lts_label(&L, "b"), lts_label(&L, "v")};
  robustify_pref_t pref = {word, 2, word, 2, 3};
  robustify_event_t ctrl[] = {ev(&L, "a", 1), ev(&L, "b", 1)};
  robustify_event_t obs[] = {ev(&L, "a", 0), ev(&L, "b", 0), ev(&L, "u", 0), ev(&L, "v", 0)};
  stopper_t t = {0, 1 << 30};
  robustify_problem_t pb = {.sys = m,
                            .dev = e,
                            .safety = p,
                            .progress = progress,
                            .nprogress = 1,
                            .pref = &pref,
                            .npref = 1,
                            .ctrl = ctrl,
                            .nctrl = 2,
                            .obs = obs,
                            .nobs = 4,
                            .method = ROBUSTIFY_PARETO,
                            .stop = stop_at,
                            .stop_arg = &t};
  robustify_result_t full;
  robustify_run(&pb, &full);
  int npolls = t.polls;
  CHECK(!full.bounded && full.search_done && full.nsols == 1 && full.sols[0].sup != NULL);
  CHECK(npolls > 3);
  int in_final = 0, first_found = -1;
  for (int k = 0; k < npolls; k++) {
    t = (stopper_t){0, k};
    robustify_result_t r;
    robustify_run(&pb, &r);
    CHECK(r.bounded && strcmp(r.limit, "timeout") == 0);
    if (r.nsols > 0 && first_found < 0) first_found = k;
    CHECK(first_found < 0 || r.nsols > 0); /* never nothing once a set was found */
    for (int i = 0; i < r.nsols; i++) CHECK(r.sols[i].cost >= full.sols[0].cost);
    if (r.search_done) {
      in_final++;
      CHECK(r.nsols == 1 && r.nsynth == full.nsynth);
      if (r.nsols == 1) {
        const robustify_solution_t *s = &r.sols[0];
        CHECK(s->sup == NULL && s->ndisabled == 0);
        CHECK(s->nctrl == 1 && s->ctrl[0] == lts_label(&L, "a") && s->nobs == 4);
        CHECK(s->cost == 1 && s->kept == 1 && s->utility == full.sols[0].utility);
      }
    }
    robustify_result_free(&r);
  }
  CHECK(in_final > 0 && first_found >= 0);
  /* the design and the re-check of a solution stop too */
  robustify_solution_t *s = &full.sols[0];
  CHECK(robustify_design_bounded(m, s, stop_now, NULL) == NULL);
  lts_t *design = robustify_design(m, s);
  CHECK(robustify_check_bounded(&pb, s, design, stop_now, NULL) == ROBUSTIFY_CHECK_STOPPED);
  CHECK(robustify_check(&pb, s, design) == NULL);
  lts_free(design);
  robustify_result_free(&full);
  lts_free(m);
  lts_free(e);
  lts_free(p);
  lts_labels_free(&L);
}

static unsigned rnd_next(unsigned *r) {
  *r = *r * 1103515245u + 12345u;
  return (*r >> 16) & 0x7fff;
}

/* An empty plant of n states over nl labels for a random test: every label
 * in its alphabet, the error state n - 1 in two draws of three (none in the
 * third), room for n * nl moves. */
static plant_t random_plant_room(int n, int nl, unsigned *r) {
  plant_t g = {0};
  g.n = n, g.nlabels = nl, g.error = (int)(rnd_next(r) % 3) == 0 ? -1 : n - 1;
  g.off = malloc(((size_t)n + 1) * sizeof *g.off);
  g.lab = malloc(((size_t)n * (size_t)nl + 1) * sizeof *g.lab);
  g.dst = malloc(((size_t)n * (size_t)nl + 1) * sizeof *g.dst);
  g.marked = bitset_new((size_t)n);
  g.alpha = bitset_new((size_t)nl);
  for (int l = 0; l < nl; l++) bitset_set(g.alpha, (size_t)l);
  return g;
}

/* A random deterministic process over labels[0..nlab) with n states, each
 * move present with probability pct %, as FSP text (alphabet completed). */
static void random_process(char *out, size_t cap, const char *name, const char *const *labels, int nlab,
                           int n, int pct, unsigned *r) {
  size_t k = 0;
  for (int x = 0; x < n; x++) {
    k += (size_t)snprintf(out + k, cap - k, "%s%s%d = (", x ? ",\n" : "", name, x);
    int moves = 0;
    for (int a = 0; a < nlab; a++)
      if ((int)(rnd_next(r) % 100) < pct)
        k += (size_t)snprintf(out + k, cap - k, "%s%s -> %s%d", moves++ ? " | " : "", labels[a], name,
                              (int)(rnd_next(r) % (unsigned)n));
    if (!moves) k += (size_t)snprintf(out + k, cap - k, "%s -> %s0", labels[0], name);
    k += (size_t)snprintf(out + k, cap - k, ")");
  }
  k += (size_t)snprintf(out + k, cap - k, "\n+{");
  for (int a = 0; a < nlab; a++) k += (size_t)snprintf(out + k, cap - k, "%s%s", a ? ", " : "", labels[a]);
  snprintf(out + k, cap - k, "}.");
}

/* A random problem of the random tests: M over a-d (2-4 states), E' over
 * a-f (2 to 1 + e_states states), P over a, b, e (1-3 states), loaded in
 * L; the random draws in the order both tests made them. */
static void random_problem(lts_labels_t *L, unsigned *r, int e_states, lts_t **m, lts_t **e, lts_t **p) {
  static const char *const ml[] = {"a", "b", "c", "d"}, *const el[] = {"a", "b", "c", "d", "e", "f"},
                           *const pl[] = {"a", "b", "e"};
  char tm[2048], te[2048], tp[1024];
  random_process(tm, sizeof tm, "M", ml, 4, 2 + (int)(rnd_next(r) % 3), 70, r);
  random_process(te, sizeof te, "E", el, 6, 2 + (int)(rnd_next(r) % (unsigned)e_states), 60, r);
  random_process(tp, sizeof tp, "P", pl, 3, 1 + (int)(rnd_next(r) % 3), 80, r);
  *m = load(L, tm), *e = load(L, te), *p = load(L, tp);
}

/* OASIS decides most abstractions without building their plant when every
 * action of M is observable (product_exists in robustify.c: the observer
 * of mm ‖ E' ‖ P as mm × the observer of U ‖ E' ‖ P). --max-states turns
 * that off, so on random problems (M over a-d, all observable, the first
 * two to four controllable; E' also over e, f, e sometimes observable,
 * never controllable; P over a, b, e; progress c) a run
 * with a state bound no run reaches must give the same result: the same
 * first abstraction with a supervisor (or none), syntheses, kept
 * behaviours and supervisor. Also checks that both answers occur, and
 * supervisors found after several abstractions without one. */
static void test_oasis_product(void) {
  unsigned r = 12345;
  int found = 0, late = 0, none = 0;
  for (int trial = 0; trial < 1000; trial++) {
    lts_labels_t L;
    lts_labels_init(&L);
    lts_t *m, *e, *p;
    random_problem(&L, &r, 3, &m, &e, &p);
    int progress[] = {lts_label(&L, "c")};
    int word[] = {lts_label(&L, "a"), lts_label(&L, "c")};
    robustify_pref_t pref = {word, 2, word, 2, 3};
    robustify_event_t ctrl[] = {ev(&L, "a", 1), ev(&L, "b", 1), ev(&L, "c", 1), ev(&L, "d", 1)};
    robustify_event_t obs[] = {ev(&L, "a", 1), ev(&L, "b", 1), ev(&L, "c", 1), ev(&L, "d", 1),
                               ev(&L, "e", 1)};
    robustify_problem_t pb = {.sys = m,
                              .dev = e,
                              .safety = p,
                              .progress = progress,
                              .nprogress = 1,
                              .pref = &pref,
                              .npref = 1,
                              .ctrl = ctrl,
                              .nctrl = 2 + (int)(rnd_next(&r) % 3),
                              .obs = obs,
                              .nobs = 4 + (int)(rnd_next(&r) % 2),
                              .method = ROBUSTIFY_OASIS};
    robustify_result_t a, b;
    robustify_run(&pb, &a);
    pb.max_states = 1 << 28;
    robustify_run(&pb, &b);
    CHECK(!a.bounded && !b.bounded);
    CHECK(a.no_supervisor == b.no_supervisor && a.nsols == b.nsols && a.nsynth == b.nsynth);
    CHECK(a.plant_states == b.plant_states && a.max_kept == b.max_kept);
    if (a.nsols == 1 && b.nsols == 1) {
      const robustify_solution_t *x = &a.sols[0], *y = &b.sols[0];
      CHECK(x->nhidden == y->nhidden &&
            (x->nhidden == 0 || memcmp(x->hidden, y->hidden, (size_t)x->nhidden * sizeof *x->hidden) == 0));
      CHECK(x->kept == y->kept && x->ndisabled == y->ndisabled);
      CHECK(x->sup && y->sup && x->sup->nstates == y->sup->nstates && x->sup->ntrans == y->sup->ntrans);
      found++;
      late += a.nsynth >= 3;
    } else
      none += a.no_supervisor;
    robustify_result_free(&a);
    robustify_result_free(&b);
    lts_free(m);
    lts_free(e);
    lts_free(p);
    lts_labels_free(&L);
  }
  fprintf(stderr, "oasis product: %d found (%d after 2+ abstractions), %d without supervisor\n", found, late,
          none);
  CHECK(found >= 20 && late >= 10 && none >= 20);
}

/* lts_compose_deterministic (lts.c; the design and the re-check compose
 * through it) against lts_compose_bounded on random deterministic parts
 * (M and E' of random_problem determinised, P_err): the same LTS, array
 * for array (states, initial and error state, alphabet, moves), for two
 * and three parts; and both NULL when a stop request comes at once. */
static bool same_lts(const lts_t *a, const lts_t *b) {
  if (!a || !b || a->nstates != b->nstates || a->init != b->init || a->error != b->error ||
      a->nalphabet != b->nalphabet || a->ntrans != b->ntrans || (a->end == NULL) != (b->end == NULL))
    return false;
  if (memcmp(a->alphabet, b->alphabet, (size_t)a->nalphabet * sizeof *a->alphabet) != 0 ||
      memcmp(a->succ_off, b->succ_off, ((size_t)a->nstates + 1) * sizeof *a->succ_off) != 0 ||
      memcmp(a->succ_label, b->succ_label, (size_t)a->ntrans * sizeof *a->succ_label) != 0 ||
      memcmp(a->succ_dst, b->succ_dst, (size_t)a->ntrans * sizeof *a->succ_dst) != 0)
    return false;
  for (int x = 0; a->end && x < a->nstates; x++)
    if (bitset_get(a->end, (size_t)x) != bitset_get(b->end, (size_t)x)) return false;
  return true;
}

static void test_compose_deterministic(void) {
  unsigned r = 99;
  int compared = 0, with_error = 0, states = 0;
  for (int trial = 0; trial < 500; trial++) {
    lts_labels_t L;
    lts_labels_init(&L);
    lts_t *m, *e, *p;
    random_problem(&L, &r, 4, &m, &e, &p);
    lts_t *dm = lts_determinise(m, true), *de = lts_determinise(e, true), *pe = lts_property(p);
    const lts_t *two[2] = {dm, de}, *three[3] = {dm, de, pe};
    if (lts_is_deterministic(dm) && lts_is_deterministic(de) && lts_is_deterministic(pe)) {
      for (int k = 2; k <= 3; k++) {
        const lts_t *const *parts = k == 2 ? two : three;
        lts_t *a = lts_compose_bounded(parts, k, 0, NULL, NULL), *b = lts_compose_deterministic(parts, k, NULL, NULL);
        CHECK(same_lts(a, b));
        compared++;
        with_error += a && a->error >= 0;
        states += a ? a->nstates : 0;
        lts_free(a);
        lts_free(b);
      }
      CHECK(lts_compose_deterministic(three, 3, stop_now, NULL) == NULL);
    }
    lts_free(dm);
    lts_free(de);
    lts_free(pe);
    lts_free(m);
    lts_free(e);
    lts_free(p);
    lts_labels_free(&L);
  }
  fprintf(stderr, "compose: %d deterministic compositions equal to lts_compose_bounded's (%d with an error state, %d states)\n",
          compared, with_error, states);
  CHECK(compared >= 900 && with_error >= 100);
}

/* The search answers many sets from the syntheses of their supersets
 * (robustify_search.c: none there, none here; only the behaviours they
 * keep; a warm start; and the same closed loop when a superset's
 * supervisor does without the one action more, undisabled or stuttering).
 * On random problems with partial observation (M over a-d; E' also over
 * e, f, observable candidates of class 2 or 3; P over a, b, e; progress c;
 * controllable a-d in classes 1-3), Pareto and Fast with those shortcuts
 * and with every set synthesised on its own (no_shortcuts) must report
 * the same: syntheses, solutions (sets, cost, kept behaviours, supervisor
 * size). Also checks that supervisors and "no supervisor" both occur and
 * that the solutions drop actions. */
/* Runs pb with every shortcut, each shortcut's answer checked against its
 * own synthesis (check_shortcuts; their count added to *checked), and with
 * none (no_shortcuts) into a and b. */
static void run_both(robustify_problem_t *pb, robustify_result_t *a, robustify_result_t *b, int *checked) {
  pb->check_shortcuts = true;
  robustify_run(pb, a);
  CHECK(a->shortcut_mismatches == 0);
  *checked += a->shortcut_checks;
  pb->check_shortcuts = false;
  pb->no_shortcuts = true;
  robustify_run(pb, b);
}

/* a and b report the same: existence, syntheses, kept, and each solution's
 * actions, cost, kept behaviours and supervisor size; the number of
 * solutions that drop a candidate action. */
static int same_results(const robustify_problem_t *pb, const robustify_result_t *a, const robustify_result_t *b) {
  int dropped = 0;
  CHECK(a->no_supervisor == b->no_supervisor && a->nsols == b->nsols && a->nsynth == b->nsynth);
  CHECK(a->max_kept == b->max_kept);
  for (int i = 0; i < a->nsols && i < b->nsols; i++) {
    const robustify_solution_t *x = &a->sols[i], *y = &b->sols[i];
    CHECK(x->nctrl == y->nctrl && x->nobs == y->nobs && x->cost == y->cost && x->kept == y->kept);
    CHECK(x->nctrl == 0 || memcmp(x->ctrl, y->ctrl, (size_t)x->nctrl * sizeof *x->ctrl) == 0);
    CHECK(x->nobs == 0 || memcmp(x->obs, y->obs, (size_t)x->nobs * sizeof *x->obs) == 0);
    CHECK(x->sup && y->sup && x->sup->nstates == y->sup->nstates && x->sup->ntrans == y->sup->ntrans);
    dropped += x->nctrl + x->nobs < pb->nctrl + pb->nobs;
  }
  return dropped;
}

static void test_search_shortcuts(void) {
  unsigned r = 777;
  int solved = 0, none = 0, dropped = 0, checked = 0;
  for (int trial = 0; trial < 600; trial++) {
    lts_labels_t L;
    lts_labels_init(&L);
    lts_t *m, *e, *p;
    random_problem(&L, &r, 4, &m, &e, &p);
    int progress[] = {lts_label(&L, "c")};
    int w1[] = {lts_label(&L, "a"), lts_label(&L, "c")}, w2[] = {lts_label(&L, "b"), lts_label(&L, "d")};
    robustify_pref_t pref[] = {{w1, 2, w1, 2, 3}, {w2, 2, w2, 2, 2}};
    robustify_event_t ctrl[4], obs[6];
    const char *const cn[] = {"a", "b", "c", "d"}, *const on[] = {"e", "f", "a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) ctrl[i] = ev(&L, cn[i], 1 + (int)(rnd_next(&r) % 3));
    for (int i = 0; i < 6; i++)
      obs[i] = ev(&L, on[i], i < 2 ? 2 + (int)(rnd_next(&r) % 2) : (int)(rnd_next(&r) % 3));
    robustify_problem_t pb = {.sys = m,
                              .dev = e,
                              .safety = p,
                              .progress = progress,
                              .nprogress = 1,
                              .pref = pref,
                              .npref = 2,
                              .ctrl = ctrl,
                              .nctrl = 2 + (int)(rnd_next(&r) % 3),
                              .obs = obs,
                              .nobs = 2 + (int)(rnd_next(&r) % 5),
                              .method = trial % 3 ? ROBUSTIFY_PARETO : ROBUSTIFY_FAST};
    robustify_result_t a, b;
    run_both(&pb, &a, &b, &checked);
    CHECK(!a.bounded && !b.bounded);
    dropped += same_results(&pb, &a, &b);
    solved += a.nsols > 0;
    none += a.no_supervisor;
    robustify_result_free(&a);
    robustify_result_free(&b);
    lts_free(m);
    lts_free(e);
    lts_free(p);
    lts_labels_free(&L);
  }
  fprintf(stderr,
          "search shortcuts: %d solved (%d solutions dropping actions), %d without supervisor; %d shortcut "
          "answers agreeing with their own synthesis\n",
          solved, dropped, none, checked);
  CHECK(solved >= 50 && dropped >= 50 && none >= 20 && checked >= 1000);
}

/* Two copies of a random component over labels[0..nlab) (a name ending
 * in '#' is indexed: a# is a[1] in the first copy, a[2] in the second) composed as ||name = (...): the
 * same draws for both copies when `same`, else fresh ones. */
static void random_pair(char *out, size_t cap, const char *name, const char *const *labels, int nlab, int n,
                        int pct, bool same, unsigned *r) {
  char inst[2][8][16], part[2][2048];
  const char *ls[8];
  unsigned start = *r;
  int states = 2 + (int)(rnd_next(r) % (unsigned)n);
  for (int c = 0; c < 2; c++) {
    if (same) *r = start, rnd_next(r);
    for (int a = 0; a < nlab; a++) {
      size_t k = strlen(labels[a]);
      bool indexed = labels[a][k - 1] == '#'; /* "a#": the copy's a[1] or a[2] */
      if (indexed)
        snprintf(inst[c][a], sizeof inst[c][a], "%.*s[%d]", (int)(k - 1), labels[a], c + 1);
      else
        snprintf(inst[c][a], sizeof inst[c][a], "%s", labels[a]);
      ls[a] = inst[c][a];
    }
    char pname[8];
    snprintf(pname, sizeof pname, "%s%c", name, 'A' + c);
    random_process(part[c], sizeof part[c], pname, ls, nlab, states, pct, r);
  }
  snprintf(out, cap, "%s\n%s\n||%s = (%sA0 || %sB0).", part[0], part[1], name, name, name);
}

/* Symmetric plants (robustify_symmetry.c): M = two copies of a random
 * component over a[i], b[i] and the shared c, d; E' two copies over a[i],
 * e[i] and the shared f; P over c, d, f; progress c; behaviours over c, d.
 * Swapping 1 and 2 is then a symmetry, and the search answers a set from
 * a cached synthesis of its image. In a third of the trials the copies of
 * M are drawn apart: the names still suggest the swap, and the check of
 * the plant must turn it down; in a tenth a behaviour is over a[1], c,
 * which the swap maps onto no behaviour: turned down too; in another tenth
 * the behaviours are a[2], c and a[1], c, which it swaps (the kept
 * behaviours of an image are renamed). Pareto and Fast with the shortcuts and
 * without (no_shortcuts, no symmetries) must report the same, as in
 * test_search_shortcuts; every set a shortcut answered must get the same
 * answer from its own synthesis (check_shortcuts: trial 321 is the first
 * whose images keep behaviours that are not β-symmetric, which catches an
 * image's kept behaviours not renamed by β); and images must answer some
 * sets. */
static void test_symmetry(void) {
  unsigned r = 4242;
  int solved = 0, answered = 0, answered_apart = 0, answered_both = 0, bounded = 0, checked = 0;
  for (int trial = 0; trial < 400; trial++) {
    lts_labels_t L;
    lts_labels_init(&L);
    static const char *const ml[] = {"a#", "b#", "c", "d"}, *const el[] = {"a#", "e#", "f"},
                             *const pl[] = {"c", "d", "f"}, *const pp[] = {"a#", "c"};
    char tm[8192], te[8192], tp[1024];
    bool apart = trial % 3 == 2;
    bool one_copy = trial % 10 == 4, both = trial % 10 % 4 == 1; /* behaviours of copy 1 only, or of both */
    random_pair(tm, sizeof tm, "M", ml, 4, 3, 60, !apart, &r);
    random_pair(te, sizeof te, "E", el, 3, 2, 60, true, &r);
    if (both) /* P about each copy's a: copy 1 can lose its behaviour alone */
      random_pair(tp, sizeof tp, "P", pp, 2, 2, 70, true, &r);
    else
      random_process(tp, sizeof tp, "P", pl, 3, 1 + (int)(rnd_next(&r) % 3), 80, &r);
    lts_t *m = load(&L, tm), *e = load(&L, te), *p = load(&L, tp);
    int progress[] = {lts_label(&L, "c")};
    int w1[] = {lts_label(&L, both ? "a[2]" : "d"), lts_label(&L, "c")},
        w2[] = {lts_label(&L, one_copy || both ? "a[1]" : "c"), lts_label(&L, one_copy || both ? "c" : "d")};
    robustify_pref_t pref[] = {{w1, 2, w1, 2, 3}, {w2, 2, w2, 2, 2}};
    const char *const cn[] = {"a[1]", "a[2]", "b[1]", "b[2]", "d"},
                      *const on[] = {"e[1]", "e[2]", "f", "a[1]", "a[2]", "b[1]", "b[2]", "d"};
    robustify_event_t ctrl[5], obs[8];
    int cp[3], op[5]; /* cost classes: one per pair of copies (the copies' actions cost alike) */
    for (int i = 0; i < 3; i++) cp[i] = 1 + (int)(rnd_next(&r) % 3);
    for (int i = 0; i < 5; i++) op[i] = i < 2 ? 2 + (int)(rnd_next(&r) % 2) : (int)(rnd_next(&r) % 3);
    static const int cpair[] = {0, 0, 1, 1, 2}, opair[] = {0, 0, 1, 2, 2, 3, 3, 4};
    for (int i = 0; i < 5; i++) ctrl[i] = ev(&L, cn[i], cp[cpair[i]]);
    for (int i = 0; i < 8; i++) obs[i] = ev(&L, on[i], op[opair[i]]);
    robustify_problem_t pb = {.sys = m,
                              .dev = e,
                              .safety = p,
                              .progress = progress,
                              .nprogress = 1,
                              .pref = pref,
                              .npref = 2,
                              .ctrl = ctrl,
                              .nctrl = 5,
                              .obs = obs,
                              .nobs = 8,
                              .method = trial % 4 ? ROBUSTIFY_PARETO : ROBUSTIFY_FAST,
                              .max_states = 1 << 18};
    robustify_result_t a, b;
    run_both(&pb, &a, &b, &checked);
    if (a.bounded || b.bounded) { /* a few observers blow up when little is observed: not compared */
      bounded++;
      robustify_result_free(&a);
      robustify_result_free(&b);
      lts_free(m);
      lts_free(e);
      lts_free(p);
      lts_labels_free(&L);
      continue;
    }
    CHECK(b.nsym_answered == 0);
    same_results(&pb, &a, &b);
    solved += a.nsols > 0;
    answered += a.nsym_answered;
    if (apart || one_copy) answered_apart += a.nsym_answered;
    if (both) answered_both += a.nsym_answered;
    robustify_result_free(&a);
    robustify_result_free(&b);
    lts_free(m);
    lts_free(e);
    lts_free(p);
    lts_labels_free(&L);
  }
  fprintf(stderr,
          "symmetry: %d solved, %d syntheses answered by an image (%d with the copies drawn apart or a behaviour "
          "of one, %d with behaviours swapped), %d bounded; %d shortcut answers agreeing with their own synthesis\n",
          solved, answered, answered_apart, answered_both, bounded, checked);
  CHECK(solved >= 100 && answered >= 300 && answered_apart == 0 && answered_both >= 10 && bounded <= 10 &&
        checked >= 5000);
}

/* Whether deterministic a, with every label l renamed pi[l], is b up to
 * state numbering (a lockstep search from the initial states). */
static bool iso_under(const lts_t *a, const lts_t *b, const int *pi) {
  int *map = malloc(((size_t)a->nstates + 1) * sizeof *map),
      *stack = malloc(((size_t)a->nstates + 1) * sizeof *stack);
  for (int x = 0; x < a->nstates; x++) map[x] = -1;
  int top = 0;
  bool ok = a->nstates == b->nstates;
  map[a->init] = b->init, stack[top++] = a->init;
  while (ok && top) {
    int x = stack[--top], y = map[x];
    ok = (x == a->error) == (y == b->error) &&
         a->succ_off[x + 1] - a->succ_off[x] == b->succ_off[y + 1] - b->succ_off[y];
    for (int t = a->succ_off[x]; ok && t < a->succ_off[x + 1]; t++) {
      int d = lts_step(b, y, pi[a->succ_label[t]]), c = a->succ_dst[t];
      if (d < 0)
        ok = false;
      else if (map[c] < 0)
        map[c] = d, stack[top++] = c;
      else
        ok = map[c] == d;
    }
  }
  free(map);
  free(stack);
  return ok;
}

/* OASIS skips an abstraction whose image under a symmetry of the
 * environment side (E' ‖ P_err ‖ monitors, with Σ_M, C and O kept) has the
 * language of one already found without a supervisor (robustify_oasis.c,
 * oasis_group_t). On random problems with two copies (M over a[i], b[i]
 * and the shared c, d; E' over a[i], e[i] and the shared f; P over c, d,
 * f; progress c; the observable candidates in pairs of copies, the
 * controllable ones the first 1-5 of a[1], b[1], a[2], b[2], d: C is
 * symmetric for 4 and 5 only), the run with that shortcut and the run without it
 * (no_shortcuts: every new language gets its plant and synthesis) must
 * report the same: syntheses, the first abstraction with a supervisor (or
 * none), its kept behaviours and supervisor; and every abstraction an image
 * answered must have no supervisor of its own (check_shortcuts). In a third of the trials the
 * copies of E' are drawn apart: unless the draws happen to be symmetric
 * all the same (E' determinised and minimised against its swapped copy,
 * iso_under), the swap is no symmetry of the environment and must answer
 * nothing (seed 777: 1500 trials, a few such); in another third M's copies are
 * drawn apart (M need not be symmetric: images are still looked up). */
static void test_oasis_symmetry(void) {
  unsigned r = 777;
  int found = 0, none = 0, answered = 0, answered_apart = 0, bounded = 0;
  for (int trial = 0; trial < 1500; trial++) {
    lts_labels_t L;
    lts_labels_init(&L);
    static const char *const ml[] = {"a#", "b#", "c", "d"}, *const el[] = {"a#", "e#", "f"},
                             *const pl[] = {"c", "d", "f"};
    char tm[8192], te[8192], tp[1024];
    bool e_apart = trial % 3 == 1, m_apart = trial % 3 == 2;
    random_pair(tm, sizeof tm, "M", ml, 4, 3, 60, !m_apart, &r);
    random_pair(te, sizeof te, "E", el, 3, 2, 60, !e_apart, &r);
    random_process(tp, sizeof tp, "P", pl, 3, 1 + (int)(rnd_next(&r) % 3), 80, &r);
    lts_t *m = load(&L, tm), *e = load(&L, te), *p = load(&L, tp);
    int progress[] = {lts_label(&L, "c")};
    int w1[] = {lts_label(&L, "d"), lts_label(&L, "c")};
    robustify_pref_t pref[] = {{w1, 2, w1, 2, 3}};
    const char *const cn[] = {"a[1]", "b[1]", "a[2]", "b[2]", "d"}, *const on[] = {"e[1]", "e[2]", "f",
                                                                                   "a[1]", "a[2]", "b[1]",
                                                                                   "b[2]", "d"};
    robustify_event_t ctrl[5], obs[8];
    for (int i = 0; i < 5; i++) ctrl[i] = ev(&L, cn[i], 1);
    for (int i = 0; i < 8; i++) obs[i] = ev(&L, on[i], 1);
    int nctrl = 1 + (int)(rnd_next(&r) % 5); /* C symmetric for 4 and 5 only */
    robustify_problem_t pb = {.sys = m,
                              .dev = e,
                              .safety = p,
                              .progress = progress,
                              .nprogress = 1,
                              .pref = pref,
                              .npref = 1,
                              .ctrl = ctrl,
                              .nctrl = nctrl,
                              .obs = obs,
                              .nobs = 3 + 2 * (int)(rnd_next(&r) % 3),
                              .method = ROBUSTIFY_OASIS,
                              .max_states = 1 << 18};
    robustify_result_t a, b;
    pb.check_shortcuts = true; /* each abstraction an image answered also gets its own synthesis */
    robustify_run(&pb, &a);
    CHECK(a.shortcut_mismatches == 0 && a.shortcut_checks == a.nsym_answered);
    pb.check_shortcuts = false;
    pb.no_shortcuts = true;
    robustify_run(&pb, &b);
    if (a.bounded || b.bounded) { /* an observer blows up when little is observed: not compared */
      bounded++;
      robustify_result_free(&a);
      robustify_result_free(&b);
      lts_free(m);
      lts_free(e);
      lts_free(p);
      lts_labels_free(&L);
      continue;
    }
    CHECK(b.nsym_answered == 0);
    CHECK(a.no_supervisor == b.no_supervisor && a.nsols == b.nsols && a.nsynth == b.nsynth);
    CHECK(a.plant_states == b.plant_states && a.max_kept == b.max_kept);
    if (a.nsols == 1 && b.nsols == 1) {
      const robustify_solution_t *x = &a.sols[0], *y = &b.sols[0];
      CHECK(x->nhidden == y->nhidden &&
            (x->nhidden == 0 || memcmp(x->hidden, y->hidden, (size_t)x->nhidden * sizeof *x->hidden) == 0));
      CHECK(x->kept == y->kept && x->ndisabled == y->ndisabled);
      CHECK(x->sup && y->sup && x->sup->nstates == y->sup->nstates && x->sup->ntrans == y->sup->ntrans);
      found++;
    } else
      none += a.no_supervisor;
    answered += a.nsym_answered;
    if (e_apart && a.nsym_answered > 0) { /* only when the draws happen to be symmetric anyway */
      int nl = (int)L.names.count, *pi = malloc((size_t)nl * sizeof *pi);
      for (int l = 0; l < nl; l++) pi[l] = l;
      static const char *const sw[][2] = {{"a[1]", "a[2]"}, {"e[1]", "e[2]"}};
      for (int i = 0; i < 2; i++) {
        int x = lts_label_find(&L, sw[i][0]), y = lts_label_find(&L, sw[i][1]);
        if (x >= 0 && y >= 0) pi[x] = y, pi[y] = x;
      }
      lts_t *d = lts_determinise(e, true), *dm = lts_minimise(d);
      if (!iso_under(dm, dm, pi)) answered_apart += a.nsym_answered;
      lts_free(d);
      lts_free(dm);
      free(pi);
    }
    robustify_result_free(&a);
    robustify_result_free(&b);
    lts_free(m);
    lts_free(e);
    lts_free(p);
    lts_labels_free(&L);
  }
  fprintf(stderr,
          "oasis symmetry: %d found, %d without supervisor, %d abstractions answered by an image (%d with E' "
          "apart), %d bounded\n",
          found, none, answered, answered_apart, bounded);
  CHECK(found >= 20 && none >= 20 && answered >= 50 && answered_apart == 0 && bounded <= 40);
}

/* The observer (robustify_observer_build) against a naive subset
 * construction written here, on random deterministic plants (up to 40
 * states, 6 labels, an error state, a few marked) and random observable
 * sets: the naive one closes a set by repeated passes over its members'
 * unobservable moves, keeps sets as sorted arrays found by linear search,
 * and expands them breadth first by label, except those holding the
 * error state. Wanted: the same sets with the same ids (members compared
 * as sets), the same set moves, has_error, and for every pair (x, Y)
 * exactly x's moves not into the error state (none when Y holds it), each
 * to the pair of its target in Y (unobservable) or in Y's successor by its
 * label; the reversed pair moves the transpose of the forward ones. And
 * the fixpoint of bad sets (robustify_synth_run) for random C against a
 * naive one by rounds on the naive observer with every set expanded: the
 * same badness for each set built (so the sets not built, reached only
 * through error sets, change nothing; an over-pruning mutant, sets with an
 * observable move into the error state not expanded, fails it 45 times). */
typedef struct {
  int n, nsets;
  int *mem[512]; /* sorted members of each set, -1 ends */
} naive_t;

static int naive_find(naive_t *nv, const int *set) {
  for (int i = 0; i < nv->nsets; i++) {
    int k = 0;
    while (set[k] >= 0 && nv->mem[i][k] == set[k]) k++;
    if (set[k] < 0 && nv->mem[i][k] < 0) return i;
  }
  return -1;
}

/* The closure of in[] (bools over g's states) under unobservable moves,
 * as a sorted array ending in -1 (malloc'd). */
static int *naive_close(const plant_t *g, const bitword_t *obs, bool *in) {
  for (bool grew = true; grew;) {
    grew = false;
    for (int x = 0; x < g->n; x++)
      for (int t = g->off[x]; in[x] && t < g->off[x + 1]; t++)
        if (!bitset_get(obs, (size_t)g->lab[t]) && !in[g->dst[t]]) in[g->dst[t]] = grew = true;
  }
  int *set = malloc(((size_t)g->n + 1) * sizeof *set), k = 0;
  for (int x = 0; x < g->n; x++)
    if (in[x]) set[k++] = x;
  set[k] = -1;
  return set;
}

/* The naive subset construction of g's observer for obs into nv and tl
 * (set q's move by label l: tl[q * nlabels + l], -1 none), sets holding
 * the error state not expanded when `prune`; true when it passes 512
 * sets. */
static bool naive_build(const plant_t *g, const bitword_t *obs, bool prune, naive_t *nv, int *tl) {
  int n = g->n, nl = g->nlabels;
  bool *in = calloc((size_t)n, sizeof *in), overflow = false;
  in[0] = true;
  nv->mem[nv->nsets++] = naive_close(g, obs, in);
  for (int q = 0; q < nv->nsets && !overflow; q++) {
    bool err = false;
    for (int i = 0; nv->mem[q][i] >= 0; i++) err = err || nv->mem[q][i] == g->error;
    for (int l = 0; l < nl; l++) {
      tl[q * nl + l] = -1;
      if (!bitset_get(obs, (size_t)l) || (prune && err)) continue;
      memset(in, 0, (size_t)n * sizeof *in);
      bool any = false;
      for (int i = 0; nv->mem[q][i] >= 0; i++) {
        int x = nv->mem[q][i];
        for (int t = g->off[x]; t < g->off[x + 1]; t++)
          if (g->lab[t] == l) in[g->dst[t]] = any = true;
      }
      if (!any) continue;
      int *set = naive_close(g, obs, in), id = naive_find(nv, set);
      if (id < 0 && nv->nsets == 512) {
        overflow = true;
        free(set);
        break;
      }
      if (id < 0)
        nv->mem[id = nv->nsets++] = set;
      else
        free(set);
      tl[q * nl + l] = id;
    }
  }
  free(in);
  return overflow;
}

/* The least fixpoint of bad sets on the naive (unpruned) observer for
 * controllable ctrl, by rounds: a set is bad when it holds the error
 * state, when an uncontrollable observable move leads to a bad set, or
 * when a member cannot reach a marked state through good sets (pairs (q,
 * x), co found by passes until nothing changes). */
static void naive_bad(const plant_t *g, const bitword_t *obs, const bitword_t *ctrl, const naive_t *nv,
                      const int *tl, bool *bad) {
  int n = g->n, nl = g->nlabels;
  bool *co = malloc((size_t)nv->nsets * (size_t)n + 1);
  for (int q = 0; q < nv->nsets; q++) {
    bad[q] = false;
    for (int i = 0; nv->mem[q][i] >= 0; i++) bad[q] = bad[q] || nv->mem[q][i] == g->error;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (int q = 0; q < nv->nsets; q++)
      for (int l = 0; l < nl && !bad[q]; l++)
        if (!bitset_get(ctrl, (size_t)l) && tl[q * nl + l] >= 0 && bad[tl[q * nl + l]]) bad[q] = changed = true;
    memset(co, 0, (size_t)nv->nsets * (size_t)n);
    for (int q = 0; q < nv->nsets; q++)
      for (int i = 0; nv->mem[q][i] >= 0; i++)
        co[q * n + nv->mem[q][i]] = !bad[q] && bitset_get(g->marked, (size_t)nv->mem[q][i]);
    for (bool grew = true; grew;) {
      grew = false;
      for (int q = 0; q < nv->nsets; q++)
        for (int i = 0; !bad[q] && nv->mem[q][i] >= 0; i++) {
          int x = nv->mem[q][i];
          for (int t = g->off[x]; !co[q * n + x] && t < g->off[x + 1]; t++) {
            int d = g->dst[t], r = bitset_get(obs, (size_t)g->lab[t]) ? tl[q * nl + g->lab[t]] : q;
            if (d != g->error && r >= 0 && !bad[r] && co[r * n + d]) co[q * n + x] = grew = true;
          }
        }
    }
    for (int q = 0; q < nv->nsets; q++)
      for (int i = 0; !bad[q] && nv->mem[q][i] >= 0; i++)
        if (!co[q * n + nv->mem[q][i]]) bad[q] = changed = true;
  }
  free(co);
}

static void test_observer_oracle(void) {
  unsigned r = 17;
  int compared = 0, sets_seen = 0, full_sets = 0, fixpoints = 0, supervised = 0;
  for (int trial = 0; trial < 300; trial++) {
    int n = 2 + (int)(rnd_next(&r) % 39), nl = 6, deg_pct = 30 + (int)(rnd_next(&r) % 50);
    plant_t g = random_plant_room(n, nl, &r);
    int k = 0;
    for (int x = 0; x < n; x++) {
      g.off[x] = k;
      if (x != g.error && rnd_next(&r) % 4 == 0) bitset_set(g.marked, (size_t)x);
      for (int l = 0; x != g.error && l < nl; l++)
        if ((int)(rnd_next(&r) % 100) < deg_pct) g.lab[k] = l, g.dst[k++] = (int)(rnd_next(&r) % (unsigned)n);
    }
    g.off[n] = k;
    g.ntrans = k;
    bitword_t *obs = bitset_new((size_t)nl);
    for (int l = 0; l < nl; l++)
      if (rnd_next(&r) % 2) bitset_set(obs, (size_t)l);
    robustify_problem_t pb = {0};
    search_t s = {0};
    s.p = &pb;
    s.g = g;
    observer_t *o = robustify_observer_build(&s, obs);
    CHECK(o != NULL);
    if (!o) continue;
    /* the naive construction */
    naive_t nv = {.n = n};
    int *tl = malloc(512 * (size_t)nl * sizeof *tl); /* set move by label, -1 none */
    bool overflow = naive_build(&g, obs, true, &nv, tl);
    if (!overflow) {
      compared++;
      sets_seen += nv.nsets;
      CHECK((int)o->sets.count == nv.nsets);
      for (int q = 0; q < nv.nsets && q < (int)o->sets.count; q++) {
        size_t from = o->sets.off.data[q], to = o->sets.off.data[q + 1];
        int m = 0;
        while (nv.mem[q][m] >= 0) m++;
        CHECK(to - from == (size_t)m);
        bool has_error = false;
        for (size_t p = from; p < to; p++) {
          int x = o->sets.keys.data[p], found = 0;
          for (int i = 0; i < m; i++) found += nv.mem[q][i] == x;
          CHECK(found == 1);
          CHECK(o->pair_set[p] == q);
          has_error = has_error || x == g.error;
          /* x's moves not into the error state, in some order (none in a set holding it) */
          int want = 0;
          for (int t = g.off[x]; t < g.off[x + 1]; t++) want += g.dst[t] != g.error;
          for (int i = 0; i < m; i++)
            if (nv.mem[q][i] == g.error) want = 0;
          CHECK(o->foff[p + 1] - o->foff[p] == want);
          for (int e = o->foff[p]; e < o->foff[p + 1]; e++) {
            int l = o->flab[e], d = o->fdst[e], dset = o->pair_set[d], ok = 0;
            for (int t = g.off[x]; t < g.off[x + 1]; t++)
              ok += g.lab[t] == l && g.dst[t] == o->sets.keys.data[d] && g.dst[t] != g.error;
            CHECK(ok == 1);
            CHECK(dset == (bitset_get(obs, (size_t)l) ? tl[q * nl + l] : q));
            int back = 0; /* e reversed: p among d's sources, as often as p moves to d */
            for (int i = o->roff[d]; i < o->roff[d + 1]; i++) back += o->rsrc[i] == (int)p;
            int fwd = 0;
            for (int e2 = o->foff[p]; e2 < o->foff[p + 1]; e2++) fwd += o->fdst[e2] == d;
            CHECK(back == fwd);
          }
        }
        CHECK(o->has_error[q] == has_error);
        int nmoves = 0;
        for (int l = 0; l < nl; l++) nmoves += tl[q * nl + l] >= 0;
        CHECK(o->toff.data[q + 1] - o->toff.data[q] == nmoves);
        for (int t = o->toff.data[q]; t < o->toff.data[q + 1]; t++) {
          CHECK(t == o->toff.data[q] || o->tlab.data[t - 1] < o->tlab.data[t]);
          CHECK(o->tdst.data[t] == tl[q * nl + o->tlab.data[t]]);
        }
      }
      size_t npairs = o->sets.keys.len;
      CHECK(o->roff[npairs] == o->foff[npairs]);
      /* the fixpoint on o (robustify_synth_run) against the naive one on
       * the observer with every set expanded, for three random C: the same
       * badness for every set of o */
      naive_t full = {.n = n};
      int *ftl = malloc(512 * (size_t)nl * sizeof *ftl);
      bool *nbad = malloc(512 * sizeof *nbad);
      if (!naive_build(&g, obs, false, &full, ftl))
        for (int round = 0; round < 3; round++) {
          bitword_t *ctrl = bitset_new((size_t)nl);
          for (int l = 0; l < nl; l++)
            if (rnd_next(&r) % 2) bitset_set(ctrl, (size_t)l);
          naive_bad(&g, obs, ctrl, &full, ftl, nbad);
          synth_t y;
          robustify_synth_run(&y, &s, ctrl, obs);
          CHECK(y.o != NULL);
          for (int q = 0; y.o && q < (int)y.o->sets.count; q++) {
            size_t from = y.o->sets.off.data[q], to = y.o->sets.off.data[q + 1];
            int *set = malloc((to - from + 1) * sizeof *set), ns = 0;
            for (int x = 0; x < n; x++) /* sorted, as naive_find wants */
              for (size_t p = from; p < to; p++)
                if (y.o->sets.keys.data[p] == x) set[ns++] = x;
            set[ns] = -1;
            int id = naive_find(&full, set);
            /* solve stops at bad[0] (no supervisor): then only that is final */
            CHECK(id >= 0 && (y.bad[q] == nbad[id] || (y.bad[0] && q > 0)));
            fixpoints += id >= 0 && (!y.bad[0] || q == 0);
            free(set);
          }
          supervised += y.o && !y.bad[0];
          robustify_synth_free(&y);
          free(ctrl);
        }
      for (int q = 0; q < full.nsets; q++) free(full.mem[q]);
      full_sets += full.nsets;
      free(ftl);
      free(nbad);
      for (int i = 0; i < ROBUSTIFY_OBSERVERS; i++) robustify_observer_free(s.g.observer[i]);
    }
    for (int q = 0; q < nv.nsets; q++) free(nv.mem[q]);
    free(tl);
    robustify_observer_free(o);
    free(obs);
    free(g.off);
    free(g.lab);
    free(g.dst);
    free(g.marked);
    free(g.alpha);
  }
  fprintf(stderr,
          "observer: %d random observers equal to the naive construction (%d sets; %d with every set expanded); "
          "%d set badnesses equal to the naive fixpoint's (%d syntheses with a supervisor)\n",
          compared, sets_seen, full_sets, fixpoints, supervised);
  CHECK(compared >= 250 && sets_seen >= 3000 && full_sets > sets_seen && fixpoints >= 2000 && supervised >= 100);
}

/* The number of classes of branching bisimilarity on g (hidden labels as
 * τ; the error state, marked and other states told apart), from the
 * definition: the greatest relation R of states of one kind where each
 * move x -a-> x' of x R y is either hidden with x' R y, or matched by
 * y -τ*-> y'' -a-> y' with x R y'' and x' R y' (and the same the other way
 * round); pairs that fail are removed until none does. */
static int naive_branching_classes(const plant_t *g, const bool *hid) {
  int n = g->n;
  bool *R = malloc((size_t)n * (size_t)n), *tau = malloc((size_t)n * (size_t)n);
  for (int x = 0; x < n; x++)
    for (int y = 0; y < n; y++) {
      int kx = x == g->error ? 1 : bitset_get(g->marked, (size_t)x) ? 2 : 0;
      int ky = y == g->error ? 1 : bitset_get(g->marked, (size_t)y) ? 2 : 0;
      R[x * n + y] = kx == ky;
      tau[x * n + y] = x == y;
    }
  for (bool grew = true; grew;) { /* tau: reflexive-transitive closure of the hidden moves */
    grew = false;
    for (int x = 0; x < n; x++)
      for (int y = 0; y < n; y++)
        if (tau[x * n + y])
          for (int t = g->off[y]; t < g->off[y + 1]; t++)
            if (hid[g->lab[t]] && !tau[x * n + g->dst[t]]) tau[x * n + g->dst[t]] = grew = true;
  }
  for (bool shrank = true; shrank;) {
    shrank = false;
    for (int x = 0; x < n; x++)
      for (int y = 0; y < n; y++) {
        if (!R[x * n + y]) continue;
        bool ok = true;
        for (int t = g->off[x]; t < g->off[x + 1] && ok; t++) {
          int a = g->lab[t], x1 = g->dst[t];
          if (hid[a] && R[x1 * n + y]) continue;
          bool found = false;
          for (int y2 = 0; y2 < n && !found; y2++) {
            if (!tau[y * n + y2] || !R[x * n + y2]) continue;
            for (int u = g->off[y2]; u < g->off[y2 + 1] && !found; u++)
              found = g->lab[u] == a && R[x1 * n + g->dst[u]];
          }
          ok = found;
        }
        if (!ok) R[x * n + y] = R[y * n + x] = false, shrank = true;
      }
  }
  int classes = 0;
  for (int x = 0; x < n; x++) {
    int y = 0;
    while (y < x && !R[y * n + x]) y++;
    classes += y == x;
  }
  free(R);
  free(tau);
  return classes;
}

/* The search's plant with the actions no synthesis observes or asks about
 * taken as τ and reduced by branching bisimulation (robustify_plant_hide)
 * answers every synthesis as the plant itself: on random deterministic
 * plants over a-d visible and two hidden labels (half of them a visible
 * part times a hidden part that only the hidden labels move, as pump-3's
 * alarm, with some moves dropped), for random O over the visible labels
 * and C within O, whether a supervisor exists and which of two random
 * preferred behaviours over the visible labels its closed loop keeps must
 * be the same on both (robustify_synth_run on each, the oracle being the
 * plain plant's synthesis). */
static void test_hidden_plant(void) {
  unsigned r = 4242;
  int trials = 0, reduced = 0, compared = 0, exist = 0, kept = 0, skipped = 0, classes_checked = 0;
  const int nl = 6, nvis = 4; /* labels 4 and 5 hidden */
  for (int trial = 0; trial < 400; trial++) {
    int n, nv = 2 + (int)(rnd_next(&r) % 8), na = 2 + (int)(rnd_next(&r) % 3);
    bool product = trial % 2 == 0;
    n = product ? nv * na + 1 : 2 + (int)(rnd_next(&r) % 39);
    plant_t g = random_plant_room(n, nl, &r);
    /* the product's parts: visible moves vt[v][l] (-1 none, -2 the error state), hidden at[a][l] */
    int vt[10][4], at[4][2];
    bool vmark[10];
    for (int v = 0; v < nv; v++) {
      vmark[v] = rnd_next(&r) % 3 == 0;
      for (int l = 0; l < nvis; l++) {
        unsigned u = rnd_next(&r) % 100;
        vt[v][l] = u < 40 ? -1 : u < 45 ? -2 : (int)(rnd_next(&r) % (unsigned)nv);
      }
    }
    for (int a = 0; a < na; a++)
      for (int h = 0; h < 2; h++) at[a][h] = rnd_next(&r) % 2 ? (int)(rnd_next(&r) % (unsigned)na) : -1;
    int k = 0;
    for (int x = 0; x < n; x++) {
      g.off[x] = k;
      if (x == g.error) continue;
      if (product && x < nv * na) {
        int v = x / na, a = x % na;
        if (vmark[v]) bitset_set(g.marked, (size_t)x);
        for (int l = 0; l < nl; l++) {
          int d = l < nvis ? vt[v][l] : at[a][l - nvis];
          if (d == -1 || rnd_next(&r) % 20 == 0) continue; /* some moves dropped */
          g.lab[k] = l;
          g.dst[k++] = d == -2 ? (g.error >= 0 ? g.error : x) : l < nvis ? d * na + a : v * na + d;
        }
      } else {
        if (rnd_next(&r) % 4 == 0) bitset_set(g.marked, (size_t)x);
        for (int l = 0; l < nl; l++)
          if (rnd_next(&r) % 100 < 45) g.lab[k] = l, g.dst[k++] = (int)(rnd_next(&r) % (unsigned)n);
      }
    }
    g.off[n] = k;
    g.ntrans = k;
    int w[2][3], wn[2];
    robustify_pref_t pref[2];
    for (int i = 0; i < 2; i++) {
      wn[i] = 1 + (int)(rnd_next(&r) % 3);
      for (int j = 0; j < wn[i]; j++) w[i][j] = (int)(rnd_next(&r) % (unsigned)nvis);
      pref[i] = (robustify_pref_t){w[i], wn[i], w[i], wn[i], 3};
    }
    robustify_problem_t pb = {.pref = pref, .npref = 2};
    search_t sg = {0}, sq = {0};
    sg.p = sq.p = &pb;
    sg.g = g;
    bitword_t *hidden = bitset_new((size_t)nl);
    bitset_set(hidden, 4);
    bitset_set(hidden, 5);
    trials++;
    if (!robustify_plant_hide(&sg, hidden, &sq.g)) {
      skipped++; /* a cycle of hidden moves through marked and unmarked states */
    } else {
      reduced += sq.g.n < g.n;
      bool hid[6] = {false, false, false, false, true, true};
      CHECK(sq.g.n == naive_branching_classes(&g, hid));
      classes_checked++;
      for (int round = 0; round < 8; round++) {
        bitword_t *obs = bitset_new((size_t)nl), *ctrl = bitset_new((size_t)nl);
        for (int l = 0; l < nvis; l++)
          if (rnd_next(&r) % 3) {
            bitset_set(obs, (size_t)l);
            if (rnd_next(&r) % 2) bitset_set(ctrl, (size_t)l);
          }
        synth_t a, b;
        robustify_synth_run(&a, &sg, ctrl, obs);
        robustify_synth_run(&b, &sq, ctrl, obs);
        CHECK(a.o && b.o && a.exists == b.exists);
        if (a.exists && b.exists) {
          uint64_t ka = robustify_kept_mask(&a, ~(uint64_t)0), kb = robustify_kept_mask(&b, ~(uint64_t)0);
          CHECK(ka == kb);
          kept += ka != 0;
          exist++;
        }
        compared++;
        robustify_synth_free(&a);
        robustify_synth_free(&b);
        free(obs);
        free(ctrl);
      }
      robustify_plant_free(&sq.g);
    }
    for (int i = 0; i < ROBUSTIFY_OBSERVERS; i++) robustify_observer_free(sg.g.observer[i]);
    free(hidden);
    free(g.off);
    free(g.lab);
    free(g.dst);
    free(g.marked);
    free(g.alpha);
  }
  fprintf(
      stderr,
      "hidden plant: %d of %d plants reduced (%d not: hidden cycles through marked and unmarked states), %d "
      "with as many states as the classes of branching bisimilarity; %d syntheses answered alike (%d with a "
      "supervisor, %d keeping a behaviour)\n",
      reduced, trials, skipped, classes_checked, compared, exist, kept);
  CHECK(reduced >= 100 && compared >= 2000 && exist >= 300 && kept >= 200);
}

int main(void) {
  test_abstraction();
  test_controllability();
  test_partial_observation();
  test_weights();
  test_stop();
  test_oasis_product();
  test_compose_deterministic();
  test_search_shortcuts();
  test_symmetry();
  test_oasis_symmetry();
  test_observer_oracle();
  test_hidden_plant();
  return CHECK_RESULT();
}
