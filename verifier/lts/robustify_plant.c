#include "verifier/lts/robustify_plant.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ism/alloc.h"
#include "ism/stop.h"
#include "verifier/lts/robustify_observer.h"
#include "verifier/lts/scc.h"

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Whether a stop request must end the current phase now: at once in the
 * search, after a signal or when p->stop asks; a time limit gives the
 * final phase ROBUSTIFY_FINAL_GRACE seconds from when it was first seen
 * (*seen_ns). *why: which stop, when the answer is true. */
static bool stop_due(const robustify_problem_t *p, bool final, long long *seen_ns, const char **why) {
  if (!(p->stop ? p->stop(p->stop_arg) : stop_requested())) return false;
  bool signal = !p->stop && stop_reason() == STOP_SIGNAL;
  long long now = now_ns();
  if (!*seen_ns) *seen_ns = now;
  if (final && !signal && !p->stop && now - *seen_ns < (long long)(ROBUSTIFY_FINAL_GRACE * 1e9)) return false;
  *why = signal ? "signal" : "timeout";
  return true;
}

static void set_bounded(search_t *s, const char *why) {
  s->bounded = true;
  if (!s->limit) s->limit = why;
}

bool robustify_out_of_time(search_t *s) {
  const char *why;
  if (!s->bounded && s->watch_stop && stop_due(s->p, s->final, &s->stop_seen_ns, &why)) set_bounded(s, why);
  return s->bounded;
}

bool robustify_final_stop(const robustify_problem_t *p, robustify_result_t *r) {
  const char *why;
  if (!stop_due(p, true, &r->stop_seen_ns, &why)) return false;
  if (!r->bounded) r->limit = why;
  r->bounded = true;
  return true;
}

bool robustify_over_states(search_t *s, size_t n) {
  if (s->p->max_states > 0 && n > (size_t)s->p->max_states) set_bounded(s, "max-states");
  return s->bounded;
}

bool robustify_stop_search(void *s) { return robustify_out_of_time(s); }

/* l determinised within the search's limits (--max-states bounds the
 * subsets, --timeout the time); NULL when a limit stopped it. */
static lts_t *deterministic_bounded(search_t *s, const lts_t *l) {
  if (lts_is_deterministic(l)) return lts_copy(l);
  lts_t *d = lts_determinise_bounded(l, true, s->p->max_states, robustify_stop_search, s);
  if (!d && !s->bounded) set_bounded(s, "max-states");
  return d;
}

/* The successor of deterministic l's state x by label, or -1 (x's moves
 * are sorted by label). */
static int det_step(const lts_t *l, int x, int label) {
  int lo = l->succ_off[x], hi = l->succ_off[x + 1];
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (l->succ_label[mid] < label)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < l->succ_off[x + 1] && l->succ_label[lo] == label ? l->succ_dst[lo] : -1;
}

/* Deterministic l's moves as a table t[x * nl + a] (successor or -1), or
 * NULL when it would pass 2^22 entries. */
int *robustify_step_table(const lts_t *l, int nl) {
  size_t n = (size_t)l->nstates * (size_t)nl;
  if (n > ((size_t)1 << 22)) return NULL;
  int *t = xmalloc((n + 1) * sizeof *t);
  memset(t, -1, (n + 1) * sizeof *t);
  for (int x = 0; x < l->nstates; x++)
    for (int i = l->succ_off[x]; i < l->succ_off[x + 1]; i++)
      t[(size_t)x * (size_t)nl + (size_t)l->succ_label[i]] = l->succ_dst[i];
  return t;
}

/* The plant for system `sys` (M, or an OASIS abstraction of it): the
 * reachable part of dm ‖ de ‖ P_err ‖ progress monitors, built directly
 * from the three deterministic parts (as lts_compose's parallel
 * composition, one error state; in BFS order, each state's moves by
 * label, so the numbering is that of composing first and then adding the
 * monitors). */
