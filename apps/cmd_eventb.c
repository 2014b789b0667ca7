/* ismv eventb: checks of a controller-plant model, uncertainty injection,
 * robustification and the largest tolerable error. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/eventb_report.h"
#include "apps/expect.h"
#include "apps/json_envelope.h"
#include "apps/report.h"
#include "ism/stop.h"
#include "verifier/eventb/eventb.h"

static const cli_option_t options[] = {
    {"robustify", 'r', OPT_CHOICE, NULL, "auto|preserving|repurposing",
     "auto (or the model's eventb: robustify)", 0, -1,
     "auto: action-preserving, action-repurposing when that fails (the paper's Fig. 1)"},
    {"max-error", 0, OPT_STRING, "PARAM", NULL, "none", 0, -1,
     "the largest value of model parameter PARAM for which the robustification works"},
    {"write-model", 'w', OPT_STRING, "FILE", NULL, "none", 0, -1,
     "write the robustified model as YAML to FILE"},
    {"svg", 0, OPT_STRING, "FILE", NULL, "none", 0, -1,
     "draw the compartments over the perceived value (one uncertain variable) as SVG to FILE"},
    {"check-timeout", 0, OPT_REAL, "SECONDS", NULL, "none", 0, 1e6,
     "per solver check; an unknown answer is inconclusive (--timeout bounds the whole run)"},
    {"rlimit", 0, OPT_INT, "N", NULL, "none", 1, 1e15,
     "per solver check, in Z3 resource units (deterministic)"},
    {"format", 'f', OPT_CHOICE, NULL, "text|json|sarif|html", "text", 0, -1,
     "output format (html: the page of ismv report)"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the report to FILE"},
};

static eventb_method_t parse_method(const char *s) {
  return strcmp(s, "preserving") == 0    ? EVENTB_PRESERVING
         : strcmp(s, "repurposing") == 0 ? EVENTB_REPURPOSING
                                         : EVENTB_AUTO;
}

static int write_model(cli_ctx_t *ctx, const eventb_model_t *m, const eventb_result_t *res,
                       const char *path) {
  if (res->robust.refused) {
    fprintf(ctx->err, "ismv: error: no model written to '%s': the original model fails its %s check\n", path,
            res->robust.refused);
    return CLI_EXIT_VIOLATION;
  }
  if (res->robust.method == EVENTB_NONE || !res->robust.ran) {
    fprintf(ctx->err, "ismv: error: no robustified model to write to '%s'\n", path);
    return CLI_EXIT_VIOLATION;
  }
  char *text = eventb_write_model(m, res);
  int rc = cli_write_file(ctx, path, text);
  free(text);
  return rc;
}

static int write_svg(cli_ctx_t *ctx, const eventb_model_t *m, const eventb_result_t *res, const char *path) {
  const eventb_picture_t *pic = &res->picture;
  if (!pic->ran || pic->nrows == 0 || pic->reason) {
    fprintf(ctx->err, "ismv: error: no picture written to '%s': %s\n", path,
            !pic->ran
                ? "no robustification was attempted (the model needs an uncertainty and its checks must hold)"
            : pic->reason ? pic->reason
                          : "nothing to draw");
    return CLI_EXIT_USAGE;
  }
  char *text = eventb_render_svg(m, res);
  int rc = cli_write_file(ctx, path, text);
  free(text);
  return rc;
}

static int verdict_code(const eventb_model_t *m, const eventb_result_t *res) {
  if (res->error) return CLI_EXIT_INTERNAL;
  if (res->unknown) return CLI_EXIT_INCONCLUSIVE;
  static const char *const required[] = {"invariant", "feasibility", "partitioning"};
  for (size_t i = 0; i < 3; i++)
    if (eventb_find_check(res, required[i])->verdict != EVENTB_HOLDS) return CLI_EXIT_VIOLATION;
  const eventb_check_t *wd = eventb_find_check(res, "well-definedness");
  if (wd && wd->verdict != EVENTB_HOLDS) return CLI_EXIT_VIOLATION;
  if (m->has_uncertainty && res->robust.method == EVENTB_NONE) return CLI_EXIT_VIOLATION;
  return CLI_EXIT_OK;
}

static bool holds(const eventb_result_t *res, const char *name) {
  const eventb_check_t *c = eventb_find_check(res, name);
  return c && c->verdict == EVENTB_HOLDS;
}

static size_t uncertain_variables(const eventb_model_t *m) {
  size_t n = 0;
  for (size_t i = 0; i < m->nvars; i++) n += m->vars[i].uncertain;
  return n;
}

/* `expect:` keys, in the order of the results checked after the run. */
static const expect_key_t EXPECT_KEYS[] = {
    {"invariant", EXPECT_BOOL}, {"feasibility", EXPECT_BOOL}, {"partitioning", EXPECT_BOOL},
    {"injected-invariant", EXPECT_BOOL}, {"method", EXPECT_STRING}, {"events", EXPECT_NUMBER},
    {"vacuous", EXPECT_NUMBER}, {"max-error", EXPECT_NUMBER_OR_NULL}};

