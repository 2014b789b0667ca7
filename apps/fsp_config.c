#include "apps/fsp_config.h"

#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"
#include "ism/strbuf.h"
#include "verifier/lts/aut.h"
#include "verifier/lts/fsm.h"
#include "verifier/lts/terminal.h"

void fsp_config_init(fsp_config_t *c, cli_ctx_t *ctx, const char *path) {
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  c->max_states = FSP_DEFAULT_MAX_STATES;
  arena_init(&c->arena);
  lts_labels_init(&c->labels);
  const char *slash = strrchr(path, '/');
  c->dir = slash ? arena_strndup(&c->arena, path, (size_t)(slash - path + 1)) : "";
}

void fsp_config_free(fsp_config_t *c) {
  for (size_t i = 0; i < c->files.len; i++) fsp_free(c->files.data[i]);
  VEC_FREE(&c->files);
  lts_labels_free(&c->labels);
  arena_free(&c->arena);
}

static loc_t item_loc(const ynode_t *node, size_t i) {
  return node->kind == YNODE_SEQ ? node->items[i]->loc : node->loc;
}

/* An Aldebaran (.aut) or DESops (.fsm) file: one LTS, so no process can be
 * chosen in it. */
static lts_t *load_lts_file(fsp_config_t *c, const ynode_t *node, size_t i, const char *full,
                            const char *name, bool fsm) {
  diag_list_t *d = &c->ctx->diags;
  if (name) {
    diag_error(d, item_loc(node, i), "'%s' is an .%s file, which holds one LTS: no process '%s' to choose",
               full, fsm ? "fsm" : "aut", name);
    return NULL;
  }
  size_t before = diag_error_count(d);
  bool limit = false;
  lts_t *raw = fsm ? fsm_read_file(full, &c->labels, c->max_states, &limit, d)
                   : aut_read_file(full, &c->labels, c->max_states, &limit, d);
  if (!raw && diag_error_count(d) == before) diag_error(d, item_loc(node, i), "cannot read '%s'", full);
  if (!raw && d->count > 0 && d->items[d->count - 1].loc.file == NULL)
    d->items[d->count - 1].loc = item_loc(node, i);
  if (limit) c->limit_hit = true;
  if (!raw) return NULL;
  lts_t *l = lts_reachable(raw); /* as a compiled FSP process: only what the initial state reaches */
  lts_free(raw);
  return l;
}

/* l's property error LTS (freeing l) when `how` asks for one: its subset
 * construction bounded by --max-states and the stop request, either a
 * limit error at the file's entry. */
static lts_t *as_property(fsp_config_t *c, const ynode_t *node, size_t i, const char *path, fsp_load_t how,
                          lts_t *l) {
  if (!l || !(how == FSP_LOAD_PROPERTY || (how == FSP_LOAD_PROPERTY_UNLESS_ERROR && l->error < 0))) return l;
  lts_t *p = lts_property_bounded(l, c->max_states, stop_poll, NULL);
  lts_free(l);
  if (!p) {
    c->limit_hit = true;
    if (stop_requested())
      diag_error(&c->ctx->diags, item_loc(node, i), "%s while making '%s' a property", stop_message(), path);
    else
      diag_error(&c->ctx->diags, item_loc(node, i),
                 "the property '%s' has too many states (limit %ld; raise --max-states)", path, c->max_states);
  }
  return p;
}

