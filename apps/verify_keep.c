#include "apps/verify_keep.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

void verify_keep_init(verify_keep_t *k, size_t first) {
  memset(k, 0, sizeof *k);
  k->first = first;
}

/* c's class, added (with c as its first member) when it is new. */
static size_t class_of(verify_keep_t *k, const cex_t *c, size_t index) {
  int rule = c->rules[c->length - 1];
  size_t i = 0;
  while (i < k->nclasses && !(k->classes[i].rule == rule && k->classes[i].action == c->fail_action)) i++;
  if (i == k->nclasses) {
    k->classes = xrealloc(k->classes, (i + 1) * sizeof *k->classes);
    k->first_boundary = xrealloc(k->first_boundary, (i + 1) * sizeof *k->first_boundary);
    k->classes[i] = (cex_class_t){rule, c->fail_action, 0, 0, index};
    k->first_boundary[i] = SIZE_MAX;
    k->nclasses++;
  }
  return i;
}

void verify_keep_take(void *ctx, cex_t *c) {
  verify_keep_t *k = ctx;
  size_t index = k->total++;
  size_t i = class_of(k, c, index);
  cex_class_t *cl = &k->classes[i];
  bool keep = index < k->first || cl->top == index;
  cl->count++;
  if (c->boundary_only) {
    cl->boundary_only++, k->boundary_only++;
    if (k->first_boundary[i] == SIZE_MAX) k->first_boundary[i] = index, keep = true;
  }
  if (!keep) {
    cex_free(c);
    return;
  }
  if (k->n == k->cap) {
    k->cap = k->cap ? 2 * k->cap : 16;
    k->cexs = xrealloc(k->cexs, k->cap * sizeof *k->cexs);
    k->index = xrealloc(k->index, k->cap * sizeof *k->index);
  }
  k->cexs[k->n] = *c;
  k->index[k->n++] = index;
}

const cex_t *verify_keep_at(const verify_keep_t *k, size_t index) {
  size_t lo = 0, hi = k->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (k->index[mid] < index)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < k->n && k->index[lo] == index ? &k->cexs[lo] : NULL;
}

void verify_keep_free(verify_keep_t *k) {
  for (size_t j = 0; j < k->n; j++) cex_free(&k->cexs[j]);
  free(k->cexs);
  free(k->index);
  free(k->classes);
  free(k->first_boundary);
  memset(k, 0, sizeof *k);
}
