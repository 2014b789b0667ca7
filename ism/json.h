/* A small strict JSON reader (RFC 8259) for the results ismv writes, read
 * back by `ismv report`: a located node tree in one arena. Malformed input
 * is one located error (file:line:col); nesting deeper than JSON_MAX_DEPTH,
 * duplicate keys, invalid UTF-8, lone surrogates and \u0000 are errors too. */
#ifndef ISM_JSON_H
#define ISM_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/alloc.h"
#include "ism/diag.h"

enum { JSON_MAX_DEPTH = 256 };

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind_t;

typedef struct json json_t;
struct json {
  json_kind_t kind;
  loc_t loc;         /* where the value starts */
  bool boolean;      /* JSON_BOOL */
  double number;     /* JSON_NUMBER (may be ±inf when out of double's range) */
  const char *text;  /* JSON_STRING: the decoded UTF-8 (no NUL inside); JSON_NUMBER: as written */
  size_t len;        /* JSON_ARRAY/JSON_OBJECT: how many items */
  json_t **items;    /* the array's elements, or the object's values, in document order */
  const char **keys; /* JSON_OBJECT: keys[i] names items[i]; all distinct */
};

typedef struct {
  arena_t arena; /* owns every node and string */
  json_t *root;
} json_doc_t;

/* Parses text (NUL-terminated; `file` is the path used in locations and
 * must outlive the document). Returns the document (free with json_free),
 * or NULL after one located error in diags. */
json_doc_t *json_parse(const char *file, const char *text, diag_list_t *diags);
/* Reads the file (diag_read_file's limits) and parses it. */
json_doc_t *json_load(const char *path, diag_list_t *diags);
void json_free(json_doc_t *doc);

/* The value of `key` in object o, or NULL (also when o is NULL or no object). */
const json_t *json_get(const json_t *o, const char *key);
/* Typed look-ups: the value when it has that kind, else the fallback. */
const char *json_str(const json_t *o, const char *key, const char *fallback);
double json_num(const json_t *o, const char *key, double fallback);
bool json_bool(const json_t *o, const char *key, bool fallback);
/* The array at key (NULL when missing or not an array). */
const json_t *json_array(const json_t *o, const char *key);

#endif
