#include "verifier/lts/lts.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/stop.h"
#include "ism/keytab.h"
#include "ism/vec.h"
#include "verifier/lts/scc.h"

/* ---------------------------------------------------------------- labels */

void lts_labels_init(lts_labels_t *labels) {
  intern_init(&labels->names);
  int tau = intern_add(&labels->names, "tau");
  assert(tau == LTS_TAU);
  (void)tau;
}

void lts_labels_free(lts_labels_t *labels) { intern_free(&labels->names); }
int lts_label(lts_labels_t *labels, const char *name) { return intern_add(&labels->names, name); }
int lts_label_find(const lts_labels_t *labels, const char *name) { return intern_find(&labels->names, name); }
const char *lts_label_name(const lts_labels_t *labels, int label) {
  return intern_name(&labels->names, label);
}

bool lts_label_has_prefix(const char *name, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(name, prefix, n) != 0) return false;
  return name[n] == '\0' || name[n] == '.' || name[n] == '[';
}

/* --------------------------------------------------------------- builder */

void lts_builder_init(lts_builder_t *b, lts_labels_t *labels) {
  memset(b, 0, sizeof *b);
  b->labels = labels;
  b->error = -1;
}

void lts_builder_free(lts_builder_t *b) {
  free(b->trans);
  free(b->alpha);
  free(b->ends);
  lts_labels_t *labels = b->labels;
  lts_builder_init(b, labels);
}

int lts_builder_add_state(lts_builder_t *b) { return b->nstates++; }

void lts_builder_add(lts_builder_t *b, int src, int label, int dst) {
  assert(src >= 0 && src < b->nstates && dst >= 0 && dst < b->nstates);
  if (b->ntrans == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 64;
    b->trans = xrealloc(b->trans, b->cap * sizeof *b->trans);
  }
  b->trans[b->ntrans++] = (lts_trans_t){src, label, dst};
}

void lts_builder_alphabet_add(lts_builder_t *b, int label) {
  if (label == LTS_TAU) return;
  if (b->nalpha == b->alpha_cap) {
    b->alpha_cap = b->alpha_cap ? 2 * b->alpha_cap : 16;
    b->alpha = xrealloc(b->alpha, b->alpha_cap * sizeof *b->alpha);
  }
  b->alpha[b->nalpha++] = label;
}

void lts_builder_mark_end(lts_builder_t *b, int state) {
  if (b->nends == b->ends_cap) {
    b->ends_cap = b->ends_cap ? 2 * b->ends_cap : 8;
    b->ends = xrealloc(b->ends, b->ends_cap * sizeof *b->ends);
  }
  b->ends[b->nends++] = state;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int cmp_fwd(const void *a, const void *b) {
  const lts_trans_t *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  if (x->label != y->label) return x->label < y->label ? -1 : 1;
  return (x->dst > y->dst) - (x->dst < y->dst);
}

static int sort_unique(int *a, int n) {
  if (n == 0) return 0;
  if (n > 4096) {
    qsort(a, (size_t)n, sizeof *a, cmp_int);
  } else { /* Shell sort (Ciura's gaps; the last pass is an insertion sort):
            * pump-5's 6 M subsets of ~22 tuples spent 6% of the run in qsort's
            * calls of cmp_int */
    static const int gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof *gaps; g++) {
      int h = gaps[g];
      for (int i = h; i < n; i++) {
        int x = a[i], j = i;
        for (; j >= h && a[j - h] > x; j -= h) a[j] = a[j - h];
        a[j] = x;
      }
    }
  }
  int m = 1;
  for (int i = 1; i < n; i++)
    if (a[i] != a[m - 1]) a[m++] = a[i];
  return m;
}

/* Orders a short run of transitions by (src, label, dst). */
static void sort_trans(lts_trans_t *t, size_t n) {
  if (n > 24) {
    qsort(t, n, sizeof *t, cmp_fwd);
    return;
  }
  for (size_t i = 1; i < n; i++) {
    lts_trans_t x = t[i];
    size_t j = i;
    for (; j > 0 && cmp_fwd(&t[j - 1], &x) > 0; j--) t[j] = t[j - 1];
    t[j] = x;
  }
}

/* Orders the transitions of one state, a short run of (lab, dst) pairs,
 * by (label, dst). */
static void sort_run(int *lab, int *dst, size_t n) {
  if (n > 24) {
    lts_trans_t *t = xmalloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++) t[i] = (lts_trans_t){0, lab[i], dst[i]};
    qsort(t, n, sizeof *t, cmp_fwd);
    for (size_t i = 0; i < n; i++) lab[i] = t[i].label, dst[i] = t[i].dst;
    free(t);
    return;
  }
  for (size_t i = 1; i < n; i++) {
    int xl = lab[i], xd = dst[i];
    size_t j = i;
    for (; j > 0 && (lab[j - 1] > xl || (lab[j - 1] == xl && dst[j - 1] > xd)); j--) {
      lab[j] = lab[j - 1];
      dst[j] = dst[j - 1];
    }
    lab[j] = xl;
    dst[j] = xd;
  }
}

/* The CSR arrays come from counting sorts, linear in states, labels and
 * transitions: successors bucketed by source (the builder's records freed
 * then), each state's short run sorted and deduplicated in place;
 * predecessors bucketed by label then, stably, by target, which leaves each
 * target's run in (label, src) order. */
/* Completes l from its successor arrays (succ_off, succ_label, succ_dst,
 * ntrans; sorted by (label, dst) without duplicates): the predecessors, the
 * alphabet (alpha and every label on a transition; nlabels bounds the
 * transitions' labels) and the END states. */
static void freeze_finish(lts_t *l, int nlabels, const int *alpha, size_t nalpha, const int *ends, size_t nends) {
  int n = l->nstates, m = l->ntrans;
  if (!l->pred_off) l->pred_off = xcalloc((size_t)n + 1, sizeof(int));
  /* by label (stable), then by target (stable) */
  int *count = xcalloc((size_t)nlabels + 1, sizeof(int));
  int *order = xmalloc(((size_t)m + 1) * sizeof(int));
  for (int i = 0; i < m; i++) count[l->succ_label[i] + 1]++;
  for (int a = 0; a < nlabels; a++) count[a + 1] += count[a];
  for (int i = 0; i < m; i++) order[count[l->succ_label[i]]++] = i;
  free(count);
  memset(l->pred_off, 0, ((size_t)n + 1) * sizeof(int));
  for (int i = 0; i < m; i++) l->pred_off[l->succ_dst[i] + 1]++;
  for (int s = 0; s < n; s++) l->pred_off[s + 1] += l->pred_off[s];
  int *cursor = xmalloc(((size_t)n + 1) * sizeof(int));
  memcpy(cursor, l->pred_off, ((size_t)n + 1) * sizeof(int));
  int *src = xmalloc(((size_t)m + 1) * sizeof(int));
  for (int s = 0; s < n; s++)
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) src[i] = s;
  l->pred_label = xmalloc(((size_t)m + 1) * sizeof(int));
  l->pred_src = xmalloc(((size_t)m + 1) * sizeof(int));
  for (int k = 0; k < m; k++) {
    int i = order[k];
    int at = cursor[l->succ_dst[i]]++;
    l->pred_label[at] = l->succ_label[i];
    l->pred_src[at] = src[i];
  }
  free(src);
  free(cursor);
  free(order);
  /* the alphabet: the labels added explicitly and those on a transition */
  for (size_t i = 0; i < nalpha; i++)
    if (alpha[i] >= nlabels) nlabels = alpha[i] + 1;
  bool *in = xcalloc((size_t)nlabels + 1, sizeof *in);
  for (size_t i = 0; i < nalpha; i++) in[alpha[i]] = true;
  for (int i = 0; i < m; i++) in[l->succ_label[i]] = true;
  in[LTS_TAU] = false;
  l->alphabet = xmalloc(((size_t)nlabels + 1) * sizeof(int));
  for (int a = 0; a < nlabels; a++)
    if (in[a]) l->alphabet[l->nalphabet++] = a;
  free(in);
  if (nends > 0) {
    l->end = bitset_new((size_t)n);
    for (size_t i = 0; i < nends; i++) bitset_set(l->end, (size_t)ends[i]);
  }
}

lts_t *lts_freeze(lts_builder_t *b) {
  lts_t *l = xcalloc(1, sizeof *l);
  l->labels = b->labels;
  l->nstates = b->nstates;
  l->init = b->nstates > 0 ? b->init : 0;
  l->error = b->error;
  assert(l->nstates > 0);
  int n = l->nstates;
  size_t nt = b->ntrans;
  l->succ_off = xcalloc((size_t)n + 1, sizeof(int));
  l->pred_off = xcalloc((size_t)n + 1, sizeof(int));
  int *lab = xmalloc((nt + 1) * sizeof(int)), *dst = xmalloc((nt + 1) * sizeof(int));
  int nlabels = 1;
  for (size_t i = 0; i < nt; i++) {
    l->succ_off[b->trans[i].src + 1]++;
    if (b->trans[i].label >= nlabels) nlabels = b->trans[i].label + 1;
  }
  for (int s = 0; s < n; s++) l->succ_off[s + 1] += l->succ_off[s];
  memcpy(l->pred_off, l->succ_off, (size_t)n * sizeof(int)); /* fill cursors */
  for (size_t i = 0; i < nt; i++) {
    int at = l->pred_off[b->trans[i].src]++;
    lab[at] = b->trans[i].label;
    dst[at] = b->trans[i].dst;
  }
  free(b->trans);
  b->trans = NULL;
  b->ntrans = b->cap = 0;
  int m = 0;
  for (int s = 0; s < n; s++) {
    int begin = l->succ_off[s], end = l->succ_off[s + 1], first = m;
    sort_run(lab + begin, dst + begin, (size_t)(end - begin));
    for (int i = begin; i < end; i++)
      if (m == first || lab[i] != lab[m - 1] || dst[i] != dst[m - 1]) {
        lab[m] = lab[i];
        dst[m] = dst[i];
        m++;
      }
    l->succ_off[s] = first;
  }
  l->succ_off[n] = m;
  l->ntrans = m;
  l->succ_label = xrealloc(lab, ((size_t)m + 1) * sizeof(int));
  l->succ_dst = xrealloc(dst, ((size_t)m + 1) * sizeof(int));
  freeze_finish(l, nlabels, b->alpha, b->nalpha, b->ends, b->nends);
  lts_builder_free(b);
  return l;
}

void lts_free(lts_t *l) {
  if (!l) return;
  free(l->alphabet);
  free(l->succ_off);
  free(l->succ_label);
  free(l->succ_dst);
  free(l->pred_off);
  free(l->pred_label);
  free(l->pred_src);
  free(l->end);
  free(l);
}

static bool is_end(const lts_t *l, int s) { return l->end && bitset_get(l->end, (size_t)s); }

/* Starts a builder with l's labels and alphabet. */
static void builder_like(lts_builder_t *b, const lts_t *l) {
  lts_builder_init(b, l->labels);
  for (int i = 0; i < l->nalphabet; i++) lts_builder_alphabet_add(b, l->alphabet[i]);
}