bool robustify_plant_build(search_t *s, const lts_t *sys) {
  const robustify_problem_t *p = s->p;
  plant_t *g = &s->g;
  lts_labels_t *labels = sys->labels;
  g->nlabels = (int)labels->names.count;
  lts_t *dm = deterministic_bounded(s, sys);
  if (dm && !s->dev_det) s->dev_det = deterministic_bounded(s, p->dev);
  if (!dm || !s->dev_det) {
    lts_free(dm);
    return false;
  }
  if (!s->prop && !(s->prop = lts_property_bounded(p->safety, p->max_states, robustify_stop_search, s))) {
    if (!s->bounded) s->bounded = true, s->limit = "max-states";
    lts_free(dm);
    return false;
  }
  const lts_t *de = s->dev_det, *parts[3] = {dm, de, s->prop};
  g->nlabels = (int)labels->names.count;
  int nl = g->nlabels;
  if (s->step_nl != nl) { /* E' and P_err are the same for every plant of the run */
    for (int i = 1; i < 3; i++) free(s->step[i]), s->step[i] = robustify_step_table(parts[i], nl);
    s->step_nl = nl;
  }
  g->alpha = bitset_new((size_t)nl);
  uint8_t *in = xcalloc((size_t)nl + 1, 1); /* bit i: label in part i's alphabet */
  for (int i = 0; i < 3; i++)
    for (int a = 0; a < parts[i]->nalphabet; a++) {
      in[parts[i]->alphabet[a]] |= (uint8_t)(1 << i);
      if (i < 2) bitset_set(g->alpha, (size_t)parts[i]->alphabet[a]);
    }
  int *bit = xmalloc((size_t)nl * sizeof *bit);
  for (int l = 0; l < nl; l++) bit[l] = -1;
  for (int i = 0; i < p->nprogress; i++) bit[p->progress[i]] = i;
  int full = (1 << p->nprogress) - 1;
  size_t nmask = (size_t)1 << p->nprogress;
  size_t n0 = (size_t)dm->nstates, n1 = (size_t)de->nstates, n2 = (size_t)parts[2]->nstates;
  size_t space = n0 * n1 * n2;
  bool direct = n0 && space / n0 == n1 * n2 && space <= ((size_t)1 << 24);
  int *cnum = NULL, ncomp = 0;
  keytab_t tab;
  keytab_init(&tab);
  VEC(int) cid = {0};
  if (direct) { /* kept between builds (OASIS builds hundreds): reset by the tuples used, below */
    if (s->cnum_cap < space + 1) {
      free(s->cnum);
      s->cnum_cap = space + 1;
      s->cnum = xmalloc(s->cnum_cap * sizeof *s->cnum);
      memset(s->cnum, -1, s->cnum_cap * sizeof *s->cnum);
    }
    cnum = s->cnum;
  }
  /* G states (c, mask): c numbers the tuple (dm, de, P) (a direct table
   * when small, else a keytab), mask the progress actions seen; G id in
   * cid[c * nmask + mask]. qx: each G state's tuple and mask, qc its c. A
   * composite's moves do not depend on the mask, so they are found once,
   * the first time a G state of c is expanded, and shared by its G states:
   * c's moves are [mfirst[c], + mnum[c]) of mlab (label), mdst (target
   * composite, -1 into the error state) and mbits (progress bit it sets),
   * in the order found; msort lists them by label. */
  VEC(int) qx = {0}, qc = {0}, off = {0}, lab = {0}, dst = {0};
  VEC(int) ctup = {0}, mfirst = {0}, mnum = {0}, mlab = {0}, mdst = {0}, mbits = {0}, msort = {0};
  VEC_RESERVE(&qx, 4 * s->plant_hint + 4);
  VEC_RESERVE(&qc, s->plant_hint + 1);
  VEC_RESERVE(&off, s->plant_hint + 2);
  VEC_RESERVE(&lab, s->trans_hint + 1);
  VEC_RESERVE(&dst, s->trans_hint + 1);
  intvec_t qd = {0};
  g->error = -1;
#define TUPLE_ID(t, out)                                                                                     \
  do {                                                                                                       \
    int c_;                                                                                                  \
    if (direct) {                                                                                            \
      int *slot_ = &cnum[((size_t)(t)[0] * n1 + (size_t)(t)[1]) * n2 + (size_t)(t)[2]];                      \
      if (*slot_ < 0) *slot_ = ncomp++;                                                                      \
      c_ = *slot_;                                                                                           \
    } else {                                                                                                 \
      bool added_;                                                                                           \
      c_ = keytab_add(&tab, (t), 3, &added_);                                                                \
      ncomp = (int)tab.count;                                                                                \
    }                                                                                                        \
    if ((size_t)c_ == mfirst.len) {                                                                          \
      for (int i_ = 0; i_ < 3; i_++) VEC_PUSH(&ctup, (t)[i_]);                                               \
      VEC_PUSH(&mfirst, -1);                                                                                 \
      VEC_PUSH(&mnum, 0);                                                                                    \
      VEC_RESERVE(&cid, cid.len + nmask);                                                                    \
      for (size_t i_ = 0; i_ < nmask; i_++) cid.data[cid.len++] = -1;                                        \
    }                                                                                                        \
    (out) = c_;                                                                                              \
  } while (0)
#define G_ID(c, mask, out)                                                                                   \
  do {                                                                                                       \
    int *g_ = &cid.data[(size_t)(c) * nmask + (size_t)(mask)];                                               \
    if (*g_ < 0) {                                                                                           \
      *g_ = (int)qc.len;                                                                                     \
      for (int i_ = 0; i_ < 3; i_++) VEC_PUSH(&qx, ctup.data[3 * (size_t)(c) + (size_t)i_]);                 \
      VEC_PUSH(&qx, (mask));                                                                                 \
      VEC_PUSH(&qc, (c));                                                                                    \
    }                                                                                                        \
    (out) = *g_;                                                                                             \
  } while (0)
  int first;
  TUPLE_ID(((int[3]){dm->init, de->init, parts[2]->init}), first);
  G_ID(first, 0, first);
  bool ok = true;
  for (size_t h = 0; h < qc.len; h++) {
    if (robustify_over_states(s, qc.len) || ((h & 255) == 0 && robustify_out_of_time(s))) {
      ok = false;
      break;
    }
    VEC_PUSH(&off, (int)lab.len);
    if ((int)h == g->error) continue; /* the error state has no moves */
    int c = qc.data[h], mask = qx.data[4 * h + 3];
    if (mfirst.data[c] < 0) { /* c's moves, each label once: from the first part that has it */
      int x[3] = {ctup.data[3 * (size_t)c], ctup.data[3 * (size_t)c + 1], ctup.data[3 * (size_t)c + 2]};
      int from = (int)mlab.len;
      for (int i = 0; i < 3; i++) {
        const lts_t *l = parts[i];
        for (int t = l->succ_off[x[i]]; t < l->succ_off[x[i] + 1]; t++) {
          int a = l->succ_label[t];
          if (in[a] & ((1 << i) - 1)) continue;
          int nx[3] = {x[0], x[1], x[2]};
          bool enabled = true, err = false;
          for (int j = i; j < 3 && enabled; j++) {
            if (!(in[a] >> j & 1)) continue;
            nx[j] = j == i       ? l->succ_dst[t]
                    : s->step[j] ? s->step[j][(size_t)x[j] * (size_t)nl + (size_t)a]
                                 : det_step(parts[j], x[j], a);
            enabled = nx[j] >= 0;
            err = err || (enabled && nx[j] == parts[j]->error);
          }
          if (!enabled) continue;
          int d = -1;
          if (!err) TUPLE_ID(nx, d);
          VEC_PUSH(&mlab, a);
          VEC_PUSH(&mdst, d);
          VEC_PUSH(&mbits, bit[a] >= 0 ? 1 << bit[a] : 0);
          VEC_PUSH(&msort, (int)mlab.len - 1);
        }
      }
      int *ms = msort.data + from, n = (int)msort.len - from; /* by label: insertion sort of the few moves */
      for (int k = 1; k < n; k++) {
        int v = ms[k], j = k;
        for (; j > 0 && mlab.data[ms[j - 1]] > mlab.data[v]; j--) ms[j] = ms[j - 1];
        ms[j] = v;
      }
      mfirst.data[c] = from;
      mnum.data[c] = n;
    }
    int from = mfirst.data[c], n = mnum.data[c];
    const int *md = mdst.data + from, *mb = mbits.data + from, *ms = msort.data + from, *ml = mlab.data;
    VEC_RESERVE(&qd, (size_t)n + 1);
    int *gd = qd.data;
    for (int k = 0; k < n; k++) { /* G ids in the order the moves were found */
      if (md[k] < 0) {
        if (g->error < 0) {
          g->error = (int)qc.len;
          for (int i = 0; i < 4; i++) VEC_PUSH(&qx, -1);
          VEC_PUSH(&qc, -1);
        }
        gd[k] = g->error;
      } else
        G_ID(md[k], mask | mb[k], gd[k]);
    }
    VEC_RESERVE(&lab, lab.len + (size_t)n);
    VEC_RESERVE(&dst, dst.len + (size_t)n);
    int *gl = lab.data + lab.len, *gt = dst.data + dst.len;
    for (int k = 0; k < n; k++) gl[k] = ml[ms[k]], gt[k] = gd[ms[k] - from];
    lab.len += (size_t)n;
    dst.len += (size_t)n;
  }
#undef TUPLE_ID
#undef G_ID
  VEC_PUSH(&off, (int)lab.len);
  g->n = (int)qc.len;
  g->ntrans = (int)lab.len;
  g->marked = bitset_new((size_t)g->n);
  for (int h = 0; h < g->n; h++)
    if (h != g->error && qx.data[4 * h + 3] == full) bitset_set(g->marked, (size_t)h);
  g->off = off.data;
  g->lab = lab.data;
  g->dst = dst.data;
  lts_free(dm);
  s->plant_hint = (size_t)g->n;
  s->trans_hint = (size_t)g->ntrans;
  for (size_t c = 0; direct && c < ctup.len / 3; c++) /* the direct table back to all -1 */
    cnum[((size_t)ctup.data[3 * c] * n1 + (size_t)ctup.data[3 * c + 1]) * n2 + (size_t)ctup.data[3 * c + 2]] = -1;
  keytab_free(&tab);
  VEC_FREE(&cid);
  free(in);
  free(bit);
  VEC_FREE(&qx);
  VEC_FREE(&qc);
  VEC_FREE(&qd);
  VEC_FREE(&ctup);
  VEC_FREE(&mfirst);
  VEC_FREE(&mnum);
  VEC_FREE(&mlab);
  VEC_FREE(&mdst);
  VEC_FREE(&mbits);
  VEC_FREE(&msort);
  return ok;
}

