#include "verifier/lts/robustify_oasis.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "verifier/lts/robustify_observer.h"
#include "verifier/lts/robustify_search.h"
#include "verifier/lts/robustify_symmetry.h"

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

/* Deterministic l as a key equal for equal LTSs up to state numbering:
 * the error state's and each state's moves (label, target) in BFS order
 * from init, moves by label, states numbered as found. With pi (or NULL):
 * the key of l with every label l renamed pi[l] (its moves sorted again by
 * the new labels; pi a permutation of the label ids). */
static void canonical_key_mapped(const lts_t *l, const int *pi, intvec_t *key) {
  int *num = xmalloc(((size_t)l->nstates + 1) * sizeof *num),
      *order = xmalloc(((size_t)l->nstates + 1) * sizeof *order);
  int maxdeg = 0;
  for (int x = 0; x < l->nstates; x++)
    if (l->succ_off[x + 1] - l->succ_off[x] > maxdeg) maxdeg = l->succ_off[x + 1] - l->succ_off[x];
  int *ml = xmalloc(((size_t)maxdeg + 1) * sizeof *ml), *md = xmalloc(((size_t)maxdeg + 1) * sizeof *md);
  for (int i = 0; i < l->nstates; i++) num[i] = -1;
  int n = 0;
  num[l->init] = n, order[n++] = l->init;
  VEC_CLEAR(key);
  for (int h = 0; h < n; h++) {
    int x = order[h], k = 0;
    VEC_PUSH(key, x == l->error ? -2 : l->succ_off[x + 1] - l->succ_off[x]);
    for (int t = l->succ_off[x]; t < l->succ_off[x + 1]; t++) { /* by (new) label: insertion sort */
      int lab = pi ? pi[l->succ_label[t]] : l->succ_label[t], j = k++;
      for (; j > 0 && ml[j - 1] > lab; j--) ml[j] = ml[j - 1], md[j] = md[j - 1];
      ml[j] = lab, md[j] = l->succ_dst[t];
    }
    for (int i = 0; i < k; i++) {
      int d = md[i];
      if (num[d] < 0) num[d] = n, order[n++] = d;
      VEC_PUSH(key, ml[i]);
      VEC_PUSH(key, num[d]);
    }
  }
  free(num);
  free(order);
  free(ml);
  free(md);
}

static void canonical_key(const lts_t *l, intvec_t *key) { canonical_key_mapped(l, NULL, key); }

/* Symmetries of the environment side (pump-3: the three lines). Let K =
 * E' ‖ P_err ‖ progress monitors, so that the plant of an abstraction mm
 * (alphabet Σ_M) is mm ‖ K. When a label permutation π maps Σ_M, C and O
 * onto themselves and K onto an isomorphic copy of itself (error, marking
 * and alphabet kept), the plant of π(mm) is isomorphic to π of the plant
 * of mm, and the synthesis for (C, O) = (π(C), π(O)) on it answers as on
 * mm's plant. So an abstraction mm whose image π(mm) has the language of
 * one already found without a supervisor has none either: no plant, no
 * observer (pump-3: 22 of its 35 abstractions are images of others under
 * swapping lines). The candidates π are robustify_symmetry_find's
 * transpositions of index values, checked on H = U ‖ K, U one state with a
 * self-loop on every action of Σ_M (oasis_product's H): reach(H) = reach(K)
 * and H has K's moves plus self-loops on the actions of Σ_M outside K's
 * alphabet, so with π(Σ_M) = Σ_M an automorphism of H under π is one of K
 * (a label of Σ_M that K never moves on is blocked in both). The group
 * they generate is enumerated (at most OASIS_GROUP_MAX elements; any part
 * of it is sound), each element nl label ids. */
#define OASIS_GROUP_MAX 1024

typedef struct {
  bool tried;
  int nl, n; /* n elements besides the identity */
  int *perm; /* element i: perm[i * nl .. + nl) */
} oasis_group_t;

/* Whether pi maps the labels of b onto themselves. */
static bool maps_onto(const int *pi, int nl, const bitword_t *b) {
  for (int l = 0; l < nl; l++)
    if (bitset_get(b, (size_t)l) != bitset_get(b, (size_t)pi[l])) return false;
  return true;
}

/* U: one state with a self-loop on every label of the system's alphabet. */
static lts_t *universal(const robustify_problem_t *p) {
  lts_builder_t b;
  lts_builder_init(&b, p->sys->labels);
  lts_builder_add_state(&b);
  b.init = 0;
  for (int i = 0; i < p->sys->nalphabet; i++) lts_builder_add(&b, 0, p->sys->alphabet[i], 0);
  return lts_freeze(&b);
}

