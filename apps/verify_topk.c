#include "apps/verify_topk.h"

#include <stdlib.h>
#include <string.h>

#include "apps/verify_options.h"
#include "ism/alloc.h"
#include "probability/bound.h"
#include "verifier/boundary.h"

/* The class (rule, action) among classes[0..n), or NULL. */
static topk_class_t *class_of(topk_class_t *classes, size_t n, int rule, int action) {
  for (size_t k = 0; k < n; k++)
    if (classes[k].rule == rule && classes[k].action == action) return &classes[k];
  return NULL;
}

/* Every class a counterexample can have: per rule, each action of its do:
 * list that has a failure, and the model-wide failure. In mode actual each
 * do: position of a class is decided on its own (boundary_class); the class
 * is empty (or boundary-only) when every one of its positions is. */
static void make_classes(topk_t *t, boundary_ctx_t *bc, const double *lo, const double *hi) {
  const ism_model_t *m = t->m;
  size_t cap = 0;
  for (size_t r = 0; r < m->nrules; r++) cap += m->rules[r].nsteps + 1;
  t->classes = xcalloc(cap + 1, sizeof *t->classes);
  for (size_t r = 0; r < m->nrules; r++) {
    const ism_rule_t *rule = &m->rules[r];
    for (int p = -1; p < (int)rule->nsteps; p++) {
      int action = p < 0 ? -1 : rule->steps[p].kind == ISM_STEP_ACTION ? rule->steps[p].action : -2;
      if (action == -2 || (action >= 0 && !m->actions[action].failure) || (action < 0 && !m->failure))
        continue;
      topk_class_t *c = class_of(t->classes, t->nclasses, (int)r, action);
      if (!c) {
        c = &t->classes[t->nclasses++];
        *c = (topk_class_t){(int)r, action, bc != NULL, bc != NULL, 1, false, 0};
      }
      if (!bc) continue;
      const double *l = lo + (size_t)rule->from * m->nvars, *h = hi + (size_t)rule->from * m->nvars;
      c->empty = c->empty && boundary_class(bc, (int)r, p, false, l, h) == BOUNDARY_ONLY;
      c->bound_only =
          c->bound_only && (c->empty || boundary_class(bc, (int)r, p, true, l, h) == BOUNDARY_ONLY);
    }
  }
  for (size_t k = 0; k < t->nclasses; k++) {
    topk_class_t *c = &t->classes[k];
    /* the joint estimate of a boundary-only counterexample is 0; any estimate is at most 1 */
    c->cap = c->bound_only && t->ropt->estimator == RANK_JOINT ? 0 : 1;
    c->closed = c->empty;
  }
}

static void update_open_rules(topk_part_t *p) {
  const topk_t *t = p->run;
  memset(p->open_next, 0, t->m->nrules * sizeof *p->open_next);
  for (size_t k = 0; k < t->nclasses; k++)
    if (!p->classes[k].closed) p->open_next[p->classes[k].rule] = true;
}

/* The search's copy of the open rules, on the search's thread (p->lock held). */
static void sync_open(topk_part_t *p) {
  memcpy(p->open_rules, p->open_next, p->run->m->nrules * sizeof *p->open_rules);
}

/* Does counterexample c come before every counterexample of class k found
 * from now on? Those are later in depth-first order, so c wins a tie, and
 * at best (boundary-only when the class is, probability k->cap) they come
 * right after c's key: cex_compare's order. */
static bool beats(const cex_t *c, const topk_class_t *k) {
  if (!c->has_probability) return false;
  if (c->boundary_only != k->bound_only) return !c->boundary_only;
  return c->probability >= k->cap;
}

static bool same_class(const cex_t *a, const cex_t *b) {
  return a->rules[a->length - 1] == b->rules[b->length - 1] && a->fail_action == b->fail_action;
}

/* Keeps of kept[0..*n) (in the report's order) what the report may still
 * need: the first member of each class, and with --top the first K of the
 * longest prefix reaching --min-prob (the report's kept ones). */
