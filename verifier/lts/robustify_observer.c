#include "verifier/lts/robustify_observer.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

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

void robustify_observer_free(observer_t *o) {
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

/* The observer of O: every observation set reachable from {init}, and the
 * pair moves both ways. NULL when a limit stopped it. Per set, one pass
 * over its members' transitions counts each pair's moves (none into the
 * error state) and each observable label's; a second writes the
 * unobservable ones in place (target: by position in the set itself) and
 * buckets the observable ones by label (a counting sort), whose seeds
 * are closed into the successor sets in label order; their moves go in
 * place too (target: by position in the successor set). A pair's moves
 * are so its unobservable ones, then its observable ones by label. */
observer_t *robustify_observer_build(search_t *s, const bitword_t *obs) {
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
  size_t lwords = BITSET_WORDS((size_t)nl);
  bitword_t *labset = bitset_new((size_t)nl);
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
    if (robustify_over_states(s, o->sets.keys.len) || ((q & 255) == 0 && robustify_out_of_time(s))) {
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
          if (cnt[l]++ == 0) bitset_set(labset, (size_t)l);
        }
      }
      VEC_PUSH(&foff, (int)nmoves);
    }
    VEC_RESERVE(&flab, nmoves + 1);
    VEC_RESERVE(&fdst, nmoves + 1);
    flab.len = fdst.len = nmoves;
    for (size_t w = 0; w < lwords; w++) /* the set's observable labels, ascending */
      for (bitword_t bits = labset[w]; bits; bits &= bits - 1)
        VEC_PUSH(&labs, (int)(64 * w + (size_t)__builtin_ctzll(bits)));
    memset(labset, 0, lwords * sizeof *labset);
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
  free(labset);
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
    robustify_observer_free(o);
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
  /* set moves reversed (by target set), for the syntheses' backward
   * propagation (by label: set_moves_by_label, when a warm start needs them) */
  size_t nt = o->tlab.len;
  o->rtoff = xcalloc((size_t)nsets + 2, sizeof *o->rtoff);
  for (size_t t = 0; t < nt; t++) o->rtoff[o->tdst.data[t] + 1]++;
  for (int q = 0; q < nsets; q++) o->rtoff[q + 1] += o->rtoff[q];
  o->rtsrc = xmalloc((nt + 1) * sizeof *o->rtsrc);
  o->rtlab = xmalloc((nt + 1) * sizeof *o->rtlab);
  int *rfill = xmalloc(((size_t)nsets + 1) * sizeof *rfill);
  memcpy(rfill, o->rtoff, (size_t)nsets * sizeof *rfill);
  for (int q = 0; q < nsets; q++)
    for (int t = o->toff.data[q]; t < o->toff.data[q + 1]; t++) {
      int i = rfill[o->tdst.data[t]]++;
      o->rtsrc[i] = q, o->rtlab[i] = o->tlab.data[t];
    }
  free(rfill);
  o->witness = xcalloc(ROBUSTIFY_MAX_PREFERRED, sizeof *o->witness);
  return o;
}

/* The observer of O on the current plant: a cached one when it is for O
 * (the last ROBUSTIFY_OBSERVERS used: the fast search tries O minus one
 * action, then goes back to O; the Pareto search's layers revisit a few O
 * in turn), else a fresh one. */