/* A copy of l, without its τ transitions unless keep_tau. */
static lts_t *copy_filtered(const lts_t *l, bool keep_tau) {
  lts_builder_t b;
  builder_like(&b, l);
  b.nstates = l->nstates;
  b.init = l->init;
  b.error = l->error;
  for (int s = 0; s < l->nstates; s++) {
    if (is_end(l, s)) lts_builder_mark_end(&b, s);
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++)
      if (keep_tau || l->succ_label[i] != LTS_TAU) lts_builder_add(&b, s, l->succ_label[i], l->succ_dst[i]);
  }
  return lts_freeze(&b);
}

lts_t *lts_copy(const lts_t *l) { return copy_filtered(l, true); }

bool lts_has_label(const lts_t *l, int label) {
  return bsearch(&label, l->alphabet, (size_t)l->nalphabet, sizeof(int), cmp_int) != NULL;
}

int lts_step(const lts_t *l, int s, int label) {
  for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++)
    if (l->succ_label[i] == label) return l->succ_dst[i];
  return -1;
}

bool lts_is_deterministic(const lts_t *l) {
  for (int s = 0; s < l->nstates; s++)
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      if (l->succ_label[i] == LTS_TAU) return false;
      if (i > l->succ_off[s] && l->succ_label[i - 1] == l->succ_label[i]) return false;
    }
  return true;
}

/* ---------------------------------------------------------- reachability */

/* Renumbers the states of l reachable from init in BFS order; map[old]
 * receives the new id or -1. Returns the number of reachable states. */
static int bfs_numbering(const lts_t *l, int *map) {
  for (int s = 0; s < l->nstates; s++) map[s] = -1;
  int *queue = xmalloc((size_t)l->nstates * sizeof *queue);
  int head = 0, tail = 0;
  map[l->init] = 0;
  queue[tail++] = l->init;
  while (head < tail) {
    int s = queue[head++];
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      int t = l->succ_dst[i];
      if (map[t] < 0) {
        map[t] = tail;
        queue[tail++] = t;
      }
    }
  }
  free(queue);
  return tail;
}

/* The LTS with states renamed by map (-1: dropped), transitions into
 * dropped states dropped too. */
static lts_t *renumber(const lts_t *l, const int *map, int n) {
  lts_builder_t b;
  builder_like(&b, l);
  b.nstates = n;
  b.init = map[l->init];
  b.error = l->error >= 0 ? map[l->error] : -1;
  for (int s = 0; s < l->nstates; s++) {
    if (map[s] < 0) continue;
    if (is_end(l, s)) lts_builder_mark_end(&b, map[s]);
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++)
      if (map[l->succ_dst[i]] >= 0) lts_builder_add(&b, map[s], l->succ_label[i], map[l->succ_dst[i]]);
  }
  return lts_freeze(&b);
}

lts_t *lts_reachable(const lts_t *l) {
  int *map = xmalloc((size_t)l->nstates * sizeof *map);
  int n = bfs_numbering(l, map);
  lts_t *r = renumber(l, map, n);
  free(map);
  return r;
}

/* ----------------------------------------------------------- composition */

typedef struct {
  const lts_t *const *parts;
  int n;
  int *alpha; /* union alphabet, sorted */
  int nalpha;
  int *index; /* index[label] = its position in alpha or -1, for labels 0 .. alpha[nalpha-1] */
  bool *has;  /* has[a * n + p]: label alpha[a] is in part p's alphabet */
  keytab_t states;
  lts_builder_t b;
  int error; /* composite error state or -1 */
} compose_t;

static int alpha_index(const compose_t *c, int label) {
  return c->nalpha > 0 && label >= 0 && label <= c->alpha[c->nalpha - 1] ? c->index[label] : -1;
}

/* The sorted union, without repeats, of sorted a[0..na) and sorted b[0..nb)
 * (each without repeats) into out; returns its length. */
static size_t merge_unique(const int *a, size_t na, const int *b, size_t nb, int *out) {
  size_t i = 0, j = 0, k = 0;
  while (i < na && j < nb) {
    int x = a[i] <= b[j] ? a[i] : b[j];
    if (a[i] == x) i++;
    if (b[j] == x) j++;
    out[k++] = x;
  }
  while (i < na) out[k++] = a[i++];
  while (j < nb) out[k++] = b[j++];
  return k;
}

/* The first index in [i, e) of l's successor labels that is >= label (the
 * labels of one state are sorted): a binary search, so a state with d
 * outgoing labels costs O(d log d) per composite state, not O(d²). */
static int first_label_at(const lts_t *l, int i, int e, int label) {
  while (i < e) {
    int mid = i + (e - i) / 2;
    if (l->succ_label[mid] < label)
      i = mid + 1;
    else
      e = mid;
  }
  return i;
}

/* Whether `label` (not τ) can move from `tuple`: every part that has it in
 * its alphabet enables it; lo[p]..hi[p] receive those parts' transitions. */
static bool label_enabled(const compose_t *c, const int *tuple, int label, int *lo, int *hi) {
  int a = alpha_index(c, label);
  for (int p = 0; p < c->n; p++) {
    if (!c->has[a * c->n + p]) continue;
    const lts_t *l = c->parts[p];
    int e = l->succ_off[tuple[p] + 1];
    int i = first_label_at(l, l->succ_off[tuple[p]], e, label);
    lo[p] = i;
    while (i < e && l->succ_label[i] == label) i++;
    hi[p] = i;
    if (lo[p] == hi[p]) return false;
  }
  return true;
}

/* Whether `label` is of high priority under `prio` (LTSA: with `<<` the
 * listed labels are high and τ is low; with `>>` the listed labels are low
 * and every other label, τ included, is high). */
static bool is_high(const lts_priority_t *prio, int label) {
  bool listed =
      label != LTS_TAU && bsearch(&label, prio->labels, (size_t)prio->nlabels, sizeof(int), cmp_int) != NULL;
  return prio->high ? listed : !listed;
}

/* Marks in keep[] which of the enabled candidate labels survive `prio`: all
 * of them when none is high, else the high ones only. */
static void apply_priority(const compose_t *c, const lts_priority_t *prio, const int *tuple, const int *cand,
                           size_t ncand, bool *keep, int *lo, int *hi) {
  int highs = 0;
  for (size_t ci = 0; ci < ncand; ci++) {
    keep[ci] = cand[ci] == LTS_TAU || label_enabled(c, tuple, cand[ci], lo, hi);
    if (keep[ci] && is_high(prio, cand[ci])) highs++;
  }
  if (highs > 0)
    for (size_t ci = 0; ci < ncand; ci++) keep[ci] = keep[ci] && is_high(prio, cand[ci]);
}

lts_t *lts_compose(const lts_t *const *parts, int n) { return lts_compose_priority(parts, n, 0, 0, NULL); }

lts_t *lts_compose_max(const lts_t *const *parts, int n, long max_states, long max_trans) {
  return lts_compose_priority(parts, n, max_states, max_trans, NULL);
}

typedef VEC(int) intvec_t;

/* The state of a composition for the tuple tup of part states: the error
 * state (made on first use, in *error and b->error) when a part is in its
 * error state; else tup's state in `states`, made and queued on todo when
 * new (sid maps a key to its state). */
static int composite_state(const lts_t *const *parts, int n, const int *tup, lts_builder_t *b, int *error,
                           keytab_t *states, intvec_t *sid, intvec_t *todo) {
  for (int p = 0; p < n; p++)
    if (tup[p] == parts[p]->error) {
      if (*error < 0) b->error = *error = lts_builder_add_state(b);
      return *error;
    }
  bool added;
  int k = keytab_add(states, tup, (size_t)n, &added);
  if (added) {
    VEC_PUSH(sid, lts_builder_add_state(b));
    VEC_PUSH(todo, k);
  }
  return sid->data[k];
}

static lts_t *compose(const lts_t *const *parts, int n, long max_states, long max_trans,
                      const lts_priority_t *prio, bool (*stop)(void *), void *arg);

lts_t *lts_compose_priority(const lts_t *const *parts, int n, long max_states, long max_trans,
                            const lts_priority_t *prio) {
  return compose(parts, n, max_states, max_trans, prio, max_states > 0 ? stop_poll : NULL, NULL);
}

lts_t *lts_compose_bounded(const lts_t *const *parts, int n, long max_states, bool (*stop)(void *), void *arg) {
  return compose(parts, n, max_states, 0, NULL, stop, arg);
}

