/* ismv check: runs, for every file, the analysis its `kind:` names with the
 * options the file sets, checks its `expect:` block, and reports the files as
 * text, JSON, JUnit XML or SARIF. Each file runs with its output and
 * diagnostics captured; with -j N the files run in N child processes (each
 * analysis owns a Z3 context and threads of its own, so processes, not
 * threads, keep them apart), and the report is the same for every N. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/json_envelope.h"
#include "apps/sarif.h"
#include "ism/alloc.h"
#include "ism/stop.h"
#include "ism/strbuf.h"
#include "ism/vec.h"
#include "ism/ydoc.h"

typedef struct {
  diag_level_t level;
  char *file; /* NULL: no file */
  int line, col;
  char *message;
} check_diag_t;

typedef struct {
  const char *path; /* borrowed from argv */
  char *kind;       /* the file's kind:, or NULL when it has none */
  int rc;           /* the file's exit code */
  char *out;        /* the analysis's report (stdout), owned */
  char *err;        /* rendered diagnostics and notes (stderr), owned */
  check_diag_t *diags;
  size_t ndiags;
} check_result_t;

static const char *result_word(int rc) {
  switch (rc) {
  case CLI_EXIT_OK: return "ok";
  case CLI_EXIT_VIOLATION: return "failed";
  case CLI_EXIT_INCONCLUSIVE: return "inconclusive";
  default: return "error";
  }
}

/* ---- running one file ---- */

static void keep_diags(check_result_t *r, const diag_list_t *d) {
  r->ndiags = d->count;
  r->diags = d->count ? xcalloc(d->count, sizeof *r->diags) : NULL;
  for (size_t i = 0; i < d->count; i++) {
    const diag_t *g = &d->items[i];
    r->diags[i] = (check_diag_t){g->level, g->loc.file ? xstrdup(g->loc.file) : NULL, g->loc.line, g->loc.col,
                                 xstrdup(g->message)};
  }
}

/* Runs the analysis of one file, within its own time limit (0: none). */
static void run_file(const char *path, double time_limit, check_result_t *r) {
  char *out = NULL, *err = NULL;
  size_t out_len = 0, err_len = 0;
  cli_ctx_t ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.out = open_memstream(&out, &out_len);
  ctx.err = open_memstream(&err, &err_len);
  if (!ctx.out || !ctx.err) {
    fprintf(stderr, "ismv: fatal: out of memory (capturing a report)\n");
    abort();
  }
  diag_init(&ctx.diags);
  ctx.time_limit = time_limit;

  arena_t arena;
  arena_init(&arena);
  ynode_t *root = ydoc_load_file(path, &arena, &ctx.diags);
  r->rc = CLI_EXIT_INVALID;
  const ynode_t *kind = root ? ydoc_require(root, "kind", "the file", &ctx.diags) : NULL;
  if (kind && kind->kind == YNODE_SCALAR) {
    r->kind = xstrdup(kind->text);
    size_t n;
    const cli_command_t *const *cmds = cli_commands(&n);
    const char *kinds[16];
    size_t nkinds = 0;
    const cli_command_t *cmd = NULL;
    for (size_t i = 0; i < n; i++) {
      if (!cmds[i]->kind) continue;
      if (nkinds < sizeof kinds / sizeof *kinds) kinds[nkinds++] = cmds[i]->kind;
      if (strcmp(cmds[i]->kind, kind->text) == 0) cmd = cmds[i];
    }
    if (!cmd) {
      const char *best = diag_suggest(kind->text, kinds, nkinds);
      diag_error(&ctx.diags, kind->loc, "unknown kind '%s'%s%s%s", kind->text, best ? " (did you mean '" : "",
                 best ? best : "", best ? "'?)" : "");
    } else {
      cli_value_t *defaults = xcalloc(cmd->noptions + 1, sizeof *defaults);
      arena_free(&arena);
      cli_time_limit_start(time_limit);
      ctx.command = cmd->name;
      ctx.input = path;
      r->rc = cmd->run(&ctx, cmd, path, defaults);
      cli_time_limit_end();
      free(defaults);
    }
  } else if (kind) {
    diag_error(&ctx.diags, kind->loc, "'kind' must be a single value");
  }
  arena_free(&arena);
  keep_diags(r, &ctx.diags);
  cli_render_diags(&ctx);
  diag_free(&ctx.diags);
  fclose(ctx.out);
  fclose(ctx.err);
  r->out = out;
  r->err = err;
}

