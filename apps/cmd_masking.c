/* ismv masking: masking fault-tolerance distance between a nominal model
 * and a fault-tolerant implementation, each in MaskD's guarded-command
 * language (a file, or inline `program:` text) or in the YAML form (a
 * `.yaml` file, or an inline `model:`), named by a YAML config. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/expect.h"
#include "apps/json_envelope.h"
#include "apps/masking_report.h"
#include "apps/progress.h"
#include "apps/report.h"
#include "ism/alloc.h"
#include "ism/intern.h"
#include "ism/ydoc.h"
#include "verifier/masking/maskd.h"
#include "verifier/masking/maskd_yaml.h"
#include "verifier/masking/masking.h"

static const cli_option_t options[] = {
    {"weak", 0, OPT_CHOICE, NULL, "auto|true|false", "auto (or the config's weak:)", 0, -1,
     "weak masking abstracts internal (τ) moves; auto: weak when the implementation has internal actions"},
    {"deadlock-error", 'l', OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "a deadlock of the implementation is an error (MaskD -l)"},
    {"no-nominal-match", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "the implementation need not simulate the nominal model: the refuter plays only implementation moves "
     "(MaskD -nb)"},
    {"fault-answers", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "a faulty implementation transition may answer a nominal move with the same label, as MaskD's game does"},
    {"trace", 't', OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "print the refuter's winning play (with --format dot: only the play)"},
    {"format", 'f', OPT_CHOICE, NULL, "text|json|sarif|dot|html", "text", 0, -1,
     "output format; dot: the game graph; html: the page of ismv report"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the report to FILE"},
    {"max-states", 0, OPT_INT, "N", NULL, "2000000", 1, 1e9,
     "give up (inconclusive) beyond N states in a model"},
    {"max-nodes", 0, OPT_INT, "N", NULL, "50000000", 1, 2e9, "give up (inconclusive) beyond N game nodes"},
    {"stats", 0, OPT_FLAG, NULL, NULL, NULL, 0, -1, "print sizes and timings on stderr"},
    {"quiet", 'q', OPT_FLAG, NULL, NULL, NULL, 0, -1,
     "no progress line on stderr (shown only when stderr is a terminal)"},
};

static const char *const CONFIG_KEYS[] = {"kind",           "nominal",          "implementation", "weak",
                                          "deadlock-error", "no-nominal-match", "fault-answers",  "max-states",
                                          "expect"};

typedef struct {
  const char *name; /* shown in reports */
  maskd_program_t *prog;
  masking_lts_t lts;
} side_t;

/* Removes "./" and "dir/../" segments in place, lexically. */
static void normalize_path(char *path) {
  char *seg[256];
  size_t n = 0;
  bool absolute = path[0] == '/';
  char *copy = xstrdup(path);
  for (char *tok = strtok(copy, "/"); tok; tok = strtok(NULL, "/")) {
    if (strcmp(tok, ".") == 0) continue;
    if (strcmp(tok, "..") == 0 && n > 0 && strcmp(seg[n - 1], "..") != 0) {
      n--;
      continue;
    }
    if (n == sizeof seg / sizeof *seg) { /* absurdly deep: leave the path alone */
      free(copy);
      return;
    }
    seg[n++] = tok;
  }
  char *w = path;
  if (absolute) *w++ = '/';
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(seg[i]);
    memmove(w, seg[i], len);
    w += len;
    if (i + 1 < n) *w++ = '/';
  }
  if (w == path) *w++ = '.';
  *w = 0;
  free(copy);
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* `nominal:` / `implementation:` — a path relative to the config (a MaskD
 * `.test` file, or a `.yaml`/`.yml` file holding a model in the YAML
 * form), or a mapping with one of `file:`, `program:` (MaskD source text)
 * and `model:` (the YAML form inline). */
