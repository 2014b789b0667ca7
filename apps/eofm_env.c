#include "apps/eofm_env.h"

#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"
#include "ism/strbuf.h"
#include "ism/vec.h"

static const char *const env_keys[] = {"eofm", "initial", "world", "relabels", "max_errors", "max_states"};

bool eofm_env_is(const ynode_t *node) { return node && node->kind == YNODE_MAP; }

/* A mapping of scalars to scalars as pairs located at their keys. */
static bool read_pairs(fsp_config_t *c, const ynode_t *n, const char *what, const eofm_pair_t **out,
                       size_t *count) {
  *out = NULL, *count = 0;
  if (!n) return true;
  if (!ydoc_expect_kind(n, YNODE_MAP, what, &c->ctx->diags)) return false;
  eofm_pair_t *pairs = arena_alloc(&c->arena, (n->len + 1) * sizeof *pairs);
  bool ok = true;
  for (size_t i = 0; i < n->len; i++) {
    const char *v;
    if (!ydoc_string(n->items[i], &v, what, &c->ctx->diags)) {
      ok = false;
      continue;
    }
    pairs[(*count)++] = (eofm_pair_t){n->keys[i]->text, v, n->keys[i]->loc};
  }
  *out = pairs;
  return ok;
}

static bool read_world(fsp_config_t *c, const ynode_t *n, eofm_world_t *w) {
  if (!n) return true;
  const char **rules;
  size_t count;
  if (!ydoc_string_list(n, &c->arena, &rules, &count, "'world'", &c->ctx->diags)) return false;
  loc_t *locs = arena_alloc(&c->arena, (count + 1) * sizeof *locs);
  for (size_t i = 0; i < count; i++) locs[i] = n->kind == YNODE_SEQ ? n->items[i]->loc : n->loc;
  w->world = rules, w->world_locs = locs, w->nworld = count;
  return true;
}

lts_t *eofm_env_load(fsp_config_t *c, const ynode_t *node, const lts_t *sys, eofm_env_t *out) {
  diag_list_t *d = &c->ctx->diags;
  memset(out, 0, sizeof *out);
  out->max_errors = -1;
  out->max_states = EOFM_ENV_MAX_STATES;
  size_t before = diag_error_count(d);
  ydoc_check_keys(node, env_keys, sizeof env_keys / sizeof *env_keys, "an EOFM environment", d);
  const ynode_t *n_file = ydoc_require(node, "eofm", "an EOFM environment", d);
  const ynode_t *n_max = ydoc_get(node, "max_errors");
  bool ok = n_file && ydoc_string(n_file, &out->file, "'eofm'", d);
  ok &= read_pairs(c, ydoc_get(node, "initial"), "'initial'", &out->world.initial, &out->world.ninitial);
  ok &= read_pairs(c, ydoc_get(node, "relabels"), "'relabels'", &out->world.relabels, &out->world.nrelabels);
  ok &= read_world(c, ydoc_get(node, "world"), &out->world);
  if (n_max) {
    long long v;
    if (!ydoc_int(n_max, &v, "'max_errors'", d))
      ok = false;
    else if (v < 0 || v > 1000) {
      diag_error(d, n_max->loc, "'max_errors' must be between 0 and 1000");
      ok = false;
    } else
      out->max_errors = (int)v;
  }
  const ynode_t *n_states = ydoc_get(node, "max_states");
  if (n_states) {
    long long v;
    if (!ydoc_int(n_states, &v, "'max_states'", d))
      ok = false;
    else if (v < 1 || v > 100000000) {
      diag_error(d, n_states->loc, "'max_states' must be between 1 and 100000000");
      ok = false;
    } else
      out->max_states = (int)v;
  }
  if (n_file) out->budget_loc = n_states ? n_states->loc : n_file->loc;
  if (!ok || !sys) return NULL;
  char *full = out->file[0] == '/' ? xstrdup(out->file) : xasprintf("%s%s", c->dir, out->file);
  size_t errors_before_read = diag_error_count(d);
  out->model = eofm_parse_file(full, d);
  free(full);
  if (!out->model && diag_error_count(d) == errors_before_read)
    diag_error(d, n_file->loc, "cannot read '%s'", out->file);
  if (!out->model && d->count > 0 && d->items[d->count - 1].loc.file == NULL)
    d->items[d->count - 1].loc = n_file->loc;
  if (!out->model) return NULL;
  out->plan = eofm_plan_new(out->model, &out->world, d);
  if (!out->plan || diag_error_count(d) != before) return NULL;
  out->raw = eofm_translate(out->plan, NULL, &c->labels, out->max_states, &out->exceeded, d);
  if (out->exceeded)
    diag_error(d, out->budget_loc, "the translated task model has more than %d states (raise max_states)",
               out->max_states);
  if (!out->raw) return NULL;
  int nactions;
  int *actions = eofm_plan_actions(out->plan, &c->labels, &nactions);
  lts_t *concise = eofm_concise(sys, out->raw, actions, nactions);
  free(actions);
  return concise;
}