static lts_t *compose(const lts_t *const *parts, int n, long max_states, long max_trans,
                      const lts_priority_t *prio, bool (*stop)(void *), void *arg) {
  assert(n >= 1);
  compose_t c;
  memset(&c, 0, sizeof c);
  c.parts = parts;
  c.n = n;
  int total = 0;
  for (int p = 0; p < n; p++) total += parts[p]->nalphabet;
  c.alpha = xmalloc(((size_t)total + 1) * sizeof(int));
  for (int p = 0, k = 0; p < n; p++)
    for (int i = 0; i < parts[p]->nalphabet; i++) c.alpha[k++] = parts[p]->alphabet[i];
  c.nalpha = sort_unique(c.alpha, total);
  c.index = xmalloc(((size_t)(c.nalpha ? c.alpha[c.nalpha - 1] : 0) + 1) * sizeof *c.index);
  for (int l = 0; c.nalpha && l <= c.alpha[c.nalpha - 1]; l++) c.index[l] = -1;
  for (int a = 0; a < c.nalpha; a++) c.index[c.alpha[a]] = a;
  c.has = xcalloc((size_t)c.nalpha * (size_t)n + 1, sizeof(bool));
  for (int p = 0; p < n; p++)
    for (int i = 0; i < parts[p]->nalphabet; i++)
      c.has[alpha_index(&c, parts[p]->alphabet[i]) * n + p] = true;
  lts_builder_init(&c.b, parts[0]->labels);
  for (int a = 0; a < c.nalpha; a++) lts_builder_alphabet_add(&c.b, c.alpha[a]);
  c.error = -1;
  keytab_init(&c.states);

  /* composite ids: keytab ids map to builder states through sid[] */
  intvec_t sid = {0};
  intvec_t todo = {0};
  int *tuple = xmalloc((size_t)n * sizeof *tuple);
  int *next = xmalloc((size_t)n * sizeof *next);
  int *lo = xmalloc((size_t)n * sizeof *lo), *hi = xmalloc((size_t)n * sizeof *hi),
      *cur = xmalloc((size_t)n * sizeof *cur);
  int *cand = NULL, *merged = NULL;
  bool *keep = NULL;
  size_t cand_cap = 0;

  for (int p = 0; p < n; p++) tuple[p] = parts[p]->init;
  int init;
  init = composite_state(parts, n, tuple, &c.b, &c.error, &c.states, &sid, &todo);
  c.b.init = init;
  bool over = false;
  for (size_t qi = 0; qi < todo.len && !over; qi++) {
    if ((max_states > 0 && c.b.nstates > max_states) || (max_trans > 0 && (long)c.b.ntrans > max_trans) ||
        (stop && (qi & 1023) == 0 && stop(arg))) {
      over = true;
      break;
    }
    int key = todo.data[qi];
    size_t klen;
    memcpy(tuple, keytab_key(&c.states, key, &klen), (size_t)n * sizeof *tuple);
    int src = sid.data[key];
    if (parts[0]->end) {
      bool all_end = true;
      for (int p = 0; p < n; p++)
        if (!is_end(parts[p], tuple[p])) all_end = false;
      if (all_end) lts_builder_mark_end(&c.b, src);
    }
    /* candidate labels: every label leaving some part (each part's are
     * sorted: merged part by part) */
    size_t ncand = 0;
    for (int p = 0; p < n; p++) {
      const lts_t *l = parts[p];
      int from = l->succ_off[tuple[p]], to = l->succ_off[tuple[p] + 1];
      size_t need = ncand + (size_t)(to - from);
      if (need > cand_cap) {
        cand_cap = 2 * need;
        cand = xrealloc(cand, cand_cap * sizeof *cand);
        merged = xrealloc(merged, cand_cap * sizeof *merged);
        keep = xrealloc(keep, cand_cap * sizeof *keep);
      }
      size_t m = 0; /* this part's labels without repeats (nondeterminism) */
      for (int i = from; i < to; i++)
        if (m == 0 || merged[m - 1] != l->succ_label[i]) merged[m++] = l->succ_label[i];
      if (ncand + m == 0) continue; /* the buffers may still be NULL */
      if (ncand > 0) memcpy(merged + m, cand, ncand * sizeof *cand);
      ncand = merge_unique(merged + m, ncand, merged, m, cand);
    }
    if (prio) apply_priority(&c, prio, tuple, cand, ncand, keep, lo, hi);
    for (size_t ci = 0; ci < ncand; ci++) {
      int label = cand[ci];
      if (prio && !keep[ci]) continue;
      if (label == LTS_TAU) {
        for (int p = 0; p < n; p++) {
          const lts_t *l = parts[p];
          for (int i = l->succ_off[tuple[p]]; i < l->succ_off[tuple[p] + 1] && l->succ_label[i] == LTS_TAU;
               i++) {
            memcpy(next, tuple, (size_t)n * sizeof *next);
            next[p] = l->succ_dst[i];
            int dst;
            dst = composite_state(parts, n, next, &c.b, &c.error, &c.states, &sid, &todo);
            lts_builder_add(&c.b, src, LTS_TAU, dst);
          }
        }
        continue;
      }
      int a = alpha_index(&c, label);
      if (!label_enabled(&c, tuple, label, lo, hi)) continue;
      /* odometer over the choices of the participating parts */
      for (int p = 0; p < n; p++) cur[p] = c.has[a * n + p] ? lo[p] : -1;
      for (;;) {
        for (int p = 0; p < n; p++) next[p] = cur[p] < 0 ? tuple[p] : parts[p]->succ_dst[cur[p]];
        int dst;
        dst = composite_state(parts, n, next, &c.b, &c.error, &c.states, &sid, &todo);
        lts_builder_add(&c.b, src, label, dst);
        int p = n - 1;
        for (; p >= 0; p--) {
          if (cur[p] < 0) continue;
          if (++cur[p] < hi[p]) break;
          cur[p] = lo[p];
        }
        if (p < 0) break;
      }
    }
  }
  if ((max_states > 0 && c.b.nstates > max_states) || (max_trans > 0 && (long)c.b.ntrans > max_trans))
    over = true;
  lts_t *r = over ? NULL : lts_freeze(&c.b);
  lts_builder_free(&c.b);
  free(cand);
  free(merged);
  free(keep);
  free(tuple);
  free(next);
  free(lo);
  free(hi);
  free(cur);
  VEC_FREE(&sid);
  VEC_FREE(&todo);
  keytab_free(&c.states);
  free(c.alpha);
  free(c.index);
  free(c.has);
  return r;
}

/* lts_compose_bounded of deterministic parts (lts_is_deterministic each),
 * the same LTS state for state and move for move: breadth first from the
 * initial tuple, each tuple's labels ascending, a label moving when every
 * part with it in its alphabet moves on it; a tuple with a part in its
 * error state is the one error state. The labels of a tuple come from
 * one merge of the parts' sorted moves (at most one per label) instead of
 * a binary search per part and label. NULL when stop(arg) (may be NULL)
 * returns true, polled every 1024 states. */
lts_t *lts_compose_deterministic(const lts_t *const *parts, int n, bool (*stop)(void *), void *arg) {
  assert(n >= 1);
  int total = 0;
  for (int p = 0; p < n; p++) total += parts[p]->nalphabet;
  int *alpha = xmalloc(((size_t)total + 1) * sizeof *alpha);
  for (int p = 0, k = 0; p < n; p++)
    for (int i = 0; i < parts[p]->nalphabet; i++) alpha[k++] = parts[p]->alphabet[i];
  int nalpha = sort_unique(alpha, total), top = nalpha ? alpha[nalpha - 1] : 0;
  bool *has = xcalloc(((size_t)top + 1) * (size_t)n + 1, sizeof *has); /* has[label * n + p] */
  for (int p = 0; p < n; p++)
    for (int i = 0; i < parts[p]->nalphabet; i++) has[(size_t)parts[p]->alphabet[i] * (size_t)n + (size_t)p] = true;
  lts_builder_t b;
  lts_builder_init(&b, parts[0]->labels);
  for (int a = 0; a < nalpha; a++) lts_builder_alphabet_add(&b, alpha[a]);
  keytab_t states;
  keytab_init(&states);
  intvec_t sid = {0};
  intvec_t todo = {0};
  int error = -1;
  int *tuple = xmalloc((size_t)n * sizeof *tuple), *next = xmalloc((size_t)n * sizeof *next),
      *at = xmalloc((size_t)n * sizeof *at), *end = xmalloc((size_t)n * sizeof *end);
  for (int p = 0; p < n; p++) tuple[p] = parts[p]->init;
  int init;
  init = composite_state(parts, n, tuple, &b, &error, &states, &sid, &todo);
  b.init = init;
  bool over = false;
  for (size_t qi = 0; qi < todo.len; qi++) {
    if (stop && (qi & 1023) == 0 && stop(arg)) {
      over = true;
      break;
    }
    int key = todo.data[qi];
    size_t klen;
    memcpy(tuple, keytab_key(&states, key, &klen), (size_t)n * sizeof *tuple);
    int src = sid.data[key];
    if (parts[0]->end) {
      bool all_end = true;
      for (int p = 0; p < n; p++)
        if (!is_end(parts[p], tuple[p])) all_end = false;
      if (all_end) lts_builder_mark_end(&b, src);
    }
    for (int p = 0; p < n; p++) at[p] = parts[p]->succ_off[tuple[p]], end[p] = parts[p]->succ_off[tuple[p] + 1];
    for (;;) {
      int label = -1; /* the least label a part can still move on */
      for (int p = 0; p < n; p++)
        if (at[p] < end[p] && (label < 0 || parts[p]->succ_label[at[p]] < label)) label = parts[p]->succ_label[at[p]];
      if (label < 0) break;
      bool enabled = true;
      for (int p = 0; p < n; p++) {
        bool moves = at[p] < end[p] && parts[p]->succ_label[at[p]] == label;
        if (label <= top && has[(size_t)label * (size_t)n + (size_t)p])
          enabled = enabled && moves, next[p] = moves ? parts[p]->succ_dst[at[p]] : tuple[p];
        else
          next[p] = tuple[p];
        if (moves) at[p]++;
      }
      if (!enabled) continue;
      int dst;
      dst = composite_state(parts, n, next, &b, &error, &states, &sid, &todo);
      lts_builder_add(&b, src, label, dst);
    }
  }
  lts_t *r = over ? NULL : lts_freeze(&b);
  lts_builder_free(&b);
  free(tuple);
  free(next);
  free(at);
  free(end);
  VEC_FREE(&sid);
  VEC_FREE(&todo);
  keytab_free(&states);
  free(alpha);
  free(has);
  return r;
}

/* ------------------------------------ determinising a composition lazily */

/* The product's moves, computed from the parts when asked (nothing of the
 * composition is stored): tuples are n part states; a tuple with a part in
 * its error state is the composite error state (TUPLE_ERROR below). */
typedef struct {
  const lts_t *const *parts;
  int n;
  int nlabels;
  bool *has;    /* has[label * n + p]: label in part p's alphabet */
  bool *hidden; /* hidden[label]: not kept, so τ after restriction (τ itself too) */
  bool *known;  /* known[label]: in some part's alphabet */
  int *owner;   /* owner[label]: the first part with label in its alphabet */
  int *lo, *hi, *cur;
} lazy_product_t;

/* Calls emit(arg, label, dst) for every move of `tuple` whose label after
 * restriction is τ (want_tau) or visible (otherwise); dst is NULL for the
 * error state. The label passed is the restricted one. */
typedef void (*lazy_emit_t)(void *arg, int label, const int *dst);

/* The moves of `tuple` on `label` (not τ), if every part that has it
 * enables it: one per choice of the parts' transitions. */
static void move_label(lazy_product_t *z, const int *tuple, int label, int *next, lazy_emit_t emit, void *arg) {
  int n = z->n;
    bool enabled = true;
    for (int p = 0; p < n && enabled; p++) {
      if (!z->has[label * n + p]) continue;
      const lts_t *l = z->parts[p];
      int e = l->succ_off[tuple[p] + 1];
      int i = first_label_at(l, l->succ_off[tuple[p]], e, label);
      z->lo[p] = i;
      while (i < e && l->succ_label[i] == label) i++;
      z->hi[p] = i;
      enabled = z->lo[p] < z->hi[p];
    }
    if (!enabled) return;
    int out = z->hidden[label] ? LTS_TAU : label;
    for (int p = 0; p < n; p++) z->cur[p] = z->has[label * n + p] ? z->lo[p] : -1;
    for (;;) {
      bool err = false;
      for (int p = 0; p < n; p++) {
        next[p] = z->cur[p] < 0 ? tuple[p] : z->parts[p]->succ_dst[z->cur[p]];
        err = err || next[p] == z->parts[p]->error;
      }
      emit(arg, out, err ? NULL : next);
      int p = n - 1;
      for (; p >= 0; p--) {
        if (z->cur[p] < 0) continue;
        if (++z->cur[p] < z->hi[p]) break;
        z->cur[p] = z->lo[p];
      }
      if (p < 0) break;
    }
}

static void lazy_moves(lazy_product_t *z, const int *tuple, bool want_tau, int *next, lazy_emit_t emit,
                       void *arg) {
  int n = z->n;
  for (int p = 0; p < n; p++) {
    const lts_t *l = z->parts[p];
    int i = l->succ_off[tuple[p]], e = l->succ_off[tuple[p] + 1];
    if (want_tau) /* τ moves one part alone */
      for (; i < e && l->succ_label[i] == LTS_TAU; i++) {
        memcpy(next, tuple, (size_t)n * sizeof *next);
        next[p] = l->succ_dst[i];
        bool err = false;
        for (int q = 0; q < n; q++) err = err || next[q] == z->parts[q]->error;
        emit(arg, LTS_TAU, err ? NULL : next);
      }
    /* every other label once, from the first part that has it */
    while (i < e) {
      int label = l->succ_label[i];
      while (i < e && l->succ_label[i] == label) i++;
      if (label == LTS_TAU || z->owner[label] != p || z->hidden[label] != want_tau) continue;
      move_label(z, tuple, label, next, emit, arg);
    }
  }
}


