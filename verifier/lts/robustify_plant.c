#include "verifier/lts/robustify_plant.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ism/alloc.h"
#include "ism/stop.h"
#include "verifier/lts/robustify_observer.h"

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
