#include "verifier/lts/terminal.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

/* Tarjan's strongly connected components of the states reachable from
 * init, with an explicit call stack; comp[s] receives the component of s
 * (-1: unreachable). Returns the number of components. */
static int components(const lts_t *l, int *comp) {
  int n = l->nstates;
  int *index = xmalloc((size_t)n * sizeof *index), *low = xmalloc((size_t)n * sizeof *low);
  int *edge = xmalloc((size_t)n * sizeof *edge);
  int *call = xmalloc((size_t)n * sizeof *call), *stack = xmalloc((size_t)n * sizeof *stack);
  bool *on = xcalloc((size_t)n, sizeof *on);
  for (int s = 0; s < n; s++) index[s] = comp[s] = -1;
  int ncall = 0, nstack = 0, counter = 0, ncomp = 0;
#define VISIT(v)                                                                                             \
  do {                                                                                                       \
    index[v] = low[v] = counter++;                                                                           \
    edge[v] = l->succ_off[v];                                                                                \
    stack[nstack++] = (v);                                                                                   \
    on[v] = true;                                                                                            \
    call[ncall++] = (v);                                                                                     \
  } while (0)
  VISIT(l->init);
  while (ncall > 0) {
    int v = call[ncall - 1];
    if (edge[v] < l->succ_off[v + 1]) {
      int w = l->succ_dst[edge[v]++];
      if (index[w] < 0)
        VISIT(w);
      else if (on[w] && index[w] < low[v])
        low[v] = index[w];
      continue;
    }
    ncall--;
    if (ncall > 0 && low[v] < low[call[ncall - 1]]) low[call[ncall - 1]] = low[v];
    if (low[v] == index[v]) {
      int w;
      do {
        w = stack[--nstack];
        on[w] = false;
        comp[w] = ncomp;
      } while (w != v);
      ncomp++;
    }
  }
#undef VISIT
  free(index);
  free(low);
  free(edge);
  free(call);
  free(stack);
  free(on);
  return ncomp;
}

void terminal_sets(const lts_t *l, terminal_sets_t *out) {
  int n = l->nstates;
  int *comp = xmalloc((size_t)n * sizeof *comp);
  int ncomp = components(l, comp);
  bool *terminal = xmalloc(((size_t)ncomp + 1) * sizeof *terminal);
  for (int k = 0; k < ncomp; k++) terminal[k] = true;
  for (int s = 0; s < n; s++) {
    if (comp[s] < 0) continue;
    if (s == l->error) terminal[comp[s]] = false;
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++)
      if (comp[l->succ_dst[i]] != comp[s]) terminal[comp[s]] = false;
  }
  int *number = xmalloc(((size_t)ncomp + 1) * sizeof *number);
  for (int k = 0; k < ncomp; k++) number[k] = -1;
  out->nsets = 0;
  out->set_of = xmalloc(((size_t)n + 1) * sizeof *out->set_of);
  out->first = xmalloc(((size_t)ncomp + 1) * sizeof *out->first);
  for (int s = 0; s < n; s++) {
    out->set_of[s] = -1;
    if (comp[s] < 0 || !terminal[comp[s]]) continue;
    if (number[comp[s]] < 0) {
      number[comp[s]] = out->nsets;
      out->first[out->nsets++] = s;
    }
    out->set_of[s] = number[comp[s]];
  }
  free(comp);
  free(terminal);
  free(number);
}

void terminal_sets_free(terminal_sets_t *t) {
  free(t->set_of);
  free(t->first);
  memset(t, 0, sizeof *t);
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int *terminal_actions(const lts_t *l, const terminal_sets_t *t, int k, int *n) {
  int cap = 16, m = 0;
  int *acts = xmalloc((size_t)cap * sizeof *acts);
  for (int s = t->first[k]; s < l->nstates; s++) {
    if (t->set_of[s] != k) continue;
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      if (l->succ_label[i] == LTS_TAU) continue;
      if (m == cap) acts = xrealloc(acts, (size_t)(cap *= 2) * sizeof *acts);
      acts[m++] = l->succ_label[i];
    }
  }
  if (m) qsort(acts, (size_t)m, sizeof *acts, cmp_int);
  int u = 0;
  for (int i = 0; i < m; i++)
    if (u == 0 || acts[u - 1] != acts[i]) acts[u++] = acts[i];
  *n = u;
  return acts;
}

int terminal_progress_violation(const lts_t *l, const terminal_sets_t *t, const int *actions, int nactions,
                                const int *cond, int ncond, bool conditional) {
  int maxlabel = 0;
  for (int i = 0; i < l->ntrans; i++)
    if (l->succ_label[i] > maxlabel) maxlabel = l->succ_label[i];
  /* flags[label]: 1 in actions, 2 in cond; hits[k]: the same for what set k does */
  unsigned char *flags = xcalloc((size_t)maxlabel + 1, 1), *hits = xcalloc((size_t)t->nsets + 1, 1);
  for (int i = 0; i < nactions; i++)
    if (actions[i] >= 0 && actions[i] <= maxlabel) flags[actions[i]] |= 1;
  for (int i = 0; i < ncond; i++)
    if (cond[i] >= 0 && cond[i] <= maxlabel) flags[cond[i]] |= 2;
  flags[LTS_TAU] = 0;
  for (int s = 0; s < l->nstates; s++)
    if (t->set_of[s] >= 0)
      for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) hits[t->set_of[s]] |= flags[l->succ_label[i]];
  int found = -1;
  for (int k = 0; k < t->nsets && found < 0; k++)
    if (!(hits[k] & 1) && (!conditional || (hits[k] & 2))) found = k;
  free(flags);
  free(hits);
  return found;
}
