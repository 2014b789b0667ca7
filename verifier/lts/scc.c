#include "verifier/lts/scc.h"

#include <stdlib.h>

#include "ism/alloc.h"

/* The next edge of v from e on that counts, or end. */
static inline int next_edge(const scc_graph_t *g, int e, int end) {
  if (g->lab)
    while (e < end && !((unsigned)g->lab[e] < (unsigned)g->nkeep && g->keep[g->lab[e]])) e++;
  return e;
}

int scc_tarjan(const scc_graph_t *g, int root, int *comp, int *rep) {
  int n = g->n, counter = 0, ncomp = 0, sp = 0;
  int *idx = xmalloc(((size_t)n + 1) * sizeof *idx), *low = xmalloc(((size_t)n + 1) * sizeof *low),
      *stack = xmalloc(((size_t)n + 1) * sizeof *stack), *cv = xmalloc(((size_t)n + 1) * sizeof *cv),
      *ce = xmalloc(((size_t)n + 1) * sizeof *ce);
  uint8_t *on = xcalloc((size_t)n + 1, 1);
  for (int x = 0; x < n; x++) idx[x] = comp[x] = -1;
  for (int r = root < 0 ? 0 : root; r < (root < 0 ? n : root + 1); r++) {
    if (idx[r] >= 0) continue;
    int csp = 0; /* the call stack: cv[i] and the next edge ce[i] to try */
    idx[r] = low[r] = counter++;
    stack[sp++] = r, on[r] = 1;
    cv[csp] = r, ce[csp++] = g->off[r];
    while (csp > 0) {
      int v = cv[csp - 1], end = g->off[v + 1], e = next_edge(g, ce[csp - 1], end);
      if (e < end) {
        int w = g->dst[e];
        ce[csp - 1] = e + 1;
        if (idx[w] < 0) {
          idx[w] = low[w] = counter++;
          stack[sp++] = w, on[w] = 1;
          cv[csp] = w, ce[csp++] = g->off[w];
        } else if (on[w] && idx[w] < low[v])
          low[v] = idx[w];
        continue;
      }
      if (low[v] == idx[v]) { /* v roots a component */
        int w;
        do {
          w = stack[--sp];
          on[w] = 0;
          comp[w] = ncomp;
        } while (w != v);
        if (rep) rep[ncomp] = v;
        ncomp++;
      }
      if (--csp > 0 && low[v] < low[cv[csp - 1]]) low[cv[csp - 1]] = low[v];
    }
  }
  free(idx);
  free(low);
  free(stack);
  free(cv);
  free(ce);
  free(on);
  return ncomp;
}
