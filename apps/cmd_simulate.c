/* ismv simulate: checks the probabilities `ismv verify` predicts against
 * outcomes. For each ranked counterexample it re-runs the app from the
 * counterexample's initial environment many times with drawn sensing and
 * actuation error and counts how often the same path ends in the same
 * failure (probability/simulate.h); prints predicted probability, observed
 * frequency and its 95% Clopper-Pearson interval, as text or CSV, and
 * optionally an SVG scatter plot of predicted against observed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/verify_options.h"
#include "apps/verify_report.h"
#include "ism/ism.h"
#include "ism/stop.h"
#include "ism/strbuf.h"
#include "probability/rank.h"
#include "verifier/assume.h"
#include "probability/forward.h"
#include "probability/simulate.h"
#include "verifier/paths/explore.h"

static const cli_option_t options[] = {
    {"runs", 'r', OPT_INT, "N", NULL, "10000", 1, 1e8, "simulated runs per counterexample"},
    {"seed", 's', OPT_INT, "S", NULL, "1", 0, 4e9, "seed of the random draws (mixed with each path)"},
    {"top", 'n', OPT_INT, "N", NULL, "all", 1, 1e9,
     "simulate only the N most likely counterexamples (and the first N boundary-only ones)"},
    {"bound", 'k', OPT_INT, "K", NULL, "10 (or the model's verify: bound)", 1, 1000,
     "longest path explored, in rules"},
    {"mode", 0, OPT_CHOICE, NULL, "actual|ideal|naive", "actual", 0, -1, "as for ismv verify"},
    {"valuation", 0, OPT_CHOICE, NULL, "optimum|solver", "optimum", 0, -1,
     "optimum: estimate at the environment that maximises the probability; solver: at the solver's own "
     "witness "
     "(the paper)"},
    {"probability", 0, OPT_CHOICE, NULL, "joint|per-rule", "joint", 0, -1,
     "the estimator whose prediction is checked"},
    {"format", 'f', OPT_CHOICE, NULL, "text|csv", "text", 0, -1, "text table, or plot-ready CSV"},
    {"svg", 0, OPT_STRING, "FILE", NULL, NULL, 0, -1,
     "also write a scatter plot (predicted vs observed) to FILE"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the report to FILE"},
};

typedef struct {
  const cex_t *c;
  size_t rank;
  fwd_stats_t st;
  bool agrees; /* the prediction (with its error) meets the observed 95% interval */
} row_t;

static void path_text(strbuf_t *sb, const ism_model_t *m, const cex_t *c) {
  for (int k = 0; k < c->length; k++) strbuf_printf(sb, "%s%s", k ? " " : "", m->rules[c->rules[k]].id);
}

/* The first n rows are ranked (positive probability), the nb after them boundary-only. */
static void render_text(strbuf_t *sb, const ism_model_t *m, const row_t *rows, size_t n, size_t nb,
                        double rho, size_t agree) {
  strbuf_puts(sb, "rank  predicted    observed   95% interval        agrees  path\n");
  unsigned long observed = 0;
  for (size_t k = 0; k < n + nb; k++) {
    const row_t *r = &rows[k];
    if (k == n) strbuf_puts(sb, "boundary-only (probability 0), not ranked:\n");
    strbuf_printf(sb, "%-5zu %-12.6g %-10.6g [%.4f, %.4f]    %-7s ", r->rank, r->c->probability,
                  r->st.frequency, r->st.ci_lo, r->st.ci_hi, r->agrees ? "yes" : "no");
    path_text(sb, m, r->c);
    strbuf_putc(sb, '\n');
    if (k >= n) observed += r->st.outcomes[FWD_SAME_FAILURE];
  }
  if (nb)
    strbuf_printf(sb,
                  "\n%zu boundary-only counterexample%s simulated: the failure observed in %lu of %lu runs\n",
                  nb, nb == 1 ? "" : "s", observed, (unsigned long)nb * rows[n].st.runs);
  strbuf_printf(sb, "\n%zu of %zu ranked predictions lie in the observed 95%% interval\n", agree, n);
  if (isnan(rho))
    strbuf_puts(sb, "rank correlation (Spearman): undefined (fewer than two values, or a constant side)\n");
  else
    strbuf_printf(sb, "rank correlation (Spearman) of predicted and observed: %.4f\n", rho);
}