static int run_eventb(cli_ctx_t *ctx, const cli_command_t *self, const char *path,
                      const cli_value_t *values) {
  eventb_model_t *m = eventb_load(path, &ctx->diags);
  if (!m) return CLI_EXIT_INVALID;
  if (!expect_validate(ctx, m->expect, EXPECT_KEYS, sizeof EXPECT_KEYS / sizeof *EXPECT_KEYS)) {
    eventb_free(m);
    return CLI_EXIT_INVALID;
  }
  const cli_value_t *v;
  eventb_options_t opt = {.method = EVENTB_AUTO};
  if ((v = cli_opt(self, values, "robustify"))->set)
    opt.method = parse_method(v->s);
  else if (m->options.has_robustify)
    opt.method = parse_method(m->options.robustify);
  if ((v = cli_opt(self, values, "max-error"))->set)
    opt.max_error = v->s;
  else if (m->options.has_max_error)
    opt.max_error = m->options.max_error;
  if ((v = cli_opt(self, values, "check-timeout"))->set) opt.timeout_ms = (unsigned)(v->r * 1000 + 0.5);
  if ((v = cli_opt(self, values, "rlimit"))->set) opt.rlimit = (unsigned long long)v->i;
  const char *svg = (v = cli_opt(self, values, "svg"))->set ? v->s : NULL;
  const char *format = (v = cli_opt(self, values, "format"))->set ? v->s : "text";
  bool html = strcmp(format, "html") == 0;
  /* the JSON and the page carry the picture whenever it can be drawn (it costs
     a few percent of the run, docs/eventb.md); text shows it with --svg */
  opt.picture = svg || ((html || strcmp(format, "json") == 0) && uncertain_variables(m) == 1);
  if (opt.max_error) {
    bool found = false;
    for (size_t i = 0; i < m->nparams; i++) found |= strcmp(m->params[i].name, opt.max_error) == 0;
    if (!found || !m->has_uncertainty) {
      fprintf(ctx->err, "ismv: error: --max-error %s: %s\n", opt.max_error,
              !found ? "no such model parameter (declare it under 'parameters:')"
                     : "the model has no uncertainty");
      eventb_free(m);
      return CLI_EXIT_USAGE;
    }
  }
  eventb_result_t res;
  eventb_analyse(m, &opt, &res);
  char *text = eventb_render(m, &res, html ? "json" : format);
  cli_outcome_t outcome = {.analysis = verdict_code(m, &res),
                           .complete = !res.unknown,
                           .expect = -1,
                           .interrupted = res.unknown && stop_reason() == STOP_SIGNAL};
  if (m->expect && !res.unknown && !res.error) {
    const eventb_max_error_t *me = &res.max_error;
    expect_actual_t actual[] = {
        {"invariant", EXPECT_BOOL, 0, holds(&res, "invariant"), NULL},
        {"feasibility", EXPECT_BOOL, 0, holds(&res, "feasibility"), NULL},
        {"partitioning", EXPECT_BOOL, 0, holds(&res, "partitioning"), NULL},
        {"injected-invariant", EXPECT_BOOL, 0, holds(&res, "injected-invariant"), NULL},
        {"method", EXPECT_STRING, 0, false, eventb_method_name(res.robust.method)},
        {"events", EXPECT_NUMBER, (double)res.robust.nevents, false, NULL},
        {"vacuous", EXPECT_NUMBER, (double)res.robust.nvacuous_all, false, NULL},
        {"max-error", me->value ? EXPECT_NUMBER : EXPECT_NULL, me->number, false, NULL},
    };
    outcome.expect = expect_check(ctx, m->expect, EXPECT_KEYS, actual, sizeof actual / sizeof *actual);
    outcome.expect_verdict = true; /* the checks' verdicts are keys of the block */
  }
  /* the files besides the report first: the report's JSON states the exit code */
  int rc = CLI_EXIT_OK;
  if ((v = cli_opt(self, values, "write-model"))->set && !res.unknown && !res.error)
    rc = write_model(ctx, m, &res, v->s);
  if (!rc && svg && !res.unknown && !res.error) rc = write_svg(ctx, m, &res, svg);
  json_envelope_t envelope = {.command = "eventb",
                              .input = path,
                              .verdict = json_envelope_verdict(outcome.analysis),
                              .exit_code = rc ? rc : cli_exit_code(&outcome),
                              .partial = !res.unknown ? NULL
                                         : res.reason ? res.reason
                                                      : "the solver answered unknown"};
  int wrc = strcmp(format, "json") == 0 || html ? report_write_result(ctx, &envelope, text, html, NULL)
                                                : cli_write_output(ctx, text);
  if (!rc) rc = wrc;
  free(text);
  if (res.unknown || res.error)
    fprintf(ctx->err, "ismv: %s: %s\n", res.error ? "internal error" : "inconclusive", res.reason);
  eventb_result_free(&res);
  eventb_free(m);
  return rc ? rc : cli_exit_code(&outcome);
}

