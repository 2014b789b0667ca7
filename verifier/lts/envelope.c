/* Safe environmental envelopes. The meta-system F = E_full ‖ K (K = C ‖
 * P_err, or P_env,err for the environmental constraint) has integer
 * meta-states (E index, K state); an edge is uncontrollable (tag -1) when
 * it moves by one of E's own transitions or by K alone, else it carries the
 * id of the deviation transition it needs. A deviation d is robust iff the
 * states reachable over uncontrollable edges and edges tagged in d avoid
 * the losing states (those that reach the error over uncontrollable edges:
 * the complement of the winning set W). */
#include "verifier/lts/envelope.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/stop.h"
#include "ism/vec.h"

typedef struct {
  int nq;               /* meta-states; 0 is the initial one */
  int error;            /* the single error meta-state, -1 when unreachable */
  int *off, *dst, *tag; /* out-edges of q: [off[q], off[q+1]); tag -1 = uncontrollable */
  int *esrc;            /* source of each edge */
  int *toff, *tedge;    /* edges tagged t: tedge[toff[t] .. toff[t+1]) */
  bitword_t *losing;    /* reaches the error over uncontrollable edges (¬W) */
} meta_t;

struct envelope {
  envelope_space_t space;
  lts_t *env;  /* E without τ */
  lts_t *k[2]; /* C ‖ P_err (C without τ), P_env,err (NULL when absent) */
  meta_t meta[2];
  int nmeta;
};

/* ------------------------------------------------------------ helpers */

static size_t words(int nbits) { return BITSET_WORDS((size_t)nbits); }

static bitword_t *set_copy(const bitword_t *b, int nbits) {
  bitword_t *c = xmalloc(words(nbits) * sizeof *c);
  memcpy(c, b, words(nbits) * sizeof *c);
  return c;
}

static bitword_t *set_full(int nbits) {
  bitword_t *b = bitset_new((size_t)nbits);
  for (int i = 0; i < nbits; i++) bitset_set(b, (size_t)i);
  return b;
}

int envelope_size(const envelope_space_t *space, const bitword_t *d) {
  return (int)bitset_count(d, (size_t)space->ntrans);
}

lts_t *envelope_deviation_lts(const envelope_space_t *sp, const lts_t *env, const bitword_t *d) {
  lts_builder_t b;
  lts_builder_init(&b, env->labels);
  b.nstates = env->nstates;
  b.init = env->init;
  for (int a = 0; a < sp->nactions; a++) lts_builder_alphabet_add(&b, sp->actions[a]);
  for (int t = 0; t < sp->ntrans; t++)
    if (bitset_get(d, (size_t)t)) {
      int j = t % sp->nq, i = (t / sp->nq) % sp->nq, a = t / (sp->nq * sp->nq);
      lts_builder_add(&b, sp->states[i], sp->actions[a], sp->states[j]);
    }
  return lts_freeze(&b);
}

/* A set of pairwise incomparable transition sets (the maximal ones seen). */
typedef struct {
  VEC(bitword_t *) sets;
  int nbits;
} maxset_t;

static void maxset_insert(maxset_t *m, const bitword_t *d) {
  for (size_t i = 0; i < m->sets.len; i++)
    if (bitset_subset(d, m->sets.data[i], (size_t)m->nbits)) return;
  size_t k = 0;
  for (size_t i = 0; i < m->sets.len; i++) {
    if (bitset_subset(m->sets.data[i], d, (size_t)m->nbits))
      free(m->sets.data[i]);
    else
      m->sets.data[k++] = m->sets.data[i];
  }
  m->sets.len = k;
  VEC_PUSH(&m->sets, set_copy(d, m->nbits));
}

static void maxset_free(maxset_t *m) {
  for (size_t i = 0; i < m->sets.len; i++) free(m->sets.data[i]);
  VEC_FREE(&m->sets);
}

/* ------------------------------------------------------- construction */

/* "line[1].set_rate" -> "line.1.set_rate" */
static char *display_name(const char *name) {
  char *d = xmalloc(strlen(name) + 1), *o = d;
  for (const char *c = name; *c; c++) {
    if (*c == ']') continue;
    *o++ = *c == '[' ? '.' : *c;
  }
  *o = '\0';
  return d;
}

/* Insertion sort of the actions by display name (alphabets are small). */
static void sort_actions(envelope_space_t *sp) {
  for (int i = 1; i < sp->nactions; i++)
    for (int j = i; j > 0 && strcmp(sp->names[j - 1], sp->names[j]) > 0; j--) {
      int t = sp->actions[j];
      sp->actions[j] = sp->actions[j - 1];
      sp->actions[j - 1] = t;
      char *n = sp->names[j];
      sp->names[j] = sp->names[j - 1];
      sp->names[j - 1] = n;
    }
}

static int tid(const envelope_space_t *sp, int a, int i, int j) { return (a * sp->nq + i) * sp->nq + j; }

static void build_space(envelope_t *ev) {
  envelope_space_t *sp = &ev->space;
  const lts_t *e = ev->env;
  sp->labels = e->labels;
  sp->states = xmalloc((size_t)e->nstates * sizeof *sp->states);
  for (int s = 0; s < e->nstates; s++)
    if (s != e->error) sp->states[sp->nq++] = s;
  sp->actions = xmalloc((size_t)(e->nalphabet + 1) * sizeof *sp->actions);
  sp->names = xmalloc((size_t)(e->nalphabet + 1) * sizeof *sp->names);
  for (int a = 0; a < e->nalphabet; a++) {
    sp->names[sp->nactions] = display_name(lts_label_name(sp->labels, e->alphabet[a]));
    sp->actions[sp->nactions++] = e->alphabet[a];
  }
  sort_actions(sp);
  sp->ntrans = sp->nactions * sp->nq * sp->nq;
  sp->normal = bitset_new((size_t)sp->ntrans);
  int nlabels = (int)sp->labels->names.count;
  int *act = xmalloc((size_t)nlabels * sizeof *act), *idx = xmalloc((size_t)e->nstates * sizeof *idx);
  for (int l = 0; l < nlabels; l++) act[l] = -1;
  for (int a = 0; a < sp->nactions; a++) act[sp->actions[a]] = a;
  for (int s = 0; s < e->nstates; s++) idx[s] = -1;
  for (int i = 0; i < sp->nq; i++) idx[sp->states[i]] = i;
  for (int s = 0; s < e->nstates; s++)
    for (int k = e->succ_off[s]; k < e->succ_off[s + 1]; k++)
      if (idx[s] >= 0 && idx[e->succ_dst[k]] >= 0 && act[e->succ_label[k]] >= 0)
        bitset_set(sp->normal, (size_t)tid(sp, act[e->succ_label[k]], idx[s], idx[e->succ_dst[k]]));
  free(act);
  free(idx);
}

