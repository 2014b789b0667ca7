/* Unit tests of the LTS core: composition, hiding, determinisation,
 * minimisation, property error LTS and BFS on small hand-built LTSs. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/lts/lts.h"
#include "tests/unit/check.h"


/* A cycle of n states with the given labels: i -labels[i]-> i+1 mod n. */
static lts_t *cycle(lts_labels_t *L, const char *const *labels, int n) {
  lts_builder_t b;
  lts_builder_init(&b, L);
  for (int i = 0; i < n; i++) lts_builder_add_state(&b);
  for (int i = 0; i < n; i++) lts_builder_add(&b, i, lts_label(L, labels[i]), (i + 1) % n);
  return lts_freeze(&b);
}

static void test_compose(lts_labels_t *L) {
  const char *ab[] = {"a", "b"}, *bc[] = {"b", "c"};
  lts_t *x = cycle(L, ab, 2), *y = cycle(L, bc, 2);
  const lts_t *parts[] = {x, y};
  lts_t *p = lts_compose(parts, 2);
  /* b synchronises, a and c interleave: all 4 pairs, 5 transitions */
  CHECK(p->nstates == 4);
  CHECK(p->ntrans == 5);
  CHECK(p->nalphabet == 3);
  CHECK(p->error == -1);
  lts_free(p);
  lts_free(x);
  lts_free(y);
}

static void test_hide_determinise_minimise(lts_labels_t *L) {
  /* 0 -a-> 1 -tau-> 2 -b-> 0 and 0 -a-> 3 -b-> 0 */
  lts_builder_t b;
  lts_builder_init(&b, L);
  for (int i = 0; i < 4; i++) lts_builder_add_state(&b);
  int a = lts_label(L, "a"), bb = lts_label(L, "b");
  lts_builder_add(&b, 0, a, 1);
  lts_builder_add(&b, 1, LTS_TAU, 2);
  lts_builder_add(&b, 2, bb, 0);
  lts_builder_add(&b, 0, a, 3);
  lts_builder_add(&b, 3, bb, 0);
  lts_t *l = lts_freeze(&b);
  CHECK(!lts_is_deterministic(l));
  lts_t *d = lts_determinise(l, false);
  CHECK(lts_is_deterministic(d));
  CHECK(d->nstates == 2);
  lts_t *m = lts_minimise(l);
  /* 1, 2 and 3 are weakly equivalent */
  CHECK(m->nstates == 2);
  int hide[] = {a};
  lts_t *h = lts_hide(l, hide, 1);
  CHECK(h->nalphabet == 1);
  lts_t *hm = lts_minimise(h);
  CHECK(hm->nstates == 1);
  lts_free(hm);
  lts_free(h);
  lts_free(m);
  lts_free(d);
  lts_free(l);
}

static void test_property_and_bfs(lts_labels_t *L) {
  const char *io[] = {"input", "output"};
  lts_t *p = cycle(L, io, 2);
  lts_t *perr = lts_property(p);
  CHECK(perr->nstates == 3);
  CHECK(perr->error == 2);
  CHECK(perr->ntrans == 4);
  lts_bfs_t bfs;
  lts_bfs(perr, &bfs);
  int len;
  int *t = lts_bfs_trace(&bfs, perr, perr->error, &len);
  /* shortest violation: output first */
  CHECK(len == 1 && t && strcmp(lts_label_name(L, t[0]), "output") == 0);
  free(t);
  lts_bfs_free(&bfs);
  /* composing with the property propagates the error state */
  const char *oi[] = {"output", "input"};
  lts_t *bad = cycle(L, oi, 2);
  const lts_t *parts[] = {bad, perr};
  lts_t *c = lts_compose(parts, 2);
  CHECK(c->error >= 0);
  lts_t *d = lts_determinise(c, true);
  CHECK(d->error >= 0 && d->error != d->init);
  CHECK(lts_step(d, d->init, lts_label(L, "output")) == d->error);
  /* with output hidden, the error is one τ away: the initial subset is the error state */
  int out_label[] = {lts_label(L, "output")};
  lts_t *h = lts_hide(c, out_label, 1);
  lts_t *dh = lts_determinise(h, true);
  CHECK(dh->error == dh->init);
  lts_free(dh);
  lts_free(h);
  lts_free(d);
  lts_free(c);
  lts_free(bad);
  lts_free(perr);
  lts_free(p);
}