/* Parses one file and compiles its chosen process, or reports why not. */
static lts_t *load_one(fsp_config_t *c, const ynode_t *node, size_t i, const char *path,
                       const char *preferred, fsp_load_t how, fsp_file_t **last_file) {
  diag_list_t *d = &c->ctx->diags;
  /* FILE:NAME picks process NAME (an upper-case identifier) */
  const char *colon = strrchr(path, ':');
  if (colon && colon[1] >= 'A' && colon[1] <= 'Z' &&
      strspn(colon + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
          strlen(colon + 1)) {
    preferred = arena_strdup(&c->arena, colon + 1);
    path = arena_strndup(&c->arena, path, (size_t)(colon - path));
  } else
    colon = NULL;
  char *full = path[0] == '/' ? xstrdup(path) : xasprintf("%s%s", c->dir, path);
  size_t len = strlen(full);
  bool aut = len > 4 && strcmp(full + len - 4, ".aut") == 0,
       fsm = len > 4 && strcmp(full + len - 4, ".fsm") == 0;
  if (aut || fsm) {
    lts_t *l = load_lts_file(c, node, i, full, colon ? preferred : NULL, fsm);
    free(full);
    return as_property(c, node, i, path, how, l);
  }
  size_t before = diag_error_count(d);
  fsp_file_t *f = fsp_parse_file(full, &c->labels, d);
  if (!f && diag_error_count(d) == before) diag_error(d, item_loc(node, i), "cannot read '%s'", full);
  if (!f && d->count > 0 && d->items[d->count - 1].loc.file == NULL)
    d->items[d->count - 1].loc = item_loc(node, i);
  free(full);
  if (!f) return NULL;
  VEC_PUSH(&c->files, f);
  fsp_set_max_states(f, c->max_states);
  if (last_file) *last_file = f;
  const char *name = fsp_pick_process(f, preferred);
  if (!name) {
    diag_error(d, item_loc(node, i), "'%s' defines no process", path);
    return NULL;
  }
  if (colon && !fsp_has_process(f, preferred)) {
    diag_error(d, item_loc(node, i), "'%s' defines no process '%s' (its last one is '%s')", path, preferred,
               name);
    return NULL;
  }
  lts_t *l = fsp_compile(f, name, d);
  if (!l && fsp_limit_reached(f)) c->limit_hit = true;
  return as_property(c, node, i, path, how, l);
}

lts_t *fsp_config_load(fsp_config_t *c, const ynode_t *node, const char *what, const char *preferred,
                       fsp_load_t how, const char **names, fsp_file_t **last_file) {
  const char **paths;
  size_t n;
  if (!ydoc_string_list(node, &c->arena, &paths, &n, what, &c->ctx->diags)) return NULL;
  if (stop_requested()) { /* the run is stopping: the loads that gave up said so */
    c->limit_hit = true;
    return NULL;
  }
  if (n == 0) {
    diag_error(&c->ctx->diags, node->loc, "%s names no file", what);
    return NULL;
  }
  VEC(lts_t *) parts = {0};
  strbuf_t sb;
  strbuf_init(&sb);
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    lts_t *l = load_one(c, node, i, paths[i], preferred, how, last_file);
    if (!l) {
      ok = false;
      continue;
    }
    VEC_PUSH(&parts, l);
    strbuf_printf(&sb, "%s%s", i ? ", " : "", paths[i]);
  }
  lts_t *result = NULL;
  if (ok && parts.len == 1)
    result = parts.data[0];
  else if (ok) {
    result = lts_compose_max((const lts_t *const *)parts.data, (int)parts.len, c->max_states, c->max_states);
    if (!result) {
      c->limit_hit = true;
      if (stop_requested())
        diag_error(&c->ctx->diags, node->loc, "%s while composing %s", stop_message(), what);
      else
        diag_error(&c->ctx->diags, node->loc,
                   "the composition of %s has more than %ld states or transitions (raise --max-states)", what,
                   c->max_states);
    }
  }
  for (size_t i = 0; i < parts.len; i++)
    if (parts.data[i] != result) lts_free(parts.data[i]);
  VEC_FREE(&parts);
  if (names) *names = arena_strdup(&c->arena, strbuf_str(&sb));
  strbuf_free(&sb);
  return result;
}

