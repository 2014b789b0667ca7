#include "probability/memo.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

_Static_assert(sizeof(double) == sizeof(unsigned long long), "keys are stored as 64-bit patterns");

enum { FIRST_CAP = 64 };

static void alloc_slots(memo_t *t, size_t cap) {
  size_t slots = 2;
  while (slots < 2 * cap) slots *= 2;
  free(t->slot);
  t->slot = xmalloc(slots * sizeof *t->slot);
  memset(t->slot, -1, slots * sizeof *t->slot);
  t->mask = slots - 1;
}

void memo_init(memo_t *t, size_t klen, size_t vsize, size_t max) {
  assert(klen > 0 && max > 0);
  size_t cap = max < FIRST_CAP ? max : FIRST_CAP;
  *t = (memo_t){klen, vsize, 0, cap, max, 0, NULL, xmalloc(cap * klen * sizeof *t->keys),
                xmalloc(cap * vsize + 1)};
  alloc_slots(t, cap);
}

void memo_free(memo_t *t) {
  free(t->slot), free(t->keys), free(t->values);
  memset(t, 0, sizeof *t);
}

static unsigned long long bits(double d) {
  unsigned long long b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* key: klen doubles or their stored bits (both 8 bytes each). */
static size_t hash(const memo_t *t, const void *key) {
  const unsigned char *p = key;
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (size_t k = 0; k < t->klen; k++) {
    uint64_t b;
    memcpy(&b, p + k * sizeof b, sizeof b);
    h ^= b;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  return (size_t)h & t->mask;
}

static bool same_key(const memo_t *t, int entry, const double *key) {
  const unsigned long long *stored = &t->keys[(size_t)entry * t->klen];
  for (size_t k = 0; k < t->klen; k++)
    if (stored[k] != bits(key[k])) return false;
  return true;
}

const void *memo_get(const memo_t *t, const double *key) {
  for (size_t s = hash(t, key);; s = (s + 1) & t->mask) {
    int entry = t->slot[s];
    if (entry < 0) return NULL;
    if (same_key(t, entry, key)) return &t->values[(size_t)entry * t->vsize];
  }
}

static void place(memo_t *t, int entry) {
  size_t s = hash(t, &t->keys[(size_t)entry * t->klen]);
  while (t->slot[s] >= 0) s = (s + 1) & t->mask;
  t->slot[s] = entry;
}

/* Doubles the capacity (at most max) and rehashes every entry. */
static void grow(memo_t *t) {
  size_t cap = 2 * t->cap < t->max ? 2 * t->cap : t->max;
  t->keys = xrealloc(t->keys, cap * t->klen * sizeof *t->keys);
  t->values = xrealloc(t->values, cap * t->vsize + 1);
  t->cap = cap;
  alloc_slots(t, cap);
  for (size_t e = 0; e < t->len; e++) place(t, (int)e);
}

void memo_put(memo_t *t, const double *key, const void *value) {
  assert(!memo_get(t, key));
  if (t->len == t->max) {
    memset(t->slot, -1, (t->mask + 1) * sizeof *t->slot);
    t->len = 0;
  } else if (t->len == t->cap) {
    grow(t);
  }
  int entry = (int)t->len++;
  for (size_t k = 0; k < t->klen; k++) t->keys[(size_t)entry * t->klen + k] = bits(key[k]);
  memcpy(&t->values[(size_t)entry * t->vsize], value, t->vsize);
  place(t, entry);
}
