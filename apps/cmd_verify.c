/* ismv verify: bounded verification of an ISM model, rendered as text,
 * JSON, SARIF or JUnit XML. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/expect.h"
#include "apps/verify_options.h"
#include "apps/verify_report.h"
#include "ism/ism.h"
#include "ism/strbuf.h"
#include "probability/rank.h"
#include "verifier/assume.h"
#include "verifier/paths/explore.h"
#include "verifier/smt.h"

static const cli_option_t options[] = {
    {"bound", 'k', OPT_INT, "K", NULL, "10 (or the model's verify: bound)", 1, 1000,
     "longest path explored, in rules"},
    {"mode", 0, OPT_CHOICE, NULL, "actual|ideal|naive", "actual", 0, -1,
     "naive: no environmental constraints, no error; ideal: constraints, no error; actual: both"},
    {"strategy", 0, OPT_CHOICE, NULL, "incremental|per-path", "incremental", 0, -1,
     "incremental: one solver, infeasible prefixes pruned; per-path: the paper's fresh solve of every path"},
    {"budget", 0, OPT_REAL, "SECONDS", NULL, "none", 0, 1e9,
     "wall-clock budget; when it runs out the search stops (inconclusive unless a counterexample was found)"},
    {"jobs", 'j', OPT_INT, "N", NULL, "one per processor", 1, 64,
     "threads for the incremental search (the result does not depend on it)"},
    {"split-depth", 0, OPT_INT, "D", NULL, "2 from bound 7 on, else 0", 0, 1000,
     "search each subtree below depth D with a solver of its own, on --jobs threads (0: one solver)"},
    {"top", 'n', OPT_INT, "N", NULL, "all", 1, 1e9, "report only the N most likely counterexamples"},
    {"all", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "text: every counterexample in full (default: the failure classes and the most likely of each)"},
    {"min-prob", 0, OPT_REAL, "P", NULL, "0 (or the model's verify: min-prob)", 0, 1,
     "drop counterexamples whose probability is below P"},
    {"valuation", 0, OPT_CHOICE, NULL, "optimum|solver", "optimum", 0, -1,
     "optimum: estimate at the environment that maximises the probability; solver: at the solver's own "
     "witness "
     "(the paper)"},
    {"probability", 0, OPT_CHOICE, NULL, "joint|per-rule|none", "joint", 0, -1,
     "joint: P(this path and its failure | environment) at the most likely environment "
     "(docs/probability.md); "
     "per-rule: the paper's product of rule probabilities; none: no ranking (discovery order)"},
    {"format", 'f', OPT_CHOICE, NULL, "text|json|sarif|junit", "text", 0, -1, "output format"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the report to FILE"},
    {"stats", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "add timings to the report and print statistics on stderr"},
};

/* Replays every ranked counterexample and checks its probability: NULL,
 * or what failed (caller frees). */
static char *recheck(const ism_model_t *m, ism_mode_t mode, const explore_result_t *res) {
  char *bad = NULL;
  for (size_t k = 0; k < res->ncexs && !bad; k++) {
    const cex_t *c = &res->cexs[k];
    char *msg = cex_replay(m, mode, c);
    if (msg)
      bad = xasprintf("ranked counterexample %zu failed its re-check: %s", k + 1, msg);
    else if (!(c->probability >= 0 && c->probability <= 1))
      bad = xasprintf("counterexample %zu has probability %g outside [0, 1]", k + 1, c->probability);
    free(msg);
  }
  return bad;
}

