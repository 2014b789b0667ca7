#include "ism/keytab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

void keytab_init(keytab_t *t) {
  memset(t, 0, sizeof *t);
  VEC_PUSH(&t->off, 0);
  t->table_cap = 64;
  t->table = xmalloc(t->table_cap * sizeof *t->table);
  t->hashes = xmalloc(t->table_cap * sizeof *t->hashes);
  memset(t->table, -1, t->table_cap * sizeof *t->table);
}

void keytab_free(keytab_t *t) {
  VEC_FREE(&t->keys);
  VEC_FREE(&t->off);
  free(t->table);
  free(t->hashes);
  t->table = NULL;
  t->hashes = NULL;
  t->count = 0;
}

/* FNV over whole ints, then a full 64-bit finaliser (murmur3's fmix64):
 * the low bits of an FNV product depend only on the low bits of the keys,
 * and the table is indexed by low bits, so tuples of composite states
 * (pump-5's 3 M pairs) clustered into probe chains hundreds long. */
uint64_t keytab_hash(const int *k, size_t n) {
  uint64_t h = 1469598103934665603ull ^ n;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint32_t)k[i]) * 1099511628211ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

const int *keytab_key(const keytab_t *t, int id, size_t *n) {
  *n = t->off.data[id + 1] - t->off.data[id];
  return t->keys.data + t->off.data[id];
}

/* The slot of key k[0..n) with hash h, or the empty slot where it goes. */
static size_t slot_of(const keytab_t *t, const int *k, size_t n, uint64_t h) {
  size_t mask = t->table_cap - 1, i = (size_t)h & mask;
  for (; t->table[i] >= 0; i = (i + 1) & mask) {
    if (t->hashes[i] != h) continue;
    size_t m;
    const int *o = keytab_key(t, t->table[i], &m);
    if (m == n && (n == 0 || memcmp(o, k, n * sizeof *k) == 0)) break;
  }
  return i;
}

int keytab_find(const keytab_t *t, const int *k, size_t n) {
  return t->table[slot_of(t, k, n, keytab_hash(k, n))];
}

int keytab_add(keytab_t *t, const int *k, size_t n, bool *added) {
  uint64_t h = keytab_hash(k, n);
  size_t slot = slot_of(t, k, n, h);
  if (t->table[slot] >= 0) {
    *added = false;
    return t->table[slot];
  }
  *added = true;
  int id = (int)t->count++;
  for (size_t i = 0; i < n; i++) VEC_PUSH(&t->keys, k[i]);
  VEC_PUSH(&t->off, t->keys.len);
  t->table[slot] = id;
  t->hashes[slot] = h;
  if (2 * t->count >= t->table_cap) { /* ids move to the doubled table by their stored hashes */
    int *old = t->table;
    uint64_t *old_h = t->hashes;
    size_t old_cap = t->table_cap;
    t->table_cap *= 2;
    t->table = xmalloc(t->table_cap * sizeof *t->table);
    t->hashes = xmalloc(t->table_cap * sizeof *t->hashes);
    memset(t->table, -1, t->table_cap * sizeof *t->table);
    size_t mask = t->table_cap - 1;
    for (size_t j = 0; j < old_cap; j++) {
      if (old[j] < 0) continue;
      size_t i = (size_t)old_h[j] & mask;
      while (t->table[i] >= 0) i = (i + 1) & mask;
      t->table[i] = old[j];
      t->hashes[i] = old_h[j];
    }
    free(old);
    free(old_h);
  }
  return id;
}
