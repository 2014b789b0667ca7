/* ismv robustify: redesign an LTS machine so that it satisfies its safety
 * property under a deviated environment (Fortis's supervisory
 * robustification). Reads our YAML config or Fortis's JSON config
 * directly. Config format and semantics: docs/robustify.md. */
#include <stdlib.h>
#include <string.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/expect.h"
#include "apps/fsp_config.h"
#include "apps/json_envelope.h"
#include "ism/alloc.h"
#include "ism/stop.h"
#include "ism/strbuf.h"
#include "ism/vec.h"
#include "ism/ydoc.h"
#include "verifier/lts/aut.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/lts.h"
#include "verifier/lts/robustify.h"
#include "verifier/lts/robustness.h"

static const cli_option_t options[] = {
    {"method", 'm', OPT_CHOICE, NULL, "pareto|fast|simple|oasis", "config", 0, -1,
     "search method (overrides the config's)"},
    {"format", 'f', OPT_CHOICE, NULL, "text|json|fsp|dot", "text", 0, -1,
     "output format (fsp and dot: the design of the first solution)"},
    {"fsp", 0, OPT_STRING, "FILE", NULL, NULL, 0, -1,
     "also write the first solution's design as FSP to FILE"},
    {"dot", 0, OPT_STRING, "FILE", NULL, NULL, 0, -1,
     "also write the first solution's design as Graphviz to FILE"},
    {"write-aut", 0, OPT_STRING, "FILE", NULL, NULL, 0, -1,
     "also write the first solution's design as an Aldebaran .aut LTS (CADP, mCRL2) to FILE"},
    {"max-iter", 0, OPT_INT, "N", NULL, "config", 1, 1e9,
     "brackets of preferred behaviours to give up, tried in Fortis's order (overrides maxIter/max_iter)"},
    {"max-states", 0, OPT_INT, "N", NULL, "none", 1, 1e9,
     "bound on plant states and on observation-set members per synthesis (exit 5 when hit)"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the report to FILE"},
};

/* The config, read from either format into one shape. */
typedef struct {
  const ynode_t *sys, *dev, *safety, *progress, *preferred, *ctrl, *obs, *compare, *expect;
  const ynode_t *method_node;
  const char *method;                 /* pareto | fast | simple | oasis */
  long long max_iter;                 /* Fortis's maxIter: >= 1, or -1 for every bracket */
  bool fortis;                        /* Fortis JSON: files give their last process */
  bool prefer_map, ctrl_map, obs_map; /* maps priority -> list, else flat lists */
} config_t;

typedef VEC(robustify_event_t) event_vec_t;

typedef struct {
  VEC(robustify_pref_t) pref;
  event_vec_t ctrl, obs;
  VEC(int) progress;
} lists_t;

/* ------------------------------------------------------------ config */

static const char *const yaml_keys[] = {"kind",     "system",    "deviation",    "safety",
                                        "progress", "preferred", "controllable", "observable",
                                        "method",   "max_iter",  "compare",      "expect"};
static const char *const fortis_keys[] = {"sys", "env", "dev", "safety", "method", "options"};
static const char *const fortis_option_keys[] = {
    "progress",   "preferred",     "preferredMap", "controllable", "controllableMap",
    "observable", "observableMap", "solver",       "algorithm",    "maxIter"};

/* Fortis's maxIter (default 1): a positive count, or -1 for every bracket. */
static bool read_max_iter(const ynode_t *n, const char *what, diag_list_t *d, long long *out) {
  *out = 1;
  if (!n) return true;
  if (!ydoc_int(n, out, what, d)) return false;
  if (*out == -1 || (*out >= 1 && *out <= 1000000000)) return true;
  diag_error(d, n->loc, "%s must be a positive number of iterations, or -1 for all", what);
  return false;
}

/* `expect:` keys, in the order of the results checked after the run. */
static const expect_key_t EXPECT_KEYS[] = {
    {"solutions", EXPECT_NUMBER},         {"syntheses", EXPECT_NUMBER},
    {"cost", EXPECT_NUMBER},              {"utility", EXPECT_NUMBER},
    {"kept", EXPECT_NUMBER},              {"controllable", EXPECT_NUMBER},
    {"observable", EXPECT_NUMBER},        {"supervisor_states", EXPECT_NUMBER},
    {"supervisor_transitions", EXPECT_NUMBER}, {"plant_states", EXPECT_NUMBER},
    {"no_supervisor", EXPECT_BOOL},       {"bounded", EXPECT_BOOL},
    {"a_not_b", EXPECT_NUMBER},           {"b_not_a", EXPECT_NUMBER}};

static bool read_fortis(cli_ctx_t *ctx, const ynode_t *root, config_t *c) {
  diag_list_t *d = &ctx->diags;
  bool ok =
      ydoc_check_keys(root, fortis_keys, sizeof fortis_keys / sizeof *fortis_keys, "a Fortis config", d);
  c->fortis = true;
  c->sys = ydoc_require(root, "sys", "a Fortis config", d);
  c->dev = ydoc_require(root, "dev", "a Fortis config", d);
  c->safety = ydoc_require(root, "safety", "a Fortis config", d);
  const ynode_t *m = ydoc_require(root, "method", "a Fortis config", d);
  const ynode_t *o = ydoc_get(root, "options");
  if (o && !ydoc_expect_kind(o, YNODE_MAP, "'options'", d)) return false;
  if (o && !ydoc_check_keys(o, fortis_option_keys, sizeof fortis_option_keys / sizeof *fortis_option_keys,
                            "'options'", d))
    ok = false;
  const char *method = NULL, *alg = "Pareto";
  if (m && !ydoc_string(m, &method, "'method'", d)) ok = false;
  const ynode_t *a = o ? ydoc_get(o, "algorithm") : NULL;
  if (a && !ydoc_string(a, &alg, "'algorithm'", d)) ok = false;
  if (!read_max_iter(o ? ydoc_get(o, "maxIter") : NULL, "'maxIter'", d, &c->max_iter)) ok = false;
  c->method_node = m;
  if (method && (strcmp(method, "supervisory") == 0 || strcmp(method, "supervisory-non-opt") == 0)) {
    if (strcmp(alg, "Pareto") == 0)
      c->method = "pareto";
    else if (strcmp(alg, "Fast") == 0)
      c->method = "fast";
    else {
      diag_error(d, a->loc, "unknown algorithm '%s' (expected 'Pareto' or 'Fast')", alg);
      ok = false;
    }
    c->progress = ydoc_get(o, "progress");
    c->preferred = ydoc_get(o, "preferredMap"), c->prefer_map = true;
    c->ctrl = ydoc_get(o, "controllableMap"), c->ctrl_map = true;
    c->obs = ydoc_get(o, "observableMap"), c->obs_map = true;
  } else if (method && (strcmp(method, "simple") == 0 || strcmp(method, "oasis") == 0)) {
    c->method = strcmp(method, "simple") == 0 ? "simple" : "oasis";
    if (o) {
      c->progress = ydoc_get(o, "progress");
      c->preferred = ydoc_get(o, "preferred");
      c->ctrl = ydoc_get(o, "controllable");
      c->obs = ydoc_get(o, "observable");
    }
  } else if (method) {
    diag_error(d, m->loc,
               "unknown method '%s' (expected 'supervisory', 'supervisory-non-opt', 'simple' or 'oasis')",
               method);
    ok = false;
  }
  return ok && c->sys && c->dev && c->safety && m;
}

static bool read_yaml(cli_ctx_t *ctx, const ynode_t *root, config_t *c) {
  diag_list_t *d = &ctx->diags;
  bool ok =
      ydoc_check_keys(root, yaml_keys, sizeof yaml_keys / sizeof *yaml_keys, "a robustify configuration", d);
  c->sys = ydoc_require(root, "system", "a robustify configuration", d);
  c->dev = ydoc_require(root, "deviation", "a robustify configuration", d);
  c->safety = ydoc_require(root, "safety", "a robustify configuration", d);
  c->progress = ydoc_get(root, "progress");
  c->preferred = ydoc_get(root, "preferred");
  c->ctrl = ydoc_get(root, "controllable");
  c->obs = ydoc_get(root, "observable");
  c->compare = ydoc_get(root, "compare");
  c->expect = ydoc_get(root, "expect");
  c->prefer_map = c->preferred && c->preferred->kind == YNODE_MAP;
  c->ctrl_map = c->ctrl && c->ctrl->kind == YNODE_MAP;
  c->obs_map = c->obs && c->obs->kind == YNODE_MAP;
  c->method = "pareto";
  if (!read_max_iter(ydoc_get(root, "max_iter"), "'max_iter'", d, &c->max_iter)) ok = false;
  const ynode_t *m = ydoc_get(root, "method");
  c->method_node = m;
  if (m && !ydoc_string(m, &c->method, "'method'", d)) {
    ok = false; /* ran pareto, printed its result and exited 2 before */
  } else if (m && strcmp(c->method, "pareto") && strcmp(c->method, "fast") && strcmp(c->method, "simple") &&
             strcmp(c->method, "oasis")) {
    diag_error(d, m->loc, "unknown method '%s' (expected 'pareto', 'fast', 'simple' or 'oasis')", c->method);
    ok = false;
  }
  if (!expect_validate(ctx, c->expect, EXPECT_KEYS, sizeof EXPECT_KEYS / sizeof *EXPECT_KEYS)) ok = false;
  if (c->compare && !ydoc_expect_kind(c->compare, YNODE_MAP, "'compare'", d)) ok = false;
  return ok && c->sys && c->dev && c->safety;
}

/* The label of an action as LTSA prints it ("line.1.set", Fortis's
 * configs) or as we do ("line[1].set"): numeric components after a dot
 * become indices. Interns it when `add`, else -1 if unknown. */
static int label_of(lts_labels_t *labels, const char *name, bool add) {
  int l = lts_label_find(labels, name);
  if (l >= 0) return l;
  strbuf_t sb;
  strbuf_init(&sb);
  for (const char *p = name; *p;) {
    size_t k = strcspn(p + 1, ".") + 1, digits = strspn(p + 1, "0123456789");
    if (*p == '.' && p != name && digits > 0 && digits + 1 == k)
      strbuf_printf(&sb, "[%.*s]", (int)digits, p + 1);
    else
      strbuf_putn(&sb, p, k);
    p += k;
  }
  l = add ? lts_label(labels, strbuf_str(&sb)) : lts_label_find(labels, strbuf_str(&sb));
  strbuf_free(&sb);
  return l;
}

/* An action named in the config: must be an action of M ‖ E'. */
static bool action(cli_ctx_t *ctx, lts_labels_t *labels, const bitword_t *alpha, const ynode_t *n, int *out) {
  const char *name;
  if (!ydoc_string(n, &name, "an action", &ctx->diags)) return false;
  int l = label_of(labels, name, false);
  if (l < 0 || !bitset_get(alpha, (size_t)l)) {
    VEC(const char *) names = {0};
    for (size_t i = 0; i < labels->names.count; i++)
      if (bitset_get(alpha, i)) VEC_PUSH(&names, lts_label_name(labels, (int)i));
    const char *best = diag_suggest(name, names.data, names.len);
    if (best)
      diag_error(&ctx->diags, n->loc, "unknown action '%s' (did you mean '%s'?)", name, best);
    else
      diag_error(&ctx->diags, n->loc,
                 "unknown action '%s' (not in the alphabet of the system or the deviation)", name);
    VEC_FREE(&names);
    return false;
  }
  *out = l;
  return true;
}

static bool priority_of(cli_ctx_t *ctx, const ynode_t *key, int *prio) {
  const char *t = key->text;
  if (t[0] >= '0' && t[0] <= '3' && t[1] == '\0') {
    *prio = t[0] - '0';
    return true;
  }
  diag_error(&ctx->diags, key->loc, "unknown priority '%s' (expected 0, 1, 2 or 3)", t);
  return false;
}

static bool event_list(cli_ctx_t *ctx, lts_labels_t *labels, const bitword_t *alpha, const ynode_t *n,
                       int prio, const char *what, event_vec_t *out) {
  if (!ydoc_expect_kind(n, YNODE_SEQ, what, &ctx->diags)) return false;
  bool ok = true;
  for (size_t i = 0; i < n->len; i++) {
    int l;
    if (action(ctx, labels, alpha, n->items[i], &l))
      VEC_PUSH(out, ((robustify_event_t){l, prio}));
    else
      ok = false;
  }
  return ok;
}

static bool events(cli_ctx_t *ctx, lts_labels_t *labels, const bitword_t *alpha, const ynode_t *n, bool map,
                   const char *what, event_vec_t *out) {
  if (!n) return true;
  if (!map) return event_list(ctx, labels, alpha, n, 0, what, out);
  bool ok = true;
  for (size_t i = 0; i < n->len; i++) {
    int prio;
    if (!priority_of(ctx, n->keys[i], &prio) || !event_list(ctx, labels, alpha, n->items[i], prio, what, out))
      ok = false;
  }
  return ok;
}

/* One preferred behaviour: a list of actions, the last may be "+{a, b}". */
static bool word(cli_ctx_t *ctx, lts_labels_t *labels, const ynode_t *n, int prio, robustify_pref_t *out) {
  diag_list_t *d = &ctx->diags;
  if (!ydoc_expect_kind(n, YNODE_SEQ, "a preferred behaviour", d)) return false;
  memset(out, 0, sizeof *out);
  out->priority = prio;
  out->word = xmalloc((n->len + 1) * sizeof(int));
  VEC(int) alpha = {0};
  bool ok = true;
  for (size_t i = 0; i < n->len; i++) {
    const char *s;
    if (!ydoc_string(n->items[i], &s, "an action", d)) {
      ok = false;
      continue;
    }
    if (s[0] == '+' && i + 1 == n->len) {
      const char *p = s + 1;
      if (*p == '{') p++;
      while (*p && *p != '}') {
        size_t k = strcspn(p, ",}");
        char *name = xstrndup(p, k);
        char *a = name, *z = name + strlen(name);
        while (*a == ' ') a++;
        while (z > a && z[-1] == ' ') *--z = '\0';
        if (*a) VEC_PUSH(&alpha, label_of(labels, a, true));
        free(name);
        p += k;
        if (*p == ',') p++;
      }
      continue;
    }
    int l = label_of(labels, s, true);
    out->word[out->len++] = l;
    VEC_PUSH(&alpha, l);
  }
  out->alpha = alpha.data;
  out->nalpha = (int)alpha.len;
  if (out->len == 0 && ok) {
    diag_error(d, n->loc, "a preferred behaviour needs at least one action");
    ok = false;
  }
  return ok;
}

static bool preferred(cli_ctx_t *ctx, lts_labels_t *labels, const config_t *c, lists_t *out) {
  const ynode_t *n = c->preferred;
  if (!n) return true;
  bool ok = true;
  for (size_t i = 0; i < n->len; i++) {
    int prio = 3;
    const ynode_t *list = n->kind == YNODE_MAP ? n->items[i] : n;
    if (n->kind == YNODE_MAP && !priority_of(ctx, n->keys[i], &prio)) {
      ok = false;
      continue;
    }
    if (!ydoc_expect_kind(list, YNODE_SEQ, "'preferred'", &ctx->diags)) return false;
    for (size_t j = 0; j < list->len; j++) {
      robustify_pref_t w;
      if (word(ctx, labels, list->items[j], prio, &w))
        VEC_PUSH(&out->pref, w);
      else
        ok = false;
      if (out->pref.len > ROBUSTIFY_MAX_PREFERRED) {
        diag_error(&ctx->diags, list->items[j]->loc, "more than %d preferred behaviours",
                   ROBUSTIFY_MAX_PREFERRED);
        return false;
      }
    }
    if (n->kind != YNODE_MAP) break;
  }
  return ok;
}

/* The first label of a missing from b, or -1. */
static int missing_from(const event_vec_t *a, const event_vec_t *b) {
  for (size_t i = 0; i < a->len; i++) {
    bool hit = false;
    for (size_t j = 0; j < b->len && !hit; j++) hit = a->data[i].label == b->data[j].label;
    if (!hit) return a->data[i].label;
  }
  return -1;
}

static void lists_free(lists_t *l) {
  for (size_t i = 0; i < l->pref.len; i++) free(l->pref.data[i].word), free(l->pref.data[i].alpha);
  VEC_FREE(&l->pref);
  VEC_FREE(&l->ctrl);
  VEC_FREE(&l->obs);
  VEC_FREE(&l->progress);
}

/* ------------------------------------------------------------ output */

static void text_labels(strbuf_t *sb, const lts_labels_t *labels, const int *l, int n) {
  for (int i = 0; i < n; i++) strbuf_printf(sb, "%s%s", i ? ", " : "", lts_label_name(labels, l[i]));
  if (n == 0) strbuf_puts(sb, "(none)");
}

static void json_labels(strbuf_t *sb, const lts_labels_t *labels, const int *l, int n) {
  strbuf_putc(sb, '[');
  for (int i = 0; i < n; i++) {
    if (i) strbuf_puts(sb, ", ");
    strbuf_json_string(sb, lts_label_name(labels, l[i]));
  }
  strbuf_putc(sb, ']');
}

/* FSP text of an LTS, its unused alphabet as +{...} so that the interface survives. */
static void design_fsp(const lts_t *l, strbuf_t *sb) {
  strbuf_t body;
  strbuf_init(&body);
  lts_to_fsp(l, "ROBUST", &body);
  const char *t = strbuf_str(&body);
  size_t n = strlen(t);
  strbuf_putn(sb, t, n >= 2 ? n - 2 : n); /* without ".\n" */
  bool first = true;
  for (int a = 0; a < l->nalphabet; a++) {
    bool used = false;
    for (int i = 0; i < l->ntrans && !used; i++) used = l->succ_label[i] == l->alphabet[a];
    if (used) continue;
    strbuf_printf(sb, "%s%s", first ? "+{" : ", ", lts_label_name(l->labels, l->alphabet[a]));
    first = false;
  }
  strbuf_puts(sb, first ? ".\n" : "}.\n");
  strbuf_free(&body);
}

typedef struct {
  const char *sys_files, *dev_files;
  const lts_t *sys, *dev;
  const lists_t *lists;
  const robustify_result_t *res;
  lts_t **designs;
  const char *method;
  int compare_a_not_b, compare_b_not_a; /* -1 without compare, -2 when a stop came first */
  bool iterations;                      /* maxIter != 1: say which bracket found each solution */
} report_t;

/* Why a limited search stopped (a fresh string): the text report's
 * "partial:" line (as every command's) and the JSON envelope's reason;
 * the time limit and a signal in ism/stop's words. */
static char *bounded_reason(const robustify_result_t *res) {
  const char *what = strcmp(res->limit, "signal") == 0       ? "interrupted by a signal"
                     : strcmp(res->limit, "timeout") == 0    ? "the time limit (--timeout) ran out"
                     : strcmp(res->limit, "max-states") == 0 ? "the state bound (--max-states) was reached"
                                                             : res->limit;
  int bare = 0;
  for (int i = 0; i < res->nsols; i++) bare += !res->sols[i].sup;
  char *unsynth = bare ? xasprintf("; %d solution%s not synthesised again (no supervisor, no design)", bare,
                                   bare == 1 ? "" : "s")
                       : xasprintf("%s", "");
  char *why = res->search_done ? xasprintf("%s after the search%s", what, unsynth)
                               : xasprintf("%s; the search stopped, %s%s", what,
                                           res->nsols ? "best solution so far" : "no solution found before it",
                                           unsynth);
  free(unsynth);
  return why;
}

static void text_report(const report_t *r, lts_labels_t *labels, strbuf_t *sb) {
  const robustify_result_t *res = r->res;
  strbuf_printf(sb, "system %s: %d states, %d transitions\n", r->sys_files, r->sys->nstates, r->sys->ntrans);
  strbuf_printf(sb, "deviation %s: %d states, %d transitions\n", r->dev_files, r->dev->nstates,
                r->dev->ntrans);
  strbuf_printf(sb, "plant (system, deviation, safety, progress): %d states, %d transitions\n",
                res->plant_states, res->plant_trans);
  strbuf_printf(sb, "method: %s\n", r->method);
  if (res->bounded) {
    char *why = bounded_reason(res);
    strbuf_printf(sb, "partial: %s\n", why);
    free(why);
  }
  if (res->no_supervisor)
    strbuf_puts(sb, "no supervisor exists even with every candidate action controllable and observable\n");
  int nk = 0;
  for (int i = 0; i < res->npref; i++) nk += (int)(res->max_kept >> i & 1);
  if (!res->no_supervisor && !res->bounded)
    strbuf_printf(sb, "preferred behaviours the maximal supervisor keeps: %d/%d\n", nk, res->npref);
  if (r->iterations) strbuf_printf(sb, "iterations: %d\n", res->iterations);
  strbuf_printf(sb, "syntheses: %d\nsolutions: %d\n", res->nsynth, res->nsols);
  for (int i = 0; i < res->nsols; i++) {
    const robustify_solution_t *s = &res->sols[i];
    strbuf_printf(sb, "\nsolution %d:\n", i + 1);
    if (r->iterations) {
      int nt = 0;
      for (int k = 0; k < res->npref; k++) nt += (int)(s->target >> k & 1);
      strbuf_printf(sb, "  iteration: %d (asked to keep %d/%d)\n", s->iteration, nt, res->npref);
    }
    if (s->base) {
      strbuf_puts(sb, "  abstraction: decouples ");
      text_labels(sb, labels, s->hidden, s->nhidden);
      strbuf_printf(sb, " (%d states, %d transitions)\n", s->base->nstates, s->base->ntrans);
    }
    strbuf_puts(sb, "  controllable: ");
    text_labels(sb, labels, s->ctrl, s->nctrl);
    strbuf_puts(sb, "\n  observable: ");
    text_labels(sb, labels, s->obs, s->nobs);
    strbuf_printf(sb, "\n  cost: %ld\n", s->cost);
    if (s->sup) {
      strbuf_puts(sb, "  disabled somewhere: ");
      text_labels(sb, labels, s->disabled, s->ndisabled);
      strbuf_putc(sb, '\n');
    }
    int kept = 0;
    for (int k = 0; k < res->npref; k++) kept += (int)(s->kept >> k & 1);
    strbuf_printf(sb, "  preferred kept: %d/%d (utility %ld)\n", kept, res->npref, s->utility);
    for (int k = 0; k < res->npref; k++) {
      if (!(s->kept >> k & 1)) continue;
      strbuf_puts(sb, "    ");
      text_labels(sb, labels, r->lists->pref.data[k].word, r->lists->pref.data[k].len);
      strbuf_putc(sb, '\n');
    }
    if (!s->sup) {
      strbuf_puts(sb, "  supervisor, design: not synthesised again (stopped)\n");
      continue;
    }
    strbuf_printf(sb, "  supervisor: %d states, %d transitions\n", s->sup->nstates, s->sup->ntrans);
    strbuf_printf(sb, "  design: %d states, %d transitions\n", r->designs[i]->nstates, r->designs[i]->ntrans);
  }
  if (r->compare_a_not_b == -2) strbuf_puts(sb, "\ncompare: not made (stopped)\n");
  if (r->compare_a_not_b >= 0)
    strbuf_printf(sb,
                  "\ncompare (robustness against the normative environment):\n"
                  "  tolerated by the original, not by the design: %d class%s\n"
                  "  tolerated by the design, not by the original: %d class%s\n",
                  r->compare_a_not_b, r->compare_a_not_b == 1 ? "" : "es", r->compare_b_not_a,
                  r->compare_b_not_a == 1 ? "" : "es");
}

static void json_report(const report_t *r, lts_labels_t *labels, strbuf_t *sb) {
  const robustify_result_t *res = r->res;
  strbuf_puts(sb, "{\n  \"system\": {\"files\": ");
  strbuf_json_string(sb, r->sys_files);
  strbuf_printf(sb, ", \"states\": %d, \"transitions\": %d},\n", r->sys->nstates, r->sys->ntrans);
  strbuf_puts(sb, "  \"deviation\": {\"files\": ");
  strbuf_json_string(sb, r->dev_files);
  strbuf_printf(sb, ", \"states\": %d, \"transitions\": %d},\n", r->dev->nstates, r->dev->ntrans);
  strbuf_printf(sb, "  \"plant\": {\"states\": %d, \"transitions\": %d},\n", res->plant_states,
                res->plant_trans);
  strbuf_printf(
      sb, "  \"method\": \"%s\",\n  \"bounded\": %s,\n  \"no_supervisor\": %s,\n  \"syntheses\": %d,\n",
      r->method, res->bounded ? "true" : "false", res->no_supervisor ? "true" : "false", res->nsynth);
  if (r->iterations) strbuf_printf(sb, "  \"iterations\": %d,\n", res->iterations);
  strbuf_puts(sb, "  \"preferred\": [");
  for (int k = 0; k < res->npref; k++) {
    strbuf_printf(sb, "%s\n    {\"behaviour\": ", k ? "," : "");
    json_labels(sb, labels, r->lists->pref.data[k].word, r->lists->pref.data[k].len);
    strbuf_printf(sb, ", \"priority\": %d, \"weight\": %ld, \"kept_by_maximal\": %s}",
                  r->lists->pref.data[k].priority, res->pref_weight[k],
                  res->max_kept >> k & 1 ? "true" : "false");
  }
  strbuf_printf(sb, "%s],\n  \"solutions\": [", res->npref ? "\n  " : "");
  for (int i = 0; i < res->nsols; i++) {
    const robustify_solution_t *s = &res->sols[i];
    strbuf_printf(sb, "%s\n    {", i ? "," : "");
    if (r->iterations) {
      strbuf_printf(sb, "\"iteration\": %d, \"target\": [", s->iteration);
      for (int k = 0, first = 1; k < res->npref; k++)
        if (s->target >> k & 1) strbuf_printf(sb, "%s%d", first ? "" : ", ", k), first = 0;
      strbuf_puts(sb, "], ");
    }
    if (s->base) {
      strbuf_puts(sb, "\"decoupled\": ");
      json_labels(sb, labels, s->hidden, s->nhidden);
      strbuf_printf(sb, ", \"abstraction\": {\"states\": %d, \"transitions\": %d}, ", s->base->nstates,
                    s->base->ntrans);
    }
    strbuf_puts(sb, "\"controllable\": ");
    json_labels(sb, labels, s->ctrl, s->nctrl);
    strbuf_puts(sb, ", \"observable\": ");
    json_labels(sb, labels, s->obs, s->nobs);
    strbuf_printf(sb, ", \"cost\": %ld, \"utility\": %ld, \"kept\": [", s->cost, s->utility);
    for (int k = 0, first = 1; k < res->npref; k++)
      if (s->kept >> k & 1) strbuf_printf(sb, "%s%d", first ? "" : ", ", k), first = 0;
    strbuf_puts(sb, "]");
    if (!s->sup) { /* a stop came before it was synthesised again */
      strbuf_puts(sb, ", \"synthesised\": false}");
      continue;
    }
    strbuf_puts(sb, ", \"disabled\": ");
    json_labels(sb, labels, s->disabled, s->ndisabled);
    strbuf_printf(sb, ", \"supervisor\": {\"states\": %d, \"transitions\": %d}", s->sup->nstates,
                  s->sup->ntrans);
    strbuf_printf(sb, ", \"design\": {\"states\": %d, \"transitions\": %d}}", r->designs[i]->nstates,
                  r->designs[i]->ntrans);
  }
  strbuf_printf(sb, "%s]", res->nsols ? "\n  " : "");
  if (r->compare_a_not_b >= 0)
    strbuf_printf(sb, ",\n  \"compare\": {\"a_not_b\": %d, \"b_not_a\": %d}", r->compare_a_not_b,
                  r->compare_b_not_a);
  strbuf_puts(sb, "\n}\n");
}

/* The final phase's stop (robustify_final_stop) as a callback for the
 * designs and their re-checks. */
typedef struct {
  const robustify_problem_t *p;
  robustify_result_t *res;
} final_t;

static bool final_stop(void *arg) {
  final_t *f = arg;
  return robustify_final_stop(f->p, f->res);
}

/* ------------------------------------------------------------ compare */

static const char *const compare_keys[] = {"environment", "property"};

/* Robustness (docs/robustness.md) of the original and the redesigned
 * system against the normative environment, as classes of W_A − W_B. */
static bool compare(fsp_config_t *r, const ynode_t *n, const lts_t *sys, const lts_t *design, int *a_not_b,
                    int *b_not_a) {
  diag_list_t *d = &r->ctx->diags;
  if (!ydoc_check_keys(n, compare_keys, 2, "'compare'", d)) return false;
  const ynode_t *ne = ydoc_require(n, "environment", "'compare'", d),
                *np = ydoc_require(n, "property", "'compare'", d);
  if (!ne || !np) return false;
  lts_t *env = fsp_config_load(r, ne, "'compare.environment'", "ENV", FSP_LOAD_PLAIN, NULL, NULL);
  lts_t *prop = fsp_config_load(r, np, "'compare.property'", "P", FSP_LOAD_PROPERTY, NULL, NULL);
  bool ok = env && prop;
  if (ok) {
    int na, nb;
    int *alpha = robust_interface(sys, env, &na);
    int *beta = robust_interface(design, env, &nb);
    if (na != nb || memcmp(alpha, beta, (size_t)na * sizeof *alpha) != 0) {
      diag_error(
          d, n->loc,
          "the redesign observes environment actions the original does not: the two designs have different "
          "interfaces with the environment, so their robustness cannot be compared");
      ok = false;
    } else {
      bool ea, eb;
      lts_t *wa = robust_weakest_assumption(sys, prop, alpha, na, true, &ea);
      lts_t *wb = robust_weakest_assumption(design, prop, alpha, na, true, &eb);
      robust_traces_t x = {0}, y = {0};
      bool stopped = !wa || !wb || !robust_delta(wa, wb, &x) || !robust_delta(wb, wa, &y);
      /* a stop request: the solutions are still reported, without the comparison (-2) */
      *a_not_b = stopped ? -2 : x.ntraces;
      *b_not_a = stopped ? -2 : y.ntraces;
      robust_traces_free(&x);
      robust_traces_free(&y);
      lts_free(wa);
      lts_free(wb);
    }
    free(alpha);
    free(beta);
  }
  lts_free(env);
  lts_free(prop);
  return ok;
}

/* ---------------------------------------------------------------- run */

static int run_robustify(cli_ctx_t *ctx, const cli_command_t *self, const char *path,
                         const cli_value_t *values) {
  fsp_config_t r;
  fsp_config_init(&r, ctx, path);
  /* --max-states also bounds every process and composition the FSP files compile to */
  const cli_value_t *ms = cli_opt(self, values, "max-states"), *mi = cli_opt(self, values, "max-iter");
  if (ms->set) r.max_states = (long)ms->i;
  diag_list_t *d = &ctx->diags;
  int rc = CLI_EXIT_INVALID;
  lts_t *sys = NULL, *dev = NULL, *safety = NULL;
  lists_t lists = {0};
  robustify_result_t res = {0};
  lts_t **designs = NULL;
  char *text = NULL;
  config_t c = {0};

  ynode_t *root = ydoc_load_file(path, &r.arena, d);
  if (!root || !ydoc_expect_kind(root, YNODE_MAP, "a robustify configuration", d)) goto done;
  bool ok = ydoc_get(root, "sys") ? read_fortis(ctx, root, &c) : read_yaml(ctx, root, &c);
  if (!ok) goto done;
  const char *ps = c.fortis ? NULL : "SYS", *pe = c.fortis ? NULL : "ENV", *pp = c.fortis ? NULL : "P";
  const char *sys_files = NULL, *dev_files = NULL;
  sys = fsp_config_load(&r, c.sys, "'system'", ps, FSP_LOAD_PLAIN, &sys_files, NULL);
  dev = fsp_config_load(&r, c.dev, "'deviation'", pe, FSP_LOAD_PLAIN, &dev_files, NULL);
  if (fsp_config_progress_count(&r, r.files.len) > 0)
    diag_warning(&ctx->diags, c.sys->loc,
                 "the system or deviation model declares FSP progress properties: `ismv robustness` checks "
                 "them, `robustify` does not (its progress is the config's 'progress')");
  safety = fsp_config_load(&r, c.safety, "'safety'", pp, FSP_LOAD_PLAIN, NULL, NULL);
  if (!sys || !dev || !safety) goto done;

  bitword_t *alpha = bitset_new(r.labels.names.count);
  for (int a = 0; a < sys->nalphabet; a++) bitset_set(alpha, (size_t)sys->alphabet[a]);
  for (int a = 0; a < dev->nalphabet; a++) bitset_set(alpha, (size_t)dev->alphabet[a]);
  const cli_value_t *mv = cli_opt(self, values, "method");
  const char *method = mv->set ? mv->s : c.method;
  bool ctrl_ok = events(ctx, &r.labels, alpha, c.ctrl, c.ctrl_map, "'controllable'", &lists.ctrl);
  bool obs_ok = events(ctx, &r.labels, alpha, c.obs, c.obs_map, "'observable'", &lists.obs); /* both reported */
  ok = ctrl_ok && obs_ok;
  if (c.progress) {
    if (!ydoc_expect_kind(c.progress, YNODE_SEQ, "'progress'", d))
      ok = false;
    else
      for (size_t i = 0; i < c.progress->len; i++) {
        int l;
        if (!action(ctx, &r.labels, alpha, c.progress->items[i], &l))
          ok = false;
        else if (lists.progress.len == ROBUSTIFY_MAX_PROGRESS) {
          diag_error(d, c.progress->items[i]->loc, "more than %d progress actions", ROBUSTIFY_MAX_PROGRESS);
          ok = false;
        } else
          VEC_PUSH(&lists.progress, l);
      }
  }
  if (!preferred(ctx, &r.labels, &c, &lists)) ok = false;
  bool one_shot = strcmp(method, "simple") == 0 || strcmp(method, "oasis") == 0;
  if (ok && one_shot && (lists.ctrl.len == 0 || lists.obs.len == 0)) {
    /* Fortis's simple and OASIS methods: every action of the system */
    VEC_CLEAR(&lists.ctrl);
    VEC_CLEAR(&lists.obs);
    for (int a = 0; a < sys->nalphabet; a++) {
      VEC_PUSH(&lists.ctrl, ((robustify_event_t){sys->alphabet[a], 0}));
      VEC_PUSH(&lists.obs, ((robustify_event_t){sys->alphabet[a], 0}));
    }
  }
  int unseen = ok && strcmp(method, "oasis") == 0 ? missing_from(&lists.ctrl, &lists.obs) : -1;
  if (unseen >= 0) {
    diag_error(d, c.ctrl->loc,
               "'%s' is controllable but not observable: the oasis method needs every controllable "
               "action to be observable (as Fortis)",
               lts_label_name(&r.labels, unseen));
    ok = false;
  }
  if (ok && !one_shot && (lists.ctrl.len == 0 || lists.obs.len == 0)) {
    diag_error(d, root->loc, "the %s method needs controllable and observable actions", method);
    ok = false;
  }
  free(alpha);
  if (!ok) goto done;

  robustify_problem_t p = {
      .sys = sys,
      .dev = dev,
      .safety = safety,
      .progress = lists.progress.data,
      .nprogress = (int)lists.progress.len,
      .pref = lists.pref.data,
      .npref = (int)lists.pref.len,
      .ctrl = lists.ctrl.data,
      .nctrl = (int)lists.ctrl.len,
      .obs = lists.obs.data,
      .nobs = (int)lists.obs.len,
      .method = strcmp(method, "fast") == 0     ? ROBUSTIFY_FAST
                : strcmp(method, "simple") == 0 ? ROBUSTIFY_SIMPLE
                : strcmp(method, "oasis") == 0  ? ROBUSTIFY_OASIS
                                                : ROBUSTIFY_PARETO,
      .max_iter = mi->set ? (int)mi->i : (int)c.max_iter,
      .max_states = ms->set ? (long)ms->i : 0,
  };
  robustify_run(&p, &res);
  designs = xcalloc((size_t)res.nsols + 1, sizeof *designs);
  final_t fin = {&p, &res};
  for (int i = 0; i < res.nsols; i++) {
    robustify_solution_t *sol = &res.sols[i];
    if (!sol->sup) continue;
    designs[i] = robustify_design_bounded(sys, sol, final_stop, &fin);
    const char *why = designs[i] ? robustify_check_bounded(&p, sol, designs[i], final_stop, &fin)
                                 : ROBUSTIFY_CHECK_STOPPED;
    if (why == ROBUSTIFY_CHECK_STOPPED) { /* reported as sets, without what was not re-checked */
      lts_free(designs[i]);
      designs[i] = NULL;
      lts_free(sol->sup);
      sol->sup = NULL;
      free(sol->disabled);
      sol->disabled = NULL;
      sol->ndisabled = 0;
      continue;
    }
    if (why) {
      fprintf(ctx->err, "ismv: internal error: solution %d fails its re-check: %s\n", i + 1, why);
      rc = CLI_EXIT_INTERNAL;
      goto done;
    }
  }
  report_t rep = {sys_files,
                  dev_files,
                  sys,
                  dev,
                  &lists,
                  &res,
                  designs,
                  method,
                  -1,
                  -1,
                  p.method != ROBUSTIFY_SIMPLE && p.max_iter != 1};
  if (c.compare && res.nsols > 0 && designs[0] &&
      !compare(&r, c.compare, sys, designs[0], &rep.compare_a_not_b, &rep.compare_b_not_a))
    goto done;
  if (rep.compare_a_not_b == -2 && !res.bounded) { /* the comparison stopped: a partial report */
    res.bounded = true;
    res.limit = stop_reason() == STOP_SIGNAL ? "signal" : "timeout";
  }

  const cli_value_t *fmt = cli_opt(self, values, "format");
  const char *format = fmt->set ? fmt->s : "text";
  const cli_value_t *fv = cli_opt(self, values, "fsp"), *dv = cli_opt(self, values, "dot");
  strbuf_t sb, fsp, dot;
  strbuf_init(&sb);
  strbuf_init(&fsp);
  strbuf_init(&dot);
  if (res.nsols > 0 && designs[0]) { /* rendered only when asked for (pump-3's design: 0.3 G instructions) */
    if (fv->set || strcmp(format, "fsp") == 0) design_fsp(designs[0], &fsp);
    if (dv->set || strcmp(format, "dot") == 0) lts_to_dot(designs[0], "robustified", &dot);
  }
  if (strcmp(format, "json") == 0)
    json_report(&rep, &r.labels, &sb);
  else if (strcmp(format, "fsp") == 0)
    strbuf_puts(&sb, strbuf_str(&fsp));
  else if (strcmp(format, "dot") == 0)
    strbuf_puts(&sb, strbuf_str(&dot));
  else
    text_report(&rep, &r.labels, &sb);
  text = strbuf_take(&sb);
  bool json = strcmp(format, "json") == 0; /* written last: it states the exit code */
  rc = json ? CLI_EXIT_OK : cli_write_output(ctx, text);
  if (rc == CLI_EXIT_OK && fv->set) rc = cli_write_file(ctx, fv->s, strbuf_str(&fsp));
  if (rc == CLI_EXIT_OK && dv->set) rc = cli_write_file(ctx, dv->s, strbuf_str(&dot));
  const cli_value_t *av = cli_opt(self, values, "write-aut");
  if (rc == CLI_EXIT_OK && av->set && res.nsols > 0 && designs[0]) {
    strbuf_t aut;
    strbuf_init(&aut);
    aut_write(designs[0], &aut);
    rc = cli_write_file(ctx, av->s, strbuf_str(&aut));
    strbuf_free(&aut);
  }
  strbuf_free(&fsp);
  strbuf_free(&dot);
  if (rc == CLI_EXIT_OK && (strcmp(format, "fsp") == 0 || strcmp(format, "dot") == 0) &&
      (res.nsols == 0 || !designs[0]))
    fprintf(ctx->err, "ismv: %s, nothing to print as %s\n", res.nsols ? "no design (stopped)" : "no solution",
            format);
  cli_outcome_t outcome = {.analysis = CLI_EXIT_OK,
                           .complete = !res.bounded,
                           .expect = -1,
                           .interrupted = res.bounded && strcmp(res.limit, "signal") == 0};
  if (rc == CLI_EXIT_OK && c.expect) {
    const robustify_solution_t *s0 = res.nsols ? &res.sols[0] : NULL;
    long cost = s0 ? s0->cost : -1, utility = s0 ? s0->utility : -1;
    int kept = 0;
    for (int k = 0; res.nsols && k < res.npref; k++) kept += (int)(res.sols[0].kept >> k & 1);
    expect_actual_t actual[] = {
        {"solutions", EXPECT_NUMBER, res.nsols, false, NULL},
        {"syntheses", EXPECT_NUMBER, res.nsynth, false, NULL},
        {"cost", EXPECT_NUMBER, (double)cost, false, NULL},
        {"utility", EXPECT_NUMBER, (double)utility, false, NULL},
        {"kept", EXPECT_NUMBER, kept, false, NULL},
        {"controllable", EXPECT_NUMBER, s0 ? s0->nctrl : -1, false, NULL},
        {"observable", EXPECT_NUMBER, s0 ? s0->nobs : -1, false, NULL},
        {"supervisor_states", EXPECT_NUMBER, s0 && s0->sup ? s0->sup->nstates : -1, false, NULL},
        {"supervisor_transitions", EXPECT_NUMBER, s0 && s0->sup ? s0->sup->ntrans : -1, false, NULL},
        {"plant_states", EXPECT_NUMBER, res.plant_states, false, NULL},
        {"no_supervisor", EXPECT_BOOL, 0, res.no_supervisor, NULL},
        {"bounded", EXPECT_BOOL, 0, res.bounded, NULL},
        {"a_not_b", EXPECT_NUMBER, rep.compare_a_not_b, false, NULL},
        {"b_not_a", EXPECT_NUMBER, rep.compare_b_not_a, false, NULL},
    };
    outcome.expect = expect_check(ctx, c.expect, EXPECT_KEYS, actual, sizeof actual / sizeof *actual);
  }
  /* holding expectations never make a bounded search complete */
  if (rc == CLI_EXIT_OK) rc = cli_exit_code(&outcome);
  if (json) {
    char *why = res.bounded ? bounded_reason(&res) : NULL;
    json_envelope_t envelope = {.command = "robustify",
                                .input = path,
                                .verdict =
                                    json_envelope_verdict(res.bounded ? CLI_EXIT_INCONCLUSIVE : CLI_EXIT_OK),
                                .exit_code = rc,
                                .partial = why};
    int wrc = json_envelope_write(ctx, &envelope, text);
    if (wrc) rc = wrc;
    free(why);
  }

done:
  if (!text && stop_requested())
    rc = cli_write_stopped(ctx, cli_opt(self, values, "format")->s, NULL);
  else if (rc == CLI_EXIT_INVALID && r.limit_hit)
    rc = CLI_EXIT_INCONCLUSIVE; /* --max-states stopped loading */
  free(text);
  for (int i = 0; designs && i < res.nsols; i++) lts_free(designs[i]);
  free(designs);
  robustify_result_free(&res);
  lists_free(&lists);
  lts_free(sys);
  lts_free(dev);
  lts_free(safety);
  fsp_config_free(&r);
  return rc;
}

const cli_command_t cmd_robustify = {
    .name = "robustify",
    .kind = "robustify",
    .summary =
        "redesign an LTS machine to be safe under a deviated environment (Fortis, supervisory control)",
    .usage = "CONFIG.yaml|CONFIG.json [options]",
    .description =
        "Synthesises, for machine M (`system:`) and deviated environment E' (`deviation:`), a supervisor\n"
        "that makes M ‖ E' satisfy the safety property P (`safety:`, an action P does not enable is\n"
        "forbidden) while every `progress:` action stays reachable (nonblocking), disabling only\n"
        "`controllable:` actions and observing only `observable:` ones (each with a cost class 0..3).\n"
        "Among the action sets that keep the preferred behaviours (`preferred:`, by priority) the\n"
        "maximal supervisor keeps, it reports those of least cost: `pareto` keeps every least-cost\n"
        "set of Fortis's Pareto search, `fast` one greedy set, `simple` synthesises once with every\n"
        "action of M, `oasis` (Fortis's OASIS) once per subset of the candidate actions, smallest first,\n"
        "on M with that subset decoupled, until a supervisor exists. `--max-iter`/`maxIter` lets the\n"
        "search give up preferred behaviours for cheaper sets, bracket by bracket, as Fortis does.\n"
        "The redesigned system is M ‖ S (S the supervisor over the observable actions);\n"
        "`--format fsp` prints it as FSP that `ismv robustness` loads. Fortis's JSON configs are read\n"
        "directly. `compare: {environment: E, property: P}` adds the robustness of the original and\n"
        "the redesign against E. `expect:` keys: solutions, syntheses, cost, utility, kept,\n"
        "controllable, observable, supervisor_states, supervisor_transitions (of the first solution),\n"
        "plant_states, no_supervisor, bounded, a_not_b, b_not_a. Exit 5 when --max-states, --timeout\n"
        "or a signal stopped the search or the final phase (the best solution so far is printed, marked\n"
        "partial; after a time limit the final phase has 10 s to synthesise it again, past that or after\n"
        "a signal it is printed as its sets and cost, without supervisor and design).\n"
        "Format and semantics: docs/robustify.md.",
    .options = options,
    .noptions = sizeof options / sizeof *options,
    .run = run_robustify,
};
