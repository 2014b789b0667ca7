#include "ism/intern.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

static uint64_t hash_string(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

void intern_init(intern_t *in) { memset(in, 0, sizeof *in); }

void intern_free(intern_t *in) {
  for (size_t i = 0; i < in->count; i++) free(in->names[i]);
  free(in->names);
  free(in->table);
  memset(in, 0, sizeof *in);
}

static size_t slot_of(const intern_t *in, const char *s) {
  size_t mask = in->table_cap - 1;
  size_t i = (size_t)hash_string(s) & mask;
  while (in->table[i] >= 0 && strcmp(in->names[in->table[i]], s) != 0) i = (i + 1) & mask;
  return i;
}

static void rehash(intern_t *in, size_t cap) {
  free(in->table);
  in->table = xmalloc(cap * sizeof *in->table);
  for (size_t i = 0; i < cap; i++) in->table[i] = -1;
  in->table_cap = cap;
  for (size_t id = 0; id < in->count; id++) in->table[slot_of(in, in->names[id])] = (int)id;
}

int intern_find(const intern_t *in, const char *s) {
  if (!in->table_cap) return -1;
  return in->table[slot_of(in, s)];
}

int intern_add2(intern_t *in, const char *s, bool *added) {
  if (2 * (in->count + 1) >= in->table_cap) rehash(in, in->table_cap ? 2 * in->table_cap : 64);
  size_t slot = slot_of(in, s);
  if (in->table[slot] >= 0) {
    if (added) *added = false;
    return in->table[slot];
  }
  if (in->count == in->names_cap) {
    in->names_cap = in->names_cap ? 2 * in->names_cap : 32;
    in->names = xrealloc(in->names, in->names_cap * sizeof *in->names);
  }
  int id = (int)in->count++;
  in->names[id] = xstrdup(s);
  in->table[slot] = id;
  if (added) *added = true;
  return id;
}

int intern_add(intern_t *in, const char *s) { return intern_add2(in, s, NULL); }

const char *intern_name(const intern_t *in, int id) {
  assert(id >= 0 && (size_t)id < in->count);
  return in->names[id];
}
