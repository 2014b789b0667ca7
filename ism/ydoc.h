/* YAML documents as trees of located nodes. Only this module's .c file
 * includes <yaml.h>. Duplicate mapping keys are errors (libyaml accepts
 * them silently), aliases are resolved (to the shared node, never to a
 * node that contains the alias), and the helpers below check the
 * shape of a document and report located, suggestion-bearing errors. */
#ifndef ISM_YDOC_H
#define ISM_YDOC_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/alloc.h"
#include "ism/diag.h"

typedef enum { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP } ynode_kind_t;

typedef struct ynode ynode_t;
struct ynode {
  ynode_kind_t kind;
  loc_t loc;        /* first character; of a quoted scalar: after the quote */
  const char *text; /* YNODE_SCALAR: the scalar's value */
  bool plain;       /* YNODE_SCALAR: unquoted (so null/bool/number may apply) */
  size_t len;       /* YNODE_SEQ/YNODE_MAP: number of items/pairs */
  ynode_t **items;  /* YNODE_SEQ: items; YNODE_MAP: values */
  ynode_t **keys;   /* YNODE_MAP: keys (scalars), in file order, unique */
  size_t weight;    /* nodes in this tree, counting each alias use (<= YDOC_MAX_NODES) */
};

/* Input limits, each a located error: collections nested at most
 * YDOC_MAX_DEPTH deep; at most YDOC_MAX_NODES nodes, where an alias counts
 * the nodes it names at every use (so aliases cannot blow a small file up). */
#define YDOC_MAX_DEPTH 1000
#define YDOC_MAX_NODES 2000000

/* Reads and parses `path` (the root of one document) into `arena`. The file
 * is registered with diags for caret rendering. Returns NULL after
 * reporting a read or syntax error; an empty document yields NULL too, with
 * an error. Duplicate keys are reported but parsing continues. */
ynode_t *ydoc_load_file(const char *path, arena_t *arena, diag_list_t *diags);
/* The same for text in memory; `name` names it in diagnostics. */
ynode_t *ydoc_load_string(const char *name, const char *text, arena_t *arena, diag_list_t *diags);

/* The value for `key` in a mapping, or NULL (also when map is not a map). */
ynode_t *ydoc_get(const ynode_t *map, const char *key);
/* Like ydoc_get, but reports "missing required key 'key' in WHAT". */
ynode_t *ydoc_require(const ynode_t *map, const char *key, const char *what, diag_list_t *diags);
/* Reports every key of `map` not in `allowed` as
 * "unknown key 'k' in WHAT (did you mean 'x'?)". Returns true if none. */
bool ydoc_check_keys(const ynode_t *map, const char *const *allowed, size_t nallowed, const char *what,
                     diag_list_t *diags);
/* Reports "WHAT must be a KIND" unless n has that kind. */
bool ydoc_expect_kind(const ynode_t *n, ynode_kind_t kind, const char *what, diag_list_t *diags);

/* Scalar conversions; each reports "WHAT must be a/an ..." and returns false. */
bool ydoc_string(const ynode_t *n, const char **out, const char *what, diag_list_t *diags);
bool ydoc_number(const ynode_t *n, double *out, const char *what, diag_list_t *diags);
bool ydoc_int(const ynode_t *n, long long *out, const char *what, diag_list_t *diags);
bool ydoc_bool(const ynode_t *n, bool *out, const char *what, diag_list_t *diags);
/* A scalar, or a sequence of scalars, as a list of strings (arena-allocated). */
bool ydoc_string_list(const ynode_t *n, arena_t *arena, const char ***out, size_t *count, const char *what,
                      diag_list_t *diags);
/* Whether a scalar is YAML's null (~, null, empty plain). */
bool ydoc_is_null(const ynode_t *n);

#endif
