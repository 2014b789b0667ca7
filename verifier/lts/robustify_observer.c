#include "verifier/lts/robustify_observer.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

static bool ctrl_has(const synth_t *y, int l) { return bitset_get(y->ctrl, (size_t)l); }

void robustify_observer_free(observer_t *o) {
  if (!o) return;
  free(o->obs);
  VEC_FREE(&o->sets.keys);
  VEC_FREE(&o->sets.off);
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

/* Open addressing over 64-bit hashes h: slot (h >> 32) & (cap - 1) on,
 * each slot the entry id (-1 empty), the top 32 bits of its hash, and
 * where the set's members start in the observer's keys and how many there
 * are, side by side (one cache line per probe: the tables outgrow the
 * caches; the set's offsets need no second look); cap a power of two > 2 *
 * count. The caller compares entries whose bits match (closer_t's sets).
 * Pair numbers are ints (the pair moves'), so a set's start fits 32 bits. */
typedef struct {
  uint32_t hi;
  int32_t id;
  uint32_t base, k;
} hslot_t;

typedef struct {
  hslot_t *slot;
  size_t cap, count;
} htab_t;

static void htab_init(htab_t *t, size_t want) {
  t->cap = 64;
  while (t->cap < 2 * want + 2) t->cap *= 2;
  t->count = 0;
  t->slot = xmalloc(t->cap * sizeof *t->slot);
  for (size_t i = 0; i < t->cap; i++) t->slot[i] = (hslot_t){0, -1, 0, 0};
}

static void htab_free(htab_t *t) { free(t->slot); }

/* The first slot to probe for hash bits hi. */
static size_t htab_start(const htab_t *t, uint32_t hi) { return (size_t)hi & (t->cap - 1); }

/* Adds entry e (e.id, under hash bits e.hi) at the first free slot (no
 * equal entry is in t: the caller looked it up). */
static void htab_put(htab_t *t, hslot_t e) {
  if (2 * (t->count + 1) >= t->cap) {
    htab_t n;
    htab_init(&n, t->cap);
    for (size_t i = 0; i < t->cap; i++)
      if (t->slot[i].id >= 0) htab_put(&n, t->slot[i]);
    htab_free(t);
    *t = n;
  }
  size_t mask = t->cap - 1, i = htab_start(t, e.hi);
  while (t->slot[i].id >= 0) i = (i + 1) & mask;
  t->slot[i] = e;
  t->count++;
}

/* G's moves for O, by source state x (st[x]): mv[off, + np) the
 * unobservable ones not into the error state (G's order), up to + nu
 * those into it, then up to st[x + 1].off the observable ones (by label,
 * into the error state too); npm: x's moves not into the error state (the
 * moves of a pair of x). A state's numbers side by side, and each move's
 * label beside its target: one cache line for what the construction reads
 * of a state (its members are scattered over G). */
typedef struct {
  int off, np, nu, npm;
} xstate_t;

typedef struct {
  int lab, dst;
} xmove_t;

typedef struct {
  xstate_t *st;
  xmove_t *mv;
  int st_n; /* G's states */
} split_t;

static void split_init(split_t *sp, const plant_t *g, const uint8_t *is_obs) {
  size_t n = (size_t)g->n + 1;
  sp->st = xcalloc(n + 1, sizeof *sp->st);
  sp->mv = xmalloc(((size_t)g->ntrans + 1) * sizeof *sp->mv);
  sp->st_n = g->n;
  int maxdeg = 0; /* the observable moves of one state wait in ol, od */
  for (int x = 0; x < g->n; x++)
    if (g->off[x + 1] - g->off[x] > maxdeg) maxdeg = g->off[x + 1] - g->off[x];
  int *ol = xmalloc(((size_t)maxdeg + 1) * sizeof *ol), *od = xmalloc(((size_t)maxdeg + 1) * sizeof *od);
  const int *glab = g->lab, *gdst = g->dst, err = g->error;
  xmove_t *mv = sp->mv;
  int k = 0;
  for (int x = 0; x < g->n; x++) {
    int nerr = 0, no = 0, oerr = 0;
    xstate_t *st = &sp->st[x];
    st->off = k;
    for (int t = g->off[x], to = g->off[x + 1]; t < to; t++) {
      int l = glab[t], d = gdst[t];
      if (is_obs[l])
        ol[no] = l, od[no++] = d, oerr += d == err;
      else if (d != err)
        mv[k++] = (xmove_t){l, d};
      else
        nerr++;
    }
    st->np = k - st->off;
    for (int i = 0; i < nerr; i++) mv[k++] = (xmove_t){-1, err};
    st->nu = k - st->off;
    for (int i = 0; i < no; i++) mv[k++] = (xmove_t){ol[i], od[i]};
    st->npm = st->np + no - oerr;
  }
  sp->st[g->n].off = k;
  free(ol);
  free(od);
}

static void split_free(split_t *sp) {
  free(sp->st);
  free(sp->mv);
}

/* Scratch of one observer construction, per G state x (xs[x]: the fields
 * are read together). A set of G states is hashed as the sum of its
 * members' random words (rnd), so that a closure hashes alike whatever
 * order it is found in. The closures of up to 64 labels of one set are
 * found before any is looked up (so that their table slots are fetched
 * meanwhile): x is in closure i of the current round when stamp is the
 * round (epoch) and bit i of mask is set; a set is equal to closure i when
 * it has as many members and all of them are in it (a closure's members
 * are distinct). The closure of one state x, once found: single, x's
 * position in it single_pos, where it starts in the keys single_base.
 * (Closures of two or more targets are not kept: looking them up in a
 * table of their own cost more in cache misses than closing them again;
 * pump-3 pareto 2.20 -> 2.00 s CPU, 401 -> 368 MB.) tpos: the position of
 * x in the set close_find returned last, for its targets (c->tbase: where
 * that set starts in the keys); pos: its position in the set being
 * expanded (robustify_observer_build). */
typedef struct {
  uint64_t rnd, mask;
  int stamp, tpos, single, single_pos, pos, single_base;
} xscratch_t;

/* Closure i of a round: its members mbuf[start, + n) (the targets, then
 * breadth first; ntargets targets), its hash, or hit >= 0: the state whose
 * single closure it is (nothing stamped). */
typedef struct {
  int start, n, ntargets, hit;
  uint64_t h;
} closure_t;

typedef struct {
  const split_t *sp;
  xscratch_t *xs;
  int epoch;
  htab_t sets_ix;
  intvec_t mbuf;
  closure_t cl[64];
  int tbase;
} closer_t;

/* Whether closure i's members (k of them) are the set of slot e; sets tpos
 * of its members on the way. */
static bool set_is_stamped(closer_t *c, const observer_t *o, const hslot_t *e, size_t k, int i) {
  if (e->k != k) return false;
  const int *key = o->sets.keys.data + e->base;
  for (size_t j = 0; j < k; j++) {
    xscratch_t *x = &c->xs[key[j]];
    if (x->stamp != c->epoch || !(x->mask >> i & 1)) return false;
    x->tpos = (int)j;
  }
  return true;
}

/* Closure i of this round (c->epoch, started by the caller): the
 * unobservable closure of the G states dst[j] for j on the list head,
 * next[head], ... (-1 ends it; in any order, repeats allowed); its table
 * slot prefetched. Reads no tpos (close_find of an earlier closure of the
 * round may have set them for its caller). */
static void close_targets(closer_t *c, int i, int head, const int *next, const int *dst) {
  const xstate_t *st = c->sp->st;
  const xmove_t *mv = c->sp->mv;
  xscratch_t *xs = c->xs;
  closure_t *cl = &c->cl[i];
  cl->hit = -1;
  if (next[head] < 0 && xs[dst[head]].single >= 0) {
    cl->hit = dst[head];
    return;
  }
  int epoch = c->epoch, g = (int)(c->sp->st_n);
  uint64_t bit = (uint64_t)1 << i, h = 0;
  VEC_RESERVE(&c->mbuf, c->mbuf.len + (size_t)g + 1);
  int *buf = c->mbuf.data + c->mbuf.len, k = 0;
  for (int j = head; j >= 0; j = next[j]) {
    xscratch_t *x = &xs[dst[j]];
    if (x->stamp != epoch) x->stamp = epoch, x->mask = 0;
    if (!(x->mask & bit)) {
      x->mask |= bit;
      h += x->rnd;
      buf[k++] = dst[j];
    }
  }
  if (k == 1 && xs[buf[0]].single >= 0) {
    xs[buf[0]].mask &= ~bit;
    cl->hit = buf[0];
    return;
  }
  int n = k;
  for (int q = 0; q < n; q++) {
    const xstate_t *sx = &st[buf[q]];
    for (int t = sx->off, te = t + sx->nu; t < te; t++) {
      xscratch_t *x = &xs[mv[t].dst];
      if (x->stamp != epoch) x->stamp = epoch, x->mask = 0;
      if (!(x->mask & bit)) {
        x->mask |= bit;
        h += x->rnd;
        buf[n++] = mv[t].dst;
      }
    }
  }
  cl->start = (int)c->mbuf.len;
  cl->n = n;
  cl->ntargets = k;
  cl->h = h;
  c->mbuf.len += (size_t)n;
  __builtin_prefetch(&c->sets_ix.slot[htab_start(&c->sets_ix, (uint32_t)(h >> 32))]);
}

/* The set id of closure i of this round, added to o when new (its members
 * in the order found); tpos of each of its members, and c->tbase. */
static int close_find(closer_t *c, observer_t *o, int i) {
  xscratch_t *xs = c->xs;
  const closure_t *cl = &c->cl[i];
  if (cl->hit >= 0) {
    xscratch_t *s0 = &xs[cl->hit];
    s0->tpos = s0->single_pos;
    c->tbase = s0->single_base;
    return s0->single;
  }
  const int *buf = c->mbuf.data + cl->start;
  htab_t *t = &c->sets_ix;
  size_t k = (size_t)cl->n;
  uint32_t hi = (uint32_t)(cl->h >> 32);
  int id = -1;
  for (size_t j = htab_start(t, hi); t->slot[j].id >= 0 && id < 0; j = (j + 1) & (t->cap - 1))
    if (t->slot[j].hi == hi && set_is_stamped(c, o, &t->slot[j], k, i)) {
      c->tbase = (int)t->slot[j].base;
      id = t->slot[j].id;
    }
  if (id < 0) {
    id = (int)o->sets.count++;
    size_t base = o->sets.keys.len;
    VEC_RESERVE(&o->sets.keys, base + k);
    memcpy(o->sets.keys.data + base, buf, k * sizeof *buf);
    o->sets.keys.len = base + k;
    VEC_PUSH(&o->sets.off, base + k);
    for (size_t j = 0; j < k; j++) xs[buf[j]].tpos = (int)j;
    htab_put(t, (hslot_t){hi, id, (uint32_t)base, (uint32_t)k});
    c->tbase = (int)base;
  }
  if (cl->ntargets == 1) {
    xscratch_t *s0 = &xs[buf[0]];
    s0->single = id;
    s0->single_pos = s0->tpos;
    s0->single_base = c->tbase;
  }
  return id;
}

/* splitmix64's finaliser: a random word per G state for the set hashes */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void closer_init(closer_t *c, const plant_t *g, const split_t *sp, const search_t *s) {
  memset(c, 0, sizeof *c);
  size_t n = (size_t)g->n + 1;
  c->sp = sp;
  c->xs = xmalloc(n * sizeof *c->xs);
  for (size_t x = 0; x < n; x++)
    c->xs[x] = (xscratch_t){mix64(0x9e3779b97f4a7c15ull * (x + 1)), 0, 0, 0, -1, 0, 0, 0};
  htab_init(&c->sets_ix, s->sets_hint);
}

static void closer_free(closer_t *c) {
  free(c->xs);
  VEC_FREE(&c->mbuf);
  htab_free(&c->sets_ix);
}

/* What both constructions of an observer start with: the observer with its
 * O and the first set's offset, O as a byte per label, the plant split by
 * O, the closer, and an empty list per label (head); observer_finish frees
 * these and the construction's label scratch. */
static observer_t *observer_start(search_t *s, const bitword_t *obs, uint8_t **is_obs, split_t *sp,
                                  closer_t *c, int **head) {
  const plant_t *g = &s->g;
  int nl = g->nlabels;
  observer_t *o = xcalloc(1, sizeof *o);
  o->obs = bitset_new((size_t)nl);
  memcpy(o->obs, obs, BITSET_WORDS((size_t)nl) * sizeof *obs);
  VEC_PUSH(&o->sets.off, 0);
  *is_obs = xmalloc((size_t)nl + 1);
  for (int l = 0; l < nl; l++) (*is_obs)[l] = bitset_get(obs, (size_t)l);
  split_init(sp, g, *is_obs);
  closer_init(c, g, sp, s);
  *head = xmalloc(((size_t)nl + 1) * sizeof **head);
  memset(*head, -1, ((size_t)nl + 1) * sizeof **head);
  return o;
}

static void observer_finish(uint8_t *is_obs, int *head, bitword_t *labset, int *labs, closer_t *c,
                            split_t *sp) {
  free(is_obs);
  free(head);
  free(labset);
  free(labs);
  closer_free(c);
  split_free(sp);
}

/* The observer of O: every observation set reachable from {init} through
 * sets without the error state, and the pair moves both ways. NULL when a
 * limit stopped it. A set holding the error state gets no moves, nor do
 * its members' pairs: such a set is bad for every C, and its moves matter
 * to no other set's place in the fixpoint (solve): a set's badness
 * depends on its successors only (an uncontrollable move into a bad set,
 * paths of pairs through good sets to a marked one), the sets built are
 * closed under the successors of those without the error state, and a
 * path through good sets passes no error set. Nothing reads the moves of
 * a bad set (the supervisor, its idle actions and kept behaviours go
 * through good sets). pump-3 pareto: 37.1 M -> 25.3 M pair moves over its
 * 13 observers, 140 277 -> 5 926 sets for one O without a supervisor. Per set, the pair
 * moves are laid out from the members' move counts; one pass over the
 * members' moves writes the unobservable ones (target: by position in the
 * set itself) and threads the observable ones into a list per label; per
 * label, ascending, the list's targets are closed into the successor set
 * and its moves get their targets (by position there, close_list's
 * tpos). A pair's moves are so its unobservable ones, then its observable
 * ones by label. The reversed pair moves are counted as they are written. */
observer_t *robustify_observer_build(search_t *s, const bitword_t *obs) {
  const plant_t *g = &s->g;
  int nl = g->nlabels;
  uint8_t *is_obs;
  split_t sp;
  closer_t c;
  int *head; /* per label: the set's moves by it, a list */
  observer_t *o = observer_start(s, obs, &is_obs, &sp, &c, &head);
  size_t lwords = BITSET_WORDS((size_t)nl);
  bitword_t *labset = bitset_new((size_t)nl);
  int *labs = xmalloc(((size_t)nl + 1) * sizeof *labs); /* a set's observable labels */
  intvec_t bd = {0}, be = {0}, bn = {0}; /* a set's observable moves: target, pair move (or -1), next */
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
  c.epoch++;
  c.mbuf.len = 0;
  close_targets(&c, 0, 0, (int[1]){-1}, (int[1]){0});
  close_find(&c, o, 0);
  const int err = g->error;
  const xstate_t *st = sp.st;
  const xmove_t *mv = sp.mv;
  xscratch_t *xs = c.xs;
  bool ok = true;
  for (size_t q = 0; q < o->sets.count; q++) {
    if (robustify_over_states(s, o->sets.keys.len) || ((q & 255) == 0 && robustify_out_of_time(s))) {
      ok = false;
      break;
    }
    VEC_PUSH(&o->toff, (int)o->tlab.len);
    size_t base = o->sets.off.data[q], m = o->sets.off.data[q + 1] - base;
    const int *mem = o->sets.keys.data + base; /* until a set is added */
    size_t e = flab.len, nobsm = 0;
    VEC_RESERVE(&foff, foff.len + m);
    bool holds_error = false;
    for (size_t i = 0; i < m && !holds_error; i++) holds_error = mem[i] == err;
    if (holds_error) { /* no moves: bad whatever C, and they matter to no other set (above) */
      for (size_t i = 0; i < m; i++) foff.data[foff.len++] = (int)e;
      continue;
    }
    for (size_t i = 0; i < m; i++) {
      int x = mem[i];
      xs[x].pos = (int)i;
      e += (size_t)st[x].npm;
      nobsm += (size_t)(st[x + 1].off - st[x].off - st[x].nu);
      foff.data[foff.len++] = (int)e;
    }
    VEC_RESERVE(&flab, e + 1);
    VEC_RESERVE(&fdst, e + 1);
    VEC_RESERVE(&bd, nobsm + 1);
    VEC_RESERVE(&be, nobsm + 1);
    VEC_RESERVE(&bn, nobsm + 1);
    int *fl = flab.data, *fd = fdst.data, *bdd = bd.data, *bed = be.data, *bnd = bn.data;
    int nb = 0, ie = (int)flab.len;
    for (size_t i = 0; i < m; i++) {
      const xstate_t *sx = &st[mem[i]];
      int t = sx->off, tp = t + sx->np, te = sx[1].off;
      for (; t < tp; t++, ie++) {
        int r = (int)base + xs[mv[t].dst].pos;
        fl[ie] = mv[t].lab;
        fd[ie] = r;
      }
      for (t += sx->nu - sx->np; t < te; t++) {
        int l = mv[t].lab, d = mv[t].dst;
        bdd[nb] = d;
        if (d != err)
          fl[ie] = l, bed[nb] = ie++;
        else
          bed[nb] = -1;
        if (head[l] < 0) bitset_set(labset, (size_t)l);
        bnd[nb] = head[l];
        head[l] = nb++;
      }
    }
    flab.len = fdst.len = (size_t)ie;
    /* the set's observable labels, ascending, 64 at a time: their
     * closures first (their table slots fetched meanwhile), then each one's
     * set and its pair moves' targets */
    int nlabs = 0;
    for (size_t w = 0; w < lwords; w++) {
      for (bitword_t bits = labset[w]; bits; bits &= bits - 1)
        labs[nlabs++] = (int)(64 * w + (size_t)__builtin_ctzll(bits));
      labset[w] = 0;
    }
    for (int c0 = 0; c0 < nlabs; c0 += 64) {
      int cn = nlabs - c0 < 64 ? nlabs - c0 : 64;
      c.epoch++;
      c.mbuf.len = 0;
      for (int i = 0; i < cn; i++) close_targets(&c, i, head[labs[c0 + i]], bnd, bdd);
      for (int i = 0; i < cn; i++) {
        int l = labs[c0 + i], to = close_find(&c, o, i), tbase = c.tbase;
        VEC_PUSH(&o->tlab, l);
        VEC_PUSH(&o->tdst, to);
        for (int j = head[l]; j >= 0; j = bnd[j])
          if (bed[j] >= 0) fd[bed[j]] = tbase + xs[bdd[j]].tpos;
        head[l] = -1;
      }
    }
  }
  VEC_PUSH(&o->toff, (int)o->tlab.len);
  observer_finish(is_obs, head, labset, labs, &c, &sp);
  VEC_FREE(&bd);
  VEC_FREE(&be);
  VEC_FREE(&bn);
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
  /* the pair moves reversed: counted in one pass of their own (the
   * counters are scattered: apart from the construction they overlap) */
  o->roff = xcalloc(npairs + 2, sizeof *o->roff);
  for (size_t e = 0; e < nm; e++) o->roff[fdst.data[e] + 1]++;
  for (size_t p = 0; p < npairs; p++) o->roff[p + 1] += o->roff[p];
  o->rsrc = xmalloc((nm + 1) * sizeof *o->rsrc);
  int *fill = xmalloc((npairs + 1) * sizeof *fill), *rsrc = o->rsrc;
  memcpy(fill, o->roff, npairs * sizeof *fill);
  for (size_t p = 0; p < npairs; p++)
    for (int e = foff.data[p], end = foff.data[p + 1]; e < end; e++) rsrc[fill[fdst.data[e]]++] = (int)p;
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
  uint8_t *co = NULL;
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
    /* co[p]: 1 when pair p reaches a marked state through good sets, 2
     * when its set is bad (one byte read per reversed move) */
    size_t head = 0, tail = 0;
    for (size_t p = 0; p < npairs; p++) {
      co[p] = y->bad[o->pair_set[p]] ? 2 : bitset_get(g->marked, (size_t)o->sets.keys.data[p]);
      if (co[p] == 1) queue[tail++] = (int)p;
    }
    while (head < tail) {
      int r = queue[head++];
      for (int i = o->roff[r]; i < o->roff[r + 1]; i++) {
        int p = o->rsrc[i];
        if (!co[p]) co[p] = 1, queue[tail++] = p;
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
  if (y->own_o) robustify_observer_free(y->o);
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

/* The observation sets of O on s->g reachable from {init} through the sets
 * whose image (the set of their states' classes in the reduced plant) is
 * good in the reduced plant's synthesis (qo, qbad), each set's image found
 * along the way (the image's move on the same label); the sets with a bad
 * image get no moves. Set moves only (toff, tlab, tdst), no pair moves.
 * *bad gets the sets with a bad image. NULL when a limit stopped it, or
 * when a move has no image (not expected: images commute with moves; the
 * caller then synthesises on G itself). */
static observer_t *observer_lockstep(search_t *s, const bitword_t *obs, const observer_t *qo,
                                     const bool *qbad, bool **bad, bool *mismatch) {
  const plant_t *g = &s->g;
  int nl = g->nlabels;
  uint8_t *is_obs;
  split_t sp;
  closer_t c;
  int *head;
  observer_t *o = observer_start(s, obs, &is_obs, &sp, &c, &head);
  size_t lwords = BITSET_WORDS((size_t)nl);
  bitword_t *labset = bitset_new((size_t)nl);
  int *labs = xmalloc(((size_t)nl + 1) * sizeof *labs);
  intvec_t bd = {0}, bn = {0}, img = {0}; /* a set's observable targets and their lists; each set's image */
  c.epoch++;
  c.mbuf.len = 0;
  close_targets(&c, 0, 0, (int[1]){-1}, (int[1]){0});
  close_find(&c, o, 0);
  VEC_PUSH(&img, 0); /* the initial sets */
  const xstate_t *st = sp.st;
  const xmove_t *mv = sp.mv;
  bool ok = true;
  *mismatch = false;
  for (size_t q = 0; q < o->sets.count && ok; q++) {
    if (robustify_over_states(s, o->sets.keys.len) || ((q & 255) == 0 && robustify_out_of_time(s))) {
      ok = false;
      break;
    }
    VEC_PUSH(&o->toff, (int)o->tlab.len);
    int qi = img.data[q];
    if (qbad[qi]) continue; /* bad (the error state's sets among them): not expanded */
    size_t base = o->sets.off.data[q], m = o->sets.off.data[q + 1] - base;
    const int *mem = o->sets.keys.data + base;
    int nb = 0;
    for (size_t i = 0; i < m; i++) {
      const xstate_t *sx = &st[mem[i]];
      VEC_RESERVE(&bd, (size_t)nb + (size_t)(sx[1].off - sx->off) + 1);
      VEC_RESERVE(&bn, (size_t)nb + (size_t)(sx[1].off - sx->off) + 1);
      for (int t = sx->off + sx->nu, te = sx[1].off; t < te; t++) {
        int l = mv[t].lab;
        bd.data[nb] = mv[t].dst;
        if (head[l] < 0) bitset_set(labset, (size_t)l);
        bn.data[nb] = head[l];
        head[l] = nb++;
      }
    }
    mem = NULL; /* the keys move as sets are added */
    int nlabs = 0;
    for (size_t w = 0; w < lwords; w++) {
      for (bitword_t bits = labset[w]; bits; bits &= bits - 1)
        labs[nlabs++] = (int)(64 * w + (size_t)__builtin_ctzll(bits));
      labset[w] = 0;
    }
    int qt = qo->toff.data[qi], qe = qo->toff.data[qi + 1]; /* the image's moves, by label */
    for (int c0 = 0; c0 < nlabs; c0 += 64) {
      int cn = nlabs - c0 < 64 ? nlabs - c0 : 64;
      c.epoch++;
      c.mbuf.len = 0;
      for (int i = 0; i < cn; i++) close_targets(&c, i, head[labs[c0 + i]], bn.data, bd.data);
      for (int i = 0; i < cn; i++) {
        int l = labs[c0 + i];
        size_t before = o->sets.count;
        int to = close_find(&c, o, i);
        head[l] = -1;
        while (qt < qe && qo->tlab.data[qt] < l) qt++;
        if (qt == qe || qo->tlab.data[qt] != l) {
          *mismatch = true;
          ok = false;
          break;
        }
        if (o->sets.count > before)
          VEC_PUSH(&img, qo->tdst.data[qt]);
        else if (img.data[to] != qo->tdst.data[qt]) {
          *mismatch = true;
          ok = false;
          break;
        }
        VEC_PUSH(&o->tlab, l);
        VEC_PUSH(&o->tdst, to);
      }
      if (!ok) break;
    }
  }
  VEC_PUSH(&o->toff, (int)o->tlab.len);
  observer_finish(is_obs, head, labset, labs, &c, &sp);
  VEC_FREE(&bd);
  VEC_FREE(&bn);
  if (!ok) {
    VEC_FREE(&img);
    robustify_observer_free(o);
    return NULL;
  }
  size_t nsets = o->sets.count;
  *bad = xmalloc(nsets + 1);
  for (size_t q = 0; q < nsets; q++) (*bad)[q] = qbad[img.data[q]];
  VEC_FREE(&img);
  return o;
}

void robustify_synth_final(synth_t *y, search_t *s, const bitword_t *ctrl, const bitword_t *obs,
                           uint64_t *kept) {
  *kept = 0;
  if (s->reduced) {
    plant_t g = s->g;
    s->g = *s->reduced; /* its observers (a cache) travel with it */
    synth_t yq;
    robustify_synth_run(&yq, s, ctrl, obs);
    uint64_t k = yq.exists ? robustify_kept_mask(&yq, ~(uint64_t)0) : 0;
    *s->reduced = s->g;
    s->g = g;
    memset(y, 0, sizeof *y);
    y->s = s;
    y->ctrl = ctrl;
    y->obs = obs;
    bool mismatch = false;
    if (yq.exists) {
      y->o = observer_lockstep(s, obs, yq.o, yq.bad, &y->bad, &mismatch);
      y->own_o = true;
      y->exists = y->o && !s->bounded;
      *kept = k;
    }
    bool stopped = !yq.o || (yq.exists && !y->o && !mismatch);
    robustify_synth_free(&yq);
    if (!mismatch || stopped) return;
    robustify_synth_free(y); /* not expected (see observer_lockstep): G's own synthesis */
  }
  robustify_synth_run(y, s, ctrl, obs);
  if (y->exists) *kept = robustify_kept_mask(y, ~(uint64_t)0);
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
