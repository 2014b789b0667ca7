#include "verifier/lts/robustify.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ism/alloc.h"
#include "ism/stop.h"
#include "ism/bitset.h"
#include "ism/keytab.h"
#include "ism/vec.h"

/* ------------------------------------------------------------- plant */

typedef struct observer observer_t;
typedef VEC(int) intvec_t;

/* Observers kept per plant (observer_get). */
#define ROBUSTIFY_OBSERVERS 4

/* Bound on the bad sets kept for warm starts (see evaluate). */
#define ROBUSTIFY_CACHE_BYTES ((size_t)256 << 20)

/* G = M ‖ E' ‖ P_err ‖ progress monitors, deterministic. Invariants:
 * transitions of g are lab/dst[off[g] .. off[g+1]) sorted by label; the
 * error state (P violated) has none; marked = every progress action seen. */
typedef struct {
  int n, error, ntrans, nlabels;
  int *off, *lab, *dst;
  bitword_t *marked;
  bitword_t *alpha; /* labels of M ‖ E' */
  observer_t
      *observer[ROBUSTIFY_OBSERVERS]; /* the observers last used on G, most recent first (a cache), or NULL */
} plant_t;

typedef struct {
  const robustify_problem_t *p;
  plant_t g;
  bool watch_stop; /* a stop request (ism/stop.h) bounds the search */
  bool final;      /* the final phase: a time limit stops it ROBUSTIFY_FINAL_GRACE s after it came */
  bool bounded;
  bool search_done;
  const char *limit; /* the first limit that stopped something, or NULL */
  long long stop_seen_ns;
  keytab_t cache; /* (sorted C, -1, sorted O) -> entry */
  VEC(uint8_t) cache_exists;
  VEC(uint64_t) cache_kept;
  VEC(bitword_t *) cache_bad; /* the bad sets of an entry with a supervisor (its O's observer), or NULL */
  size_t bad_bytes;
  int nsynth;
  long *pref_w, *ctrl_w, *obs_w;
  lts_t *dev_det, *prop; /* E' determinised and P_err, built with the first plant (OASIS builds many) */
  int *step[3];          /* parts 1, 2 (E', P_err): step[i][x * step_nl + a] = x's successor by a or -1 */
  int step_nl;
  int *cnum; /* plant_build's direct table of composite tuples, all -1 between builds */
  size_t cnum_cap;
  size_t plant_hint, trans_hint; /* sizes of the last plant built, to size the next one's arrays */
  size_t pairs_hint, moves_hint, sets_hint, set_moves_hint; /* and of the last observer */
} search_t;

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

