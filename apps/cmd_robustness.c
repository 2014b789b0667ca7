/* ismv robustness: behavioural robustness of an LTS machine (FSE'20):
 * the deviations of the environment it tolerates as representative
 * traces, their explanations by a deviation model, and the comparison of
 * two designs or two properties. Config format: docs/robustness.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/eofm_env.h"
#include "apps/fsp_config.h"
#include "apps/expect.h"
#include "apps/report.h"
#include "apps/json_envelope.h"
#include "apps/sarif.h"
#include "apps/reference_config.h"
#include "ism/alloc.h"
#include "ism/stop.h"
#include "ism/strbuf.h"
#include "ism/vec.h"
#include "ism/ydoc.h"
#include "verifier/lts/aut.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/lts.h"
#include "verifier/lts/robustness.h"

static const cli_option_t options[] = {
    {"no-minimize", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "do not minimise the weakest assumption (Fortis' classes instead of the paper's)"},
    {"format", 'f', OPT_CHOICE, NULL, "text|json|sarif|dot|fsp|html", "text", 0, -1,
     "output format (fsp: the weakest assumption as an FSP process WA; html: the page of ismv report)"},
    {"dot", 0, OPT_STRING, "FILE", NULL, NULL, 0, -1,
     "also write the weakest assumption and Δ as Graphviz to FILE"},
    {"write-aut", 0, OPT_STRING, "FILE", NULL, NULL, 0, -1,
     "also write the weakest assumption as an Aldebaran .aut LTS (CADP, mCRL2) to FILE"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the report to FILE"},
    {"max-states", 0, OPT_INT, "N", NULL, "5000000", 1, 1e9,
     "limit on the states of each compiled process and composition"},
    {"print", 0, OPT_INT, "N", NULL, "all", 0, 1e9,
     "text: list at most N traces of each kind (counts stay complete)"},
    {"unsafe", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "also report the unsafe behaviours: environment traces after which the system may violate the property "
     "(Fortis)"},
    {"expand", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "expand each class to every trace of the weakest assumption with its representative as prefix, up to a "
     "cycle or deadlock (Fortis)"},
    {"default-progress", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "when no progress property is declared, check LTSA's default one on M || E: every action occurs in "
     "every terminal set"},
    {"disables", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "add a sink state to the weakest assumption for the actions the system disables (Fortis)"},
};

/* One analysed design: machine, property and what was computed from them. */
typedef struct {
  const char *sys_files, *prop_files; /* for the report: comma-separated file names */
  lts_t *sys, *prop;
  lts_t *w;
  bool empty;
} design_t;

/* ------------------------------------------------------------ output */

static void json_labels(strbuf_t *sb, const lts_labels_t *labels, const int *l, int n) {
  strbuf_putc(sb, '[');
  for (int i = 0; i < n; i++) {
    if (i) strbuf_puts(sb, ", ");
    strbuf_json_string(sb, lts_label_name(labels, l[i]));
  }
  strbuf_putc(sb, ']');
}

static void text_labels(strbuf_t *sb, const lts_labels_t *labels, const int *l, int n) {
  for (int i = 0; i < n; i++) strbuf_printf(sb, "%s%s", i ? ", " : "", lts_label_name(labels, l[i]));
}

/* An LTS's transitions as [src, "label", dst] triples (for the report's drawing). */
static void json_lts(strbuf_t *sb, const lts_t *l) {
  strbuf_printf(sb, "{\"initial\": %d, \"error\": ", l->init);
  if (l->error >= 0)
    strbuf_printf(sb, "%d", l->error);
  else
    strbuf_puts(sb, "null");
  strbuf_puts(sb, ", \"transitions\": [");
  bool first = true;
  for (int s = 0; s < l->nstates; s++)
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      strbuf_printf(sb, "%s[%d, ", first ? "" : ", ", s);
      strbuf_json_string(sb, lts_label_name(l->labels, l->succ_label[i]));
      strbuf_printf(sb, ", %d]", l->succ_dst[i]);
      first = false;
    }
  strbuf_puts(sb, "]}");
}

static void json_traces(strbuf_t *sb, const lts_labels_t *labels, const robust_traces_t *t,
                        const robust_expansion_t *exp, const char *indent) {
  strbuf_printf(sb, "%s\"classes\": %d,\n%s\"traces\": [", indent, t->ntraces, indent);
  for (int i = 0; i < t->ntraces; i++) {
    const robust_trace_t *rt = &t->traces[i];
    strbuf_printf(sb, "%s\n%s  {\"trace\": ", i ? "," : "", indent);
    json_labels(sb, labels, rt->trace, rt->len);
    strbuf_puts(sb, ", \"explanation\": ");
    if (rt->expl)
      json_labels(sb, labels, rt->expl, rt->expl_len);
    else
      strbuf_puts(sb, "null");
    strbuf_puts(sb, ", \"faults\": ");
    json_labels(sb, labels, rt->faults, rt->expl ? rt->nfaults : 0);
    if (exp) {
      strbuf_puts(sb, ", \"expanded\": [");
      for (int k = 0; k < exp[i].npaths; k++) {
        strbuf_puts(sb, k ? ", {\"trace\": " : "{\"trace\": ");
        json_labels(sb, labels, exp[i].paths[k].trace, exp[i].paths[k].len);
        strbuf_printf(sb, ", \"deadlock\": %s}", exp[i].paths[k].deadlock ? "true" : "false");
      }
      strbuf_putc(sb, ']');
    }
    strbuf_putc(sb, '}');
  }
  strbuf_printf(sb, "%s]", t->ntraces ? "\n  " : "");
}

typedef struct {
  char *key; /* comma-separated faults, "" for unexplained */
  int count;
} group_t;

static int cmp_group(const void *a, const void *b) {
  const group_t *x = a, *y = b;
  if ((x->key[0] == '\0') != (y->key[0] == '\0')) return x->key[0] == '\0' ? 1 : -1;
  return strcmp(x->key, y->key);
}

