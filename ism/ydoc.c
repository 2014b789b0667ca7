#include "ism/ydoc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "ism/number.h"
#include "ism/intern.h"
#include "ism/vec.h"

typedef struct {
  yaml_parser_t parser;
  const char *file; /* registered path */
  arena_t *arena;
  diag_list_t *diags;
  intern_t anchor_names;  /* anchor name -> id */
  VEC(ynode_t *) anchors; /* [id]: the node it names last */
  int depth;              /* of the collection being read, at most YDOC_MAX_DEPTH */
  size_t nodes;           /* nodes read plus nodes reached through aliases, at most YDOC_MAX_NODES */
  bool failed;
} loader_t;

static loc_t mark_loc(const loader_t *l, yaml_mark_t m) {
  return (loc_t){l->file, (int)m.line + 1, (int)m.column + 1};
}

static void parser_error(loader_t *l) {
  if (l->failed) return;
  l->failed = true;
  const yaml_parser_t *p = &l->parser;
  yaml_mark_t m = p->problem_mark;
  if (p->error == YAML_READER_ERROR) m = (yaml_mark_t){p->problem_offset, 0, 0};
  const char *problem = p->problem ? p->problem : "malformed YAML";
  if (!p->context) {
    diag_error(l->diags, mark_loc(l, m), "YAML syntax error: %s", problem);
    return;
  }
  diag_error(l->diags, mark_loc(l, m), "YAML syntax error: %s %s", problem, p->context);
  /* libyaml notices an unclosed bracket only where the next token is: point
   * at the construct it was parsing too. */
  const char *prefix = "while parsing ";
  yaml_mark_t c = p->context_mark;
  if (c.line != m.line && strncmp(p->context, prefix, strlen(prefix)) == 0)
    diag_note(l->diags, mark_loc(l, c), "%s started here", p->context + strlen(prefix));
}

static bool next_event(loader_t *l, yaml_event_t *ev) {
  if (yaml_parser_parse(&l->parser, ev)) return true;
  parser_error(l);
  return false;
}

static ynode_t *new_node(loader_t *l, ynode_kind_t kind, yaml_mark_t m) {
  ynode_t *n = arena_alloc(l->arena, sizeof *n);
  n->kind = kind;
  n->loc = mark_loc(l, m);
  return n;
}

static void remember_anchor(loader_t *l, const yaml_char_t *anchor, ynode_t *n) {
  if (!anchor) return;
  int id = intern_add(&l->anchor_names, (const char *)anchor);
  if ((size_t)id == l->anchors.len) VEC_PUSH(&l->anchors, n);
  l->anchors.data[id] = n;
}

/* Counts n (of `weight` nodes) against YDOC_MAX_NODES; false after reporting. */
static bool count_nodes(loader_t *l, size_t weight, yaml_mark_t at) {
  l->nodes += weight;
  if (l->nodes <= YDOC_MAX_NODES) return true;
  if (!l->failed)
    diag_error(l->diags, mark_loc(l, at),
               "the document has more than %d nodes (counting each use of an alias)", YDOC_MAX_NODES);
  l->failed = true;
  return false;
}

static ynode_t *parse_node(loader_t *l, yaml_event_t *ev);

/* Reads items or key/value pairs until the closing event. */
static ynode_t *parse_collection(loader_t *l, ynode_t *n, yaml_event_type_t end, yaml_mark_t at) {
  if (++l->depth > YDOC_MAX_DEPTH) {
    diag_error(l->diags, mark_loc(l, at), "YAML nested more than %d levels deep", YDOC_MAX_DEPTH);
    l->failed = true;
    return NULL;
  }
  VEC(ynode_t *) items = {0};
  VEC(ynode_t *) keys = {0};
  intern_t key_names; /* key text -> index in keys */
  intern_init(&key_names);
  bool is_map = n->kind == YNODE_MAP;
  n->weight = 1;
  for (;;) {
    yaml_event_t ev;
    if (!next_event(l, &ev)) break;
    if (ev.type == end) {
      yaml_event_delete(&ev);
      break;
    }
    ynode_t *item = parse_node(l, &ev);
    if (!item) break;
    n->weight += item->weight;
    if (!is_map) {
      VEC_PUSH(&items, item);
      continue;
    }
    yaml_event_t vev;
    if (!next_event(l, &vev)) break;
    ynode_t *value = parse_node(l, &vev);
    if (!value) break;
    n->weight += value->weight;
    if (item->kind != YNODE_SCALAR) {
      diag_error(l->diags, item->loc, "mapping keys must be plain names");
      continue;
    }
    bool added;
    int first = intern_add2(&key_names, item->text, &added);
    if (!added) {
      diag_error(l->diags, item->loc, "duplicate key '%s' (first defined at line %d)", item->text,
                 keys.data[first]->loc.line);
      continue;
    }
    VEC_PUSH(&keys, item);
    VEC_PUSH(&items, value);
  }
  n->len = items.len;
  n->items = arena_alloc(l->arena, (items.len + 1) * sizeof *n->items);
  if (items.len) memcpy(n->items, items.data, items.len * sizeof *n->items);
  if (is_map) {
    n->keys = arena_alloc(l->arena, (keys.len + 1) * sizeof *n->keys);
    if (keys.len) memcpy(n->keys, keys.data, keys.len * sizeof *n->keys);
  }
  VEC_FREE(&items);
  VEC_FREE(&keys);
  intern_free(&key_names);
  l->depth--;
  return l->failed ? NULL : n;
}

