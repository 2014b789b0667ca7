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

/* Appends the result of one part of the search as a JSON object: index
 * (-1: the search above the split), every count, the reason it stopped
 * early (or null), and its counterexamples with every value (doubles
 * written so that they read back exactly; ±inf and nan as strings), their
 * boundary flags and probabilities. */
void distribute_write_part(strbuf_t *sb, const ism_model_t *m, long index, const explore_result_t *part);

/* Reads what distribute_write_part wrote back into *part (zeroed first;
 * the caller frees it with explore_result_free; reason, when set, is
 * owned). Checks every id and length against m. Returns NULL, or what is
 * wrong (caller frees); *part is then empty. */
char *distribute_read_part(const json_t *node, const ism_model_t *m, long *index, explore_result_t *part);

#endif