typedef struct {
  const envelope_space_t *sp;
  const lts_t *k;
  meta_t *m;
  int *id;           /* (E index, K state) -> meta-state, -1 unseen */
  VEC(int) pi, pk;   /* meta-state -> (E index, K state) */
  VEC(int) dst, tag; /* edges in source order */
  long max_states;
  bool overflow;
} builder_t;

static int meta_id(builder_t *b, int i, int k) {
  if (k == b->k->error) {
    if (b->m->error < 0) {
      b->m->error = (int)b->pi.len;
      VEC_PUSH(&b->pi, -1);
      VEC_PUSH(&b->pk, k);
    }
    return b->m->error;
  }
  size_t slot = (size_t)i * (size_t)b->k->nstates + (size_t)k;
  if (b->id[slot] < 0) {
    if ((long)b->pi.len >= b->max_states) b->overflow = true;
    b->id[slot] = (int)b->pi.len;
    VEC_PUSH(&b->pi, i);
    VEC_PUSH(&b->pk, k);
  }
  return b->id[slot];
}

static void add_edge(builder_t *b, int dst, int tag) {
  VEC_PUSH(&b->dst, dst);
  VEC_PUSH(&b->tag, tag);
}

/* Out-edges of meta-state (i, k): every action of E to every state of E
 * (K moving along when the action is in αK), and K's moves on its private
 * actions (E stays). */
static void expand(builder_t *b, const int *act, int i, int k) {
  const envelope_space_t *sp = b->sp;
  const lts_t *K = b->k;
  for (int a = 0; a < sp->nactions; a++) {
    int label = sp->actions[a];
    if (lts_has_label(K, label)) {
      for (int x = K->succ_off[k]; x < K->succ_off[k + 1]; x++) {
        if (K->succ_label[x] != label) continue;
        for (int j = 0; j < sp->nq; j++) {
          int t = tid(sp, a, i, j);
          add_edge(b, meta_id(b, j, K->succ_dst[x]), bitset_get(sp->normal, (size_t)t) ? -1 : t);
        }
      }
    } else {
      for (int j = 0; j < sp->nq; j++) {
        int t = tid(sp, a, i, j);
        add_edge(b, meta_id(b, j, k), bitset_get(sp->normal, (size_t)t) ? -1 : t);
      }
    }
  }
  for (int x = K->succ_off[k]; x < K->succ_off[k + 1]; x++)
    if (act[K->succ_label[x]] < 0) add_edge(b, meta_id(b, i, K->succ_dst[x]), -1);
}

/* Losing states: backward reachability from the error over uncontrollable
 * edges, one pass over the reversed uncontrollable edges (linear). */
static void compute_losing(meta_t *m) {
  m->losing = bitset_new((size_t)m->nq);
  if (m->error < 0) return;
  int ne = m->off[m->nq];
  int *roff = xcalloc((size_t)m->nq + 1, sizeof *roff), *rsrc = xmalloc((size_t)ne * sizeof *rsrc + 1);
  for (int e = 0; e < ne; e++)
    if (m->tag[e] < 0) roff[m->dst[e] + 1]++;
  for (int q = 0; q < m->nq; q++) roff[q + 1] += roff[q];
  int *fill = xmalloc(((size_t)m->nq + 1) * sizeof *fill);
  memcpy(fill, roff, ((size_t)m->nq + 1) * sizeof *fill);
  for (int e = 0; e < ne; e++)
    if (m->tag[e] < 0) rsrc[fill[m->dst[e]]++] = m->esrc[e];
  int *work = xmalloc((size_t)m->nq * sizeof *work), nwork = 0;
  bitset_set(m->losing, (size_t)m->error);
  work[nwork++] = m->error;
  while (nwork) {
    int q = work[--nwork];
    for (int x = roff[q]; x < roff[q + 1]; x++)
      if (!bitset_get(m->losing, (size_t)rsrc[x])) {
        bitset_set(m->losing, (size_t)rsrc[x]);
        work[nwork++] = rsrc[x];
      }
  }
  free(work);
  free(fill);
  free(roff);
  free(rsrc);
}

static void index_tags(meta_t *m, int ntrans) {
  int ne = m->off[m->nq];
  m->esrc = xmalloc((size_t)ne * sizeof *m->esrc + 1);
  for (int q = 0; q < m->nq; q++)
    for (int e = m->off[q]; e < m->off[q + 1]; e++) m->esrc[e] = q;
  m->toff = xcalloc((size_t)ntrans + 1, sizeof *m->toff);
  for (int e = 0; e < ne; e++)
    if (m->tag[e] >= 0) m->toff[m->tag[e] + 1]++;
  for (int t = 0; t < ntrans; t++) m->toff[t + 1] += m->toff[t];
  m->tedge = xmalloc((size_t)m->toff[ntrans] * sizeof *m->tedge + 1);
  int *fill = xmalloc(((size_t)ntrans + 1) * sizeof *fill);
  memcpy(fill, m->toff, ((size_t)ntrans + 1) * sizeof *fill);
  for (int e = 0; e < ne; e++)
    if (m->tag[e] >= 0) m->tedge[fill[m->tag[e]]++] = e;
  free(fill);
}

