/* ismv verify: bounded verification of an ISM model, rendered as text,
 * JSON, SARIF or JUnit XML. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/expect.h"
#include "apps/progress.h"
#include "apps/report.h"
#include "apps/verify_options.h"
#include "apps/verify_report.h"
#include "apps/verify_topk.h"
#include "apps/verify_shard.h"
#include "ism/ism.h"
#include "ism/stop.h"
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
    {"jobs", 'j', OPT_INT, "N", NULL, "one per processor", 1, 64,
     "threads for the incremental search and the ranking (the result does not depend on it)"},
    {"solver-only", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "send every check to the solver instead of first extending the parent's model (a baseline; same "
     "counterexample paths)"},
    {"split-depth", 0, OPT_INT, "D", NULL,
     "2 from bound 7 on (3 with --all --format json; 0 with the top-K search), else 0", 0, 1000,
     "search each subtree below depth D with a solver of its own, on --jobs threads (0: one solver)"},
    {"search", 0, OPT_CHOICE, NULL, "full|top-k",
     "top-k from bound 7 for the default report and --top (text, json)", 0, -1,
     "full: every counterexample found and ranked, with the totals; top-k: only what the report shows is "
     "searched for (the same counterexamples, no totals)"},
    {"top", 'n', OPT_INT, "N", NULL, "all", 1, 1e9, "report only the N most likely counterexamples"},
    {"all", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "every counterexample (default: the failure classes and the most likely of each); text: in full; "
     "json: streamed as the search finds them, in depth-first order, memory independent of their number"},
    {"min-prob", 0, OPT_REAL, "P", NULL, "0 (or the model's verify: min-prob)", 0, 1,
     "drop counterexamples whose probability is below P"},
    {"valuation", 0, OPT_CHOICE, NULL, "optimum|solver", "optimum", 0, -1,
     "optimum: estimate at the environment that maximises the probability; solver: at the solver's own "
     "witness "
     "(the paper)"},
    {"seed", 0, OPT_INT, "S", NULL, "1", 0, 4e9,
     "seed of the estimators' random draws, mixed with each path: the report is a function of the model, "
     "the options and S; another S shows how far the ranking's numbers depend on the draws "
     "(docs/probability.md, \"What the seed shows\")"},
    {"probability", 0, OPT_CHOICE, NULL, "joint|per-rule|none", "joint", 0, -1,
     "joint: P(this path and its failure | environment) at the most likely environment "
     "(docs/probability.md); "
     "per-rule: the paper's product of rule probabilities; none: no ranking (discovery order)"},
    {"format", 'f', OPT_CHOICE, NULL, "text|json|sarif|junit|html", "text", 0, -1,
     "output format (html: the page of ismv report, with the state machine drawn)"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the report to FILE"},
    {"quiet", 'q', OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "no progress line on stderr (shown only when stderr is a terminal)"},
    {"stats", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "add the search statistics (they depend on the split and the cuts) and timings to the report, and "
     "print statistics on stderr"},
    {"shard", 0, OPT_STRING, "I/N", NULL, NULL, 0, -1,
     "search only shard I of N (1 <= I <= N) of the split's subtrees and write a shard report (JSON) "
     "for `ismv merge` (docs/scale-out.md)"},
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
  if (stats) {
    fprintf(ctx->err, "ismv: %llu paths, %llu pruned, %llu solver checks, %.3f s\n", res->paths, res->pruned,
            res->solver_checks, res->seconds);
    if (res->extended_failures + res->repaired_failures + res->alone_failures + res->solver_failures +
        res->extended_prefixes +
        res->repaired_prefixes + res->solver_prefixes)
      fprintf(
          ctx->err,
          "ismv: failure checks: %llu by model extension, %llu by path repair, %llu by the step alone, %llu by "
          "the solver; prefix checks: %llu by model extension, %llu by path repair, %llu by the solver\n",
          res->extended_failures, res->repaired_failures, res->alone_failures, res->solver_failures,
          res->extended_prefixes,
          res->repaired_prefixes, res->solver_prefixes);
  }
  if (res->verdict == EXPLORE_INCONCLUSIVE) fprintf(ctx->err, "ismv: inconclusive: %s\n", res->reason);
  if (total && !kept)
    fprintf(ctx->err,
            "ismv: note: all %zu counterexamples have probability below %g and were dropped (--min-prob)\n",
            total, min_prob);
  else if (total > kept)
    fprintf(ctx->err, "ismv: note: %zu counterexamples with probability below %g dropped (--min-prob)\n",
            total - kept, min_prob);
}

/* The exit code a verdict stands for, before filters and expect:. */
static int analysis_code(explore_verdict_t v) {
  return v == EXPLORE_VIOLATED       ? CLI_EXIT_VIOLATION
         : v == EXPLORE_INCONCLUSIVE ? CLI_EXIT_INCONCLUSIVE
                                     : CLI_EXIT_OK;
}

