/* ism/vec.h: a value whose computation pushes to the same vector. boundary.c
 * builds a constraint (VEC_PUSH(&cs, strict(...))) whose terms push a
 * division's definedness to cs first; when that nested push moved the array
 * the outer store went to the freed one (the drone at bound 10 aborted).
 * Each outer push here comes at every length from 0 to 200, so the nested
 * push meets a full array at each capacity: the vector must hold every
 * value once, in the order they were made (the nested one first). */
#include <stdlib.h>

#include "ism/vec.h"
#include "tests/unit/check.h"

typedef VEC(int) ints_t;

static int next_value;

static int nested(ints_t *v) {
  VEC_PUSH(v, next_value++);
  return next_value++;
}

int main(void) {
  for (int start = 0; start < 200; start++) {
    ints_t v = {0};
    next_value = 0;
    for (int k = 0; k < start; k++) VEC_PUSH(&v, next_value++);
    VEC_PUSH(&v, nested(&v));
    VEC_PUSH(&v, nested(&v));
    CHECK(v.len == (size_t)start + 4);
    for (size_t k = 0; k < v.len; k++)
      if (v.data[k] != (int)k) {
        fprintf(stderr, "start %d: data[%zu] = %d\n", start, k, v.data[k]);
        check_failures++;
        break;
      }
    VEC_FREE(&v);
  }
  return CHECK_RESULT();
}
