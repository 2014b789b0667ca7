/* Unit tests of the stop request (ism/stop.h) in the products the LTS
 * analyses make of their inputs (issue 11): each gives up (NULL, or false)
 * once a stop is requested, before or while it runs, and gives its usual
 * answer when none is. The sizes the unstopped runs must have are products
 * of counters, counted by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"
#include "tests/unit/check.h"
#include "verifier/lts/eofm_explain.h"
#include "verifier/lts/lts.h"
#include "verifier/lts/robustness.h"

/* A counter of n states over PREFIX.tick (i -> i+1 mod n) and
 * PREFIX.reset (i -> 0): deterministic, every state reachable. */
static lts_t *counter(lts_labels_t *L, const char *prefix, int n) {
  char tick[64], reset[64];
  snprintf(tick, sizeof tick, "%s.tick", prefix);
  snprintf(reset, sizeof reset, "%s.reset", prefix);
  int t = lts_label(L, tick), r = lts_label(L, reset);
  lts_builder_t b;
  lts_builder_init(&b, L);
  for (int i = 0; i < n; i++) lts_builder_add_state(&b);
  lts_builder_alphabet_add(&b, t);
  lts_builder_alphabet_add(&b, r);
  for (int i = 0; i < n; i++) {
    lts_builder_add(&b, i, t, (i + 1) % n);
    lts_builder_add(&b, i, r, 0);
  }
  lts_t *l = lts_freeze(&b);
  lts_builder_free(&b);
  return l;
}

/* One state doing PREFIX.reset, with PREFIX.tick in its alphabet (refused). */
static lts_t *reset_only(lts_labels_t *L, const char *prefix) {
  lts_t *c = counter(L, prefix, 1);
  char tick[64];
  snprintf(tick, sizeof tick, "%s.tick", prefix);
  int t = lts_label(L, tick);
  lts_builder_t b;
  lts_builder_init(&b, L);
  lts_builder_add_state(&b);
  for (int i = 0; i < c->nalphabet; i++) lts_builder_alphabet_add(&b, c->alphabet[i]);
  for (int i = c->succ_off[0]; i < c->succ_off[1]; i++)
    if (c->succ_label[i] != t) lts_builder_add(&b, 0, c->succ_label[i], 0);
  lts_t *l = lts_freeze(&b);
  lts_builder_free(&b);
  lts_free(c);
  return l;
}

static void test_compose_bounded(lts_labels_t *L) {
  lts_t *x = counter(L, "a", 7), *y = counter(L, "b", 5);
  const lts_t *parts[2] = {x, y};
  /* no stop: disjoint alphabets interleave, 7 * 5 states */
  lts_t *c = lts_compose_bounded(parts, 2, 0, stop_poll, NULL);
  CHECK(c && c->nstates == 35 && c->ntrans == 35 * 4);
  lts_free(c);
  /* the state limit */
  CHECK(lts_compose_bounded(parts, 2, 20, NULL, NULL) == NULL);
  /* a stop already requested: at once */
  stop_request(STOP_SIGNAL);
  CHECK(lts_compose_bounded(parts, 2, 0, stop_poll, NULL) == NULL);
  /* lts_compose itself never stops (its callers have no NULL to handle) */
  c = lts_compose(parts, 2);
  CHECK(c && c->nstates == 35);
  lts_free(c);
  stop_clear();
  lts_free(x);
  lts_free(y);
}

/* A deadline that passes while the product runs: 20001 * 20001 states
 * (4e8, minutes and gigabytes) unless the deadline stops it. */
static void test_deadline_in_product(lts_labels_t *L) {
  lts_t *x = counter(L, "a", 20001), *y = counter(L, "b", 20001);
  const lts_t *parts[2] = {x, y};
  stop_set_deadline(0.2);
  CHECK(lts_compose_bounded(parts, 2, 0, stop_poll, NULL) == NULL);
  CHECK(stop_reason() == STOP_TIMEOUT);
  stop_set_deadline(0);
  stop_clear();
  lts_free(x);
  lts_free(y);
}

/* Counts its calls; true from call number `at` on (0: never). */
typedef struct {
  int calls, at;
} counting_stop_t;

static bool counting_stop(void *arg) {
  counting_stop_t *c = arg;
  c->calls++;
  return c->at > 0 && c->calls >= c->at;
}

/* The τ-closures before a subset construction: a τ-chain 0 -> 1 -> ... ->
 * n-1 with `x` from n-1 back to 0 has closures of n, n-1, ..., 1 states
 * (2 000 000 in all for n = 2000), so they are polled some 30 times before
 * the subset loop polls once; unstopped, its determinisation is one
 * subset (all states) with an x self-loop, and its property that state
 * plus the error state. */
