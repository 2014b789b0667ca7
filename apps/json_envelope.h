/* The envelope every command's JSON report starts with (docs/json.md,
 * docs/ismv.schema.json): which tool, version and schema wrote it, for which
 * command and input, the verdict in the words all analyses share, the
 * exit code of the process and whether the run is partial (and why). The
 * analysis's own keys follow unchanged. */
#ifndef APPS_JSON_ENVELOPE_H
#define APPS_JSON_ENVELOPE_H

#include "apps/cli.h"
#include "ism/strbuf.h"

enum { JSON_ENVELOPE_SCHEMA = 1 }; /* bumped when a documented key changes meaning or goes */

typedef struct {
  const char *command;       /* "verify", ... */
  const char *input;         /* the file analysed; ignored when ninputs > 0 */
  const char *const *inputs; /* `check`: every file, written as an array */
  int ninputs;
  const char *verdict; /* json_envelope_verdict's word */
  int exit_code;       /* what the process exits with */
  /* Why the run did not cover all it was asked to (the time limit, a
   * signal, a budget, a solver's unknown), or NULL when it did: written as
   * "partial": true and "reason"; "partial": false otherwise. */
  const char *partial;
} json_envelope_t;

/* The shared verdict word of an analysis's own code (before any expect:
 * block): CLI_EXIT_OK "verified", CLI_EXIT_VIOLATION "violated",
 * CLI_EXIT_INCONCLUSIVE "inconclusive", anything else "error". */
const char *json_envelope_verdict(int analysis_code);

/* Appends "tool", "version", "schema", "command" and "input", each on a
 * line of its own, indented two spaces and ended by ",\n". */
void json_envelope_head(strbuf_t *sb, const json_envelope_t *e);
/* Appends "verdict", "exit_code", "partial" (and "reason" when partial)
 * the same way. */
void json_envelope_tail(strbuf_t *sb, const json_envelope_t *e);

/* Appends a JSON object holding the envelope alone (a run with no result). */
void json_envelope_alone(strbuf_t *sb, const json_envelope_t *e);

/* The JSON object `json` (text starting "{\n") with the envelope's keys
 * first, as a fresh string (caller frees). */
char *json_envelope_wrap(const json_envelope_t *e, const char *json);

/* Writes the JSON object `json` (text starting "{\n") with the envelope's
 * keys first, through cli_write_output, whose code it returns (0 when
 * written). */
int json_envelope_write(cli_ctx_t *ctx, const json_envelope_t *e, const char *json);

#endif
