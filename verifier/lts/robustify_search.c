#include "verifier/lts/robustify_search.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "verifier/lts/robustify_observer.h"

events_t robustify_events_new(const search_t *s) {
  return (events_t){bitset_new((size_t)s->g.nlabels), bitset_new((size_t)s->g.nlabels)};
}
events_t robustify_events_copy(const search_t *s, events_t e) {
  events_t r = robustify_events_new(s);
  memcpy(r.c, e.c, BITSET_WORDS((size_t)s->g.nlabels) * sizeof(bitword_t));
  memcpy(r.o, e.o, BITSET_WORDS((size_t)s->g.nlabels) * sizeof(bitword_t));
  return r;
}
void robustify_events_free(events_t e) {
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

/* A cached synthesis of e with one candidate action more whose supervisor
 * does without it: C ∪ {a} with a undisabled, or O ∪ {b} (b not in C)
 * with b stuttering (robustify_synth_idle). Its reachable good sets then
 * satisfy e's fixpoint conditions too (for O, an O-set of the closed loop
 * is closed under b, so it is the O \ {b}-set of the same observations),
 * so e's closed loop holds that supervisor's, and it holds no more (one
 * action less: supersets_allow): the same closed loop, the same kept
 * behaviours, and the same reachable sets and moves. Its id, and into
 * `idle` (2 * words) e's idle actions: the superset's without a or b;
 * -1 when none. */
static int idle_superset(search_t *s, events_t e, intvec_t *key, bitword_t *idle) {
  size_t words = BITSET_WORDS((size_t)s->g.nlabels);
  for (int pass = 0; pass < 2; pass++) {
    const robustify_event_t *ev = pass ? s->p->obs : s->p->ctrl;
    bitword_t *set = pass ? e.o : e.c;
    for (int i = 0, n = pass ? s->p->nobs : s->p->nctrl; i < n; i++) {
      size_t l = (size_t)ev[i].label;
      if (bitset_get(set, l) || !bitset_get(s->g.alpha, l) || (pass && bitset_get(e.c, l))) continue;
      bitset_set(set, l);
      events_key(s, e, key);
      bitset_clear_bit(set, l);
      int id = keytab_find(&s->cache, key->data, key->len);
      if (id < 0 || !s->cache_idle.data[id] || !bitset_get(s->cache_idle.data[id] + (pass ? 0 : words), l))
        continue;
      memcpy(idle, s->cache_idle.data[id], 2 * words * sizeof *idle);
      bitset_clear_bit(idle + (pass ? 0 : words), l);
      return id;
    }
  }
  return -1;
}

/* Orbits are enumerated up to this many sets (4 copies of a component:
 * 24); past it only the images found so far are looked up. */
#define ROBUSTIFY_ORBIT_MAX 1024

/* A cached synthesis of an image π(e) of e under the group the plant's
 * symmetries generate (robustify_symmetry.h: its answer is e's, its
 * behaviours renamed by β): its id, into *kept e's kept behaviours (i
 * when β(i) is the image's) and into `idle` (2 * words) e's idle actions,
 * π⁻¹ of the image's; -1 when no image is cached. The orbit is enumerated
 * breadth first from e with each image's π and β kept to map back. */
static int symmetric_image(search_t *s, events_t e, intvec_t *key, bitword_t *idle, uint64_t *kept) {
  if (s->nsym == 0) return -1;
  int nl = s->g.nlabels, np = s->p->npref, width = nl + np;
  size_t words = BITSET_WORDS((size_t)nl);
  keytab_t seen;
  keytab_init(&seen);
  VEC(events_t) orbit = {0};
  intvec_t maps = {0}; /* width ints per orbit member: its π, then its β */
  bool added;
  events_key(s, e, key);
  keytab_add(&seen, key->data, key->len, &added);
  VEC_PUSH(&orbit, robustify_events_copy(s, e));
  for (int l = 0; l < width; l++) VEC_PUSH(&maps, l < nl ? l : l - nl);
  int hit = -1;
  for (size_t h = 0; h < orbit.len && hit < 0; h++)
    for (int k = 0; k < s->nsym && hit < 0 && orbit.len < ROBUSTIFY_ORBIT_MAX; k++) {
      const int *gen = s->sym + (size_t)k * (size_t)width;
      events_t img = robustify_events_new(s);
      for (int pass = 0; pass < 2; pass++) {
        const bitword_t *from = pass ? orbit.data[h].o : orbit.data[h].c;
        bitword_t *to = pass ? img.o : img.c;
        for (int l = 0; l < nl; l++)
          if (bitset_get(from, (size_t)l)) bitset_set(to, (size_t)gen[l]);
      }
      events_key(s, img, key);
      keytab_add(&seen, key->data, key->len, &added);
      if (!added) {
        robustify_events_free(img);
        continue;
      }
      size_t base = (size_t)h * (size_t)width; /* the image's π and β: gen's after the member's */
      for (int l = 0; l < nl; l++) VEC_PUSH(&maps, gen[maps.data[base + (size_t)l]]);
      for (int i = 0; i < np; i++) VEC_PUSH(&maps, gen[nl + maps.data[base + (size_t)(nl + i)]]);
      VEC_PUSH(&orbit, img);
      int id = keytab_find(&s->cache, key->data, key->len);
      if (id < 0) continue;
      hit = id;
      const int *pi = maps.data + (orbit.len - 1) * (size_t)width, *beta = pi + nl;
      *kept = 0;
      for (int i = 0; i < np; i++) *kept |= (s->cache_kept.data[id] >> beta[i] & 1) << i;
      const bitword_t *their = s->cache_idle.data[id];
      memset(idle, 0, 2 * words * sizeof *idle);
      for (int half = 0; their && half < 2; half++)
        for (int l = 0; l < nl; l++)
          if (bitset_get(their + (size_t)half * words, (size_t)pi[l])) bitset_set(idle + (size_t)half * words, (size_t)l);
    }
  for (size_t i = 0; i < orbit.len; i++) robustify_events_free(orbit.data[i]);
  VEC_FREE(&orbit);
  VEC_FREE(&maps);
  keytab_free(&seen);
  return hit;
}

/* check_shortcuts: e's answer from a shortcut (exists, kept, idle) against
 * e's own cold synthesis. The undisabled actions must be the same; the
 * stutter actions a subset of e's own: an idle superset's O-sets are finer
 * than e's (O \ {b}-sets are unions of O-sets along b), so an action that
 * moved between two of them may stutter in e while the inherited set says
 * it does not. That only forgoes later shortcuts (idle_superset asks for a
 * stutter action); removeUnnecessary reads the full set's entry, which is
 * always a synthesis of its own. */
static void check_shortcut(search_t *s, events_t e, bool exists, uint64_t kept, const bitword_t *idle) {
  size_t words = BITSET_WORDS((size_t)s->g.nlabels);
  synth_t y;
  robustify_synth_run_from(&y, s, e.c, e.o, NULL, -1);
  bool same = y.exists == exists;
  if (same && exists) {
    bitword_t *own = xcalloc(2 * words, sizeof *own);
    robustify_synth_idle(&y, own, own + words);
    same = robustify_kept_mask(&y, ~(uint64_t)0) == kept;
    for (size_t w = 0; w < words && same; w++)
      same = (idle[w] & ~own[w]) == 0 && idle[words + w] == own[words + w];
    free(own);
  }
  robustify_synth_free(&y);
  s->shortcut_checks++;
  s->shortcut_mismatches += !same;
}

/* Synthesis with a cache: whether a supervisor exists for e and which
 * preferred behaviours its closed loop keeps. The syntheses already run
 * for e with one action more answer it whole when one of them does
 * without that action (idle_superset), else in part (supersets_allow):
 * none there, none here; else only the behaviours they all keep are tried,
 * and the fixpoint starts from the bad sets of one with the same O and one
 * controllable action more (cached_superset). Counted as a synthesis
 * either way, as Fortis counts the sets it synthesises for. */
bool robustify_evaluate(search_t *s, events_t e, uint64_t *kept) {
  intvec_t key = {0};
  events_key(s, e, &key);
  bool added;
  int id = keytab_add(&s->cache, key.data, key.len, &added);
  if (added) {
    s->nsynth++;
    uint64_t among = ~(uint64_t)0;
    bool exists = false;
    uint64_t k = 0;
    bitword_t *bad = NULL, *idle = xcalloc(2 * BITSET_WORDS((size_t)s->g.nlabels), sizeof *idle);
    int same = s->p->no_shortcuts ? -1 : idle_superset(s, e, &key, idle), image = -1;
    bool synthesised = false; /* a cold synthesis of e's own, asked about every behaviour */
    if (same >= 0) {
      exists = true;
      k = s->cache_kept.data[same];
    } else if (!s->p->no_shortcuts && (image = symmetric_image(s, e, &key, idle, &k)) >= 0) {
      exists = s->cache_exists.data[image];
      s->nsym_answered++;
    } else if (s->p->no_shortcuts || supersets_allow(s, e, &key, &among)) {
      int newly = -1, sup = s->p->no_shortcuts ? -1 : cached_superset(s, e, &key, &newly);
      synth_t y;
      robustify_synth_run_from(&y, s, e.c, e.o, sup >= 0 ? s->cache_bad.data[sup] : NULL, newly);
      synthesised = sup < 0 && among == ~(uint64_t)0; /* cold, every behaviour asked */
      exists = y.exists;
      if (exists) {
        k = robustify_kept_mask(&y, among);
        robustify_synth_idle(&y, idle, idle + BITSET_WORDS((size_t)s->g.nlabels));
        size_t nsets = y.o->sets.count;
        if (s->bad_bytes < ROBUSTIFY_CACHE_BYTES) { /* kept for warm starts below this set */
          bad = bitset_new(nsets);
          robustify_bools_to_bits(y.bad, nsets, bad);
          s->bad_bytes += BITSET_WORDS(nsets) * sizeof *bad;
        }
      }
      robustify_synth_free(&y);
    }
    /* every other answer: an idle superset's, an image's, none because a
     * superset has no supervisor, a warm start from a superset's bad sets,
     * kept asked only among a superset's kept behaviours */
    if (s->p->check_shortcuts && !synthesised) check_shortcut(s, e, exists, k, idle);
    VEC_PUSH(&s->cache_exists, exists);
    VEC_PUSH(&s->cache_kept, k);
    VEC_PUSH(&s->cache_bad, bad);
    if (!exists) free(idle), idle = NULL;
    VEC_PUSH(&s->cache_idle, idle);
  }
  VEC_FREE(&key);
  *kept = s->cache_kept.data[id];
  return s->cache_exists.data[id];
}

/* Drops the cached bad sets (they number the sets of the current plant's
 * observers), before the plant changes. */
void robustify_cache_drop_bad(search_t *s) {
  for (size_t i = 0; i < s->cache_bad.len; i++) {
    free(s->cache_bad.data[i]);
    s->cache_bad.data[i] = NULL;
  }
  s->bad_bytes = 0;
}

static bool satisfies(search_t *s, events_t e, uint64_t want) {
  uint64_t kept;
  return robustify_evaluate(s, e, &kept) && (kept & want) == want;
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

long robustify_cost_of(const search_t *s, events_t e) {
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

/* Fortis's removeUnnecessary: actions the maximal supervisor never blocks
 * need not be controllable, those it also never changes state on need not
 * be observable, when they cost more than everything else used. */
events_t robustify_remove_unnecessary(search_t *s, events_t e) {
  events_t r = robustify_events_copy(s, e);
  intvec_t key = {0};
  events_key(s, e, &key);
  int id = keytab_find(&s->cache, key.data, key.len);
  VEC_FREE(&key);
  if (id < 0 || !s->cache_idle.data[id]) /* no supervisor (or a limit stopped its synthesis) */
    return r;
  /* per observable action, as Fortis reads its completed supervisor (a
   * self-loop wherever the action is uncontrollable or impossible): uc = it
   * moves from every reachable set, uo = it moves from every reachable set
   * to the same set. An observable action moves from a set exactly when a
   * member can do it (a move into the error state too), so uc = O minus the
   * controllable actions it disables somewhere, uo = the stutter actions:
   * the idle actions evaluate cached for e just before */
  int nl = s->g.nlabels;
  const bitword_t *stutter = s->cache_idle.data[id], *undisabled = stutter + BITSET_WORDS((size_t)nl);
  bitword_t *uc = bitset_new((size_t)nl), *uo = bitset_new((size_t)nl);
  for (int l = 0; l < nl; l++)
    if (bitset_get(e.o, (size_t)l)) {
      if (!bitset_get(e.c, (size_t)l) || bitset_get(undisabled, (size_t)l)) bitset_set(uc, (size_t)l);
      if (bitset_get(stutter, (size_t)l)) bitset_set(uo, (size_t)l);
    }
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

static void list_free(events_list_t *l) {
  for (size_t i = 0; i < l->len; i++) robustify_events_free(l->data[i]);
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
          r = robustify_events_copy(s, e);
          bitset_clear_bit(r.c, (size_t)l);
        } else if (pass && bitset_get(e.o, (size_t)l) && !bitset_get(e.c, (size_t)l)) {
          r = robustify_events_copy(s, e);
          bitset_clear_bit(r.o, (size_t)l);
        } else
          continue;
        events_key(s, r, &key);
        bool added;
        keytab_add(&seen, key.data, key.len, &added);
        if (added)
          VEC_PUSH(out, r);
        else
          robustify_events_free(r);
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
  VEC_PUSH(&cur, robustify_events_copy(s, init));
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
        if (robustify_out_of_time(s)) break;
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
  events_t cur = robustify_events_copy(s, init);
  int *seq = xmalloc(((size_t)p->nctrl + (size_t)p->nobs + 1) * sizeof *seq);
  for (int prio = 3; prio >= 1 && !s->bounded; prio--) {
    for (int pass = 0; pass < 2 && !s->bounded; pass++) {
      const robustify_event_t *ev = pass ? p->obs : p->ctrl;
      int n = pass ? p->nobs : p->nctrl, k = 0;
      const bitword_t *in = pass ? init.o : init.c;
      for (int i = 0; i < n; i++)
        if (ev[i].priority == prio && bitset_get(in, (size_t)ev[i].label)) seq[k++] = ev[i].label;
      sort_by_name(seq, k, labels);
      for (int i = 0; i < k && !robustify_out_of_time(s); i++) {
        int l = seq[i], nc = 0;
        for (int m = 0; m < s->g.nlabels; m++) nc += bitset_get(cur.c, (size_t)m);
        events_t r = robustify_events_copy(s, cur);
        if (!pass && nc > 1)
          bitset_clear_bit(r.c, (size_t)l);
        else if (pass && !bitset_get(cur.c, (size_t)l))
          bitset_clear_bit(r.o, (size_t)l);
        else {
          robustify_events_free(r);
          continue;
        }
        if (satisfies(s, r, want)) {
          robustify_events_free(cur);
          cur = r;
        } else
          robustify_events_free(r);
      }
    }
  }
  free(seq);
  VEC_PUSH(out, cur);
}

int *robustify_labels_of(const search_t *s, const bitword_t *b, int *n) {
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
  uint64_t kept = 0;
  if (!robustify_out_of_time(s)) robustify_synth_final(&y, s, e.c, e.o, &kept);
  if (!y.exists && !s->bounded) {
    robustify_synth_free(&y);
    return false;
  }
  if (y.exists) {
    sol->kept = kept;
    bitword_t *dis = bitset_new((size_t)s->g.nlabels);
    sol->sup = robustify_supervisor(&y, s->p->sys->labels, dis);
    sol->disabled = robustify_labels_of(s, dis, &sol->ndisabled);
    free(dis);
  } else
    sol->kept = cached_kept(s, e);
  robustify_synth_free(&y);
  sol->ctrl = robustify_labels_of(s, e.c, &sol->nctrl);
  sol->obs = robustify_labels_of(s, e.o, &sol->nobs);
  sol->cost = robustify_cost_of(s, e);
  for (int i = 0; i < s->p->npref; i++)
    if (sol->kept >> i & 1) sol->utility += s->pref_w[i];
  return true;
}

/* The solutions: every candidate, or at most `max` of the least cost
 * (a bounded search: its brackets' costs fall, so the last is cheapest). */
void robustify_collect(search_t *s, const candidate_list_t *cands, int max, robustify_result_t *out) {
  long best = -1;
  if ((size_t)max < cands->len)
    for (size_t i = 0; i < cands->len; i++) {
      long c = robustify_cost_of(s, cands->data[i].e);
      if (best < 0 || c < best) best = c;
    }
  out->sols = xcalloc(cands->len + 1, sizeof *out->sols);
  for (size_t i = 0; i < cands->len && out->nsols < max; i++) {
    if (best >= 0 && robustify_cost_of(s, cands->data[i].e) != best) continue;
    if (make_solution(s, &cands->data[i], &out->sols[out->nsols])) out->nsols++;
  }
}

void robustify_candidates_free(candidate_list_t *l) {
  for (size_t i = 0; i < l->len; i++) robustify_events_free(l->data[i].e);
  VEC_FREE(l);
}

/* k-subsets of 0..n-1 in lexicographic order (Fortis's combinations). */
void robustify_comb_first(int *a, int k) {
  for (int i = 0; i < k; i++) a[i] = i;
}

bool robustify_comb_next(int *a, int k, int n) {
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
void robustify_iterate(search_t *s, events_t init, uint64_t max_kept, candidate_list_t *out,
                       int *iterations) {
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
    for (int q = 1; q <= 3; q++) robustify_comb_first(a[q], k[q]);
    long bracket = -1;
    candidate_list_t cands = {0};
    keytab_t seen;
    keytab_init(&seen);
    for (bool more = true; more && !robustify_out_of_time(s);) {
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
        long cost = robustify_cost_of(s, found.data[i]);
        if (bracket >= 0 && cost > bracket) continue;
        if (cost < bracket || bracket < 0) {
          robustify_candidates_free(&cands);
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
        if (robustify_comb_next(a[q], k[q], n[q]))
          more = true;
        else
          robustify_comb_first(a[q], k[q]);
      }
    }
    keytab_free(&seen);
    if (s->bounded) {
      /* the best found so far: one least-cost set of the first bracket, or the earlier brackets' */
      if (out->len == 0 && cands.len > 0) {
        VEC_PUSH(out, cands.data[0]);
        cands.data[0].e = (events_t){0};
      }
      robustify_candidates_free(&cands);
      break;
    }
    if (cands.len > 0 && (best < 0 || bracket < best)) {
      best = bracket;
      for (size_t i = 0; i < cands.len; i++) VEC_PUSH(out, cands.data[i]);
      VEC_FREE(&cands);
    } else
      robustify_candidates_free(&cands);
  }
  VEC_FREE(&key);
  *iterations = iter;
}

void robustify_events_from(search_t *s, const robustify_event_t *ev, int n, bitword_t *into) {
  for (int i = 0; i < n; i++)
    if (bitset_get(s->g.alpha, (size_t)ev[i].label)) bitset_set(into, (size_t)ev[i].label);
}