void robustify_plant_free(plant_t *g) {
  for (int i = 0; i < ROBUSTIFY_OBSERVERS; i++) robustify_observer_free(g->observer[i]);
  free(g->off);
  free(g->lab);
  free(g->dst);
  free(g->marked);
  free(g->alpha);
}

/* G minimised as a DFA (the error state and the marking kept apart), for
 * the search: every synthesis on it answers as on G (whether a supervisor
 * exists and which preferred behaviours it keeps depend on G's languages
 * only), in fewer states (voting-4-4: 37 794 -> 3 111; pump-3: 139 865 ->
 * 79 225). The solutions are synthesised again on G itself, so supervisors
 * are reported as G gives them. False when a limit stopped it. */
bool robustify_plant_minimise(search_t *s, plant_t *out) {
  const plant_t *g = &s->g;
  /* the coarsest partition (lts_dfa_partition) of the classes normal,
   * error, marked; blocks numbered in state order, so state 0 stays in
   * block 0 */
  int *block = xmalloc(((size_t)g->n + 1) * sizeof *block),
      *next = xmalloc(((size_t)g->n + 1) * sizeof *next);
  for (int i = 0; i < g->n; i++) block[i] = i == g->error ? 1 : bitset_get(g->marked, (size_t)i) ? 2 : 0;
  int nblocks = lts_dfa_partition(g->n, g->off, g->lab, g->dst, block, robustify_stop_search, s);
  bool ok = nblocks >= 0 && !s->bounded;
  if (ok) {
    memset(out, 0, sizeof *out);
    out->n = nblocks;
    out->nlabels = g->nlabels;
    out->error = g->error >= 0 ? block[g->error] : -1;
    out->marked = bitset_new((size_t)nblocks);
    int *rep = next; /* a member of each block */
    for (int b = 0; b < nblocks; b++) rep[b] = -1;
    for (int i = 0; i < g->n; i++)
      if (rep[block[i]] < 0) rep[block[i]] = i;
    out->off = xmalloc(((size_t)nblocks + 1) * sizeof *out->off);
    out->ntrans = 0;
    for (int b = 0; b < nblocks; b++) out->ntrans += g->off[rep[b] + 1] - g->off[rep[b]];
    out->lab = xmalloc(((size_t)out->ntrans + 1) * sizeof *out->lab);
    out->dst = xmalloc(((size_t)out->ntrans + 1) * sizeof *out->dst);
    int k = 0;
    for (int b = 0; b < nblocks; b++) {
      out->off[b] = k;
      if (bitset_get(g->marked, (size_t)rep[b])) bitset_set(out->marked, (size_t)b);
      for (int t = g->off[rep[b]]; t < g->off[rep[b] + 1]; t++, k++) {
        out->lab[k] = g->lab[t];
        out->dst[k] = block[g->dst[t]];
      }
    }
    out->off[nblocks] = k;
    out->alpha = bitset_new((size_t)g->nlabels);
    memcpy(out->alpha, g->alpha, BITSET_WORDS((size_t)g->nlabels) * sizeof *out->alpha);
  }
  free(block);
  free(next);
  return ok;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v[0 .. n) and drops repeats; the new length. */
static size_t sort_unique(uint64_t *v, size_t n) {
  if (n < 64) {
    for (size_t i = 1; i < n; i++) {
      uint64_t x = v[i];
      size_t j = i;
      for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
      v[j] = x;
    }
  } else
    qsort(v, n, sizeof *v, cmp_u64);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (k == 0 || v[k - 1] != v[i]) v[k++] = v[i];
  return k;
}

/* The signatures of robustify_plant_hide's components over a partition
 * into blocks: each component's moves mv[moff[c], + mlen[c]) (label << 32
 * | component, sorted), the hidden labels hid[], the components' blocks
 * blk[]; c's signature is sig.data[soff[c], + slen[c]). */
typedef struct {
  const uint64_t *mv;
  const int *moff, *mlen;
  const uint8_t *hid;
  const int *blk;
  size_t *soff, *slen;
  VEC(uint64_t) sig;
} sigs_t;

/* c's signature appended to sg->sig (soff[c], slen[c]): its own moves (in
 * label order: sorted unless a label has several) but the hidden ones
 * within its block, each signature of a component it moves to that way
 * (numbered lower: computed before c) merged in. Inlined at its two calls
 * (as the macro it replaces was: callgrind on pump-3 pareto counts 3 M
 * instructions more for the call). */
static inline __attribute__((always_inline)) void sig_of(sigs_t *sg, int c) {
  const uint64_t *mv = sg->mv;
  const uint8_t *hid = sg->hid;
  const int *blk = sg->blk, lo = sg->moff[c], hi = sg->moff[c] + sg->mlen[c];
  size_t from = sg->sig.len, need = (size_t)sg->mlen[c];
  int bc = blk[c];
  for (int i = lo; i < hi; i++) {
    int d = (int)(uint32_t)mv[i];
    if (hid[mv[i] >> 32] && blk[d] == bc) need += sg->slen[d];
  }
  VEC_RESERVE(&sg->sig, from + 2 * need + 1);
  uint64_t *w = sg->sig.data + from, *x = w + need, prev = 0;
  size_t k = 0;
  bool sorted = true;
  for (int i = lo; i < hi; i++) {
    uint64_t l = mv[i] >> 32;
    int d = (int)(uint32_t)mv[i];
    if (!(hid[l] && blk[d] == bc)) {
      uint64_t e = l << 32 | (uint32_t)blk[d];
      sorted = sorted && (k == 0 || e > prev);
      w[k++] = prev = e;
    }
  }
  if (!sorted) k = sort_unique(w, k);
  for (int i = lo; i < hi; i++) {
    int d = (int)(uint32_t)mv[i];
    if (!(hid[mv[i] >> 32] && blk[d] == bc)) continue;
    const uint64_t *a = w, *b = sg->sig.data + sg->soff[d];
    size_t na = k, nb = sg->slen[d], ia = 0, ib = 0, n = 0;
    while (ia < na || ib < nb) {
      uint64_t v = ib == nb || (ia < na && a[ia] <= b[ib]) ? a[ia] : b[ib];
      ia += ia < na && a[ia] == v;
      ib += ib < nb && b[ib] == v;
      x[n++] = v;
    }
    memcpy(w, x, n * sizeof *w);
    k = n;
  }
  sg->soff[c] = from;
  sg->slen[c] = k;
  sg->sig.len = from + k;
}

bool robustify_plant_hide(search_t *s, const bitword_t *hidden, plant_t *out) {
  const plant_t *g = &s->g;
  int n = g->n, nl = g->nlabels;
  uint8_t *hid = xcalloc((size_t)nl + 1, 1);
  bool any = false;
  for (int l = 0; l < nl; l++) any |= hid[l] = bitset_get(hidden, (size_t)l);
  if (!any || n == 0) {
    free(hid);
    return false;
  }
  /* the hidden moves' cycles collapsed: their states are equivalent;
   * components numbered in the order they are completed (every component
   * reachable from one has a smaller number) */
  int *comp = xmalloc(((size_t)n + 1) * sizeof *comp);
  scc_graph_t hg = {n, g->off, g->dst, g->lab, hid, false};
  int m = scc_tarjan(&hg, -1, comp, NULL);
  /* per component: its moves (label, component), none on a hidden label
   * inside the component, sorted and without repeats; its kind */
  int *kind = xmalloc(((size_t)m + 1) * sizeof *kind), *moff = xcalloc((size_t)m + 2, sizeof *moff);
  bool ok = true;
  for (int c = 0; c < m; c++) kind[c] = -1;
  for (int x = 0; x < n; x++) {
    int k = x == g->error ? 1 : bitset_get(g->marked, (size_t)x) ? 2 : 0;
    if (kind[comp[x]] >= 0 && kind[comp[x]] != k)
      ok = false; /* not expected: hidden moves keep the marking */
    kind[comp[x]] = k;
    moff[comp[x] + 1] += g->off[x + 1] - g->off[x];
  }
  for (int c = 0; c < m; c++) moff[c + 1] += moff[c];
  uint64_t *mv = xmalloc(((size_t)moff[m] + 1) * sizeof *mv);
  int *fill = xmalloc(((size_t)m + 1) * sizeof *fill);
  memcpy(fill, moff, (size_t)m * sizeof *fill);
  for (int x = 0; x < n; x++)
    for (int t = g->off[x]; t < g->off[x + 1]; t++) {
      int d = comp[g->dst[t]];
      if (hid[g->lab[t]] && d == comp[x]) continue;
      mv[fill[comp[x]]++] = (uint64_t)(uint32_t)g->lab[t] << 32 | (uint32_t)d;
    }
  int *mlen = fill; /* each component's moves: mv[moff[c], + mlen[c]) */
  for (int c = 0; c < m; c++) mlen[c] = (int)sort_unique(mv + moff[c], (size_t)(fill[c] - moff[c]));
  /* signature refinement (branching bisimulation, hidden labels as τ;
   * Blom and Orzan's signatures, a block refined only when it may have
   * become unstable): a component's signature is its moves (label,
   * block) but the hidden ones within its block, and the signatures of
   * the components it moves to that way (completed before it, so
   * numbered lower: computed first). Splitting a block by the signatures
   * of any partition coarser than branching bisimilarity never separates
   * two bisimilar components, so the stable partition reached is the
   * coarsest. A block is refined again when it was split (hidden moves
   * within it may no longer be) or one of its members moves to a
   * component whose block number changed. */
  int *blk = xmalloc(((size_t)m + 1) * sizeof *blk), *memb = xmalloc(((size_t)m + 1) * sizeof *memb);
  intvec_t bfirst = {0}, bsize = {0}, todo = {0}, next = {0};
  VEC(uint8_t) dirty = {0};
  {
    int cnt[3] = {0, 0, 0}, id[3], at[3], nb = 0;
    for (int c = 0; c < m; c++) cnt[kind[c]]++;
    for (int k = 0, pos = 0; k < 3; k++) {
      id[k] = cnt[k] ? nb++ : -1;
      at[k] = pos;
      if (cnt[k]) {
        VEC_PUSH(&bfirst, pos);
        VEC_PUSH(&bsize, cnt[k]);
        VEC_PUSH(&dirty, 1);
        VEC_PUSH(&todo, id[k]);
      }
      pos += cnt[k];
    }
    for (int c = 0; c < m; c++) blk[c] = id[kind[c]], memb[at[kind[c]]++] = c; /* ascending in each block */
  }
  /* predecessors of each component (any move but a hidden one within it) */
  int *poff = xcalloc((size_t)m + 2, sizeof *poff), *psrc = xmalloc(((size_t)moff[m] + 1) * sizeof *psrc);
  for (int c = 0; c < m; c++)
    for (int i = moff[c]; i < moff[c] + mlen[c]; i++) poff[(int)(uint32_t)mv[i] + 1]++;
  for (int c = 0; c < m; c++) poff[c + 1] += poff[c];
  {
    int *pf = xmalloc(((size_t)m + 1) * sizeof *pf);
    memcpy(pf, poff, (size_t)m * sizeof *pf);
    for (int c = 0; c < m; c++)
      for (int i = moff[c]; i < moff[c] + mlen[c]; i++) psrc[pf[(int)(uint32_t)mv[i]]++] = c;
    free(pf);
  }
  size_t *soff = xmalloc(((size_t)m + 1) * sizeof *soff), *slen = xmalloc(((size_t)m + 1) * sizeof *slen);
  int *grp = xmalloc(((size_t)m + 1) * sizeof *grp), *tmp = xmalloc(((size_t)m + 1) * sizeof *tmp);
  /* the distinct signatures of one block: open addressing over their
   * hashes, each slot the top bits of the hash and the first member with
   * it; reset after each block through `used` */
  size_t cap = 64;
  while (cap < 2 * (size_t)m + 2) cap *= 2;
  typedef struct {
    uint32_t hi;
    int32_t c;
  } sslot_t;
  sslot_t *slot = xmalloc(cap * sizeof *slot);
  for (size_t i = 0; i < cap; i++) slot[i].c = -1;
  size_t *used = xmalloc(((size_t)m + 1) * sizeof *used);
  int *gsize = xmalloc(((size_t)m + 1) * sizeof *gsize);
  sigs_t sg = {mv, moff, mlen, hid, blk, soff, slen, {0}};
  while (ok && todo.len > 0) {
    if (robustify_out_of_time(s)) {
      ok = false;
      break;
    }
    VEC_CLEAR(&next);
    for (size_t ti = 0; ti < todo.len; ti++) {
      int b = todo.data[ti], first = bfirst.data[b], size = bsize.data[b];
      dirty.data[b] = 0;
      sg.sig.len = 0;
      int ngroups = 0;
      for (int j = 0; j < size; j++) {
        int c = memb[first + j];
        sig_of(&sg, c);
        const uint64_t *sc = sg.sig.data + soff[c];
        uint64_t h = 0x9e3779b97f4a7c15ull;
        for (size_t i = 0; i < slen[c]; i++) h = (h ^ sc[i]) * 0xff51afd7ed558ccdull, h ^= h >> 29;
        for (size_t at = (size_t)(h >> 20) & (cap - 1);; at = (at + 1) & (cap - 1)) {
          int o = slot[at].c;
          if (o < 0) {
            slot[at] = (sslot_t){(uint32_t)(h >> 32), c};
            used[ngroups] = at;
            gsize[ngroups] = 0;
            grp[c] = ngroups++;
            break;
          }
          if (slot[at].hi == (uint32_t)(h >> 32) && slen[o] == slen[c] &&
              memcmp(sg.sig.data + soff[o], sc, slen[c] * sizeof *sc) == 0) {
            grp[c] = grp[o];
            break;
          }
        }
        gsize[grp[c]]++;
      }
      for (int i = 0; i < ngroups; i++) slot[used[i]].c = -1;
      if (ngroups == 1) continue;
      /* split: group 0 keeps b, the others get new blocks, members still ascending */
      int pos = 0; /* tmp: the members in their new order */
      intvec_t gfirst = {0};
      for (int i = 0; i < ngroups; i++) {
        VEC_PUSH(&gfirst, pos);
        pos += gsize[i];
      }
      for (int j = 0; j < size; j++) {
        int c = memb[first + j];
        tmp[gfirst.data[grp[c]]++] = c;
      }
      for (int i = 0, p0 = 0; i < ngroups; i++) {
        int nb = i == 0 ? b : (int)bfirst.len;
        if (i == 0)
          bsize.data[b] = gsize[0];
        else {
          VEC_PUSH(&bfirst, first + p0);
          VEC_PUSH(&bsize, gsize[i]);
          VEC_PUSH(&dirty, 0);
        }
        for (int j = p0; j < p0 + gsize[i]; j++) memb[first + j] = tmp[j], blk[tmp[j]] = nb;
        if (!dirty.data[nb]) {
          dirty.data[nb] = 1;
          VEC_PUSH(&next, nb);
        }
        p0 += gsize[i];
      }
      VEC_FREE(&gfirst);
      for (int j = gsize[0]; j < size; j++) { /* the members whose block number changed */
        int c = memb[first + j];
        for (int i = poff[c]; i < poff[c + 1]; i++) {
          int pb = blk[psrc[i]];
          if (!dirty.data[pb]) {
            dirty.data[pb] = 1;
            VEC_PUSH(&next, pb);
          }
        }
      }
    }
    intvec_t t = todo;
    todo = next, next = t;
  }
  /* the signatures over the stable partition, for the quotient's moves */
  sg.sig.len = 0;
  for (int c = 0; ok && c < m; c++) sig_of(&sg, c);
  int *nblk = grp;
  if (ok) {
    /* blocks numbered by their first G state (state 0's block is 0) */
    int *num = nblk, *rep = xmalloc(((size_t)n + 1) * sizeof *rep), k = 0;
    for (int b = 0; b < m; b++) num[b] = -1;
    for (int x = 0; x < n; x++)
      if (num[blk[comp[x]]] < 0) rep[k] = comp[x], num[blk[comp[x]]] = k++;
    memset(out, 0, sizeof *out);
    out->n = k;
    out->nlabels = nl;
    out->error = g->error >= 0 ? num[blk[comp[g->error]]] : -1;
    out->marked = bitset_new((size_t)k);
    out->off = xmalloc(((size_t)k + 1) * sizeof *out->off);
    size_t nt = 0;
    for (int b = 0; b < k; b++) nt += slen[rep[b]];
    out->lab = xmalloc((nt + 1) * sizeof *out->lab);
    out->dst = xmalloc((nt + 1) * sizeof *out->dst);
    int e = 0;
    for (int b = 0; b < k; b++) {
      int c = rep[b];
      out->off[b] = e;
      if (kind[c] == 2) bitset_set(out->marked, (size_t)b);
      for (size_t i = 0; i < slen[c]; i++, e++) { /* sorted by label: the signature's order */
        out->lab[e] = (int)(sg.sig.data[soff[c] + i] >> 32);
        out->dst[e] = num[(int)(uint32_t)sg.sig.data[soff[c] + i]];
      }
    }
    out->off[k] = e;
    out->ntrans = e;
    out->alpha = bitset_new((size_t)nl);
    memcpy(out->alpha, g->alpha, BITSET_WORDS((size_t)nl) * sizeof *out->alpha);
    free(rep);
  }
  VEC_FREE(&sg.sig);
  free(slot);
  free(used);
  free(gsize);
  free(tmp);
  free(memb);
  free(poff);
  free(psrc);
  VEC_FREE(&bfirst);
  VEC_FREE(&bsize);
  VEC_FREE(&todo);
  VEC_FREE(&next);
  VEC_FREE(&dirty);
  free(soff);
  free(slen);
  free(blk);
  free(nblk);
  free(mv);
  free(fill);
  free(moff);
  free(kind);
  free(comp);
  free(hid);
  return ok;
}