static void trim(const topk_t *t, cex_t *kept, size_t *n) {
  size_t out = 0, listed = 0;
  bool in_prefix = true;
  for (size_t k = 0; k < *n; k++) {
    cex_t *c = &kept[k];
    bool first = true;
    for (size_t q = 0; q < out && first; q++) first = !same_class(&kept[q], c);
    in_prefix = in_prefix && c->has_probability && c->probability >= t->min_prob;
    bool in_top = t->top > 0 && in_prefix && listed < (size_t)t->top;
    listed += in_top;
    if (first || in_top)
      kept[out++] = *c;
    else
      cex_free(c);
  }
  *n = out;
}

/* Can no member of class cl found from now on, at best (cl->bound_only,
 * cl->cap), enter the report of part p? */
static bool cannot_enter(const topk_part_t *p, const topk_class_t *cl) {
  const topk_t *t = p->run;
  bool best_known = false, in_prefix = true;
  size_t above = 0; /* kept ones before any later member, in the --min-prob prefix */
  for (size_t q = 0; q < p->nkept; q++) {
    const cex_t *c = &p->kept[q];
    in_prefix = in_prefix && c->has_probability && c->probability >= t->min_prob;
    if (!beats(c, cl)) break; /* those that beat it are a prefix of the kept ones */
    if (c->rules[c->length - 1] == cl->rule && c->fail_action == cl->action) best_known = true;
    above += in_prefix;
  }
  bool listed_full = t->top <= 0 || above >= (size_t)t->top || (t->min_prob > 0 && cl->cap < t->min_prob);
  return best_known && listed_full;
}

/* Can x, whose reported probability will be at most ub, not enter the
 * report of part p? x may come before kept ones in depth-first order (it
 * waited in the queue while later ones were ranked), so it is compared as
 * itself at its best key: its own path, boundary-only only when its class
 * is, probability min(ub, cap). Every kept one before that key in
 * cex_compare's order precedes x whatever x's estimate; x cannot enter when
 * a member of its class does and, with --top, K listed ones do. */
static bool member_cannot_enter(const topk_part_t *p, const cex_t *x, double ub) {
  const topk_t *t = p->run;
  const topk_class_t *cl = class_of(p->classes, t->nclasses, x->rules[x->length - 1], x->fail_action);
  if (!cl) return false;
  cex_t best = *x; /* a shallow copy: only its key is read */
  best.has_probability = true;
  best.boundary_only = cl->bound_only;
  best.probability = ub < cl->cap ? ub : cl->cap;
  bool best_known = false, in_prefix = true;
  size_t above = 0;
  for (size_t q = 0; q < p->nkept; q++) {
    const cex_t *c = &p->kept[q];
    in_prefix = in_prefix && c->has_probability && c->probability >= t->min_prob;
    if (cex_compare(c, &best) >= 0) break; /* kept is in that order */
    if (same_class(c, x)) best_known = true;
    above += in_prefix;
  }
  bool listed_full =
      t->top <= 0 || above >= (size_t)t->top || (t->min_prob > 0 && best.probability < t->min_prob);
  return best_known && listed_full;
}

/* Closes the classes none of whose later members can enter the report. */
static void close_classes(topk_part_t *p) {
  const topk_t *t = p->run;
  for (size_t k = 0; k < t->nclasses; k++)
    if (!p->classes[k].closed) p->classes[k].closed = cannot_enter(p, &p->classes[k]);
  update_open_rules(p);
}

/* Inserts c (taking what it owns) into kept[0..*n) in the report's order. */
static void insert(cex_t **kept, size_t *n, cex_t *c) {
  *kept = xrealloc(*kept, (*n + 1) * sizeof **kept);
  size_t at = *n;
  while (at > 0 && cex_compare(c, &(*kept)[at - 1]) < 0) at--;
  memmove(&(*kept)[at + 1], &(*kept)[at], (*n - at) * sizeof **kept);
  (*kept)[at] = *c;
  ++*n;
}

/* Ranks c (taking what it owns) with ranker r and keeps it if the report
 * may need it. Called with p->lock held; the ranking itself runs unlocked. */
