/* Unit tests of the masking game: hand-built LTSs with known distances,
 * saturation, strong vs weak agreement on τ-free models, traces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "verifier/masking/masking.h"
#include "tests/unit/check.h"


enum { W0, W1, R0, R1, F1, F2, A, T, TAU };

typedef struct {
  int src, label, dst, kind;
} e_t;

/* An LTS from an edge list sorted by (src, label, dst). */
static masking_lts_t make(int nstates, const e_t *es, int n) {
  masking_lts_t g = {0};
  g.nstates = (size_t)nstates;
  g.nedges = (size_t)n;
  g.off = xcalloc((size_t)nstates + 1, sizeof *g.off);
  g.label = xmalloc(((size_t)n + 1) * sizeof(int));
  g.dst = xmalloc(((size_t)n + 1) * sizeof(int));
  g.kind = xmalloc((size_t)n + 1);
  for (int i = 0; i < n; i++) {
    g.off[es[i].src + 1]++;
    g.label[i] = es[i].label, g.dst[i] = es[i].dst, g.kind[i] = (uint8_t)es[i].kind;
  }
  for (int s = 0; s < nstates; s++) g.off[s + 1] += g.off[s];
  return g;
}

static uint32_t value_of(const masking_lts_t *spec, const masking_lts_t *imp, bool nominal_match, bool deadlock) {
  masking_options_t o = {.nominal_match = nominal_match, .deadlock_error = deadlock, .max_nodes = 100000};
  masking_game_t g;
  CHECK(masking_solve(spec, imp, &o, &g) == MASKING_OK);
  strbuf_t why;
  strbuf_init(&why);
  CHECK(masking_check(&g, &why));
  if (why.len) fprintf(stderr, "  %s\n", strbuf_str(&why));
  strbuf_free(&why);
  uint32_t w = masking_value(&g);
  int *path;
  size_t n = masking_trace(&g, &path);
  CHECK((n == 0) == (w == 0));
  if (n) {
    CHECK(path[0] == 0 && path[n - 1] == g.err);
    size_t faults = 0;
    for (size_t i = 0; i < n; i++) faults += g.nodes[path[i]].fault;
    CHECK(faults + 1 == w); /* w counts the faults of the play plus the final mismatch */
  }
  free(path);
  masking_game_free(&g);
  return w;
}

/* The paper's memory cell: spec s0 (holds 0), s1 (holds 1). */
static const e_t SPEC[] = {{0, W0, 0, 0}, {0, W1, 1, 0}, {0, R0, 0, 0}, {1, W0, 0, 0}, {1, W1, 1, 0}, {1, R1, 1, 0}};
/* A': t0 = 000, t1 = 111, t2 = one bit flipped from 000 (still reads 0). */
static const e_t IMP1[] = {{0, W0, 0, 0}, {0, W1, 1, 0}, {0, R0, 0, 0}, {0, F1, 2, 1}, {1, W0, 0, 0},
                           {1, W1, 1, 0}, {1, R1, 1, 0}, {2, W0, 0, 0}, {2, W1, 1, 0}, {2, R0, 2, 0}};
/* A'': a second fault from t2 to t3 (two bits flipped: reads 1). */
static const e_t IMP2[] = {{0, W0, 0, 0}, {0, W1, 1, 0}, {0, R0, 0, 0}, {0, F1, 2, 1}, {1, W0, 0, 0},
                           {1, W1, 1, 0}, {1, R1, 1, 0}, {2, W0, 0, 0}, {2, W1, 1, 0}, {2, R0, 2, 0},
                           {2, F2, 3, 1}, {3, W0, 0, 0}, {3, W1, 1, 0}, {3, R1, 3, 0}};

static void test_memory(void) {
  masking_lts_t spec = make(2, SPEC, 6), a1 = make(3, IMP1, 10), a2 = make(4, IMP2, 14);
  CHECK(value_of(&spec, &spec, true, false) == 0); /* reflexive */
  CHECK(value_of(&spec, &a1, true, false) == 0);   /* A' masks its fault */
  CHECK(value_of(&spec, &a2, true, false) == 3);   /* 1/3, as in the paper */
  /* strong and weak games agree on τ-free models */
  masking_lts_t s2, i2;
  CHECK(masking_saturate(&spec, TAU, &s2));
  CHECK(masking_saturate(&a2, TAU, &i2));
  CHECK(value_of(&s2, &i2, true, false) == 3);
  CHECK(value_of(&s2, &i2, false, false) == 3);
  masking_lts_free(&s2), masking_lts_free(&i2);
  masking_lts_free(&spec), masking_lts_free(&a1), masking_lts_free(&a2);
}

static void test_nominal_match_and_deadlock(void) {
  /* the implementation lacks the spec's A after T: distance 1 with the
   * bisimulation-style game, 0 when only the implementation is matched */
  const e_t spec_e[] = {{0, T, 1, 0}, {1, A, 0, 0}};
  const e_t imp_e[] = {{0, T, 1, 0}};
  masking_lts_t spec = make(2, spec_e, 2), imp = make(2, imp_e, 1);
  CHECK(value_of(&spec, &imp, true, false) == 1);
  CHECK(value_of(&spec, &imp, false, false) == 0);
  CHECK(value_of(&spec, &imp, false, true) == 1); /* the deadlock is an error */
  masking_lts_free(&spec), masking_lts_free(&imp);
}

static bool has_edge(const masking_lts_t *g, int s, int label, int dst) {
  for (size_t e = g->off[s]; e < g->off[s + 1]; e++)
    if (g->label[e] == label && g->dst[e] == dst) return true;
  return false;
}

static void test_saturation(void) {
  /* 0 -τ-> 1 -τ-> 0 (a cycle), 1 -a-> 2 -τ-> 3, 3 -f-> 0 (fault) */
  const e_t es[] = {{0, T, 1, 2}, {1, A, 2, 0}, {1, T, 0, 2}, {2, T, 3, 2}, {3, F1, 0, 1}};
  masking_lts_t g = make(4, es, 5), w;
  CHECK(masking_saturate(&g, TAU, &w));
  CHECK(has_edge(&w, 0, A, 2) && has_edge(&w, 0, A, 3) && has_edge(&w, 1, A, 3));
  CHECK(has_edge(&w, 0, TAU, 0) && has_edge(&w, 0, TAU, 1) && !has_edge(&w, 0, TAU, 2));
  CHECK(has_edge(&w, 2, TAU, 3) && has_edge(&w, 3, TAU, 3));
  CHECK(has_edge(&w, 3, F1, 0) && !has_edge(&w, 2, F1, 0)); /* faults are not saturated */
  CHECK(has_edge(&w, 0, T, 1));                              /* the written τ edge stays */
  for (size_t s = 0; s < w.nstates; s++)
    for (size_t e = w.off[s] + 1; e < w.off[s + 1]; e++)
      CHECK(w.label[e - 1] < w.label[e] || (w.label[e - 1] == w.label[e] && w.dst[e - 1] <= w.dst[e]));
  masking_lts_free(&g), masking_lts_free(&w);
}

int main(void) {
  test_memory();
  test_nominal_match_and_deadlock();
  test_saturation();
  return CHECK_RESULT();
}
