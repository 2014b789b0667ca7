/* Rendering of a solved masking game for `ismv masking`: text, JSON, SARIF
 * and Graphviz DOT (the game graph, or only the refuter's winning play). */
#ifndef APPS_MASKING_REPORT_H
#define APPS_MASKING_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/diag.h"
#include "ism/intern.h"
#include "verifier/masking/maskd.h"
#include "verifier/masking/masking.h"

/* Everything is borrowed. spec/imp are the LTSs the game was played on
 * (τ-saturated when weak); trace is masking_trace's play (ntrace 0 when
 * the implementation masks every fault). */
typedef struct {
  const char *spec_name, *imp_name;
  const maskd_program_t *spec_prog, *imp_prog;
  const masking_lts_t *spec, *imp;
  const intern_t *labels;
  bool weak;
  const masking_options_t *opts;
  const masking_game_t *game;
  const int *trace;
  size_t ntrace;
  const char *config; /* the config file, and where it names the implementation (SARIF's location) */
  loc_t imp_loc;
} masking_report_t;

/* format is "text", "json", "sarif" or "dot"; with_trace adds the play to text and
 * restricts DOT to the play. Returns a fresh string; the caller frees it. */
char *masking_render(const masking_report_t *r, const char *format, bool with_trace);

#endif
