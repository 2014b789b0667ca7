#include "verifier/lts/robustness.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/stop.h"
#include "ism/vec.h"

int *robust_interface(const lts_t *sys, const lts_t *env, int *n) {
  int *out = xmalloc(((size_t)sys->nalphabet + 1) * sizeof *out);
  *n = 0;
  for (int i = 0; i < sys->nalphabet; i++)
    if (lts_has_label(env, sys->alphabet[i])) out[(*n)++] = sys->alphabet[i];
  return out;
}

int *robust_normal_violation(const lts_t *sys, const lts_t *env, const lts_t *prop, int *len) {
  const lts_t *parts[3] = {sys, env, prop};
  lts_t *t = lts_compose_bounded(parts, 3, 0, stop_poll, NULL);
  int *trace = NULL;
  *len = -1;
  if (t && t->error >= 0) {
    lts_bfs_t bfs;
    lts_bfs(t, &bfs);
    int n;
    int *path = lts_bfs_trace(&bfs, t, t->error, &n);
    lts_bfs_free(&bfs);
    if (n >= 0) {
      /* the machine's internal moves are not part of the trace */
      trace = xmalloc(((size_t)n + 1) * sizeof *trace);
      *len = 0;
      for (int i = 0; i < n; i++)
        if (path[i] != LTS_TAU) trace[(*len)++] = path[i];
    }
    free(path);
  }
  lts_free(t);
  return trace;
}

lts_t *robust_assumption(const lts_t *sys, const lts_t *prop, const int *alpha, int nalpha,
                         const robust_wa_options_t *opt, bool *empty) {
  const lts_t *parts[2] = {sys, prop};
  *empty = false;
  lts_t *d;
  if (opt->minimise) {
    lts_t *mp = lts_compose_bounded(parts, 2, 0, stop_poll, NULL);
    if (!mp) return NULL;
    lts_t *c = lts_restrict(mp, alpha, nalpha);
    lts_free(mp);
    lts_t *m = lts_minimise(c);
    lts_free(c);
    d = lts_determinise_bounded(m, true, 0, stop_poll, NULL);
    lts_free(m);
  } else { /* (M ‖ P_err)↾α determinised without storing M ‖ P_err */
    d = lts_determinise_composed(parts, 2, alpha, nalpha, stop_poll, NULL);
  }
  if (!d) return NULL;
  *empty = d->error >= 0 && d->error == d->init;
  if (opt->disables && !*empty) {
    /* a sink θ for every interface label a state does not enable */
    lts_builder_t b;
    lts_builder_init(&b, d->labels);
    b.nstates = d->nstates;
    b.init = d->init;
    b.error = d->error;
    int sink = lts_builder_add_state(&b);
    for (int i = 0; i < nalpha; i++) lts_builder_alphabet_add(&b, alpha[i]);
    for (int s = 0; s < d->nstates; s++) {
      if (s == d->error) continue;
      for (int k = d->succ_off[s]; k < d->succ_off[s + 1]; k++)
        lts_builder_add(&b, s, d->succ_label[k], d->succ_dst[k]);
      for (int i = 0; i < nalpha; i++)
        if (lts_step(d, s, alpha[i]) < 0) lts_builder_add(&b, s, alpha[i], sink);
    }
    lts_free(d);
    d = lts_freeze(&b);
    lts_builder_free(&b);
  }
  lts_t *w = d;
  if (!opt->unsafe) {
    w = lts_remove_error(d);
    lts_free(d);
    if (opt->minimise) {
      lts_t *m = lts_minimise(w);
      lts_free(w);
      w = m;
    }
  }
  /* W's alphabet is exactly the interface, whatever survived */
  free(w->alphabet);
  w->alphabet = xmalloc(((size_t)nalpha + 1) * sizeof(int));
  if (nalpha) memcpy(w->alphabet, alpha, (size_t)nalpha * sizeof(int));
  w->nalphabet = nalpha;
  return w;
}

lts_t *robust_weakest_assumption(const lts_t *sys, const lts_t *prop, const int *alpha, int nalpha,
                                 bool minimise, bool *empty) {
  robust_wa_options_t opt = {.minimise = minimise};
  return robust_assumption(sys, prop, alpha, nalpha, &opt, empty);
}