/* --all: counterexamples written as the search hands them over. */
typedef struct {
  FILE *out;
  verify_report_t rep;
  const rank_options_t *ropt;
  bool ranked;
  char *bad; /* the first failed self-check */
  strbuf_t sb;
  progress_t *line; /* erased before each write (it may share the terminal) */
  verify_ranker_t *ranker; /* one class cache and ranking session for every counterexample */
} stream_out_t;

static void clear(strbuf_t *sb) {
  sb->len = 0;
  if (sb->cap) sb->data[0] = '\0';
}

static void write_cex(void *arg, cex_t *c) {
  stream_out_t *so = arg;
  /* Once the run is stopping (a signal, the time limit), what the search still hands over
   * (the split's subtrees wait in report order) is written unranked with its own path's
   * witness, as the report of a ranking cut short does: ranking each in full would outlive
   * the limit by minutes. */
  bool rank = so->ranked && !stop_requested();
  if (so->ranked && !rank && !so->bad) verify_ranker_witness(so->ranker, c);
  if (rank && !so->bad) {
    verify_ranker_rank(so->ranker, c, -1);
    char *msg = cex_replay(so->rep.m, so->rep.opt->mode, c);
    if (msg)
      so->bad = xasprintf("ranked counterexample %zu failed its re-check: %s", so->rep.res->nstreamed, msg);
    else if (!(c->probability >= 0 && c->probability <= 1))
      so->bad = xasprintf("counterexample %zu has probability %g outside [0, 1]", so->rep.res->nstreamed,
                          c->probability);
    free(msg);
  }
  if (rank && c->probability < so->rep.min_prob) {
    so->rep.dropped++;
  } else if (!so->bad) {
    clear(&so->sb);
    progress_end(so->line);
    verify_stream_cex(&so->sb, &so->rep, so->rep.shown++, c);
    fputs(so->sb.data, so->out);
  }
  cex_free(c);
}

/* --all unranked, in two halves (explore_options_t.on_cex_render): the
 * thread that found c gives it its witness and renders it; the texts are
 * written in report order. */
static char *render_cex(void *arg, cex_t *c) {
  stream_out_t *so = arg;
  verify_ranker_witness(so->ranker, c);
  strbuf_t sb;
  strbuf_init(&sb);
  verify_stream_cex_text(&sb, &so->rep, c);
  cex_free(c);
  return sb.data;
}

static void write_text(void *arg, const char *text) {
  stream_out_t *so = arg;
  clear(&so->sb);
  progress_end(so->line);
  verify_stream_cex_head(&so->sb, so->rep.shown++);
  fputs(so->sb.data, so->out);
  fputs(text, so->out);
}