/* Builds H, finds its symmetries that keep Σ_M, C and O, and the group they
 * generate, into gr (left empty when none, or when H cannot be built: its
 * limits are not the run's, so s->bounded and s->limit are restored). */

static void oasis_group_find(search_t *s, oasis_group_t *gr, events_t all) {
  gr->tried = true;
  const robustify_problem_t *p = s->p;
  int nl = (int)p->sys->labels->names.count;
  gr->nl = nl;
  lts_t *u = universal(p);
  plant_t keep = s->g;
  bool was_bounded = s->bounded;
  const char *was_limit = s->limit;
  memset(&s->g, 0, sizeof s->g);
  bool built = robustify_plant_build(s, u) && s->g.nlabels == nl;
  s->bounded = was_bounded, s->limit = was_limit;
  lts_free(u);
  int *gen = NULL, ngen = 0;
  if (built) {
    robustify_symmetry_find(s); /* s->sym: nl label ids, then the behaviours' β, per symmetry */
    bitword_t *in_m = bitset_new((size_t)nl);
    for (int i = 0; i < p->sys->nalphabet; i++) bitset_set(in_m, (size_t)p->sys->alphabet[i]);
    gen = xmalloc(((size_t)s->nsym * (size_t)nl + 1) * sizeof *gen);
    for (int k = 0; k < s->nsym; k++) {
      const int *pi = s->sym + (size_t)k * (size_t)(nl + p->npref);
      if (maps_onto(pi, nl, in_m) && maps_onto(pi, nl, all.c) && maps_onto(pi, nl, all.o))
        memcpy(gen + (size_t)ngen++ * (size_t)nl, pi, (size_t)nl * sizeof *pi);
    }
    free(in_m);
    robustify_symmetry_free(s);
  }
  robustify_plant_free(&s->g);
  s->g = keep;
  /* the group: products of the generators, breadth first from the identity */
  keytab_t seen;
  keytab_init(&seen);
  intvec_t el = {0};
  bool added;
  for (int l = 0; l < nl; l++) VEC_PUSH(&el, l);
  keytab_add(&seen, el.data, (size_t)nl, &added);
  for (size_t h = 0; ngen > 0 && h < el.len / (size_t)nl && el.len / (size_t)nl < OASIS_GROUP_MAX; h++)
    for (int k = 0; k < ngen && el.len / (size_t)nl < OASIS_GROUP_MAX; k++) {
      size_t at = el.len;
      for (int l = 0; l < nl; l++)
        VEC_PUSH(&el, gen[(size_t)k * (size_t)nl + (size_t)el.data[h * (size_t)nl + (size_t)l]]);
      keytab_add(&seen, el.data + at, (size_t)nl, &added);
      if (!added) el.len = at;
    }
  keytab_free(&seen);
  free(gen);
  gr->n = (int)(el.len / (size_t)nl) - 1;
  gr->perm = xmalloc(((size_t)gr->n * (size_t)nl + 1) * sizeof *gr->perm);
  memcpy(gr->perm, el.data + nl, (size_t)gr->n * (size_t)nl * sizeof *gr->perm);
  VEC_FREE(&el);
}

/* Whether an image of mm under gr's group has a language in `seen` other
 * than mm's own (`own`, its key, just added: an image may be mm itself). */
static bool image_seen(const oasis_group_t *gr, const lts_t *mm, const keytab_t *seen, const intvec_t *own) {
  intvec_t key = {0};
  bool hit = false;
  for (int i = 0; i < gr->n && !hit; i++) {
    canonical_key_mapped(mm, gr->perm + (size_t)i * (size_t)gr->nl, &key);
    hit = keytab_find(seen, key.data, key.len) >= 0 &&
          !(key.len == own->len && memcmp(key.data, own->data, key.len * sizeof *key.data) == 0);
  }
  VEC_FREE(&key);
  return hit;
}

/* check_shortcuts: mm's own plant and synthesis for an abstraction an
 * image answered (no supervisor); a supervisor is a mismatch. s->g is
 * swapped out and back. */