lts_t *robust_env_view(const lts_t *env, const int *alpha, int nalpha) {
  lts_t *r = lts_restrict(env, alpha, nalpha);
  lts_t *d = lts_determinise_bounded(r, false, 0, stop_poll, NULL);
  lts_free(r);
  return d;
}

/* ------------------------------------------------------------- classes */

/* by (length, label names); insertion sort keeps it free of global state */
static void sort_traces(robust_trace_t *t, int n, const lts_labels_t *labels) {
  for (int i = 1; i < n; i++) {
    robust_trace_t x = t[i];
    int j = i;
    for (; j > 0; j--) {
      const robust_trace_t *y = &t[j - 1];
      int c = 0;
      if (x.len != y->len)
        c = x.len < y->len ? -1 : 1;
      else
        for (int k = 0; k < x.len && c == 0; k++)
          if (x.trace[k] != y->trace[k])
            c = strcmp(lts_label_name(labels, x.trace[k]), lts_label_name(labels, y->trace[k]));
      if (c >= 0) break;
      t[j] = t[j - 1];
    }
    t[j] = x;
  }
}

void robust_error_classes(const lts_t *t, robust_traces_t *out) {
  lts_bfs_t bfs;
  lts_bfs(t, &bfs);
  VEC(robust_trace_t) traces = {0};
  for (int s = 0; s < t->nstates; s++) {
    if (s == t->error || t->error < 0) continue;
    for (int i = t->succ_off[s]; i < t->succ_off[s + 1]; i++) {
      if (t->succ_dst[i] != t->error) continue;
      int len;
      int *prefix = lts_bfs_trace(&bfs, t, s, &len);
      if (len < 0) continue; /* unreachable (a state only the sink construction kept) */
      robust_trace_t rt = {0};
      rt.len = len + 1;
      rt.trace = xmalloc((size_t)rt.len * sizeof(int));
      if (len > 0) memcpy(rt.trace, prefix, (size_t)len * sizeof(int));
      rt.trace[len] = t->succ_label[i];
      rt.expl_len = -1;
      free(prefix);
      VEC_PUSH(&traces, rt);
    }
  }
  sort_traces(traces.data, (int)traces.len, t->labels);
  out->traces = traces.data;
  out->ntraces = (int)traces.len;
  lts_bfs_free(&bfs);
}

bool robust_delta(const lts_t *w, const lts_t *ref, robust_traces_t *out) {
  lts_t *ref_err = lts_property_bounded(ref, 0, stop_poll, NULL);
  const lts_t *parts[2] = {w, ref_err};
  lts_t *t = ref_err ? lts_compose_bounded(parts, 2, 0, stop_poll, NULL) : NULL;
  lts_free(ref_err);
  if (!t) {
    *out = (robust_traces_t){0};
    return false;
  }
  robust_error_classes(t, out);
  lts_free(t);
  return true;
}

/* ------------------------------------------------------------ expansion */

/* One node of the path search: the state reached, the node it came from
 * and the label of that step. */
typedef struct {
  int state, parent, label, depth;
} path_node_t;

static bool on_path(const path_node_t *nodes, int k, int state) {
  for (int p = nodes[k].parent; p >= 0; p = nodes[p].parent)
    if (nodes[p].state == state) return true;
  return false;
}

bool robust_expand(const lts_t *w, const int *prefix, int len, long max, robust_expansion_t *out) {
  /* each state's steps in label-name order: the breadth-first search then
   * finds the paths sorted by (length, label names) */
  int *order = xmalloc(((size_t)w->nalphabet + 1) * sizeof *order);
  for (int i = 0; i < w->nalphabet; i++) {
    int x = w->alphabet[i], j = i;
    for (; j > 0 && strcmp(lts_label_name(w->labels, x), lts_label_name(w->labels, order[j - 1])) < 0; j--)
      order[j] = order[j - 1];
    order[j] = x;
  }
  VEC(path_node_t) nodes = {0};
  VEC(robust_path_t) paths = {0};
  bool complete = true;
  VEC_PUSH(&nodes, ((path_node_t){w->init, -1, -1, 0}));
  for (size_t head = 0; head < nodes.len; head++) {
    if ((long)nodes.len > max || (long)paths.len > max || ((head & 1023) == 0 && stop_requested())) {
      complete = false;
      break;
    }
    path_node_t n = nodes.data[head];
    bool matched = n.depth >= len, record = false, deadlock = false;
    if (matched && on_path(nodes.data, (int)head, n.state))
      record = true;
    else if (matched && w->succ_off[n.state] == w->succ_off[n.state + 1])
      record = deadlock = true;
    if (record) {
      robust_path_t p = {xmalloc(((size_t)n.depth + 1) * sizeof(int)), n.depth, deadlock};
      for (int k = (int)head, i = n.depth; nodes.data[k].parent >= 0; k = nodes.data[k].parent)
        p.trace[--i] = nodes.data[k].label;
      VEC_PUSH(&paths, p);
      continue;
    }
    for (int i = 0; i < w->nalphabet; i++) {
      int a = order[i], dst = lts_step(w, n.state, a);
      if (dst < 0 || (!matched && a != prefix[n.depth])) continue;
      VEC_PUSH(&nodes, ((path_node_t){dst, (int)head, a, n.depth + 1}));
    }
  }
  free(order);
  free(nodes.data);
  out->paths = paths.data;
  out->npaths = (int)paths.len;
  return complete;
}