static bool out_of_time(search_t *s) {
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

static bool over_states(search_t *s, size_t n) {
  if (s->p->max_states > 0 && n > (size_t)s->p->max_states) set_bounded(s, "max-states");
  return s->bounded;
}

static bool stop_search(void *s) { return out_of_time(s); }

/* l determinised within the search's limits (--max-states bounds the
 * subsets, --timeout the time); NULL when a limit stopped it. */
static lts_t *deterministic_bounded(search_t *s, const lts_t *l) {
  if (lts_is_deterministic(l)) return lts_copy(l);
  lts_t *d = lts_determinise_bounded(l, true, s->p->max_states, stop_search, s);
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
static int *step_table(const lts_t *l, int nl) {
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
static bool plant_build(search_t *s, const lts_t *sys) {
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
  if (!s->prop && !(s->prop = lts_property_bounded(p->safety, p->max_states, stop_search, s))) {
    if (!s->bounded) s->bounded = true, s->limit = "max-states";
    lts_free(dm);
    return false;
  }
  const lts_t *de = s->dev_det, *parts[3] = {dm, de, s->prop};
  g->nlabels = (int)labels->names.count;
  int nl = g->nlabels;
  if (s->step_nl != nl) { /* E' and P_err are the same for every plant of the run */
    for (int i = 1; i < 3; i++) free(s->step[i]), s->step[i] = step_table(parts[i], nl);
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
  /* (dm, de, P) -> its number c (a direct table when small, else a
   * keytab), then (c, mask) -> G id in cid[c * nmask + mask] */
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
  VEC(int) qx = {0}, off = {0}, lab = {0}, dst = {0};
  VEC_RESERVE(&qx, 4 * s->plant_hint + 4);
  VEC_RESERVE(&off, s->plant_hint + 2);
  VEC_RESERVE(&lab, s->trans_hint + 1);
  VEC_RESERVE(&dst, s->trans_hint + 1);
  intvec_t ql = {0}, qd = {0};
  g->error = -1;
  int tuple[4] = {dm->init, de->init, parts[2]->init, 0};
#define STATE_ID(t, out)                                                                                     \
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
    while (cid.len < (size_t)ncomp * nmask) VEC_PUSH(&cid, -1);                                              \
    int *g_ = &cid.data[(size_t)c_ * nmask + (size_t)(t)[3]];                                                \
    if (*g_ < 0) {                                                                                           \
      *g_ = (int)(qx.len / 4);                                                                               \
      for (int i_ = 0; i_ < 4; i_++) VEC_PUSH(&qx, (t)[i_]);                                                 \
    }                                                                                                        \
    (out) = *g_;                                                                                             \
  } while (0)
  int first;
  STATE_ID(tuple, first);
  (void)first;
  bool ok = true;
  for (size_t h = 0; h < qx.len / 4; h++) {
    if (over_states(s, qx.len / 4) || ((h & 255) == 0 && out_of_time(s))) {
      ok = false;
      break;
    }
    VEC_PUSH(&off, (int)lab.len);
    int x[4];
    memcpy(x, qx.data + 4 * h, sizeof x);
    if ((int)h == g->error) continue; /* the error state has no moves */
    VEC_CLEAR(&ql);
    VEC_CLEAR(&qd);
    for (int i = 0; i < 3; i++) { /* each label once: from the first part that has it */
      const lts_t *l = parts[i];
      for (int t = l->succ_off[x[i]]; t < l->succ_off[x[i] + 1]; t++) {
        int a = l->succ_label[t];
        if (in[a] & ((1 << i) - 1)) continue;
        int nx[4] = {x[0], x[1], x[2], x[3]};
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
        int d;
        if (err) {
          if (g->error < 0) {
            int et[4] = {-1, -1, -1, -1};
            g->error = (int)(qx.len / 4);
            for (int k = 0; k < 4; k++) VEC_PUSH(&qx, et[k]);
          }
          d = g->error;
        } else {
          nx[3] = bit[a] >= 0 ? x[3] | (1 << bit[a]) : x[3];
          STATE_ID(nx, d);
        }
        VEC_PUSH(&ql, a);
        VEC_PUSH(&qd, d);
      }
    }
    /* by label: insertion sort of the state's few moves */
    for (size_t k = 1; k < ql.len; k++) {
      int a = ql.data[k], d = qd.data[k];
      size_t j = k;
      for (; j > 0 && ql.data[j - 1] > a; j--) ql.data[j] = ql.data[j - 1], qd.data[j] = qd.data[j - 1];
      ql.data[j] = a, qd.data[j] = d;
    }
    for (size_t k = 0; k < ql.len; k++) {
      VEC_PUSH(&lab, ql.data[k]);
      VEC_PUSH(&dst, qd.data[k]);
    }
  }
#undef STATE_ID
  VEC_PUSH(&off, (int)lab.len);
  g->n = (int)(qx.len / 4);
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
  for (size_t h = 0; direct && h < qx.len / 4; h++) /* the direct table back to all -1 */
    if ((int)h != g->error)
      cnum[((size_t)qx.data[4 * h] * n1 + (size_t)qx.data[4 * h + 1]) * n2 + (size_t)qx.data[4 * h + 2]] = -1;
  keytab_free(&tab);
  VEC_FREE(&cid);
  free(in);
  free(bit);
  VEC_FREE(&qx);
  VEC_FREE(&ql);
  VEC_FREE(&qd);
  return ok;
}

static void observer_free(observer_t *o);

static void plant_free(plant_t *g) {
  for (int i = 0; i < ROBUSTIFY_OBSERVERS; i++) observer_free(g->observer[i]);
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
static bool plant_minimise(search_t *s, plant_t *out) {
  const plant_t *g = &s->g;
  /* the coarsest partition (lts_dfa_partition) of the classes normal,
   * error, marked; blocks numbered in state order, so state 0 stays in
   * block 0 */
  int *block = xmalloc(((size_t)g->n + 1) * sizeof *block),
      *next = xmalloc(((size_t)g->n + 1) * sizeof *next);
  for (int i = 0; i < g->n; i++) block[i] = i == g->error ? 1 : bitset_get(g->marked, (size_t)i) ? 2 : 0;
  int nblocks = lts_dfa_partition(g->n, g->off, g->lab, g->dst, block, stop_search, s);
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

/* ------------------------------------------------------- synthesis */

/* The observer of G for the observable set O. Observation sets Y (sorted G
 * states, closed under unobservable moves) are keytab ids; a pair (x, Y)
 * with x ∈ Y has id = the position of x in the keytab's concatenated keys.
 * It depends on O only, not on C, so the syntheses of one O share it (the
 * searches change C far more often than O: pump-2's Pareto search runs 1061
 * syntheses over 16 observable sets, changing O 35 times). */
struct observer {
  bitword_t *obs; /* the O it is built for */
  keytab_t sets;
  VEC(int) toff, tlab, tdst;  /* observable transitions of set i: [toff[i], toff[i+1]), by label */
  int *pair_set;              /* set of each pair */
  bool *has_error;            /* sets holding the error state */
  int *foff, *flab, *fdst;    /* pair moves (none into the error state), CSR by source pair */
  int *roff, *rsrc;           /* the same reversed: source pairs, CSR by target pair */
  int *rtoff, *rtsrc, *rtlab; /* set moves reversed: (source set, label), CSR by target set */
  int *loff, *lsrc, *ldst;    /* set moves by label: (source, target), CSR by label */
  intvec_t *witness; /* per preferred behaviour: pairs of a closed-loop trace accepting it, or empty */
};

/* One synthesis for controllable set C and observable set O (bitsets over
 * labels) on the observer of O. */
typedef struct {
  search_t *s;
  const bitword_t *ctrl, *obs;
  observer_t *o;
  bool *bad, *reach; /* per set; reach only after synth_reach */
  bool exists;
} synth_t;

static bool ctrl_has(const synth_t *y, int l) { return bitset_get(y->ctrl, (size_t)l); }

/* Ascending: quicksort (median of three) down to runs of 24, then one
 * insertion sort (most observation sets are short); no comparison callback,
 * recursion only into the smaller side. */
static void sort_ints(int *a, size_t n) {
  while (n > 24) {
    size_t m = n / 2;
    int x = a[0], y = a[m], z = a[n - 1];
    int pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
    size_t i = 0, j = n - 1;
    for (;;) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i >= j) break;
      int t = a[i];
      a[i++] = a[j];
      a[j--] = t;
    }
    /* a[0..j] <= pivot <= a[j+1..n) */
    if (j + 1 < n - j - 1) {
      sort_ints(a, j + 1);
      a += j + 1;
      n -= j + 1;
    } else {
      sort_ints(a + j + 1, n - j - 1);
      n = j + 1;
    }
  }
  for (size_t i = 1; i < n; i++) {
    int v = a[i];
    size_t j = i;
    for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
    a[j] = v;
  }
}

static void observer_free(observer_t *o) {
  if (!o) return;
  free(o->obs);
  keytab_free(&o->sets);
  VEC_FREE(&o->toff);
  VEC_FREE(&o->tlab);
  VEC_FREE(&o->tdst);
  free(o->pair_set);
  free(o->has_error);
  free(o->foff);
  free(o->flab);
  free(o->fdst);
  free(o->roff);
  free(o->rsrc);
  free(o->rtoff);
  free(o->rtsrc);
  free(o->rtlab);
  free(o->loff);
  free(o->lsrc);
  free(o->ldst);
  for (int i = 0; o->witness && i < ROBUSTIFY_MAX_PREFERRED; i++) VEC_FREE(&o->witness[i]);
  free(o->witness);
  free(o);
}

/* Scratch of one observer construction: the unobservable moves of G
 * (CSR by source), a stamp per G state for closures, the seeds already
 * closed (sorted seeds of two or more states -> set id; one state: by
 * state in `single`, no key to hash) and positions of states in a set. */
typedef struct {
  int *uoff, *udst;
  int *stamp, epoch;
  keytab_t seeded;
  VEC(int) seeded_id;
  int *single;
  int *pos;
} closer_t;

/* The set id of the unobservable closure of seeds (made unique and
 * sorted here; they are G states), added when new. */
static int close_set(closer_t *c, observer_t *o, intvec_t *seeds) {
  c->epoch++;
  size_t k = 0;
  for (size_t i = 0; i < seeds->len; i++)
    if (c->stamp[seeds->data[i]] != c->epoch)
      c->stamp[seeds->data[i]] = c->epoch, seeds->data[k++] = seeds->data[i];
  seeds->len = k;
  int sid = -1;
  if (k == 1) {
    if (c->single[seeds->data[0]] >= 0) return c->single[seeds->data[0]];
  } else {
    sort_ints(seeds->data, seeds->len);
    bool added;
    sid = keytab_add(&c->seeded, seeds->data, seeds->len, &added);
    if (!added) return c->seeded_id.data[sid];
  }
  int first = k == 1 ? seeds->data[0] : -1;
  for (size_t i = 0; i < seeds->len; i++) {
    int x = seeds->data[i];
    for (int t = c->uoff[x]; t < c->uoff[x + 1]; t++)
      if (c->stamp[c->udst[t]] != c->epoch) {
        c->stamp[c->udst[t]] = c->epoch;
        VEC_PUSH(seeds, c->udst[t]);
      }
  }
  if (seeds->len > 1) sort_ints(seeds->data, seeds->len);
  bool added;
  int id = keytab_add(&o->sets, seeds->data, seeds->len, &added);
  if (first >= 0)
    c->single[first] = id;
  else
    VEC_PUSH(&c->seeded_id, id);
  return id;
}

/* succ[l] (-1 for every label before) becomes the successor set of set q
 * by each observable label l it moves on; with `undo`, -1 again. */
static void set_moves(const observer_t *o, int q, int *succ, bool undo) {
  for (int t = o->toff.data[q]; t < o->toff.data[q + 1]; t++)
    succ[o->tlab.data[t]] = undo ? -1 : o->tdst.data[t];
}

/* The observer of O: every observation set reachable from {init}, and the
 * pair moves both ways. NULL when a limit stopped it. Per set, one pass
 * over its members' transitions counts each pair's moves (none into the
 * error state) and each observable label's; a second writes the
 * unobservable ones in place (target: by position in the set itself) and
 * buckets the observable ones by label (a counting sort), whose seeds
 * are closed into the successor sets in label order; their moves go in
 * place too (target: by position in the successor set). A pair's moves
 * are so its unobservable ones, then its observable ones by label. */
static observer_t *observer_build(search_t *s, const bitword_t *obs) {
  const plant_t *g = &s->g;
  int nl = g->nlabels;
  observer_t *o = xcalloc(1, sizeof *o);
  o->obs = bitset_new((size_t)nl);
  memcpy(o->obs, obs, BITSET_WORDS((size_t)nl) * sizeof *obs);
  keytab_init(&o->sets);
  closer_t c = {0};
  uint8_t *is_obs = xmalloc((size_t)nl + 1);
  for (int l = 0; l < nl; l++) is_obs[l] = bitset_get(obs, (size_t)l);
  c.uoff = xcalloc((size_t)g->n + 2, sizeof *c.uoff);
  for (int x = 0; x < g->n; x++) {
    c.uoff[x + 1] = c.uoff[x];
    for (int t = g->off[x]; t < g->off[x + 1]; t++) c.uoff[x + 1] += !is_obs[g->lab[t]];
  }
  c.udst = xmalloc(((size_t)c.uoff[g->n] + 1) * sizeof *c.udst);
  for (int x = 0, k = 0; x < g->n; x++)
    for (int t = g->off[x]; t < g->off[x + 1]; t++)
      if (!is_obs[g->lab[t]]) c.udst[k++] = g->dst[t];
  c.stamp = xcalloc((size_t)g->n + 1, sizeof *c.stamp);
  c.pos = xmalloc(((size_t)g->n + 1) * sizeof *c.pos);
  c.single = xmalloc(((size_t)g->n + 1) * sizeof *c.single);
  memset(c.single, -1, ((size_t)g->n + 1) * sizeof *c.single);
  keytab_init(&c.seeded);
  int *cnt = xcalloc((size_t)nl + 1, sizeof *cnt), *start = xmalloc(((size_t)nl + 1) * sizeof *start);
  intvec_t seeds = {0}, labs = {0}, mem = {0}, pfill = {0}, bd = {0}, bi = {0};
  intvec_t foff = {0}, flab = {0}, fdst = {0}; /* pair moves, CSR by source pair */
  VEC_RESERVE(&flab, s->moves_hint + 1);
  VEC_RESERVE(&fdst, s->moves_hint + 1);
  VEC_RESERVE(&foff, s->pairs_hint + 2);
  VEC_RESERVE(&o->sets.keys, s->pairs_hint + 1);
  VEC_RESERVE(&o->sets.off, s->sets_hint + 2);
  VEC_RESERVE(&o->toff, s->sets_hint + 2);
  VEC_RESERVE(&o->tlab, s->set_moves_hint + 1);
  VEC_RESERVE(&o->tdst, s->set_moves_hint + 1);
  VEC_PUSH(&foff, 0);
  VEC_PUSH(&seeds, 0);
  close_set(&c, o, &seeds);
  bool ok = true;
  for (size_t q = 0; q < o->sets.count; q++) {
    if (over_states(s, o->sets.keys.len) || ((q & 255) == 0 && out_of_time(s))) {
      ok = false;
      break;
    }
    VEC_PUSH(&o->toff, (int)o->tlab.len);
    size_t m, base = o->sets.off.data[q];
    const int *km = keytab_key(&o->sets, (int)q, &m);
    VEC_RESERVE(&mem, m + 1);
    VEC_RESERVE(&pfill, m + 1);
    memcpy(mem.data, km, m * sizeof *km); /* km moves when a set is added */
    VEC_CLEAR(&labs);
    size_t nmoves = flab.len, nobsm = 0;
    for (size_t i = 0; i < m; i++) {
      int x = mem.data[i];
      c.pos[x] = (int)i;
      pfill.data[i] = (int)nmoves;
      for (int t = g->off[x]; t < g->off[x + 1]; t++) {
        int l = g->lab[t];
        nmoves += g->dst[t] != g->error;
        if (is_obs[l]) {
          nobsm++;
          if (cnt[l]++ == 0) VEC_PUSH(&labs, l);
        }
      }
      VEC_PUSH(&foff, (int)nmoves);
    }
    VEC_RESERVE(&flab, nmoves + 1);
    VEC_RESERVE(&fdst, nmoves + 1);
    flab.len = fdst.len = nmoves;
    sort_ints(labs.data, labs.len);
    int total = 0;
    for (size_t li = 0; li < labs.len; li++) start[labs.data[li]] = total, total += cnt[labs.data[li]];
    VEC_RESERVE(&bd, nobsm + 1);
    VEC_RESERVE(&bi, nobsm + 1);
    int *fp = pfill.data, *fl = flab.data, *fd = fdst.data;
    for (size_t i = 0; i < m; i++) {
      int x = mem.data[i];
      for (int t = g->off[x]; t < g->off[x + 1]; t++) {
        int l = g->lab[t], d = g->dst[t];
        if (is_obs[l]) {
          int j = start[l]++;
          bd.data[j] = d;
          bi.data[j] = (int)i;
        } else if (d != g->error) { /* inside the set */
          int e = fp[i]++;
          fl[e] = l;
          fd[e] = (int)base + c.pos[d];
        }
      }
    }
    for (size_t li = 0, from = 0; li < labs.len; li++) {
      int l = labs.data[li], n = cnt[l];
      cnt[l] = 0;
      VEC_RESERVE(&seeds, (size_t)n + 1);
      memcpy(seeds.data, bd.data + from, (size_t)n * sizeof *seeds.data);
      seeds.len = (size_t)n;
      int to = close_set(&c, o, &seeds);
      VEC_PUSH(&o->tlab, l);
      VEC_PUSH(&o->tdst, to);
      size_t tm, tbase = o->sets.off.data[to];
      const int *tk = keytab_key(&o->sets, to, &tm);
      bool few = (size_t)n * 8 < tm; /* then each target by binary search in the sorted set */
      for (size_t i = 0; !few && i < tm; i++) c.pos[tk[i]] = (int)i;
      for (int k = 0; k < n; k++) {
        int d = bd.data[from + (size_t)k];
        if (d == g->error) continue;
        int e = fp[bi.data[from + (size_t)k]]++, at;
        if (few) {
          size_t lo = 0, hi = tm;
          while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (tk[mid] <= d)
              lo = mid;
            else
              hi = mid;
          }
          at = (int)lo;
        } else
          at = c.pos[d];
        fl[e] = l;
        fd[e] = (int)(tbase + (size_t)at);
      }
      from += (size_t)n;
    }
  }
  VEC_PUSH(&o->toff, (int)o->tlab.len);
  free(is_obs);
  free(cnt);
  free(start);
  free(c.uoff);
  free(c.udst);
  free(c.stamp);
  free(c.pos);
  free(c.single);
  keytab_free(&c.seeded);
  VEC_FREE(&c.seeded_id);
  VEC_FREE(&seeds);
  VEC_FREE(&labs);
  VEC_FREE(&mem);
  VEC_FREE(&pfill);
  VEC_FREE(&bd);
  VEC_FREE(&bi);
  if (!ok) {
    VEC_FREE(&foff);
    VEC_FREE(&flab);
    VEC_FREE(&fdst);
    observer_free(o);
    return NULL;
  }
  int nsets = (int)o->sets.count;
  size_t npairs = o->sets.keys.len;
  assert(foff.len == npairs + 1);
  o->has_error = xcalloc((size_t)nsets + 1, sizeof *o->has_error);
  o->pair_set = xmalloc((npairs + 1) * sizeof *o->pair_set);
  for (int q = 0; q < nsets; q++)
    for (size_t p = o->sets.off.data[q]; p < o->sets.off.data[q + 1]; p++) {
      o->pair_set[p] = q;
      if (o->sets.keys.data[p] == g->error) o->has_error[q] = true;
    }
  size_t nm = flab.len;
  s->moves_hint = nm;
  s->pairs_hint = npairs;
  s->sets_hint = (size_t)nsets;
  s->set_moves_hint = o->tlab.len;
  o->foff = foff.data;
  o->flab = flab.data;
  o->fdst = fdst.data;
  intvec_t fl = {.data = o->flab, .len = nm}, fd = {.data = o->fdst, .len = nm};
  o->roff = xcalloc(npairs + 2, sizeof *o->roff);
  for (size_t e = 0; e < fl.len; e++) o->roff[fd.data[e] + 1]++;
  for (size_t p = 0; p < npairs; p++) o->roff[p + 1] += o->roff[p];
  o->rsrc = xmalloc((fl.len + 1) * sizeof *o->rsrc);
  int *fill = xmalloc((npairs + 1) * sizeof *fill);
  memcpy(fill, o->roff, npairs * sizeof *fill);
  for (size_t p = 0; p < npairs; p++)
    for (int e = o->foff[p]; e < o->foff[p + 1]; e++) o->rsrc[fill[o->fdst[e]]++] = (int)p;
  free(fill);
  /* set moves reversed (by target set) and by label, for the syntheses'
   * backward propagation and their warm starts */
  size_t nt = o->tlab.len;
  o->rtoff = xcalloc((size_t)nsets + 2, sizeof *o->rtoff);
  o->loff = xcalloc((size_t)g->nlabels + 2, sizeof *o->loff);
  for (size_t t = 0; t < nt; t++) o->rtoff[o->tdst.data[t] + 1]++, o->loff[o->tlab.data[t] + 1]++;
  for (int q = 0; q < nsets; q++) o->rtoff[q + 1] += o->rtoff[q];
  for (int l = 0; l < g->nlabels; l++) o->loff[l + 1] += o->loff[l];
  o->rtsrc = xmalloc((nt + 1) * sizeof *o->rtsrc);
  o->rtlab = xmalloc((nt + 1) * sizeof *o->rtlab);
  o->lsrc = xmalloc((nt + 1) * sizeof *o->lsrc);
  o->ldst = xmalloc((nt + 1) * sizeof *o->ldst);
  int *rfill = xmalloc(((size_t)nsets + 1) * sizeof *rfill),
      *lfill = xmalloc(((size_t)g->nlabels + 1) * sizeof *lfill);
  memcpy(rfill, o->rtoff, (size_t)nsets * sizeof *rfill);
  memcpy(lfill, o->loff, (size_t)g->nlabels * sizeof *lfill);
  for (int q = 0; q < nsets; q++)
    for (int t = o->toff.data[q]; t < o->toff.data[q + 1]; t++) {
      int r = o->tdst.data[t], l = o->tlab.data[t], i = rfill[r]++, j = lfill[l]++;
      o->rtsrc[i] = q, o->rtlab[i] = l;
      o->lsrc[j] = q, o->ldst[j] = r;
    }
  free(rfill);
  free(lfill);
  o->witness = xcalloc(ROBUSTIFY_MAX_PREFERRED, sizeof *o->witness);
  return o;
}

/* The observer of O on the current plant: a cached one when it is for O
 * (the last ROBUSTIFY_OBSERVERS used: the fast search tries O minus one
 * action, then goes back to O; the Pareto search's layers revisit a few O
 * in turn), else a fresh one. */
static observer_t *observer_get(search_t *s, const bitword_t *obs) {
  plant_t *g = &s->g;
  observer_t **c = g->observer;
  int i = 0;
  while (i < ROBUSTIFY_OBSERVERS && !(c[i] && bitset_equal(c[i]->obs, obs, (size_t)g->nlabels))) i++;
  observer_t *hit = i < ROBUSTIFY_OBSERVERS ? c[i] : NULL;
  if (!hit) {
    i = ROBUSTIFY_OBSERVERS - 1;
    observer_free(c[i]);
    c[i] = NULL;
    hit = observer_build(s, obs);
  }
  for (; i > 0; i--) c[i] = c[i - 1]; /* most recent first */
  c[0] = hit;
  return hit;
}

/* bools b[0 .. n) (each 0 or 1) as the bitset w (BITSET_WORDS(n) words),
 * eight at a time: the multiplication gathers the low bits of the eight
 * bytes of x into its top byte, byte i's bit as bit i (no two products
 * meet, so no carries). The Pareto search packs the bad sets of every
 * synthesis it caches (pump-3: 16 419 of about 100 000 sets each). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ROBUSTIFY_BYTES_LE 1 /* the eight-at-a-time packing reads bools as the bytes of a word */
#else
#define ROBUSTIFY_BYTES_LE 0
#endif

static void bools_to_bits(const bool *b, size_t n, bitword_t *w) {
  size_t q = 0;
  for (; ROBUSTIFY_BYTES_LE && q + 64 <= n; q += 64) {
    bitword_t word = 0;
    for (int j = 0; j < 8; j++) {
      uint64_t x;
      memcpy(&x, b + q + 8 * (size_t)j, sizeof x);
      word |= ((x * 0x0102040810204080ull) >> 56) << (8 * j);
    }
    w[q / 64] = word;
  }
  for (; q < n; q += 64) {
    bitword_t word = 0;
    for (size_t i = q; i < n && i < q + 64; i++) word |= (bitword_t)b[i] << (i - q);
    w[q / 64] = word;
  }
}

/* The bitset w of n bits as bools b[0 .. n), a byte of w at a time: the
 * byte copied into all eight bytes, bit i kept in byte i, each byte then
 * made 0 or 1 (adding 0x7f to a byte of at most 0x80 carries into no
 * other byte). */
static void bits_to_bools(const bitword_t *w, size_t n, bool *b) {
  size_t q = 0;
  for (; ROBUSTIFY_BYTES_LE && q + 64 <= n; q += 64) {
    bitword_t word = w[q / 64];
    if (!word) {
      memset(b + q, 0, 64);
      continue;
    }
    for (int j = 0; j < 8; j++) {
      uint64_t y = ((word >> (8 * j) & 255) * 0x0101010101010101ull) & 0x8040201008040201ull;
      uint64_t x = (((y + 0x7f7f7f7f7f7f7f7full) | y) & 0x8080808080808080ull) >> 7;
      memcpy(b + q + 8 * (size_t)j, &x, sizeof x);
    }
  }
  for (; q < n; q++) b[q] = bitset_get(w, q);
}

/* Least fixpoint: a set is bad when it holds the error state, when an
 * uncontrollable observable action leads to a bad set, or when one of its
 * members cannot reach a marked state through good sets.
 *
 * Warm start: `start` (nsets bits, or NULL) is the fixpoint for the same
 * observer and C ∪ {newly}. The operator grows when C shrinks and its
 * coreachability part does not depend on C, so iterating from `start`
 * reaches this C's fixpoint exactly; when no `newly` move leads from a good
 * set into a bad one, `start` is already that fixpoint. */
static void solve(synth_t *y, const bitword_t *start, int newly) {
  const plant_t *g = &y->s->g;
  const observer_t *o = y->o;
  int nsets = (int)o->sets.count;
  size_t npairs = o->sets.keys.len;
  y->bad = xmalloc((size_t)nsets + 1);
  int *work = xmalloc(((size_t)nsets + 1) * sizeof *work), nwork = 0;
  if (start) {
    bits_to_bools(start, (size_t)nsets, y->bad);
    for (int j = o->loff[newly]; j < o->loff[newly + 1]; j++)
      if (y->bad[o->ldst[j]] && !y->bad[o->lsrc[j]]) {
        y->bad[o->lsrc[j]] = true;
        work[nwork++] = o->lsrc[j];
      }
  } else {
    memcpy(y->bad, o->has_error, (size_t)nsets * sizeof *y->bad);
    for (int q = 0; q < nsets; q++)
      if (y->bad[q]) work[nwork++] = q;
  }
  bool grew = !start || nwork > 0;
  bool *co = NULL;
  int *queue = NULL;
  for (;;) {
    while (nwork > 0) { /* an uncontrollable move into a bad set makes its source bad */
      int r = work[--nwork];
      for (int i = o->rtoff[r]; i < o->rtoff[r + 1]; i++) {
        int q = o->rtsrc[i];
        if (!y->bad[q] && !ctrl_has(y, o->rtlab[i])) {
          y->bad[q] = true;
          work[nwork++] = q;
        }
      }
    }
    if (!grew || y->bad[0] || out_of_time(y->s)) break;
    if (!co) {
      co = xmalloc(npairs + 1);
      queue = xmalloc((npairs + 1) * sizeof *queue);
    }
    size_t head = 0, tail = 0;
    for (size_t p = 0; p < npairs; p++) {
      co[p] = !y->bad[o->pair_set[p]] && bitset_get(g->marked, (size_t)o->sets.keys.data[p]);
      if (co[p]) queue[tail++] = (int)p;
    }
    while (head < tail) {
      int r = queue[head++];
      for (int i = o->roff[r]; i < o->roff[r + 1]; i++) {
        int p = o->rsrc[i];
        if (!co[p] && !y->bad[o->pair_set[p]]) co[p] = true, queue[tail++] = p;
      }
    }
    for (size_t p = 0; p < npairs; p++)
      if (!co[p] && !y->bad[o->pair_set[p]]) {
        y->bad[o->pair_set[p]] = true;
        work[nwork++] = o->pair_set[p];
      }
    if (nwork == 0) break;
  }
  free(work);
  free(co);
  free(queue);
  /* bad[0] ends the fixpoint early: no supervisor, whatever else is bad */
  y->exists = !y->bad[0] && !y->s->bounded;
}

/* The sets the supervisor reaches (y->reach), for the supervisor itself
 * and removeUnnecessary. */
static void synth_reach(synth_t *y) {
  const observer_t *o = y->o;
  int nsets = o ? (int)o->sets.count : 0;
  y->reach = xcalloc((size_t)nsets + 1, sizeof *y->reach);
  if (!y->exists) return;
  int *stack = xmalloc((size_t)nsets * sizeof *stack), top = 0;
  y->reach[0] = true;
  stack[top++] = 0;
  while (top) {
    int q = stack[--top];
    for (int t = o->toff.data[q]; t < o->toff.data[q + 1]; t++) {
      int r = o->tdst.data[t];
      if (!y->bad[r] && !y->reach[r]) y->reach[r] = true, stack[top++] = r;
    }
  }
  free(stack);
}

static void synth_free(synth_t *y) {
  free(y->bad);
  free(y->reach);
}

/* One synthesis for C and O; warm-started from `start` as solve says. */
static void synth_run_from(synth_t *y, search_t *s, const bitword_t *ctrl, const bitword_t *obs,
                           const bitword_t *start, int newly) {
  memset(y, 0, sizeof *y);
  y->s = s;
  y->ctrl = ctrl;
  y->obs = obs;
  y->o = observer_get(s, obs);
  if (!y->o) return;
  solve(y, start, newly);
}

static void synth_run(synth_t *y, search_t *s, const bitword_t *ctrl, const bitword_t *obs) {
  synth_run_from(y, s, ctrl, obs, NULL, -1);
}

/* Whether the closed loop has a trace whose projection on pref's alphabet
 * is pref's word (Fortis's acceptsSubWord). The observer keeps the pairs of
 * the last accepting trace found for each behaviour: when they all lie in
 * good sets, that trace is in this closed loop too (pair moves depend on O
 * only), and no search is needed. */
static bool accepts(const synth_t *y, int wi) {
  const plant_t *g = &y->s->g;
  const robustify_pref_t *w = &y->s->p->pref[wi];
  observer_t *o = y->o;
  intvec_t *wit = &o->witness[wi];
  if (wit->len > 0) {
    size_t i = 0;
    while (i < wit->len && !y->bad[o->pair_set[wit->data[i]]]) i++;
    if (i == wit->len) return true;
  }
  size_t npairs = o->sets.keys.len, len = (size_t)w->len + 1;
  bitword_t *in_alpha = bitset_new((size_t)g->nlabels);
  for (int i = 0; i < w->nalpha; i++) bitset_set(in_alpha, (size_t)w->alpha[i]);
  bitword_t *seen = bitset_new(npairs * len);
  VEC(int) qp = {0}, qk = {0}, from = {0};
  VEC_PUSH(&qp, 0); /* pair (init, set 0): init is the first member of set 0 */
  VEC_PUSH(&qk, 0);
  VEC_PUSH(&from, -1);
  bitset_set(seen, 0);
  size_t found = (size_t)-1;
  for (size_t h = 0; h < qp.len; h++) {
    int p = qp.data[h], k = qk.data[h];
    if (k == w->len) {
      found = h;
      break;
    }
#define VISIT(np, nk)                                                                                        \
  do {                                                                                                       \
    size_t key_ = (size_t)(np)*len + (size_t)(nk);                                                           \
    if (!bitset_get(seen, key_)) {                                                                           \
      bitset_set(seen, key_);                                                                                \
      VEC_PUSH(&qp, (np));                                                                                   \
      VEC_PUSH(&qk, (nk));                                                                                   \
      VEC_PUSH(&from, (int)h);                                                                               \
    }                                                                                                        \
  } while (0)
    if (!bitset_get(g->alpha, (size_t)w->word[k])) VISIT(p, k + 1); /* the word's own move */
    for (int e = o->foff[p]; e < o->foff[p + 1]; e++) {
      int l = o->flab[e], r = o->fdst[e];
      if (y->bad[o->pair_set[r]]) continue;
      if (!bitset_get(in_alpha, (size_t)l))
        VISIT(r, k);
      else if (l == w->word[k])
        VISIT(r, k + 1);
    }
#undef VISIT
  }
  if (found != (size_t)-1) {
    VEC_CLEAR(wit);
    for (int h = (int)found; h >= 0; h = from.data[h]) VEC_PUSH(wit, qp.data[h]);
  }
  VEC_FREE(&qp);
  VEC_FREE(&qk);
  VEC_FREE(&from);
  free(seen);
  free(in_alpha);
  return found != (size_t)-1;
}

/* The behaviours among `among` the closed loop keeps. */
static uint64_t kept_mask(const synth_t *y, uint64_t among) {
  uint64_t m = 0;
  for (int i = 0; i < y->s->p->npref; i++)
    if ((among >> i & 1) && accepts(y, i)) m |= (uint64_t)1 << i;
  return m;
}

/* The supervisor over O: the reachable good sets and the observable moves
 * between them. With `complete`, as Fortis's constructSupervisor: a
 * self-loop for every observable action it never needs to block
 * (uncontrollable, or not possible in the plant there). */
static lts_t *supervisor(synth_t *y, lts_labels_t *labels, bool complete, bitword_t *disabled) {
  const plant_t *g = &y->s->g;
  if (!y->reach) synth_reach(y);
  const observer_t *o = y->o;
  int nsets = (int)o->sets.count;
  int *num = xmalloc((size_t)nsets * sizeof *num);
  lts_builder_t b;
  lts_builder_init(&b, labels);
  for (int q = 0; q < nsets; q++) num[q] = y->reach[q] ? lts_builder_add_state(&b) : -1;
  b.init = 0;
  for (int l = 0; l < g->nlabels; l++)
    if (bitset_get(y->obs, (size_t)l)) lts_builder_alphabet_add(&b, l);
  bitword_t *can = bitset_new((size_t)g->nlabels);
  int *succ = xmalloc(((size_t)g->nlabels + 1) * sizeof *succ);
  for (int l = 0; l < g->nlabels; l++) succ[l] = -1;
  for (int q = 0; q < nsets; q++) {
    if (!y->reach[q]) continue;
    bitset_zero(can, (size_t)g->nlabels);
    size_t m;
    const int *mem = keytab_key(&o->sets, q, &m);
    for (size_t i = 0; i < m; i++)
      for (int t = g->off[mem[i]]; t < g->off[mem[i] + 1]; t++) bitset_set(can, (size_t)g->lab[t]);
    set_moves(o, q, succ, false);
    for (int l = 0; l < g->nlabels; l++) {
      if (!bitset_get(y->obs, (size_t)l)) continue;
      int r = succ[l];
      if (r >= 0 && !y->bad[r])
        lts_builder_add(&b, num[q], l, num[r]);
      else if (!ctrl_has(y, l) || !bitset_get(can, (size_t)l)) {
        if (complete) lts_builder_add(&b, num[q], l, num[q]);
      } else if (disabled)
        bitset_set(disabled, (size_t)l);
    }
    set_moves(o, q, succ, true);
  }
  free(succ);
  free(can);
  free(num);
  return lts_freeze(&b);
}

/* ------------------------------------------------------------ search */

typedef struct {
  bitword_t *c, *o;
} events_t;

static events_t events_new(const search_t *s) {
  return (events_t){bitset_new((size_t)s->g.nlabels), bitset_new((size_t)s->g.nlabels)};
}
static events_t events_copy(const search_t *s, events_t e) {
  events_t r = events_new(s);
  memcpy(r.c, e.c, BITSET_WORDS((size_t)s->g.nlabels) * sizeof(bitword_t));
  memcpy(r.o, e.o, BITSET_WORDS((size_t)s->g.nlabels) * sizeof(bitword_t));
  return r;
}
static void events_free(events_t e) {
  free(e.c);
  free(e.o);
}

/* e's key: the words of its bitsets C and O, each as two ints (equal for
 * equal sets, and short: pump-3's 45 labels make 4 ints) */
static void events_key(const search_t *s, events_t e, intvec_t *key) {
  size_t w = BITSET_WORDS((size_t)s->g.nlabels);
  VEC_CLEAR(key);
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < w; i++) {
      bitword_t x = (pass ? e.o : e.c)[i];
      VEC_PUSH(key, (int)(uint32_t)x);
      VEC_PUSH(key, (int)(uint32_t)(x >> 32));
    }
}

/* A cached synthesis of e with one candidate controllable action more,
 * the same O and a supervisor, whose bad sets are kept: its id, and that
 * action in *newly; -1 when none. */
static int cached_superset(search_t *s, events_t e, intvec_t *key, int *newly) {
  for (int i = 0; i < s->p->nctrl; i++) {
    int l = s->p->ctrl[i].label;
    if (bitset_get(e.c, (size_t)l) || !bitset_get(s->g.alpha, (size_t)l)) continue;
    bitset_set(e.c, (size_t)l);
    events_key(s, e, key);
    bitset_clear_bit(e.c, (size_t)l);
    int id = keytab_find(&s->cache, key->data, key->len);
    if (id >= 0 && s->cache_bad.data[id]) {
      *newly = l;
      return id;
    }
  }
  return -1;
}

/* What the cached syntheses of e with one candidate action more (C ∪ {a},
 * or O ∪ {b}) say of e: with less control or less observation the good
 * observation sets only shrink and so does the closed loop (for O ⊆ O',
 * every O'-set inside a good O-set is good: those sets meet the
 * fixpoint's conditions, and the fixpoint keeps every family that does).
 * False when one of them has no supervisor (then e has none); else
 * *among gets the behaviours all of them keep. */
static bool supersets_allow(search_t *s, events_t e, intvec_t *key, uint64_t *among) {
  *among = ~(uint64_t)0;
  for (int pass = 0; pass < 2; pass++) {
    const robustify_event_t *ev = pass ? s->p->obs : s->p->ctrl;
    bitword_t *set = pass ? e.o : e.c;
    for (int i = 0, n = pass ? s->p->nobs : s->p->nctrl; i < n; i++) {
      int l = ev[i].label;
      if (bitset_get(set, (size_t)l) || !bitset_get(s->g.alpha, (size_t)l)) continue;
      bitset_set(set, (size_t)l);
      events_key(s, e, key);
      bitset_clear_bit(set, (size_t)l);
      int id = keytab_find(&s->cache, key->data, key->len);
      if (id < 0) continue;
      if (!s->cache_exists.data[id]) return false;
      *among &= s->cache_kept.data[id];
    }
  }
  return true;
}

/* Synthesis with a cache: whether a supervisor exists for e and which
 * preferred behaviours its closed loop keeps. The syntheses already run
 * for e with one action more answer it in part (supersets_allow): none
 * there, none here; else only the behaviours they all keep are tried, and
 * the fixpoint starts from the bad sets of one with the same O and one
 * controllable action more (cached_superset). Counted as a synthesis
 * either way, as Fortis counts the sets it synthesises for. */
static bool evaluate(search_t *s, events_t e, uint64_t *kept) {
  intvec_t key = {0};
  events_key(s, e, &key);
  bool added;
  int id = keytab_add(&s->cache, key.data, key.len, &added);
  if (added) {
    s->nsynth++;
    uint64_t among;
    bool exists = false;
    uint64_t k = 0;
    bitword_t *bad = NULL;
    if (supersets_allow(s, e, &key, &among)) {
      int newly = -1, sup = cached_superset(s, e, &key, &newly);
      synth_t y;
      synth_run_from(&y, s, e.c, e.o, sup >= 0 ? s->cache_bad.data[sup] : NULL, newly);
      exists = y.exists;
      if (exists) {
        k = kept_mask(&y, among);
        size_t nsets = y.o->sets.count;
        if (s->bad_bytes < ROBUSTIFY_CACHE_BYTES) { /* kept for warm starts below this set */
          bad = bitset_new(nsets);
          bools_to_bits(y.bad, nsets, bad);
          s->bad_bytes += BITSET_WORDS(nsets) * sizeof *bad;
        }
      }
      synth_free(&y);
    }
    VEC_PUSH(&s->cache_exists, exists);
    VEC_PUSH(&s->cache_kept, k);
    VEC_PUSH(&s->cache_bad, bad);
  }
  VEC_FREE(&key);
  *kept = s->cache_kept.data[id];
  return s->cache_exists.data[id];
}

/* Drops the cached bad sets (they number the sets of the current plant's
 * observers), before the plant changes. */
static void cache_drop_bad(search_t *s) {
  for (size_t i = 0; i < s->cache_bad.len; i++) {
    free(s->cache_bad.data[i]);
    s->cache_bad.data[i] = NULL;
  }
  s->bad_bytes = 0;
}

static bool satisfies(search_t *s, events_t e, uint64_t want) {
  uint64_t kept;
  return evaluate(s, e, &kept) && (kept & want) == want;
}

void robustify_weights(const robustify_problem_t *p, long *pref_w, long *ctrl_w, long *obs_w) {
  long total = 0;
  for (int prio = 0; prio <= 3; prio++) {
    long cur = total + 1;
    for (int i = 0; i < p->npref; i++)
      if (p->pref[i].priority == prio) pref_w[i] = prio ? cur : 0, total += prio ? cur : 0;
    for (int i = 0; i < p->nctrl; i++)
      if (p->ctrl[i].priority == prio) ctrl_w[i] = prio ? cur : 0, total += prio ? cur : 0;
    for (int i = 0; i < p->nobs; i++)
      if (p->obs[i].priority == prio) obs_w[i] = prio ? cur : 0, total += prio ? cur : 0;
  }
}

static long cost_of(const search_t *s, events_t e) {
  long c = 0;
  for (int i = 0; i < s->p->nctrl; i++)
    if (bitset_get(e.c, (size_t)s->p->ctrl[i].label)) c += s->ctrl_w[i];
  for (int i = 0; i < s->p->nobs; i++)
    if (bitset_get(e.o, (size_t)s->p->obs[i].label)) c += s->obs_w[i];
  return c;
}

static long weight_of(const robustify_event_t *ev, const long *w, int n, int label) {
  for (int i = 0; i < n; i++)
    if (ev[i].label == label) return w[i];
  return -1; /* not a candidate */
}

/* The synthesis of e: its bad sets from the cache when evaluate kept them
 * (the same observer, so the same fixpoint: removeUnnecessary's set was
 * evaluated just before), else run. */
static void synth_cached(synth_t *y, search_t *s, events_t e) {
  intvec_t key = {0};
  events_key(s, e, &key);
  int id = keytab_find(&s->cache, key.data, key.len);
  VEC_FREE(&key);
  if (id < 0 || !s->cache_bad.data[id]) {
    synth_run(y, s, e.c, e.o);
    return;
  }
  memset(y, 0, sizeof *y);
  y->s = s;
  y->ctrl = e.c;
  y->obs = e.o;
  y->o = observer_get(s, e.o);
  if (!y->o) return;
  size_t nsets = y->o->sets.count;
  y->bad = xmalloc(nsets + 1);
  bits_to_bools(s->cache_bad.data[id], nsets, y->bad);
  y->exists = !y->bad[0] && !s->bounded;
}

/* Fortis's removeUnnecessary: actions the maximal supervisor never blocks
 * need not be controllable, those it also never changes state on need not
 * be observable, when they cost more than everything else used. */
static events_t remove_unnecessary(search_t *s, events_t e) {
  synth_t y;
  synth_cached(&y, s, e);
  events_t r = events_copy(s, e);
  if (!y.exists) {
    synth_free(&y);
    return r;
  }
  /* per observable action, as Fortis reads its completed supervisor (a
   * self-loop wherever the action is uncontrollable or impossible): uc = it
   * moves from every reachable set, uo = it moves from every reachable set
   * to the same set */
  int nl = s->g.nlabels;
  const observer_t *o = y.o;
  synth_reach(&y);
  bitword_t *uc = bitset_new((size_t)nl), *uo = bitset_new((size_t)nl), *can = bitset_new((size_t)nl);
  for (int l = 0; l < nl; l++)
    if (bitset_get(e.o, (size_t)l)) bitset_set(uc, (size_t)l), bitset_set(uo, (size_t)l);
  int *succ = xmalloc(((size_t)nl + 1) * sizeof *succ);
  for (int l = 0; l < nl; l++) succ[l] = -1;
  for (int q = 0; q < (int)o->sets.count; q++) {
    if (!y.reach[q]) continue;
    bitset_zero(can, (size_t)nl);
    size_t m;
    const int *mem = keytab_key(&o->sets, q, &m);
    for (size_t i = 0; i < m; i++)
      for (int t = s->g.off[mem[i]]; t < s->g.off[mem[i] + 1]; t++) bitset_set(can, (size_t)s->g.lab[t]);
    set_moves(o, q, succ, false);
    for (int l = 0; l < nl; l++) {
      if (!bitset_get(uc, (size_t)l)) continue;
      int to = succ[l];
      if (to >= 0 && !y.bad[to]) {
        if (to != q) bitset_clear_bit(uo, (size_t)l);
      } else if (bitset_get(e.c, (size_t)l) && bitset_get(can, (size_t)l)) /* disabled here */
        bitset_clear_bit(uc, (size_t)l), bitset_clear_bit(uo, (size_t)l);
    }
    set_moves(o, q, succ, true);
  }
  free(succ);
  free(can);
  synth_free(&y);
  long used = 0;
  for (int l = 0; l < nl; l++) {
    if (bitset_get(e.c, (size_t)l) && !bitset_get(uc, (size_t)l))
      used += weight_of(s->p->ctrl, s->ctrl_w, s->p->nctrl, l);
    if (bitset_get(e.o, (size_t)l) && !bitset_get(uo, (size_t)l))
      used += weight_of(s->p->obs, s->obs_w, s->p->nobs, l);
  }
  for (int l = 0; l < nl; l++)
    if (bitset_get(uc, (size_t)l) && weight_of(s->p->ctrl, s->ctrl_w, s->p->nctrl, l) > used)
      bitset_clear_bit(r.c, (size_t)l);
  for (int l = 0; l < nl; l++)
    if (bitset_get(uo, (size_t)l) && !bitset_get(r.c, (size_t)l) &&
        weight_of(s->p->obs, s->obs_w, s->p->nobs, l) > used)
      bitset_clear_bit(r.o, (size_t)l);
  free(uc);
  free(uo);
  return r;
}

typedef VEC(events_t) events_list_t;

/* A set found by the search, with the bracket that found it and the
 * behaviours that bracket asked to keep. */
typedef struct {
  events_t e;
  int iteration;
  uint64_t target;
} candidate_t;

typedef VEC(candidate_t) candidate_list_t;

static void list_free(events_list_t *l) {
  for (size_t i = 0; i < l->len; i++) events_free(l->data[i]);
  VEC_FREE(l);
}

/* Fortis's removeOneEventFrom: every set one candidate action smaller. */
static void remove_one(search_t *s, const events_list_t *from, int prio, events_list_t *out) {
  const robustify_problem_t *p = s->p;
  keytab_t seen;
  keytab_init(&seen);
  intvec_t key = {0};
  for (size_t i = 0; i < from->len; i++) {
    events_t e = from->data[i];
    int nc = 0;
    for (int l = 0; l < s->g.nlabels; l++) nc += bitset_get(e.c, (size_t)l);
    for (int pass = 0; pass < 2; pass++) {
      const robustify_event_t *ev = pass ? p->obs : p->ctrl;
      int n = pass ? p->nobs : p->nctrl;
      for (int j = 0; j < n; j++) {
        int l = ev[j].label;
        if (ev[j].priority != prio) continue;
        events_t r;
        if (!pass && bitset_get(e.c, (size_t)l) && nc > 1) {
          r = events_copy(s, e);
          bitset_clear_bit(r.c, (size_t)l);
        } else if (pass && bitset_get(e.o, (size_t)l) && !bitset_get(e.c, (size_t)l)) {
          r = events_copy(s, e);
          bitset_clear_bit(r.o, (size_t)l);
        } else
          continue;
        events_key(s, r, &key);
        bool added;
        keytab_add(&seen, key.data, key.len, &added);
        if (added)
          VEC_PUSH(out, r);
        else
          events_free(r);
      }
    }
  }
  VEC_FREE(&key);
  keytab_free(&seen);
}

static int count_prio(const robustify_event_t *ev, int n, int prio, const bitword_t *in) {
  int c = 0;
  for (int i = 0; i < n; i++) c += ev[i].priority == prio && bitset_get(in, (size_t)ev[i].label);
  return c;
}

/* Fortis's minimizePareto: classes 3, 2, 1; in each, remove one action at a
 * time from every set of the last layer while the behaviours hold. */
static void minimize_pareto(search_t *s, events_t init, uint64_t want, events_list_t *out) {
  events_list_t cur = {0};
  VEC_PUSH(&cur, events_copy(s, init));
  for (int prio = 3; prio >= 1 && !s->bounded; prio--) {
    int budget =
        count_prio(s->p->ctrl, s->p->nctrl, prio, init.c) + count_prio(s->p->obs, s->p->nobs, prio, init.o);
    events_list_t last = {0};
    int removed = 0;
    while (cur.len > 0 && removed++ < budget) {
      list_free(&last);
      last = cur;
      cur = (events_list_t){0};
      events_list_t cand = {0};
      remove_one(s, &last, prio, &cand);
      for (size_t i = 0; i < cand.len; i++) {
        if (out_of_time(s)) break;
        if (satisfies(s, cand.data[i], want)) {
          VEC_PUSH(&cur, cand.data[i]);
          cand.data[i] = (events_t){0};
        }
      }
      list_free(&cand);
      if (s->bounded) break;
    }
    if (cur.len == 0) {
      list_free(&cur);
      cur = last;
    } else
      list_free(&last);
  }
  *out = cur;
}

static int cmp_name(const void *a, const void *b, void *labels) {
  return strcmp(lts_label_name(labels, *(const int *)a), lts_label_name(labels, *(const int *)b));
}

/* Labels sorted by name (insertion sort: the lists are short). */
static void sort_by_name(int *l, int n, lts_labels_t *labels) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && cmp_name(&l[j - 1], &l[j], labels) > 0; j--) {
      int t = l[j];
      l[j] = l[j - 1];
      l[j - 1] = t;
    }
}

