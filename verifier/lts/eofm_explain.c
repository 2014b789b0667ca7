#include "verifier/lts/eofm_explain.h"

#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"
#include "ism/strbuf.h"
#include "ism/vec.h"
#include "verifier/lts/eofm_plan.h"

lts_t *eofm_concise(const lts_t *sys, const lts_t *raw, const int *actions, int nactions) {
  const lts_t *parts[2] = {sys, raw};
  lts_t *g = lts_compose_bounded(parts, 2, 0, stop_poll, NULL);
  if (!g) return NULL;
  lts_t *r = lts_restrict(g, actions, nactions);
  lts_free(g);
  lts_t *d = lts_determinise_bounded(r, false, 0, stop_poll, NULL);
  lts_free(r);
  if (!d) return NULL;
  lts_t *m = lts_minimise(d);
  lts_free(d);
  return m;
}

lts_t *eofm_error_budget(lts_labels_t *labels, const int *faults, int nfaults, int max) {
  lts_builder_t b;
  lts_builder_init(&b, labels);
  for (int k = 0; k <= max; k++) lts_builder_add_state(&b);
  b.init = 0;
  for (int i = 0; i < nfaults; i++) lts_builder_alphabet_add(&b, faults[i]);
  for (int k = 0; k < max; k++)
    for (int i = 0; i < nfaults; i++) lts_builder_add(&b, k, faults[i], k + 1);
  lts_t *l = lts_freeze(&b);
  lts_builder_free(&b);
  return l;
}

/* ------------------------------------------------------------ explanations */

/* The activity states the normative prefix reaches: the bookkeeping events
 * on a shortest path of sys ‖ raw ‖ T (T: the prefix over alpha, then the
 * error state), in order. Returns a fresh array of label ids. */
static int *prefix_states(const lts_t *sys, const lts_t *raw, const int *alpha, int nalpha, const int *trace,
                          int len, int *n) {
  *n = 0;
  if (len == 0) return NULL;
  lts_builder_t b;
  lts_builder_init(&b, sys->labels);
  for (int i = 0; i <= len; i++) lts_builder_add_state(&b);
  b.init = 0;
  b.error = len;
  for (int i = 0; i < nalpha; i++) lts_builder_alphabet_add(&b, alpha[i]);
  for (int i = 0; i < len; i++) lts_builder_add(&b, i, trace[i], i + 1);
  lts_t *t = lts_freeze(&b);
  lts_builder_free(&b);
  const lts_t *parts[3] = {sys, raw, t};
  lts_t *prod = lts_compose_bounded(parts, 3, 0, stop_poll, NULL);
  lts_free(t);
  int *out = NULL;
  if (prod && prod->error >= 0) { /* NULL: a stop request, the caller polls */
    lts_bfs_t bfs;
    lts_bfs(prod, &bfs);
    int plen;
    int *path = lts_bfs_trace(&bfs, prod, prod->error, &plen);
    lts_bfs_free(&bfs);
    out = xmalloc(((size_t)(plen > 0 ? plen : 0) + 1) * sizeof *out);
    for (int i = 0; i < plen; i++)
      if (eofm_is_activity_event(lts_label_name(sys->labels, path[i]))) out[(*n)++] = path[i];
    free(path);
  }
  lts_free(prod);
  return out;
}

/* The activity-state list the reference tool matches on: label names. */
typedef struct {
  const char **s;
  int n;
} states_t;

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Index of the last state of activity instance a (its name ends the event,
 * as the reference tool matches), or -1. */
static int last_state(const eofm_plan_t *p, states_t st, int a) {
  if (node_of(p, a)->kind != EOFM_ACTIVITY) return -1;
  for (int i = st.n; i-- > 0;)
    if (ends_with(st.s[i], p->inst.data[a].name)) return i;
  return -1;
}

/* The first index of the same event as st.s[i] (the reference's indexOf). */
static states_t from_first(states_t st, int i) {
  int k = 0;
  while (strcmp(st.s[k], st.s[i]) != 0) k++;
  return (states_t){st.s + k, st.n - k};
}

static bool running(const char *s) { return strncmp(s, "start_", 6) == 0 || strncmp(s, "repeat_", 7) == 0; }

typedef VEC(char *) names_t;

static void add_error(names_t *errs, const char *kind, const char *name) {
  char *e = xasprintf("%s_%s", kind, name);
  for (size_t i = 0; i < errs->len; i++)
    if (strcmp(errs->data[i], e) == 0) {
      free(e);
      return;
    }
  VEC_PUSH(errs, e);
}