/* A file a signal kept from starting: inconclusive, with a note. */
static void not_checked(const char *path, check_result_t *r) {
  r->path = path;
  r->rc = CLI_EXIT_INCONCLUSIVE;
  r->ndiags = 1;
  r->diags = xcalloc(1, sizeof *r->diags);
  r->diags[0] =
      (check_diag_t){DIAG_NOTE, xstrdup(path), 0, 0, xstrdup("not checked: interrupted by a signal")};
  r->err = xasprintf("%s: note: not checked: interrupted by a signal\n", path);
}

static bool signalled(void) { return stop_reason() == STOP_SIGNAL; }

/* ---- results across a process boundary (for -j) ---- */

static void put_str(FILE *f, const char *s) {
  size_t n = s ? strlen(s) : 0;
  fprintf(f, "%d %zu\n", s != NULL, n);
  if (n) fwrite(s, 1, n, f);
}

static char *get_str(FILE *f, bool *ok) {
  int present;
  size_t n;
  if (fscanf(f, "%d %zu", &present, &n) != 2 || fgetc(f) != '\n') {
    *ok = false;
    return NULL;
  }
  if (!present) return NULL;
  char *s = xmalloc(n + 1);
  if (fread(s, 1, n, f) != n) *ok = false;
  s[n] = '\0';
  return s;
}

static void write_result(FILE *f, const check_result_t *r) {
  fprintf(f, "%d %zu\n", r->rc, r->ndiags);
  put_str(f, r->kind);
  put_str(f, r->out);
  put_str(f, r->err);
  for (size_t i = 0; i < r->ndiags; i++) {
    const check_diag_t *d = &r->diags[i];
    fprintf(f, "%d %d %d\n", (int)d->level, d->line, d->col);
    put_str(f, d->file);
    put_str(f, d->message);
  }
}

static bool read_result(FILE *f, check_result_t *r) {
  bool ok = true;
  if (fscanf(f, "%d %zu", &r->rc, &r->ndiags) != 2 || fgetc(f) != '\n' || r->ndiags > 1000000) return false;
  r->kind = get_str(f, &ok);
  r->out = get_str(f, &ok);
  r->err = get_str(f, &ok);
  r->diags = r->ndiags ? xcalloc(r->ndiags, sizeof *r->diags) : NULL;
  for (size_t i = 0; ok && i < r->ndiags; i++) {
    check_diag_t *d = &r->diags[i];
    int level;
    if (fscanf(f, "%d %d %d", &level, &d->line, &d->col) != 3 || fgetc(f) != '\n') return false;
    d->level = (diag_level_t)level;
    d->file = get_str(f, &ok);
    d->message = get_str(f, &ok);
  }
  return ok;
}

/* Runs files[lo..] in up to jobs child processes; each child writes its
 * result to a temporary file the parent reads once the child has exited.
 * At a signal no file is started any more and the running ones are told to
 * stop (CLI_SIGNAL_FORWARD): each reports what it found, marked partial.
 * The parent forks with one thread (the signal thread ended, no analysis
 * run in it): a child of a process with other threads can inherit a lock
 * one of them held (it hung in Z3 on the ASan allocator's lock). */