/* Fortis's minimizeFast: one greedy pass, class 3 first, names sorted. */
static void minimize_fast(search_t *s, events_t init, uint64_t want, events_list_t *out) {
  const robustify_problem_t *p = s->p;
  lts_labels_t *labels = p->sys->labels;
  events_t cur = events_copy(s, init);
  int *seq = xmalloc(((size_t)p->nctrl + (size_t)p->nobs + 1) * sizeof *seq);
  for (int prio = 3; prio >= 1 && !s->bounded; prio--) {
    for (int pass = 0; pass < 2 && !s->bounded; pass++) {
      const robustify_event_t *ev = pass ? p->obs : p->ctrl;
      int n = pass ? p->nobs : p->nctrl, k = 0;
      const bitword_t *in = pass ? init.o : init.c;
      for (int i = 0; i < n; i++)
        if (ev[i].priority == prio && bitset_get(in, (size_t)ev[i].label)) seq[k++] = ev[i].label;
      sort_by_name(seq, k, labels);
      for (int i = 0; i < k && !out_of_time(s); i++) {
        int l = seq[i], nc = 0;
        for (int m = 0; m < s->g.nlabels; m++) nc += bitset_get(cur.c, (size_t)m);
        events_t r = events_copy(s, cur);
        if (!pass && nc > 1)
          bitset_clear_bit(r.c, (size_t)l);
        else if (pass && !bitset_get(cur.c, (size_t)l))
          bitset_clear_bit(r.o, (size_t)l);
        else {
          events_free(r);
          continue;
        }
        if (satisfies(s, r, want)) {
          events_free(cur);
          cur = r;
        } else
          events_free(r);
      }
    }
  }
  free(seq);
  VEC_PUSH(out, cur);
}

