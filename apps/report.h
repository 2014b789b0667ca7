/* `ismv report`: one self-contained HTML page (inline CSS, SVG and a little
 * JavaScript; no network, readable without JavaScript) from the JSON
 * results of verify, simulate, robustness, envelope, masking and eventb.
 * The analysis commands' `--format html` hand their JSON, parsed, to the
 * same renderer. Every user string is escaped; same input, same bytes. */
#ifndef APPS_REPORT_H
#define APPS_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "apps/cli.h"
#include "apps/json_envelope.h"
#include "ism/diag.h"
#include "ism/ism.h"
#include "ism/json.h"

typedef struct {
  const char *source; /* the file it was read from (shown), or NULL */
  const json_t *root; /* borrowed */
} report_input_t;

/* The page for the results in[0..n) (shown in that order; a simulate result
 * goes with the verify result of the same model as its scatter plot).
 * `model` (may be NULL) is the ISM model of the verify results: with it
 * the machine is drawn and each counterexample's path highlighted on it.
 * Returns the page (caller frees), or NULL after a located error in diags
 * when an input is no ismv result, or names another model than `model`. */
char *report_html(const report_input_t *in, size_t n, const ism_model_t *model, diag_list_t *diags);

/* For the analysis commands' --format html: takes `json` (their own JSON
 * report; freed here), parses it and renders it as report_html does,
 * `model` as there. Returns the page (caller frees), or NULL after
 * reporting in diags (an internal error: the command's JSON is malformed). */
char *report_html_of(char *json, const ism_model_t *model, diag_list_t *diags);

/* Writes a command's JSON report `json` (text starting "{\n") behind the
 * envelope `e`: as JSON, or when `html` as the report page (`model` drawn
 * when given). Returns cli_write_output's code, or CLI_EXIT_INTERNAL after
 * a located error in ctx->diags. */
int report_write_result(cli_ctx_t *ctx, const json_envelope_t *e, const char *json, bool html,
                        const ism_model_t *model);

#endif