static void rank_member(topk_part_t *p, verify_ranker_t *r, cex_t *c, double ub) {
  const topk_t *t = p->run;
  bool skip = p->unranked;
  pthread_mutex_unlock(&p->lock);
  bool ranked = skip || verify_ranker_rank(r, c, p->bound ? ub : -1); /* ub is c's bound_true (take) */
  char *msg = cex_replay(t->m, t->ropt->mode, c);
  pthread_mutex_lock(&p->lock);
  if (!ranked) p->unranked = true;
  p->found_boundary_only += c->boundary_only;
  if (msg && !p->bad) p->bad = xasprintf("a ranked counterexample failed its re-check: %s", msg);
  free(msg);
  if (c->has_probability && !(c->probability >= 0 && c->probability <= 1) && !p->bad)
    p->bad = xasprintf("a counterexample has probability %g outside [0, 1]", c->probability);
  if (c->has_probability && c->probability > ub && !p->bad)
    p->bad = xasprintf("a counterexample has probability %.17g above its bound %.17g", c->probability, ub);
  insert(&p->kept, &p->nkept, c);
  trim(t, p->kept, &p->nkept);
  close_classes(p);
}

/* The most counterexamples waiting for their ranking: the search waits
 * beyond it, so that what it cuts by closed classes lags the ranking by
 * little and the queue's memory stays bounded (cruise control, bound 10:
 * 345 MB and over 420 s with no limit). */
enum { TOPK_QUEUE = 32 };

/* Takes the queued counterexample of highest bound (the first found of
 * equal ones) and ranks it with r unless it can no longer enter the report;
 * false when the queue is empty. p->lock held. Ranking the highest bounds
 * first raises each class's best early, so more of the rest are cut. */
static bool rank_next(topk_part_t *p, verify_ranker_t *r) {
  if (p->npending == 0) return false;
  size_t at = 0;
  for (size_t k = 1; k < p->npending; k++)
    if (p->pending[k].ub > p->pending[at].ub) at = k;
  topk_pending_t x = p->pending[at];
  memmove(&p->pending[at], &p->pending[at + 1], (p->npending - at - 1) * sizeof *p->pending);
  p->npending--;
  pthread_cond_signal(&p->room);
  if (p->bad || member_cannot_enter(p, &x.c, x.ub)) {
    p->bounded += !p->bad;
    cex_free(&x.c);
  } else {
    rank_member(p, r, &x.c, x.ub);
  }
  return true;
}

/* The ranking thread of a part: ranks what the search queues until the
 * search has ended and the queue is empty. */
typedef struct {
  topk_part_t *p;
  verify_ranker_t *ranker;
} ranking_arg_t;