static int *labels_of(const search_t *s, const bitword_t *b, int *n) {
  int *l = xmalloc(((size_t)s->g.nlabels + 1) * sizeof *l);
  *n = 0;
  for (int i = 0; i < s->g.nlabels; i++)
    if (bitset_get(b, (size_t)i)) l[(*n)++] = i;
  sort_by_name(l, *n, s->p->sys->labels);
  return l;
}

/* The behaviours the search found e's closed loop keeps (its cache entry). */
static uint64_t cached_kept(search_t *s, events_t e) {
  intvec_t key = {0};
  events_key(s, e, &key);
  int id = keytab_find(&s->cache, key.data, key.len);
  VEC_FREE(&key);
  return id >= 0 ? s->cache_kept.data[id] : 0;
}

/* Turns candidate e into a reported solution (a fresh synthesis); after a
 * stop, the sets without a supervisor and the behaviours the search found
 * kept. False when e has no supervisor. */
static bool make_solution(search_t *s, const candidate_t *cand, robustify_solution_t *sol) {
  events_t e = cand->e;
  memset(sol, 0, sizeof *sol);
  sol->iteration = cand->iteration;
  sol->target = cand->target;
  synth_t y = {0};
  if (!out_of_time(s)) synth_run(&y, s, e.c, e.o);
  if (!y.exists && !s->bounded) {
    synth_free(&y);
    return false;
  }
  if (y.exists) {
    sol->kept = kept_mask(&y, ~(uint64_t)0);
    bitword_t *dis = bitset_new((size_t)s->g.nlabels);
    sol->sup = supervisor(&y, s->p->sys->labels, false, dis);
    sol->disabled = labels_of(s, dis, &sol->ndisabled);
    free(dis);
  } else
    sol->kept = cached_kept(s, e);
  synth_free(&y);
  sol->ctrl = labels_of(s, e.c, &sol->nctrl);
  sol->obs = labels_of(s, e.o, &sol->nobs);
  sol->cost = cost_of(s, e);
  for (int i = 0; i < s->p->npref; i++)
    if (sol->kept >> i & 1) sol->utility += s->pref_w[i];
  return true;
}