/* Consumes the node that starts with *ev (which it deletes). */
static ynode_t *parse_node(loader_t *l, yaml_event_t *ev) {
  ynode_t *n = NULL;
  yaml_mark_t n_mark = ev->start_mark;
  switch (ev->type) {
  case YAML_SCALAR_EVENT: {
    yaml_mark_t m = ev->start_mark;
    yaml_scalar_style_t style = ev->data.scalar.style;
    if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE || style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) m.column++;
    n = new_node(l, YNODE_SCALAR, m);
    n->text = arena_strndup(l->arena, (const char *)ev->data.scalar.value, ev->data.scalar.length);
    n->weight = 1;
    count_nodes(l, 1, ev->start_mark);
    n->plain = style == YAML_PLAIN_SCALAR_STYLE;
    if (style == YAML_LITERAL_SCALAR_STYLE || style == YAML_FOLDED_SCALAR_STYLE) n->loc.line++, n->loc.col = 1;
    remember_anchor(l, ev->data.scalar.anchor, n);
    break;
  }
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    /* The anchor names the node once it is complete: an alias inside it is
     * undefined, so the tree has no cycle. */
    bool seq = ev->type == YAML_SEQUENCE_START_EVENT;
    n = new_node(l, seq ? YNODE_SEQ : YNODE_MAP, n_mark);
    const yaml_char_t *a = seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor;
    char *anchor = a ? xstrdup((const char *)a) : NULL;
    yaml_event_delete(ev);
    count_nodes(l, 1, n_mark);
    n = parse_collection(l, n, seq ? YAML_SEQUENCE_END_EVENT : YAML_MAPPING_END_EVENT, n_mark);
    if (n) remember_anchor(l, (const yaml_char_t *)anchor, n);
    free(anchor);
    return n;
  }
  case YAML_ALIAS_EVENT: {
    /* An alias is the node it names, shared; readers walk it once per use,
     * so each use counts all its nodes. */
    int id = intern_find(&l->anchor_names, (const char *)ev->data.alias.anchor);
    const char *name = (const char *)ev->data.alias.anchor;
    if (id >= 0) {
      n = l->anchors.data[id];
      if (!count_nodes(l, n->weight, ev->start_mark)) n = NULL;
    } else {
      diag_error(l->diags, mark_loc(l, ev->start_mark), "undefined YAML alias '*%s'", name);
      l->failed = true;
    }
    break;
  }
  default:
    diag_error(l->diags, mark_loc(l, ev->start_mark), "unexpected YAML event");
    l->failed = true;
    break;
  }
  yaml_event_delete(ev);
  return n;
}

ynode_t *ydoc_load_string(const char *name, const char *text, arena_t *arena, diag_list_t *diags) {
  loader_t l = {.arena = arena, .diags = diags};
  intern_init(&l.anchor_names);
  l.file = diag_add_source(diags, name, text);
  if (!yaml_parser_initialize(&l.parser)) {
    diag_error(diags, (loc_t){l.file, 0, 0}, "cannot initialise the YAML parser");
    return NULL;
  }
  yaml_parser_set_input_string(&l.parser, (const unsigned char *)text, strlen(text));
  ynode_t *root = NULL;
  yaml_event_t ev;
  bool in_doc = false;
  while (!l.failed && next_event(&l, &ev)) {
    yaml_event_type_t type = ev.type;
    if (type == YAML_STREAM_END_EVENT) {
      yaml_event_delete(&ev);
      break;
    }
    if (type == YAML_DOCUMENT_START_EVENT) {
      if (root) {
        diag_error(diags, mark_loc(&l, ev.start_mark), "only one YAML document per file is allowed");
        yaml_event_delete(&ev);
        break;
      }
      in_doc = true;
      yaml_event_delete(&ev);
    } else if (type == YAML_STREAM_START_EVENT || type == YAML_DOCUMENT_END_EVENT) {
      yaml_event_delete(&ev);
    } else if (in_doc && !root) {
      root = parse_node(&l, &ev);
    } else {
      yaml_event_delete(&ev);
    }
  }
  yaml_parser_delete(&l.parser);
  /* No YAML structure at all (a syntax error before the first node, or one
   * plain text scalar): perhaps a file named by mistake, whose content the
   * diagnostics should not repeat. */
  if ((l.failed && l.nodes == 0) || (root && root->kind == YNODE_SCALAR)) diag_source_conceal(diags, l.file);
  VEC_FREE(&l.anchors);
  intern_free(&l.anchor_names);
  if (l.failed) return NULL;
  if (!root || (root->kind == YNODE_SCALAR && ydoc_is_null(root))) {
    diag_error(diags, (loc_t){l.file, 1, 1}, "the file is empty");
    return NULL;
  }
  return root;
}