static bool load_side(cli_ctx_t *ctx, const char *config, const ynode_t *node, const char *what, arena_t *arena,
                      side_t *out) {
  const ynode_t *file = node, *program = NULL, *model = NULL;
  if (node->kind == YNODE_MAP) {
    static const char *const keys[] = {"file", "program", "model"};
    ydoc_check_keys(node, keys, 3, what, &ctx->diags);
    file = ydoc_get(node, "file");
    program = ydoc_get(node, "program");
    model = ydoc_get(node, "model");
    if (!!file + !!program + !!model != 1) {
      diag_error(&ctx->diags, node->loc, "%s needs exactly one of 'file', 'program' and 'model'", what);
      return false;
    }
  }
  if (model) {
    out->name = arena_printf(arena, "%s:%d", config, model->loc.line);
    out->prog = maskd_yaml_read(model, &ctx->diags);
    return out->prog != NULL;
  }
  const char *text;
  if (program) {
    if (!ydoc_string(program, &text, "'program'", &ctx->diags)) return false;
    out->name = arena_printf(arena, "%s:%d", config, program->loc.line);
    loc_t start = program->loc;
    int indent = 0;
    char line[4096];
    if (diag_source_line(&ctx->diags, start.file, start.line, line, sizeof line)) {
      bool quoted = start.col > 1 && (line[start.col - 2] == '"' || line[start.col - 2] == '\'');
      if (!quoted) { /* a block scalar: its lines lose their indentation */
        while (line[indent] == ' ') indent++;
        start.col = 1 + indent;
      }
    }
    out->prog = maskd_parse(text, start, indent, &ctx->diags);
    return out->prog != NULL;
  }
  if (!ydoc_string(file, &text, what, &ctx->diags)) return false;
  const char *slash = strrchr(config, '/');
  char *joined = text[0] == '/' || !slash ? arena_strdup(arena, text)
                                          : arena_printf(arena, "%.*s/%s", (int)(slash - config), config, text);
  normalize_path(joined);
  out->name = joined;
  if (has_suffix(joined, ".yaml") || has_suffix(joined, ".yml")) {
    const char *reg = NULL;
    const char *source = diag_read_file(&ctx->diags, joined, file->loc, &reg);
    const ynode_t *root = source ? ydoc_load_string(reg, source, arena, &ctx->diags) : NULL;
    out->prog = root ? maskd_yaml_read(root, &ctx->diags) : NULL;
  } else {
    out->prog = maskd_load_file(out->name, file->loc, &ctx->diags);
  }
  return out->prog != NULL;
}

typedef struct {
  const char *weak;
  bool deadlock_error, no_nominal_match, fault_answers;
  long long max_states;
  const ynode_t *expect;
} config_t;

/* `expect:` keys, in the order of the results checked after the run. */
static const expect_key_t EXPECT_KEYS[] = {
    {"distance", EXPECT_NUMBER}, {"masks", EXPECT_BOOL}, {"faults", EXPECT_NUMBER_OR_NULL}};

static bool read_flag(cli_ctx_t *ctx, const ynode_t *root, const char *key, bool *out) {
  const ynode_t *n = ydoc_get(root, key);
  return !n || ydoc_bool(n, out, key, &ctx->diags);
}

