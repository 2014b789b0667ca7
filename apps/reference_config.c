#include "apps/reference_config.h"

#include <string.h>
#include <sys/stat.h>

#include "ism/strbuf.h"

static const char *const keys[] = {"mode", "sys", "env", "prop", "deviation", "eofm"};
static const char *const eofm_keys[] = {"initialValues", "world", "relabels"};

bool reference_config_is(const ynode_t *root) {
  return root && root->kind == YNODE_MAP && ydoc_get(root, "mode");
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* A scalar node holding `path` resolved as the reference tool's working
 * directory would: "../" repeated until the file exists (at most as many
 * times as the config's directory has components). */
static ynode_t *path_node(fsp_config_t *c, const ynode_t *n, const char *what) {
  const char *text;
  if (!ydoc_string(n, &text, what, &c->ctx->diags)) return NULL;
  ynode_t *out = arena_alloc(&c->arena, sizeof *out);
  *out = *n;
  if (text[0] == '/') return out;
  size_t depth = 0;
  for (const char *s = c->dir; *s; s++) depth += *s == '/';
  strbuf_t sb;
  strbuf_init(&sb);
  for (size_t up = 0; up <= depth; up++) {
    strbuf_clear(&sb);
    for (size_t k = 0; k < up; k++) strbuf_puts(&sb, "../");
    strbuf_puts(&sb, text);
    char *full = xasprintf("%s%s", c->dir, strbuf_str(&sb));
    bool found = exists(full);
    free(full);
    if (found) {
      out->text = arena_strdup(&c->arena, strbuf_str(&sb));
      break;
    }
  }
  strbuf_free(&sb);
  return out;
}

static ynode_t *map_node(fsp_config_t *c, loc_t loc, size_t cap) {
  ynode_t *m = arena_alloc(&c->arena, sizeof *m);
  memset(m, 0, sizeof *m);
  m->kind = YNODE_MAP, m->loc = loc;
  m->keys = arena_alloc(&c->arena, (cap + 1) * sizeof *m->keys);
  m->items = arena_alloc(&c->arena, (cap + 1) * sizeof *m->items);
  return m;
}

static void put(fsp_config_t *c, ynode_t *m, const char *key, ynode_t *value) {
  ynode_t *k = arena_alloc(&c->arena, sizeof *k);
  memset(k, 0, sizeof *k);
  k->kind = YNODE_SCALAR, k->loc = value->loc, k->text = key;
  m->keys[m->len] = k;
  m->items[m->len++] = value;
}

ynode_t *reference_config_translate(fsp_config_t *c, const ynode_t *root) {
  diag_list_t *d = &c->ctx->diags;
  bool ok = ydoc_check_keys(root, keys, sizeof keys / sizeof *keys, "an LTSA-Robust config", d);
  const ynode_t *n_mode = ydoc_get(root, "mode");
  const char *mode = NULL;
  if (!ydoc_string(n_mode, &mode, "'mode'", d)) return NULL;
  bool eofm = strcmp(mode, "eofm") == 0;
  if (!eofm && strcmp(mode, "fsp") != 0) {
    diag_error(d, n_mode->loc, "unknown mode '%s' (fsp or eofm)", mode);
    return NULL;
  }
  const ynode_t *n_sys = ydoc_require(root, "sys", "an LTSA-Robust config", d);
  const ynode_t *n_env = ydoc_require(root, "env", "an LTSA-Robust config", d);
  const ynode_t *n_prop = ydoc_require(root, "prop", "an LTSA-Robust config", d);
  const ynode_t *n_dev = ydoc_get(root, "deviation");
  const ynode_t *n_eofm = eofm ? ydoc_require(root, "eofm", "an LTSA-Robust config in mode eofm", d) : NULL;
  if (!eofm && ydoc_get(root, "eofm")) {
    diag_error(d, ydoc_get(root, "eofm")->loc, "'eofm' belongs to mode eofm");
    ok = false;
  }
  if (n_eofm && (!ydoc_expect_kind(n_eofm, YNODE_MAP, "'eofm'", d) ||
                 !ydoc_check_keys(n_eofm, eofm_keys, 3, "'eofm'", d)))
    ok = false;
  if (!ok || !n_sys || !n_env || !n_prop || (eofm && !n_eofm)) return NULL;
  ynode_t *out = map_node(c, root->loc, 5);
  ynode_t *sys = path_node(c, n_sys, "'sys'"), *env = path_node(c, n_env, "'env'"),
          *prop = path_node(c, n_prop, "'prop'");
  ynode_t *dev = n_dev ? path_node(c, n_dev, "'deviation'") : NULL;
  if (!sys || !env || !prop || (n_dev && !dev)) return NULL;
  put(c, out, "system", sys);
  put(c, out, "property", prop);
  if (dev) put(c, out, "deviation", dev);
  if (!eofm) {
    put(c, out, "environment", env);
    return out;
  }
  ynode_t *human = map_node(c, n_env->loc, 4);
  put(c, human, "eofm", env);
  static const char *const from[] = {"initialValues", "world", "relabels"}, *const to[] = {"initial", "world",
                                                                                           "relabels"};
  for (size_t i = 0; i < 3; i++) {
    ynode_t *v = ydoc_get(n_eofm, from[i]);
    if (v) put(c, human, to[i], v);
  }
  put(c, out, "environment", human);
  return out;
}