static bool build_meta(envelope_t *ev, const lts_t *K, meta_t *m, long max_states, char **error) {
  const envelope_space_t *sp = &ev->space;
  size_t slots = (size_t)sp->nq * (size_t)K->nstates;
  if (slots > (size_t)max_states * 64 || slots > ((size_t)1 << 28)) {
    *error = xasprintf("the meta-system has up to %zu states (limit %ld)", slots, max_states);
    return false;
  }
  builder_t b = {.sp = sp, .k = K, .m = m, .max_states = max_states};
  m->error = -1;
  b.id = xmalloc(slots * sizeof *b.id + 1);
  for (size_t s = 0; s < slots; s++) b.id[s] = -1;
  int nlabels = (int)sp->labels->names.count;
  int *act = xmalloc((size_t)nlabels * sizeof *act);
  for (int l = 0; l < nlabels; l++) act[l] = -1;
  for (int a = 0; a < sp->nactions; a++) act[sp->actions[a]] = a;
  int init_i = 0;
  for (int i = 0; i < sp->nq; i++)
    if (sp->states[i] == ev->env->init) init_i = i;
  meta_id(&b, init_i, K->init);
  VEC(int) off = {0};
  for (size_t q = 0; q < b.pi.len && !b.overflow; q++) {
    VEC_PUSH(&off, (int)b.dst.len);
    if ((int)q != m->error) expand(&b, act, b.pi.data[q], b.pk.data[q]);
  }
  free(act);
  free(b.id);
  VEC_FREE(&b.pi);
  VEC_FREE(&b.pk);
  if (b.overflow) {
    *error = xasprintf("the meta-system exceeds %ld states", max_states);
    VEC_FREE(&off);
    VEC_FREE(&b.dst);
    VEC_FREE(&b.tag);
    return false;
  }
  m->nq = (int)off.len;
  VEC_PUSH(&off, (int)b.dst.len);
  m->off = off.data;
  m->dst = b.dst.data;
  m->tag = b.tag.data;
  index_tags(m, sp->ntrans);
  compute_losing(m);
  return true;
}

static void meta_free(meta_t *m) {
  free(m->off);
  free(m->dst);
  free(m->tag);
  free(m->esrc);
  free(m->toff);
  free(m->tedge);
  free(m->losing);
}

envelope_t *envelope_new(const envelope_problem_t *p, long max_states, char **error) {
  envelope_t *ev = xcalloc(1, sizeof *ev);
  ev->env = lts_strip_tau(p->env);
  build_space(ev);
  lts_t *c = lts_strip_tau(p->ctrl);
  const lts_t *parts[2] = {c, p->prop};
  /* bounded, so a stop request (ism/stop.h) ends it too */
  ev->k[0] = lts_compose_max(parts, 2, max_states > 0 ? max_states : LONG_MAX, 0);
  lts_free(c);
  if (!ev->k[0]) {
    *error = stop_requested()
                 ? xasprintf("%s: stopped while composing the controller and the property", stop_message())
                 : xasprintf("the controller and the property compose to more than %ld states", max_states);
    envelope_free(ev);
    return NULL;
  }
  ev->k[1] = p->env_prop ? lts_copy(p->env_prop) : NULL;
  ev->nmeta = p->env_prop ? 2 : 1;
  for (int i = 0; i < ev->nmeta; i++)
    if (!build_meta(ev, ev->k[i], &ev->meta[i], max_states, error)) {
      ev->nmeta = i;
      envelope_free(ev);
      return NULL;
    }
  return ev;
}

void envelope_free(envelope_t *ev) {
  if (!ev) return;
  for (int i = 0; i < ev->nmeta; i++) meta_free(&ev->meta[i]);
  lts_free(ev->k[0]);
  lts_free(ev->k[1]);
  lts_free(ev->env);
  free(ev->space.states);
  free(ev->space.actions);
  for (int a = 0; a < ev->space.nactions; a++) free(ev->space.names[a]);
  free(ev->space.names);
  free(ev->space.normal);
  free(ev);
}

const envelope_space_t *envelope_space(const envelope_t *ev) { return &ev->space; }

int envelope_meta_states(const envelope_t *ev, int which) {
  return which < ev->nmeta ? ev->meta[which].nq : 0;
}

/* ------------------------------------------- incremental robustness */

/* The states of every meta-system reachable under deviation x, kept up to
 * date as transitions are added; a trail undoes additions. */
typedef struct {
  const envelope_t *ev;
  bitword_t *x;
  bitword_t *reached[2];
  VEC(int) trail[2];
  VEC(int) added;
  VEC(int) work;
  long checks;
  bool watch;     /* a stop request applies (only while searching for a seed) */
  bool timed_out; /* a stop was requested (ism/stop.h): the search unwinds */
} search_t;

typedef struct {
  size_t trail[2], added;
} mark_t;

static void search_init(search_t *s, const envelope_t *ev) {
  memset(s, 0, sizeof *s);
  s->ev = ev;
  s->x = bitset_new((size_t)ev->space.ntrans);
  for (int i = 0; i < ev->nmeta; i++) s->reached[i] = bitset_new((size_t)ev->meta[i].nq);
}

static void search_free(search_t *s) {
  free(s->x);
  for (int i = 0; i < 2; i++) {
    free(s->reached[i]);
    VEC_FREE(&s->trail[i]);
  }
  VEC_FREE(&s->added);
  VEC_FREE(&s->work);
}

static mark_t mark(const search_t *s) { return (mark_t){{s->trail[0].len, s->trail[1].len}, s->added.len}; }

static void rollback(search_t *s, mark_t m) {
  for (int i = 0; i < s->ev->nmeta; i++)
    while (s->trail[i].len > m.trail[i]) bitset_clear_bit(s->reached[i], (size_t)VEC_POP(&s->trail[i]));
  while (s->added.len > m.added) bitset_clear_bit(s->x, (size_t)VEC_POP(&s->added));
}

static bool visit(search_t *s, int i, int q) {
  const meta_t *m = &s->ev->meta[i];
  if (bitset_get(m->losing, (size_t)q)) return false;
  if (!bitset_get(s->reached[i], (size_t)q)) {
    bitset_set(s->reached[i], (size_t)q);
    VEC_PUSH(&s->trail[i], q);
    VEC_PUSH(&s->work, q);
  }
  return true;
}

static bool propagate(search_t *s, int i) {
  /* locals: the pushes below could alias the meta-system's arrays for the compiler */
  const meta_t *m = &s->ev->meta[i];
  const int *off = m->off, *dst = m->dst, *tag = m->tag;
  const bitword_t *x = s->x, *losing = m->losing;
  bitword_t *reached = s->reached[i];
  while (s->work.len) {
    int q = VEC_POP(&s->work);
    for (int e = off[q], end = off[q + 1]; e < end; e++) {
      int t = tag[e], y = dst[e];
      if ((t >= 0 && !bitset_get(x, (size_t)t)) || bitset_get(reached, (size_t)y)) continue;
      if (bitset_get(losing, (size_t)y)) { /* a reached state is never losing (visit) */
        VEC_CLEAR(&s->work);
        return false;
      }
      bitset_set(reached, (size_t)y);
      VEC_PUSH(&s->trail[i], y);
      VEC_PUSH(&s->work, y);
    }
  }
  return true;
}