static int run_streaming(cli_ctx_t *ctx, const ism_model_t *m, explore_options_t *opt,
                         const rank_options_t *ropt, bool ranked, double min_prob, bool stats) {
  explore_result_t res;
  verify_progress_t *vp = opt->on_progress_ctx;
  stream_out_t so = {ctx->out,
                     {.m = m,
                      .opt = opt,
                      .res = &res,
                      .timings = stats,
                      .min_prob = min_prob,
                      .joint = ropt->estimator == RANK_JOINT},
                     ropt,
                     ranked,
                     NULL,
                     {0},
                     &vp->line,
                     NULL};
  cli_stream_t file = {0}; /* -o: a temporary file renamed at the end, never an input */
  if (ctx->output_path) {
    int rc = cli_stream_open(ctx, ctx->output_path, &file);
    if (rc) return rc;
    so.out = file.f;
  }
  memset(&res, 0, sizeof res);
  strbuf_init(&so.sb);
  so.ranker = verify_ranker_new(m, ropt);
  json_envelope_t envelope = {.command = "verify", .input = m->path};
  verify_stream_begin(&so.sb, &so.rep, &envelope);
  fputs(so.sb.data, so.out);
  if (ranked) {
    opt->on_cex = write_cex;
  } else {
    verify_ranker_decide_classes(so.ranker); /* before the search's solvers exist */
    opt->on_cex_render = render_cex;
    opt->on_cex_text = write_text;
  }
  opt->on_cex_ctx = &so;
  explore_run(m, opt, &res);
  verify_ranker_delete(so.ranker);
  progress_end(&vp->line);
  clear(&so.sb);
  cli_outcome_t outcome = {
      .analysis = res.verdict == EXPLORE_VIOLATED       ? CLI_EXIT_VIOLATION
                  : res.verdict == EXPLORE_INCONCLUSIVE ? CLI_EXIT_INCONCLUSIVE
                                                        : CLI_EXIT_OK,
      .complete = res.reason == NULL,
      .found = res.nstreamed,
      .kept = res.nstreamed - so.rep.dropped,
      .expect = -1,
      .interrupted = res.reason == EXPLORE_INTERRUPTED,
  };
  /* all dropped is verified only after a complete search (as the report) */
  if (res.nstreamed && so.rep.dropped == res.nstreamed)
    res.verdict = outcome.complete ? EXPLORE_VERIFIED : EXPLORE_INCONCLUSIVE;
  envelope.verdict = json_envelope_verdict(analysis_code(res.verdict));
  envelope.exit_code = res.replay_failed || so.bad ? CLI_EXIT_INTERNAL : cli_exit_code(&outcome);
  envelope.partial = res.reason;
  verify_stream_end(&so.sb, &so.rep, &envelope);
  fputs(so.sb.data, so.out);
  strbuf_free(&so.sb);
  int rc = CLI_EXIT_OK;
  errno = 0;
  if (file.f)
    rc = cli_stream_close(ctx, &file);
  else if (fflush(so.out) != 0 || ferror(so.out)) {
    fprintf(ctx->err, "ismv: error: cannot write the report: %s\n", errno ? strerror(errno) : "write error");
    rc = CLI_EXIT_INTERNAL;
  }
  if (stats)
    fprintf(ctx->err, "ismv: %llu paths, %llu pruned, %llu solver checks, %.3f s\n", res.paths, res.pruned,
            res.solver_checks, res.seconds);
  if (res.replay_failed || so.bad) {
    fprintf(ctx->err, "ismv: internal error: %s\n", so.bad ? so.bad : res.replay_message);
    rc = CLI_EXIT_INTERNAL;
  } else if (res.verdict == EXPLORE_INCONCLUSIVE) {
    fprintf(ctx->err, "ismv: inconclusive: %s\n", res.reason);
  }
  if (so.rep.dropped)
    fprintf(ctx->err, "ismv: note: %zu counterexamples with probability below %g dropped (--min-prob)\n",
            so.rep.dropped, min_prob);
  free(so.bad);
  explore_result_free(&res);
  return rc ? rc : cli_exit_code(&outcome);
}

/* Unranked counterexamples are shown with their own path's witness (as
 * ranked ones are ranked from it), so their values do not depend on the
 * search that found them: those the report renders get it (the text's
 * classes view: the first of each class; else the first rep->shown). */