const cli_command_t cmd_eventb = {
    .name = "eventb",
    .kind = "eventb",
    .summary = "check, inject uncertainty into and robustify an Event-B controller-plant model (Z3)",
    .usage = "MODEL.yaml [options]",
    .description =
        "Checks that the controller-plant model in MODEL.yaml preserves its invariants (Rodin's INV),\n"
        "that its controller is feasible (FIS) and well defined (WD, when it divides), and that exactly\n"
        "one controller event is enabled in every state; a failed check shows a witness (state,\n"
        "parameters, next state) and the failing obligation's Rodin label. With an `uncertainty:` block\n"
        "it injects the perceptual uncertainty, shows where the controller becomes unsafe, and, when the\n"
        "model's own checks hold, robustifies it (action-preserving, then action-repurposing) over the\n"
        "compartments the solver finds, checking the conditions of the paper's Theorems 1 and 2. With\n"
        "--max-error PARAM it finds the admissible values of a parametric error exactly (int or real),\n"
        "its largest value or supremum, certified by runs with PARAM fixed; --svg draws the compartments\n"
        "of a one-dimensional uncertainty.\n\n"
        "Exit codes: 0 the model's checks hold and (with uncertainty) robustification succeeded;\n"
        "10 a check failed or no robustification works (or an `expect:` failed); 5 the solver\n"
        "answered unknown; 6 an internal error (e.g. a certificate run disagrees); 2 invalid model;\n"
        "1 bad command line or a file that cannot be written. Format and semantics: docs/eventb.md.",
    .options = options,
    .noptions = sizeof options / sizeof *options,
    .run = run_eventb,
};
