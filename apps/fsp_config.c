#include "apps/fsp_config.h"

#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"
#include "ism/strbuf.h"

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
  size_t before = d->errors;
  fsp_file_t *f = fsp_parse_file(full, &c->labels, d);
  if (!f && d->errors == before) diag_error(d, item_loc(node, i), "cannot read '%s'", full);
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
  if (l && (how == FSP_LOAD_PROPERTY || (how == FSP_LOAD_PROPERTY_UNLESS_ERROR && l->error < 0))) {
    lts_t *p = lts_property(l);
    lts_free(l);
    l = p;
  }
  return l;
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