static void shown_witnesses(const verify_report_t *rep, const rank_options_t *ropt, explore_result_t *res,
                            verify_keep_t *keep, const char *format) {
  if (keep) { /* it holds little more than what is printed */
    verify_witnesses(rep->m, ropt, keep->cexs, keep->n);
    return;
  }
  if (!(rep->classes_view && strcmp(format, "text") == 0)) {
    verify_witnesses(rep->m, ropt, res->cexs, rep->shown);
    return;
  }
  cex_class_t *cl = NULL;
  size_t ncl = cex_classes(res->cexs, res->ncexs, &cl);
  for (size_t k = 0; k < ncl; k++)
    if (cl[k].top < rep->shown) verify_witnesses(rep->m, ropt, &res->cexs[cl[k].top], 1);
  free(cl);
}

/* The top-K search (apps/verify_topk.h) serves the reports that show only
 * the most likely counterexamples: the default report and --top, in text
 * or JSON, with ranking, without an expect: block (it needs the totals).
 * Chosen with --search, else from bound 7 on (AUTO_TOPK_BOUND), where full
 * enumeration starts to take long. */
enum { AUTO_TOPK_BOUND = 7 };

static bool use_topk(const cli_command_t *self, const cli_value_t *values, const explore_options_t *opt,
                     const char *format, bool ranked, bool all, bool expect, const char **refused) {
  const cli_value_t *v = cli_opt(self, values, "search");
  *refused = !ranked                                            ? "--probability none"
             : all                                              ? "--all"
             : expect                                           ? "an expect: block (it needs the totals)"
             : opt->strategy != EXPLORE_INCREMENTAL             ? "--strategy per-path"
             : strcmp(format, "text") && strcmp(format, "json") ? "this --format (text and json only)"
                                                                : NULL;
  if (v->set) return strcmp(v->s, "top-k") == 0;
  bool auto_topk = !*refused && opt->bound >= AUTO_TOPK_BOUND;
  *refused = NULL;
  return auto_topk;
}

/* Whether an unranked report prints only some of the counterexamples
 * (then the search keeps only those: apps/verify_keep.h): the text's
 * classes view, --top, SARIF (a result per class). */
static bool prints_subset(const char *format, long long top, bool all) {
  if (strcmp(format, "sarif") == 0) return true;
  if (strcmp(format, "html") == 0) return false;
  return top > 0 || (strcmp(format, "text") == 0 && !all);
}

/* `expect:` keys, in the order of the results checked after the run. */
static const expect_key_t EXPECT_KEYS[] = {
    {"verdict", EXPECT_STRING}, {"counterexamples", EXPECT_NUMBER}, {"paths", EXPECT_NUMBER}, {"pruned", EXPECT_NUMBER}};

