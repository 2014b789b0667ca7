/* The unit of a distributed or sharded `verify`: a subtree of the split
 * search (explore.h: split_depth, next_subtree). Which shard searches which
 * subtree, and a subtree's result as JSON text, the one form that goes
 * into a shard report (`verify --shard`, read back by `ismv merge`) and
 * over the wire between MPI ranks. docs/scale-out.md. */
#ifndef VERIFIER_DISTRIBUTE_H
#define VERIFIER_DISTRIBUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ism/json.h"
#include "ism/strbuf.h"
#include "verifier/paths/explore.h"

/* Whether shard `shard` of `nshards` (1 <= shard <= nshards) searches
 * subtree `index`: round robin over the subtrees in depth-first order
 * (index mod nshards == shard - 1). Neighbouring subtrees share most of
 * their prefix and tend to be alike in size, so each shard gets some of
 * every region of the tree. */
bool distribute_shard_owns(size_t index, int shard, int nshards);

/* 64-bit FNV-1a of n bytes, continuing from h (start with
 * DISTRIBUTE_HASH_START): a model file's digest, a frontier's fingerprint;
 * the same on every machine. */
#define DISTRIBUTE_HASH_START 14695981039346656037ULL
uint64_t distribute_hash(const void *data, size_t n, uint64_t h);

/* What a part of the top-K search (apps/verify_topk.h) carries besides its
 * result: its counterexamples are the ones it kept (ranked), `found`
 * (part->nstreamed) counts all it found, and these count the rest. */
typedef struct {
  bool topk; /* false: a part of the full search (every counterexample) */
  unsigned long long found_boundary_only;
  bool unranked; /* its ranking stopped (time limit, signal) */
} distribute_topk_t;

/* Appends the result of one part of the search as a JSON object: index
 * (-1: the search above the split), every count (with `cut` and `found`,
 * part->nstreamed), the reason it stopped early (or null), its
 * counterexamples with every value (doubles written so that they read back
 * exactly; ±inf and nan as strings), their boundary flags and
 * probabilities, and, with topk (NULL: none), what the top-K part adds. */
void distribute_write_part(strbuf_t *sb, const ism_model_t *m, long index, const explore_result_t *part,
                           const distribute_topk_t *topk);

/* Reads what distribute_write_part wrote back into *part (zeroed first;
 * the caller frees it with explore_result_free; reason, when set, is
 * owned) and *topk (when not NULL; topk->topk false when the part has
 * none). Checks every id and length against m. Returns NULL, or what is
 * wrong (caller frees); *part is then empty. */
char *distribute_read_part(const json_t *node, const ism_model_t *m, long *index, explore_result_t *part,
                           distribute_topk_t *topk);

#endif