/* Reaches from the initial meta-states with x as it is. */
static bool search_start(search_t *s) {
  for (int i = 0; i < s->ev->nmeta; i++)
    if (!visit(s, i, 0) || !propagate(s, i)) return false;
  return true;
}

/* Adds the n transitions ts to x if x ∪ ts stays robust (one check); else
 * leaves all as it was. */
static bool try_add_all(search_t *s, const int *ts, int n) {
  s->checks++;
  if (s->watch && (s->checks & 255) == 0 && stop_requested()) s->timed_out = true;
  if (s->timed_out) return false;
  mark_t before = mark(s);
  for (int j = 0; j < n; j++) {
    bitset_set(s->x, (size_t)ts[j]);
    VEC_PUSH(&s->added, ts[j]);
  }
  for (int i = 0; i < s->ev->nmeta; i++) {
    const meta_t *m = &s->ev->meta[i];
    bool ok = true;
    for (int j = 0; j < n && ok; j++)
      for (int k = m->toff[ts[j]]; k < m->toff[ts[j] + 1] && ok; k++) {
        int e = m->tedge[k];
        if (bitset_get(s->reached[i], (size_t)m->esrc[e])) ok = visit(s, i, m->dst[e]);
      }
    if (!ok || !propagate(s, i)) {
      VEC_CLEAR(&s->work);
      rollback(s, before);
      return false;
    }
  }
  return true;
}

/* Adds transition t to x if x ∪ {t} stays robust; else leaves all as it was. */
static bool try_add(search_t *s, int t) { return try_add_all(s, &t, 1); }

bool envelope_robust(const envelope_t *ev, const bitword_t *d) {
  search_t s;
  search_init(&s, ev);
  for (int t = 0; t < ev->space.ntrans; t++)
    if (bitset_get(d, (size_t)t) && !bitset_get(ev->space.normal, (size_t)t)) bitset_set(s.x, (size_t)t);
  bool ok = search_start(&s);
  search_free(&s);
  return ok;
}

/* Visited state sets (open addressing on a hash of the bitset). */
typedef struct {
  VEC(bitword_t *) sets;
  int *table;
  size_t cap;
  size_t nw;
} setset_t;

static uint64_t hash_set(const bitword_t *b, size_t nw) {
  uint64_t h = 1469598103934665603u;
  for (size_t w = 0; w < nw; w++) h = (h ^ b[w]) * 1099511628211u, h ^= h >> 29;
  return h;
}

/* Inserts a copy of b unless present; returns whether it was new. */
static bool setset_add(setset_t *h, const bitword_t *b) {
  if (2 * (h->sets.len + 1) > h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 1024;
    int *t = xmalloc(cap * sizeof *t);
    for (size_t i = 0; i < cap; i++) t[i] = -1;
    for (size_t i = 0; i < h->sets.len; i++) {
      size_t k = hash_set(h->sets.data[i], h->nw) & (cap - 1);
      while (t[k] >= 0) k = (k + 1) & (cap - 1);
      t[k] = (int)i;
    }
    free(h->table);
    h->table = t;
    h->cap = cap;
  }
  size_t k = hash_set(b, h->nw) & (h->cap - 1);
  for (; h->table[k] >= 0; k = (k + 1) & (h->cap - 1))
    if (memcmp(h->sets.data[h->table[k]], b, h->nw * sizeof *b) == 0) return false;
  h->table[k] = (int)h->sets.len;
  bitword_t *c = xmalloc(h->nw * sizeof *c);
  memcpy(c, b, h->nw * sizeof *c);
  VEC_PUSH(&h->sets, c);
  return true;
}

static bool setset_has(const setset_t *h, const bitword_t *b) {
  if (!h->cap) return false;
  for (size_t k = hash_set(b, h->nw) & (h->cap - 1); h->table[k] >= 0; k = (k + 1) & (h->cap - 1))
    if (memcmp(h->sets.data[h->table[k]], b, h->nw * sizeof *b) == 0) return true;
  return false;
}

static void setset_free(setset_t *h) {
  for (size_t i = 0; i < h->sets.len; i++) free(h->sets.data[i]);
  VEC_FREE(&h->sets);
  free(h->table);
}

/* Closes S under uncontrollable edges, starting from the states in work. */
/* ---------------------------------------------------- default algorithm */

enum { FAILED_MEMO_MAX = 1 << 22 }; /* learned failed sets kept (memory: ~50 bytes + |D|/8 each) */

typedef struct {
  search_t *s;
  const bitword_t *cand;    /* the transitions that may join x (its universe) */
  VEC(bitword_t *) clauses; /* per set found: cand ∖ it; a new one must hit each */
  bitword_t *excluded;      /* transitions ruled out on the current search branch */
  setset_t failed;          /* sets x with no robust extension hitting every clause: as
                               clauses only accumulate, they stay failed (learning) */
  bitword_t *const *compat; /* compat[t]: the candidates u with {t, u} robust, or NULL */
  bitword_t *mask;          /* with compat, ∩ compat[t] over t in x: only these can join x */
} enumerate_t;

/* The number of set bits (inline: without -mpopcnt the builtin is a call). */
static inline int pop64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555u);
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return (int)((x * 0x0101010101010101u) >> 56);
}

/* Extends the current x (robust) by one transition per clause it misses,
 * depth first, until it hits every clause; x is left there on success. A
 * transition whose branch failed is excluded from its later siblings. */