void robust_expansion_free(robust_expansion_t *e) {
  for (int i = 0; i < e->npaths; i++) free(e->paths[i].trace);
  free(e->paths);
  e->paths = NULL;
  e->npaths = 0;
}

void robust_traces_free(robust_traces_t *t) {
  for (int i = 0; i < t->ntraces; i++) {
    free(t->traces[i].trace);
    free(t->traces[i].expl);
    free(t->traces[i].faults);
  }
  free(t->traces);
  t->traces = NULL;
  t->ntraces = 0;
}

/* --------------------------------------------------------- explanations */

static bool has_component(const char *name, const char *word) {
  size_t n = strlen(word);
  for (const char *p = name; *p;) {
    if (strncmp(p, word, n) == 0 && (p[n] == '\0' || p[n] == '.' || p[n] == '[')) return true;
    while (*p && *p != '.' && *p != '[') p++;
    while (*p == '[') {
      while (*p && *p != ']') p++;
      if (*p) p++;
    }
    if (*p == '.') p++;
  }
  return false;
}

int *robust_faults(const lts_t *dev, const char *const *menu, size_t nmenu, int *n) {
  int *out = xmalloc(((size_t)dev->nalphabet + 1) * sizeof *out);
  *n = 0;
  for (size_t m = 0; m < nmenu; m++) {
    int start = *n;
    for (int i = 0; i < dev->nalphabet; i++) {
      const char *name = lts_label_name(dev->labels, dev->alphabet[i]);
      bool dup = false;
      for (int k = 0; k < *n; k++) dup |= out[k] == dev->alphabet[i];
      if (!dup && has_component(name, menu[m])) out[(*n)++] = dev->alphabet[i];
    }
    /* within one menu entry: by name */
    for (int i = start + 1; i < *n; i++)
      for (int j = i; j > start && strcmp(lts_label_name(dev->labels, out[j - 1]),
                                          lts_label_name(dev->labels, out[j])) > 0;
           j--) {
        int x = out[j];
        out[j] = out[j - 1];
        out[j - 1] = x;
      }
  }
  return out;
}

/* The explanation of one trace: BFS over M ‖ D (composed once, `md`)
 * times the positions of T_σ, which follows σ's prefix, then allows the
 * faults, then ends on σ's last action (π). Labels outside T's alphabet
 * (`in_t`) move M ‖ D alone. `stamp`/`parent` are scratch arrays of
 * md->nstates * len entries reused across traces (`gen` tells visits of
 * this trace apart). Returns the path's labels, or NULL. */
typedef struct {
  const lts_t *md;
  const bool *in_t, *is_fault;
  int *stamp, *parent, *parent_label, *queue;
  size_t cap;
  int gen;
  bool anywhere; /* faults at every position of σ, not only before its last action */
} explainer_t;