/* Tuple ids by tuple: a chained hash table over the whole tuple (keytab's
 * hash), head[] a power of two with at most two tuples per chain on
 * average, next[id] the tuple before id in its chain. Chaining by the state
 * of the largest part instead (head per state, no hash) walked 8.1 tuples
 * per lookup on pump-5 (245 M compares for 30 M lookups): a few states of
 * M meet most of the property's states. A general keytab costs three
 * cache misses per probe and 12 bytes per slot. */
typedef struct {
  int n;
  intvec_t keys; /* tuple id -> its n states */
  intvec_t next; /* tuple id -> the previous tuple in its chain, -1 at the end */
  int *head;     /* per hash bucket */
  size_t mask;   /* buckets - 1 */
  int count;
} tuple_index_t;

static void tuple_index_init(tuple_index_t *x, int n) {
  memset(x, 0, sizeof *x);
  x->n = n;
  x->mask = 1023;
  x->head = xmalloc((x->mask + 1) * sizeof *x->head);
  memset(x->head, -1, (x->mask + 1) * sizeof *x->head);
}

static void tuple_index_free(tuple_index_t *x) {
  free(x->head);
  VEC_FREE(&x->keys);
  VEC_FREE(&x->next);
}

static const int *tuple_index_key(const tuple_index_t *x, int id) { return x->keys.data + (size_t)id * (size_t)x->n; }

static bool same_tuple(const int *a, const int *b, int n) {
  for (int p = 0; p < n; p++)
    if (a[p] != b[p]) return false;
  return true;
}

/* The id of tuple t, numbered in order of first sight (*added: new). */
static int tuple_index_add(tuple_index_t *x, const int *t, bool *added) {
  int n = x->n;
  size_t b = (size_t)keytab_hash(t, (size_t)n) & x->mask;
  for (int id = x->head[b]; id >= 0; id = x->next.data[id])
    if (same_tuple(x->keys.data + (size_t)id * (size_t)n, t, n)) {
      *added = false;
      return id;
    }
  *added = true;
  VEC_PUSH(&x->next, x->head[b]);
  x->head[b] = x->count;
  for (int p = 0; p < n; p++) VEC_PUSH(&x->keys, t[p]);
  int id = x->count++;
  if ((size_t)x->count > 2 * (x->mask + 1)) { /* twice the buckets: rechain every tuple */
    x->mask = 2 * x->mask + 1;
    free(x->head);
    x->head = xmalloc((x->mask + 1) * sizeof *x->head);
    memset(x->head, -1, (x->mask + 1) * sizeof *x->head);
    for (int k = 0; k < x->count; k++) {
      size_t h = (size_t)keytab_hash(tuple_index_key(x, k), (size_t)n) & x->mask;
      x->next.data[k] = x->head[h];
      x->head[h] = k;
    }
  }
  return id;
}

/* The composite tuples met so far, numbered in order of discovery, each
 * with its moves after restriction, computed once when first needed:
 * moves[at .. at+cnt) its τ-successors, then its visible successors (-1
 * stands for the error state), whose labels are at the same positions of a
 * parallel array: one byte each, the label's index in `keep` (TAU8 for τ),
 * when fewer than 255 labels are kept (pump-5: 31 M moves, 49 labels), else
 * the label itself (4 bytes); and a mark bit for the set under
 * construction. Where the τ-successors end is read from the labels (a
 * count per tuple was 12 MB on pump-5). */
#define TAU8 255
typedef struct {
  lazy_product_t *z;
  tuple_index_t tuples;
  intvec_t at, cnt; /* per tuple; at is -1 until computed */
  intvec_t moves;
  VEC(unsigned char) lab8; /* labels as keep indices (narrow) */
  intvec_t lab32;          /* labels (wide) */
  bool wide;
  const int *keep;
  int *kidx;              /* kidx[label]: its index in keep (narrow) */
  VEC(bitword_t) mark;    /* per tuple: in the set under construction */
  intvec_t found;         /* the emitted successors of one expansion (ids, -1: error) */
  intvec_t pend, pid;     /* their tuples, queued; then their ids */
  int *tuple, *next;
} tuple_cache_t;

static int cache_id(tuple_cache_t *c, const int *t) {
  bool added;
  int id = tuple_index_add(&c->tuples, t, &added);
  if (added) {
    VEC_PUSH(&c->at, -1);
    VEC_PUSH(&c->cnt, 0);
    if ((size_t)id / 64 >= c->mark.len) VEC_PUSH(&c->mark, 0);
  }
  return id;
}

static bool cache_marked(const tuple_cache_t *c, int id) { return bitset_get(c->mark.data, (size_t)id); }
static void cache_mark(tuple_cache_t *c, int id) { bitset_set(c->mark.data, (size_t)id); }
static void cache_unmark_all(tuple_cache_t *c, const intvec_t *set) {
  for (size_t k = 0; k < set->len; k++) bitset_clear_bit(c->mark.data, (size_t)set->data[k]);
}

static void cache_push_label(tuple_cache_t *c, int label) {
  if (c->wide)
    VEC_PUSH(&c->lab32, label);
  else
    VEC_PUSH(&c->lab8, (unsigned char)(label == LTS_TAU ? TAU8 : c->kidx[label]));
}

static bool cache_is_tau(const tuple_cache_t *c, size_t i) {
  return c->wide ? c->lab32.data[i] == LTS_TAU : c->lab8.data[i] == TAU8;
}

static int cache_label(const tuple_cache_t *c, size_t i) { return c->wide ? c->lab32.data[i] : c->keep[c->lab8.data[i]]; }

/* The successors of one expansion are looked up together (tuple_index_
 * lookups are independent cache misses, ~3 per lookup in a table of
 * millions of tuples): found_emit/visible_emit queue each successor tuple
 * in `pend`, and pend_resolve prefetches every bucket, then every chain's
 * first tuple, then looks them up in queue order, so ids are given in the
 * order the successors were emitted, as one lookup at a time would. */
static int pend_push(tuple_cache_t *c, const int *dst) {
  if (!dst) return -1;
  int n = c->z->n;
  for (int p = 0; p < n; p++) VEC_PUSH(&c->pend, dst[p]);
  return (int)(c->pend.len / (size_t)n) - 1;
}

static void pend_resolve(tuple_cache_t *c) {
  tuple_index_t *x = &c->tuples;
  size_t n = (size_t)c->z->n, np = c->pend.len / n;
  VEC_RESERVE(&c->pid, np + 1);
  for (size_t k = 0; k < np; k++) { /* buckets, kept in pid meanwhile */
    size_t b = (size_t)keytab_hash(c->pend.data + k * n, n) & x->mask;
    c->pid.data[k] = (int)b;
    __builtin_prefetch(&x->head[b]);
  }
  for (size_t k = 0; k < np; k++) {
    int id = x->head[c->pid.data[k]];
    if (id >= 0) {
      __builtin_prefetch(x->keys.data + (size_t)id * n);
      __builtin_prefetch(x->next.data + id);
    }
  }
  for (size_t k = 0; k < np; k++) c->pid.data[k] = cache_id(c, c->pend.data + k * n);
  VEC_CLEAR(&c->pend);
}

static void found_emit(void *arg, int label, const int *dst) {
  (void)label;
  tuple_cache_t *c = arg;
  VEC_PUSH(&c->found, pend_push(c, dst));
}

static void visible_emit(void *arg, int label, const int *dst) {
  tuple_cache_t *c = arg;
  VEC_PUSH(&c->found, label);
  VEC_PUSH(&c->found, pend_push(c, dst));
}

/* The moves of tuple `id`, computed from the parts on first use. */
static void cache_expand(tuple_cache_t *c, int id) {
  if (c->at.data[id] >= 0) return;
  memcpy(c->tuple, tuple_index_key(&c->tuples, id), (size_t)c->z->n * sizeof(int));
  VEC_CLEAR(&c->found);
  lazy_moves(c->z, c->tuple, true, c->next, found_emit, c);
  size_t nt = c->found.len;
  lazy_moves(c->z, c->tuple, false, c->next, visible_emit, c);
  pend_resolve(c);
  for (size_t k = 0; k < nt; k++)
    if (c->found.data[k] >= 0) c->found.data[k] = c->pid.data[c->found.data[k]];
  for (size_t k = nt + 1; k < c->found.len; k += 2)
    if (c->found.data[k] >= 0) c->found.data[k] = c->pid.data[c->found.data[k]];
  /* two hidden labels may lead to the same tuple (pump-5: 1 M of 9.2 M) */
  size_t ntau = (size_t)sort_unique(c->found.data, (int)nt);
  c->at.data[id] = (int)c->moves.len;
  c->cnt.data[id] = (int)(ntau + (c->found.len - nt) / 2);
  for (size_t k = 0; k < ntau; k++) {
    VEC_PUSH(&c->moves, c->found.data[k]);
    cache_push_label(c, LTS_TAU);
  }
  for (size_t k = nt; k < c->found.len; k += 2) {
    VEC_PUSH(&c->moves, c->found.data[k + 1]);
    cache_push_label(c, c->found.data[k]);
  }
}

/* Closes `set` (tuple ids, all marked) under τ, marking what it adds;
 * false when the error state is reached. */
static bool cache_close(tuple_cache_t *c, intvec_t *set) {
  for (size_t k = 0; k < set->len; k++) {
    int u = set->data[k];
    cache_expand(c, u);
    size_t x = (size_t)c->at.data[u], e = x + (size_t)c->cnt.data[u];
    for (; x < e && cache_is_tau(c, x); x++) {
      int v = c->moves.data[x];
      if (v < 0) return false;
      if (!cache_marked(c, v)) {
        cache_mark(c, v);
        VEC_PUSH(set, v);
      }
    }
  }
  return true;
}

static bool tuple_is_end(const lazy_product_t *z, const int *t) {
  if (!z->parts[0]->end) return false;
  for (int p = 0; p < z->n; p++)
    if (!is_end(z->parts[p], t[p])) return false;
  return true;
}