static void *ranking_thread(void *arg) {
  topk_part_t *p = ((ranking_arg_t *)arg)->p;
  verify_ranker_t *r = ((ranking_arg_t *)arg)->ranker;
  free(arg);
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (p->npending == 0 && !p->search_done) pthread_cond_wait(&p->wake, &p->lock);
    if (!rank_next(p, r)) break;
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static void take(void *arg, cex_t *c) {
  topk_part_t *p = arg;
  const topk_t *t = p->run;
  pthread_mutex_lock(&p->lock);
  topk_class_t *cl = class_of(p->classes, t->nclasses, c->rules[c->length - 1], c->fail_action);
  p->found++;
  /* a class make_classes did not foresee would be a bug: such a member is kept (never cut) */
  if ((cl && cl->closed) || p->bad) {
    cex_free(c);
    pthread_mutex_unlock(&p->lock);
    return;
  }
  pthread_mutex_unlock(&p->lock);
  /* c's own bound (probability/bound.h): the reported probability is at most
   * min(estimate, bound_true); when even that cannot enter the report, c is not ranked */
  double ub = p->bound ? bound_true(p->bound, c) : 1;
  pthread_mutex_lock(&p->lock);
  if (cl && ub < cl->cap && member_cannot_enter(p, c, ub)) {
    p->bounded++;
    cex_free(c);
  } else if (p->nthreads > 0) {
    while (p->npending >= TOPK_QUEUE) pthread_cond_wait(&p->room, &p->lock);
    p->pending = xrealloc(p->pending, (p->npending + 1) * sizeof *p->pending);
    p->pending[p->npending++] = (topk_pending_t){*c, ub};
    pthread_cond_signal(&p->wake);
  } else {
    rank_member(p, p->ranker, c, ub);
  }
  sync_open(p);
  pthread_mutex_unlock(&p->lock);
}

/* Is c before every path that starts with prefix (depth rules)? */
static bool before_prefix(const cex_t *c, const int *prefix, int depth) {
  for (int k = 0; k < c->length && k < depth; k++)
    if (c->rules[k] != prefix[k]) return c->rules[k] < prefix[k];
  return c->length <= depth;
}

/* A subtree's part starts with copies of what the part above the split
 * kept that comes before the subtree in depth-first order: it precedes
 * every counterexample of the subtree, as in a search without the split. */
static void *part_new(void *arg, const int *prefix, int depth) {
  topk_t *t = arg;
  topk_part_t *p = xcalloc(1, sizeof *p);
  p->run = t;
  p->classes = xmalloc((t->nclasses + 1) * sizeof *p->classes);
  memcpy(p->classes, t->classes, t->nclasses * sizeof *p->classes);
  p->open_rules = xcalloc(t->m->nrules + 1, sizeof *p->open_rules);
  p->open_next = xcalloc(t->m->nrules + 1, sizeof *p->open_next);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->room, NULL);
  p->ranker = verify_ranker_new(t->m, t->ropt);
  p->bound = t->ropt->estimator == RANK_JOINT ? bound_new(t->m) : NULL;
  for (size_t k = 0; depth > 0 && k < t->nseed; k++) {
    if (!before_prefix(&t->seed[k], prefix, depth)) continue;
    cex_t c;
    cex_copy(&c, &t->seed[k], t->m->nvars);
    insert(&p->kept, &p->nkept, &c);
  }
  close_classes(p);
  sync_open(p);
  /* the ranking threads, each with a ranker of its own (the first is p->ranker) */
  p->threads = xcalloc((size_t)t->rank_threads + 1, sizeof *p->threads);
  p->rankers = xcalloc((size_t)t->rank_threads + 1, sizeof *p->rankers);
  for (int k = 0; k < t->rank_threads; k++) {
    p->rankers[k] = k == 0 ? p->ranker : verify_ranker_new(t->m, t->ropt);
    ranking_arg_t *a = xmalloc(sizeof *a);
    *a = (ranking_arg_t){p, p->rankers[k]};
    if (pthread_create(&p->threads[k], NULL, ranking_thread, a) != 0) {
      free(a);
      if (k > 0) verify_ranker_delete(p->rankers[k]);
      break; /* fewer threads; with none the search ranks at once */
    }
    p->nthreads++;
  }
  return p;
}

static const bool *open_rules(void *arg) { return ((topk_part_t *)arg)->open_rules; }

/* No counterexample below the prefix can enter the report: each has a
 * reported probability at most bound_prefix (bound_true takes the minimum
 * over its prefixes), and for every open class that bound cannot enter. */
static bool prefix_cut_locked(topk_part_t *p, const int *rules, const int *states, int depth);

static bool prefix_cut(void *arg, const int *rules, const int *states, int depth) {
  topk_part_t *p = arg;
  pthread_mutex_lock(&p->lock);
  sync_open(p);
  bool cut = p->bound != NULL && prefix_cut_locked(p, rules, states, depth);
  pthread_mutex_unlock(&p->lock);
  return cut;
}

static bool prefix_cut_locked(topk_part_t *p, const int *rules, const int *states, int depth) {
  const topk_t *t = p->run;
  bool any_open = false;
  for (size_t k = 0; k < t->nclasses && !any_open; k++) any_open = !p->classes[k].closed;
  if (!any_open) return false; /* the reachability cut does it */
  double ub = -1;
  for (size_t k = 0; k < t->nclasses; k++) {
    const topk_class_t *cl = &p->classes[k];
    if (cl->closed) continue;
    if (ub < 0) ub = bound_prefix(p->bound, rules, states, depth);
    if (!(ub < cl->cap)) return false;
    topk_class_t at_best = *cl;
    at_best.cap = ub;
    if (!cannot_enter(p, &at_best)) return false;
  }
  return true;
}

/* Merges a part's result into the run; the result does not depend on the
 * order of the parts (a sort by cex_compare, a total order on distinct
 * paths, then the same trim). Takes what r owns. */