observer_t *robustify_observer_get(search_t *s, const bitword_t *obs) {
  plant_t *g = &s->g;
  observer_t **c = g->observer;
  int i = 0;
  while (i < ROBUSTIFY_OBSERVERS && !(c[i] && bitset_equal(c[i]->obs, obs, (size_t)g->nlabels))) i++;
  observer_t *hit = i < ROBUSTIFY_OBSERVERS ? c[i] : NULL;
  if (!hit) {
    i = ROBUSTIFY_OBSERVERS - 1;
    robustify_observer_free(c[i]);
    c[i] = NULL;
    hit = robustify_observer_build(s, obs);
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

void robustify_bools_to_bits(const bool *b, size_t n, bitword_t *w) {
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

/* o's set moves by label (o->loff, lsrc, ldst), built the first time a
 * warm start asks for them. */
static void set_moves_by_label(observer_t *o, int nl) {
  if (o->loff) return;
  size_t nt = o->tlab.len;
  o->loff = xcalloc((size_t)nl + 2, sizeof *o->loff);
  for (size_t t = 0; t < nt; t++) o->loff[o->tlab.data[t] + 1]++;
  for (int l = 0; l < nl; l++) o->loff[l + 1] += o->loff[l];
  o->lsrc = xmalloc((nt + 1) * sizeof *o->lsrc);
  o->ldst = xmalloc((nt + 1) * sizeof *o->ldst);
  int *lfill = xmalloc(((size_t)nl + 1) * sizeof *lfill);
  memcpy(lfill, o->loff, (size_t)nl * sizeof *lfill);
  for (int q = 0; q < (int)o->sets.count; q++)
    for (int t = o->toff.data[q]; t < o->toff.data[q + 1]; t++) {
      int j = lfill[o->tlab.data[t]]++;
      o->lsrc[j] = q, o->ldst[j] = o->tdst.data[t];
    }
  free(lfill);
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
  observer_t *o = y->o;
  int nsets = (int)o->sets.count;
  size_t npairs = o->sets.keys.len;
  y->bad = xmalloc((size_t)nsets + 1);
  int *work = xmalloc(((size_t)nsets + 1) * sizeof *work), nwork = 0;
  if (start) {
    set_moves_by_label(o, g->nlabels);
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
    if (!grew || y->bad[0] || robustify_out_of_time(y->s)) break;
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

/* The sets the supervisor reaches (y->reach), for the supervisor LTS. */
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

void robustify_synth_free(synth_t *y) {
  free(y->bad);
  free(y->reach);
}

/* One synthesis for C and O; warm-started from `start` as solve says. */
void robustify_synth_run_from(synth_t *y, search_t *s, const bitword_t *ctrl, const bitword_t *obs,
                              const bitword_t *start, int newly) {
  memset(y, 0, sizeof *y);
  y->s = s;
  y->ctrl = ctrl;
  y->obs = obs;
  y->o = robustify_observer_get(s, obs);
  if (!y->o) return;
  solve(y, start, newly);
}

void robustify_synth_run(synth_t *y, search_t *s, const bitword_t *ctrl, const bitword_t *obs) {
  robustify_synth_run_from(y, s, ctrl, obs, NULL, -1);
}

/* One search over the reachable good sets (as synth_reach), the labels
 * that move away from a set or into a bad one marked per label. */
void robustify_synth_idle(synth_t *y, bitword_t *stutter, bitword_t *undisabled) {
  const observer_t *o = y->o;
  int nl = y->s->g.nlabels, nsets = (int)o->sets.count;
  uint8_t *away = xcalloc((size_t)nl + 1, 1), *into_bad = xcalloc((size_t)nl + 1, 1);
  bool *seen = xcalloc((size_t)nsets + 1, sizeof *seen);
  int *stack = xmalloc(((size_t)nsets + 1) * sizeof *stack), top = 0;
  seen[0] = true;
  stack[top++] = 0;
  while (top) {
    int q = stack[--top];
    for (int t = o->toff.data[q]; t < o->toff.data[q + 1]; t++) {
      int r = o->tdst.data[t], l = o->tlab.data[t];
      if (y->bad[r]) { /* disabled here (l is controllable: q is good) */
        into_bad[l] = 1;
        continue;
      }
      away[l] |= r != q;
      if (!seen[r]) seen[r] = true, stack[top++] = r;
    }
  }
  bitset_zero(stutter, (size_t)nl);
  bitset_zero(undisabled, (size_t)nl);
  for (int l = 0; l < nl; l++) {
    if (bitset_get(y->obs, (size_t)l) && !away[l] && !into_bad[l]) bitset_set(stutter, (size_t)l);
    if (bitset_get(y->ctrl, (size_t)l) && !into_bad[l]) bitset_set(undisabled, (size_t)l);
  }
  free(away);
  free(into_bad);
  free(seen);
  free(stack);
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
uint64_t robustify_kept_mask(const synth_t *y, uint64_t among) {
  uint64_t m = 0;
  for (int i = 0; i < y->s->p->npref; i++)
    if ((among >> i & 1) && accepts(y, i)) m |= (uint64_t)1 << i;
  return m;
}

/* The supervisor over O: the reachable good sets and the observable moves
 * between them (not completed with Fortis's self-loops: removeUnnecessary
 * reads those from the idle actions). An observable action moves from a
 * set exactly when a member can do it, a move into the error state too. */
lts_t *robustify_supervisor(synth_t *y, lts_labels_t *labels, bitword_t *disabled) {
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
  for (int q = 0; q < nsets; q++) {
    if (!y->reach[q]) continue;
    for (int t = o->toff.data[q]; t < o->toff.data[q + 1]; t++) { /* by label */
      int l = o->tlab.data[t], r = o->tdst.data[t];
      if (!y->bad[r])
        lts_builder_add(&b, num[q], l, num[r]);
      else if (disabled && ctrl_has(y, l)) /* a member can do l here (it has a move) */
        bitset_set(disabled, (size_t)l);
    }
  }
  free(num);
  return lts_freeze(&b);
}