lts_t *lts_determinise_composed(const lts_t *const *parts, int n, const int *keep, int nkeep, bool (*stop)(void *),
                                void *arg) {
  assert(n >= 1);
  lazy_product_t z;
  memset(&z, 0, sizeof z);
  z.parts = parts;
  z.n = n;
  z.nlabels = 1;
  for (int p = 0; p < n; p++) {
    for (int i = 0; i < parts[p]->nalphabet; i++)
      if (parts[p]->alphabet[i] >= z.nlabels) z.nlabels = parts[p]->alphabet[i] + 1;
    for (int i = 0; i < parts[p]->ntrans; i++)
      if (parts[p]->succ_label[i] >= z.nlabels) z.nlabels = parts[p]->succ_label[i] + 1;
  }
  z.has = xcalloc((size_t)z.nlabels * (size_t)n + 1, sizeof *z.has);
  z.hidden = xmalloc(((size_t)z.nlabels + 1) * sizeof *z.hidden);
  z.known = xcalloc((size_t)z.nlabels + 1, sizeof *z.known);
  for (int a = 0; a < z.nlabels; a++)
    z.hidden[a] = a == LTS_TAU || bsearch(&a, keep, (size_t)nkeep, sizeof(int), cmp_int) == NULL;
  z.owner = xmalloc(((size_t)z.nlabels + 1) * sizeof *z.owner);
  for (int a = 0; a < z.nlabels; a++) z.owner[a] = -1;
  for (int p = n - 1; p >= 0; p--)
    for (int i = 0; i < parts[p]->nalphabet; i++) {
      z.has[parts[p]->alphabet[i] * n + p] = true;
      z.known[parts[p]->alphabet[i]] = true;
      z.owner[parts[p]->alphabet[i]] = p;
    }
  z.lo = xmalloc((size_t)n * sizeof(int));
  z.hi = xmalloc((size_t)n * sizeof(int));
  z.cur = xmalloc((size_t)n * sizeof(int));
  tuple_cache_t c;
  memset(&c, 0, sizeof c);
  c.z = &z;
  tuple_index_init(&c.tuples, n);
  c.keep = keep;
  c.wide = nkeep >= TAU8;
  c.kidx = xmalloc(((size_t)z.nlabels + 1) * sizeof *c.kidx);
  for (int a = 0; a <= z.nlabels; a++) c.kidx[a] = -1;
  for (int i = 0; i < nkeep; i++)
    if (keep[i] >= 0 && keep[i] < z.nlabels) c.kidx[keep[i]] = i;
  c.tuple = xmalloc((size_t)n * sizeof(int));
  c.next = xmalloc((size_t)n * sizeof(int));

  /* the result's alphabet: the composition's, restricted to `keep` */
  intvec_t walpha = {0};
  for (int a = 0; a < z.nlabels; a++)
    if (z.known[a] && !z.hidden[a]) VEC_PUSH(&walpha, a);
  /* the result written as it comes, in successor-array form: its states
   * are numbered in order of discovery and expanded in that order (the
   * error state, never expanded, in between), each one's moves in label
   * order, one per label: sorted and without duplicates already, so no
   * builder records (12 bytes per transition) and no sort */
  int wn = 0;
  intvec_t woff = {0}, wlab = {0}, wdst = {0}, wend = {0};
  VEC(unsigned char) wlab8 = {0}; /* W's labels as keep indices while the cache lives (narrow) */
  intvec_t set = {0}, sid = {0}, moves = {0}, order = {0}, present = {0};
  int *lpos = xmalloc(((size_t)z.nlabels + 1) * sizeof *lpos); /* per label: -1, a count, then a position */
  for (int a = 0; a <= z.nlabels; a++) lpos[a] = -1;
  keytab_t sets;
  keytab_init(&sets);
  int error = -1;
  bool added;

  for (int p = 0; p < n; p++) c.tuple[p] = parts[p]->init;
  bool init_error = false;
  for (int p = 0; p < n; p++) init_error = init_error || c.tuple[p] == parts[p]->error;
  bool closed = false;
  if (!init_error) {
    int t0 = cache_id(&c, c.tuple);
    cache_mark(&c, t0);
    VEC_PUSH(&set, t0);
    closed = cache_close(&c, &set);
    cache_unmark_all(&c, &set);
  }
  if (!closed) {
    error = wn++; /* the initial state */
  } else {
    sort_unique(set.data, (int)set.len);
    keytab_add(&sets, set.data, set.len, &added);
    VEC_PUSH(&sid, wn++);
  }
#define W_PUSH_LABEL(l)                                                                                            \
  do {                                                                                                             \
    if (c.wide)                                                                                                    \
      VEC_PUSH(&wlab, (l));                                                                                        \
    else                                                                                                           \
      VEC_PUSH(&wlab8, (unsigned char)c.kidx[l]);                                                                  \
  } while (0)
  bool stopped = false;
  for (size_t qi = 0; qi < sets.count; qi++) {
    if (stop && (qi & 255) == 0 && stop(arg)) {
      stopped = true;
      break;
    }
    int src = sid.data[qi];
    while ((int)woff.len <= src) VEC_PUSH(&woff, (int)wdst.len);
    bool all_end = true;
    VEC_CLEAR(&moves); /* label, dst id pairs */
    size_t m;
    keytab_key(&sets, (int)qi, &m);
    for (size_t j = 0; j < m; j++) {
      size_t len;
      int u = keytab_key(&sets, (int)qi, &len)[j];
      if (all_end && !tuple_is_end(&z, tuple_index_key(&c.tuples, u))) all_end = false;
      cache_expand(&c, u); /* done by the closure already */
      size_t x = (size_t)c.at.data[u], e = x + (size_t)c.cnt.data[u];
      while (x < e && cache_is_tau(&c, x)) x++;
      for (; x < e; x++) {
        VEC_PUSH(&moves, cache_label(&c, x));
        VEC_PUSH(&moves, c.moves.data[x]);
      }
    }
    if (all_end && m > 0) VEC_PUSH(&wend, src);
    /* the moves grouped by label, in label order, each label's in their
     * order (a counting sort over the labels present: an insertion sort of
     * the moves took a tenth of pump-5's time) */
    size_t nm = moves.len / 2;
    VEC_RESERVE(&order, nm + 1);
    VEC_CLEAR(&present);
    for (size_t k = 0; k < nm; k++) {
      int l = moves.data[2 * k];
      if (lpos[l] < 0) {
        lpos[l] = 0;
        VEC_PUSH(&present, l);
      }
      lpos[l]++;
    }
    for (size_t k = 1; k < present.len; k++) { /* insertion: the labels present are few */
      int x = present.data[k];
      size_t j = k;
      for (; j > 0 && present.data[j - 1] > x; j--) present.data[j] = present.data[j - 1];
      present.data[j] = x;
    }
    for (size_t k = 0, start = 0; k < present.len; k++) {
      int count = lpos[present.data[k]];
      lpos[present.data[k]] = (int)start;
      start += (size_t)count;
    }
    for (size_t k = 0; k < nm; k++) order.data[lpos[moves.data[2 * k]]++] = (int)k;
    for (size_t k = 0; k < present.len; k++) lpos[present.data[k]] = -1;
    for (size_t g = 0; g < nm;) {
      int label = moves.data[2 * order.data[g]];
      VEC_CLEAR(&set);
      bool to_error = false;
      for (; g < nm && moves.data[2 * order.data[g]] == label; g++) {
        int v = moves.data[2 * order.data[g] + 1];
        if (v < 0)
          to_error = true;
        else if (!cache_marked(&c, v)) {
          cache_mark(&c, v);
          VEC_PUSH(&set, v);
        }
      }
      if (!to_error) to_error = !cache_close(&c, &set);
      cache_unmark_all(&c, &set);
      if (to_error) {
        if (error < 0) error = wn++;
        W_PUSH_LABEL(label);
        VEC_PUSH(&wdst, error);
        continue;
      }
      sort_unique(set.data, (int)set.len);
      int id = keytab_add(&sets, set.data, set.len, &added);
      if (added) VEC_PUSH(&sid, wn++);
      W_PUSH_LABEL(label);
      VEC_PUSH(&wdst, sid.data[id]);
    }
  }
#undef W_PUSH_LABEL
  /* everything of the subset construction is freed before W is frozen */
  keytab_free(&sets);
  tuple_index_free(&c.tuples);
  VEC_FREE(&c.at);
  VEC_FREE(&c.cnt);
  VEC_FREE(&c.moves);
  VEC_FREE(&c.lab8);
  VEC_FREE(&c.lab32);
  free(c.kidx);
  VEC_FREE(&c.mark);
  VEC_FREE(&c.found);
  VEC_FREE(&c.pend);
  VEC_FREE(&c.pid);
  free(c.tuple);
  free(c.next);
  VEC_FREE(&set);
  VEC_FREE(&sid);
  VEC_FREE(&moves);
  VEC_FREE(&order);
  VEC_FREE(&present);
  free(lpos);
  free(z.has);
  free(z.hidden);
  free(z.known);
  free(z.owner);
  free(z.lo);
  free(z.hi);
  free(z.cur);
  lts_t *r = NULL;
  if (!stopped) {
    while ((int)woff.len <= wn) VEC_PUSH(&woff, (int)wdst.len);
    if (!c.wide) { /* the labels widened now that the cache is freed */
      VEC_RESERVE(&wlab, wlab8.len + 1);
      for (size_t k = 0; k < wlab8.len; k++) wlab.data[k] = keep[wlab8.data[k]];
      wlab.len = wlab8.len;
      VEC_FREE(&wlab8);
    }
    r = xcalloc(1, sizeof *r);
    r->labels = parts[0]->labels;
    r->nstates = wn;
    r->init = 0;
    r->error = error;
    r->ntrans = (int)wlab.len;
    r->succ_off = xrealloc(woff.data, ((size_t)wn + 1) * sizeof(int));
    r->succ_label = xrealloc(wlab.data, (wlab.len + 1) * sizeof(int));
    r->succ_dst = xrealloc(wdst.data, (wdst.len + 1) * sizeof(int));
    woff.data = wlab.data = wdst.data = NULL;
    freeze_finish(r, z.nlabels, walpha.data, walpha.len, wend.data, wend.len);
  }
  VEC_FREE(&woff);
  VEC_FREE(&wlab);
  VEC_FREE(&wlab8);
  VEC_FREE(&wdst);
  VEC_FREE(&wend);
  VEC_FREE(&walpha);
  return r;
}

/* ------------------------------------------------------ hiding, closure */

static lts_t *hide_where(const lts_t *l, const int *set, int nset, bool hide_members) {
  lts_builder_t b;
  lts_builder_init(&b, l->labels);
  b.nstates = l->nstates;
  b.init = l->init;
  b.error = l->error;
  for (int i = 0; i < l->nalphabet; i++) {
    bool member = bsearch(&l->alphabet[i], set, (size_t)nset, sizeof(int), cmp_int) != NULL;
    if (member != hide_members) lts_builder_alphabet_add(&b, l->alphabet[i]);
  }
  for (int s = 0; s < l->nstates; s++) {
    if (is_end(l, s)) lts_builder_mark_end(&b, s);
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      int label = l->succ_label[i];
      bool member = bsearch(&label, set, (size_t)nset, sizeof(int), cmp_int) != NULL;
      if (label != LTS_TAU && member == hide_members) label = LTS_TAU;
      lts_builder_add(&b, s, label, l->succ_dst[i]);
    }
  }
  return lts_freeze(&b);
}

lts_t *lts_hide(const lts_t *l, const int *hide, int nhide) { return hide_where(l, hide, nhide, true); }
lts_t *lts_restrict(const lts_t *l, const int *keep, int nkeep) { return hide_where(l, keep, nkeep, false); }

void lts_tau_closure(const lts_t *l, int s, bitword_t *out) {
  bitset_zero(out, (size_t)l->nstates);
  int *stack = xmalloc((size_t)l->nstates * sizeof *stack);
  int top = 0;
  bitset_set(out, (size_t)s);
  stack[top++] = s;
  while (top > 0) {
    int u = stack[--top];
    for (int i = l->succ_off[u]; i < l->succ_off[u + 1] && l->succ_label[i] == LTS_TAU; i++) {
      int v = l->succ_dst[i];
      if (!bitset_get(out, (size_t)v)) {
        bitset_set(out, (size_t)v);
        stack[top++] = v;
      }
    }
  }
  free(stack);
}