/* Groups the explained traces by fault set (sorted by name, unexplained last). */
static group_t *group_traces(const lts_labels_t *labels, const robust_traces_t *t, size_t *ngroups) {
  VEC(group_t) g = {0};
  strbuf_t sb;
  strbuf_init(&sb);
  for (int i = 0; i < t->ntraces; i++) {
    const robust_trace_t *rt = &t->traces[i];
    strbuf_clear(&sb);
    if (rt->expl) text_labels(&sb, labels, rt->faults, rt->nfaults);
    if (rt->expl && rt->nfaults == 0) strbuf_puts(&sb, "(no fault)");
    size_t k = 0;
    for (; k < g.len; k++)
      if (strcmp(g.data[k].key, strbuf_str(&sb)) == 0) break;
    if (k == g.len) VEC_PUSH(&g, ((group_t){xstrdup(strbuf_str(&sb)), 0}));
    g.data[k].count++;
  }
  strbuf_free(&sb);
  if (g.len) qsort(g.data, g.len, sizeof *g.data, cmp_group);
  *ngroups = g.len;
  return g.data;
}

static int count_explained(const robust_traces_t *t) {
  int n = 0;
  for (int i = 0; i < t->ntraces; i++) n += t->traces[i].expl != NULL;
  return n;
}

static void text_traces(strbuf_t *sb, const lts_labels_t *labels, const robust_traces_t *t,
                        const robust_expansion_t *exp, bool explained, long long limit) {
  for (int i = 0; i < t->ntraces; i++) {
    if (i == limit) {
      strbuf_printf(sb, "  ... %d more\n", t->ntraces - i);
      break;
    }
    const robust_trace_t *rt = &t->traces[i];
    strbuf_printf(sb, "  trace %d: ", i + 1);
    text_labels(sb, labels, rt->trace, rt->len);
    strbuf_putc(sb, '\n');
    if (explained && rt->expl) {
      strbuf_puts(sb, "    explanation: ");
      text_labels(sb, labels, rt->expl, rt->expl_len);
      strbuf_putc(sb, '\n');
    } else if (explained)
      strbuf_puts(sb, "    unexplained\n");
    if (!exp) continue;
    strbuf_printf(sb, "    expanded: %d trace%s\n", exp[i].npaths, exp[i].npaths == 1 ? "" : "s");
    for (int k = 0; k < exp[i].npaths; k++) {
      strbuf_puts(sb, "      ");
      text_labels(sb, labels, exp[i].paths[k].trace, exp[i].paths[k].len);
      strbuf_puts(sb, exp[i].paths[k].deadlock ? " (deadlock)\n" : "\n");
    }
  }
}

static long count_expanded(const robust_traces_t *t, const robust_expansion_t *e) {
  long n = 0;
  for (int i = 0; e && i < t->ntraces; i++) n += e[i].npaths;
  return n;
}

static void expansions_free(robust_expansion_t *e, int n) {
  for (int i = 0; e && i < n; i++) robust_expansion_free(&e[i]);
  free(e);
}

/* ---------------------------------------------------------------- run */

/* "interrupted by a signal; WHAT" (static storage: one at a time). */
static const char *partial_reason(const char *what) {
  static char buf[512];
  if (stop_message())
    snprintf(buf, sizeof buf, "%s; %s", stop_message(), what);
  else /* a limit, not a stop request */
    snprintf(buf, sizeof buf, "%s", what);
  return buf;
}

/* `expect:` keys, in the order of the results checked after the run. */
static const expect_key_t EXPECT_KEYS[] = {
    {"classes", EXPECT_NUMBER},           {"explained", EXPECT_NUMBER},
    {"unexplained", EXPECT_NUMBER},       {"system_states", EXPECT_NUMBER},
    {"system_transitions", EXPECT_NUMBER}, {"environment_states", EXPECT_NUMBER},
    {"environment_transitions", EXPECT_NUMBER}, {"assumption_states", EXPECT_NUMBER},
    {"normal_violation", EXPECT_BOOL},    {"progress_violations", EXPECT_NUMBER},
    {"task_model_states", EXPECT_NUMBER}, {"task_model_transitions", EXPECT_NUMBER},
    {"unsafe", EXPECT_NUMBER},            {"expanded", EXPECT_NUMBER},
    {"a_not_b", EXPECT_NUMBER},           {"b_not_a", EXPECT_NUMBER},
    {"more_robust", EXPECT_BOOL}};
#define N_EXPECT_KEYS (sizeof EXPECT_KEYS / sizeof *EXPECT_KEYS)

static const char *const config_keys[] = {"kind",   "system",  "environment", "property", "deviation",
                                          "faults", "compare", "minimize",    "expect"};
static const char *const compare_keys[] = {"system", "property"};
static const char *const reference_keys[] = {"sys", "env", "prop", "dev"};

/* ---- SARIF: the normal violation, and a comparison's differences ---- */

enum { RULE_NORMAL_VIOLATION, RULE_A_NOT_B, RULE_B_NOT_A, RULE_PROGRESS };
static const sarif_rule_t robustness_rules[] = {
    {"ISMV-ROBUSTNESS-NORMAL-VIOLATION", "NormalViolation",
     "The system violates its property under the normal environment.",
     "Composed with the environment without deviations, the system can already reach the property's error "
     "state: its robustness is moot until this is fixed. The message gives the shortest violating trace; the "
     "result is located at the property in the configuration.",
     "Run `ismv robustness CONFIG.yaml` for the trace, then fix the system or the property. "
     "docs/robustness.md explains the analysis."},
    {"ISMV-ROBUSTNESS-LOST", "RobustnessLost",
     "A deviation the main design tolerates is not tolerated by the compared one.",
     "The robustness comparison (compare: in the configuration) found a class of environmental deviations, "
     "given by its representative trace, that design A (system and property) tolerates and design B (the "
     "compare: entry) does not. One result per class, located at compare:.",
     "Run `ismv robustness CONFIG.yaml` for both sides' classes; if B is the newer design, it lost this "
     "robustness. docs/robustness.md explains the comparison."},
    {"ISMV-ROBUSTNESS-GAINED", "RobustnessGained",
     "A deviation the compared design tolerates is not tolerated by the main one.",
     "The robustness comparison (compare: in the configuration) found a class of environmental deviations, "
     "given by its representative trace, that design B (the compare: entry) tolerates and design A (system "
     "and property) does not. One result per class, located at compare:.",
     "Run `ismv robustness CONFIG.yaml` for both sides' classes; if A is the newer design, it lost this "
     "robustness. docs/robustness.md explains the comparison."},
    {"ISMV-ROBUSTNESS-PROGRESS-VIOLATION", "ProgressViolation",
     "The system composed with its environment violates a progress property.",
     "A progress property (LTSA's `progress NAME = {...}`) declared in the system's or the environment's "
     "FSP files fails on M ‖ E: a terminal set of states is reachable in which none of its actions occurs. "
     "The message gives a shortest trace into that set and the actions inside it; the result is located at "
     "the declaration.",
     "Run `ismv robustness CONFIG.yaml` for the trace and the terminal set's actions, then fix the system "
     "or the property. docs/robustness.md and docs/fsp.md explain progress."},
};