int verify_command(cli_ctx_t *ctx, const cli_command_t *self, const char *path, const cli_value_t *values,
                   const verify_merge_t *merge) {
  ism_model_t *m = ism_load(path, &ctx->diags);
  if (!m) return CLI_EXIT_INVALID;
  if (!assume_check(m, &ctx->diags) ||
      !expect_validate(ctx, m->expect, EXPECT_KEYS, sizeof EXPECT_KEYS / sizeof *EXPECT_KEYS)) {
    ism_free(m);
    return CLI_EXIT_INVALID;
  }
  explore_options_t opt;
  rank_options_t ropt;
  long long top;
  cli_value_t *merged = verify_options_resolve(ctx, self, values, m, &opt, &ropt, &top);
  if (!merged) return ism_free(m), CLI_EXIT_INVALID;
  const cli_value_t *given = values; /* the command line's own, for --all's checks */
  values = merged;
  const cli_value_t *v;
  if ((v = cli_opt(self, values, "strategy"))->set && strcmp(v->s, "per-path") == 0)
    opt.strategy = EXPLORE_PER_PATH;
  if ((v = cli_opt(self, values, "jobs"))->set) opt.jobs = (int)v->i;
  ropt.jobs = opt.jobs; /* the ranking's threads too (0: one per processor) */
  if ((v = cli_opt(self, values, "split-depth"))->set) opt.split_depth = (int)v->i;
  opt.solver_only = cli_opt(self, values, "solver-only")->set;
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

  verify_progress_t progress = {.command = "verify", .bound = opt.bound};
  progress_init(&progress.line, ctx, cli_opt(self, values, "quiet")->set);
  opt.on_progress = verify_progress_show;
  opt.on_progress_ctx = &progress;
  if (cli_opt(self, values, "all")->set && strcmp(format, "json") == 0) {
    const char *why =
        cli_opt(self, given, "top")->set /* a model's top: does not apply to --all */
            ? "--all writes every counterexample: it cannot go with --top"
        : verify_is_part(self, given, merge) ? "--all --format json streams the search: it cannot be sharded, "
                                               "merged or run under mpirun; use --format text"
        : m->expect ? "--all --format json cannot check an expect: block; run without --all" : NULL;
    int rc = CLI_EXIT_USAGE;
    if (why) {
      fprintf(ctx->err, "ismv: error: %s\n", why);
    } else {
      ropt.stop = NULL; /* each streamed counterexample is ranked in full; the search stops */
      rc = run_streaming(ctx, m, &opt, &ropt, ranked, min_prob, stats);
    }
    free(merged);
    ism_free(m);
    return rc;
  }
  explore_result_t res;
  char *bad = NULL;
  bool all_ranked = true;
  bool all = cli_opt(self, values, "all")->set;
  const char *refused = NULL;
  bool topk = use_topk(self, values, &opt, format, ranked, all, m->expect != NULL, &refused);
  if (topk && refused) {
    fprintf(ctx->err, "ismv: error: --search top-k cannot go with %s; use --search full\n", refused);
    free(merged);
    ism_free(m);
    return CLI_EXIT_USAGE;
  }
  topk_t tk;
  explore_topk_t side;
  if (topk) {
    if (verify_is_part(self, given, merge)) verify_part_split(&opt);
    topk_init(&tk, m, &ropt, opt.bound, top, min_prob, &side);
    opt.topk = &side;
    /* one search part: it ranks on --jobs threads of their own while it searches */
    long cores = opt.jobs > 0 ? opt.jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 1 && explore_split_depth(&opt) < 0 && !verify_is_part(self, given, merge))
      tk.rank_threads = cores > 64 ? 64 : (int)cores;
  }
  /* An unranked report of a subset, searched in one process: the search
   * hands each counterexample over and only what is printed is kept. */
  verify_keep_t keep, *keeping = NULL;
  if (!ranked && !m->expect && !verify_is_part(self, given, merge) && prints_subset(format, top, all)) {
    keeping = &keep;
    verify_keep_init(&keep, top > 0 ? (size_t)top : 0);
    opt.on_cex = verify_keep_take;
    opt.on_cex_ctx = &keep;
  }
  bool preranked = false;
  verify_job_t job = {ctx, self, given, m, &opt, &ropt, ranked, merge, topk ? &tk : NULL};
  int part_rc = verify_search(&job, &res, &preranked); /* a shard, an MPI worker: its part ends here */
  if (part_rc >= 0) {
    progress_end(&progress.line);
    if (topk) topk_free(&tk);
    if (keeping) verify_keep_free(keeping);
    free(merged);
    ism_free(m);
    return part_rc;
  }
  if (topk) {
    topk_finish(&tk, &res);
    res.solver_checks += tk.class_checks; /* the classes' checks: a search of no prefix still shows them */
    all_ranked = !tk.unranked;
    bad = tk.bad, tk.bad = NULL;
  } else if (!res.replay_failed && ranked) {
    if (res.ncexs && !preranked) progress_phase(&progress.line, "verify: ranking %zu counterexamples", res.ncexs);
    if (!preranked) all_ranked = verify_rank(m, &ropt, res.cexs, res.ncexs);
    bad = recheck(m, opt.mode, &res);
  }
  progress_end(&progress.line);
  if (!all_ranked && !res.reason)
    res.reason =
        stop_reason() == STOP_SIGNAL
            ? EXPLORE_INTERRUPTED
            : "the time limit (--timeout) ran out while ranking; the later counterexamples are unranked";
  if (res.replay_failed || bad) {
    fprintf(ctx->err, "ismv: internal error: %s\n", bad ? bad : res.replay_message);
    free(bad);
    explore_result_free(&res);
    if (topk) topk_free(&tk);
    if (keeping) verify_keep_free(keeping);
    free(merged);
    ism_free(m);
    return CLI_EXIT_INTERNAL;
  }
  /* Kept: those known to reach --min-prob (ranked ones come first); when
   * the ranking stopped early, the unranked ones are kept only without it.
   * An unranked report drops nothing. */
  size_t total = keeping ? keeping->total : res.ncexs, kept = keeping ? total : 0;
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
  verify_report_t rep = {.m = m,
                         .opt = &opt,
                         .res = &res,
                         .shown = kept,
                         .timings = stats,
                         .dropped = total - kept,
                         .min_prob = min_prob,
                         .joint = ropt.estimator == RANK_JOINT,
                         .unranked = !ranked,
                         .keep = keeping};
  if (top > 0 && (size_t)top < kept) rep.shown = (size_t)top;
  rep.classes_view = top <= 0 && !all;
  if (!ranked) shown_witnesses(&rep, &ropt, &res, keeping, format);
  if (topk) rep.topk = true, rep.found = tk.found, rep.found_boundary_only = tk.found_boundary_only,
              rep.bounded = tk.bounded;
  bool html = strcmp(format, "html") == 0;
  char *text = verify_render(&rep, html ? "json" : format);
  if (m->expect) {
    static const char *const names[] = {"verified", "violated", "inconclusive"};
    expect_actual_t actual[] = {
        {"verdict", EXPECT_STRING, 0, false, names[res.verdict]},
        {"counterexamples", EXPECT_NUMBER, (double)total, false, NULL},
        {"paths", EXPECT_NUMBER, (double)res.paths, false, NULL},
        {"pruned", EXPECT_NUMBER, (double)res.pruned, false, NULL},
    };
    size_t n = sizeof actual / sizeof *actual;
    outcome.expect = expect_check(ctx, m->expect, EXPECT_KEYS, actual, n);
    static const char *const verdict_keys[] = {"verdict"};
    outcome.expect_verdict = expect_states_verdict(m->expect, verdict_keys, 1);
  }
  /* the JSON states the exit code, so it is written once that is known */
  json_envelope_t envelope = {.command = "verify",
                              .input = path,
                              .verdict = json_envelope_verdict(analysis_code(res.verdict)),
                              .exit_code = cli_exit_code(&outcome),
                              .partial = res.reason};
  int rc = strcmp(format, "json") == 0 || html ? report_write_result(ctx, &envelope, text, html, m)
                                               : cli_write_output(ctx, text);
  free(text);
  notes(ctx, &res, stats, topk ? 0 : total, topk ? 0 : kept, min_prob);
  explore_result_free(&res);
  if (topk) topk_free(&tk);
  if (keeping) verify_keep_free(keeping);
  free(merged);
  ism_free(m);
  return rc ? rc : cli_exit_code(&outcome);
}

static int run_verify(cli_ctx_t *ctx, const cli_command_t *self, const char *path,
                      const cli_value_t *values) {
  return verify_command(ctx, self, path, values, NULL);
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
        "of them: exact per stage); other comparisons are sampled unconditioned (error bar 95%; when\n"
        "all n samples weigh the same w the bar is 0 only where that is proof, else 3/n max(w, 1 - w)).\n"
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
