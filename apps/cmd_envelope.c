/* ismv envelope: safe environmental envelopes of an LTS controller (CAV'23):
 * the maximal sets of extra environment transitions under which the
 * controller still satisfies its safety property, and the comparison of two
 * controllers or two properties. Config format: docs/envelope.md. */
#include <stdlib.h>
#include <string.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/fsp_config.h"
#include "apps/progress.h"
#include "apps/expect.h"
#include "apps/report.h"
#include "apps/json_envelope.h"
#include "apps/sarif.h"
#include "ism/alloc.h"
#include "ism/stop.h"
#include "ism/strbuf.h"
#include "ism/vec.h"
#include "ism/ydoc.h"
#include "verifier/lts/envelope.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/lts.h"

static const cli_option_t options[] = {
    {"algorithm", 'a', OPT_CHOICE, NULL, "default|paper|brute-force", "default", 0, -1,
     "how to compute Δ: default (fast), paper (Alg. 1 with its heuristic), brute-force (tiny models)"},
    {"max-states", 0, OPT_INT, "N", NULL, "5000000", 1, 1e9,
     "limit on the states of each compiled process, composition and meta-system"},
    {"format", 'f', OPT_CHOICE, NULL, "text|json|sarif|dot|html", "text", 0, -1,
     "output format (html: the page of ismv report)"},
    {"stats", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1, "print meta-system sizes and check counts on stderr"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the report to FILE"},
    {"quiet", 'q', OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "no progress line on stderr (shown only when stderr is a terminal)"},
};

/* ------------------------------------------------------------ output */

static void trans_parts(const envelope_space_t *sp, int t, int *src, const char **action, int *dst) {
  *dst = sp->states[t % sp->nq];
  *src = sp->states[(t / sp->nq) % sp->nq];
  *action = sp->names[t / (sp->nq * sp->nq)];
}

/* A deviation set in the reference tool's order: as text {(src, action, dst), ...}
 * or as JSON [[src, "action", dst], ...] (null for no set). */
static void put_set(strbuf_t *sb, const envelope_space_t *sp, const bitword_t *d, bool json) {
  if (!d) {
    strbuf_puts(sb, "null");
    return;
  }
  strbuf_putc(sb, json ? '[' : '{');
  bool first = true;
  for (int t = 0; t < sp->ntrans; t++) {
    if (!bitset_get(d, (size_t)t)) continue;
    int s, e;
    const char *a;
    trans_parts(sp, t, &s, &a, &e);
    strbuf_printf(sb, "%s%c%d, ", first ? "" : ", ", json ? '[' : '(', s);
    if (json)
      strbuf_json_string(sb, a);
    else
      strbuf_puts(sb, a);
    strbuf_printf(sb, ", %d%c", e, json ? ']' : ')');
    first = false;
  }
  strbuf_putc(sb, json ? ']' : '}');
}

static void text_set(strbuf_t *sb, const envelope_space_t *sp, const bitword_t *d) {
  put_set(sb, sp, d, false);
}
static void json_set(strbuf_t *sb, const envelope_space_t *sp, const bitword_t *d) {
  put_set(sb, sp, d, true);
}

static int largest(const envelope_space_t *sp, const envelope_result_t *r) {
  int m = 0;
  for (int i = 0; i < r->ndeltas; i++) {
    int n = envelope_size(sp, r->deltas[i]);
    if (n > m) m = n;
  }
  return m;
}

static void text_delta(strbuf_t *sb, const envelope_space_t *sp, const envelope_result_t *r,
                       const char *indent) {
  if (r->partial)
    strbuf_printf(sb, "%spartial: %s; these maximal robust deviations were found so far, Δ may have more\n",
                  indent, stop_message() ? stop_message() : "stopped");
  if (r->normal_unsafe) {
    strbuf_printf(
        sb,
        "%snote: the environment violates the property (or an environmental constraint) without any "
        "deviation; no deviation is robust\n",
        indent);
  }
  strbuf_printf(sb, "%s|Δ| = %d maximal robust deviation%s, the largest has %d transitions\n", indent,
                r->ndeltas, r->ndeltas == 1 ? "" : "s", largest(sp, r));
  int normal = envelope_size(sp, sp->normal);
  for (int i = 0; i < r->ndeltas; i++) {
    int n = envelope_size(sp, r->deltas[i]);
    strbuf_printf(sb, "%sd%d (%d transitions, %d deviations): ", indent, i + 1, n, n - normal);
    text_set(sb, sp, r->deltas[i]);
    strbuf_putc(sb, '\n');
  }
}

/* The main result's partial flag is the envelope's (apps/json_envelope.h);
 * the compared one has its own. */
static void json_delta(strbuf_t *sb, const envelope_space_t *sp, const envelope_result_t *r,
                       const char *indent, bool own_partial) {
  if (own_partial) strbuf_printf(sb, "%s\"partial\": %s,\n", indent, r->partial ? "true" : "false");
  strbuf_printf(sb, "%s\"normal_unsafe\": %s,\n%s\"delta_size\": %d,\n%s\"largest\": %d,\n%s\"deltas\": [",
                indent, r->normal_unsafe ? "true" : "false", indent, r->ndeltas, indent, largest(sp, r),
                indent);
  for (int i = 0; i < r->ndeltas; i++) {
    strbuf_printf(sb, "%s\n%s  ", i ? "," : "", indent);
    json_set(sb, sp, r->deltas[i]);
  }
  strbuf_printf(sb, "%s%s]", r->ndeltas ? "\n" : "", r->ndeltas ? indent : "");
}

/* Each d over E's states: E's transitions black, deviations green; the
 * transitions between two states of one kind share an edge. */
static void dot_deltas(strbuf_t *sb, const envelope_space_t *sp, const lts_t *env,
                       const envelope_result_t *r) {
  /* a partial Δ is said so in DOT too (a comment before the first graph) */
  if (r->partial)
    strbuf_printf(sb, "// partial: %s; these maximal robust deviations were found so far, Δ may have more\n",
                  stop_message() ? stop_message() : "stopped");
  for (int i = 0; i < r->ndeltas; i++) {
    strbuf_printf(sb, "digraph d%d {\n  rankdir=LR;\n  node [shape=circle];\n  init [shape=point];\n", i + 1);
    for (int q = 0; q < sp->nq; q++)
      strbuf_printf(sb, "  s%d [label=\"%d\"];\n", sp->states[q], sp->states[q]);
    strbuf_printf(sb, "  init -> s%d;\n", env->init);
    for (int x = 0; x < sp->nq; x++)
      for (int y = 0; y < sp->nq; y++)
        for (int kind = 0; kind < 2; kind++) {
          strbuf_t lab;
          strbuf_init(&lab);
          for (int a = 0; a < sp->nactions; a++) {
            int t = (a * sp->nq + x) * sp->nq + y;
            if (!bitset_get(r->deltas[i], (size_t)t) || bitset_get(sp->normal, (size_t)t) != (kind == 0))
              continue;
            if (strbuf_str(&lab)[0]) strbuf_puts(&lab, ", ");
            strbuf_puts(&lab, sp->names[a]);
          }
          if (strbuf_str(&lab)[0]) {
            strbuf_printf(sb, "  s%d -> s%d [label=", sp->states[x], sp->states[y]);
            strbuf_json_string(sb, strbuf_str(&lab));
            strbuf_puts(sb, kind ? ", color=green, fontcolor=green];\n" : "];\n");
          }
          strbuf_free(&lab);
        }
    strbuf_puts(sb, "}\n");
  }
}

/* ---------------------------------------------------------------- run */

/* `expect:` keys, in the order of the results checked after the run. */
static const expect_key_t EXPECT_KEYS[] = {
    {"delta_size", EXPECT_NUMBER}, {"largest", EXPECT_NUMBER}, {"normal_unsafe", EXPECT_BOOL}, {"verdict", EXPECT_STRING}};

static const char *const config_keys[] = {"kind",           "environment", "controller", "property",
                                          "env-properties", "compare",     "algorithm",  "expect"};
static const char *const compare_keys[] = {"controller", "property"};

typedef struct {
  lts_t *env, *ctrl, *prop, *env_prop;
  lts_t *ctrl2, *prop2;
  const char *env_files, *ctrl_files, *prop_files, *envp_files, *cmp_files;
  envelope_t *a, *b;
  envelope_result_t ra, rb;
  bitword_t *a_only, *b_only;
} analysis_t;

static void analysis_free(analysis_t *x) {
  lts_free(x->env);
  lts_free(x->ctrl);
  lts_free(x->prop);
  lts_free(x->env_prop);
  lts_free(x->ctrl2);
  lts_free(x->prop2);
  envelope_result_free(&x->ra);
  envelope_result_free(&x->rb);
  envelope_free(x->a);
  envelope_free(x->b);
  free(x->a_only);
  free(x->b_only);
}

static bool parse_algorithm(const char *s, envelope_algorithm_t *out) {
  if (strcmp(s, "default") == 0)
    *out = ENVELOPE_DEFAULT;
  else if (strcmp(s, "paper") == 0)
    *out = ENVELOPE_PAPER;
  else if (strcmp(s, "brute-force") == 0)
    *out = ENVELOPE_BRUTE_FORCE;
  else
    return false;
  return true;
}

/* Builds and solves one envelope problem; reports failures at `at`. */
static envelope_t *solve(fsp_config_t *r, const envelope_problem_t *p, envelope_algorithm_t alg,
                         long max_states, envelope_result_t *res, loc_t at) {
  char *msg = NULL;
  envelope_t *ev = envelope_new(p, max_states, &msg);
  if (ev && !envelope_compute(ev, alg, res, &msg)) {
    envelope_free(ev);
    ev = NULL;
  }
  if (!ev) {
    /* every failure here is a size limit: the meta-system, or the
     * subsets an algorithm would enumerate */
    r->limit_hit = true;
    diag_error(&r->ctx->diags, at, "%s", msg ? msg : "the analysis failed");
    free(msg);
  }
  return ev;
}

/* ---- SARIF: the normal violation, and a comparison's witnesses ---- */

enum { RULE_NORMAL_UNSAFE, RULE_LOST, RULE_GAINED };
static const sarif_rule_t envelope_rules[] = {
    {"ISMV-ENVELOPE-NORMAL-UNSAFE", "NormalUnsafe",
     "The controller violates the property in the environment without deviations.",
     "E || C itself violates P (or E violates the environmental properties): no deviation is safe and the "
     "envelope is empty. The result is located at the controller in the configuration.",
     "Run `ismv envelope CONFIG.yaml`, then fix the controller or the property (docs/envelope.md)."},
    {"ISMV-ENVELOPE-LOST", "EnvelopeLost",
     "A deviation the main design tolerates is not tolerated by the compared one.",
     "The envelope comparison (compare: in the configuration) found a set of deviation transitions that is "
     "robust for the main controller and property and not for the compared one: the witness, a minimal such "
     "set. The result is located at compare:.",
     "Run `ismv envelope CONFIG.yaml` for both envelopes; if the compared design is the newer one, it lost "
     "this robustness. docs/envelope.md explains the comparison (Def. 6/7)."},
    {"ISMV-ENVELOPE-GAINED", "EnvelopeGained",
     "A deviation the compared design tolerates is not tolerated by the main one.",
     "The envelope comparison (compare: in the configuration) found a set of deviation transitions that is "
     "robust for the compared controller or property and not for the main one: the witness, a minimal such "
     "set. The result is located at compare:.",
     "Run `ismv envelope CONFIG.yaml` for both envelopes; if the main design is the newer one, it lost this "
     "robustness. docs/envelope.md explains the comparison (Def. 6/7)."},
};

typedef struct {
  const char *config;
  loc_t ctrl_loc, cmp_loc;
} sarif_where_t;

static void sarif_witness(strbuf_t *sb, bool *first, const analysis_t *x, const sarif_where_t *w, int rule,
                          const bitword_t *set) {
  const envelope_space_t *sp = envelope_space(x->a);
  strbuf_t msg, key;
  strbuf_init(&msg);
  strbuf_init(&key);
  strbuf_printf(&key, "%s\x1f", envelope_rules[rule].id);
  size_t set_at = key.len;
  text_set(&key, sp, set);
  strbuf_printf(&msg, "deviation %s is tolerated with %s, not with %s", strbuf_str(&key) + set_at,
                rule == RULE_LOST ? "the main design" : "the compared design (compare:)",
                rule == RULE_LOST ? "the compared design (compare:)" : "the main design");
  sarif_result_begin(sb, first, envelope_rules, rule, rule == RULE_LOST ? "warning" : "note",
                     strbuf_str(&msg));
  strbuf_puts(sb, ", \"locations\": [");
  sarif_location(sb, w->config, w->cmp_loc.line, w->cmp_loc.col);
  strbuf_puts(sb, "], ");
  sarif_fingerprints(sb, "ismvEnvelope/v1", strbuf_str(&key));
  strbuf_putc(sb, '}');
  strbuf_free(&msg);
  strbuf_free(&key);
}

static void render_sarif(strbuf_t *sb, const analysis_t *x, const sarif_where_t *w) {
  sarif_begin(sb, envelope_rules, sizeof envelope_rules / sizeof *envelope_rules);
  bool first = true;
  if (x->ra.normal_unsafe) {
    sarif_result_begin(sb, &first, envelope_rules, RULE_NORMAL_UNSAFE, "error",
                       "the controller violates the property in the environment without deviations");
    strbuf_puts(sb, ", \"locations\": [");
    sarif_location(sb, w->config, w->ctrl_loc.line, w->ctrl_loc.col);
    strbuf_puts(sb, "], ");
    sarif_fingerprints(sb, "ismvEnvelope/v1", envelope_rules[RULE_NORMAL_UNSAFE].id);
    strbuf_putc(sb, '}');
  }
  if (x->b && x->a_only) sarif_witness(sb, &first, x, w, RULE_LOST, x->a_only);
  if (x->b && x->b_only) sarif_witness(sb, &first, x, w, RULE_GAINED, x->b_only);
  bool partial = x->ra.partial || (x->b && x->rb.partial);
  char *note =
      xasprintf("inconclusive: %s; the envelope is partial (Δ may have more maximal robust deviations)",
                stop_message() ? stop_message() : "stopped");
  sarif_end(sb, !partial, (const char *const[]){note}, 1);
  free(note);
}

static void render(strbuf_t *sb, const char *format, const analysis_t *x, const char *algorithm,
                   bool cmp_ctrl, envelope_verdict_t verdict) {
  const envelope_space_t *sp = envelope_space(x->a);
  const char *side_b = cmp_ctrl ? "controller" : "property";
  if (strcmp(format, "dot") == 0) {
    dot_deltas(sb, sp, x->env, &x->ra);
    return;
  }
  if (strcmp(format, "json") == 0) {
    strbuf_puts(sb, "{\n  \"environment\": {\"files\": ");
    strbuf_json_string(sb, x->env_files);
    strbuf_printf(sb,
                  ", \"states\": %d, \"transitions\": %d},\n  \"controller\": {\"files\": ", x->env->nstates,
                  x->env->ntrans);
    strbuf_json_string(sb, x->ctrl_files);
    strbuf_printf(sb, ", \"states\": %d, \"transitions\": %d},\n  \"property\": ", x->ctrl->nstates,
                  x->ctrl->ntrans);
    strbuf_json_string(sb, x->prop_files);
    strbuf_puts(sb, ",\n  \"env_properties\": ");
    if (x->envp_files)
      strbuf_json_string(sb, x->envp_files);
    else
      strbuf_puts(sb, "null");
    strbuf_puts(sb, ",\n  \"algorithm\": ");
    strbuf_json_string(sb, algorithm);
    strbuf_printf(sb, ",\n  \"deviation_space\": %d,\n", sp->ntrans);
    json_delta(sb, sp, &x->ra, "  ", false);
    if (x->b) {
      strbuf_printf(sb, ",\n  \"compare\": {\n    \"%s\": ", side_b);
      strbuf_json_string(sb, x->cmp_files);
      strbuf_puts(sb, ",\n");
      json_delta(sb, sp, &x->rb, "    ", true);
      strbuf_puts(sb, "\n  },\n  \"comparison\": "); /* "verdict" is the envelope's */
      strbuf_json_string(sb, envelope_verdict_name(verdict));
      strbuf_puts(sb, ",\n  \"witness\": {\"main_only\": ");
      json_set(sb, sp, x->a_only);
      strbuf_puts(sb, ", \"compare_only\": ");
      json_set(sb, sp, x->b_only);
      strbuf_puts(sb, "}");
    }
    strbuf_puts(sb, ",\n  \"normal\": ");
    json_set(sb, sp, sp->normal);
    strbuf_puts(sb, "\n}\n");
    return;
  }
  strbuf_printf(sb, "environment %s: %d states, %d transitions\n", x->env_files, x->env->nstates,
                x->env->ntrans);
  strbuf_printf(sb, "controller %s: %d states, %d transitions\n", x->ctrl_files, x->ctrl->nstates,
                x->ctrl->ntrans);
  strbuf_printf(sb, "property %s\n", x->prop_files);
  if (x->envp_files) strbuf_printf(sb, "environmental constraints %s\n", x->envp_files);
  strbuf_printf(sb, "deviation space: %d transitions (%d of the environment)\n\n", sp->ntrans,
                envelope_size(sp, sp->normal));
  text_delta(sb, sp, &x->ra, "");
  if (!x->b) return;
  const char *main_name = cmp_ctrl ? x->ctrl_files : x->prop_files;
  strbuf_printf(sb, "\ncompared with %s %s:\n", side_b, x->cmp_files);
  text_delta(sb, sp, &x->rb, "  ");
  strbuf_printf(sb, "\nverdict: %s\n", envelope_verdict_name(verdict));
  if (x->a_only) {
    strbuf_printf(sb, "witness: deviation ");
    text_set(sb, sp, x->a_only);
    strbuf_printf(sb, " is tolerated with %s %s, not with %s\n", side_b, main_name, x->cmp_files);
  }
  if (x->b_only) {
    strbuf_printf(sb, "witness: deviation ");
    text_set(sb, sp, x->b_only);
    strbuf_printf(sb, " is tolerated with %s %s, not with %s\n", side_b, x->cmp_files, main_name);
  }
}

static int run_envelope(cli_ctx_t *ctx, const cli_command_t *self, const char *path,
                        const cli_value_t *values) {
  fsp_config_t r;
  fsp_config_init(&r, ctx, path);
  long max_states =
      cli_opt(self, values, "max-states")->set ? (long)cli_opt(self, values, "max-states")->i : 5000000;
  r.max_states = max_states;
  int rc = CLI_EXIT_INVALID;
  analysis_t x = {0};
  char *text = NULL;
  const char *what = "an envelope configuration";

  ynode_t *root = ydoc_load_file(path, &r.arena, &ctx->diags);
  if (!root || !ydoc_expect_kind(root, YNODE_MAP, what, &ctx->diags)) goto done;
  bool ok = ydoc_check_keys(root, config_keys, sizeof config_keys / sizeof *config_keys, what, &ctx->diags);
  const ynode_t *n_env = ydoc_require(root, "environment", what, &ctx->diags);
  const ynode_t *n_ctrl = ydoc_require(root, "controller", what, &ctx->diags);
  const ynode_t *n_prop = ydoc_require(root, "property", what, &ctx->diags);
  const ynode_t *n_envp = ydoc_get(root, "env-properties");
  const ynode_t *n_cmp = ydoc_get(root, "compare");
  const ynode_t *n_alg = ydoc_get(root, "algorithm");
  const ynode_t *n_expect = ydoc_get(root, "expect");
  envelope_algorithm_t alg = ENVELOPE_DEFAULT;
  const char *alg_name = "default";
  if (n_alg) {
    if (!ydoc_string(n_alg, &alg_name, "'algorithm'", &ctx->diags))
      ok = false;
    else if (!parse_algorithm(alg_name, &alg)) {
      diag_error(&ctx->diags, n_alg->loc, "unknown algorithm '%s' (expected default, paper or brute-force)",
                 alg_name);
      ok = false;
    }
  }
  if (cli_opt(self, values, "algorithm")->set) {
    alg_name = cli_opt(self, values, "algorithm")->s;
    parse_algorithm(alg_name, &alg);
  }
  if (n_cmp) {
    if (!ydoc_expect_kind(n_cmp, YNODE_MAP, "'compare'", &ctx->diags))
      ok = false;
    else if (!ydoc_check_keys(n_cmp, compare_keys, 2, "'compare'", &ctx->diags))
      ok = false;
    else if ((ydoc_get(n_cmp, "controller") != NULL) == (ydoc_get(n_cmp, "property") != NULL)) {
      diag_error(&ctx->diags, n_cmp->loc,
                 "'compare' needs exactly one of a second 'controller' or a second 'property'");
      ok = false;
    }
  }
  /* "verdict" only with compare: (it names the comparison's outcome) */
  if (!expect_validate(ctx, n_expect, EXPECT_KEYS, n_cmp ? 4 : 3)) ok = false;
  if (!ok || !n_env || !n_ctrl || !n_prop) goto done;

  x.env = fsp_config_load(&r, n_env, "'environment'", NULL, FSP_LOAD_PLAIN, &x.env_files, NULL);
  x.ctrl = fsp_config_load(&r, n_ctrl, "'controller'", NULL, FSP_LOAD_PLAIN, &x.ctrl_files, NULL);
  if (fsp_config_progress_count(&r, r.files.len) > 0)
    diag_warning(&ctx->diags, n_env->loc,
                 "the environment or controller declares progress properties: `ismv robustness` checks them, "
                 "`envelope` does not");
  x.prop = fsp_config_load(&r, n_prop, "'property'", NULL, FSP_LOAD_PROPERTY, &x.prop_files, NULL);
  if (n_envp)
    x.env_prop =
        fsp_config_load(&r, n_envp, "'env-properties'", NULL, FSP_LOAD_PROPERTY, &x.envp_files, NULL);
  const ynode_t *n_cmp_ctrl = n_cmp ? ydoc_get(n_cmp, "controller") : NULL;
  const ynode_t *n_cmp_prop = n_cmp ? ydoc_get(n_cmp, "property") : NULL;
  if (n_cmp_ctrl)
    x.ctrl2 =
        fsp_config_load(&r, n_cmp_ctrl, "'compare.controller'", NULL, FSP_LOAD_PLAIN, &x.cmp_files, NULL);
  if (n_cmp_prop)
    x.prop2 =
        fsp_config_load(&r, n_cmp_prop, "'compare.property'", NULL, FSP_LOAD_PROPERTY, &x.cmp_files, NULL);
  if (!x.env || !x.ctrl || !x.prop || (n_envp && !x.env_prop) || (n_cmp_ctrl && !x.ctrl2) ||
      (n_cmp_prop && !x.prop2))
    goto done;
  if (x.env->error >= 0 && x.env->error == x.env->init) {
    diag_error(&ctx->diags, n_env->loc, "the environment starts in its error state");
    goto done;
  }

  progress_t line;
  progress_init(&line, ctx, cli_opt(self, values, "quiet")->set);
  progress_phase(&line, "envelope: building the meta-system and searching the deviations (%s)", alg_name);
  envelope_problem_t pa = {x.env, x.ctrl, x.prop, x.env_prop};
  x.a = solve(&r, &pa, alg, max_states, &x.ra, n_ctrl->loc);
  progress_end(&line);
  if (!x.a) goto done;
  envelope_verdict_t verdict = ENVELOPE_EQUAL;
  if (n_cmp) {
    envelope_problem_t pb = {x.env, x.ctrl2 ? x.ctrl2 : x.ctrl, x.prop2 ? x.prop2 : x.prop, x.env_prop};
    progress_phase(&line, "envelope: the same for the comparison's %s",
                   n_cmp_ctrl ? "controller" : "property");
    x.b = solve(&r, &pb, alg, max_states, &x.rb, n_cmp->loc);
    progress_end(&line);
    if (!x.b) goto done;
    verdict = envelope_compare(x.a, &x.ra, x.b, &x.rb, &x.a_only, &x.b_only);
  }
  if (cli_opt(self, values, "stats")->set) {
    fprintf(ctx->err, "envelope: meta-system %d states (P_env: %d), %ld checks/sets\n",
            envelope_meta_states(x.a, 0), envelope_meta_states(x.a, 1), x.ra.checks);
    if (x.b)
      fprintf(ctx->err, "envelope: compared meta-system %d states, %ld checks/sets\n",
              envelope_meta_states(x.b, 0), x.rb.checks);
  }

  const char *format = cli_opt(self, values, "format")->set ? cli_opt(self, values, "format")->s : "text";
  strbuf_t sb;
  strbuf_init(&sb);
  bool html = strcmp(format, "html") == 0;
  if (strcmp(format, "sarif") == 0) {
    sarif_where_t where = {path, n_ctrl->loc, n_cmp ? n_cmp->loc : (loc_t){0}};
    render_sarif(&sb, &x, &where);
  } else {
    render(&sb, html ? "json" : format, &x, alg_name, n_cmp_ctrl != NULL, verdict);
  }
  text = strbuf_take(&sb);
  bool json = strcmp(format, "json") == 0 || html; /* written last: it states the exit code */
  rc = json ? CLI_EXIT_OK : cli_write_output(ctx, text);
  bool partial = x.ra.partial || (x.b && x.rb.partial);
  /* E ‖ C itself violates P (or E violates P_env): a violation, unless an
   * expect: block says what to expect */
  cli_outcome_t outcome = {
      .analysis = !n_expect && x.ra.normal_unsafe ? CLI_EXIT_VIOLATION : CLI_EXIT_OK,
      .complete = !partial,
      .expect = -1,
      .interrupted = partial && stop_reason() == STOP_SIGNAL,
  };
  /* a partial Δ decides nothing, whatever expect: says */
  if (rc == CLI_EXIT_OK && n_expect && !partial) {
    const envelope_space_t *sp = envelope_space(x.a);
    expect_actual_t actual[] = {
        {"delta_size", EXPECT_NUMBER, x.ra.ndeltas, false, NULL},
        {"largest", EXPECT_NUMBER, largest(sp, &x.ra), false, NULL},
        {"normal_unsafe", EXPECT_BOOL, 0, x.ra.normal_unsafe, NULL},
        {"verdict", EXPECT_STRING, 0, false, envelope_verdict_name(verdict)},
    };
    outcome.expect = expect_check(ctx, n_expect, EXPECT_KEYS, actual, n_cmp ? 4 : 3);
    outcome.expect_verdict = true; /* each key states the envelope the analysis decides */
  }
  if (rc == CLI_EXIT_OK) rc = cli_exit_code(&outcome);
  if (json) {
    int analysis = partial ? CLI_EXIT_INCONCLUSIVE : x.ra.normal_unsafe ? CLI_EXIT_VIOLATION : CLI_EXIT_OK;
    json_envelope_t envelope = {.command = "envelope",
                                .input = path,
                                .verdict = json_envelope_verdict(analysis),
                                .exit_code = rc,
                                .partial = partial ? (stop_message() ? stop_message() : "stopped") : NULL};
    int wrc = report_write_result(ctx, &envelope, text, html, NULL);
    if (wrc) rc = wrc;
  }

done:
  if (!text && stop_requested()) rc = cli_write_stopped(ctx, cli_opt(self, values, "format")->s, NULL);
  if (rc == CLI_EXIT_INVALID) /* the run failed: on a size limit, it is inconclusive */
    rc = cli_exit_code(&(cli_outcome_t){.analysis = rc, .expect = -1, .limit_hit = r.limit_hit});
  free(text);
  analysis_free(&x);
  fsp_config_free(&r);
  return rc;
}

const cli_command_t cmd_envelope = {
    .name = "envelope",
    .kind = "envelope",
    .summary = "safe environmental envelopes of an LTS controller (maximal robust deviations, FSP models)",
    .usage = "CONFIG.yaml [options]",
    .description =
        "Computes Δ: every maximal set d of environment transitions (src, action, dst) over the states\n"
        "and actions of the environment E (`environment:`) such that E_d under the controller C\n"
        "(`controller:`) satisfies the safety property P (`property:`) and E_d satisfies every\n"
        "environmental constraint (`env-properties:`, a list, conjoined). Each d lists all its\n"
        "transitions, E's own included; τ transitions of E and C are deleted first, and properties\n"
        "are completed (an action of their alphabet they do not enable is a violation), as the\n"
        "CAV'23 tool does. Each FSP file contributes its last process. With `compare:` (a second\n"
        "`controller:` or `property:`) the verdict says whether the main one is equal, more robust,\n"
        "less robust or incomparable, with a minimal witness deviation for each difference.\n"
        "`algorithm:` (or --algorithm) picks default, paper or brute-force. `expect:` keys:\n"
        "delta_size, largest, normal_unsafe and, with compare, verdict.\n"
        "Format and semantics: docs/envelope.md.",
    .options = options,
    .noptions = sizeof options / sizeof *options,
    .run = run_envelope,
};