/* The candidates as solutions. */
/* The solutions: every candidate, or at most `max` of the least cost
 * (a bounded search: its brackets' costs fall, so the last is cheapest). */
static void collect(search_t *s, const candidate_list_t *cands, int max, robustify_result_t *out) {
  long best = -1;
  if ((size_t)max < cands->len)
    for (size_t i = 0; i < cands->len; i++) {
      long c = cost_of(s, cands->data[i].e);
      if (best < 0 || c < best) best = c;
    }
  out->sols = xcalloc(cands->len + 1, sizeof *out->sols);
  for (size_t i = 0; i < cands->len && out->nsols < max; i++) {
    if (best >= 0 && cost_of(s, cands->data[i].e) != best) continue;
    if (make_solution(s, &cands->data[i], &out->sols[out->nsols])) out->nsols++;
  }
}

static void candidates_free(candidate_list_t *l) {
  for (size_t i = 0; i < l->len; i++) events_free(l->data[i].e);
  VEC_FREE(l);
}

/* k-subsets of 0..n-1 in lexicographic order (Fortis's combinations). */
static void comb_first(int *a, int k) {
  for (int i = 0; i < k; i++) a[i] = i;
}

static bool comb_next(int *a, int k, int n) {
  int i = k - 1;
  while (i >= 0 && a[i] == n - k + i) i--;
  if (i < 0) return false;
  a[i]++;
  for (int j = i + 1; j < k; j++) a[j] = a[j - 1] + 1;
  return true;
}

/* Fortis's SolutionIterator with PreferredBehIterator: bracket (c1, c2,
 * c3) gives up, in every combination, c1 behaviours of priority 1, c2 of
 * priority 2 and c3 of priority 3 (c1 counts fastest); each combination is
 * minimised for the behaviours the maximal supervisor keeps minus those
 * given up, and the bracket's least-cost sets become solutions when they
 * cost strictly less than every earlier bracket's. Stops after max_iter
 * brackets (-1: all). */
static void iterate(search_t *s, events_t init, uint64_t max_kept, candidate_list_t *out, int *iterations) {
  const robustify_problem_t *p = s->p;
  int idx[4][ROBUSTIFY_MAX_PREFERRED], n[4] = {0}, c[4] = {0};
  for (int i = 0; i < p->npref; i++)
    if (p->pref[i].priority > 0) idx[p->pref[i].priority][n[p->pref[i].priority]++] = i;
  long best = -1;
  intvec_t key = {0};
  int iter = 0, max_iter = p->max_iter == 0 ? 1 : p->max_iter;
  while ((max_iter < 0 || iter < max_iter) && (c[1] <= n[1] || c[2] <= n[2] || c[3] <= n[3])) {
    int k[4] = {0, c[1], c[2], c[3]}, a[4][ROBUSTIFY_MAX_PREFERRED];
    if (++c[1] > n[1]) { /* PreferredBehIterator.next's counter step */
      if (++c[2] <= n[2])
        c[1] = 0;
      else if (++c[3] <= n[3])
        c[1] = c[2] = 0;
    }
    iter++;
    for (int q = 1; q <= 3; q++) comb_first(a[q], k[q]);
    long bracket = -1;
    candidate_list_t cands = {0};
    keytab_t seen;
    keytab_init(&seen);
    for (bool more = true; more && !out_of_time(s);) {
      uint64_t give_up = 0;
      for (int q = 1; q <= 3; q++)
        for (int i = 0; i < k[q]; i++) give_up |= (uint64_t)1 << idx[q][a[q][i]];
      uint64_t want = max_kept & ~give_up;
      events_list_t found = {0};
      if (p->method == ROBUSTIFY_PARETO)
        minimize_pareto(s, init, want, &found);
      else
        minimize_fast(s, init, want, &found);
      for (size_t i = 0; i < found.len; i++) {
        long cost = cost_of(s, found.data[i]);
        if (bracket >= 0 && cost > bracket) continue;
        if (cost < bracket || bracket < 0) {
          candidates_free(&cands);
          keytab_free(&seen);
          keytab_init(&seen);
          bracket = cost;
        }
        bool added;
        events_key(s, found.data[i], &key);
        keytab_add(&seen, key.data, key.len, &added);
        if (!added) continue; /* the same sets from another combination: reported once */
        VEC_PUSH(&cands, ((candidate_t){found.data[i], iter, want}));
        found.data[i] = (events_t){0};
      }
      list_free(&found);
      /* the next combination, the priority-3 one fastest (Fortis's nested loops) */
      more = false;
      for (int q = 3; q >= 1 && !more; q--) {
        if (comb_next(a[q], k[q], n[q]))
          more = true;
        else
          comb_first(a[q], k[q]);
      }
    }
    keytab_free(&seen);
    if (s->bounded) {
      /* the best found so far: one least-cost set of the first bracket, or the earlier brackets' */
      if (out->len == 0 && cands.len > 0) {
        VEC_PUSH(out, cands.data[0]);
        cands.data[0].e = (events_t){0};
      }
      candidates_free(&cands);
      break;
    }
    if (cands.len > 0 && (best < 0 || bracket < best)) {
      best = bracket;
      for (size_t i = 0; i < cands.len; i++) VEC_PUSH(out, cands.data[i]);
      VEC_FREE(&cands);
    } else
      candidates_free(&cands);
  }
  VEC_FREE(&key);
  *iterations = iter;
}

