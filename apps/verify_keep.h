/* The unranked reports of `ismv verify` that print a subset of the
 * counterexamples (the text's classes view, --top N, SARIF): the search
 * hands each counterexample over in report order (explore_options_t.on_cex)
 * and only those the report can print are kept, with the totals and each
 * failure class's counts, so memory does not grow with their number. */
#ifndef APPS_VERIFY_KEEP_H
#define APPS_VERIFY_KEEP_H

#include <stddef.h>

#include "ism/cex.h"

typedef struct {
  size_t first;         /* every counterexample of index < first is kept */
  size_t total;         /* handed over: the report's list is [0, total) */
  size_t boundary_only; /* of them, boundary-only */
  /* The failure classes, as cex_classes over the whole list (order of first
   * members, top = the first member's index). */
  cex_class_t *classes;
  size_t nclasses;
  size_t *first_boundary; /* [nclasses]: index of the class's first boundary-only member, or SIZE_MAX */
  /* Kept: the first `first`, and each class's first member and first
   * boundary-only member; ascending index[], cexs[k] is the list's
   * index[k]-th. */
  cex_t *cexs;
  size_t *index;
  size_t n, cap;
} verify_keep_t;

/* An empty collector that keeps the first `first` counterexamples besides
 * the classes' firsts. */
void verify_keep_init(verify_keep_t *k, size_t first);
/* explore_options_t.on_cex (ctx a verify_keep_t): counts c, keeps it or
 * frees what it owns. Counterexamples come in report order. */
void verify_keep_take(void *ctx, cex_t *c);
/* The list's counterexample at index, or NULL when it was not kept. */
const cex_t *verify_keep_at(const verify_keep_t *k, size_t index);
void verify_keep_free(verify_keep_t *k);

#endif