/* Omissions inside a started activity: under and/ord, every child that
 * has not started or not finished. */
static void match_omissions(const eofm_plan_t *p, int a, states_t st, names_t *errs) {
  const inst_t *in = &p->inst.data[a];
  eofm_op_t op = node_of(p, a)->op;
  if (op == EOFM_ORD && node_of(p, in->kids.data[0])->kind == EOFM_ACTION) return;
  if (op != EOFM_ORD && op != EOFM_AND_SEQ && op != EOFM_AND_PAR) return;
  for (size_t i = 0; i < in->kids.len; i++) {
    int sub = in->kids.data[i];
    if (node_of(p, sub)->kind != EOFM_ACTIVITY) continue;
    int s = last_state(p, st, sub);
    if (s < 0)
      add_error(errs, "omission", p->inst.data[sub].name);
    else if (running(st.s[s])) {
      add_error(errs, "omission", p->inst.data[sub].name);
      match_omissions(p, sub, from_first(st, s), errs);
    }
  }
}

char **eofm_candidate_errors(const eofm_plan_t *p, const lts_t *sys, const lts_t *raw, const int *alpha,
                             int nalpha, const int *trace, int len, int *n) {
  names_t errs = {0};
  *n = 0;
  if (len == 0) return NULL;
  /* the activities from the action's parent up to its root */
  const char *last = lts_label_name(sys->labels, trace[len - 1]);
  int action = -1;
  for (size_t i = 0; i < p->inst.len && action < 0; i++)
    if (node_of(p, (int)i)->kind == EOFM_ACTION && node_of(p, (int)i)->haction >= 0 &&
        strcmp(p->action_labels[node_of(p, (int)i)->haction], last) == 0)
      action = (int)i;
  if (action < 0) return NULL;
  VEC(int) path = {0};
  for (int x = p->inst.data[action].parent; x >= 0; x = p->inst.data[x].parent) VEC_PUSH(&path, x);
  int nst;
  int *ids = prefix_states(sys, raw, alpha, nalpha, trace, len - 1, &nst);
  states_t st = {xmalloc(((size_t)nst + 1) * sizeof(char *)), nst};
  for (int i = 0; i < nst; i++) st.s[i] = lts_label_name(sys->labels, ids[i]);
  free(ids);
  /* commission (and repetition) on the way up, until an activity is running */
  size_t i = 0;
  for (; i < path.len; i++) {
    int s = last_state(p, st, path.data[i]);
    const char *name = p->inst.data[path.data[i]].name;
    if (s < 0 || strncmp(st.s[s], "end_", 4) == 0)
      add_error(&errs, "commission", name);
    else {
      add_error(&errs, "repetition", name);
      add_error(&errs, "commission", name);
      break;
    }
  }
  if (i == path.len) i--;
  /* omissions of the siblings that should have finished first */
  states_t sub = st;
  for (; i > 0; i--) {
    int a = path.data[i];
    int idx = last_state(p, sub, a);
    if (idx > 0) sub = (states_t){sub.s + idx, sub.n - idx};
    const inst_t *in = &p->inst.data[a];
    int nk = (int)in->kids.len;
    if (node_of(p, a)->op == EOFM_ORD) {
      int j = 0;
      for (; j < nk; j++) {
        int s = last_state(p, sub, in->kids.data[j]);
        if (s >= 0 && running(sub.s[s])) break;
      }
      int k = 0;
      while (k < nk && in->kids.data[k] != path.data[i - 1]) k++;
      if (j > k) k += nk;
      for (; j < k; j++) {
        int kid = in->kids.data[j % nk];
        int s = last_state(p, sub, kid);
        add_error(&errs, "omission", p->inst.data[kid].name);
        if (s >= 0 && running(sub.s[s])) match_omissions(p, kid, from_first(sub, s), &errs);
      }
    } else {
      for (int j = 0; j < nk; j++) {
        int kid = in->kids.data[j];
        int s = last_state(p, sub, kid);
        if (s >= 0 && running(sub.s[s])) {
          add_error(&errs, "omission", p->inst.data[kid].name);
          match_omissions(p, kid, from_first(sub, s), &errs);
        }
      }
    }
  }
  free(st.s);
  VEC_FREE(&path);
  *n = (int)errs.len;
  return errs.data;
}
