/* ismv report: one self-contained HTML page from the JSON results of the
 * analyses (apps/report.h). */
#include <stdlib.h>
#include <string.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/report.h"
#include "ism/ism.h"
#include "ism/json.h"

static const cli_option_t options[] = {
    {"model", 'm', OPT_STRING, "FILE.yaml", NULL, NULL, 0, -1,
     "the ISM model of the verify results: draw its state machine and each counterexample's path on it"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the page to FILE"},
};

static int run_report(cli_ctx_t *ctx, const cli_command_t *self, const char *const *paths, int npaths,
                      const cli_value_t *values) {
  const char *model_path = cli_opt(self, values, "model")->s;
  ism_model_t *model = NULL;
  if (model_path && !(model = ism_load(model_path, &ctx->diags))) return CLI_EXIT_INVALID;
  json_doc_t **docs = xcalloc((size_t)npaths, sizeof *docs);
  report_input_t *in = xcalloc((size_t)npaths, sizeof *in);
  bool ok = true;
  for (int i = 0; i < npaths; i++) {
    docs[i] = json_load(paths[i], &ctx->diags);
    ok &= docs[i] != NULL;
    in[i] = (report_input_t){paths[i], docs[i] ? docs[i]->root : NULL};
  }
  int rc = CLI_EXIT_INVALID;
  char *page = ok ? report_html(in, (size_t)npaths, model, &ctx->diags) : NULL;
  if (page) rc = cli_write_output(ctx, page);
  free(page);
  for (int i = 0; i < npaths; i++) json_free(docs[i]);
  free(docs);
  free(in);
  ism_free(model);
  return rc;
}

const cli_command_t cmd_report = {
    .name = "report",
    .kind = NULL,
    .summary = "one self-contained HTML page from the JSON results of the analyses",
    .usage = "RESULT.json... [-o report.html] [--model MODEL.yaml]",
    .description =
        "Reads the JSON that verify, simulate, robustness, envelope, masking and eventb write with\n"
        "--format json and writes one HTML page: inline CSS, SVG drawings and a little JavaScript, no\n"
        "network access, readable without JavaScript. verify: the failure classes, each counterexample\n"
        "as a step table of true and sensed values, actuation errors and the failing condition (the\n"
        "most likely of each class first) and, with --model, the state machine with the chosen path\n"
        "highlighted; a simulate result of the same model adds the predicted-vs-simulated scatter plot.\n"
        "robustness: the representative traces as a tree of deviations, their explanations; envelope:\n"
        "each maximal set of deviation transitions drawn; masking: the refuter's play; eventb: the\n"
        "checks and their witnesses. Drawings are laid out by Graphviz when ismv was built with it,\n"
        "else listed. Each analysis writes the same page itself with --format html. See docs/report.md.\n"
        "Exit code 0, or 2 when an input is no ismv result (a located error).",
    .options = options,
    .noptions = sizeof options / sizeof *options,
    .run_all = run_report,
};