static bool find_seed(enumerate_t *en) {
  search_t *s = en->s;
  int nt = s->ev->space.ntrans;
  size_t nw = words(nt);
  /* the unhit clause with the fewest usable literals (DPLL's shortest
   * clause); one with none fails the branch at once. A literal is unusable
   * when excluded on this branch: a transition that could not be added to a
   * subset of x cannot be added to x (robustness is downward closed), and
   * one whose branch failed is tried by no later sibling; or when outside
   * the mask: some t in x and it are not robust together. */
  const bitword_t *clause = NULL;
  int best = INT_MAX;
  for (size_t c = 0; c < en->clauses.len && best > 0; c++) {
    const bitword_t *cl = en->clauses.data[c];
    bool hit = false;
    for (size_t w = 0; w < nw && !hit; w++) hit = (cl[w] & s->x[w]) != 0;
    if (hit) continue;
    int usable = 0;
    for (size_t w = 0; w < nw && usable < best; w++)
      usable += pop64(cl[w] & ~en->excluded[w] & (en->mask ? en->mask[w] : ~(bitword_t)0));
    if (usable < best) best = usable, clause = cl;
  }
  if (!clause) return true;
  if (best == 0) return false;
  if (setset_has(&en->failed, s->x)) return false;
  VEC(int) tried = {0};
  bool found = false;
  for (int t = 0; t < nt && !found && !s->timed_out; t++) {
    if (!bitset_get(clause, (size_t)t) || bitset_get(en->excluded, (size_t)t) ||
        (en->mask && !bitset_get(en->mask, (size_t)t)))
      continue;
    mark_t m = mark(s);
    if (try_add(s, t)) {
      bitword_t *outer = en->mask, *inner = NULL;
      if (outer) { /* below, only what t is compatible with can join */
        inner = xmalloc(nw * sizeof *inner);
        for (size_t w = 0; w < nw; w++) inner[w] = outer[w] & en->compat[t][w];
        en->mask = inner;
      }
      found = find_seed(en);
      en->mask = outer;
      free(inner);
      if (!found) rollback(s, m);
    }
    if (!found) {
      bitset_set(en->excluded, (size_t)t);
      VEC_PUSH(&tried, t);
    }
  }
  for (size_t i = 0; i < tried.len; i++) bitset_clear_bit(en->excluded, (size_t)tried.data[i]);
  VEC_FREE(&tried);
  /* the memo is only a shortcut: past its cap it stops growing */
  if (!found && !s->timed_out && en->failed.sets.len < FAILED_MEMO_MAX) setset_add(&en->failed, s->x);
  return found;
}

typedef struct {
  VEC(bitword_t *) sets;
} setlist_t;

static void setlist_free(setlist_t *l) {
  for (size_t i = 0; i < l->sets.len; i++) free(l->sets.data[i]);
  VEC_FREE(&l->sets);
}

/* Grows x by the transitions of universe outside it, in index order (as
 * try_add on each), skipping those outside mask (the pairs rule them out);
 * mask is narrowed by compat of each transition added. */
static void grow_outside(search_t *s, const bitword_t *universe, bitword_t *const *compat, bitword_t *mask) {
  int nt = s->ev->space.ntrans;
  size_t nw = words(nt);
  for (int t = 0; t < nt; t++)
    if (bitset_get(universe, (size_t)t) && (!compat || bitset_get(mask, (size_t)t)) &&
        !bitset_get(s->x, (size_t)t) && try_add(s, t) && compat)
      for (size_t w = 0; w < nw; w++) mask[w] &= compat[t][w];
}

/* For the robust x the search holds, x containing v (its base): every
 * maximal robust Y ⊆ x ∪ uv that no set of *found contains is grown to a
 * maximal set over cand, in index order, and appended to *found. Seeds by
 * find_seed: each must hit uv ∖ F for every F found that holds v (else it
 * lies in F). A stop during a seed search ends it: the sets appended are
 * maximal, the list may miss some. */
static void add_new_around(search_t *s, int v, const bitword_t *uv, const bitword_t *cand, bitword_t *const *compat,
                           setlist_t *found) {
  int nt = s->ev->space.ntrans;
  size_t nw = words(nt);
  mark_t base = mark(s);
  bitword_t *mask = compat ? set_copy(compat[v], nt) : NULL;
  enumerate_t en = {.s = s, .cand = uv, .excluded = bitset_new((size_t)nt), .compat = compat, .mask = mask};
  en.failed.nw = nw;
  for (size_t i = 0; i < found->sets.len; i++) {
    const bitword_t *f = found->sets.data[i];
    if (!bitset_get(f, (size_t)v)) continue;
    bitword_t *clause = bitset_new((size_t)nt);
    for (size_t w = 0; w < nw; w++) clause[w] = uv[w] & ~f[w];
    VEC_PUSH(&en.clauses, clause);
  }
  for (;;) {
    s->watch = true;
    bool seed = find_seed(&en);
    s->watch = false;
    if (!seed || s->timed_out) break; /* a stopped search cannot grow a seed */
    bitword_t *grow = compat ? set_full(nt) : NULL;
    for (size_t k = 0; compat && k < s->added.len; k++)
      for (size_t w = 0; w < nw; w++) grow[w] &= compat[s->added.data[k]][w];
    grow_outside(s, uv, compat, grow);
    grow_outside(s, cand, compat, grow);
    free(grow);
    VEC_PUSH(&found->sets, set_copy(s->x, nt));
    bitword_t *clause = bitset_new((size_t)nt);
    for (size_t w = 0; w < nw; w++) clause[w] = uv[w] & ~s->x[w];
    VEC_PUSH(&en.clauses, clause);
    rollback(s, base);
  }
  rollback(s, base);
  for (size_t c = 0; c < en.clauses.len; c++) free(en.clauses.data[c]);
  VEC_FREE(&en.clauses);
  free(en.excluded);
  free(mask);
  setset_free(&en.failed);
}

static bool covered(const setlist_t *l, const bitword_t *y, int nt) {
  for (size_t i = 0; i < l->sets.len; i++)
    if (bitset_subset(y, l->sets.data[i], (size_t)nt)) return true;
  return false;
}


static long pair_table_limit = 1L << 24;

void envelope_set_pair_table_limit(long max_pairs) { pair_table_limit = max_pairs; }

/* compat[v] for each candidate v: the candidates t with {v, t} robust
 * (every robust set holding v lies inside it), |cand|² checks; NULL for
 * the others. Polls the stop request: a stopped search leaves them wrong,
 * so the caller then uses none. NULL (no table: nothing is pruned by
 * pairs) past pair_table_limit pairs or 8 times as many bits (|cand| rows
 * of |D| bits): by default 16 M checks and 16 MB at most. */
static bitword_t **pair_compat(search_t *s, const bitword_t *cand) {
  int nt = s->ev->space.ntrans;
  long ncand = (long)bitset_count(cand, (size_t)nt);
  if (ncand * ncand > pair_table_limit || ncand * (long)nt > 8 * pair_table_limit) return NULL;
  mark_t base = mark(s);
  bitword_t **compat = xcalloc((size_t)nt + 1, sizeof *compat);
  s->watch = true;
  for (int v = 0; v < nt && !s->timed_out; v++) {
    if (!bitset_get(cand, (size_t)v)) continue;
    compat[v] = bitset_new((size_t)nt);
    bitset_set(compat[v], (size_t)v);
    if (!try_add(s, v)) break;
    mark_t one = mark(s);
    for (int t = 0; t < nt; t++)
      if (t != v && bitset_get(cand, (size_t)t) && try_add(s, t)) {
        bitset_set(compat[v], (size_t)t);
        rollback(s, one);
      }
    rollback(s, base);
  }
  s->watch = false;
  return compat;
}