typedef struct {
  const char *config;
  const lts_labels_t *labels;
  const int *normal; /* the normal violation's trace, or NULL */
  int normal_len;
  loc_t prop_loc, cmp_loc, sys_loc;
  const robust_traces_t *a_not_b, *b_not_a; /* NULL without compare: */
  const fsp_progress_result_t *prog;        /* the progress properties checked */
  size_t nprog;
  const char *partial; /* why the run is partial, or NULL */
} sarif_input_t;

static void sarif_trace_result(strbuf_t *sb, bool *first, const sarif_input_t *in, int rule,
                               const char *level, const int *trace, int len, loc_t at) {
  strbuf_t msg, key;
  strbuf_init(&msg);
  strbuf_init(&key);
  strbuf_puts(&msg, rule == RULE_NORMAL_VIOLATION
                        ? "the system violates the property under the normal environment: "
                    : rule == RULE_A_NOT_B ? "tolerated by A, not by B (compare:): the deviation class of "
                    : rule == RULE_B_NOT_A ? "tolerated by B (compare:), not by A: the deviation class of "
                                           : "");
  text_labels(&msg, in->labels, trace, len);
  strbuf_printf(&key, "%s\x1f", robustness_rules[rule].id);
  text_labels(&key, in->labels, trace, len);
  sarif_result_begin(sb, first, robustness_rules, rule, level, strbuf_str(&msg));
  strbuf_puts(sb, ", \"locations\": [");
  sarif_location(sb, in->config, at.line, at.col);
  strbuf_puts(sb, "], ");
  sarif_fingerprints(sb, "ismvRobustness/v1", strbuf_str(&key));
  strbuf_putc(sb, '}');
  strbuf_free(&msg);
  strbuf_free(&key);
}

/* A violated progress property: its name and trace in the fingerprint, the
 * terminal set's actions in the message. */
static void sarif_progress_result(strbuf_t *sb, bool *first, const sarif_input_t *in,
                                  const fsp_progress_result_t *p) {
  strbuf_t msg, key;
  strbuf_init(&msg);
  strbuf_init(&key);
  strbuf_printf(&msg, "progress %s is violated: ", p->name);
  text_labels(&msg, in->labels, p->trace, p->len);
  if (p->len == 0) strbuf_puts(&msg, "(empty: the initial state is in it)");
  strbuf_puts(&msg, " leads to a terminal set with actions {");
  text_labels(&msg, in->labels, p->actions, p->nactions);
  strbuf_putc(&msg, '}');
  strbuf_printf(&key, "%s\x1f%s\x1f", robustness_rules[RULE_PROGRESS].id, p->name);
  text_labels(&key, in->labels, p->trace, p->len);
  sarif_result_begin(sb, first, robustness_rules, RULE_PROGRESS, "error", strbuf_str(&msg));
  strbuf_puts(sb, ", \"locations\": [");
  if (p->loc.file)
    sarif_location(sb, p->loc.file, p->loc.line, p->loc.col);
  else
    sarif_location(sb, in->config, in->sys_loc.line, in->sys_loc.col);
  strbuf_puts(sb, "], ");
  sarif_fingerprints(sb, "ismvRobustness/v1", strbuf_str(&key));
  strbuf_putc(sb, '}');
  strbuf_free(&msg);
  strbuf_free(&key);
}

static void render_sarif(strbuf_t *sb, const sarif_input_t *in) {
  sarif_begin(sb, robustness_rules, sizeof robustness_rules / sizeof *robustness_rules);
  bool first = true;
  if (in->normal)
    sarif_trace_result(sb, &first, in, RULE_NORMAL_VIOLATION, "error", in->normal, in->normal_len,
                       in->prop_loc);
  for (size_t i = 0; i < in->nprog; i++)
    if (!in->prog[i].holds) sarif_progress_result(sb, &first, in, &in->prog[i]);
  for (int i = 0; in->a_not_b && i < in->a_not_b->ntraces; i++)
    sarif_trace_result(sb, &first, in, RULE_A_NOT_B, "warning", in->a_not_b->traces[i].trace,
                       in->a_not_b->traces[i].len, in->cmp_loc);
  for (int i = 0; in->b_not_a && i < in->b_not_a->ntraces; i++)
    sarif_trace_result(sb, &first, in, RULE_B_NOT_A, "note", in->b_not_a->traces[i].trace,
                       in->b_not_a->traces[i].len, in->cmp_loc);
  char *note = in->partial ? xasprintf("inconclusive: %s", in->partial) : NULL;
  sarif_end(sb, !in->partial, (const char *const[]){note}, 1);
  free(note);
}