/* The τ-closures, one per strongly connected component of the τ-edges
 * (every state of a component has the same closure): group[s] is s's
 * component, its closure the sorted states list[off[g] .. off[g+1]).
 * Shared per component, a hidden cycle through n states costs n, not n². */
typedef struct {
  int *group, *off, *list;
} closures_t;

static int clo_begin(const closures_t *c, int s) { return c->off[c->group[s]]; }
static int clo_end(const closures_t *c, int s) { return c->off[c->group[s] + 1]; }

static int cmp_state(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Numbers the components of the τ-edges in group[] (scc_tarjan: in the
 * order they are completed); rep[g] receives a member of component g.
 * Returns the number of components. */
static int tau_components(const lts_t *l, int *group, int *rep) {
  uint8_t *tau = xcalloc(l->labels->names.count + 1, 1);
  tau[LTS_TAU] = 1;
  scc_graph_t g = {l->nstates, l->succ_off, l->succ_dst, l->succ_label, tau, true}; /* τ-edges come first */
  int ngroups = scc_tarjan(&g, -1, group, rep);
  free(tau);
  return ngroups;
}

/* Linear in the size of the closures: each component's is walked from one
 * of its states, its members marked in a bitset that only they are cleared
 * from (clearing and scanning the whole set per state made it quadratic in
 * the number of states). A closure is sorted by qsort when small, by a scan
 * of the bitset when it is a large part of the states. The closures of a
 * τ-DAG can still be quadratic in its size (and the walks in its
 * transitions), so stop(arg) (may be NULL) is polled every 2^16 τ-edges
 * walked: when it returns true, nothing is kept and the result is false. */
static bool closures_compute(const lts_t *l, closures_t *c, bool (*stop)(void *), void *arg) {
  size_t words = BITSET_WORDS((size_t)l->nstates);
  bitword_t *bits = bitset_new((size_t)l->nstates);
  VEC(int) list = {0};
  c->group = xmalloc(((size_t)l->nstates + 1) * sizeof(int));
  int *rep = xmalloc(((size_t)l->nstates + 1) * sizeof(int));
  int ngroups = tau_components(l, c->group, rep);
  c->off = xmalloc(((size_t)ngroups + 1) * sizeof(int));
  size_t walked = 0;
  for (int g = 0; g < ngroups; g++) {
    if (stop && walked >= ((size_t)1 << 16)) {
      walked = 0;
      if (stop(arg)) {
        VEC_FREE(&list);
        free(rep), free(bits), free(c->group), free(c->off);
        *c = (closures_t){0};
        return false;
      }
    }
    int s = rep[g];
    size_t first = list.len;
    c->off[g] = (int)first;
    bitset_set(bits, (size_t)s);
    VEC_PUSH(&list, s);
    for (size_t h = first; h < list.len; h++) { /* the list is the DFS stack */
      int u = list.data[h];
      walked++;
      for (int i = l->succ_off[u]; i < l->succ_off[u + 1] && l->succ_label[i] == LTS_TAU; i++, walked++)
        if (!bitset_get(bits, (size_t)l->succ_dst[i])) {
          bitset_set(bits, (size_t)l->succ_dst[i]);
          VEC_PUSH(&list, l->succ_dst[i]);
        }
    }
    size_t k = list.len - first;
    if (k * 16 > words) {
      size_t pos = first;
      for (size_t w = 0; w < words; w++) {
        for (bitword_t x = bits[w]; x; x &= x - 1)
          list.data[pos++] = (int)(w * 64 + (size_t)__builtin_ctzll(x));
        bits[w] = 0;
      }
    } else {
      if (k > 1) qsort(list.data + first, k, sizeof(int), cmp_state);
      for (size_t h = first; h < list.len; h++) bitset_clear_bit(bits, (size_t)list.data[h]);
    }
  }
  c->off[ngroups] = (int)list.len;
  VEC_PUSH(&list, 0);
  c->list = list.data;
  free(rep);
  free(bits);
  return true;
}

static void closures_free(closures_t *c) {
  free(c->group);
  free(c->off);
  free(c->list);
}

/* -------------------------------------------------- subset construction */

lts_t *lts_determinise(const lts_t *l, bool error_absorbing) {
  return lts_determinise_bounded(l, error_absorbing, 0, NULL, NULL);
}

lts_t *lts_determinise_bounded(const lts_t *l, bool error_absorbing, long max_states, bool (*stop)(void *),
                               void *arg) {
  closures_t cl;
  if (!closures_compute(l, &cl, stop, arg)) return NULL;
  size_t n = (size_t)l->nstates;
  bitword_t *acc = bitset_new(n);
  VEC(int) set = {0};
  keytab_t sets;
  keytab_init(&sets);
  lts_builder_t b;
  builder_like(&b, l);
  int error = -1;
  VEC(int) sid = {0};
  VEC(lts_trans_t) moves = {0};

  for (int k = clo_begin(&cl, l->init); k < clo_end(&cl, l->init); k++) VEC_PUSH(&set, cl.list[k]);
  bool added;
  keytab_add(&sets, set.data, set.len, &added);
  VEC_PUSH(&sid, lts_builder_add_state(&b));
  b.init = 0;
  bool gave_up = false;
  for (size_t qi = 0; qi < sets.count; qi++) {
    if ((max_states > 0 && sets.count > (size_t)max_states) || (stop && qi % 256 == 0 && stop(arg))) {
      gave_up = true;
      break;
    }
    size_t m;
    const int *members = keytab_key(&sets, (int)qi, &m);
    int src = sid.data[qi];
    bool has_error = false, all_end = l->end != NULL;
    for (size_t j = 0; j < m; j++) {
      if (members[j] == l->error) has_error = true;
      if (!is_end(l, members[j])) all_end = false;
    }
    if (has_error && error_absorbing) {
      /* this subset is the error state: it was given an id already */
      continue;
    }
    if (all_end && m > 0) lts_builder_mark_end(&b, src);
    /* the moves leaving the subset, (label, dst) pairs grouped by label in
     * label order: one pass over the members' transitions, not one per label */
    VEC_CLEAR(&moves);
    for (size_t j = 0; j < m; j++) {
      int s = members[j];
      for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++)
        if (l->succ_label[i] != LTS_TAU) VEC_PUSH(&moves, ((lts_trans_t){0, l->succ_label[i], l->succ_dst[i]}));
    }
    if (moves.len > 1) sort_trans(moves.data, moves.len);
    for (size_t g = 0; g < moves.len;) {
      int label = moves.data[g].label;
      /* the successor subset: its members collected in `set` as acc marks
       * them, then acc cleared bit by bit (not word by word: a subset is
       * usually far smaller than the LTS, and zeroing or scanning n bits per
       * transition made determinisation quadratic) */
      VEC_CLEAR(&set);
      for (; g < moves.len && moves.data[g].label == label; g++) {
        int t = moves.data[g].dst;
        for (int k = clo_begin(&cl, t); k < clo_end(&cl, t); k++)
          if (!bitset_get(acc, (size_t)cl.list[k])) {
            bitset_set(acc, (size_t)cl.list[k]);
            VEC_PUSH(&set, cl.list[k]);
          }
      }
      bool to_error = error_absorbing && l->error >= 0 && bitset_get(acc, (size_t)l->error);
      for (size_t j = 0; j < set.len; j++) bitset_clear_bit(acc, (size_t)set.data[j]);
      if (to_error) {
        if (error < 0) b.error = error = lts_builder_add_state(&b);
        lts_builder_add(&b, src, label, error);
        continue;
      }
      if (set.len > 1) sort_unique(set.data, (int)set.len);
      int id = keytab_add(&sets, set.data, set.len, &added);
      if (added) VEC_PUSH(&sid, lts_builder_add_state(&b));
      lts_builder_add(&b, src, label, sid.data[id]);
    }
  }
  VEC_FREE(&moves);
  if (gave_up) {
    lts_builder_free(&b);
    VEC_FREE(&set);
    VEC_FREE(&sid);
    keytab_free(&sets);
    free(acc);
    closures_free(&cl);
    return NULL;
  }
  /* an initial subset containing the error state is the error state */
  {
    size_t m;
    const int *members = keytab_key(&sets, 0, &m);
    for (size_t j = 0; j < m; j++)
      if (members[j] == l->error) {
        if (error_absorbing)
          b.error = 0;
        else if (m == 1)
          b.error = 0;
      }
    if (!error_absorbing && l->error >= 0) {
      /* the subset {error} is the error state */
      int e = l->error;
      int id = -1;
      for (size_t k = 0; k < sets.count; k++) {
        const int *mm = keytab_key(&sets, (int)k, &m);
        if (m == 1 && mm[0] == e) id = (int)k;
      }
      b.error = id >= 0 ? sid.data[id] : -1;
    }
  }
  lts_t *r = lts_freeze(&b);
  VEC_FREE(&set);
  VEC_FREE(&sid);
  keytab_free(&sets);
  free(acc);
  closures_free(&cl);
  return r;
}

/* ------------------------------------------------ DFA partition refinement */

/* The hash of state i's signature: its block and its moves' (label, block). */
static uint64_t dfa_signature(int i, const int *off, const int *lab, const int *dst, const int *cur) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)cur[i];
  for (int t = off[i]; t < off[i + 1]; t++)
    h = ((h ^ (uint64_t)(uint32_t)lab[t]) * 1099511628211ull ^ (uint64_t)(uint32_t)cur[dst[t]]) *
        1099511628211ull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

static bool dfa_same_signature(int r, int i, const int *off, const int *lab, const int *dst, const int *cur) {
  if (cur[r] != cur[i] || off[r + 1] - off[r] != off[i + 1] - off[i]) return false;
  for (int a = off[r], b = off[i]; a < off[r + 1]; a++, b++)
    if (lab[a] != lab[b] || cur[dst[a]] != cur[dst[b]]) return false;
  return true;
}

