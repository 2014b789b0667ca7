/* A memo table for pure functions of doubles: fixed-length keys of
 * doubles, compared bit for bit (so a hit returns exactly what the
 * function computed for the same input), to fixed-size values. It grows
 * up to a fixed number of entries and forgets them all when full, which
 * bounds memory and never changes a result. */
#ifndef PROBABILITY_MEMO_H
#define PROBABILITY_MEMO_H

#include <stddef.h>

typedef struct {
  size_t klen, vsize;       /* key length in doubles, value size in bytes */
  size_t len, cap, max;     /* entries held <= cap <= max; cleared when len reaches max */
  size_t mask;              /* slots - 1; slots is a power of two >= 2 * cap */
  int *slot;                /* [slots]: entry index or -1 */
  unsigned long long *keys; /* [cap * klen]: the key bits of each entry */
  unsigned char *values;    /* [cap * vsize] */
} memo_t;

/* An empty table for keys of klen doubles (klen >= 1) and values of vsize
 * bytes, holding at most max entries (max >= 1). memo_free releases it. */
void memo_init(memo_t *t, size_t klen, size_t vsize, size_t max);
void memo_free(memo_t *t);

/* The value stored under key (klen doubles), or NULL. Borrowed until the
 * next memo_put. */
const void *memo_get(const memo_t *t, const double *key);

/* Stores a copy of value (vsize bytes) under key, which must not be
 * present; forgets every entry first when the table is full. */
void memo_put(memo_t *t, const double *key, const void *value);

#endif