static int run_parallel(const char *const *paths, int n, int jobs, double time_limit, check_result_t *results,
                        FILE *err) {
  FILE **tmp = xcalloc((size_t)n, sizeof *tmp);
  pid_t *pids = xcalloc((size_t)n, sizeof *pids);
  int next = 0, running = 0, failed = 0;
  bool forwarded = false;
  sigset_t forward, old_mask;
  sigemptyset(&forward);
  sigaddset(&forward, CLI_SIGNAL_FORWARD);
  pthread_sigmask(SIG_BLOCK, &forward, &old_mask); /* children inherit it until their handler is in place */
  cli_signals_quiesce(); /* fork with one thread */
  fflush(NULL);
  while (next < n || running > 0) {
    while (next < n && running < jobs && !signalled()) {
      tmp[next] = tmpfile();
      if (!tmp[next]) {
        fprintf(err, "ismv: error: cannot create a temporary file: %s\n", strerror(errno));
        failed = 1;
        n = next; /* start nothing more */
        break;
      }
      pid_t pid = fork();
      if (pid < 0) {
        fprintf(err, "ismv: error: cannot start a process: %s\n", strerror(errno));
        fclose(tmp[next]);
        tmp[next] = NULL;
        failed = 1;
        n = next;
        break;
      }
      if (pid == 0) {
        cli_handle_signals_in_child();
        check_result_t r = {.path = paths[next]};
        run_file(paths[next], time_limit, &r);
        write_result(tmp[next], &r);
        _exit(fflush(tmp[next]) == 0 ? 0 : 1);
      }
      pids[next++] = pid;
      running++;
    }
    if (running == 0) break;
    if (signalled() && !forwarded) {
      for (int i = 0; i < next; i++)
        if (pids[i] > 0) kill(pids[i], CLI_SIGNAL_FORWARD);
      forwarded = true;
    }
    /* polled, not a blocking wait: the signal may reach another thread */
    int status;
    pid_t done = waitpid(-1, &status, WNOHANG);
    if (done == 0) {
      nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
      continue;
    }
    if (done < 0) {
      if (errno == EINTR) continue;
      break;
    }
    running--;
    for (int i = 0; i < next; i++) {
      if (pids[i] != done) continue;
      results[i].path = paths[i];
      rewind(tmp[i]);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !read_result(tmp[i], &results[i])) {
        results[i].rc = CLI_EXIT_INTERNAL;
        char msg[96];
        if (WIFSIGNALED(status))
          snprintf(msg, sizeof msg, "the analysis was killed by signal %d", WTERMSIG(status));
        else
          snprintf(msg, sizeof msg, "the analysis process failed");
        free(results[i].err);
        results[i].err = NULL;
        results[i].ndiags = 1;
        results[i].diags = xcalloc(1, sizeof *results[i].diags);
        results[i].diags[0] = (check_diag_t){DIAG_ERROR, xstrdup(paths[i]), 0, 0, xstrdup(msg)};
        strbuf_t sb;
        strbuf_init(&sb);
        strbuf_printf(&sb, "%s: error: %s\n", paths[i], msg);
        results[i].err = strbuf_take(&sb);
      }
      fclose(tmp[i]);
      tmp[i] = NULL;
      pids[i] = 0;
    }
  }
  for (int i = next; i < n && signalled(); i++) not_checked(paths[i], &results[i]);
  for (int i = 0; i < n; i++)
    if (tmp[i]) fclose(tmp[i]);
  free(tmp);
  free(pids);
  pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
  return failed;
}

/* ---- reports ---- */

typedef struct {
  int passed, failed, errors;
  int inconclusive; /* of the failed: undecided (a limit, the solver), not refuted */
} check_counts_t;

static check_counts_t count(const check_result_t *results, int n) {
  check_counts_t c = {0, 0, 0, 0};
  for (int i = 0; i < n; i++) {
    int rc = results[i].rc;
    if (rc == CLI_EXIT_OK)
      c.passed++;
    else if (rc == CLI_EXIT_VIOLATION || rc == CLI_EXIT_INCONCLUSIVE)
      c.failed++, c.inconclusive += rc == CLI_EXIT_INCONCLUSIVE;
    else
      c.errors++;
  }
  return c;
}

static void render_text(strbuf_t *sb, FILE *err, const check_result_t *results, int n, bool quiet,
                        bool verbose) {
  for (int i = 0; i < n; i++) {
    const check_result_t *r = &results[i];
    bool ok = r->rc == CLI_EXIT_OK;
    if (verbose && r->out) strbuf_puts(sb, r->out);
    if (r->err && (!ok || !quiet)) fputs(r->err, err);
    if (!ok || !quiet) strbuf_printf(sb, "%s: %s\n", r->path, result_word(r->rc));
  }
  check_counts_t c = count(results, n);
  /* an undecided file is not a pass, nor a refutation: said apart within the failed */
  strbuf_printf(sb, "%d passed, %d failed", c.passed, c.failed);
  if (c.inconclusive) strbuf_printf(sb, " (%d inconclusive)", c.inconclusive);
  strbuf_printf(sb, ", %d errors\n", c.errors);
}

