/* The one growable vector: a struct with `data`, `len`, `cap` for any
 * element type. Macros, so element access stays typed; growth doubles.
 *   VEC(int) v = {0}; VEC_PUSH(&v, 3); ... VEC_FREE(&v); */
#ifndef ISM_VEC_H
#define ISM_VEC_H

#include <stddef.h>

#include "ism/alloc.h"

#define VEC(T)   \
  struct {       \
    T *data;     \
    size_t len;  \
    size_t cap;  \
  }

#define VEC_RESERVE(v, n)                                                   \
  do {                                                                      \
    size_t vec_need_ = (n);                                                 \
    if (vec_need_ > (v)->cap) {                                             \
      size_t vec_cap_ = (v)->cap ? (v)->cap : 8;                            \
      while (vec_cap_ < vec_need_) vec_cap_ *= 2;                           \
      (v)->data = xrealloc((v)->data, vec_cap_ * sizeof *(v)->data);        \
      (v)->cap = vec_cap_;                                                  \
    }                                                                       \
  } while (0)

/* The value is computed before the vector grows: computing it may push to
 * the same vector (boundary.c's terms add a division's definedness while a
 * constraint is built), which with `data[len++] = (x)` was unsequenced with
 * the store and, when the nested push moved the array, wrote into freed
 * memory (the drone at bound 10 then aborted in smt.c). */
#define VEC_PUSH(v, x)                            \
  do {                                            \
    __typeof__(*(v)->data) vec_value_ = (x);      \
    VEC_RESERVE((v), (v)->len + 1);               \
    (v)->data[(v)->len++] = vec_value_;           \
  } while (0)

#define VEC_POP(v) ((v)->data[--(v)->len])
#define VEC_LAST(v) ((v)->data[(v)->len - 1])
#define VEC_CLEAR(v) ((v)->len = 0)

#define VEC_FREE(v)      \
  do {                   \
    free((v)->data);     \
    (v)->data = NULL;    \
    (v)->len = 0;        \
    (v)->cap = 0;        \
  } while (0)

#endif
