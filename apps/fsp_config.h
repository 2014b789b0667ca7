/* The part of every FSP-based command (robustness, envelope) that reads
 * its YAML config: FSP files named relative to the config, parsed once
 * each, one role (system, environment, property, ...) composed from one
 * or more files. Errors are located at the config entry that names the
 * file when the file itself cannot be read. */
#ifndef APPS_FSP_CONFIG_H
#define APPS_FSP_CONFIG_H

#include <stdbool.h>

#include "apps/cli.h"
#include "ism/alloc.h"
#include "ism/vec.h"
#include "ism/ydoc.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/lts.h"

typedef struct {
  cli_ctx_t *ctx;
  arena_t arena;           /* the config's nodes and names */
  lts_labels_t labels;     /* shared by every LTS of the run */
  const char *dir;         /* the config's directory with a trailing '/', or "" */
  VEC(fsp_file_t *) files; /* every parsed file, freed with the config */
  long max_states;         /* limit on each compiled process and composition (fsp_set_max_states) */
  bool limit_hit;          /* a load stopped at max_states: the run is inconclusive (exit 5) */
} fsp_config_t;

/* Prepares a run for the config at `path`; fsp_config_free releases it all. */
void fsp_config_init(fsp_config_t *c, cli_ctx_t *ctx, const char *path);
void fsp_config_free(fsp_config_t *c);

/* Loads the files a config entry names (one or a list) and composes them
 * in parallel. Each file gives process `preferred` if it defines one, else
 * its last process (NULL: always the last, LTSA's DEFAULT); an entry
 * `FILE:NAME` gives process NAME of FILE (an error when it has none). With
 * FSP_LOAD_PROPERTY each part is turned into its error LTS first (every action of
 * its alphabet a state does not enable becomes a violation, as Fortis and the
 * CAV'23 tool do); with FSP_LOAD_PROPERTY_UNLESS_ERROR only a part without an
 * ERROR state of its own (one with ERROR is taken as written, as LTSA does). *names
 * (optional) gets "a.lts, b.lts"; *last_file (optional) the last file
 * parsed. Returns NULL after reporting an error. */
/* How fsp_config_load treats the processes it loads. */
typedef enum { FSP_LOAD_PLAIN, FSP_LOAD_PROPERTY, FSP_LOAD_PROPERTY_UNLESS_ERROR } fsp_load_t;

lts_t *fsp_config_load(fsp_config_t *c, const ynode_t *node, const char *what, const char *preferred,
                       fsp_load_t how, const char **names, fsp_file_t **last_file);

/* One progress property (verifier/lts/terminal.h) checked on a system. */
typedef struct {
  const char *name; /* borrowed from its file */
  bool holds;
  int *trace, len;        /* violated: a shortest trace to the first violating terminal set */
  int *actions, nactions; /* violated: the actions in that set (τ excluded), sorted by id */
} fsp_progress_result_t;

/* Checks every progress property declared in the first `nfiles` files the
 * config has parsed (a property met twice, in a file named twice, once),
 * in declaration order, on the parallel composition of `parts` (composed
 * only when there is a property). *out receives a fresh array for
 * fsp_progress_results_free, *n its length. False, after reporting it at
 * `loc`, when the composition passes --max-states (c->limit_hit is set). */
bool fsp_config_progress(fsp_config_t *c, size_t nfiles, const lts_t *const *parts, int nparts, loc_t loc,
                         fsp_progress_result_t **out, size_t *n);
void fsp_progress_results_free(fsp_progress_result_t *results, size_t n);
/* The number of progress properties declared in the first `nfiles` files parsed. */
size_t fsp_config_progress_count(const fsp_config_t *c, size_t nfiles);

#endif
