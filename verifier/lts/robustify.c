#include "verifier/lts/robustify.h"

#include <assert.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/bitset.h"
#include "ism/keytab.h"
#include "ism/vec.h"
#include "verifier/lts/robustify_oasis.h"
#include "verifier/lts/robustify_observer.h"
#include "verifier/lts/robustify_search.h"
#include "verifier/lts/robustify_symmetry.h"

/* Each observer's arrays (tens of MB) are freed when a newer one evicts it
 * and its successor's are allocated at once; glibc would map the large
 * ones afresh and unmap them (and trim the heap's top) on free, so every
 * observer faulted its pages in again (pump-3 pareto: about a tenth of
 * its CPU in the kernel). Large blocks below glibc's greatest mapping
 * threshold (32 MB on 64-bit) come from the heap, and a freed top is
 * kept: pump-3 pareto, 5 interleaved runs at load 5, system time 0.19 ->
 * 0.13 s (user time within the load's noise), peak RSS 260 -> 262 MB. */
static void keep_freed_memory(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

/* The labels no synthesis of the search observes or asks about, or NULL
 * when there are none or the search runs on the plain minimised plant
 * (--max-states: its bounds count that plant's observation sets;
 * no_shortcuts): the actions of G outside init's observable and
 * controllable sets (the search only removes actions from them), outside
 * every preferred behaviour (its word and alphabet) and not progress
 * actions. The search may run on G with their moves taken as τ and
 * reduced by branching bisimulation (robustify_plant_hide; the error state
 * and the marking kept apart): the O-observation sets there are the images
 * of G's (an observation set is closed under the unobservable moves, and
 * branching bisimilar states can do the same observable moves after
 * unobservable ones into their own class), a set's place in the fixpoint
 * depends only on its image (whether it holds the error state, its
 * observable moves, whether each member reaches a marked state through
 * good sets), and the projections of the closed loop's traces on each
 * preferred behaviour's alphabet are the same. So whether a supervisor
 * exists and which preferred behaviours it keeps are the same, as on G
 * minimised (pump-3: 139 865 states, minimised 79 225, reduced 40 133;
 * the hidden actions are the alarm's alarm_rings, alarm_silence and
 * enable_alarm). */
static bitword_t *search_hidden(const search_t *s, events_t init) {
  const robustify_problem_t *p = s->p;
  if (p->max_states > 0 || p->no_shortcuts) return NULL;
  int nl = s->g.nlabels;
  bitword_t *h = bitset_new((size_t)nl);
  for (int l = 0; l < nl; l++)
    if (bitset_get(s->g.alpha, (size_t)l) && !bitset_get(init.o, (size_t)l) && !bitset_get(init.c, (size_t)l))
      bitset_set(h, (size_t)l);
  for (int i = 0; i < p->nprogress; i++) bitset_clear_bit(h, (size_t)p->progress[i]);
  for (int i = 0; i < p->npref; i++) {
    for (int j = 0; j < p->pref[i].len; j++) bitset_clear_bit(h, (size_t)p->pref[i].word[j]);
    for (int j = 0; j < p->pref[i].nalpha; j++) bitset_clear_bit(h, (size_t)p->pref[i].alpha[j]);
  }
  bool any = false;
  for (int l = 0; l < nl && !any; l++) any = bitset_get(h, (size_t)l);
  if (!any) free(h), h = NULL;
  return h;
}

/* Whether g has at most one move per label from each state (the symmetry
 * check's lockstep search needs it; G and G minimised always do). */
static bool plant_deterministic(const plant_t *g) {
  for (int x = 0; x < g->n; x++)
    for (int t = g->off[x] + 1; t < g->off[x + 1]; t++)
      if (g->lab[t] == g->lab[t - 1]) return false;
  return true;
}

void robustify_run(const robustify_problem_t *p, robustify_result_t *out) {
  assert(p->nprogress <= ROBUSTIFY_MAX_PROGRESS && p->npref <= ROBUSTIFY_MAX_PREFERRED);
  keep_freed_memory();
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
    robustify_oasis_run(&s, out);
  else if (robustify_plant_build(&s, p->sys)) {
    out->plant_states = s.g.n;
    out->plant_trans = s.g.ntrans;
    events_t all = robustify_events_new(&s);
    robustify_events_from(&s, p->ctrl, p->nctrl, all.c);
    robustify_events_from(&s, p->obs, p->nobs, all.o);
    uint64_t kept = 0;
    if (!robustify_evaluate(&s, all, &kept))
      out->no_supervisor = s.search_done = !s.bounded;
    else if (p->method == ROBUSTIFY_SIMPLE) {
      out->max_kept = kept;
      s.final = s.search_done = true;
      candidate_list_t one = {0};
      VEC_PUSH(&one, ((candidate_t){robustify_events_copy(&s, all), 1, kept}));
      robustify_collect(&s, &one, 1, out);
      robustify_candidates_free(&one);
    } else {
      out->max_kept = kept;
      events_t init = robustify_remove_unnecessary(&s, all);
      /* the search on G minimised, the solutions on G */
      for (int i = 0; i < ROBUSTIFY_OBSERVERS; i++) {
        robustify_observer_free(s.g.observer[i]);
        s.g.observer[i] = NULL;
      }
      robustify_cache_drop_bad(&s);
      plant_t full = s.g, small;
      bitword_t *hidden = search_hidden(&s, init);
      bool reduced = hidden && robustify_plant_hide(&s, hidden, &small);
      bool minimised = reduced || (!s.bounded && robustify_plant_minimise(&s, &small));
      free(hidden);
      if (minimised) s.g = small;
      candidate_list_t cands = {0};
      if (!s.p->no_shortcuts && plant_deterministic(&s.g)) robustify_symmetry_find(&s);
      if (!s.bounded) robustify_iterate(&s, init, kept, &cands, &out->iterations);
      robustify_symmetry_free(&s);
      robustify_cache_drop_bad(&s);
      if (reduced) { /* kept for the final syntheses (robustify_synth_final) */
        small = s.g;
        s.reduced = &small;
        s.g = full;
      } else if (minimised) {
        robustify_plant_free(&s.g);
        s.g = full;
      }
      bool was_bounded = s.bounded;
      /* the final synthesis, of one least-cost set found so far when
       * bounded; a time limit gives it ROBUSTIFY_FINAL_GRACE seconds, a
       * signal none (the sets are reported without a supervisor) */
      s.bounded = false;
      s.final = true;
      s.search_done = !was_bounded;
      robustify_collect(&s, &cands, was_bounded ? 1 : (int)cands.len, out);
      s.bounded = was_bounded || s.bounded;
      if (reduced) {
        robustify_plant_free(&small);
        s.reduced = NULL;
      }
      robustify_candidates_free(&cands);
      robustify_events_free(init);
    }
    robustify_events_free(all);
  }
  out->nsynth = s.nsynth;
  out->nsym_answered = s.nsym_answered;
  out->shortcut_checks = s.shortcut_checks;
  out->shortcut_mismatches = s.shortcut_mismatches;
  out->bounded = s.bounded;
  out->limit = s.limit;
  out->search_done = s.search_done;
  out->stop_seen_ns = s.stop_seen_ns;
  robustify_plant_free(&s.g);
  keytab_free(&s.cache);
  VEC_FREE(&s.cache_exists);
  VEC_FREE(&s.cache_kept);
  robustify_cache_drop_bad(&s);
  VEC_FREE(&s.cache_bad);
  for (size_t i = 0; i < s.cache_idle.len; i++) free(s.cache_idle.data[i]);
  VEC_FREE(&s.cache_idle);
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

/* lts_compose_bounded(parts, n, 0, stop, arg), through
 * lts_compose_deterministic when every part is deterministic (the same
 * LTS, one merge of the parts' moves per state). */
static lts_t *compose_parts(const lts_t *const *parts, int n, bool (*stop)(void *), void *arg) {
  bool det = true;
  for (int i = 0; i < n && det; i++) det = lts_is_deterministic(parts[i]);
  return det ? lts_compose_deterministic(parts, n, stop, arg) : lts_compose_bounded(parts, n, 0, stop, arg);
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
  lts_t *d = compose_parts(parts, 2, stop, arg);
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
  lts_t *cl = compose_parts(cl_parts, 3, stop, arg);
  lts_t *orig = cl ? compose_parts(orig_parts, 2, stop, arg) : NULL;
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
