/* Unit tests of scc_tarjan (verifier/lts/scc.c) against an oracle that
 * shares nothing with it: on a few hundred random graphs (self-loops,
 * isolated states, repeated edges, labelled edges filtered by a random
 * mask, alone or as the prefix of each state's edges (kept_first),
 * searches from every state or from one root), the components are
 * the classes of mutual reachability (a transitive closure by repeated
 * breadth-first search over the counted edges), the states not reachable
 * from the root get -1, and the numbering is the documented one: a plain
 * recursive depth-first search in the same root and edge order finishes
 * each component's first visited state (rep) in the order of the
 * components' numbers. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "verifier/lts/scc.h"

enum { MAXN = 40, NLAB = 4 };

static uint64_t seed = 88172645463325252ull;
static unsigned rnd(unsigned k) { /* xorshift64, uniform enough for test graphs */
  seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
  return (unsigned)(seed % k);
}

typedef struct {
  int n, off[MAXN + 1], dst[MAXN * 8], lab[MAXN * 8];
  uint8_t keep[NLAB + 1]; /* keep[NLAB] stays 0: the label beyond the mask is never kept */
  bool filter, kept_first;
} graph_t;

/* Does edge e of state s count: its label kept, and with kept_first every
 * edge of s before it too. */
static bool counts(const graph_t *g, int s, int e) {
  if (!g->filter) return true;
  for (int i = g->kept_first ? g->off[s] : e; i <= e; i++)
    if (!g->keep[g->lab[i]]) return false;
  return true;
}

/* reach[u][v]: v reachable from u by counted edges (u from itself) */
static void closure(const graph_t *g, bool reach[MAXN][MAXN]) {
  for (int u = 0; u < g->n; u++) {
    int queue[MAXN], head = 0, tail = 0;
    memset(reach[u], 0, sizeof reach[u]);
    reach[u][u] = true, queue[tail++] = u;
    while (head < tail) {
      int x = queue[head++];
      for (int e = g->off[x]; e < g->off[x + 1]; e++)
        if (counts(g, x, e) && !reach[u][g->dst[e]]) reach[u][g->dst[e]] = true, queue[tail++] = g->dst[e];
    }
  }
}

/* A plain recursive DFS: visit order and finish order. */
static void dfs(const graph_t *g, int u, int *disc, int *fin, int *clock_d, int *clock_f) {
  disc[u] = (*clock_d)++;
  for (int e = g->off[u]; e < g->off[u + 1]; e++)
    if (counts(g, u, e) && disc[g->dst[e]] < 0) dfs(g, g->dst[e], disc, fin, clock_d, clock_f);
  fin[u] = (*clock_f)++;
}

static int one_graph(int round) {
  graph_t g = {0};
  g.n = round == 0 ? 0 : 1 + (int)rnd(MAXN);
  int deg = (int)rnd(4); /* mean out-degree: 0 (isolated states) to 3 */
  int ne = 0;
  for (int s = 0; s < g.n; s++) {
    g.off[s] = ne;
    int k = rnd(3) == 0 ? 0 : (int)rnd((unsigned)(2 * deg + 1));
    for (int i = 0; i < k && ne < MAXN * 8; i++) {
      g.dst[ne] = rnd(6) == 0 ? s : (int)rnd((unsigned)g.n); /* self-loops often */
      g.lab[ne++] = (int)rnd(NLAB + 1);                      /* NLAB: beyond the mask */
    }
  }
  g.off[g.n] = ne;
  g.filter = rnd(2), g.kept_first = g.filter && rnd(2);
  for (int l = 0; l < NLAB; l++) g.keep[l] = (uint8_t)rnd(2);
  int root = g.n > 0 && rnd(2) ? (int)rnd((unsigned)g.n) : -1;

  scc_graph_t sg = {g.n, g.off, g.dst, g.filter ? g.lab : NULL, g.keep, g.kept_first};
  int comp[MAXN + 1], rep[MAXN + 1];
  int ncomp = scc_tarjan(&sg, root, comp, rep);

  static bool reach[MAXN][MAXN];
  closure(&g, reach);
  int disc[MAXN], fin[MAXN], cd = 0, cf = 0;
  for (int s = 0; s < g.n; s++) disc[s] = fin[s] = -1;
  for (int r = root < 0 ? 0 : root; r < (root < 0 ? g.n : root + 1); r++)
    if (disc[r] < 0) dfs(&g, r, disc, fin, &cd, &cf);
  int fails = check_failures;
  for (int u = 0; u < g.n; u++) {
    bool seen = root < 0 || reach[root][u];
    CHECK(seen == (comp[u] >= 0));
    CHECK(comp[u] < ncomp);
    for (int v = 0; v < g.n; v++)
      if (seen && comp[v] >= 0) CHECK((comp[u] == comp[v]) == (reach[u][v] && reach[v][u]));
  }
  /* every number used; rep[c] is c's first visited member; numbers follow the finish order of the reps */
  for (int c = 0; c < ncomp; c++) {
    int r = rep[c];
    CHECK(r >= 0 && r < g.n && comp[r] == c);
    if (!(r >= 0 && r < g.n)) continue;
    for (int u = 0; u < g.n; u++)
      if (comp[u] == c) CHECK(disc[r] <= disc[u]);
    if (c > 0 && rep[c - 1] >= 0 && rep[c - 1] < g.n) CHECK(fin[rep[c - 1]] < fin[r]);
  }
  /* so a component reachable from another has a smaller number */
  for (int u = 0; u < g.n; u++)
    for (int v = 0; v < g.n; v++)
      if (comp[u] >= 0 && comp[v] >= 0 && reach[u][v]) CHECK(comp[v] <= comp[u]);
  if (check_failures > fails) fprintf(stderr, "  in graph %d (n %d, root %d)\n", round, g.n, root);
  return ncomp;
}

int main(void) {
  long total = 0;
  for (int round = 0; round < 600; round++) total += one_graph(round);
  CHECK(total > 600); /* the graphs are not all trivial */
  printf("scc_test: 600 graphs, %ld components\n", total);
  return CHECK_RESULT();
}