/* The robust deviations' candidates: the transitions robust on their own
 * (every maximal set is made of them). */
static bitword_t *candidates(search_t *s) {
  const envelope_space_t *sp = &s->ev->space;
  mark_t base = mark(s);
  bitword_t *cand = bitset_new((size_t)sp->ntrans);
  for (int t = 0; t < sp->ntrans; t++)
    if (!bitset_get(sp->normal, (size_t)t) && try_add(s, t)) {
      bitset_set(cand, (size_t)t);
      rollback(s, base);
    }
  return cand;
}

/* Appends each found set (deviation transitions) with E's own to out. */
static void add_deltas(const envelope_space_t *sp, const setlist_t *found, maxset_t *out) {
  size_t nw = words(sp->ntrans);
  for (size_t i = 0; i < found->sets.len; i++) {
    bitword_t *d = bitset_new((size_t)sp->ntrans);
    for (size_t w = 0; w < nw; w++) d[w] = found->sets.data[i][w] | sp->normal[w];
    VEC_PUSH(&out->sets, d);
  }
}

/* The previous default (ENVELOPE_CLAUSES): seeds hitting the blocking
 * clause cand ∖ d of every d found, by find_seed over all candidates, each
 * grown over the candidates in index order. Its final search, proving no
 * seed is left, grew about sevenfold per ring step (docs/envelope.md). */
static void run_clauses(const envelope_t *ev, search_t *s, maxset_t *out, envelope_result_t *r) {
  const envelope_space_t *sp = &ev->space;
  int nt = sp->ntrans;
  size_t nw = words(nt);
  mark_t base = mark(s);
  bitword_t *cand = candidates(s);
  enumerate_t en = {.s = s, .cand = cand, .excluded = bitset_new((size_t)nt)};
  en.failed.nw = nw;
  setlist_t found = {0};
  for (;;) {
    s->watch = true;
    bool seed = find_seed(&en);
    s->watch = false;
    if (!seed || s->timed_out) break; /* a stopped search cannot grow a seed */
    for (int t = 0; t < nt; t++)
      if (bitset_get(cand, (size_t)t) && !bitset_get(s->x, (size_t)t)) try_add(s, t);
    bitword_t *clause = bitset_new((size_t)nt);
    for (size_t w = 0; w < nw; w++) clause[w] = cand[w] & ~s->x[w];
    VEC_PUSH(&found.sets, set_copy(s->x, nt));
    VEC_PUSH(&en.clauses, clause);
    rollback(s, base);
  }
  add_deltas(sp, &found, out);
  r->checks = s->checks;
  r->partial = s->timed_out;
  setlist_free(&found);
  for (size_t c = 0; c < en.clauses.len; c++) free(en.clauses.data[c]);
  VEC_FREE(&en.clauses);
  free(en.excluded);
  setset_free(&en.failed);
  free(cand);
}

/* Δ by the input-restricted route of Cohen, Kimelfeld and Sagiv (JCSS 2008,
 * "Generating all maximal induced subgraphs for hereditary and
 * connected-hereditary graph properties"), valid for any downward-closed
 * property: from one maximal M, for each candidate v ∉ M, every maximal
 * robust subset Y of M ∪ {v} containing v is grown to a maximal set of the
 * whole space. Every maximal T is reached: of the sets found, take M with
 * the largest M ∩ T; if M ≠ T pick v ∈ T ∖ M; (M ∩ T) ∪ {v} is robust, so
 * some Y contains it, and the set grown from Y (or a found one containing
 * Y) meets T in more. A Y inside a set already found is skipped (the same
 * argument holds with that set), so every set grown is new. */
static void run_default(const envelope_t *ev, search_t *s, maxset_t *out, envelope_result_t *r) {
  const envelope_space_t *sp = &ev->space;
  int nt = sp->ntrans;
  size_t nw = words(nt);
  mark_t base = mark(s);
  bitword_t *cand = candidates(s);
  /* the first maximal set before the pairs, so a stopped run has one */
  setlist_t found = {0};
  for (int t = 0; t < nt; t++)
    if (bitset_get(cand, (size_t)t)) try_add(s, t);
  VEC_PUSH(&found.sets, set_copy(s->x, nt));
  rollback(s, base);
  bitword_t **compat = pair_compat(s, cand);
  bitword_t *uv = bitset_new((size_t)nt);
  maxset_t *done = xcalloc((size_t)nt + 1, sizeof *done);
  for (int v = 0; v < nt; v++) done[v].nbits = nt;
  long polls = 0;
  for (size_t i = 0; i < found.sets.len && !s->timed_out; i++) {
    const bitword_t *m = found.sets.data[i];
    for (int v = 0; v < nt && !s->timed_out; v++) {
      if (!bitset_get(cand, (size_t)v) || bitset_get(m, (size_t)v)) continue;
      /* the pruned ones below make no check that would poll */
      if ((++polls & 63) == 0 && stop_requested()) s->timed_out = true;
      /* every Y lies in {v} ∪ (M ∩ compat[v]): none is new when that is covered */
      for (size_t w = 0; w < nw; w++) uv[w] = compat ? m[w] & compat[v][w] : m[w];
      bitset_set(uv, (size_t)v);
      if (covered(&found, uv, nt)) continue;
      bitset_clear_bit(uv, (size_t)v);
      /* nor when an earlier (M', v) had a universe containing this one: every
       * maximal Y of {v} ∪ (M' ∩ compat[v]) lies in a set found since, and
       * each Y here lies in one of those */
      bool seen = false;
      for (size_t k = 0; k < done[v].sets.len && !seen; k++)
        seen = bitset_subset(uv, done[v].sets.data[k], (size_t)nt);
      if (seen) continue;
      if (!try_add(s, v)) break; /* only when stopped: v alone is robust */
      add_new_around(s, v, uv, cand, compat, &found);
      if (!s->timed_out) maxset_insert(&done[v], uv);
      rollback(s, base);
    }
  }
  add_deltas(sp, &found, out);
  r->checks = s->checks;
  r->partial = s->timed_out;
  setlist_free(&found);
  for (int v = 0; v < nt; v++) {
    if (compat) free(compat[v]);
    maxset_free(&done[v]);
  }
  free(done);
  free(compat);
  free(uv);
  free(cand);
}

/* ------------------------------------------------------ paper: Alg. 1 */