static const char *level_word(diag_level_t level) {
  return level == DIAG_ERROR ? "error" : level == DIAG_WARNING ? "warning" : "note";
}

static void render_json(strbuf_t *sb, const char *const *paths, const check_result_t *results, int n, int rc,
                        bool verbose) {
  check_counts_t c = count(results, n);
  char *why = c.inconclusive ? xasprintf("%d of %d files inconclusive", c.inconclusive, n) : NULL;
  json_envelope_t e = {.command = "check",
                       .inputs = paths,
                       .ninputs = n,
                       .verdict = json_envelope_verdict(rc),
                       .exit_code = rc,
                       .partial = why};
  strbuf_puts(sb, "{\n");
  json_envelope_head(sb, &e);
  json_envelope_tail(sb, &e);
  free(why);
  strbuf_printf(
      sb, "  \"passed\": %d,\n  \"failed\": %d,\n  \"inconclusive\": %d,\n  \"errors\": %d,\n  \"files\": [",
      c.passed, c.failed, c.inconclusive, c.errors);
  for (int i = 0; i < n; i++) {
    const check_result_t *r = &results[i];
    strbuf_puts(sb, i ? ",\n    {\"file\": " : "\n    {\"file\": ");
    strbuf_json_string(sb, r->path);
    strbuf_puts(sb, ", \"kind\": ");
    if (r->kind)
      strbuf_json_string(sb, r->kind);
    else
      strbuf_puts(sb, "null");
    strbuf_printf(sb, ", \"result\": \"%s\", \"exit_code\": %d, \"diagnostics\": [", result_word(r->rc),
                  r->rc);
    for (size_t k = 0; k < r->ndiags; k++) {
      const check_diag_t *d = &r->diags[k];
      strbuf_printf(sb, "%s{\"level\": \"%s\", \"file\": ", k ? ", " : "", level_word(d->level));
      if (d->file)
        strbuf_json_string(sb, d->file);
      else
        strbuf_puts(sb, "null");
      strbuf_printf(sb, ", \"line\": %d, \"column\": %d, \"message\": ", d->line, d->col);
      strbuf_json_string(sb, d->message);
      strbuf_putc(sb, '}');
    }
    strbuf_putc(sb, ']');
    if (verbose) {
      strbuf_puts(sb, ", \"report\": ");
      strbuf_json_string(sb, r->out ? r->out : "");
    }
    strbuf_putc(sb, '}');
  }
  strbuf_puts(sb, n ? "\n  ]\n}\n" : "]\n}\n");
}

static void render_junit(strbuf_t *sb, const check_result_t *results, int n, bool verbose) {
  int failures = 0, errors = 0;
  for (int i = 0; i < n; i++) {
    if (results[i].rc == CLI_EXIT_VIOLATION || results[i].rc == CLI_EXIT_INCONCLUSIVE)
      failures++;
    else if (results[i].rc != CLI_EXIT_OK)
      errors++;
  }
  strbuf_printf(sb,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
                "  <testsuite name=\"ismv check\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n",
                n, failures, errors);
  for (int i = 0; i < n; i++) {
    const check_result_t *r = &results[i];
    strbuf_puts(sb, "    <testcase name=\"");
    strbuf_xml_attr(sb, r->path);
    strbuf_puts(sb, "\" classname=\"");
    strbuf_xml_attr(sb, r->kind ? r->kind : "unknown");
    strbuf_puts(sb, "\"");
    if (r->rc == CLI_EXIT_OK && !verbose) {
      strbuf_puts(sb, "/>\n");
      continue;
    }
    strbuf_puts(sb, ">\n");
    if (r->rc != CLI_EXIT_OK) {
      const char *tag = r->rc == CLI_EXIT_VIOLATION || r->rc == CLI_EXIT_INCONCLUSIVE ? "failure" : "error";
      strbuf_printf(sb, "      <%s type=\"%s\" message=\"", tag, result_word(r->rc));
      const check_diag_t *first = NULL;
      for (size_t k = 0; k < r->ndiags && !first; k++)
        if (r->diags[k].level == DIAG_ERROR) first = &r->diags[k];
      strbuf_xml_attr(sb, first ? first->message : result_word(r->rc));
      strbuf_puts(sb, "\">");
      strbuf_xml_text(sb, r->err ? r->err : "");
      strbuf_printf(sb, "</%s>\n", tag);
    }
    if (verbose && r->out) {
      strbuf_puts(sb, "      <system-out>");
      strbuf_xml_text(sb, r->out);
      strbuf_puts(sb, "</system-out>\n");
    }
    strbuf_puts(sb, "    </testcase>\n");
  }
  strbuf_puts(sb, "  </testsuite>\n</testsuites>\n");
}