/* The label ids of `names` (-1 for a name no LTS of the run uses). */
static int *label_ids(const lts_labels_t *labels, const char *const *names, size_t n) {
  int *ids = xmalloc((n + 1) * sizeof *ids);
  for (size_t i = 0; i < n; i++) ids[i] = lts_label_find(labels, names[i]);
  return ids;
}

static bool same_loc(loc_t a, loc_t b) {
  return a.line == b.line && a.col == b.col && a.file && b.file && strcmp(a.file, b.file) == 0;
}

size_t fsp_config_progress_count(const fsp_config_t *c, size_t nfiles) {
  size_t count = 0;
  for (size_t fi = 0; fi < nfiles && fi < c->files.len; fi++) count += fsp_progress_count(c->files.data[fi]);
  return count;
}

bool fsp_config_progress(fsp_config_t *c, size_t nfiles, const lts_t *const *parts, int nparts, loc_t loc,
                         bool default_check, fsp_progress_result_t **out, size_t *n) {
  *out = NULL;
  *n = 0;
  bool declared = fsp_config_progress_count(c, nfiles) > 0;
  if (!declared && !default_check) return true;
  lts_t *system = lts_compose_max(parts, nparts, c->max_states, c->max_states);
  if (!system) {
    diag_error(&c->ctx->diags, loc,
               "checking progress: the system composed with its environment has more than %ld states or "
               "transitions (raise --max-states)",
               c->max_states);
    c->limit_hit = true;
    return false;
  }
  VEC(fsp_progress_result_t) res = {0};
  VEC(loc_t) seen = {0};
  terminal_sets_t t = {0};
  lts_bfs_t bfs = {0};
  bool ready = false;
  if (!declared) { /* LTSA's default: every action in every terminal set */
    terminal_sets(system, &t);
    lts_bfs(system, &bfs);
    ready = true;
    fsp_progress_result_t r = {.name = "default", .is_default = true, .loc = loc};
    int k = terminal_default_violation(system, &t, &r.missing, &r.nmissing);
    r.holds = k < 0;
    if (k >= 0) {
      r.trace = lts_bfs_trace(&bfs, system, t.first[k], &r.len);
      r.actions = terminal_actions(system, &t, k, &r.nactions);
    }
    VEC_PUSH(&res, r);
  }
  for (size_t fi = 0; declared && fi < nfiles && fi < c->files.len; fi++)
    for (size_t pi = 0; pi < fsp_progress_count(c->files.data[fi]); pi++) {
      const fsp_progress_t *p = fsp_progress_at(c->files.data[fi], pi);
      bool dup = false;
      for (size_t k = 0; k < seen.len; k++)
        if (same_loc(seen.data[k], p->loc) && strcmp(res.data[k].name, p->name) == 0) dup = true;
      if (dup) continue;
      if (!ready) {
        terminal_sets(system, &t);
        lts_bfs(system, &bfs);
        ready = true;
      }
      int *acts = label_ids(&c->labels, p->actions, p->nactions);
      int *cond = p->cond ? label_ids(&c->labels, p->cond, p->ncond) : NULL;
      int k = terminal_progress_violation(system, &t, acts, (int)p->nactions, cond, (int)p->ncond,
                                          p->cond != NULL);
      free(acts);
      free(cond);
      fsp_progress_result_t r = {.name = p->name, .holds = k < 0, .loc = p->loc};
      if (k >= 0) {
        r.trace = lts_bfs_trace(&bfs, system, t.first[k], &r.len);
        r.actions = terminal_actions(system, &t, k, &r.nactions);
      }
      VEC_PUSH(&res, r);
      VEC_PUSH(&seen, p->loc);
    }
  if (ready) {
    terminal_sets_free(&t);
    lts_bfs_free(&bfs);
  }
  VEC_FREE(&seen);
  lts_free(system);
  *out = res.data;
  *n = res.len;
  return true;
}

void fsp_progress_results_free(fsp_progress_result_t *results, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(results[i].trace);
    free(results[i].actions);
    free(results[i].missing);
  }
  free(results);
}