static void close_set(const meta_t *m, bitword_t *S, int *work, int nwork) {
  while (nwork) {
    int q = work[--nwork];
    for (int e = m->off[q]; e < m->off[q + 1]; e++)
      if (m->tag[e] < 0 && !bitset_get(S, (size_t)m->dst[e])) {
        bitset_set(S, (size_t)m->dst[e]);
        work[nwork++] = m->dst[e];
      }
  }
}

enum { PAPER_MAX_SUCC = 24 };

/* Algorithm 1 with the connectivity heuristic, over meta-system m with only
 * the edges tagged in `allowed` (plus uncontrollable ones): a DFS over
 * state sets S closed under uncontrollable moves, each giving the deviation
 * allowed ∖ {tags of edges leaving S}, branching over every non-empty
 * subset of S's successors in W. */
static bool paper_delta(const envelope_t *ev, const meta_t *m, const bitword_t *allowed, maxset_t *out,
                        long *explored, char **error) {
  int nt = ev->space.ntrans;
  if (bitset_get(m->losing, 0)) return true;
  setset_t seen = {.nw = words(m->nq)};
  VEC(bitword_t *) stack = {0};
  int *work = xmalloc((size_t)m->nq * sizeof *work + 1), *succ = xmalloc((size_t)m->nq * sizeof *succ + 1);
  bitword_t *S0 = bitset_new((size_t)m->nq), *in_succ = bitset_new((size_t)m->nq),
            *d = bitset_new((size_t)nt);
  bitset_set(S0, 0);
  work[0] = 0;
  close_set(m, S0, work, 1);
  setset_add(&seen, S0);
  VEC_PUSH(&stack, S0);
  bool ok = true;
  while (stack.len && ok) {
    if ((*explored & 255) == 0 && stop_requested()) { /* Δ unknown until the stack is empty */
      *error = xasprintf("%s: stopped after %ld state sets of the paper algorithm", stop_message(), *explored);
      ok = false;
      break;
    }
    bitword_t *S = VEC_POP(&stack);
    (*explored)++;
    memcpy(d, allowed, words(nt) * sizeof *d);
    int nsucc = 0;
    for (int q = 0; q < m->nq; q++) {
      if (!bitset_get(S, (size_t)q)) continue;
      for (int e = m->off[q]; e < m->off[q + 1]; e++) {
        int t = m->tag[e], y = m->dst[e];
        if (t < 0 || !bitset_get(allowed, (size_t)t) || bitset_get(S, (size_t)y)) continue;
        bitset_clear_bit(d, (size_t)t);
        if (!bitset_get(m->losing, (size_t)y) && !bitset_get(in_succ, (size_t)y)) {
          bitset_set(in_succ, (size_t)y);
          succ[nsucc++] = y;
        }
      }
    }
    for (int i = 0; i < nsucc; i++) bitset_clear_bit(in_succ, (size_t)succ[i]);
    maxset_insert(out, d);
    if (nsucc > PAPER_MAX_SUCC) {
      *error =
          xasprintf("the paper algorithm would branch over 2^%d successor sets of one state set (limit 2^%d)",
                    nsucc, PAPER_MAX_SUCC);
      ok = false;
    }
    for (uint32_t sub = 1; ok && sub < ((uint32_t)1 << nsucc); sub++) {
      if ((sub & 4095) == 0 && stop_requested()) {
        *error = xasprintf("%s: stopped after %ld state sets of the paper algorithm", stop_message(), *explored);
        ok = false;
        break;
      }
      bitword_t *T = set_copy(S, m->nq);
      int nwork = 0;
      for (int i = 0; i < nsucc; i++)
        if (sub & ((uint32_t)1 << i)) {
          bitset_set(T, (size_t)succ[i]);
          work[nwork++] = succ[i];
        }
      close_set(m, T, work, nwork);
      if (setset_add(&seen, T))
        VEC_PUSH(&stack, T);
      else
        free(T);
    }
    free(S);
  }
  while (stack.len) free(VEC_POP(&stack));
  VEC_FREE(&stack);
  setset_free(&seen);
  free(work);
  free(succ);
  free(in_succ);
  free(d);
  return ok;
}

static bool run_paper(const envelope_t *ev, maxset_t *out, envelope_result_t *r, char **error) {
  int nt = ev->space.ntrans;
  if (!envelope_robust(ev, ev->space.normal)) {
    r->normal_unsafe = true;
    return true;
  }
  bitword_t *all = set_full(nt);
  bool ok = true;
  if (ev->nmeta == 1) {
    ok = paper_delta(ev, &ev->meta[0], all, out, &r->checks, error);
  } else {
    /* the sequential algorithm: maximal environments satisfying P_env
     * (controller C_all), then Alg. 1 inside each, then maximal ones */
    maxset_t envs = {.nbits = nt};
    ok = paper_delta(ev, &ev->meta[1], all, &envs, &r->checks, error);
    for (size_t i = 0; ok && i < envs.sets.len; i++)
      ok = paper_delta(ev, &ev->meta[0], envs.sets.data[i], out, &r->checks, error);
    maxset_free(&envs);
  }
  free(all);
  return ok;
}

/* --------------------------------------------------------- brute force */

enum { BRUTE_MAX_CANDIDATES = 20 };

/* Robustness by definition: build E_d and compose it with C ‖ P_err and
 * with P_env,err; robust iff neither composition reaches its error. A stop
 * request (ism/stop.h) ends a composition: the answer is then false and
 * the caller polls. */
static bool robust_by_composition(const envelope_t *ev, const bitword_t *d) {
  lts_t *ed = envelope_deviation_lts(&ev->space, ev->env, d);
  bool ok = true;
  for (int k = 0; k < 2 && ok; k++) {
    if (!ev->k[k]) continue;
    const lts_t *parts[2] = {ed, ev->k[k]};
    lts_t *c = lts_compose_bounded(parts, 2, 0, stop_poll, NULL);
    ok = c && c->error < 0;
    lts_free(c);
  }
  lts_free(ed);
  return ok;
}