enum { RULE_EXPECT, RULE_INPUT, RULE_INCONCLUSIVE };
static const sarif_rule_t check_rules[] = {
    {"ISMV-CHECK-EXPECT", "ExpectationFailed", "An expect: entry of the model does not hold.",
     "The analysis ran to completion and one of the results the model's expect: block states (a verdict, a "
     "count, "
     "a value) differs from what the analysis found.",
     "Run the analysis the file's kind: names on the file to see the full report, then fix the model or "
     "update "
     "the expect: block."},
    {"ISMV-CHECK-INPUT", "InvalidInput", "The file is not a valid model or configuration.",
     "The file could not be loaded: a YAML, type or reference error, a missing file it names, or an unknown "
     "kind:.",
     "Fix the error at the reported location; every error of the file is listed."},
    {"ISMV-CHECK-INCONCLUSIVE", "Inconclusive", "The analysis could not decide within its limits.",
     "The analysis stopped at a budget, a timeout or a solver answer of unknown before it could decide; "
     "nothing "
     "was proved or refuted.",
     "Raise the file's budget or timeout, or lower its bound, and run again."},
};

static void sarif_result(strbuf_t *sb, bool *first, int rule, const char *level, const char *message,
                         const char *file, int line, int col) {
  sarif_result_begin(sb, first, check_rules, rule, level, message);
  strbuf_puts(sb, ", \"locations\": [");
  sarif_location(sb, file, line, col);
  strbuf_puts(sb, "], \"partialFingerprints\": {\"ismvCheck/v1\": ");
  char *key = xasprintf("%s:%s:%s", check_rules[rule].id, file, message);
  char fp[SARIF_FINGERPRINT_SIZE];
  strbuf_printf(sb, "\"%s\"}}", sarif_fingerprint(key, fp));
  free(key);
}

static void render_sarif(strbuf_t *sb, const check_result_t *results, int n) {
  sarif_begin(sb, check_rules, sizeof check_rules / sizeof *check_rules);
  bool first = true, complete = true;
  for (int i = 0; i < n; i++) {
    const check_result_t *r = &results[i];
    if (r->rc == CLI_EXIT_OK) continue;
    if (r->rc == CLI_EXIT_INCONCLUSIVE) {
      complete = false;
      sarif_result(sb, &first, RULE_INCONCLUSIVE, "warning", "the analysis was inconclusive", r->path, 0, 0);
    }
    for (size_t k = 0; k < r->ndiags; k++) {
      const check_diag_t *d = &r->diags[k];
      if (d->level != DIAG_ERROR) continue;
      int rule = strncmp(d->message, "expectation failed", 18) == 0 ? RULE_EXPECT : RULE_INPUT;
      sarif_result(sb, &first, rule, "error", d->message, d->file ? d->file : r->path, d->line, d->col);
    }
    if (r->rc != CLI_EXIT_VIOLATION && r->rc != CLI_EXIT_INCONCLUSIVE) complete = false;
  }
  char **notes = xcalloc((size_t)n + 1, sizeof *notes);
  size_t nnotes = 0;
  for (int i = 0; i < n; i++)
    if (results[i].rc != CLI_EXIT_OK && results[i].rc != CLI_EXIT_VIOLATION)
      notes[nnotes++] = xasprintf("%s: %s", results[i].path, result_word(results[i].rc));
  sarif_end(sb, complete, (const char *const *)notes, nnotes);
  for (size_t i = 0; i < nnotes; i++) free(notes[i]);
  free(notes);
}

/* ---- the command ---- */