static void render_csv(strbuf_t *sb, const ism_model_t *m, const row_t *rows, size_t n) {
  strbuf_puts(sb, "rank,path,predicted,predicted_error,observed,ci_lo,ci_hi,runs");
  for (int o = 0; o < FWD_OUTCOMES; o++) strbuf_printf(sb, ",%s", fwd_outcome_name((fwd_outcome_t)o));
  strbuf_puts(sb, ",agrees,boundary_only\n");
  for (size_t k = 0; k < n; k++) {
    const row_t *r = &rows[k];
    strbuf_printf(sb, "%zu,", r->rank);
    path_text(sb, m, r->c);
    strbuf_printf(sb, ",%.17g,%.17g,%.17g,%.17g,%.17g,%lu", r->c->probability, r->c->probability_error,
                  r->st.frequency, r->st.ci_lo, r->st.ci_hi, r->st.runs);
    for (int o = 0; o < FWD_OUTCOMES; o++) strbuf_printf(sb, ",%lu", r->st.outcomes[o]);
    strbuf_printf(sb, ",%s,%s\n", r->agrees ? "yes" : "no", r->c->boundary_only ? "yes" : "no");
  }
}

/* A scatter plot like the paper's figure: predicted (x) against observed (y), 95% bars, the diagonal. */
static void render_svg(strbuf_t *sb, const ism_model_t *m, const row_t *rows, size_t n,
                       const char *estimator) {
  const double W = 480, H = 480, L = 60, B = 50, S = 400; /* plot square S at (L, H - B - S) */
  strbuf_printf(
      sb,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      W, H);
  strbuf_printf(sb, "<text x=\"%g\" y=\"18\" text-anchor=\"middle\">%s: predicted (%s) vs simulated</text>\n",
                L + S / 2, m->name, estimator);
  double x0 = L, y0 = H - B;
  strbuf_printf(sb, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\"/>\n",
                x0, y0 - S, S, S);
  strbuf_printf(sb,
                "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"gray\" stroke-dasharray=\"4 4\"/>\n",
                x0, y0, x0 + S, y0 - S);
  for (int t = 0; t <= 10; t += 2) {
    double f = t / 10.0;
    strbuf_printf(sb, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%.1f</text>\n", x0 + f * S, y0 + 16, f);
    strbuf_printf(sb, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.1f</text>\n", x0 - 6, y0 - f * S + 4, f);
  }
  strbuf_printf(sb, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">predicted probability</text>\n",
                x0 + S / 2, H - 12);
  strbuf_printf(sb,
                "<text x=\"16\" y=\"%g\" text-anchor=\"middle\" transform=\"rotate(-90 16 %g)\">observed "
                "frequency</text>\n",
                y0 - S / 2, y0 - S / 2);
  for (size_t k = 0; k < n; k++) {
    const row_t *r = &rows[k];
    double x = x0 + r->c->probability * S;
    strbuf_printf(sb, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"steelblue\"/>\n", x,
                  y0 - r->st.ci_lo * S, x, y0 - r->st.ci_hi * S);
    strbuf_printf(sb, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\"><title>rank %zu: ", x,
                  y0 - r->st.frequency * S, r->agrees ? "steelblue" : "firebrick", r->rank);
    path_text(sb, m, r->c);
    strbuf_puts(sb, "</title></circle>\n");
  }
  strbuf_puts(sb, "</svg>\n");
}

/* Simulates rows[k] for the counterexamples at index[k], k < n. Returns
 * how many were simulated before a stop request (ism/stop.h) ended it
 * (the last of them may have fewer runs). */
static size_t simulate_rows(const ism_model_t *m, const explore_result_t *res, const size_t *index, size_t n,
                            unsigned long runs, unsigned long seed, row_t *rows) {
  for (size_t k = 0; k < n; k++) {
    if (stop_requested()) return k;
    row_t *r = &rows[k];
    r->c = &res->cexs[index[k]];
    r->rank = index[k] + 1;
    /* A stream of its own, distinct from the joint estimator's (seed + 1 there would be the same). */
    fwd_counterexample(m, r->c, runs, rank_path_seed(r->c, seed ^ 0x5bd1e995UL), &r->st);
    double p = r->c->probability, e = r->c->probability_error;
    r->agrees = p + e >= r->st.ci_lo && p - e <= r->st.ci_hi;
  }
  return n;
}

static int run_simulate(cli_ctx_t *ctx, const cli_command_t *self, const char *path,
                        const cli_value_t *values) {
  ism_model_t *m = ism_load(path, &ctx->diags);
  if (!m) return CLI_EXIT_INVALID;
  if (!assume_check(m, &ctx->diags)) {
    ism_free(m);
    return CLI_EXIT_INVALID;
  }
  const cli_value_t *v;
  explore_options_t opt;
  rank_options_t ropt;
  long long top;
  cli_value_t *merged = verify_options_resolve(ctx, self, values, m, &opt, &ropt, &top);
  if (!merged) return ism_free(m), CLI_EXIT_INVALID;
  free(merged);
  unsigned long runs = (v = cli_opt(self, values, "runs"))->set ? (unsigned long)v->i : 10000;
  unsigned long seed = (v = cli_opt(self, values, "seed"))->set ? (unsigned long)v->i : 1;
  const char *format = (v = cli_opt(self, values, "format"))->set ? v->s : "text";
  const char *svg = cli_opt(self, values, "svg")->s;

  explore_result_t res;
  explore_run(m, &opt, &res);
  if (res.replay_failed) {
    fprintf(ctx->err, "ismv: internal error: %s\n", res.replay_message);
    explore_result_free(&res);
    ism_free(m);
    return CLI_EXIT_INTERNAL;
  }
  bool all_ranked = verify_rank(m, &ropt, res.cexs, res.ncexs);
  /* the N most likely of positive probability (ranked, first in the list), then up to N boundary-only ones */
  size_t npos = 0;
  while (npos < res.ncexs && !res.cexs[npos].boundary_only) npos++;
  size_t want = top > 0 ? (size_t)top : res.ncexs;
  size_t n = npos < want ? npos : want, nb = res.ncexs - npos < want ? res.ncexs - npos : want;
  size_t *index = xcalloc(n + nb + 1, sizeof *index);
  for (size_t k = 0; k < n; k++) index[k] = k;
  for (size_t k = 0; k < nb; k++) index[n + k] = npos + k;
  row_t *rows = xcalloc(n + nb + 1, sizeof *rows);
  size_t planned = n + nb, done = simulate_rows(m, &res, index, planned, runs, seed, rows);
  if (done < planned) { /* stopped: the rows simulated so far */
    nb = done > n ? done - n : 0;
    n = done < n ? done : n;
  }
  bool partial = res.reason || !all_ranked || done < planned || (done && rows[done - 1].st.runs < runs);
  const char *why = stop_requested() ? stop_message() : res.reason ? res.reason : "stopped";
  double *pred = xcalloc(n + 1, sizeof *pred), *obs = xcalloc(n + 1, sizeof *obs);
  size_t agree = 0, bad_boundary = 0;
  for (size_t k = 0; k < n; k++)
    pred[k] = rows[k].c->probability, obs[k] = rows[k].st.frequency, agree += rows[k].agrees;
  for (size_t k = n; k < n + nb; k++) bad_boundary += !rows[k].agrees;
  double rho = sim_rank_correlation(pred, obs, n);
  const char *estimator = ropt.estimator == RANK_JOINT ? "joint" : "per-rule";

  strbuf_t sb;
  strbuf_init(&sb);
  if (strcmp(format, "csv") == 0) {
    render_csv(&sb, m, rows, n + nb);
  } else {
    strbuf_printf(&sb,
                  "%s: %zu counterexample%s (mode %s, bound %d); %lu runs each, seed %lu; predicted: %s\n",
                  m->name, res.ncexs, res.ncexs == 1 ? "" : "s", ism_mode_name(opt.mode), opt.bound, runs,
                  seed, estimator);
    if (m->selection == ISM_SELECT_ANY)
      strbuf_puts(&sb, "assumption: when several rules are enabled, one is picked uniformly at random\n");
    if (n < npos && !partial) strbuf_printf(&sb, "the %zu most likely simulated\n", n);
    if (partial) {
      strbuf_printf(&sb, "partial: %s; %zu of %zu counterexamples simulated", why, n + nb, planned);
      if (done && rows[done - 1].st.runs < runs)
        strbuf_printf(&sb, ", the last in %lu runs", rows[done - 1].st.runs);
      strbuf_puts(&sb, all_ranked ? "\n" : "; some unranked\n");
    }
    strbuf_putc(&sb, '\n');
    render_text(&sb, m, rows, n, nb, rho, agree);
  }
  int rc = cli_write_output(ctx, strbuf_str(&sb));
  if (svg && !rc) {
    strbuf_clear(&sb);
    render_svg(&sb, m, rows, n + nb, estimator);
    rc = cli_write_file(ctx, svg, strbuf_str(&sb));
  }
  strbuf_free(&sb);
  free(pred), free(obs), free(rows), free(index);
  if (partial) fprintf(ctx->err, "ismv: inconclusive: %s\n", why);
  cli_outcome_t outcome = {.analysis = CLI_EXIT_OK,
                           .complete = !partial,
                           .expect = -1,
                           .interrupted = partial && stop_reason() == STOP_SIGNAL};
  if (agree < n) {
    fprintf(ctx->err, "ismv: %zu of %zu predictions lie outside the observed 95%% interval\n", n - agree, n);
    outcome.analysis = CLI_EXIT_VIOLATION;
  }
  if (bad_boundary) {
    fprintf(ctx->err, "ismv: %zu boundary-only counterexamples were observed to fail\n", bad_boundary);
    outcome.analysis = CLI_EXIT_VIOLATION;
  }
  if (!rc) rc = cli_exit_code(&outcome);
  explore_result_free(&res);
  ism_free(m);
  return rc;
}

const cli_command_t cmd_simulate = {
    .name = "simulate",
    .kind = NULL,
    .summary = "check verify's counterexample probabilities against seeded simulation (GSL)",
    .usage = "MODEL.yaml [options]",
    .description =
        "Runs `ismv verify` on MODEL.yaml, ranks its counterexamples, then runs the app forward from\n"
        "each counterexample's environment --runs times, in the real environment whatever --mode found\n"
        "the counterexample: every sensed value is the true value plus an error drawn from its\n"
        "distribution, the rule whose condition holds is taken (several enabled under selection: any:\n"
        "one uniformly at random), actions apply a fresh actuation error, and true values advance\n"
        "through the effects (x' == expr defines x'; the values no effect defines, the initial true\n"
        "values and dynamic values come from the counterexample). This executor shares only the model\n"
        "loader and the expression evaluator with the estimators. Counts how often the same path ends\n"
        "in the same failure; prints predicted probability, observed frequency, its 95% Clopper-Pearson\n"
        "interval and Spearman's rank correlation. Seeded and deterministic. See docs/probability.md.\n"
        "Exit code 10 when a prediction (with its error bar) lies outside its observed interval, else 0\n"
        "unless the model or the command line is invalid.",
    .options = options,
    .noptions = sizeof options / sizeof *options,
    .run = run_simulate,
};
