#include "verifier/lts/scc.h"

#include <limits.h>
#include <stdlib.h>

#include "ism/alloc.h"

/* scc_tarjan for one kind of edge filter (mode: 0 every edge, 1 the kept
 * prefix, 2 the kept edges), compiled once per mode: no test of the mode
 * per edge. */
static inline __attribute__((always_inline)) int tarjan(const scc_graph_t *g, int root, int *comp, int *rep,
                                                        int mode) {
  int n = g->n, counter = 0, ncomp = 0, sp = 0;
  const int *off = g->off, *dst = g->dst, *lab = g->lab; /* locals: the stores below cannot alias them */
  const uint8_t *keep = g->keep;
  int *idx = xmalloc(((size_t)n + 1) * sizeof *idx), *low = xmalloc(((size_t)n + 1) * sizeof *low),
      *stack = xmalloc(((size_t)n + 1) * sizeof *stack), *cv = xmalloc(((size_t)n + 1) * sizeof *cv),
      *ce = xmalloc(((size_t)n + 1) * sizeof *ce);
  for (int x = 0; x < n; x++) idx[x] = -1;
  if (root >= 0)
    for (int x = 0; x < n; x++) comp[x] = -1;
  for (int r = root < 0 ? 0 : root; r < (root < 0 ? n : root + 1); r++) {
    if (idx[r] >= 0) continue;
    int csp = 0; /* the call stack: cv[i] and the next edge ce[i] to try */
    idx[r] = low[r] = counter++;
    stack[sp++] = r;
    cv[csp] = r, ce[csp++] = off[r];
    while (csp > 0) {
      int v = cv[csp - 1], end = off[v + 1], e = ce[csp - 1];
      if (mode == 1) { /* the next edge that counts */
        if (e < end && !keep[lab[e]]) e = end;
      } else if (mode == 2)
        while (e < end && !keep[lab[e]]) e++;
      if (e < end) {
        int w = dst[e];
        ce[csp - 1] = e + 1;
        if (idx[w] < 0) {
          idx[w] = low[w] = counter++;
          stack[sp++] = w;
          cv[csp] = w, ce[csp++] = off[w];
        } else if (idx[w] < low[v]) /* w on the stack: a component's states leave it with idx INT_MAX */
          low[v] = idx[w];
        continue;
      }
      if (low[v] == idx[v]) { /* v roots a component */
        int w;
        do {
          w = stack[--sp];
          idx[w] = INT_MAX;
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
  return ncomp;
}

int scc_tarjan(const scc_graph_t *g, int root, int *comp, int *rep) {
  return !g->lab         ? tarjan(g, root, comp, rep, 0)
         : g->kept_first ? tarjan(g, root, comp, rep, 1)
                         : tarjan(g, root, comp, rep, 2);
}