static void notes(cli_ctx_t *ctx, const explore_result_t *res, bool stats, size_t total, size_t kept,
                  double min_prob) {
  if (stats)
    fprintf(ctx->err, "ismv: %llu paths, %llu pruned, %llu solver checks, %.3f s\n", res->paths, res->pruned,
            res->solver_checks, res->seconds);
  if (res->verdict == EXPLORE_INCONCLUSIVE) fprintf(ctx->err, "ismv: inconclusive: %s\n", res->reason);
  if (total && !kept)
    fprintf(ctx->err,
            "ismv: note: all %zu counterexamples have probability below %g and were dropped (--min-prob)\n",
            total, min_prob);
  else if (total > kept)
    fprintf(ctx->err, "ismv: note: %zu counterexamples with probability below %g dropped (--min-prob)\n",
            total - kept, min_prob);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Ranking stops on a signal, and when the budget (which counts from the
 * start of the search) runs out. */
typedef struct {
  double deadline; /* monotonic seconds; 0 = none */
} rank_stop_t;

static bool stop_ranking(void *arg) {
  const rank_stop_t *st = arg;
  return smt_stop_requested() || (st->deadline > 0 && now() >= st->deadline);
}

static int run_verify(cli_ctx_t *ctx, const cli_command_t *self, const char *path,
                      const cli_value_t *values) {
  ism_model_t *m = ism_load(path, &ctx->diags);
  if (!m) return CLI_EXIT_INVALID;
  if (!assume_check(m, &ctx->diags)) {
    ism_free(m);
    return CLI_EXIT_INVALID;
  }
  explore_options_t opt;
  rank_options_t ropt;
  long long top;
  cli_value_t *merged = verify_options_resolve(ctx, self, values, m, &opt, &ropt, &top);
  if (!merged) return ism_free(m), CLI_EXIT_INVALID;
  values = merged;
  const cli_value_t *v;
  if ((v = cli_opt(self, values, "strategy"))->set && strcmp(v->s, "per-path") == 0)
    opt.strategy = EXPLORE_PER_PATH;
  if ((v = cli_opt(self, values, "jobs"))->set) opt.jobs = (int)v->i;
  if ((v = cli_opt(self, values, "split-depth"))->set) opt.split_depth = (int)v->i;
  bool stats = cli_opt(self, values, "stats")->set;
  const char *format = (v = cli_opt(self, values, "format"))->set ? v->s : "text";
  double min_prob = (v = cli_opt(self, values, "min-prob"))->set ? v->r : 0;
  v = cli_opt(self, values, "probability");
  bool ranked = !(v->set && strcmp(v->s, "none") == 0);
  if (!ranked && min_prob > 0) {
    fprintf(ctx->err, "ismv: error: --min-prob needs probabilities; it cannot go with --probability none\n");
    free(merged);
    ism_free(m);
    return CLI_EXIT_USAGE;
  }

  explore_result_t res;
  rank_stop_t stop = {opt.budget_seconds > 0 ? now() + opt.budget_seconds : 0};
  explore_run(m, &opt, &res);
  char *bad = NULL;
  bool all_ranked = true;
  if (!res.replay_failed && ranked) {
    ropt.stop = stop_ranking;
    ropt.stop_arg = &stop;
    all_ranked = verify_rank(m, &ropt, res.cexs, res.ncexs);
    bad = recheck(m, opt.mode, &res);
  }
  if (!all_ranked && !res.reason)
    res.reason = smt_stop_requested()
                     ? EXPLORE_INTERRUPTED
                     : "the time budget ran out while ranking; the later counterexamples are unranked";
  if (res.replay_failed || bad) {
    fprintf(ctx->err, "ismv: internal error: %s\n", bad ? bad : res.replay_message);
    free(bad);
    explore_result_free(&res);
    free(merged);
    ism_free(m);
    return CLI_EXIT_INTERNAL;
  }
  size_t total = res.ncexs, kept = 0;
  /* Kept: those known to reach --min-prob (ranked ones come first); when
   * the ranking stopped early, the unranked ones are kept only without it. */
  while (kept < total &&
         (!ranked || (all_ranked || res.cexs[kept].has_probability ? res.cexs[kept].probability >= min_prob
                                                                   : min_prob <= 0)))
    kept++;
  cli_outcome_t outcome = {
      .analysis = res.verdict == EXPLORE_VIOLATED       ? CLI_EXIT_VIOLATION
                  : res.verdict == EXPLORE_INCONCLUSIVE ? CLI_EXIT_INCONCLUSIVE
                                                        : CLI_EXIT_OK,
      .complete = res.reason == NULL,
      .found = total,
      .kept = kept,
      .expect = -1,
      .interrupted = res.reason == EXPLORE_INTERRUPTED,
  };
  /* What the report says follows the exit code: all dropped is verified
   * only after a complete search. */
  if (total && !kept) res.verdict = outcome.complete ? EXPLORE_VERIFIED : EXPLORE_INCONCLUSIVE;
  verify_report_t rep = {m,    &opt, &res, kept, stats, total - kept, min_prob, ropt.estimator == RANK_JOINT,
                         false};
  if (top > 0 && (size_t)top < kept) rep.shown = (size_t)top;
  rep.classes_view = top <= 0 && !cli_opt(self, values, "all")->set;
  char *text = verify_render(&rep, format);
  int rc = cli_write_output(ctx, text);
  free(text);
  notes(ctx, &res, stats, total, kept, min_prob);
  if (m->expect) {
    static const char *const names[] = {"verified", "violated", "inconclusive"};
    expect_actual_t actual[] = {
        {"verdict", EXPECT_STRING, 0, false, names[res.verdict]},
        {"counterexamples", EXPECT_NUMBER, (double)total, false, NULL},
        {"paths", EXPECT_NUMBER, (double)res.paths, false, NULL},
        {"pruned", EXPECT_NUMBER, (double)res.pruned, false, NULL},
    };
    size_t n = sizeof actual / sizeof *actual;
    outcome.expect = expect_check(ctx, m->expect, actual, n);
    static const char *const verdict_keys[] = {"verdict"};
    outcome.expect_verdict = expect_states_verdict(m->expect, verdict_keys, 1);
  }
  explore_result_free(&res);
  free(merged);
  ism_free(m);
  return rc ? rc : cli_exit_code(&outcome);
}

const cli_command_t cmd_verify = {
    .name = "verify",
    .kind = "ism",
    .summary = "find failures of an interactive state machine within K steps (Z3)",
    .usage = "MODEL.yaml [options]",
    .description =
        "Unrolls the interactive state machine in MODEL.yaml to every path of at most K rules and asks\n"
        "the solver whether the app can fail on it, given the environmental constraints (effects of\n"
        "its actions) and the sensing and actuation error ranges. Each counterexample is reported\n"
        "once, at its first failure, with the true and sensed value of every variable at every step,\n"
        "after a re-check of the path on those values.\n\n"
        "Counterexamples are ranked by probability, most likely first (docs/probability.md). In mode\n"
        "actual each is first decided boundary-only or not with the solver: a boundary-only one needs an\n"
        "error exactly at the edge of its range (or an equality), has probability 0 and is listed apart.\n"
        "The default estimator (joint) is the probability that the app, with fresh sensing and actuation\n"
        "errors, takes exactly this path and fails this way, at the environment (initial true values and\n"
        "the values actions leave free) that maximises it; each stage's errors are drawn conditioned on\n"
        "its constraint in closed form when every comparison is affine in one new error (any and/or/not\n"
        "of them: exact per stage); other comparisons are sampled unconditioned (error bar 95%).\n"
        "per-rule is the paper's estimator. Counterexamples are grouped into failure classes (last rule,\n"
        "failure); the text shows the classes and the most likely counterexample of each (--all: all).\n"
        "--min-prob and --top filter after ranking; when --min-prob drops them all after a complete\n"
        "search, the report says there is no counterexample above that probability (exit 0, with a\n"
        "note on stderr); after an incomplete one it stays inconclusive (exit 5).\n\n"
        "Options may also be set in the model under `verify:`; the command line overrides them.\n"
        "With an `expect:` block in the model (keys verdict, counterexamples, paths, pruned) the exit\n"
        "code says whether the expectations hold. Model format: docs/ism-format.md; semantics and\n"
        "JSON schema: docs/verify.md.",
    .options = options,
    .noptions = sizeof options / sizeof *options,
    .run = run_verify,
};