static void merge_result(topk_t *t, topk_part_result_t *r) {
  if (!t->seeded) { /* the part above the split comes first */
    t->seeded = true;
    t->seed = xcalloc(r->nkept + 1, sizeof *t->seed);
    for (size_t k = 0; k < r->nkept; k++) cex_copy(&t->seed[t->nseed++], &r->kept[k], t->m->nvars);
  }
  for (size_t k = 0; k < r->nkept; k++) {
    bool twice = false; /* a seed the part kept: the run has it already */
    for (size_t q = 0; q < t->nkept && !twice; q++) twice = cex_compare(&r->kept[k], &t->kept[q]) == 0;
    if (twice)
      cex_free(&r->kept[k]);
    else
      insert(&t->kept, &t->nkept, &r->kept[k]);
  }
  trim(t, t->kept, &t->nkept);
  t->found += r->found;
  t->found_boundary_only += r->found_boundary_only;
  t->bounded += r->bounded;
  t->unranked |= r->unranked;
  if (r->bad && !t->bad) t->bad = r->bad, r->bad = NULL;
  free(r->kept), free(r->bad);
  *r = (topk_part_result_t){0};
}

/* The part's search has ended: the ranking threads empty the queue and end. */
static void finish_ranking(topk_part_t *p) {
  if (p->nthreads == 0) return;
  pthread_mutex_lock(&p->lock);
  p->search_done = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int k = 0; k < p->nthreads; k++) pthread_join(p->threads[k], NULL);
  for (int k = 1; k < p->nthreads; k++) verify_ranker_delete(p->rankers[k]);
  p->nthreads = 0;
}

void topk_part_detach(void *part, topk_part_result_t *out) {
  topk_part_t *p = part;
  finish_ranking(p);
  *out = (topk_part_result_t){p->kept,     p->nkept, p->found,  p->found_boundary_only,
                              p->unranked, p->bad,   p->bounded};
  verify_ranker_delete(p->ranker);
  free(p->threads), free(p->rankers);
  bound_delete(p->bound);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->room);
  free(p->pending);
  free(p->classes), free(p->open_rules), free(p->open_next);
  free(p);
}

void topk_merge_part(topk_t *t, topk_part_result_t *in) { merge_result(t, in); }

void topk_part_result_free(topk_part_result_t *r) {
  for (size_t k = 0; k < r->nkept; k++) cex_free(&r->kept[k]);
  free(r->kept), free(r->bad);
  *r = (topk_part_result_t){0};
}

static void part_done(void *arg, void *part) {
  topk_part_result_t r;
  topk_part_detach(part, &r);
  merge_result(arg, &r);
}

void topk_init(topk_t *t, const ism_model_t *m, const rank_options_t *ropt, int bound, long long top,
               double min_prob, explore_topk_t *side) {
  *t = (topk_t){.m = m, .ropt = ropt, .top = top, .min_prob = min_prob};
  boundary_ctx_t *bc = ropt->mode == ISM_MODE_ACTUAL ? boundary_new(m, VERIFY_BOUNDARY_RLIMIT) : NULL;
  /* the values each rule's last sensing can have within the bound (probability/bound.h) */
  size_t n = m->nstates * m->nvars + 1;
  double *lo = xmalloc(n * sizeof *lo), *hi = xmalloc(n * sizeof *hi);
  if (bc) {
    bound_t *hull = bound_new(m);
    bound_reach(hull, bound, lo, hi);
    bound_delete(hull);
  }
  make_classes(t, bc, lo, hi);
  t->class_checks = boundary_class_checks(bc);
  free(lo), free(hi);
  boundary_delete(bc);
  *side = (explore_topk_t){t, part_new, open_rules, take, part_done, prefix_cut};
}

void topk_free(topk_t *t) {
  for (size_t k = 0; k < t->nkept; k++) cex_free(&t->kept[k]);
  for (size_t k = 0; k < t->nseed; k++) cex_free(&t->seed[k]);
  free(t->kept), free(t->seed);
  free(t->classes);
  free(t->bad);
}

void topk_finish(topk_t *t, explore_result_t *res) {
  res->cexs = t->kept;
  res->ncexs = t->nkept;
  t->kept = NULL;
  t->nkept = 0;
}
