#include "apps/fsp_config.h"

#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"

void fsp_config_init(fsp_config_t *c, cli_ctx_t *ctx, const char *path) {
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
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

static loc_t item_loc(const ynode_t *node, size_t i) { return node->kind == YNODE_SEQ ? node->items[i]->loc : node->loc; }

/* Parses one file and compiles its chosen process, or reports why not. */
static lts_t *load_one(fsp_config_t *c, const ynode_t *node, size_t i, const char *path, const char *preferred,
                       bool property, fsp_file_t **last_file) {
  diag_list_t *d = &c->ctx->diags;
  char *full = path[0] == '/' ? xstrdup(path) : xasprintf("%s%s", c->dir, path);
  size_t before = d->errors;
  fsp_file_t *f = fsp_parse_file(full, &c->labels, d);
  if (!f && d->errors == before) diag_error(d, item_loc(node, i), "cannot read '%s'", full);
  if (!f && d->count > 0 && d->items[d->count - 1].loc.file == NULL) d->items[d->count - 1].loc = item_loc(node, i);
  free(full);
  if (!f) return NULL;
  VEC_PUSH(&c->files, f);
  if (last_file) *last_file = f;
  const char *name = fsp_pick_process(f, preferred);
  if (!name) {
    diag_error(d, item_loc(node, i), "'%s' defines no process", path);
    return NULL;
  }
  lts_t *l = fsp_compile(f, name, d);
  if (l && property) {
    lts_t *p = lts_property(l);
    lts_free(l);
    l = p;
  }
  return l;
}

lts_t *fsp_config_load(fsp_config_t *c, const ynode_t *node, const char *what, const char *preferred, bool property,
                       const char **names, fsp_file_t **last_file) {
  const char **paths;
  size_t n;
  if (!ydoc_string_list(node, &c->arena, &paths, &n, what, &c->ctx->diags)) return NULL;
  if (n == 0) {
    diag_error(&c->ctx->diags, node->loc, "%s names no file", what);
    return NULL;
  }
  VEC(lts_t *) parts = {0};
  strbuf_t sb;
  strbuf_init(&sb);
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    lts_t *l = load_one(c, node, i, paths[i], preferred, property, last_file);
    if (!l) {
      ok = false;
      continue;
    }
    VEC_PUSH(&parts, l);
    strbuf_printf(&sb, "%s%s", i ? ", " : "", paths[i]);
  }
  lts_t *result = NULL;
  if (ok && parts.len == 1) result = parts.data[0];
  else if (ok) result = lts_compose((const lts_t *const *)parts.data, (int)parts.len);
  for (size_t i = 0; i < parts.len; i++)
    if (parts.data[i] != result) lts_free(parts.data[i]);
  VEC_FREE(&parts);
  if (names) *names = arena_strdup(&c->arena, strbuf_str(&sb));
  strbuf_free(&sb);
  return result;
}