static bool run_brute(const envelope_t *ev, maxset_t *out, envelope_result_t *r, char **error) {
  const envelope_space_t *sp = &ev->space;
  VEC(int) dev = {0};
  for (int t = 0; t < sp->ntrans; t++)
    if (!bitset_get(sp->normal, (size_t)t)) VEC_PUSH(&dev, t);
  if (dev.len > BRUTE_MAX_CANDIDATES) {
    *error =
        xasprintf("brute force would check 2^%zu deviation sets (limit 2^%d)", dev.len, BRUTE_MAX_CANDIDATES);
    VEC_FREE(&dev);
    return false;
  }
  uint32_t n = (uint32_t)1 << dev.len;
  bitword_t *robust = bitset_new(n), *d = bitset_new((size_t)sp->ntrans);
  for (uint32_t mask = 0; mask < n; mask++) {
    memcpy(d, sp->normal, words(sp->ntrans) * sizeof *d);
    for (size_t i = 0; i < dev.len; i++)
      if (mask & ((uint32_t)1 << i)) bitset_set(d, (size_t)dev.data[i]);
    if (robust_by_composition(ev, d)) bitset_set(robust, mask);
    if (stop_requested()) { /* the sets not checked yet decide which are maximal: no result */
      *error = xasprintf("%s: stopped after %ld of %lu deviation sets", stop_message(), r->checks,
                         (unsigned long)n);
      free(robust);
      free(d);
      VEC_FREE(&dev);
      return false;
    }
    r->checks++;
  }
  r->normal_unsafe = !bitset_get(robust, 0);
  for (uint32_t mask = 0; mask < n; mask++) {
    if (!bitset_get(robust, mask)) continue;
    bool maximal = true;
    for (size_t i = 0; i < dev.len && maximal; i++)
      if (!(mask & ((uint32_t)1 << i)) && bitset_get(robust, mask | ((uint32_t)1 << i))) maximal = false;
    if (!maximal) continue;
    memcpy(d, sp->normal, words(sp->ntrans) * sizeof *d);
    for (size_t i = 0; i < dev.len; i++)
      if (mask & ((uint32_t)1 << i)) bitset_set(d, (size_t)dev.data[i]);
    VEC_PUSH(&out->sets, set_copy(d, sp->ntrans));
  }
  free(robust);
  free(d);
  VEC_FREE(&dev);
  return true;
}

/* ----------------------------------------------------------- results */

typedef struct {
  bitword_t *set;
  int size;
  size_t nw;
} sorted_t;

static int cmp_delta(const void *a, const void *b) {
  const sorted_t *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  for (size_t w = 0; w < x->nw; w++) {
    bitword_t diff = x->set[w] ^ y->set[w];
    if (diff) {
      bitword_t low = diff & (~diff + 1); /* the smallest transition where they differ */
      return (x->set[w] & low) ? -1 : 1;
    }
  }
  return 0;
}

bool envelope_compute(envelope_t *ev, envelope_algorithm_t algorithm, envelope_result_t *out, char **error) {
  memset(out, 0, sizeof *out);
  maxset_t m = {.nbits = ev->space.ntrans};
  bool ok = true;
  switch (algorithm) {
  case ENVELOPE_DEFAULT:
  case ENVELOPE_CLAUSES: { /* both grow sets on one incremental search */
    search_t s;
    search_init(&s, ev);
    if (!search_start(&s)) out->normal_unsafe = true;
    else if (algorithm == ENVELOPE_DEFAULT) run_default(ev, &s, &m, out);
    else run_clauses(ev, &s, &m, out);
    search_free(&s);
    break;
  }
  case ENVELOPE_PAPER: ok = run_paper(ev, &m, out, error); break;
  case ENVELOPE_BRUTE_FORCE: ok = run_brute(ev, &m, out, error); break;
  }
  if (!ok || out->normal_unsafe) {
    maxset_free(&m);
    return ok;
  }
  size_t n = m.sets.len;
  sorted_t *s = xmalloc((n + 1) * sizeof *s);
  for (size_t i = 0; i < n; i++)
    s[i] = (sorted_t){m.sets.data[i], envelope_size(&ev->space, m.sets.data[i]), words(ev->space.ntrans)};
  qsort(s, n, sizeof *s, cmp_delta);
  out->deltas = xmalloc((n + 1) * sizeof *out->deltas);
  for (size_t i = 0; i < n; i++) out->deltas[i] = s[i].set;
  out->ndeltas = (int)n;
  free(s);
  VEC_FREE(&m.sets);
  return true;
}

void envelope_result_free(envelope_result_t *r) {
  for (int i = 0; i < r->ndeltas; i++) free(r->deltas[i]);
  free(r->deltas);
  memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------- comparison */

const char *envelope_verdict_name(envelope_verdict_t v) {
  switch (v) {
  case ENVELOPE_EQUAL: return "equal";
  case ENVELOPE_MORE: return "more robust";
  case ENVELOPE_LESS: return "less robust";
  case ENVELOPE_INCOMPARABLE: return "incomparable";
  }
  return "?";
}

/* An element of rx contained in no element of ry, or -1. */
static int uncovered(const envelope_result_t *rx, const envelope_result_t *ry, int ntrans) {
  for (int i = 0; i < rx->ndeltas; i++) {
    bool covered = false;
    for (int j = 0; j < ry->ndeltas && !covered; j++)
      covered = bitset_subset(rx->deltas[i], ry->deltas[j], (size_t)ntrans);
    if (!covered) return i;
  }
  return -1;
}

/* The deviation transitions of d, shrunk to a minimal set not robust for ev. */
static bitword_t *witness(const envelope_t *ev, const bitword_t *d) {
  const envelope_space_t *sp = &ev->space;
  bitword_t *w = set_copy(d, sp->ntrans);
  for (size_t i = 0; i < words(sp->ntrans); i++) w[i] &= ~sp->normal[i];
  for (int t = 0; t < sp->ntrans; t++) {
    if (!bitset_get(w, (size_t)t)) continue;
    bitset_clear_bit(w, (size_t)t);
    if (envelope_robust(ev, w)) bitset_set(w, (size_t)t);
  }
  return w;
}

envelope_verdict_t envelope_compare(const envelope_t *a, const envelope_result_t *ra, const envelope_t *b,
                                    const envelope_result_t *rb, bitword_t **a_only, bitword_t **b_only) {
  int nt = a->space.ntrans;
  int ia = uncovered(ra, rb, nt), ib = uncovered(rb, ra, nt);
  *a_only = ia >= 0 ? witness(b, ra->deltas[ia]) : NULL;
  *b_only = ib >= 0 ? witness(a, rb->deltas[ib]) : NULL;
  if (ia < 0 && ib < 0) return ENVELOPE_EQUAL;
  if (ia >= 0 && ib >= 0) return ENVELOPE_INCOMPARABLE;
  return ia >= 0 ? ENVELOPE_MORE : ENVELOPE_LESS;
}