ynode_t *ydoc_load_file(const char *path, arena_t *arena, diag_list_t *diags) {
  const char *registered = NULL;
  const char *text = diag_read_file(diags, path, (loc_t){path, 0, 0}, &registered);
  if (!text) return NULL;
  return ydoc_load_string(registered, text, arena, diags);
}

ynode_t *ydoc_get(const ynode_t *map, const char *key) {
  if (!map || map->kind != YNODE_MAP) return NULL;
  for (size_t i = 0; i < map->len; i++)
    if (strcmp(map->keys[i]->text, key) == 0) return map->items[i];
  return NULL;
}

ynode_t *ydoc_require(const ynode_t *map, const char *key, const char *what, diag_list_t *diags) {
  ynode_t *n = ydoc_get(map, key);
  if (!n && map) diag_error(diags, map->loc, "missing required key '%s' in %s", key, what);
  return n;
}

bool ydoc_check_keys(const ynode_t *map, const char *const *allowed, size_t nallowed, const char *what,
                     diag_list_t *diags) {
  if (!map || map->kind != YNODE_MAP) return true;
  bool ok = true;
  for (size_t i = 0; i < map->len; i++) {
    const char *key = map->keys[i]->text;
    bool known = false;
    for (size_t j = 0; j < nallowed && !known; j++) known = strcmp(key, allowed[j]) == 0;
    if (known) continue;
    ok = false;
    const char *best = diag_suggest(key, allowed, nallowed);
    if (best)
      diag_error(diags, map->keys[i]->loc, "unknown key '%s' in %s (did you mean '%s'?)", key, what, best);
    else
      diag_error(diags, map->keys[i]->loc, "unknown key '%s' in %s", key, what);
  }
  return ok;
}

static const char *kind_name(ynode_kind_t k) {
  return k == YNODE_MAP ? "a mapping" : k == YNODE_SEQ ? "a list" : "a single value";
}

bool ydoc_expect_kind(const ynode_t *n, ynode_kind_t kind, const char *what, diag_list_t *diags) {
  if (n->kind == kind) return true;
  diag_error(diags, n->loc, "%s must be %s, not %s", what, kind_name(kind), kind_name(n->kind));
  return false;
}

bool ydoc_is_null(const ynode_t *n) {
  return n && n->kind == YNODE_SCALAR && n->plain &&
         (n->text[0] == '\0' || strcmp(n->text, "~") == 0 || strcasecmp(n->text, "null") == 0);
}

bool ydoc_string(const ynode_t *n, const char **out, const char *what, diag_list_t *diags) {
  if (!ydoc_expect_kind(n, YNODE_SCALAR, what, diags)) return false;
  *out = n->text;
  return true;
}

bool ydoc_number(const ynode_t *n, double *out, const char *what, diag_list_t *diags) {
  if (n->kind == YNODE_SCALAR) {
    char why[128];
    double v;
    if (!number_syntax(n->text, false)) {
      diag_error(diags, n->loc, "%s must be a number", what);
      return false;
    }
    if (number_in_range(n->text, &v, why, sizeof why)) {
      *out = v;
      return true;
    }
    diag_error(diags, n->loc, "%s '%s' is out of range: %s", what, n->text, why);
    return false;
  }
  diag_error(diags, n->loc, "%s must be a number", what);
  return false;
}

bool ydoc_int(const ynode_t *n, long long *out, const char *what, diag_list_t *diags) {
  if (n->kind == YNODE_SCALAR) {
    errno = 0;
    long long v = number_syntax(n->text, true) ? strtoll(n->text, NULL, 10) : 0;
    if (number_syntax(n->text, true) && errno == 0) {
      *out = v;
      return true;
    }
  }
  diag_error(diags, n->loc, "%s must be an integer", what);
  return false;
}

bool ydoc_bool(const ynode_t *n, bool *out, const char *what, diag_list_t *diags) {
  if (n->kind == YNODE_SCALAR) {
    if (strcmp(n->text, "true") == 0 || strcmp(n->text, "yes") == 0) return *out = true, true;
    if (strcmp(n->text, "false") == 0 || strcmp(n->text, "no") == 0) return *out = false, true;
  }
  diag_error(diags, n->loc, "%s must be true or false", what);
  return false;
}

bool ydoc_string_list(const ynode_t *n, arena_t *arena, const char ***out, size_t *count, const char *what,
                      diag_list_t *diags) {
  if (n->kind == YNODE_SCALAR) {
    *out = arena_alloc(arena, sizeof **out);
    (*out)[0] = n->text;
    *count = 1;
    return true;
  }
  if (!ydoc_expect_kind(n, YNODE_SEQ, what, diags)) return false;
  bool ok = true;
  *out = arena_alloc(arena, (n->len + 1) * sizeof **out);
  for (size_t i = 0; i < n->len; i++) ok &= ydoc_string(n->items[i], &(*out)[i], what, diags);
  *count = n->len;
  return ok;
}