static void events_from(search_t *s, const robustify_event_t *ev, int n, bitword_t *into) {
  for (int i = 0; i < n; i++)
    if (bitset_get(s->g.alpha, (size_t)ev[i].label)) bitset_set(into, (size_t)ev[i].label);
}

/* ------------------------------------------------------------ OASIS */

lts_t *robustify_abstraction(const lts_t *sys, const int *abs, int nabs, long max_states,
                             bool (*stop)(void *), void *arg) {
  int *in = xmalloc(((size_t)sys->nalphabet + 1) * sizeof *in),
      *out = xmalloc(((size_t)sys->nalphabet + 1) * sizeof *out);
  int nin = 0, nout = 0;
  for (int a = 0; a < sys->nalphabet; a++) {
    bool hit = false;
    for (int i = 0; i < nabs && !hit; i++) hit = abs[i] == sys->alphabet[a];
    if (hit)
      in[nin++] = sys->alphabet[a];
    else
      out[nout++] = sys->alphabet[a];
  }
  lts_t *h1 = lts_hide(sys, in, nin), *h2 = lts_hide(sys, out, nout);
  lts_t *d[2] = {lts_determinise_bounded(h1, false, max_states, stop, arg), NULL};
  if (d[0]) d[1] = lts_determinise_bounded(h2, false, max_states, stop, arg);
  lts_t *c = d[1] ? lts_compose_bounded((const lts_t *const *)d, 2, max_states, stop, arg) : NULL;
  lts_free(h1);
  lts_free(h2);
  lts_free(d[0]);
  lts_free(d[1]);
  free(in);
  free(out);
  return c;
}

/* Fortis's OASISRobustifier: the subsets of the candidate actions (the
 * controllable list, then the observable actions not in it), smallest
 * first, each size in lexicographic order (OrderedPowerSetIterator); for
 * each, one synthesis on the abstraction that decouples it, with every
 * candidate controllable/observable; the first supervisor is the solution. */
/* Deterministic l as a key equal for equal LTSs up to state numbering:
 * the error state's and each state's moves (label, target) in BFS order
 * from init, moves by label, states numbered as found. */
static void canonical_key(const lts_t *l, intvec_t *key) {
  int *num = xmalloc(((size_t)l->nstates + 1) * sizeof *num),
      *order = xmalloc(((size_t)l->nstates + 1) * sizeof *order);
  for (int i = 0; i < l->nstates; i++) num[i] = -1;
  int n = 0;
  num[l->init] = n, order[n++] = l->init;
  VEC_CLEAR(key);
  for (int h = 0; h < n; h++) {
    int x = order[h];
    VEC_PUSH(key, x == l->error ? -2 : l->succ_off[x + 1] - l->succ_off[x]);
    for (int t = l->succ_off[x]; t < l->succ_off[x + 1]; t++) {
      int d = l->succ_dst[t];
      if (num[d] < 0) num[d] = n, order[n++] = d;
      VEC_PUSH(key, l->succ_label[t]);
      VEC_PUSH(key, num[d]);
    }
  }
  free(num);
  free(order);
}

/* OASIS without a plant per language. When every action of M is
 * observable (O ⊇ Σ_M) and an abstraction mm has M's alphabet and no
 * error state, mm ‖ E' ‖ P_err ‖ monitors is mm ‖ H, where H is the plant
 * built with M replaced by U, one state with a self-loop on every action of
 * Σ_M (H depends on E', P and the progress actions only: built once per
 * run). The unobservable actions are then H's alone, so every observation
 * set of mm ‖ H is {x} × Y for one state x of mm and one observation set Y
 * of H's observer for O (also built once): the observer of mm ‖ H is the
 * part of mm × (H's observer) reachable from (init, set 0), an
 * observable action of Σ_M moving x by mm and Y by H's observer, any
 * other moving Y only; its pair moves are H's pair moves where mm moves
 * alike. The one difference: the plant merges every error state into one,
 * so the sets {x} × {error} of different x are one set there; such a set
 * holds only the error, so it is bad in both and the fixpoint is the same.
 * product_exists decides whether a supervisor exists on that product
 * directly (solve's fixpoint, each set's predecessors and each pair's
 * through mm's reversed moves), without building the plant or its
 * observer: voting-4-4's 511 languages after the first. */
typedef struct {
  bool tried, usable;
  int nl;
  plant_t h;       /* H, its observers unused */
  observer_t *ho;  /* H's observer for O */
  int *rlab;       /* the label of each reversed pair move of ho (beside ho->rsrc) */
  bitword_t *in_m; /* Σ_M */
} oasis_product_t;

static void oasis_product_free(oasis_product_t *pc) {
  observer_free(pc->ho);
  plant_free(&pc->h);
  free(pc->rlab);
  free(pc->in_m);
}

/* Builds H and its observer the first time (s->g is swapped out and back);
 * false when the product cannot be used (O misses an action of M, or a
 * limit: --max-states keeps the plain path, whose limits it bounds). */
static bool oasis_product_ready(search_t *s, oasis_product_t *pc, const bitword_t *obs) {
  if (pc->tried) return pc->usable;
  pc->tried = true;
  const robustify_problem_t *p = s->p;
  int nl = (int)p->sys->labels->names.count;
  if (p->max_states > 0) return false;
  for (int i = 0; i < p->sys->nalphabet; i++)
    if (!bitset_get(obs, (size_t)p->sys->alphabet[i])) return false;
  lts_builder_t b;
  lts_builder_init(&b, p->sys->labels);
  lts_builder_add_state(&b);
  b.init = 0;
  for (int i = 0; i < p->sys->nalphabet; i++) lts_builder_add(&b, 0, p->sys->alphabet[i], 0);
  lts_t *u = lts_freeze(&b);
  plant_t keep = s->g;
  memset(&s->g, 0, sizeof s->g);
  bool built = plant_build(s, u);
  lts_free(u);
  if (built && (int)s->g.nlabels == nl) pc->ho = observer_build(s, obs);
  pc->h = s->g;
  s->g = keep;
  if (!pc->ho) return false;
  pc->nl = nl;
  pc->in_m = bitset_new((size_t)nl);
  for (int i = 0; i < p->sys->nalphabet; i++) bitset_set(pc->in_m, (size_t)p->sys->alphabet[i]);
  /* the labels of ho's reversed pair moves, in ho->rsrc's order */
  const observer_t *o = pc->ho;
  size_t npairs = o->sets.keys.len;
  pc->rlab = xmalloc(((size_t)o->roff[npairs] + 1) * sizeof *pc->rlab);
  int *fill = xmalloc((npairs + 1) * sizeof *fill);
  memcpy(fill, o->roff, npairs * sizeof *fill);
  for (size_t q = 0; q < npairs; q++)
    for (int e = o->foff[q]; e < o->foff[q + 1]; e++) pc->rlab[fill[o->fdst[e]]++] = o->flab[e];
  free(fill);
  pc->usable = true;
  return true;
}

/* The reachable sets (x, Y) of mm ‖ H: set X is (px[X], pq[X]) (an mm
 * state, a set of H's observer), pid[x * nh + q] its number or -1; its
 * pairs are poff[X] .. poff[X+1], in Y's order. mm's moves reversed:
 * the sources of (target, label) at rvsrc[rvoff[target * nl + label] ..]. */
typedef struct {
  size_t nx, nh;
  int *step, *rvoff, *rvsrc, *pid;
  intvec_t px, pq;
  size_t *poff;
} product_t;

static void product_free(product_t *x) {
  free(x->step);
  free(x->rvoff);
  free(x->rvsrc);
  free(x->pid);
  VEC_FREE(&x->px);
  VEC_FREE(&x->pq);
  free(x->poff);
}

/* The sets of mm ‖ H: 1, or -1 stopped, -2 the product does not apply to
 * mm (an error state, another alphabet, nondeterministic, too large). */
static int product_sets(search_t *s, const oasis_product_t *pc, const lts_t *mm, product_t *x) {
  int nl = pc->nl;
  const observer_t *o = pc->ho;
  memset(x, 0, sizeof *x);
  if (mm->error >= 0 || mm->nalphabet != s->p->sys->nalphabet || !lts_is_deterministic(mm) ||
      (int)s->p->sys->labels->names.count != nl)
    return -2;
  for (int i = 0; i < mm->nalphabet; i++)
    if (!bitset_get(pc->in_m, (size_t)mm->alphabet[i])) return -2;
  x->nx = (size_t)mm->nstates, x->nh = o->sets.count;
  if (x->nx * x->nh > ((size_t)1 << 24) || !(x->step = step_table(mm, nl))) return -2;
  size_t nkeys = x->nx * (size_t)nl, nh = x->nh;
  x->rvoff = xcalloc(nkeys + 2, sizeof *x->rvoff);
  x->rvsrc = xmalloc(((size_t)mm->ntrans + 1) * sizeof *x->rvsrc);
  for (int t = 0; t < mm->ntrans; t++)
    x->rvoff[(size_t)mm->succ_dst[t] * (size_t)nl + (size_t)mm->succ_label[t] + 1]++;
  for (size_t k = 0; k < nkeys; k++) x->rvoff[k + 1] += x->rvoff[k];
  int *fill = xmalloc((nkeys + 1) * sizeof *fill);
  memcpy(fill, x->rvoff, nkeys * sizeof *fill);
  for (int y = 0; y < mm->nstates; y++)
    for (int t = mm->succ_off[y]; t < mm->succ_off[y + 1]; t++)
      x->rvsrc[fill[(size_t)mm->succ_dst[t] * (size_t)nl + (size_t)mm->succ_label[t]]++] = y;
  free(fill);
  x->pid = xmalloc((x->nx * nh + 1) * sizeof *x->pid);
  memset(x->pid, -1, (x->nx * nh + 1) * sizeof *x->pid);
  x->pid[(size_t)mm->init * nh] = 0;
  VEC_PUSH(&x->px, mm->init);
  VEC_PUSH(&x->pq, 0);
  for (size_t h = 0; h < x->px.len; h++) {
    if ((h & 255) == 0 && out_of_time(s)) return -1;
    int y = x->px.data[h], q = x->pq.data[h];
    for (int t = o->toff.data[q]; t < o->toff.data[q + 1]; t++) {
      int l = o->tlab.data[t],
          y2 = bitset_get(pc->in_m, (size_t)l) ? x->step[(size_t)y * (size_t)nl + (size_t)l] : y;
      if (y2 < 0) continue;
      int *slot = &x->pid[(size_t)y2 * nh + (size_t)o->tdst.data[t]];
      if (*slot < 0) {
        *slot = (int)x->px.len;
        VEC_PUSH(&x->px, y2);
        VEC_PUSH(&x->pq, o->tdst.data[t]);
      }
    }
  }
  x->poff = xmalloc((x->px.len + 1) * sizeof *x->poff);
  x->poff[0] = 0;
  for (size_t X = 0; X < x->px.len; X++) {
    int q = x->pq.data[X];
    x->poff[X + 1] = x->poff[X] + (o->sets.off.data[q + 1] - o->sets.off.data[q]);
  }
  return 1;
}

/* For each set X, from H-set q, that moves by l into a set whose mm state
 * is y2: (x, q) for each x that mm moves to y2 by l (l in Σ_M), else (y2,
 * q); runs the statement after X's declaration for each that exists. */
