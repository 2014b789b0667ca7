#include "verifier/lts/terminal.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "verifier/lts/scc.h"

void terminal_sets(const lts_t *l, terminal_sets_t *out) {
  int n = l->nstates;
  int *comp = xmalloc((size_t)n * sizeof *comp);
  scc_graph_t g = {n, l->succ_off, l->succ_dst, NULL, NULL, false};
  int ncomp = scc_tarjan(&g, l->init, comp, NULL); /* the states reachable from init */
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

int terminal_default_violation(const lts_t *l, const terminal_sets_t *t, int **missing, int *nmissing) {
  *missing = NULL;
  *nmissing = 0;
  int maxlabel = 0;
  for (int i = 0; i < l->nalphabet; i++)
    if (l->alphabet[i] > maxlabel) maxlabel = l->alphabet[i];
  for (int i = 0; i < l->ntrans; i++)
    if (l->succ_label[i] > maxlabel) maxlabel = l->succ_label[i];
  /* the states of each set, grouped by a counting sort on set_of */
  int *start = xcalloc((size_t)t->nsets + 2, sizeof *start),
      *order = xmalloc(((size_t)l->nstates + 1) * sizeof *order);
  for (int s = 0; s < l->nstates; s++)
    if (t->set_of[s] >= 0) start[t->set_of[s] + 2]++;
  for (int k = 0; k < t->nsets; k++) start[k + 2] += start[k + 1];
  for (int s = 0; s < l->nstates; s++)
    if (t->set_of[s] >= 0) order[start[t->set_of[s] + 1]++] = s;
  /* stamp[label] = k + 1 once set k does it: count the alphabet's labels per set */
  int *stamp = xcalloc((size_t)maxlabel + 1, sizeof *stamp), found = -1;
  bool *in_alpha = xcalloc((size_t)maxlabel + 1, sizeof *in_alpha);
  for (int i = 0; i < l->nalphabet; i++) in_alpha[l->alphabet[i]] = true;
  for (int k = 0; k < t->nsets && found < 0; k++) {
    int seen = 0;
    for (int j = start[k]; j < start[k + 1]; j++)
      for (int i = l->succ_off[order[j]]; i < l->succ_off[order[j] + 1]; i++) {
        int a = l->succ_label[i];
        if (a != LTS_TAU && in_alpha[a] && stamp[a] != k + 1) stamp[a] = k + 1, seen++;
      }
    if (seen < l->nalphabet) {
      found = k;
      *missing = xmalloc(((size_t)(l->nalphabet - seen) + 1) * sizeof **missing);
      for (int i = 0; i < l->nalphabet; i++)
        if (stamp[l->alphabet[i]] != k + 1) (*missing)[(*nmissing)++] = l->alphabet[i];
    }
  }
  free(start);
  free(order);
  free(stamp);
  free(in_alpha);
  return found;
}
