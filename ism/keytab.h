/* Tables of int-sequence keys: each distinct sequence gets a dense id in
 * insertion order (so hash order never leaks). Used for subset
 * constructions (observation sets), caches keyed by label sets, and the LTS
 * core's composite states, subset construction and minimisation blocks. */
#ifndef ISM_KEYTAB_H
#define ISM_KEYTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ism/vec.h"

/* Invariant: key `id` is keys[off[id] .. off[id+1]); table is open
 * addressing over ids (-1 empty), table_cap a power of two > 2 * count;
 * hashes[i] is the hash of table[i]'s key (compared before the key, and
 * reused when the table grows). */
typedef struct {
  VEC(int) keys;
  VEC(size_t) off;
  int *table;
  uint64_t *hashes;
  size_t table_cap;
  size_t count;
} keytab_t;

void keytab_init(keytab_t *t);
void keytab_free(keytab_t *t);
/* The id of key k[0..n), adding it when new (*added says which). */
int keytab_add(keytab_t *t, const int *k, size_t n, bool *added);
/* The id of key k[0..n), or -1. */
int keytab_find(const keytab_t *t, const int *k, size_t n);
/* The hash keytab gives k[0..n) (64 bits, every bit mixed), for tables
 * of int sequences kept elsewhere. */
uint64_t keytab_hash(const int *k, size_t n);
/* Key `id` (borrowed until the next keytab_add); *n gets its length. */
const int *keytab_key(const keytab_t *t, int id, size_t *n);

#endif