static bool read_config(cli_ctx_t *ctx, const ynode_t *root, config_t *c) {
  bool ok = ydoc_check_keys(root, CONFIG_KEYS, sizeof CONFIG_KEYS / sizeof *CONFIG_KEYS, "a masking config",
                            &ctx->diags);
  const ynode_t *kind = ydoc_require(root, "kind", "a masking config", &ctx->diags);
  if (!kind)
    ok = false;
  else if (kind->kind != YNODE_SCALAR || strcmp(kind->text, "masking") != 0) {
    diag_error(&ctx->diags, kind->loc, "'ismv masking' needs 'kind: masking'");
    ok = false;
  }
  const ynode_t *weak = ydoc_get(root, "weak");
  if (weak) {
    if (!ydoc_string(weak, &c->weak, "'weak'", &ctx->diags)) return false;
    if (strcmp(c->weak, "auto") != 0 && strcmp(c->weak, "true") != 0 && strcmp(c->weak, "false") != 0) {
      diag_error(&ctx->diags, weak->loc, "'weak' must be auto, true or false, not '%s'", c->weak);
      ok = false;
    }
  }
  ok &= read_flag(ctx, root, "deadlock-error", &c->deadlock_error);
  ok &= read_flag(ctx, root, "no-nominal-match", &c->no_nominal_match);
  ok &= read_flag(ctx, root, "fault-answers", &c->fault_answers);
  const ynode_t *ms = ydoc_get(root, "max-states");
  if (ms) { /* as --max-states: the same parser and range */
    const cli_option_t *o = options;
    while (strcmp(o->name, "max-states") != 0) o++;
    cli_value_t v;
    if (cli_file_option(o, ms, &v, &ctx->diags))
      c->max_states = v.i;
    else
      ok = false;
  }
  c->expect = ydoc_get(root, "expect");
  return expect_validate(ctx, c->expect, EXPECT_KEYS, sizeof EXPECT_KEYS / sizeof *EXPECT_KEYS) && ok;
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Explores both programs, saturates when weak, builds and solves the game;
 * each phase on the progress line, which is erased before any message. */
static int analyse(cli_ctx_t *ctx, side_t *spec, side_t *imp, intern_t *labels, bool weak, size_t max_states,
                   const masking_options_t *opts, masking_game_t *game, char **stopped, progress_t *line) {
  side_t *sides[2] = {spec, imp};
  static const char *const side_names[2] = {"nominal", "implementation"};
  for (int i = 0; i < 2; i++) {
    progress_phase(line, "masking: exploring the %s model", side_names[i]);
    maskd_status_t st = maskd_explore(sides[i]->prog, labels, max_states, &sides[i]->lts, &ctx->diags);
    if (st == MASKD_STOPPED) {
      *stopped = xasprintf("stopped while exploring the %s model, %zu states so far; no result", side_names[i],
                           sides[i]->lts.nstates);
      sides[i]->lts.nstates = 0;
      return CLI_EXIT_INCONCLUSIVE;
    }
    if (st != MASKD_OK) return st == MASKD_TOO_BIG ? CLI_EXIT_INCONCLUSIVE : CLI_EXIT_INVALID;
  }
  if (weak) {
    progress_phase(line, "masking: saturating internal moves (%zu and %zu states)", spec->lts.nstates,
                   imp->lts.nstates);
    int tau = intern_add(labels, "τ");
    for (int i = 0; i < 2; i++) {
      masking_lts_t sat;
      if (!masking_saturate(&sides[i]->lts, tau, &sat)) {
        *stopped = xasprintf("stopped while saturating the %s model (%zu states) for the weak game; no result",
                             side_names[i], sides[i]->lts.nstates);
        return CLI_EXIT_INCONCLUSIVE;
      }
      masking_lts_free(&sides[i]->lts);
      sides[i]->lts = sat;
    }
  }
  progress_phase(line, "masking: building and solving the game (%zu and %zu states)", spec->lts.nstates,
                 imp->lts.nstates);
  masking_status_t st = masking_solve(&spec->lts, &imp->lts, opts, game);
  progress_end(line);
  if (st == MASKING_STOPPED) {
    *stopped = xasprintf("stopped while building the game (nominal %zu states, implementation %zu states, "
                         "%zu game nodes so far); no result",
                         spec->lts.nstates, imp->lts.nstates, game->nnodes);
    game->nnodes = 0;
    return CLI_EXIT_INCONCLUSIVE;
  }
  if (st == MASKING_TOO_BIG) {
    diag_error(&ctx->diags, (loc_t){0}, "the masking game exceeds %zu nodes", opts->max_nodes);
    return CLI_EXIT_INCONCLUSIVE;
  }
  strbuf_t why;
  strbuf_init(&why);
  bool sound = masking_check(game, &why);
  if (!sound) fprintf(ctx->err, "ismv: internal error: masking game values fail their check: %s\n", strbuf_str(&why));
  strbuf_free(&why);
  return sound ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

static int report(cli_ctx_t *ctx, const cli_command_t *self, const cli_value_t *values, masking_report_t *rep,
                  const ynode_t *expect, const char *path) {
  const cli_value_t *v = cli_opt(self, values, "format");
  const char *format = v->set ? v->s : "text";
  int *trace = NULL;
  rep->ntrace = masking_trace(rep->game, &trace);
  rep->trace = trace;
  bool html = strcmp(format, "html") == 0;
  char *text = masking_render(rep, html ? "json" : format, cli_opt(self, values, "trace")->set);
  free(trace);
  uint32_t w = masking_value(rep->game);
  cli_outcome_t outcome = {.analysis = w ? CLI_EXIT_VIOLATION : CLI_EXIT_OK, .complete = true, .expect = -1};
  if (expect) {
    expect_actual_t actual[] = {
        {"distance", EXPECT_NUMBER, masking_distance(rep->game), false, NULL},
        {"masks", EXPECT_BOOL, 0, w == 0, NULL},
        {"faults", w ? EXPECT_NUMBER : EXPECT_NULL, (double)(w - 1), false, NULL},
    };
    size_t n = sizeof actual / sizeof *actual;
    outcome.expect = expect_check(ctx, expect, EXPECT_KEYS, actual, n);
    /* each key says whether the implementation masks its faults */
    static const char *const verdict_keys[] = {"distance", "masks", "faults"};
    outcome.expect_verdict = expect_states_verdict(expect, verdict_keys, 3);
  }
  /* the exit code is decided before the report is written: the JSON states it */
  json_envelope_t envelope = {.command = "masking",
                              .input = path,
                              .verdict = json_envelope_verdict(outcome.analysis),
                              .exit_code = cli_exit_code(&outcome)};
  int rc =
      strcmp(format, "json") == 0 || html ? report_write_result(ctx, &envelope, text, html, NULL)
                                          : cli_write_output(ctx, text);
  free(text);
  return rc ? rc : envelope.exit_code;
}

static int run_masking(cli_ctx_t *ctx, const cli_command_t *self, const char *path, const cli_value_t *values) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  arena_t arena;
  arena_init(&arena);
  config_t cfg = {.weak = "auto", .max_states = 2000000};
  side_t spec = {0}, imp = {0};
  intern_t labels;
  intern_init(&labels);
  masking_game_t game = {0};
  int rc = CLI_EXIT_INVALID;
  const ynode_t *root = ydoc_load_file(path, &arena, &ctx->diags);
  if (!root || diag_has_errors(&ctx->diags) || !ydoc_expect_kind(root, YNODE_MAP, "a masking config", &ctx->diags) ||
      !read_config(ctx, root, &cfg))
    goto done; /* a duplicate key is reported while the document still loads */
  const ynode_t *nom = ydoc_require(root, "nominal", "a masking config", &ctx->diags);
  const ynode_t *impl = ydoc_require(root, "implementation", "a masking config", &ctx->diags);
  bool ok = nom && load_side(ctx, path, nom, "'nominal'", &arena, &spec);
  ok &= impl && load_side(ctx, path, impl, "'implementation'", &arena, &imp);
  if (!ok) goto done;

  const cli_value_t *v;
  const char *weak_s = (v = cli_opt(self, values, "weak"))->set ? v->s : cfg.weak;
  bool weak = strcmp(weak_s, "auto") == 0 ? maskd_has_internal(imp.prog) : strcmp(weak_s, "true") == 0;
  masking_options_t opts = {
      .deadlock_error = cli_opt(self, values, "deadlock-error")->set || cfg.deadlock_error,
      .nominal_match = !(cli_opt(self, values, "no-nominal-match")->set || cfg.no_nominal_match),
      .fault_answers = cli_opt(self, values, "fault-answers")->set || cfg.fault_answers,
      .max_nodes = (v = cli_opt(self, values, "max-nodes"))->set ? (size_t)v->i : 50000000,
  };
  size_t max_states = (v = cli_opt(self, values, "max-states"))->set ? (size_t)v->i : (size_t)cfg.max_states;
  if (weak && opts.deadlock_error) {
    /* The weak game saturates the implementation with τ self-loops: no
     * state deadlocks there, so the option would be silently void. */
    fprintf(ctx->err,
            "ismv: error: --deadlock-error works in the strong game only (the weak game's τ self-loops "
            "leave no deadlock); the game is weak here: add --weak false for the strong one\n");
    rc = CLI_EXIT_USAGE;
    goto done;
  }
  char *stopped = NULL;
  progress_t line;
  progress_init(&line, ctx, cli_opt(self, values, "quiet")->set);
  rc = analyse(ctx, &spec, &imp, &labels, weak, max_states, &opts, &game, &stopped, &line);
  progress_end(&line);
  if (stopped) {
    v = cli_opt(self, values, "format");
    rc = cli_write_stopped(ctx, v->set ? v->s : "text", stopped);
    free(stopped);
  }
  if (rc != CLI_EXIT_OK) goto done;
  masking_report_t rep = {.spec_name = spec.name,
                          .imp_name = imp.name,
                          .spec_prog = spec.prog,
                          .imp_prog = imp.prog,
                          .spec = &spec.lts,
                          .imp = &imp.lts,
                          .labels = &labels,
                          .weak = weak,
                          .opts = &opts,
                          .game = &game,
                          .config = path,
                          .imp_loc = impl->loc};
  rc = report(ctx, self, values, &rep, cfg.expect, path);
  if (cli_opt(self, values, "stats")->set)
    fprintf(ctx->err, "ismv: nominal %zu states, implementation %zu states, game %zu nodes, %.3f s\n",
            spec.lts.nstates, imp.lts.nstates, game.nnodes, seconds_since(&t0));
done:
  masking_game_free(&game);
  masking_lts_free(&spec.lts);
  masking_lts_free(&imp.lts);
  maskd_free(spec.prog);
  maskd_free(imp.prog);
  intern_free(&labels);
  arena_free(&arena);
  return rc;
}

const cli_command_t cmd_masking = {
    .name = "masking",
    .kind = "masking",
    .summary = "masking fault-tolerance distance of an implementation with faults (MaskD or YAML models)",
    .usage = "CONFIG.yaml",
    .description =
        "Reads a YAML config naming a nominal model and a fault-tolerant implementation, each in\n"
        "MaskD's guarded-command language (`nominal: FILE.test` or `nominal: {program: TEXT}`) or\n"
        "in the YAML form with the same concepts and our expression language (`nominal: FILE.yaml`\n"
        "or `nominal: {model: {enums, globals, processes, instances, run}}`; a process has\n"
        "parameters, variables, initial and actions, an action label, guard, do, faulty and\n"
        "internal; see docs/masking.md). It builds the masking game between them and reports\n"
        "whether the implementation masks its faults and, if not, the masking distance 1/w (w: the\n"
        "faults the refuter needs plus one; 1 when the implementation without faults does not\n"
        "match the nominal model). Config keys: kind, nominal, implementation, weak,\n"
        "deadlock-error, no-nominal-match, fault-answers, max-states, expect (distance, masks, faults).\n"
        "Exit code 10 when the implementation does not mask, or, with expect:, when an expectation\n"
        "fails.",
    .options = options,
    .noptions = sizeof options / sizeof options[0],
    .run = run_masking,
};