#define PRODUCT_SOURCES(x, pc, y2, l, q, ...)                                                                \
  do {                                                                                                       \
    if (bitset_get((pc)->in_m, (size_t)(l))) {                                                               \
      size_t k_ = (size_t)(y2) * (size_t)(pc)->nl + (size_t)(l);                                             \
      for (int r_ = (x)->rvoff[k_]; r_ < (x)->rvoff[k_ + 1]; r_++) {                                         \
        int X = (x)->pid[(size_t)(x)->rvsrc[r_] * (x)->nh + (size_t)(q)];                                    \
        if (X >= 0) __VA_ARGS__                                                                              \
      }                                                                                                      \
    } else {                                                                                                 \
      int X = (x)->pid[(size_t)(y2) * (x)->nh + (size_t)(q)];                                                \
      if (X >= 0) __VA_ARGS__                                                                                \
    }                                                                                                        \
  } while (0)

/* The pairs of the good sets from which a marked pair is reachable
 * through good sets (co), as solve's coreachability pass, each pair's
 * predecessors through H's reversed pair moves and mm's. */
static void product_coreach(const oasis_product_t *pc, const product_t *x, const bool *bad, bool *co,
                            int *queue, const int *owner) {
  const observer_t *o = pc->ho;
  size_t head = 0, tail = 0, n = x->px.len;
  for (size_t X = 0; X < n; X++) {
    size_t base = o->sets.off.data[x->pq.data[X]];
    for (size_t P = x->poff[X]; P < x->poff[X + 1]; P++) {
      co[P] = !bad[X] && bitset_get(pc->h.marked, (size_t)o->sets.keys.data[base + (P - x->poff[X])]);
      if (co[P]) queue[tail++] = (int)P;
    }
  }
  while (head < tail) {
    int P2 = queue[head++], Y = owner[P2], y2 = x->px.data[Y], q2 = x->pq.data[Y];
    size_t p2 = o->sets.off.data[q2] + ((size_t)P2 - x->poff[Y]);
    for (int r = o->roff[p2]; r < o->roff[p2 + 1]; r++) {
      int sp = o->rsrc[r], l = pc->rlab[r], q = o->pair_set[sp];
      size_t i = (size_t)sp - o->sets.off.data[q];
      if (bitset_get(o->obs, (size_t)l)) { /* Σ_M ⊆ O */
        PRODUCT_SOURCES(x, pc, y2, l, q, {
          size_t P = x->poff[X] + i;
          if (!co[P] && !bad[X]) co[P] = true, queue[tail++] = (int)P;
        });
      } else { /* unobservable: within the set */
        size_t P = x->poff[Y] + i;
        if (!co[P]) co[P] = true, queue[tail++] = (int)P;
      }
    }
  }
}

/* solve's least fixpoint on the sets of mm ‖ H for controllable C: 1 when
 * the first set stays good (a supervisor exists), 0 when not, -1 stopped. */
static int product_solve(search_t *s, const oasis_product_t *pc, const product_t *x, const bitword_t *ctrl) {
  const observer_t *o = pc->ho;
  size_t n = x->px.len, npairs = x->poff[n];
  bool *bad = xmalloc(n + 1), *co = NULL;
  int *work = xmalloc((n + 1) * sizeof *work), nwork = 0, *owner = NULL, *queue = NULL, result = 1;
  for (size_t X = 0; X < n; X++)
    if ((bad[X] = o->has_error[x->pq.data[X]])) work[nwork++] = (int)X;
  for (;;) {
    while (nwork > 0) { /* an uncontrollable move into a bad set makes its source bad */
      int Y = work[--nwork], y2 = x->px.data[Y], q2 = x->pq.data[Y];
      for (int i = o->rtoff[q2]; i < o->rtoff[q2 + 1]; i++) {
        int l = o->rtlab[i];
        if (bitset_get(ctrl, (size_t)l)) continue;
        PRODUCT_SOURCES(x, pc, y2, l, o->rtsrc[i], {
          if (!bad[X]) bad[X] = true, work[nwork++] = X;
        });
      }
    }
    if (bad[0]) break;
    if (out_of_time(s)) {
      result = -1;
      break;
    }
    if (!co) {
      co = xmalloc(npairs + 1);
      queue = xmalloc((npairs + 1) * sizeof *queue);
      owner = xmalloc((npairs + 1) * sizeof *owner);
      for (size_t X = 0; X < n; X++)
        for (size_t P = x->poff[X]; P < x->poff[X + 1]; P++) owner[P] = (int)X;
    }
    product_coreach(pc, x, bad, co, queue, owner);
    for (size_t X = 0; X < n; X++)
      for (size_t P = x->poff[X]; !bad[X] && P < x->poff[X + 1]; P++)
        if (!co[P]) bad[X] = true, work[nwork++] = (int)X;
    if (nwork == 0) break;
  }
  if (result == 1 && bad[0]) result = 0;
  free(bad);
  free(work);
  free(co);
  free(queue);
  free(owner);
  return result;
}
#undef PRODUCT_SOURCES

/* Whether a supervisor exists for controllable C and the product's O on
 * mm ‖ H (above): 1 yes, 0 no, -1 stopped by a limit, -2 the product does
 * not apply to mm (then the plain path decides). */
static int product_exists(search_t *s, const oasis_product_t *pc, const lts_t *mm, const bitword_t *ctrl) {
  product_t x;
  int r = product_sets(s, pc, mm, &x);
  if (r == 1) r = product_solve(s, pc, &x, ctrl);
  product_free(&x);
  return r;
}

static void oasis_run(search_t *s, robustify_result_t *out) {
  const robustify_problem_t *p = s->p;
  int nl = (int)p->sys->labels->names.count;
  s->g.nlabels = nl;
  events_t all = events_new(s);
  for (int i = 0; i < p->nctrl; i++) bitset_set(all.c, (size_t)p->ctrl[i].label);
  for (int i = 0; i < p->nobs; i++) bitset_set(all.o, (size_t)p->obs[i].label);
  int *list = xmalloc(((size_t)p->nctrl + (size_t)p->nobs + 1) * sizeof *list), n = 0;
  bitword_t *in_list = bitset_new((size_t)nl);
  for (int pass = 0; pass < 2; pass++) {
    const robustify_event_t *ev = pass ? p->obs : p->ctrl;
    for (int i = 0, m = pass ? p->nobs : p->nctrl; i < m; i++)
      if (!bitset_get(in_list, (size_t)ev[i].label)) {
        bitset_set(in_list, (size_t)ev[i].label);
        list[n++] = ev[i].label;
      }
  }
  int *a = xmalloc(((size_t)n + 1) * sizeof *a), *abs = xmalloc(((size_t)n + 1) * sizeof *abs);
  bool found = false;
  oasis_product_t pc = {0};
  keytab_t seen; /* languages of the abstractions tried (minimised, canonical_key) */
  keytab_init(&seen);
  intvec_t akey = {0};
  for (int k = 0; k <= n && !found && !s->bounded; k++) {
    comb_first(a, k);
    do {
      if (out_of_time(s)) break;
      for (int i = 0; i < k; i++) abs[i] = list[a[i]];
      lts_t *m = robustify_abstraction(p->sys, abs, k, p->max_states, stop_search, s);
      if (!m) {
        if (!s->bounded) s->bounded = true, s->limit = "max-states";
        break;
      }
      /* whether a supervisor exists is asked of m minimised (the same
       * language, so the same answer: pump-3's abstractions of 1 586
       * states have 756), once per language (canonical_key; voting-4-4:
       * 1 024 subsets, 512 languages); the first abstraction, whose
       * plant size is reported, and the one with a supervisor are
       * synthesised on m itself, so the solution is as Fortis reports it */
      lts_t *mm = lts_minimise(m);
      if (out_of_time(s)) { /* lts_minimise stopped (mm is m unminimised) */
        lts_free(mm);
        lts_free(m);
        break;
      }
      canonical_key(mm, &akey);
      bool fresh;
      keytab_add(&seen, akey.data, akey.len, &fresh);
      if (!fresh) { /* the language of an abstraction already found without a supervisor */
        s->nsynth++;
        lts_free(mm);
        lts_free(m);
        continue;
      }
      if (s->nsynth > 0 && oasis_product_ready(s, &pc, all.o)) {
        int r = product_exists(s, &pc, mm, all.c);
        if (r == 0 || r == -1) { /* no supervisor (or stopped): counted as the plain path counts it */
          s->nsynth++;
          lts_free(mm);
          lts_free(m);
          continue;
        }
        /* a supervisor (the solution, synthesised below as before), or the product does not apply */
      }
      if (s->nsynth == 0) {
        lts_free(mm);
        mm = NULL;
      }
      plant_free(&s->g);
      memset(&s->g, 0, sizeof s->g);
      bool built = plant_build(s, mm ? mm : m);
      if (built && s->nsynth == 0) {
        out->plant_states = s->g.n;
        out->plant_trans = s->g.ntrans;
      }
      synth_t y = {0};
      bool exists = false;
      uint64_t kept = 0;
      if (built) {
        synth_run(&y, s, all.c, all.o);
        s->nsynth++;
        exists = y.exists;
        if (exists) kept = kept_mask(&y, ~(uint64_t)0); /* m's language: the same on mm */
        if (exists) s->final = s->search_done = true;
        if (exists && mm) { /* again on m itself, in the final phase: only a stop can fail it */
          synth_free(&y);
          memset(&y, 0, sizeof y);
          plant_free(&s->g);
          memset(&s->g, 0, sizeof s->g);
          if (plant_build(s, m)) synth_run(&y, s, all.c, all.o);
        }
      }
      lts_free(mm);
      if (!built) {
        lts_free(m);
        break;
      }
      if (exists) {
        robustify_solution_t *sol = out->sols = xcalloc(1, sizeof *out->sols);
        out->nsols = 1;
        sol->kept = out->max_kept = kept;
        for (int i = 0; i < p->npref; i++)
          if (sol->kept >> i & 1) sol->utility += s->pref_w[i];
        bitword_t *dis = bitset_new((size_t)nl), *hid = bitset_new((size_t)nl);
        if (y.exists) {
          sol->sup = supervisor(&y, p->sys->labels, false, dis);
          sol->disabled = labels_of(s, dis, &sol->ndisabled);
        }
        sol->ctrl = labels_of(s, all.c, &sol->nctrl);
        sol->obs = labels_of(s, all.o, &sol->nobs);
        for (int i = 0; i < k; i++) bitset_set(hid, (size_t)abs[i]);
        sol->hidden = labels_of(s, hid, &sol->nhidden);
        sol->cost = cost_of(s, all);
        sol->base = m;
        sol->iteration = 1;
        sol->target = sol->kept;
        free(dis);
        free(hid);
        found = true;
      } else
        lts_free(m);
      synth_free(&y);
    } while (!found && !s->bounded && comb_next(a, k, n));
  }
  out->no_supervisor = !found && !s->bounded;
  s->search_done = s->search_done || out->no_supervisor;
  oasis_product_free(&pc);
  keytab_free(&seen);
  VEC_FREE(&akey);
  free(a);
  free(abs);
  free(list);
  free(in_list);
  events_free(all);
}

