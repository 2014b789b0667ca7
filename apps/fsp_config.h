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
  arena_t arena;          /* the config's nodes and names */
  lts_labels_t labels;    /* shared by every LTS of the run */
  const char *dir;        /* the config's directory with a trailing '/', or "" */
  VEC(fsp_file_t *) files; /* every parsed file, freed with the config */
} fsp_config_t;

/* Prepares a run for the config at `path`; fsp_config_free releases it all. */
void fsp_config_init(fsp_config_t *c, cli_ctx_t *ctx, const char *path);
void fsp_config_free(fsp_config_t *c);

/* Loads the files a config entry names (one or a list) and composes them
 * in parallel. Each file gives process `preferred` if it defines one, else
 * its last process (NULL: always the last, LTSA's DEFAULT). With
 * `property`, each part is turned into its error LTS first. *names
 * (optional) gets "a.lts, b.lts"; *last_file (optional) the last file
 * parsed. Returns NULL after reporting an error. */
lts_t *fsp_config_load(fsp_config_t *c, const ynode_t *node, const char *what, const char *preferred, bool property,
                       const char **names, fsp_file_t **last_file);

#endif