int lts_dfa_partition(int n, const int *off, const int *lab, const int *dst, int *block, bool (*stop)(void *),
                      void *arg) {
  /* Moore's refinement, each round re-hashing only the states one of
   * whose moves leads into a block that changed in the last round (the
   * "dirty" states; all in the first round). Invariant: the members of a
   * block that are not dirty have equal signatures. A round groups the
   * dirty states of each block by signature (block, (label, block) of
   * each move) in an open-addressing table of representatives, with one
   * clean member of the block, when it has one, standing for the rest:
   * its group keeps the block's number (else the first group does), the
   * others get new numbers, written after the round so that every
   * signature of a round reads the same partition. Blocks are renumbered
   * by least state at the end. The rounds over all moves (pump-3's plant:
   * 24 over 139 865 states) became a few full passes and short rounds;
   * sequential, unlike Valmari and Lehtinen's O(m log n) refinement,
   * whose marks are a cache miss each (slower in CPU time there). */
  int *cur = xmalloc(((size_t)n + 1) * sizeof *cur), *newid = xmalloc(((size_t)n + 1) * sizeof *newid);
  int *roff = xcalloc((size_t)n + 2, sizeof *roff), *rsrc = xmalloc(((size_t)off[n] + 1) * sizeof *rsrc);
  for (int t = 0; t < off[n]; t++) roff[dst[t] + 1]++;
  for (int i = 0; i < n; i++) roff[i + 1] += roff[i];
  int *fill = xmalloc(((size_t)n + 1) * sizeof *fill);
  memcpy(fill, roff, (size_t)n * sizeof *fill);
  for (int i = 0; i < n; i++)
    for (int t = off[i]; t < off[i + 1]; t++) rsrc[fill[dst[t]]++] = i;
  free(fill);
  size_t cap = 64;
  while (cap < 2 * (size_t)n + 2) cap *= 2;
  /* a slot's signature hash, representative (-1: empty) and group side by
   * side: one cache line per probe */
  struct {
    uint64_t hash;
    int rep, gid;
  } *tab = xmalloc(cap * sizeof *tab);
  for (size_t u = 0; u < cap; u++) tab[u].rep = -1;
  size_t *used = xmalloc((2 * (size_t)n + 2) * sizeof *used);
  /* the initial classes as dense numbers */
  int nblocks = 0;
  for (int i = 0; i < n; i++) {
    uint64_t h = (uint64_t)(uint32_t)block[i] * 0x9e3779b97f4a7c15ull;
    size_t slot = (size_t)(h >> 17) & (cap - 1);
    while (tab[slot].rep >= 0 && block[tab[slot].rep] != block[i]) slot = (slot + 1) & (cap - 1);
    if (tab[slot].rep < 0) tab[slot].rep = i, tab[slot].gid = nblocks++;
    cur[i] = tab[slot].gid;
  }
  for (size_t u = 0; u < cap; u++) tab[u].rep = -1;
  int *dirty = xmalloc(((size_t)n + 1) * sizeof *dirty),
      *next_dirty = xmalloc(((size_t)n + 1) * sizeof *next_dirty);
  int *stamp = xcalloc((size_t)n + 1, sizeof *stamp),
      *clean_rep = xmalloc(((size_t)n + 1) * sizeof *clean_rep);
  int *touched = xcalloc((size_t)n + 1, sizeof *touched), *kept = xcalloc((size_t)n + 1, sizeof *kept);
  int ndirty = n;
  for (int i = 0; i < n; i++) dirty[i] = i, stamp[i] = 1;
  bool stopped = false;
  for (int round = 1; ndirty > 0; round++) {
    if (stop && stop(arg)) {
      stopped = true;
      break;
    }
    /* the blocks with a dirty member, and a clean member of each (stamp[i] == round: i is dirty) */
    for (int k = 0; k < ndirty; k++) touched[cur[dirty[k]]] = round, clean_rep[cur[dirty[k]]] = -1;
    for (int i = 0; i < n; i++)
      if (touched[cur[i]] == round && stamp[i] != round && clean_rep[cur[i]] < 0) clean_rep[cur[i]] = i;
    size_t nused = 0;
    for (int pass = 0; pass < 2; pass++) {
      int count = pass ? ndirty : n;
      /* 16 states' signatures at a time (cur does not change in a round),
       * their slots prefetched, then looked up in the same order */
      int bi[16], nb = 0, bj = 0;
      uint64_t bh[16];
      for (int k = 0; k < count || bj < nb;) {
        if (bj == nb) {
          nb = bj = 0;
          for (; k < count && nb < 16; k++) {
            int i;
            if (pass) {
              i = dirty[k];
            } else { /* the clean representatives, each once: at its own index */
              i = k;
              if (touched[cur[i]] != round || clean_rep[cur[i]] != i) continue;
            }
            bi[nb] = i;
            bh[nb] = dfa_signature(i, off, lab, dst, cur);
            __builtin_prefetch(&tab[(size_t)bh[nb] & (cap - 1)]);
            nb++;
          }
          continue;
        }
        int i = bi[bj];
        uint64_t h = bh[bj++];
        size_t slot = (size_t)h & (cap - 1);
        while (tab[slot].rep >= 0 &&
               !(tab[slot].hash == h && dfa_same_signature(tab[slot].rep, i, off, lab, dst, cur)))
          slot = (slot + 1) & (cap - 1);
        if (tab[slot].rep < 0) {
          tab[slot].rep = i;
          tab[slot].hash = h;
          used[nused++] = slot;
          int b = cur[i];
          if (!pass ||
              kept[b] != round) /* a clean member's group, or the first group of an all-dirty block */
            tab[slot].gid = b, kept[b] = round;
          else
            tab[slot].gid = nblocks++;
        }
        if (pass) newid[i] = tab[slot].gid;
      }
    }
    for (size_t u = 0; u < nused; u++) tab[used[u]].rep = -1;
    /* the moved states' predecessors are next round's dirty states */
    int nnext = 0;
    for (int k = 0; k < ndirty; k++) {
      int i = dirty[k];
      if (newid[i] == cur[i]) continue;
      cur[i] = newid[i];
      for (int r = roff[i]; r < roff[i + 1]; r++)
        if (stamp[rsrc[r]] != round + 1) stamp[rsrc[r]] = round + 1, next_dirty[nnext++] = rsrc[r];
    }
    int *t = dirty;
    dirty = next_dirty;
    next_dirty = t;
    ndirty = nnext;
  }
  if (!stopped) { /* numbered by least state */
    int *num = newid;
    for (int b = 0; b < nblocks; b++) num[b] = -1;
    int count = 0;
    for (int i = 0; i < n; i++) {
      if (num[cur[i]] < 0) num[cur[i]] = count++;
      block[i] = num[cur[i]];
    }
    nblocks = count;
  }
  free(cur), free(newid), free(roff), free(rsrc), free(tab), free(used);
  free(dirty), free(next_dirty), free(stamp), free(clean_rep), free(touched), free(kept);
  return stopped ? -1 : nblocks;
}

/* ------------------------------------------------------------ minimising */

typedef struct {
  int label, block;
} sig_t;

static int cmp_sig(const void *a, const void *b) {
  const sig_t *x = a, *y = b;
  if (x->label != y->label) return x->label < y->label ? -1 : 1;
  return (x->block > y->block) - (x->block < y->block);
}

/* Counts `amount` units of minimisation work; every 2^16 units, whether a
 * stop was requested (ism/stop.h). */
static bool minimise_stop_due(size_t *work, size_t amount) {
  *work += amount;
  if (*work < ((size_t)1 << 16)) return false;
  *work = 0;
  return stop_requested();
}

/* The quotient of l by q (state s becomes q[s], 0 <= q[s] < m): every
 * move between the classes, τ-moves within one class dropped; a class is
 * an end state when one member is. Not reduced to what is reachable. */
static lts_t *quotient(const lts_t *l, const int *q, int m) {
  lts_builder_t b;
  builder_like(&b, l);
  b.nstates = m;
  b.init = q[l->init];
  b.error = l->error >= 0 ? q[l->error] : -1;
  for (int s = 0; s < l->nstates; s++) {
    if (is_end(l, s)) lts_builder_mark_end(&b, q[s]);
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      int label = l->succ_label[i], t = q[l->succ_dst[i]];
      if (label == LTS_TAU && t == q[s]) continue;
      lts_builder_add(&b, q[s], label, t);
    }
  }
  return lts_freeze(&b);
}

/* The class a minimisation starts a state in: normal 0, error 1, end 2. */
static int start_class(const lts_t *l, int s) { return s == l->error ? 1 : is_end(l, s) ? 2 : 0; }

/* l with each τ-cycle collapsed: the states of one strongly connected
 * component of the τ-edges that start in the same block (normal, error,
 * end) are weakly bisimilar, so they become one state, numbered in the
 * order of their least member (which keeps the order in which blocks first
 * appear, and so the numbering of the minimised result). NULL when no two
 * states merge. Saturating a τ-cycle of n states state by state costs n². */
static lts_t *collapse_tau_cycles(const lts_t *l) {
  int n = l->nstates;
  int *group = xmalloc(((size_t)n + 1) * sizeof *group), *rep = xmalloc(((size_t)n + 1) * sizeof *rep);
  int ngroups = tau_components(l, group, rep);
  int *id = xmalloc(((size_t)ngroups * 3 + 1) * sizeof *id), *q = xmalloc(((size_t)n + 1) * sizeof *q);
  for (int g = 0; g < ngroups * 3; g++) id[g] = -1;
  int m = 0;
  for (int s = 0; s < n; s++) {
    int cls = start_class(l, s), *slot = &id[group[s] * 3 + cls];
    if (*slot < 0) *slot = m++;
    q[s] = *slot;
  }
  free(group), free(rep), free(id);
  lts_t *r = m == n ? NULL : quotient(l, q, m);
  free(q);
  return r;
}

/* lts_minimise of a deterministic l (no τ, at most one move per label):
 * the same blocks as the signature refinement below finds (bisimulation
 * is then the coarsest partition lts_dfa_partition computes), numbered
 * alike (by least state), each block's moves from one member (the others
 * have the same moves between blocks). */
static lts_t *minimise_deterministic(const lts_t *l) {
  int n = l->nstates;
  int *block = xmalloc(((size_t)n + 1) * sizeof *block), *rep = xmalloc(((size_t)n + 1) * sizeof *rep);
  for (int s = 0; s < n; s++) block[s] = start_class(l, s);
  int nblocks = lts_dfa_partition(n, l->succ_off, l->succ_label, l->succ_dst, block, stop_poll, NULL);
  if (nblocks < 0) { /* stopped: the input as it is, as lts_minimise says */
    free(block), free(rep);
    return lts_reachable(l);
  }
  lts_builder_t b;
  builder_like(&b, l);
  b.nstates = nblocks;
  b.init = block[l->init];
  b.error = l->error >= 0 ? block[l->error] : -1;
  for (int k = 0; k < nblocks; k++) rep[k] = -1;
  for (int s = 0; s < n; s++) {
    if (rep[block[s]] >= 0) continue;
    rep[block[s]] = s;
    if (is_end(l, s)) lts_builder_mark_end(&b, block[s]);
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) lts_builder_add(&b, block[s], l->succ_label[i], block[l->succ_dst[i]]);
  }
  free(block), free(rep);
  lts_t *q = lts_freeze(&b);
  lts_t *r = lts_reachable(q);
  lts_free(q);
  return r;
}