static void check_image_answer(search_t *s, const lts_t *mm, events_t all) {
  plant_t keep = s->g;
  memset(&s->g, 0, sizeof s->g);
  synth_t y = {0};
  if (robustify_plant_build(s, mm)) robustify_synth_run(&y, s, all.c, all.o);
  s->shortcut_checks++;
  s->shortcut_mismatches += y.exists;
  robustify_synth_free(&y);
  robustify_plant_free(&s->g);
  s->g = keep;
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
  robustify_observer_free(pc->ho);
  robustify_plant_free(&pc->h);
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
  lts_t *u = universal(p);
  plant_t keep = s->g;
  memset(&s->g, 0, sizeof s->g);
  bool built = robustify_plant_build(s, u);
  lts_free(u);
  if (built && (int)s->g.nlabels == nl) pc->ho = robustify_observer_build(s, obs);
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
  if (x->nx * x->nh > ((size_t)1 << 24) || !(x->step = robustify_step_table(mm, nl))) return -2;
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
    if ((h & 255) == 0 && robustify_out_of_time(s)) return -1;
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
    if (robustify_out_of_time(s)) {
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

/* Fortis's OASISRobustifier: the subsets of the candidate actions (the
 * controllable list, then the observable actions not in it), smallest
 * first, each size in lexicographic order (OrderedPowerSetIterator); for
 * each, one synthesis on the abstraction that decouples it, with every
 * candidate controllable/observable; the first supervisor is the solution. */
void robustify_oasis_run(search_t *s, robustify_result_t *out) {
  const robustify_problem_t *p = s->p;
  int nl = (int)p->sys->labels->names.count;
  s->g.nlabels = nl;
  events_t all = robustify_events_new(s);
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
  oasis_group_t group = {0};
  keytab_t seen; /* languages of the abstractions tried (minimised, canonical_key) */
  keytab_init(&seen);
  intvec_t akey = {0};
  for (int k = 0; k <= n && !found && !s->bounded; k++) {
    robustify_comb_first(a, k);
    do {
      if (robustify_out_of_time(s)) break;
      for (int i = 0; i < k; i++) abs[i] = list[a[i]];
      lts_t *m = robustify_abstraction(p->sys, abs, k, p->max_states, robustify_stop_search, s);
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
      if (robustify_out_of_time(s)) { /* lts_minimise stopped (mm is m unminimised) */
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
      if (s->nsynth > 0 && !p->no_shortcuts && (group.tried || (oasis_group_find(s, &group, all), true)) &&
          image_seen(&group, mm, &seen, &akey)) { /* an image's language had no supervisor: none here */
        s->nsynth++;
        s->nsym_answered++;
        if (p->check_shortcuts) check_image_answer(s, mm, all);
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
      robustify_plant_free(&s->g);
      memset(&s->g, 0, sizeof s->g);
      bool built = robustify_plant_build(s, mm ? mm : m);
      if (built && s->nsynth == 0) {
        out->plant_states = s->g.n;
        out->plant_trans = s->g.ntrans;
      }
      synth_t y = {0};
      bool exists = false;
      uint64_t kept = 0;
      if (built) {
        robustify_synth_run(&y, s, all.c, all.o);
        s->nsynth++;
        exists = y.exists;
        if (exists) kept = robustify_kept_mask(&y, ~(uint64_t)0); /* m's language: the same on mm */
        if (exists) s->final = s->search_done = true;
        if (exists && mm) { /* again on m itself, in the final phase: only a stop can fail it */
          robustify_synth_free(&y);
          memset(&y, 0, sizeof y);
          robustify_plant_free(&s->g);
          memset(&s->g, 0, sizeof s->g);
          if (robustify_plant_build(s, m)) robustify_synth_run(&y, s, all.c, all.o);
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
          sol->sup = robustify_supervisor(&y, p->sys->labels, dis);
          sol->disabled = robustify_labels_of(s, dis, &sol->ndisabled);
        }
        sol->ctrl = robustify_labels_of(s, all.c, &sol->nctrl);
        sol->obs = robustify_labels_of(s, all.o, &sol->nobs);
        for (int i = 0; i < k; i++) bitset_set(hid, (size_t)abs[i]);
        sol->hidden = robustify_labels_of(s, hid, &sol->nhidden);
        sol->cost = robustify_cost_of(s, all);
        sol->base = m;
        sol->iteration = 1;
        sol->target = sol->kept;
        free(dis);
        free(hid);
        found = true;
      } else
        lts_free(m);
      robustify_synth_free(&y);
    } while (!found && !s->bounded && robustify_comb_next(a, k, n));
  }
  out->no_supervisor = !found && !s->bounded;
  s->search_done = s->search_done || out->no_supervisor;
  oasis_product_free(&pc);
  free(group.perm);
  keytab_free(&seen);
  VEC_FREE(&akey);
  free(a);
  free(abs);
  free(list);
  free(in_list);
  robustify_events_free(all);
}