static int run_robustness(cli_ctx_t *ctx, const cli_command_t *self, const char *path,
                          const cli_value_t *values) {
  fsp_config_t r;
  fsp_config_init(&r, ctx, path);
  if (cli_opt(self, values, "max-states")->set) r.max_states = (long)cli_opt(self, values, "max-states")->i;
  int rc = CLI_EXIT_INVALID;
  design_t a = {0}, b = {0};
  lts_t *env = NULL, *dev = NULL, *env_view = NULL;
  int *alpha = NULL, *faults = NULL, *normal = NULL, normal_len = -1;
  robust_traces_t delta = {0}, a_not_b = {0}, b_not_a = {0}, unsafe = {0};
  /* --expand: one expansion per class of delta, a_not_b, b_not_a */
  robust_expansion_t *exp_delta = NULL, *exp_ab = NULL, *exp_ba = NULL;
  char limit_msg[160];
  fsp_progress_result_t *prog = NULL; /* LTSA's progress properties of M ‖ E */
  size_t nprog = 0, nprog_violated = 0;
  char *text = NULL;
  eofm_env_t human = {0};     /* an EOFM environment (docs/eofm.md) */
  const char *stopped = NULL; /* what a stop request (ism/stop.h) left undone */

  ynode_t *root = ydoc_load_file(path, &r.arena, &ctx->diags);
  if (!root || !ydoc_expect_kind(root, YNODE_MAP, "a robustness configuration", &ctx->diags)) goto done;
  /* the reference tools' JSON configs: LTSA-Robust's {"mode": "fsp"|"eofm", "sys", "env",
   * "prop", "deviation", "eofm"} becomes the equivalent config (apps/reference_config: paths
   * looked up as that tool's working directory would, minimised as it does); Fortis'
   * {"sys": [...], "env": [...], "prop": [...], "dev": [...]} is read under its own key names */
  bool ltsa_robust = reference_config_is(root);
  if (ltsa_robust && !(root = reference_config_translate(&r, root))) goto done;
  bool reference = !ltsa_robust && ydoc_get(root, "sys") && !ydoc_get(root, "kind");
  const char *what = reference ? "a reference tool's robustness configuration" : "a robustness configuration";
  bool keys_ok =
      reference
          ? ydoc_check_keys(root, reference_keys, sizeof reference_keys / sizeof *reference_keys, what,
                            &ctx->diags)
          : ydoc_check_keys(root, config_keys, sizeof config_keys / sizeof *config_keys, what, &ctx->diags);
  const ynode_t *n_sys = ydoc_require(root, reference ? "sys" : "system", what, &ctx->diags);
  const ynode_t *n_env = ydoc_require(root, reference ? "env" : "environment", what, &ctx->diags);
  const ynode_t *n_prop = ydoc_require(root, reference ? "prop" : "property", what, &ctx->diags);
  const ynode_t *n_dev = ydoc_get(root, "deviation");
  if (reference && !n_dev) n_dev = ydoc_get(root, "dev");
  const ynode_t *n_faults = ydoc_get(root, "faults");
  const ynode_t *n_cmp = ydoc_get(root, "compare");
  const ynode_t *n_min = ydoc_get(root, "minimize");
  const ynode_t *n_expect = ydoc_get(root, "expect");
  bool minimise = !reference; /* Fortis does not minimise; LTSA-Robust does */
  if (n_min && !ydoc_bool(n_min, &minimise, "'minimize'", &ctx->diags)) keys_ok = false;
  if (cli_opt(self, values, "no-minimize")->set) minimise = false;
  if (n_cmp) {
    if (!ydoc_expect_kind(n_cmp, YNODE_MAP, "'compare'", &ctx->diags))
      keys_ok = false;
    else if (!ydoc_check_keys(n_cmp, compare_keys, 2, "'compare'", &ctx->diags))
      keys_ok = false;
    else if (!ydoc_get(n_cmp, "system") && !ydoc_get(n_cmp, "property")) {
      diag_error(&ctx->diags, n_cmp->loc, "'compare' needs a second 'system' or a second 'property'");
      keys_ok = false;
    }
  }
  /* the last three keys only with compare: */
  if (!expect_validate(ctx, n_expect, EXPECT_KEYS, N_EXPECT_KEYS - (n_cmp ? 0 : 3))) keys_ok = false;
  const char **fault_names = NULL;
  size_t nfault_names = 0;
  if (n_faults && !ydoc_string_list(n_faults, &r.arena, &fault_names, &nfault_names, "'faults'", &ctx->diags))
    keys_ok = false;
  if (n_faults && !n_dev) {
    diag_error(&ctx->diags, n_faults->loc, "'faults' names the faults of a 'deviation' model; add one");
    keys_ok = false;
  }
  if (!keys_ok || !n_sys || !n_env || !n_prop) goto done;

  /* each file gives its last process (LTSA's DEFAULT) or the one named
   * FILE:NAME; a property without an ERROR state of its own is completed to
   * its error LTS whether or not the file says `property` (as Fortis does),
   * one with ERROR is taken as written (as LTSA does); an environment may be an EOFM
   * task model instead (docs/eofm.md) */
  a.sys = fsp_config_load(&r, n_sys, "'system'", NULL, FSP_LOAD_PLAIN, &a.sys_files, NULL);
  if (eofm_env_is(n_env))
    env = eofm_env_load(&r, n_env, a.sys, &human);
  else
    env = fsp_config_load(&r, n_env, "'environment'", NULL, FSP_LOAD_PLAIN, NULL, NULL);
  size_t se_files = r.files.len; /* the files whose progress properties M ‖ E must meet */
  a.prop =
      fsp_config_load(&r, n_prop, "'property'", NULL, FSP_LOAD_PROPERTY_UNLESS_ERROR, &a.prop_files, NULL);
  fsp_file_t *dev_file = NULL;
  if (n_dev) dev = fsp_config_load(&r, n_dev, "'deviation'", NULL, FSP_LOAD_PLAIN, NULL, &dev_file);
  if (n_cmp) {
    const ynode_t *cs = ydoc_get(n_cmp, "system"), *cp = ydoc_get(n_cmp, "property");
    b.sys = cs ? fsp_config_load(&r, cs, "'compare.system'", NULL, FSP_LOAD_PLAIN, &b.sys_files, NULL) : NULL;
    b.prop = cp ? fsp_config_load(&r, cp, "'compare.property'", NULL, FSP_LOAD_PROPERTY_UNLESS_ERROR,
                                  &b.prop_files, NULL)
                : NULL;
    if ((cs && !b.sys) || (cp && !b.prop)) goto done;
  }
  if (!a.sys || !env || !a.prop || (n_dev && !dev)) goto done;
  if (stop_requested()) goto done; /* before any result */
  normal = robust_normal_violation(a.sys, env, a.prop, &normal_len);
  if (stop_requested()) goto done; /* the product M ‖ E ‖ P gave up: before any result */
  {
    const lts_t *me[2] = {a.sys, env};
    if (!fsp_config_progress(&r, se_files, me, 2, n_sys->loc, cli_opt(self, values, "default-progress")->set,
                             &prog, &nprog))
      goto done;
  }
  for (size_t i = 0; i < nprog; i++) nprog_violated += !prog[i].holds;

  int nalpha;
  alpha = robust_interface(a.sys, env, &nalpha);
  if (b.sys) {
    int nb;
    int *ab = robust_interface(b.sys, env, &nb);
    bool same = nb == nalpha && memcmp(ab, alpha, (size_t)nb * sizeof *ab) == 0;
    free(ab);
    if (!same) {
      diag_error(&ctx->diags, ydoc_get(n_cmp, "system")->loc,
                 "the two designs must share the same interface with the environment (αM1 ∩ αE = αM2 ∩ αE)");
      goto done;
    }
  }
  bool want_unsafe = cli_opt(self, values, "unsafe")->set, expand = cli_opt(self, values, "expand")->set;
  robust_wa_options_t wa_opt = {.minimise = minimise, .disables = cli_opt(self, values, "disables")->set};
  a.w = robust_assumption(a.sys, a.prop, alpha, nalpha, &wa_opt, &a.empty);
  if (stop_requested()) goto done; /* its minimisations gave up: before any result */
  env_view = robust_env_view(env, alpha, nalpha);
  /* a stop in E↾α or in W ‖ E_err leaves no Δ to report */
  if (!env_view || !robust_delta(a.w, env_view, &delta)) goto done;
  if (want_unsafe) { /* Fortis's --unsafe: classes into the error state of (M ‖ P_err)↾α, determinised */
    robust_wa_options_t u_opt = {.minimise = minimise, .unsafe = true};
    bool ignored;
    lts_t *u = robust_assumption(a.sys, a.prop, alpha, nalpha, &u_opt, &ignored);
    if (u)
      robust_error_classes(u, &unsafe);
    else
      stopped = "the unsafe behaviours were not computed";
    lts_free(u);
  }
  int nfaults = 0;
  if (dev) {
    size_t nmenu;
    const char *const *menu = fsp_menu(dev_file, "ERR_ACTS", &nmenu);
    if (n_faults) menu = fault_names, nmenu = nfault_names;
    faults = robust_faults(dev, menu, nmenu, &nfaults);
    if (n_faults && nfaults == 0) {
      diag_error(&ctx->diags, n_faults->loc, "no action of the deviation model matches 'faults'");
      goto done;
    }
    robust_explain(a.sys, dev, alpha, nalpha, faults, nfaults, &delta);
    if (want_unsafe) robust_explain_anywhere(a.sys, dev, alpha, nalpha, faults, nfaults, &unsafe);
    if (stop_requested() && !stopped) stopped = "the explanations are incomplete";
    int nofault = 0;
    for (int i = 0; i < delta.ntraces; i++) nofault += delta.traces[i].expl && delta.traces[i].nfaults == 0;
    if (nofault > 0)
      diag_warning(
          &ctx->diags, n_dev->loc,
          "%d explained trace%s use%s no fault action: name the faults with 'faults:' in the config or "
          "`menu ERR_ACTS = {...}` in the model",
          nofault, nofault == 1 ? "" : "s", nofault == 1 ? "s" : "");
  } else if (human.plan) {
    eofm_env_explain(&human, a.sys, alpha, nalpha, &delta, &ctx->diags);
    if (human.exceeded) goto done; /* reported */
    if (stop_requested() && !stopped) stopped = "the explanations are incomplete";
  }
  bool explaining = dev || human.plan;
  if (n_cmp && stop_requested() && !stopped) stopped = "the comparison was not made";
  if (n_cmp && !stopped) {
    if (!b.sys) b.sys = lts_copy(a.sys), b.sys_files = a.sys_files;
    if (!b.prop) b.prop = lts_copy(a.prop), b.prop_files = a.prop_files;
    b.w = robust_weakest_assumption(b.sys, b.prop, alpha, nalpha, minimise, &b.empty);
    if (!b.w || !robust_delta(a.w, b.w, &a_not_b) || !robust_delta(b.w, a.w, &b_not_a)) {
      robust_traces_free(&a_not_b); /* a comparison half made is none */
      robust_traces_free(&b_not_a);
      stopped = "the comparison was not made";
    }
  }
  if (expand && !stopped) {
    /* Fortis's --expand: each class's traces of the weakest assumption that
     * allows it (A's for Δ and a_not_b, B's for b_not_a); together at most
     * --max-states paths */
    long budget = r.max_states;
    const robust_traces_t *sets[3] = {&delta, &a_not_b, &b_not_a};
    robust_expansion_t **outs[3] = {&exp_delta, &exp_ab, &exp_ba};
    const lts_t *ws[3] = {a.w, a.w, b.w};
    for (int k = 0; k < 3 && !stopped; k++) {
      if (!ws[k]) continue;
      *outs[k] = xcalloc((size_t)sets[k]->ntraces + 1, sizeof(robust_expansion_t));
      for (int i = 0; i < sets[k]->ntraces && !stopped; i++) {
        robust_expansion_t *e = &(*outs[k])[i];
        bool done = robust_expand(ws[k], sets[k]->traces[i].trace, sets[k]->traces[i].len, budget, e);
        budget -= e->npaths;
        if (stop_requested())
          stopped = "the expansion of the classes is incomplete";
        else if (!done) {
          snprintf(limit_msg, sizeof limit_msg,
                   "the expansion of the classes is incomplete: more than %ld traces or search steps "
                   "(--max-states)",
                   r.max_states);
          stopped = limit_msg;
        }
      }
    }
  }

  /* ---- report ---- */
  const char *format = cli_opt(self, values, "format")->set ? cli_opt(self, values, "format")->s : "text";
  long long limit = cli_opt(self, values, "print")->set ? cli_opt(self, values, "print")->i : -1;
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_t dot;
  strbuf_init(&dot);
  if (strcmp(format, "dot") == 0 || cli_opt(self, values, "dot")->set) { /* drawn only when asked */
    lts_t *err = lts_property_bounded(env_view, 0, stop_poll, NULL);
    const lts_t *parts[2] = {a.w, err};
    lts_t *t = err ? lts_compose_bounded(parts, 2, 0, stop_poll, NULL) : NULL;
    lts_to_dot(a.w, "weakest_assumption", &dot);
    if (t) lts_to_dot(t, "delta", &dot); /* not after a stop */
    lts_free(t);
    if (b.w) lts_to_dot(b.w, "weakest_assumption_b", &dot); /* the other side of a comparison */
    lts_free(err);
  }
  int explained = count_explained(&delta);
  size_t ngroups = 0;
  group_t *groups = explaining ? group_traces(&r.labels, &delta, &ngroups) : NULL;
  if (strcmp(format, "sarif") == 0) {
    sarif_input_t in = {path,
                        &r.labels,
                        normal,
                        normal_len,
                        n_prop->loc,
                        n_cmp ? n_cmp->loc : (loc_t){0},
                        n_sys->loc,
                        n_cmp ? &a_not_b : NULL,
                        n_cmp ? &b_not_a : NULL,
                        prog,
                        nprog,
                        stopped ? partial_reason(stopped) : NULL};
    render_sarif(&sb, &in);
  } else if (strcmp(format, "fsp") == 0)
    lts_to_fsp(a.w, "WA", &sb);
  else if (strcmp(format, "dot") == 0) {
    strbuf_puts(&sb, strbuf_str(&dot));
  } else if (strcmp(format, "json") == 0 || strcmp(format, "html") == 0) {
    strbuf_printf(&sb, "{\n"); /* "partial" and "reason" are the envelope's */
    strbuf_printf(&sb, "  \"system\": {\"files\": ");
    strbuf_json_string(&sb, a.sys_files);
    strbuf_printf(&sb, ", \"states\": %d, \"transitions\": %d},\n", a.sys->nstates, a.sys->ntrans);
    strbuf_printf(&sb, "  \"environment\": {\"states\": %d, \"transitions\": %d", env->nstates, env->ntrans);
    if (human.raw)
      strbuf_printf(&sb, ", \"task_model\": {\"states\": %d, \"transitions\": %d}", human.raw->nstates,
                    human.raw->ntrans);
    strbuf_puts(&sb, "},\n");
    strbuf_printf(&sb,
                  "  \"weakest_assumption\": {\"states\": %d, \"transitions\": %d, \"minimized\": %s, "
                  "\"empty\": %s},\n",
                  a.w->nstates, a.w->ntrans, minimise ? "true" : "false", a.empty ? "true" : "false");
    strbuf_puts(&sb, "  \"normal_violation\": ");
    if (normal)
      json_labels(&sb, &r.labels, normal, normal_len);
    else
      strbuf_puts(&sb, "null");
    if (nprog) strbuf_puts(&sb, ",\n  \"progress\": ["); /* only when the files declare progress */
    for (size_t i = 0; i < nprog; i++) {
      strbuf_printf(&sb, "%s\n    {\"name\": ", i ? "," : "");
      strbuf_json_string(&sb, prog[i].name);
      strbuf_printf(&sb, ", \"holds\": %s", prog[i].holds ? "true" : "false");
      if (prog[i].is_default) strbuf_puts(&sb, ", \"default\": true");
      if (!prog[i].holds) {
        strbuf_puts(&sb, ", \"trace\": ");
        json_labels(&sb, &r.labels, prog[i].trace, prog[i].len);
        strbuf_puts(&sb, ", \"terminal_actions\": ");
        json_labels(&sb, &r.labels, prog[i].actions, prog[i].nactions);
        if (prog[i].is_default) {
          strbuf_puts(&sb, ", \"missing_actions\": ");
          json_labels(&sb, &r.labels, prog[i].missing, prog[i].nmissing);
        }
      }
      strbuf_putc(&sb, '}');
    }
    if (nprog) strbuf_puts(&sb, "\n  ]");
    strbuf_puts(&sb, ",\n  \"interface\": ");
    json_labels(&sb, &r.labels, alpha, nalpha);
    strbuf_puts(&sb, ",\n");
    json_traces(&sb, &r.labels, &delta, exp_delta, "  ");
    if (explaining) {
      strbuf_printf(&sb, ",\n  \"explained\": %d,\n  \"unexplained\": %d,\n  \"groups\": [", explained,
                    delta.ntraces - explained);
      for (size_t i = 0; i < ngroups; i++) {
        strbuf_printf(&sb, "%s\n    {\"faults\": ", i ? "," : "");
        strbuf_json_string(&sb, groups[i].key[0] ? groups[i].key : "unexplained");
        strbuf_printf(&sb, ", \"traces\": %d}", groups[i].count);
      }
      strbuf_printf(&sb, "%s]", ngroups ? "\n  " : "");
    }
    if (want_unsafe) {
      strbuf_puts(&sb, ",\n  \"unsafe\": {\n");
      json_traces(&sb, &r.labels, &unsafe, NULL, "    ");
      strbuf_puts(&sb, "\n  }");
    }
    if (b.w) {
      strbuf_puts(&sb, ",\n  \"compare\": {\"a\": {\"system\": ");
      strbuf_json_string(&sb, a.sys_files);
      strbuf_puts(&sb, ", \"property\": ");
      strbuf_json_string(&sb, a.prop_files);
      strbuf_puts(&sb, "}, \"b\": {\"system\": ");
      strbuf_json_string(&sb, b.sys_files);
      strbuf_puts(&sb, ", \"property\": ");
      strbuf_json_string(&sb, b.prop_files);
      strbuf_puts(&sb, "}},\n  \"a_not_b\": {\n");
      json_traces(&sb, &r.labels, &a_not_b, exp_ab, "    ");
      strbuf_puts(&sb, "\n  },\n  \"b_not_a\": {\n");
      json_traces(&sb, &r.labels, &b_not_a, exp_ba, "    ");
      strbuf_puts(&sb, "\n  }");
    }
    strbuf_puts(&sb, ",\n  \"weakest_assumption_lts\": ");
    json_lts(&sb, a.w);
    strbuf_puts(&sb, "\n}\n");
  } else {
    if (stopped) strbuf_printf(&sb, "partial: %s\n", partial_reason(stopped));
    strbuf_printf(&sb, "system %s: %d states, %d transitions\n", a.sys_files, a.sys->nstates, a.sys->ntrans);
    if (human.raw)
      strbuf_printf(&sb, "task model %s: %d states, %d transitions (translated)\n", human.file,
                    human.raw->nstates, human.raw->ntrans);
    strbuf_printf(&sb, "environment: %d states, %d transitions\n", env->nstates, env->ntrans);
    strbuf_printf(&sb, "weakest assumption%s: %d states, %d transitions\n", minimise ? " (minimised)" : "",
                  a.w->nstates, a.w->ntrans);
    if (normal) {
      strbuf_puts(&sb, "violation: the system violates the property under the normal environment: ");
      text_labels(&sb, &r.labels, normal, normal_len);
      strbuf_putc(&sb, '\n');
    }
    for (size_t i = 0; i < nprog; i++) {
      if (prog[i].is_default)
        strbuf_printf(&sb, "progress (LTSA's default: every action in every terminal set): %s\n",
                      prog[i].holds ? "holds" : "violated");
      else
        strbuf_printf(&sb, "progress %s: %s\n", prog[i].name, prog[i].holds ? "holds" : "violated");
      if (prog[i].holds) continue;
      strbuf_puts(&sb, "  trace to terminal set: ");
      text_labels(&sb, &r.labels, prog[i].trace, prog[i].len);
      if (prog[i].len == 0) strbuf_puts(&sb, "(empty: the initial state is in it)");
      strbuf_puts(&sb, "\n  actions in terminal set: {");
      text_labels(&sb, &r.labels, prog[i].actions, prog[i].nactions);
      strbuf_puts(&sb, "}\n");
      if (prog[i].is_default) {
        strbuf_puts(&sb, "  progress violation for actions: {");
        text_labels(&sb, &r.labels, prog[i].missing, prog[i].nmissing);
        strbuf_puts(&sb, "}\n");
      }
    }
    if (a.empty)
      strbuf_puts(&sb, "note: the machine can violate the property on its own; no environment prevents it\n");
    strbuf_puts(&sb, "interface: ");
    text_labels(&sb, &r.labels, alpha, nalpha);
    strbuf_printf(&sb, "\n\nrobustness: %d equivalence class%s of deviations\n", delta.ntraces,
                  delta.ntraces == 1 ? "" : "es");
    text_traces(&sb, &r.labels, &delta, exp_delta, explaining, limit);
    if (explaining) {
      strbuf_printf(&sb, "\nexplained %d/%d\n", explained, delta.ntraces);
      for (size_t i = 0; i < ngroups; i++)
        strbuf_printf(&sb, "  %s: %d\n", groups[i].key[0] ? groups[i].key : "unexplained", groups[i].count);
    }
    if (want_unsafe) {
      strbuf_printf(&sb,
                    "\nunsafe: %d equivalence class%s of environment behaviours after which the system may "
                    "violate the property\n",
                    unsafe.ntraces, unsafe.ntraces == 1 ? "" : "es");
      text_traces(&sb, &r.labels, &unsafe, NULL, dev != NULL, limit);
    }
    if (b.w) {
      strbuf_printf(&sb, "\ncomparison: A = %s with %s, B = %s with %s\n", a.sys_files, a.prop_files,
                    b.sys_files, b.prop_files);
      strbuf_printf(&sb, "tolerated by A, not by B: %d class%s\n", a_not_b.ntraces,
                    a_not_b.ntraces == 1 ? "" : "es");
      text_traces(&sb, &r.labels, &a_not_b, exp_ab, false, limit);
      strbuf_printf(&sb, "tolerated by B, not by A: %d class%s\n", b_not_a.ntraces,
                    b_not_a.ntraces == 1 ? "" : "es");
      text_traces(&sb, &r.labels, &b_not_a, exp_ba, false, limit);
    }
  }
  text = strbuf_take(&sb);
  bool html = strcmp(format, "html") == 0;
  bool json = strcmp(format, "json") == 0 || html; /* written last: it states the exit code */
  rc = json ? CLI_EXIT_OK : cli_write_output(ctx, text);
  const cli_value_t *dotv = cli_opt(self, values, "dot");
  if (rc == CLI_EXIT_OK && dotv->set) rc = cli_write_file(ctx, dotv->s, strbuf_str(&dot));
  const cli_value_t *autv = cli_opt(self, values, "write-aut");
  if (rc == CLI_EXIT_OK && autv->set) {
    strbuf_t aut;
    strbuf_init(&aut);
    aut_write(a.w, &aut);
    rc = cli_write_file(ctx, autv->s, strbuf_str(&aut));
    strbuf_free(&aut);
  }
  strbuf_free(&dot);
  /* M ‖ E itself violates P: a violation, unless an expect: block decides */
  cli_outcome_t outcome = {.analysis =
                               !n_expect && (normal || nprog_violated) ? CLI_EXIT_VIOLATION : CLI_EXIT_OK,
                           .complete = !stopped,
                           .expect = -1,
                           .interrupted = stopped && stop_reason() == STOP_SIGNAL};
  for (size_t i = 0; i < ngroups; i++) free(groups[i].key);
  free(groups);
  if (rc == CLI_EXIT_OK && n_expect && !stopped) { /* partial results decide nothing */
    expect_actual_t actual[] = {
        {"classes", EXPECT_NUMBER, delta.ntraces, false, NULL},
        {"explained", EXPECT_NUMBER, explaining ? explained : 0, false, NULL},
        {"unexplained", EXPECT_NUMBER, explaining ? delta.ntraces - explained : delta.ntraces, false, NULL},
        {"system_states", EXPECT_NUMBER, a.sys->nstates, false, NULL},
        {"system_transitions", EXPECT_NUMBER, a.sys->ntrans, false, NULL},
        {"environment_states", EXPECT_NUMBER, env->nstates, false, NULL},
        {"environment_transitions", EXPECT_NUMBER, env->ntrans, false, NULL},
        {"assumption_states", EXPECT_NUMBER, a.w->nstates, false, NULL},
        {"normal_violation", EXPECT_BOOL, 0, normal != NULL, NULL},
        {"progress_violations", EXPECT_NUMBER, (double)nprog_violated, false, NULL},
        {"task_model_states", EXPECT_NUMBER, human.raw ? human.raw->nstates : 0, false, NULL},
        {"task_model_transitions", EXPECT_NUMBER, human.raw ? human.raw->ntrans : 0, false, NULL},
        {"unsafe", EXPECT_NUMBER, unsafe.ntraces, false, NULL},
        {"expanded", EXPECT_NUMBER, (double)count_expanded(&delta, exp_delta), false, NULL},
        {"a_not_b", EXPECT_NUMBER, a_not_b.ntraces, false, NULL},
        {"b_not_a", EXPECT_NUMBER, b_not_a.ntraces, false, NULL},
        /* B tolerates strictly more than A */
        {"more_robust", EXPECT_BOOL, 0, n_cmp && b_not_a.ntraces > 0 && a_not_b.ntraces == 0, NULL},
    };
    outcome.expect = expect_check(ctx, n_expect, EXPECT_KEYS, actual, N_EXPECT_KEYS - (n_cmp ? 0 : 3));
    outcome.expect_verdict = true; /* the block decides, as it always has */
  }
  if (rc == CLI_EXIT_OK) rc = cli_exit_code(&outcome);
  if (json) {
    int analysis = normal || nprog_violated ? CLI_EXIT_VIOLATION
                   : stopped                ? CLI_EXIT_INCONCLUSIVE
                                            : CLI_EXIT_OK;
    json_envelope_t envelope = {.command = "robustness",
                                .input = path,
                                .verdict = json_envelope_verdict(analysis),
                                .exit_code = rc,
                                .partial = stopped ? partial_reason(stopped) : NULL};
    int wrc = report_write_result(ctx, &envelope, text, html, NULL);
    if (wrc) rc = wrc;
  }

done:
  if (!text && stop_requested()) rc = cli_write_stopped(ctx, cli_opt(self, values, "format")->s, NULL);
  if (rc == CLI_EXIT_INVALID) /* the run failed: on a size limit, it is inconclusive */
    rc = cli_exit_code(
        &(cli_outcome_t){.analysis = rc, .expect = -1, .limit_hit = r.limit_hit || human.exceeded});
  free(text);
  /* the expansions first: robust_traces_free zeroes the counts */
  expansions_free(exp_delta, delta.ntraces);
  expansions_free(exp_ab, a_not_b.ntraces);
  expansions_free(exp_ba, b_not_a.ntraces);
  robust_traces_free(&delta);
  robust_traces_free(&a_not_b);
  robust_traces_free(&b_not_a);
  robust_traces_free(&unsafe);
  free(alpha);
  free(faults);
  free(normal);
  fsp_progress_results_free(prog, nprog);
  lts_free(a.sys);
  lts_free(a.prop);
  lts_free(a.w);
  lts_free(b.sys);
  lts_free(b.prop);
  lts_free(b.w);
  lts_free(env);
  lts_free(env_view);
  lts_free(dev);
  eofm_env_free(&human);
  fsp_config_free(&r);
  return rc;
}