static int cmp_name(const void *a, const void *b, void *labels) {
  return strcmp(lts_label_name(labels, *(const int *)a), lts_label_name(labels, *(const int *)b));
}

/* Sorts label ids by name (insertion sort: a handful of faults). */
static void sort_by_name(const lts_labels_t *labels, int *l, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && cmp_name(&l[j - 1], &l[j], (void *)labels) > 0; j--) {
      int t = l[j];
      l[j] = l[j - 1], l[j - 1] = t;
    }
}

/* The deviation model for one trace: the errors in `only` (all when n is
 * 0), bookkeeping hidden, at most max_errors errors. *faults gets the error
 * labels sorted by name. */
static lts_t *deviation(eofm_env_t *e, lts_labels_t *labels, char **only, int n, int **faults, int *nfaults,
                        diag_list_t *diags) {
  eofm_errors_t errs = {true, (const char *const *)only, (size_t)n};
  bool exceeded;
  lts_t *dev = eofm_translate(e->plan, &errs, labels, e->max_states, &exceeded, diags);
  if (exceeded && !e->exceeded)
    diag_error(diags, e->budget_loc,
               "a deviation model of the task has more than %d states (raise max_states)", e->max_states);
  e->exceeded |= exceeded;
  if (!dev) return NULL;
  VEC(int) hide = {0};
  *faults = xmalloc(((size_t)dev->nalphabet + 1) * sizeof **faults);
  *nfaults = 0;
  for (int i = 0; i < dev->nalphabet; i++) {
    const char *name = lts_label_name(labels, dev->alphabet[i]);
    if (eofm_is_helper(name)) VEC_PUSH(&hide, dev->alphabet[i]);
    if (eofm_is_error(name)) (*faults)[(*nfaults)++] = dev->alphabet[i];
  }
  lts_t *hidden = lts_hide(dev, hide.data, (int)hide.len);
  lts_free(dev);
  VEC_FREE(&hide);
  if (e->max_errors >= 0) {
    lts_t *budget = eofm_error_budget(labels, *faults, *nfaults, e->max_errors);
    const lts_t *parts[2] = {hidden, budget};
    lts_t *bounded = lts_compose_bounded(parts, 2, 0, stop_poll, NULL);
    lts_free(budget);
    lts_free(hidden);
    hidden = bounded; /* NULL at a stop request: no explanation */
  }
  sort_by_name(labels, *faults, *nfaults);
  return hidden;
}

void eofm_env_explain(eofm_env_t *e, const lts_t *sys, const int *alpha, int nalpha, robust_traces_t *t,
                      diag_list_t *diags) {
  for (int i = 0; i < t->ntraces && !stop_requested(); i++) {
    robust_trace_t *rt = &t->traces[i];
    int n;
    char **only = eofm_candidate_errors(e->plan, sys, e->raw, alpha, nalpha, rt->trace, rt->len, &n);
    int *faults = NULL, nfaults = 0;
    lts_t *dev = deviation(e, sys->labels, only, n, &faults, &nfaults, diags);
    if (dev) {
      robust_traces_t one = {rt, 1};
      robust_explain(sys, dev, alpha, nalpha, faults, nfaults, &one);
    }
    lts_free(dev);
    free(faults);
    for (int k = 0; k < n; k++) free(only[k]);
    free(only);
  }
}

void eofm_env_free(eofm_env_t *e) {
  lts_free(e->raw);
  eofm_plan_delete(e->plan);
  eofm_free(e->model);
  memset(e, 0, sizeof *e);
}
