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
#include "apps/verify_topk.h"
#include "ism/json.h"
#include "ism/strbuf.h"
#include "probability/rank.h"
#include "verifier/paths/distribute.h"
#include "verifier/paths/explore.h"

/* The version of the shard report's format ("ismv_shard"). */
#define VERIFY_SHARD_FORMAT 2

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
  const cli_value_t *given;  /* the command line's own values (not the model's verify: block) */
  const ism_model_t *m;
  const explore_options_t *opt;
  const rank_options_t *ropt;
  bool ranked;                 /* counterexamples get probabilities */
  const verify_merge_t *merge; /* ismv merge: the shard reports; else NULL */
  topk_t *topk;                /* the top-K search's run (opt->topk is its side), or NULL: the full search */
} verify_job_t;

/* Gets the result to report: from the search in this process, from the
 * shard reports (job->merge), or, at rank 0 of an MPI run, from the ranks.
 * Returns -1 with *res filled (*preranked: its counterexamples are ranked
 * and sorted already, to be re-checked only). With job->topk, *res holds the
 * counts (nstreamed: the counterexamples found) and job->topk what the
 * parts kept, for topk_finish. Returns an exit code when
 * this process's part ends here: a shard (its report written: 0, or 5 when
 * a budget cut its search short, 6 when a self-check failed), an MPI
 * worker, or an error it reported (merge: 1, 2 or 6, see cmd_merge.c). */
int verify_search(const verify_job_t *job, explore_result_t *res, bool *preranked);

/* Whether this run is one part of a larger one (--shard, merge, several
 * MPI ranks): streaming output cannot be. */
bool verify_is_part(const cli_command_t *self, const cli_value_t *given, const verify_merge_t *merge);

/* A run that is a part of a larger one (verify_is_part) splits as the full
 * search does by default (2 from bound 7 on), also for the top-K search,
 * which one process runs unsplit (explore.h): sets opt->split_depth when it
 * is automatic (< 0). Call before opt->topk is set. */
void verify_part_split(explore_options_t *opt);

/* Runs `ismv verify` (cmd_verify.c) on the model at path with these
 * command-line values, taking its result from merge (NULL: the search). */
int verify_command(cli_ctx_t *ctx, const cli_command_t *self, const char *path, const cli_value_t *values,
                   const verify_merge_t *merge);

/* ---- shared with apps/mpi_verify.c ---- */

/* A process's share of the subtrees (a shard, an MPI worker): next gives
 * the index of the next subtree to search (as explore_options_t's
 * next_subtree), done receives each searched subtree as the JSON of a part
 * (distribute_write_part: re-checked, ranked, with the top-K part's kept
 * counterexamples and counts; owned by done), its counts and reason
 * (part), and the message of a failed self-check or NULL (owned by done). */
typedef struct {
  long (*next)(void *ctx, size_t nsubtrees, const int *prefixes, int depth);
  void (*done)(void *ctx, size_t index, char *json, const explore_result_t *part, char *failure);
  void *ctx;
} verify_share_t;

/* Searches above the split and then the subtrees share hands out, on
 * job->opt->jobs threads. Returns the search above the split as the JSON
 * of part -1 (caller frees; its counterexamples only when with_top);
 * *top_cut gets why a budget cut that search short, or NULL (caller
 * frees); *failure a failed self-check unless it holds one (caller frees). */
char *verify_search_share(const verify_job_t *job, const verify_share_t *share, bool with_top, char **failure,
                          char **top_cut);

/* Adds a part read back from JSON (distribute_read_part) to the run: its
 * counts to res, its counterexamples to res (full search) or to job->topk
 * (a top-K part); takes over and empties part. */
void verify_add_part(const verify_job_t *job, explore_result_t *res, explore_result_t *part,
                     const distribute_topk_t *topk);

/* The whole result from the search above the split (top) and the parts of
 * the n subtrees, each exactly once (parts[p], extras topk[p] for subtree
 * p; topk may be NULL, top's extra is top_topk, may be NULL); takes over and
 * empties them. Sorted as the single run sorts them; with job->topk the
 * kept counterexamples are merged in job->topk and re-checked. Returns NULL
 * or a failed self-check (caller frees). */
char *verify_assemble(const verify_job_t *job, explore_result_t *top, const distribute_topk_t *top_topk,
                      explore_result_t *parts, const distribute_topk_t *topk, size_t n,
                      explore_result_t *res);

/* The options of a run that decide its result, as a JSON object (the
 * command line's own, without --shard, -o, --format, --jobs, --quiet, --search:
 * a shard report records the search the run resolved to). */
void verify_options_json(strbuf_t *sb, const cli_command_t *self, const cli_value_t *given);

#endif