const cli_command_t cmd_robustness = {
    .name = "robustness",
    .kind = "robustness",
    .summary = "which environment deviations an LTS machine tolerates (FSP models, weakest assumption)",
    .usage = "CONFIG.yaml [options]",
    .description =
        "Computes the behavioural robustness of machine M (the `system:` FSP files, composed in\n"
        "parallel) against the normative environment E (`environment:`) for the safety property P\n"
        "(`property:`): the weakest assumption W over the interface αM ∩ αE, and one shortest\n"
        "representative trace per class of deviations Π(s,a) of W ‖ (E↾α)_err. With `deviation:`\n"
        "(an FSP environment whose `menu ERR_ACTS` names the faults) each trace gets its minimal\n"
        "explanation, and the traces are grouped by fault set. With `compare:` (a second `system:`\n"
        "or `property:`, B) it also reports what A tolerates that B does not, and the reverse.\n"
        "Each FSP file contributes its last process (LTSA's DEFAULT, as Fortis), or process NAME\n"
        "when the entry is written FILE:NAME; a property is completed to its error LTS whether or\n"
        "not it says `property`, unless it has an ERROR state of its own (then it is taken as\n"
        "written, as LTSA does). Faults are the actions named by `faults:` or else by the\n"
        "deviation model's `menu ERR_ACTS`. The environment may instead be a human operator's EOFM\n"
        "task model (`environment: {eofm: model.xml, initial:, world:, relabels:, max_errors:,\n"
        "max_states:}`): it is translated to an LTS and each trace is explained by generated human\n"
        "errors (docs/eofm.md). LTSA-Robust's JSON configs ({\"mode\": \"fsp\"|\"eofm\", \"sys\": ...})\n"
        "and Fortis' ({\"sys\": [...], \"env\": [...], ...}) are read as well. First M ‖ E is checked\n"
        "against P, and against the LTSA progress properties (`progress NAME = {a}`) that the system\n"
        "and environment files declare: a violation is reported with its trace and exit 10.\n"
        "With none declared, --default-progress runs LTSA's default progress check instead.\n"
        "Fortis's views: --unsafe adds the classes of environment behaviours after which the\n"
        "system may violate P (transitions into the error state of the determinised\n"
        "(M ‖ P_err)↾α), explained with faults anywhere; --expand lists, for each class, every\n"
        "trace of W with its representative as prefix up to a cycle or a deadlock; --disables adds\n"
        "a sink state to W for the interface actions the system disables.\n"
        "`expect:` keys: classes, unsafe, expanded, progress_violations,\n"
        "explained, unexplained, system_states, system_transitions, environment_states,\n"
        "environment_transitions, assumption_states, normal_violation, task_model_states,\n"
        "task_model_transitions (EOFM environments) and, with compare, a_not_b, b_not_a,\n"
        "more_robust (B tolerates strictly more).\n"
        "Format and semantics: docs/robustness.md.",
    .options = options,
    .noptions = sizeof options / sizeof *options,
    .run = run_robustness,
};
