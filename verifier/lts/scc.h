/* Strongly connected components of a graph in compressed sparse rows
 * (Tarjan's algorithm, iterative: an explicit call stack, no recursion on
 * the graph's depth). One routine for the LTS core and the robustify
 * plant: the τ-cycles of lts.c, the terminal sets of terminal.c, the
 * hidden cycles of robustify_plant.c. */
#ifndef VERIFIER_LTS_SCC_H
#define VERIFIER_LTS_SCC_H

#include <stdbool.h>
#include <stdint.h>

/* The graph: states 0 .. n-1, the edges of state s are dst[off[s] ..
 * off[s+1]). lab == NULL: every edge counts; else only the edges e with
 * keep[lab[e]] != 0 (keep has an entry for every label on an edge), and
 * with kept_first a state's edges that count come first (the scan of its
 * edges stops at the first that does not: the τ-edges of an lts_t). */
typedef struct {
  int n;
  const int *off, *dst;
  const int *lab;
  const uint8_t *keep;
  bool kept_first;
} scc_graph_t;

/* comp[s] receives the component of s, numbered in the order the
 * components are completed: a component reachable from another has a
 * smaller number. The search starts at root only (root >= 0: comp[s] = -1
 * for every state not reachable from it) or (root < 0) at each state not
 * yet visited, in increasing order; each state's edges are followed in
 * their order in dst. rep (may be NULL) receives each component's first
 * visited state. Returns the number of components. */
int scc_tarjan(const scc_graph_t *g, int root, int *comp, int *rep);

#endif