/* τ transitions are deleted, not closed over; states keep their numbers. */
static void test_strip_tau(lts_labels_t *L) {
  lts_builder_t b;
  lts_builder_init(&b, L);
  for (int i = 0; i < 3; i++) lts_builder_add_state(&b);
  int a = lts_label(L, "a");
  lts_builder_add(&b, 0, LTS_TAU, 1);
  lts_builder_add(&b, 1, a, 2);
  lts_builder_add(&b, 0, a, 0);
  lts_t *l = lts_freeze(&b);
  lts_t *s = lts_strip_tau(l);
  CHECK(s->nstates == 3 && s->ntrans == 2);
  CHECK(lts_step(s, 0, a) == 0 && lts_step(s, 1, a) == 2);
  CHECK(s->succ_off[1] - s->succ_off[0] == 1); /* 0 -tau-> 1 is gone, 1 not merged into 0 */
  CHECK(lts_has_label(s, a) && !lts_has_label(s, LTS_TAU));
  lts_free(s);
  lts_free(l);
}

static void test_labels(void) {
  CHECK(lts_label_has_prefix("trans.in[0]", "trans.in"));
  CHECK(lts_label_has_prefix("trans.in", "trans.in"));
  CHECK(!lts_label_has_prefix("trans.inx", "trans.in"));
  CHECK(lts_label_has_prefix("send[1].x", "send[1]"));
}


/* A random LTS over labels l0..l(nl-1) (and τ), with an error state and
 * END states when asked; a fixed LCG so the test is reproducible. */
static unsigned rnd_state = 12345;
static int rnd(int n) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (int)((rnd_state >> 8) % (unsigned)n);
}

static lts_t *random_lts(lts_labels_t *L, int nstates, int ntrans, int nl, int first_label, bool with_error,
                         bool with_end) {
  lts_builder_t b;
  lts_builder_init(&b, L);
  for (int i = 0; i < nstates; i++) lts_builder_add_state(&b);
  if (with_error) b.error = nstates - 1;
  char name[32];
  for (int k = 0; k < ntrans; k++) {
    int src = rnd(with_error ? nstates - 1 : nstates), dst = rnd(nstates);
    int which = rnd(nl + 1);
    int label = LTS_TAU;
    if (which < nl) {
      snprintf(name, sizeof name, "l%d", first_label + which);
      label = lts_label(L, name);
    }
    lts_builder_add(&b, src, label, dst);
  }
  for (int k = 0; k < nl; k++) { /* the whole label range is the alphabet */
    snprintf(name, sizeof name, "l%d", first_label + k);
    lts_builder_alphabet_add(&b, lts_label(L, name));
  }
  if (with_end)
    for (int i = 0; i < nstates; i += 3) lts_builder_mark_end(&b, i);
  return lts_freeze(&b);
}

static bool same_lts(const lts_t *x, const lts_t *y) {
  if (x->nstates != y->nstates || x->ntrans != y->ntrans || x->init != y->init || x->error != y->error ||
      x->nalphabet != y->nalphabet)
    return false;
  size_t nt = (size_t)x->ntrans, ns = (size_t)x->nstates + 1;
  if (memcmp(x->alphabet, y->alphabet, (size_t)x->nalphabet * sizeof(int)) != 0 ||
      memcmp(x->succ_off, y->succ_off, ns * sizeof(int)) != 0 ||
      memcmp(x->succ_label, y->succ_label, nt * sizeof(int)) != 0 ||
      memcmp(x->succ_dst, y->succ_dst, nt * sizeof(int)) != 0 ||
      memcmp(x->pred_off, y->pred_off, ns * sizeof(int)) != 0 ||
      memcmp(x->pred_label, y->pred_label, nt * sizeof(int)) != 0 ||
      memcmp(x->pred_src, y->pred_src, nt * sizeof(int)) != 0)
    return false;
  for (int s = 0; s < x->nstates; s++) {
    bool ex = x->end && bitset_get(x->end, (size_t)s), ey = y->end && bitset_get(y->end, (size_t)s);
    if (ex != ey) return false;
  }
  return true;
}

/* Differential: lts_determinise_composed equals determinising the stored
 * restricted composition, array for array, on random parts that share
 * labels, with τ, error and END states, and kept sets of every size (a
 * third with 300 more kept labels the parts do not use). */