lts_t *lts_minimise(const lts_t *l) {
  lts_t *collapsed = collapse_tau_cycles(l);
  if (collapsed) { /* it has no τ-cycle within a block left: no second collapse */
    lts_t *r = lts_minimise(collapsed);
    lts_free(collapsed);
    return r;
  }
  int n = l->nstates;
  bool tau_free = true;
  for (int i = 0; i < l->succ_off[n] && tau_free; i++) tau_free = l->succ_label[i] != LTS_TAU;
  if (tau_free && lts_is_deterministic(l)) return minimise_deterministic(l);
  closures_t cl;
  if (!tau_free && !closures_compute(l, &cl, stop_poll, NULL)) return lts_reachable(l); /* stopped: as below */
  /* saturated relation s =a=> t as CSR: for τ, t ∈ closure(s);
   * for a ≠ τ, t ∈ closure(u) with s τ* v -a-> u. Without τ moves the
   * closures are {s}: (τ, s) and s's own moves, already sorted by (label,
   * target) and without repeats, the same lists as the loop below makes. */
  VEC(int) sat_off = {0}, sat_label = {0}, sat_dst = {0};
  bitword_t *seen = bitset_new((size_t)n);
  size_t work = 0;
  bool stopped = false;
  for (int s = 0; s < n && tau_free && !stopped; s++) {
    VEC_PUSH(&sat_off, (int)sat_label.len);
    VEC_PUSH(&sat_label, LTS_TAU);
    VEC_PUSH(&sat_dst, s);
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      VEC_PUSH(&sat_label, l->succ_label[i]);
      VEC_PUSH(&sat_dst, l->succ_dst[i]);
    }
    stopped = minimise_stop_due(&work, (size_t)(l->succ_off[s + 1] - l->succ_off[s]) + 1);
  }
  for (int s = 0; s < n && !tau_free && !stopped; s++) {
    size_t scanned = 0; /* closure members and transitions looked at for s */
    VEC_PUSH(&sat_off, (int)sat_label.len);
    for (int k = clo_begin(&cl, s); k < clo_end(&cl, s); k++) {
      VEC_PUSH(&sat_label, LTS_TAU);
      VEC_PUSH(&sat_dst, cl.list[k]);
    }
    for (int a = 0; a < l->nalphabet; a++) {
      int label = l->alphabet[a];
      size_t from = sat_dst.len; /* this (s, a)'s targets; their bits are cleared after */
      for (int k = clo_begin(&cl, s); k < clo_end(&cl, s); k++) {
        int v = cl.list[k];
        scanned += 1 + (size_t)(l->succ_off[v + 1] - l->succ_off[v]);
        for (int i = l->succ_off[v]; i < l->succ_off[v + 1]; i++) {
          if (l->succ_label[i] != label) continue;
          int u = l->succ_dst[i];
          scanned += (size_t)(clo_end(&cl, u) - clo_begin(&cl, u));
          for (int j = clo_begin(&cl, u); j < clo_end(&cl, u); j++) {
            int t = cl.list[j];
            if (!bitset_get(seen, (size_t)t)) {
              bitset_set(seen, (size_t)t);
              VEC_PUSH(&sat_label, label);
              VEC_PUSH(&sat_dst, t);
            }
          }
        }
      }
      for (size_t i = from; i < sat_dst.len; i++) bitset_clear_bit(seen, (size_t)sat_dst.data[i]);
    }
    stopped = minimise_stop_due(&work, (size_t)l->nalphabet + scanned);
  }
  VEC_PUSH(&sat_off, (int)sat_label.len);
  free(seen);

  /* signature refinement until the number of blocks is stable */
  int *block = xmalloc((size_t)n * sizeof *block), *nblock = xmalloc((size_t)n * sizeof *nblock);
  for (int s = 0; s < n; s++) block[s] = start_class(l, s);
  int nblocks = -1;
  VEC(sig_t) sig = {0};
  VEC(int) key = {0};
  while (!stopped) {
    keytab_t tab;
    keytab_init(&tab);
    for (int s = 0; s < n && !stopped; s++) {
      stopped = minimise_stop_due(&work, (size_t)(sat_off.data[s + 1] - sat_off.data[s]) + 1);
      VEC_CLEAR(&sig);
      for (int i = sat_off.data[s]; i < sat_off.data[s + 1]; i++)
        VEC_PUSH(&sig, ((sig_t){sat_label.data[i], block[sat_dst.data[i]]}));
      size_t sorted = 1; /* a deterministic LTS's moves come sorted: no qsort then */
      while (sorted < sig.len && cmp_sig(&sig.data[sorted - 1], &sig.data[sorted]) <= 0) sorted++;
      if (sorted < sig.len) qsort(sig.data, sig.len, sizeof *sig.data, cmp_sig);
      VEC_CLEAR(&key);
      VEC_PUSH(&key, block[s]);
      for (size_t i = 0; i < sig.len; i++) {
        if (i > 0 && cmp_sig(&sig.data[i], &sig.data[i - 1]) == 0) continue;
        VEC_PUSH(&key, sig.data[i].label);
        VEC_PUSH(&key, sig.data[i].block);
      }
      bool added;
      nblock[s] = keytab_add(&tab, key.data, key.len, &added);
    }
    int count = (int)tab.count;
    keytab_free(&tab);
    memcpy(block, nblock, (size_t)n * sizeof *block);
    if (count == nblocks) break;
    nblocks = count;
  }
  VEC_FREE(&sig);
  VEC_FREE(&key);
  VEC_FREE(&sat_off);
  VEC_FREE(&sat_label);
  VEC_FREE(&sat_dst);
  if (!tau_free) closures_free(&cl);
  if (stopped) { /* the input as it is: equivalent, not minimal */
    free(block);
    free(nblock);
    return lts_reachable(l);
  }

  lts_t *q = quotient(l, block, nblocks);
  free(block);
  free(nblock);
  lts_t *r = lts_reachable(q);
  lts_free(q);
  return r;
}

/* ------------------------------------------------------ error handling */

lts_t *lts_strip_tau(const lts_t *l) { return copy_filtered(l, false); }

lts_t *lts_remove_error(const lts_t *l) {
  if (l->error < 0) return lts_copy(l);
  int *map = xmalloc((size_t)l->nstates * sizeof *map);
  for (int s = 0, k = 0; s < l->nstates; s++) map[s] = s == l->error ? -1 : k++;
  if (map[l->init] < 0) {
    /* nothing is left but an empty initial state */
    lts_builder_t b;
    builder_like(&b, l);
    lts_builder_add_state(&b);
    free(map);
    return lts_freeze(&b);
  }
  lts_t *r = renumber(l, map, l->nstates - 1);
  r->error = -1;
  free(map);
  return r;
}

lts_t *lts_property(const lts_t *p) { return lts_property_bounded(p, 0, NULL, NULL); }

lts_t *lts_property_bounded(const lts_t *p, long max_states, bool (*stop)(void *), void *arg) {
  lts_t *d = lts_is_deterministic(p) ? lts_copy(p) : lts_determinise_bounded(p, true, max_states, stop, arg);
  if (!d) return NULL;
  lts_builder_t b;
  builder_like(&b, d);
  b.nstates = d->nstates;
  b.init = d->init;
  b.error = d->error >= 0 ? d->error : lts_builder_add_state(&b);
  for (int s = 0; s < d->nstates; s++) {
    if (is_end(d, s)) lts_builder_mark_end(&b, s);
    if (s == b.error) continue;
    for (int i = d->succ_off[s]; i < d->succ_off[s + 1]; i++)
      lts_builder_add(&b, s, d->succ_label[i], d->succ_dst[i]);
    for (int a = 0; a < d->nalphabet; a++)
      if (lts_step(d, s, d->alphabet[a]) < 0) lts_builder_add(&b, s, d->alphabet[a], b.error);
  }
  lts_free(d);
  return lts_freeze(&b);
}

/* ------------------------------------------------------------------ BFS */

void lts_bfs(const lts_t *l, lts_bfs_t *out) {
  int n = l->nstates;
  out->parent = xmalloc((size_t)n * sizeof(int));
  out->parent_label = xmalloc((size_t)n * sizeof(int));
  out->depth = xmalloc((size_t)n * sizeof(int));
  for (int s = 0; s < n; s++) out->parent[s] = out->parent_label[s] = out->depth[s] = -1;
  int *queue = xmalloc((size_t)n * sizeof *queue);
  int head = 0, tail = 0;
  queue[tail++] = l->init;
  out->depth[l->init] = 0;
  while (head < tail) {
    int s = queue[head++];
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      int t = l->succ_dst[i];
      if (out->depth[t] >= 0) continue;
      out->depth[t] = out->depth[s] + 1;
      out->parent[t] = s;
      out->parent_label[t] = l->succ_label[i];
      queue[tail++] = t;
    }
  }
  free(queue);
}

void lts_bfs_free(lts_bfs_t *bfs) {
  free(bfs->parent);
  free(bfs->parent_label);
  free(bfs->depth);
}

int *lts_bfs_trace(const lts_bfs_t *bfs, const lts_t *l, int s, int *len) {
  (void)l;
  *len = bfs->depth[s];
  if (*len <= 0) return NULL;
  int *trace = xmalloc((size_t)*len * sizeof *trace);
  for (int k = *len - 1, u = s; k >= 0; k--, u = bfs->parent[u]) trace[k] = bfs->parent_label[u];
  return trace;
}

/* --------------------------------------------------------------- output */

void lts_to_dot(const lts_t *l, const char *name, strbuf_t *out) {
  strbuf_printf(out, "digraph ");
  strbuf_json_string(out, name);
  strbuf_printf(out, " {\n  rankdir=LR;\n  node [shape=circle];\n");
  for (int s = 0; s < l->nstates; s++) {
    if (s == l->error)
      strbuf_printf(out, "  s%d [label=\"π\", style=filled, fillcolor=lightcoral];\n", s);
    else
      strbuf_printf(out, "  s%d [label=\"%d\"%s];\n", s, s,
                    s == l->init ? ", style=filled, fillcolor=lightblue" : "");
  }
  for (int s = 0; s < l->nstates; s++)
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      strbuf_printf(out, "  s%d -> s%d [label=", s, l->succ_dst[i]);
      strbuf_json_string(out, lts_label_name(l->labels, l->succ_label[i]));
      strbuf_puts(out, "];\n");
    }
  strbuf_puts(out, "}\n");
}

static void fsp_state_name(strbuf_t *out, const lts_t *l, const char *name, int s) {
  if (s == l->error)
    strbuf_puts(out, "ERROR");
  else if (s == l->init)
    strbuf_puts(out, name);
  else
    strbuf_printf(out, "%s_%d", name, s);
}

void lts_to_fsp(const lts_t *l, const char *name, strbuf_t *out) {
  bool first = true;
  for (int s = 0; s < l->nstates; s++) {
    if (s == l->error) continue;
    strbuf_puts(out, first ? "" : ",\n");
    first = false;
    fsp_state_name(out, l, name, s);
    strbuf_puts(out, " = ");
    if (l->succ_off[s] == l->succ_off[s + 1]) {
      strbuf_puts(out, is_end(l, s) ? "END" : "STOP");
      continue;
    }
    strbuf_puts(out, "(");
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      strbuf_printf(out, "%s%s -> ", i > l->succ_off[s] ? " | " : "",
                    lts_label_name(l->labels, l->succ_label[i]));
      fsp_state_name(out, l, name, l->succ_dst[i]);
    }
    strbuf_puts(out, ")");
  }
  /* alphabet labels on no transition: an alphabet extension */
  bool *used = xcalloc(l->labels->names.count + 1, sizeof *used);
  for (int i = 0; i < l->ntrans; i++) used[l->succ_label[i]] = true;
  bool any = false;
  for (int i = 0; i < l->nalphabet; i++)
    if (!used[l->alphabet[i]]) {
      strbuf_printf(out, "%s%s", any ? ", " : "+{", lts_label_name(l->labels, l->alphabet[i]));
      any = true;
    }
  if (any) strbuf_puts(out, "}");
  free(used);
  strbuf_puts(out, ".\n");
}