static const cli_option_t options[] = {
    {"format", 'f', OPT_CHOICE, NULL, "text|json|junit|sarif", "text", 1, 0,
     "report format: text (a line per file and a closing count), json, junit (a testcase per file) or sarif "
     "(a result per failing expectation or invalid file)"},
    {"quiet", 'q', OPT_FLAG, NULL, NULL, NULL, 1, 0,
     "text: show only the files that do not pass, and the count"},
    {"verbose", 'v', OPT_FLAG, NULL, NULL, NULL, 1, 0,
     "include each analysis's full report (text: on stdout; json: \"report\"; junit: <system-out>)"},
    {"jobs", 'j', OPT_INT, "N", NULL, "1", 1, 256, "files checked at once, each in a process of its own"},
    {"output", 'o', OPT_STRING, "FILE", NULL, NULL, 1, 0, "write the report to FILE instead of stdout"},
};

static void free_result(check_result_t *r) {
  free(r->kind);
  free(r->out);
  free(r->err);
  for (size_t i = 0; i < r->ndiags; i++) {
    free(r->diags[i].file);
    free(r->diags[i].message);
  }
  free(r->diags);
}

static int run_check(cli_ctx_t *ctx, const cli_command_t *self, const char *const *paths, int n,
                     const cli_value_t *values) {
  const char *format = cli_opt(self, values, "format")->set ? cli_opt(self, values, "format")->s : "text";
  bool quiet = cli_opt(self, values, "quiet")->set, verbose = cli_opt(self, values, "verbose")->set;
  int jobs = cli_opt(self, values, "jobs")->set ? (int)cli_opt(self, values, "jobs")->i : 1;
  check_result_t *results = xcalloc((size_t)n, sizeof *results);
  int rc = CLI_EXIT_OK;
  if (jobs > 1 && n > 1) {
    if (run_parallel(paths, n, jobs, ctx->time_limit, results, ctx->err)) rc = CLI_EXIT_INTERNAL;
  } else {
    for (int i = 0; i < n; i++) {
      if (signalled()) {
        not_checked(paths[i], &results[i]);
        continue;
      }
      results[i].path = paths[i];
      run_file(paths[i], ctx->time_limit, &results[i]);
    }
  }
  for (int i = 0; i < n; i++) rc = cli_worst_exit(rc, results[i].path ? results[i].rc : CLI_EXIT_INTERNAL);
  /* interrupted: 5 whatever the finished files found (errors aside) */
  if (signalled()) rc = cli_exit_code(&(cli_outcome_t){.analysis = rc, .expect = -1, .interrupted = true});
  strbuf_t sb;
  strbuf_init(&sb);
  if (strcmp(format, "json") == 0)
    render_json(&sb, paths, results, n, rc, verbose);
  else if (strcmp(format, "junit") == 0)
    render_junit(&sb, results, n, verbose);
  else if (strcmp(format, "sarif") == 0)
    render_sarif(&sb, results, n);
  else
    render_text(&sb, ctx->err, results, n, quiet, verbose);
  if (strcmp(format, "text") != 0)
    for (int i = 0; i < n; i++)
      if (results[i].err && (results[i].rc != CLI_EXIT_OK || !quiet)) fputs(results[i].err, ctx->err);
  int wrc = cli_write_output(ctx, strbuf_str(&sb));
  strbuf_free(&sb);
  for (int i = 0; i < n; i++) free_result(&results[i]);
  free(results);
  return wrc ? cli_worst_exit(rc, wrc) : rc;
}

const cli_command_t cmd_check = {
    .name = "check",
    .kind = NULL,
    .summary = "run the analysis each file's kind: names, and check its expect: block",
    .usage = "FILE... [options]",
    .description =
        "Runs, for every FILE, the analysis its `kind:` names, with the options the file sets, and checks\n"
        "the file's `expect:` block. Text output is a line per file (ok, failed, inconclusive or error) and\n"
        "a closing line \"N passed, N failed, N errors\" (an inconclusive file counts as failed, and\n"
        "\"failed\" is followed by \"(K inconclusive)\" when there are any); the\n"
        "analyses' own reports are shown only with --verbose, diagnostics go to stderr. The exit code is\n"
        "the most severe of the files' exit codes. The report does not depend on --jobs. --timeout limits\n"
        "each file's analysis (not the whole run): a file stopped by it is inconclusive. SIGINT or SIGTERM\n"
        "stops the files being checked (each reports what it found, inconclusive) and starts no other (each\n"
        "inconclusive, \"not checked\"); the exit code is then 5.",
    .options = options,
    .noptions = sizeof options / sizeof *options,
    .run = NULL,
    .run_all = run_check,
};
