/* Where the result of `ismv verify` comes from when the search is split
 * past one process (docs/scale-out.md): `--shard I/N` searches one shard
 * of the split's subtrees and writes a shard report; `ismv merge` reads
 * the shard reports back and reports exactly what a single run reports;
 * under `mpirun` (make MPI=1, apps/mpi_verify.h) rank 0 hands the subtrees
 * out and reports. The unit and its JSON: verifier/paths/distribute.h. */
#ifndef APPS_VERIFY_SHARD_H
#define APPS_VERIFY_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "apps/cli.h"
#include "ism/json.h"
#include "ism/strbuf.h"
#include "probability/rank.h"
#include "verifier/paths/explore.h"

/* The shard reports of one run, checked by `ismv merge` (cmd_merge.c):
 * every shard 1..nshards exactly once, all of the same run, none failed. */
typedef struct {
  int nshards;
  const json_t *const *shards; /* [nshards]: shard I's report at I - 1 */
  const char *const *paths;    /* [nshards]: the files they came from */
} verify_merge_t;

/* One `verify` run, as cmd_verify.c resolved it. */
typedef struct {
  cli_ctx_t *ctx;
  const cli_command_t *self; /* cmd_verify */
  const cli_value_t *given; /* the command line's own values (not the model's verify: block) */
  const ism_model_t *m;
  const explore_options_t *opt;
  const rank_options_t *ropt;
  bool ranked;                /* counterexamples get probabilities */
  const verify_merge_t *merge; /* ismv merge: the shard reports; else NULL */
} verify_job_t;

/* Gets the result to report: from the search in this process, from the
 * shard reports (job->merge), or, at rank 0 of an MPI run, from the ranks.
 * Returns -1 with *res filled (*preranked: its counterexamples are ranked
 * and sorted already, to be re-checked only). Returns an exit code when
 * this process's part ends here: a shard (its report written: 0, or 5 when
 * a budget cut its search short, 6 when a self-check failed), an MPI
 * worker, or an error it reported (merge: 1, 2 or 6, see cmd_merge.c). */
int verify_search(const verify_job_t *job, explore_result_t *res, bool *preranked);

/* Whether this run is one part of a larger one (--shard, merge, several
 * MPI ranks): streaming output cannot be. */
bool verify_is_part(const cli_command_t *self, const cli_value_t *given, const verify_merge_t *merge);

/* Runs `ismv verify` (cmd_verify.c) on the model at path with these
 * command-line values, taking its result from merge (NULL: the search). */
int verify_command(cli_ctx_t *ctx, const cli_command_t *self, const char *path, const cli_value_t *values,
                   const verify_merge_t *merge);

/* ---- shared with apps/mpi_verify.c ---- */

/* Re-checks the counterexamples of one part of the search, ranks them
 * (job->ranked), checks their probabilities, and returns the part as JSON
 * (distribute_write_part; caller frees). On a failed self-check *failure
 * gets the message (caller frees) unless it holds one already. */
char *verify_part_json(const verify_job_t *job, long index, explore_result_t *part, char **failure);

/* The whole result from the search above the split (top) and the parts of
 * the n subtrees, each exactly once (parts[p] for subtree p); takes over
 * and empties them. Sorted as the single run sorts them. */
void verify_assemble(explore_result_t *top, explore_result_t *parts, size_t n, explore_result_t *res);

/* The options of a run that decide its result, as a JSON object (the
 * command line's own, without --shard, -o, --format, --jobs, --quiet). */
void verify_options_json(strbuf_t *sb, const cli_command_t *self, const cli_value_t *given);

#endif