void robustify_run(const robustify_problem_t *p, robustify_result_t *out) {
  assert(p->nprogress <= ROBUSTIFY_MAX_PROGRESS && p->npref <= ROBUSTIFY_MAX_PREFERRED);
  memset(out, 0, sizeof *out);
  search_t s;
  memset(&s, 0, sizeof s);
  s.p = p;
  s.watch_stop = true;
  keytab_init(&s.cache);
  s.pref_w = xcalloc((size_t)p->npref + 1, sizeof(long));
  s.ctrl_w = xcalloc((size_t)p->nctrl + 1, sizeof(long));
  s.obs_w = xcalloc((size_t)p->nobs + 1, sizeof(long));
  robustify_weights(p, s.pref_w, s.ctrl_w, s.obs_w);
  out->npref = p->npref;
  out->pref_weight = xcalloc((size_t)p->npref + 1, sizeof(long));
  memcpy(out->pref_weight, s.pref_w, (size_t)p->npref * sizeof(long));
  if (p->method == ROBUSTIFY_OASIS)
    oasis_run(&s, out);
  else if (plant_build(&s, p->sys)) {
    out->plant_states = s.g.n;
    out->plant_trans = s.g.ntrans;
    events_t all = events_new(&s);
    events_from(&s, p->ctrl, p->nctrl, all.c);
    events_from(&s, p->obs, p->nobs, all.o);
    uint64_t kept = 0;
    if (!evaluate(&s, all, &kept))
      out->no_supervisor = s.search_done = !s.bounded;
    else if (p->method == ROBUSTIFY_SIMPLE) {
      out->max_kept = kept;
      s.final = s.search_done = true;
      candidate_list_t one = {0};
      VEC_PUSH(&one, ((candidate_t){events_copy(&s, all), 1, kept}));
      collect(&s, &one, 1, out);
      candidates_free(&one);
    } else {
      out->max_kept = kept;
      events_t init = remove_unnecessary(&s, all);
      /* the search on G minimised, the solutions on G */
      for (int i = 0; i < ROBUSTIFY_OBSERVERS; i++) {
        observer_free(s.g.observer[i]);
        s.g.observer[i] = NULL;
      }
      cache_drop_bad(&s);
      plant_t full = s.g, small;
      bool minimised = plant_minimise(&s, &small);
      if (minimised) s.g = small;
      candidate_list_t cands = {0};
      if (!s.bounded) iterate(&s, init, kept, &cands, &out->iterations);
      cache_drop_bad(&s);
      if (minimised) {
        plant_free(&s.g);
        s.g = full;
      }
      bool was_bounded = s.bounded;
      /* the final synthesis, of one least-cost set found so far when
       * bounded; a time limit gives it ROBUSTIFY_FINAL_GRACE seconds, a
       * signal none (the sets are reported without a supervisor) */
      s.bounded = false;
      s.final = true;
      s.search_done = !was_bounded;
      collect(&s, &cands, was_bounded ? 1 : (int)cands.len, out);
      s.bounded = was_bounded || s.bounded;
      candidates_free(&cands);
      events_free(init);
    }
    events_free(all);
  }
  out->nsynth = s.nsynth;
  out->bounded = s.bounded;
  out->limit = s.limit;
  out->search_done = s.search_done;
  out->stop_seen_ns = s.stop_seen_ns;
  plant_free(&s.g);
  keytab_free(&s.cache);
  VEC_FREE(&s.cache_exists);
  VEC_FREE(&s.cache_kept);
  cache_drop_bad(&s);
  VEC_FREE(&s.cache_bad);
  free(s.pref_w);
  free(s.ctrl_w);
  free(s.obs_w);
  lts_free(s.dev_det);
  lts_free(s.prop);
  free(s.step[1]);
  free(s.step[2]);
  free(s.cnum);
}

void robustify_result_free(robustify_result_t *r) {
  for (int i = 0; i < r->nsols; i++) {
    robustify_solution_t *s = &r->sols[i];
    free(s->ctrl);
    free(s->obs);
    free(s->disabled);
    lts_free(s->sup);
    lts_free(s->base);
    free(s->hidden);
  }
  free(r->sols);
  free(r->pref_weight);
  memset(r, 0, sizeof *r);
}

/* l itself when deterministic, else its determinisation (then *owned). */
static const lts_t *det_borrow(const lts_t *l, lts_t **owned) {
  *owned = lts_is_deterministic(l) ? NULL : lts_determinise(l, true);
  return *owned ? *owned : l;
}

lts_t *robustify_design_bounded(const lts_t *sys, const robustify_solution_t *s, bool (*stop)(void *),
                                void *arg) {
  lts_t *own;
  const lts_t *m = det_borrow(s->base ? s->base : sys, &own);
  const lts_t *parts[2] = {m, s->sup};
  lts_t *d = lts_compose_bounded(parts, 2, 0, stop, arg);
  lts_t *min = d ? lts_minimise(d) : NULL;
  lts_free(d);
  lts_free(own);
  return min;
}

lts_t *robustify_design(const lts_t *sys, const robustify_solution_t *s) {
  return robustify_design_bounded(sys, s, NULL, NULL);
}

/* ------------------------------------------------------------ re-check */

/* Whether some trace of l projects on w's alphabet to w's word. */
static bool lts_accepts(const lts_t *l, const bitword_t *plant_alpha, const robustify_pref_t *w,
                        int nlabels) {
  size_t len = (size_t)w->len + 1;
  bitword_t *in_alpha = bitset_new((size_t)nlabels);
  for (int i = 0; i < w->nalpha; i++) bitset_set(in_alpha, (size_t)w->alpha[i]);
  bitword_t *seen = bitset_new((size_t)l->nstates * len);
  intvec_t qs = {0}, qk = {0};
  VEC_PUSH(&qs, l->init);
  VEC_PUSH(&qk, 0);
  bitset_set(seen, (size_t)l->init * len);
  bool found = false;
  for (size_t h = 0; h < qs.len && !found; h++) {
    int s = qs.data[h], k = qk.data[h];
    if (k == w->len) {
      found = true;
      break;
    }
    for (int i = -1; i < l->succ_off[s + 1] - l->succ_off[s]; i++) {
      int t, nk;
      if (i < 0) { /* the word's own move on an action the plant lacks */
        if (bitset_get(plant_alpha, (size_t)w->word[k])) continue;
        t = s, nk = k + 1;
      } else {
        int e = l->succ_off[s] + i, lab = l->succ_label[e];
        t = l->succ_dst[e];
        if (t == l->error) continue;
        if (!bitset_get(in_alpha, (size_t)lab))
          nk = k;
        else if (lab == w->word[k])
          nk = k + 1;
        else
          continue;
      }
      size_t key = (size_t)t * len + (size_t)nk;
      if (!bitset_get(seen, key)) {
        bitset_set(seen, key);
        VEC_PUSH(&qs, t);
        VEC_PUSH(&qk, nk);
      }
    }
  }
  VEC_FREE(&qs);
  VEC_FREE(&qk);
  free(seen);
  free(in_alpha);
  return found;
}

/* From every reachable (state, progress mask) of l a state with every
 * progress action seen is reachable. */
static bool progress_holds(const lts_t *l, const int *progress, int nprogress) {
  size_t nmask = (size_t)1 << nprogress, n = (size_t)l->nstates * nmask;
  int full = (int)nmask - 1;
  bitword_t *seen = bitset_new(n), *good = bitset_new(n);
  intvec_t q = {0}, es = {0}, et = {0};
  VEC_PUSH(&q, l->init * (int)nmask);
  bitset_set(seen, (size_t)l->init * nmask);
  for (size_t h = 0; h < q.len; h++) {
    int s = q.data[h] / (int)nmask, m = q.data[h] % (int)nmask;
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      int tm = m;
      for (int k = 0; k < nprogress; k++)
        if (l->succ_label[i] == progress[k]) tm |= 1 << k;
      int t = l->succ_dst[i] * (int)nmask + tm;
      VEC_PUSH(&es, q.data[h]);
      VEC_PUSH(&et, t);
      if (!bitset_get(seen, (size_t)t)) {
        bitset_set(seen, (size_t)t);
        VEC_PUSH(&q, t);
      }
    }
  }
  /* backward search from the good states over the reversed edges (CSR by target) */
  size_t ne = es.len;
  int *roff = xcalloc(n + 2, sizeof *roff), *rsrc = xmalloc((ne + 1) * sizeof *rsrc);
  for (size_t e = 0; e < ne; e++) roff[(size_t)et.data[e] + 1]++;
  for (size_t i = 0; i < n; i++) roff[i + 1] += roff[i];
  int *fill = xmalloc((n + 1) * sizeof *fill);
  memcpy(fill, roff, n * sizeof *fill);
  for (size_t e = 0; e < ne; e++) rsrc[fill[et.data[e]]++] = es.data[e];
  free(fill);
  intvec_t work = {0};
  for (size_t h = 0; h < q.len; h++)
    if (q.data[h] % (int)nmask == full && q.data[h] / (int)nmask != l->error) {
      bitset_set(good, (size_t)q.data[h]);
      VEC_PUSH(&work, q.data[h]);
    }
  while (work.len > 0) {
    int t = work.data[--work.len];
    for (int i = roff[t]; i < roff[t + 1]; i++)
      if (!bitset_get(good, (size_t)rsrc[i])) {
        bitset_set(good, (size_t)rsrc[i]);
        VEC_PUSH(&work, rsrc[i]);
      }
  }
  VEC_FREE(&work);
  free(roff);
  free(rsrc);
  bool ok = true;
  for (size_t h = 0; h < q.len && ok; h++) ok = bitset_get(good, (size_t)q.data[h]);
  VEC_FREE(&q);
  VEC_FREE(&es);
  VEC_FREE(&et);
  free(seen);
  free(good);
  return ok;
}

const char ROBUSTIFY_CHECK_STOPPED[] = "stopped before the re-check decided";

const char *robustify_check(const robustify_problem_t *p, const robustify_solution_t *s,
                            const lts_t *design) {
  return robustify_check_bounded(p, s, design, NULL, NULL);
}

const char *robustify_check_bounded(const robustify_problem_t *p, const robustify_solution_t *s,
                                    const lts_t *design, bool (*stop)(void *), void *arg) {
  int nlabels = (int)p->sys->labels->names.count;
  lts_t *sys_own = NULL, *dev_own = NULL, *des_own = NULL, *prop = lts_property(p->safety);
  const lts_t *sys = det_borrow(s->base ? s->base : p->sys, &sys_own), *dev = det_borrow(p->dev, &dev_own),
              *des = det_borrow(design, &des_own);
  const lts_t *cl_parts[3] = {des, dev, prop}, *orig_parts[2] = {sys, dev};
  lts_t *cl = lts_compose_bounded(cl_parts, 3, 0, stop, arg);
  lts_t *orig = cl ? lts_compose_bounded(orig_parts, 2, 0, stop, arg) : NULL;
  if (!orig) {
    lts_free(cl);
    lts_free(sys_own);
    lts_free(dev_own);
    lts_free(prop);
    lts_free(des_own);
    return ROBUSTIFY_CHECK_STOPPED;
  }
  bitword_t *alpha = bitset_new((size_t)nlabels), *ctrl = bitset_new((size_t)nlabels);
  for (int a = 0; a < orig->nalphabet; a++) bitset_set(alpha, (size_t)orig->alphabet[a]);
  for (int i = 0; i < s->nctrl; i++) bitset_set(ctrl, (size_t)s->ctrl[i]);
  const char *why = NULL;
  if (cl->error >= 0)
    why = "the safety property is violated under the deviated environment";
  else if (!progress_holds(cl, p->progress, p->nprogress))
    why = "a progress action can become unreachable";
  for (int k = 0; !why && k < p->npref; k++)
    if ((s->kept >> k & 1) && !lts_accepts(cl, alpha, &p->pref[k], nlabels))
      why = "a preferred behaviour reported kept is not";
  /* walk the closed loop beside the original M ‖ E': only controllable,
   * observable actions may be missing, nothing may be added. The closed
   * loop is cl: P_err enables every action of αP in every state and cl
   * reaches no error, so on the actions of M ‖ E' it moves as design ‖ E'
   * (an action of P alone moves only P: not a move of the design) */
  const lts_t *cl2 = cl;
  if (!why) {
    bitword_t *obs = bitset_new((size_t)nlabels);
    for (int i = 0; i < s->nobs; i++) bitset_set(obs, (size_t)s->obs[i]);
    keytab_t seen; /* reachable pairs only: the product of the two sizes can be far too large */
    keytab_init(&seen);
    intvec_t qa = {0}, qb = {0};
    VEC_PUSH(&qa, cl2->init);
    VEC_PUSH(&qb, orig->init);
    bool added;
    keytab_add(&seen, (int[2]){cl2->init, orig->init}, 2, &added);
    for (size_t h = 0; h < qa.len && !why; h++) {
      if ((h & 1023) == 0 && stop && stop(arg)) {
        why = ROBUSTIFY_CHECK_STOPPED;
        break;
      }
      int a = qa.data[h], b = qb.data[h];
      for (int i = orig->succ_off[b]; i < orig->succ_off[b + 1] && !why; i++) {
        int l = orig->succ_label[i], ta = lts_step(cl2, a, l);
        if (ta < 0) {
          if (!bitset_get(ctrl, (size_t)l) || !bitset_get(obs, (size_t)l))
            why = "the design blocks an action that is not both controllable and observable";
          continue;
        }
        keytab_add(&seen, (int[2]){ta, orig->succ_dst[i]}, 2, &added);
        if (added) {
          VEC_PUSH(&qa, ta);
          VEC_PUSH(&qb, orig->succ_dst[i]);
        }
      }
      for (int i = cl2->succ_off[a]; i < cl2->succ_off[a + 1] && !why; i++)
        if (bitset_get(alpha, (size_t)cl2->succ_label[i]) && lts_step(orig, b, cl2->succ_label[i]) < 0)
          why = "the design adds behaviour the original lacks";
    }
    VEC_FREE(&qa);
    VEC_FREE(&qb);
    keytab_free(&seen);
    free(obs);
  }
  free(alpha);
  free(ctrl);
  lts_free(cl);
  lts_free(orig);
  lts_free(sys_own);
  lts_free(dev_own);
  lts_free(prop);
  lts_free(des_own);
  return why;
}