static void test_determinise_composed(lts_labels_t *L) {
  int agreed = 0;
  for (int round = 0; round < 300; round++) {
    int n = 1 + rnd(3);
    lts_t *parts[3];
    for (int p = 0; p < n; p++)
      parts[p] = random_lts(L, 2 + rnd(7), rnd(16), 2 + rnd(3), rnd(3), rnd(3) == 0, rnd(4) == 0);
    int keep[320], nkeep = 0;
    char name[32];
    for (int k = 0; k < 6; k++)
      if (rnd(2)) {
        snprintf(name, sizeof name, "l%d", k);
        keep[nkeep++] = lts_label(L, name);
      }
    if (round % 3 == 0) /* over 255 kept labels: the moves' labels are stored wide */
      for (int k = 0; k < 300; k++) {
        snprintf(name, sizeof name, "w%d", k);
        keep[nkeep++] = lts_label(L, name);
      }
    /* sorted, as lts_restrict wants */
    for (int i = 1; i < nkeep; i++)
      for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
        int t = keep[j];
        keep[j] = keep[j - 1];
        keep[j - 1] = t;
      }
    const lts_t *const *cp = (const lts_t *const *)parts;
    lts_t *c = lts_compose(cp, n);
    lts_t *r = lts_restrict(c, keep, nkeep);
    lts_t *want = lts_determinise(r, true);
    lts_t *got = lts_determinise_composed(cp, n, keep, nkeep, NULL, NULL);
    bool same = same_lts(want, got);
    CHECK(same);
    agreed += same;
    lts_free(c);
    lts_free(r);
    lts_free(want);
    lts_free(got);
    for (int p = 0; p < n; p++) lts_free(parts[p]);
  }
  CHECK(agreed == 300);
}

/* lts_dfa_partition against the greatest bisimulation computed pair by
 * pair (a fixpoint over an n x n relation, no partition refinement) on
 * random partial DFAs; blocks numbered in the order of their least state. */
static void test_dfa_partition(void) {
  /* a move into a dead state is not the same as no move: 0 -a-> 2, 1 and 2
   * have none, so 1 ~ 2 but 0 stands apart */
  int off0[] = {0, 1, 1, 1}, lab0[] = {0}, dst0[] = {2}, block0[] = {0, 0, 0};
  CHECK(lts_dfa_partition(3, off0, lab0, dst0, block0, NULL, NULL) == 2);
  CHECK(block0[0] == 0 && block0[1] == 1 && block0[2] == 1);
  unsigned seed = 12345;
#define RAND() (seed = seed * 1103515245u + 12345u, (int)((seed >> 16) & 0x7fff))
  for (int round = 0; round < 300; round++) {
    int n = 1 + RAND() % 40, nl = 1 + RAND() % 4, density = 1 + RAND() % 4;
    int *off = malloc((size_t)(n + 1) * sizeof *off), *lab = malloc((size_t)(n * nl + 1) * sizeof *lab),
        *dst = malloc((size_t)(n * nl + 1) * sizeof *dst), *block = malloc((size_t)n * sizeof *block),
        *cls = malloc((size_t)n * sizeof *cls), *step = malloc((size_t)(n * nl) * sizeof *step);
    off[0] = 0;
    for (int x = 0; x < n; x++) {
      off[x + 1] = off[x];
      for (int a = 0; a < nl; a++) {
        step[x * nl + a] = -1;
        if (RAND() % 5 >= density) continue;
        int d = RAND() % 3 == 0 ? x : RAND() % n; /* some self-loops */
        lab[off[x + 1]] = a, dst[off[x + 1]++] = d, step[x * nl + a] = d;
      }
      cls[x] = block[x] = RAND() % 7 == 0 ? 1 + RAND() % 2 : 0;
    }
    unsigned char *eq = malloc((size_t)(n * n));
    for (int x = 0; x < n; x++)
      for (int y = 0; y < n; y++) eq[x * n + y] = cls[x] == cls[y];
    for (bool changed = true; changed;) {
      changed = false;
      for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++) {
          if (!eq[x * n + y]) continue;
          for (int a = 0; a < nl; a++) {
            int u = step[x * nl + a], v = step[y * nl + a];
            if ((u < 0) != (v < 0) || (u >= 0 && !eq[u * n + v])) {
              eq[x * n + y] = 0, changed = true;
              break;
            }
          }
        }
    }
    int nb = lts_dfa_partition(n, off, lab, dst, block, NULL, NULL), seen = 0;
    bool same = nb >= 1;
    for (int x = 0; x < n && same; x++) {
      for (int y = 0; y < n && same; y++) same = eq[x * n + y] == (block[x] == block[y]);
      if (block[x] == seen) seen++; /* a block's first state: the next number */
      else same = same && block[x] < seen;
    }
    CHECK(same && seen == nb);
    free(off), free(lab), free(dst), free(block), free(cls), free(step), free(eq);
  }
#undef RAND
}

int main(void) {
  lts_labels_t L;
  lts_labels_init(&L);
  CHECK(lts_label(&L, "tau") == LTS_TAU);
  test_compose(&L);
  test_hide_determinise_minimise(&L);
  test_property_and_bfs(&L);
  test_labels();
  test_strip_tau(&L);
  test_determinise_composed(&L);
  test_dfa_partition();
  lts_labels_free(&L);
  return CHECK_RESULT();
}