static int *explain_one(explainer_t *x, const robust_trace_t *rt, int *out_len) {
  const lts_t *md = x->md;
  int len = rt->len;
  size_t n = (size_t)md->nstates * (size_t)len;
  if (n > x->cap) {
    free(x->stamp), free(x->parent), free(x->parent_label), free(x->queue);
    x->cap = n;
    x->stamp = xcalloc(n, sizeof(int));
    x->parent = xmalloc(n * sizeof(int));
    x->parent_label = xmalloc(n * sizeof(int));
    x->queue = xmalloc(n * sizeof(int));
    x->gen = 0;
  }
  x->gen++;
  int head = 0, tail = 0, goal_from = -1, goal_label = -1;
  int start = md->init * len;
  x->stamp[start] = x->gen;
  x->parent[start] = -1;
  x->queue[tail++] = start;
  while (head < tail && goal_from < 0) {
    if ((head & 4095) == 4095 && stop_requested()) break; /* unexplained, as the later traces */
    int q = x->queue[head++], p = q / len, i = q % len;
    for (int k = md->succ_off[p]; k < md->succ_off[p + 1]; k++) {
      int a = md->succ_label[k], dst = md->succ_dst[k], j = i;
      bool goal = dst == md->error;
      if (a != LTS_TAU && x->in_t[a]) {
        /* σ's last action ends the search before it counts as a fault:
         * a σ ending in a fault is explained (T_σ has both moves there) */
        if (i < len - 1 && a == rt->trace[i])
          j = i + 1;
        else if (i == len - 1 && a == rt->trace[len - 1])
          goal = true;
        else if ((i == len - 1 || x->anywhere) && x->is_fault[a])
          j = i;
        else
          continue;
      }
      if (goal) {
        goal_from = q, goal_label = a;
        break;
      }
      int r = dst * len + j;
      if (x->stamp[r] == x->gen) continue;
      x->stamp[r] = x->gen;
      x->parent[r] = q;
      x->parent_label[r] = a;
      x->queue[tail++] = r;
    }
  }
  *out_len = -1;
  if (goal_from < 0) return NULL;
  int depth = 1;
  for (int q = goal_from; x->parent[q] >= 0 || q != start; q = x->parent[q]) depth++;
  int *path = xmalloc((size_t)depth * sizeof *path);
  int k = depth;
  path[--k] = goal_label;
  for (int q = goal_from; q != start; q = x->parent[q]) path[--k] = x->parent_label[q];
  *out_len = depth;
  return path;
}

static void explain_all(const lts_t *sys, const lts_t *dev, const int *alpha, int nalpha, const int *faults,
                        int nfaults, bool anywhere, robust_traces_t *t) {
  const lts_t *parts[2] = {sys, dev};
  lts_t *md = lts_compose_bounded(parts, 2, 0, stop_poll, NULL);
  if (!md) return; /* stopped: every trace stays unexplained */
  size_t nlab = sys->labels->names.count + 1;
  bool *in_t = xcalloc(nlab, sizeof *in_t), *is_fault = xcalloc(nlab, sizeof *is_fault);
  for (int i = 0; i < nalpha; i++) in_t[alpha[i]] = true;
  for (int i = 0; i < nfaults; i++) in_t[faults[i]] = is_fault[faults[i]] = true;
  explainer_t x = {md, in_t, is_fault, NULL, NULL, NULL, NULL, 0, 0, anywhere};
  for (int k = 0; k < t->ntraces && !stop_requested(); k++) {
    robust_trace_t *rt = &t->traces[k];
    int len;
    int *path = rt->len > 0 ? explain_one(&x, rt, &len) : NULL;
    if (path && len > 0) {
      rt->expl = xmalloc((size_t)len * sizeof(int));
      rt->expl_len = 0;
      for (int i = 0; i < len; i++)
        if (path[i] != LTS_TAU) rt->expl[rt->expl_len++] = path[i];
      rt->faults = xmalloc(((size_t)nfaults + 1) * sizeof(int));
      rt->nfaults = 0;
      /* canonical order: the order of `faults` (menu position, name) */
      for (int f = 0; f < nfaults; f++)
        for (int i = 0; i < rt->expl_len; i++)
          if (rt->expl[i] == faults[f]) {
            rt->faults[rt->nfaults++] = faults[f];
            break;
          }
    }
    free(path);
  }
  free(x.stamp), free(x.parent), free(x.parent_label), free(x.queue);
  free(in_t);
  free(is_fault);
  lts_free(md);
}

void robust_explain(const lts_t *sys, const lts_t *dev, const int *alpha, int nalpha, const int *faults,
                    int nfaults, robust_traces_t *t) {
  explain_all(sys, dev, alpha, nalpha, faults, nfaults, false, t);
}

void robust_explain_anywhere(const lts_t *sys, const lts_t *dev, const int *alpha, int nalpha,
                             const int *faults, int nfaults, robust_traces_t *t) {
  explain_all(sys, dev, alpha, nalpha, faults, nfaults, true, t);
}