static void test_closure_stop(lts_labels_t *L) {
  int n = 2000, x = lts_label(L, "x");
  lts_builder_t b;
  lts_builder_init(&b, L);
  for (int i = 0; i < n; i++) lts_builder_add_state(&b);
  for (int i = 0; i + 1 < n; i++) lts_builder_add(&b, i, LTS_TAU, i + 1);
  lts_builder_add(&b, n - 1, x, 0);
  lts_t *chain = lts_freeze(&b);
  lts_builder_free(&b);
  counting_stop_t never = {0, 0};
  lts_t *d = lts_determinise_bounded(chain, false, 0, counting_stop, &never);
  CHECK(d && d->nstates == 1 && d->ntrans == 1 && lts_step(d, 0, x) == 0);
  CHECK(never.calls >= 2 * 1000 * 1000 / 65536); /* the closures polled, then the subsets once */
  lts_free(d);
  counting_stop_t second = {0, 2}; /* the second poll is inside the closures */
  CHECK(lts_determinise_bounded(chain, false, 0, counting_stop, &second) == NULL && second.calls == 2);
  /* lts_property: determinised the same way; a stop gives NULL */
  lts_t *p = lts_property_bounded(chain, 0, NULL, NULL);
  CHECK(p && p->nstates == 2 && p->error == 1 && lts_step(p, 0, x) == 0);
  lts_free(p);
  counting_stop_t first = {0, 1};
  CHECK(lts_property_bounded(chain, 0, counting_stop, &first) == NULL);
  stop_request(STOP_TIMEOUT); /* lts_minimise's closures: its input, unminimised */
  lts_t *m = lts_minimise(chain);
  CHECK(m && m->nstates == n);
  lts_free(m);
  stop_clear();
  m = lts_minimise(chain);
  CHECK(m && m->nstates == 1);
  lts_free(m);
  lts_free(chain);
}

static void test_robustness(lts_labels_t *L) {
  lts_t *m = counter(L, "a", 3), *env = reset_only(L, "a"), *p = counter(L, "a", 1);
  lts_t *perr = lts_property(p);
  int nalpha;
  int *alpha = robust_interface(m, env, &nalpha);
  CHECK(nalpha == 2);
  robust_wa_options_t opt = {.minimise = false};
  bool empty = true;
  lts_t *w = robust_assumption(m, perr, alpha, nalpha, &opt, &empty);
  CHECK(w && !empty && w->nstates == 3); /* P allows everything: W is M's own counter */
  lts_t *view = robust_env_view(env, alpha, nalpha);
  CHECK(view && view->nstates == 1);
  /* W allows a.tick where E refuses it, and E never leaves its one state: Δ
   * is the one class (W's initial state, a.tick) */
  robust_traces_t delta = {0};
  CHECK(robust_delta(w, view, &delta));
  CHECK(delta.ntraces == 1 && delta.traces[0].len == 1 && delta.traces[0].trace[0] == lts_label(L, "a.tick"));
  robust_traces_free(&delta);
  int len = 0;
  int *normal = robust_normal_violation(m, env, perr, &len);
  CHECK(!normal && len == -1);

  stop_request(STOP_TIMEOUT);
  CHECK(robust_assumption(m, perr, alpha, nalpha, &opt, &empty) == NULL);
  CHECK(robust_env_view(env, alpha, nalpha) == NULL);
  robust_traces_t stopped = {0};
  CHECK(!robust_delta(w, view, &stopped) && stopped.ntraces == 0 && stopped.traces == NULL);
  normal = robust_normal_violation(m, env, perr, &len);
  CHECK(!normal && len == -1);
  /* an explanation after the stop: the trace stays unexplained (without
   * the stop, below, the deviation model p, with fault a.reset, explains
   * it by the trace itself: a.tick, no fault) */
  int trace[1] = {lts_label(L, "a.tick")}, fault[1] = {lts_label(L, "a.reset")};
  robust_trace_t rt = {trace, 1, NULL, -1, NULL, 0};
  robust_traces_t one = {&rt, 1};
  robust_explain(m, p, alpha, nalpha, fault, 1, &one);
  CHECK(rt.expl == NULL && rt.expl_len == -1);
  /* EOFM's concise environment */
  CHECK(eofm_concise(m, env, alpha, nalpha) == NULL);
  stop_clear();
  robust_explain(m, p, alpha, nalpha, fault, 1, &one);
  CHECK(rt.expl_len == 1 && rt.expl[0] == trace[0] && rt.nfaults == 0);
  free(rt.expl);
  free(rt.faults);
  lts_t *concise = eofm_concise(m, env, alpha, nalpha);
  CHECK(concise != NULL);
  lts_free(concise);

  lts_free(view);
  lts_free(w);
  free(alpha);
  lts_free(perr);
  lts_free(p);
  lts_free(m);
  lts_free(env);
}

int main(void) {
  lts_labels_t L;
  lts_labels_init(&L);
  test_compose_bounded(&L);
  test_deadline_in_product(&L);
  test_closure_stop(&L);
  test_robustness(&L);
  lts_labels_free(&L);
  return CHECK_RESULT();
}
