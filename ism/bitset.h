/* Fixed-size bitsets over dense integer ids (state sets, deviation sets).
 * Header-only: the operations are one-liners the compiler should inline. */
#ifndef ISM_BITSET_H
#define ISM_BITSET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

typedef uint64_t bitword_t;
#define BITSET_WORDS(n) (((n) + 63) / 64)

static inline bitword_t *bitset_new(size_t nbits) {
  return xcalloc(BITSET_WORDS(nbits), sizeof(bitword_t));
}
static inline bool bitset_get(const bitword_t *b, size_t i) { return (b[i >> 6] >> (i & 63)) & 1u; }
static inline void bitset_set(bitword_t *b, size_t i) { b[i >> 6] |= (bitword_t)1 << (i & 63); }
static inline void bitset_clear_bit(bitword_t *b, size_t i) { b[i >> 6] &= ~((bitword_t)1 << (i & 63)); }
static inline void bitset_zero(bitword_t *b, size_t nbits) { memset(b, 0, BITSET_WORDS(nbits) * sizeof *b); }
static inline size_t bitset_count(const bitword_t *b, size_t nbits) {
  size_t c = 0;
  for (size_t w = 0; w < BITSET_WORDS(nbits); w++) c += (size_t)__builtin_popcountll(b[w]);
  return c;
}
/* a ⊆ b */
static inline bool bitset_subset(const bitword_t *a, const bitword_t *b, size_t nbits) {
  for (size_t w = 0; w < BITSET_WORDS(nbits); w++)
    if (a[w] & ~b[w]) return false;
  return true;
}
static inline bool bitset_equal(const bitword_t *a, const bitword_t *b, size_t nbits) {
  return memcmp(a, b, BITSET_WORDS(nbits) * sizeof *a) == 0;
}

#endif
