#include "apps/cli.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apps/commands.h"
#include "apps/json_envelope.h"
#include "apps/sarif.h"
#include "ism/alloc.h"
#include "ism/number.h"
#include "ism/stop.h"
#include "ism/strbuf.h"
#include "ism/ydoc.h"
#include "verifier/smt.h"

#ifndef ISMV_VERSION
#define ISMV_VERSION "0.1.0"
#endif

static const cli_command_t *const commands[] = {
    &cmd_verify,  &cmd_simulate, &cmd_robustness, &cmd_robustify, &cmd_envelope,
    &cmd_masking, &cmd_eventb,   &cmd_report,     &cmd_check,    &cmd_merge,
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

static const char exit_code_help[] =
    "exit codes:\n"
    "  0   verified, or every expectation holds\n"
    "  10  violation: a counterexample was found, or an expect: entry failed\n"
    "  5   inconclusive: budget exhausted or the solver answered unknown\n"
    "  1   usage error (bad command line)\n"
    "  2   invalid model or input file\n"
    "  6   internal error, or an output that cannot be written\n";

const cli_command_t *const *cli_commands(size_t *count) {
  *count = NCOMMANDS;
  return commands;
}

const char *cli_exit_codes_help(void) { return exit_code_help; }

const char *cli_version(void) { return ISMV_VERSION; }

enum { COMMON_MAX_MEMORY, COMMON_TIMEOUT, NCOMMON };
static const cli_option_t common_options[NCOMMON];

const cli_option_t *cli_common_options(size_t *count) {
  *count = NCOMMON;
  return common_options;
}

const cli_value_t *cli_opt(const cli_command_t *cmd, const cli_value_t *values, const char *name) {
  for (size_t i = 0; i < cmd->noptions; i++)
    if (strcmp(cmd->options[i].name, name) == 0) return &values[i];
  assert(!"unknown option name");
  return NULL;
}

int cli_worst_exit(int a, int b) {
  static const int order[] = {CLI_EXIT_OK,    CLI_EXIT_INCONCLUSIVE, CLI_EXIT_VIOLATION,
                              CLI_EXIT_USAGE, CLI_EXIT_INVALID,      CLI_EXIT_INTERNAL};
  int ra = 0, rb = 0;
  for (int i = 0; i < 6; i++) {
    if (order[i] == a) ra = i;
    if (order[i] == b) rb = i;
  }
  return ra >= rb ? a : b;
}

int cli_exit_code(const cli_outcome_t *o) {
  assert(o->kept <= o->found);
  int rc = o->analysis;
  if (rc == CLI_EXIT_USAGE || rc == CLI_EXIT_INTERNAL) return rc;
  /* the error a limit reports is no flaw of the input */
  if (o->limit_hit) return CLI_EXIT_INCONCLUSIVE;
  if (rc == CLI_EXIT_INVALID) return rc;
  if (o->interrupted) return CLI_EXIT_INCONCLUSIVE;
  /* Filters hide violations; they never make an unfinished search a proof. */
  if (rc == CLI_EXIT_VIOLATION && o->found > 0 && o->kept == 0) rc = CLI_EXIT_OK;
  if (rc == CLI_EXIT_OK && !o->complete) rc = CLI_EXIT_INCONCLUSIVE;
  if (o->expect < 0) return rc;
  if (o->expect != CLI_EXIT_OK) return cli_worst_exit(rc, o->expect);
  /* Expectations that hold account for the verdict only when they state it. */
  return o->expect_verdict ? CLI_EXIT_OK : rc;
}

/* ---- stopping: signals and the time limit ----
 * Both make the one stop request of ism/stop.h, which the analyses poll,
 * and interrupt the solvers (smt_stop_all) from a thread of their own. */

static volatile sig_atomic_t signalled;
static int wake_pipe[2] = {-1, -1};
static pthread_t stopper_thread;
static bool stopper_running;

static void on_signal(int sig) {
  if (signalled) _exit(CLI_EXIT_INCONCLUSIVE);
  signalled = sig;
  stop_request(STOP_SIGNAL);
  ssize_t n = write(wake_pipe[1], "!", 1);
  (void)n;
}

/* Interrupting Z3 is not async-signal-safe: the handler only wakes this
 * thread. A 'q' (cli_signals_quiesce) ends it without a stop. */
static void *stopper(void *arg) {
  (void)arg;
  char c = 0;
  ssize_t n;
  while ((n = read(wake_pipe[0], &c, 1)) < 0 && errno == EINTR) continue;
  if (n == 1 && c == '!') smt_stop_all();
  return NULL;
}

/* A stop forwarded by a parent process (CLI_SIGNAL_FORWARD): the same
 * request as a signal's, without counting as the first of two. */
static void on_forwarded(int sig) {
  (void)sig;
  stop_request(STOP_SIGNAL);
  ssize_t n = write(wake_pipe[1], "!", 1);
  (void)n;
}

/* A fresh wake-up pipe and the thread that reads it (joinable:
 * cli_signals_quiesce ends it). */
static bool start_stopper(void) {
  if (wake_pipe[0] >= 0) close(wake_pipe[0]), close(wake_pipe[1]);
  wake_pipe[0] = wake_pipe[1] = -1;
  if (pipe(wake_pipe) != 0) return false;
  stopper_running = pthread_create(&stopper_thread, NULL, stopper, NULL) == 0;
  return stopper_running;
}

static void catch_signal(int sig, void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

void cli_handle_signals(void) {
  cli_signals_quiesce();
  if (!start_stopper()) return;
  catch_signal(SIGINT, on_signal);
  catch_signal(SIGTERM, on_signal);
}

void cli_handle_signals_in_child(void) {
  /* fork kept the handlers but not the thread that interrupts Z3 */
  stopper_running = false;
  signalled = 0;
  if (!start_stopper()) return;
  catch_signal(SIGINT, on_signal);
  catch_signal(SIGTERM, on_signal);
  catch_signal(CLI_SIGNAL_FORWARD, on_forwarded);
  sigset_t forward;
  sigemptyset(&forward);
  sigaddset(&forward, CLI_SIGNAL_FORWARD);
  pthread_sigmask(SIG_UNBLOCK, &forward, NULL);
}

void cli_signals_quiesce(void) {
  if (!stopper_running) return;
  ssize_t n = write(wake_pipe[1], "q", 1);
  (void)n;
  pthread_join(stopper_thread, NULL);
  stopper_running = false;
}

/* Past the limit an analysis has this long to report before the process
 * ends anyway (exit 5): no phase can make a run outlive its limit by more. */
enum { LIMIT_GRACE_SECONDS = 30 };

static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake; /* on CLOCK_MONOTONIC */
  pthread_t thread;
  struct timespec at; /* the limit, then the end of the grace period */
  bool ready, running, cancelled;
} limit = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void add_seconds(struct timespec *t, double seconds) {
  double whole = (double)(long long)seconds;
  t->tv_sec += (time_t)whole;
  t->tv_nsec += (long)((seconds - whole) * 1e9);
  if (t->tv_nsec >= 1000000000L) t->tv_sec++, t->tv_nsec -= 1000000000L;
}

/* Sleeps until limit.at; false when cancelled first. Holds limit.lock. */
static bool sleep_until_limit(void) {
  int rc = 0;
  while (!limit.cancelled && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&limit.wake, &limit.lock, &limit.at);
  return !limit.cancelled;
}

static void *watch_limit(void *arg) {
  (void)arg;
  pthread_mutex_lock(&limit.lock);
  if (sleep_until_limit()) {
    stop_request(STOP_TIMEOUT);
    smt_stop_all();
    add_seconds(&limit.at, LIMIT_GRACE_SECONDS);
    if (sleep_until_limit()) {
      static const char msg[] =
          "ismv: error: the analysis did not stop within 30 s of its time limit; no report\n";
      ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
      (void)n;
      _exit(CLI_EXIT_INCONCLUSIVE);
    }
  }
  pthread_mutex_unlock(&limit.lock);
  return NULL;
}

void cli_time_limit_start(double seconds) {
  cli_time_limit_end();
  if (!(seconds > 0)) return;
  pthread_mutex_lock(&limit.lock);
  if (!limit.ready) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    limit.ready = pthread_cond_init(&limit.wake, &attr) == 0;
    pthread_condattr_destroy(&attr);
  }
  stop_set_deadline(seconds);
  clock_gettime(CLOCK_MONOTONIC, &limit.at);
  add_seconds(&limit.at, seconds);
  limit.cancelled = false;
  limit.running = limit.ready && pthread_create(&limit.thread, NULL, watch_limit, NULL) == 0;
  pthread_mutex_unlock(&limit.lock);
}

void cli_time_limit_end(void) {
  pthread_mutex_lock(&limit.lock);
  bool running = limit.running;
  limit.cancelled = true;
  limit.running = false;
  if (running) pthread_cond_signal(&limit.wake);
  pthread_mutex_unlock(&limit.lock);
  if (running) pthread_join(limit.thread, NULL);
  stop_set_deadline(0);
  if (stop_reason() == STOP_TIMEOUT) stop_clear();
}

/* ---- rendering ---- */

/* The source line under a diagnostic and a caret at its column, written
 * in one piece. Of a long line only the part around the column is shown. */
static void render_source(cli_ctx_t *ctx, const diag_list_t *d, const diag_t *g, const char *colour,
                          const char *reset) {
  enum { WHOLE = 240, BEFORE = 100, AFTER = 100 };
  const char *line;
  size_t len;
  if (!diag_source_span(d, g->loc.file, g->loc.line, &line, &len)) return;
  size_t col = g->loc.col > 0 ? (size_t)g->loc.col - 1 : 0;
  if (col > len) col = len;
  size_t from = len > WHOLE && col > BEFORE ? col - BEFORE : 0;
  size_t to = len > WHOLE && len - col > AFTER ? col + AFTER : len;
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_printf(&sb, "%5d | %s%.*s%s\n      | %s", g->loc.line, from ? "..." : "", (int)(to - from),
                line + from, to < len ? "..." : "", from ? "   " : "");
  for (size_t c = from; c < col; c++) strbuf_putc(&sb, line[c] == '\t' ? '\t' : ' ');
  strbuf_printf(&sb, "%s^%s\n", colour, reset);
  fputs(strbuf_str(&sb), ctx->err);
  strbuf_free(&sb);
}

void cli_render_diags(cli_ctx_t *ctx) {
  diag_list_t *d = &ctx->diags;
  const char *bold = ctx->color ? "\033[1m" : "", *reset = ctx->color ? "\033[0m" : "";
  for (size_t i = 0; i < d->count; i++) {
    const diag_t *g = &d->items[i];
    const char *level = g->level == DIAG_ERROR ? "error" : g->level == DIAG_WARNING ? "warning" : "note";
    const char *colour = !ctx->color                ? ""
                         : g->level == DIAG_ERROR   ? "\033[1;31m"
                         : g->level == DIAG_WARNING ? "\033[1;35m"
                                                    : "\033[1;36m";
    if (g->loc.file && g->loc.line > 0)
      fprintf(ctx->err, "%s%s:%d:%d:%s %s%s:%s %s\n", bold, g->loc.file, g->loc.line, g->loc.col, reset,
              colour, level, reset, g->message);
    else if (g->loc.file)
      fprintf(ctx->err, "%s%s:%s %s%s:%s %s\n", bold, g->loc.file, reset, colour, level, reset, g->message);
    else
      fprintf(ctx->err, "ismv: %s%s:%s %s\n", colour, level, reset, g->message);
    if (g->loc.line > 0) render_source(ctx, d, g, colour, reset);
  }
  if (d->dropped)
    fprintf(ctx->err, "ismv: note: %zu more error%s not shown\n", d->dropped, d->dropped == 1 ? "" : "s");
  for (size_t i = 0; i < d->count; i++) free(d->items[i].message);
  d->count = d->errors = d->dropped = 0;
}

/* Whether path names the same file as one the run has read. */
static bool is_input(const cli_ctx_t *ctx, const struct stat *out) {
  for (size_t i = 0; i < ctx->diags.nsources; i++) {
    struct stat in;
    if (stat(ctx->diags.sources[i].path, &in) == 0 && in.st_dev == out->st_dev && in.st_ino == out->st_ino)
      return true;
  }
  return false;
}

static bool write_all(int fd, const char *text, size_t len) {
  while (len) {
    ssize_t n = write(fd, text, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text += n;
    len -= (size_t)n;
  }
  return true;
}

/* A fresh file next to path (its name in *tmp, to free), mode 0666 less
 * the umask; -1 with errno set when it cannot be made. */
static int temp_next_to(const char *path, char **tmp) {
  const char *slash = strrchr(path, '/');
  *tmp = slash ? xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1)
               : xasprintf(".%s.XXXXXX", path);
  int fd = mkstemp(*tmp);
  if (fd < 0) return -1;
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) {
    int e = errno;
    close(fd), unlink(*tmp);
    errno = e;
    return -1;
  }
  return fd;
}

/* Writes text to a fresh file next to path, then renames it over path: a
 * reader sees the old file or the new one, never a part, and a symbolic
 * link at path is replaced, not followed. */
static bool replace_file(const char *path, const char *text, const char **why) {
  char *tmp;
  int fd = temp_next_to(path, &tmp);
  bool ok = fd >= 0;
  if (ok) {
    ok = write_all(fd, text, strlen(text));
    ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) *why = strerror(errno), unlink(tmp);
  } else {
    *why = strerror(errno);
  }
  free(tmp);
  return ok;
}

int cli_stream_open(cli_ctx_t *ctx, const char *path, cli_stream_t *s) {
  *s = (cli_stream_t){NULL, NULL, path};
  struct stat st;
  bool exists = stat(path, &st) == 0;
  if (exists && is_input(ctx, &st)) {
    fprintf(ctx->err, "ismv: error: will not write over the input file '%s'\n", path);
    return CLI_EXIT_USAGE;
  }
  int fd = exists && !S_ISREG(st.st_mode) ? open(path, O_WRONLY | O_CLOEXEC) : temp_next_to(path, &s->tmp);
  if (fd >= 0 && !(s->f = fdopen(fd, "w"))) close(fd);
  if (s->f) return CLI_EXIT_OK;
  fprintf(ctx->err, "ismv: error: cannot write '%s': %s\n", path, strerror(errno));
  if (s->tmp) unlink(s->tmp);
  free(s->tmp);
  s->tmp = NULL;
  return CLI_EXIT_INTERNAL;
}

int cli_stream_close(cli_ctx_t *ctx, cli_stream_t *s) {
  errno = 0;
  bool ok = !ferror(s->f);
  ok = fclose(s->f) == 0 && ok; /* closed once, whatever happened */
  ok = ok && (!s->tmp || rename(s->tmp, s->path) == 0);
  if (!ok) {
    fprintf(ctx->err, "ismv: error: cannot write '%s': %s\n", s->path, errno ? strerror(errno) : "write error");
    if (s->tmp) unlink(s->tmp);
  }
  free(s->tmp);
  *s = (cli_stream_t){0};
  return ok ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

int cli_write_file(cli_ctx_t *ctx, const char *path, const char *text) {
  struct stat st;
  const char *why = NULL;
  bool exists = stat(path, &st) == 0;
  if (exists && is_input(ctx, &st)) {
    fprintf(ctx->err, "ismv: error: will not write over the input file '%s'\n", path);
    return CLI_EXIT_USAGE;
  }
  bool ok;
  if (exists && !S_ISREG(st.st_mode)) { /* /dev/null, a terminal, a pipe: write in place */
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ok = fd >= 0 && write_all(fd, text, strlen(text));
    if (!ok) why = strerror(errno);
    if (fd >= 0 && close(fd) != 0 && ok) ok = false, why = strerror(errno);
  } else {
    ok = replace_file(path, text, &why);
  }
  if (ok) return CLI_EXIT_OK;
  fprintf(ctx->err, "ismv: error: cannot write '%s': %s\n", path, why ? why : "write error");
  return CLI_EXIT_INTERNAL;
}

int cli_write_output(cli_ctx_t *ctx, const char *text) {
  if (ctx->output_path) return cli_write_file(ctx, ctx->output_path, text);
  errno = 0;
  if (fputs(text, ctx->out) >= 0 && fflush(ctx->out) == 0) return CLI_EXIT_OK;
  fprintf(ctx->err, "ismv: error: cannot write the report: %s\n", errno ? strerror(errno) : "write error");
  return CLI_EXIT_INTERNAL;
}

int cli_write_stopped(cli_ctx_t *ctx, const char *format, const char *what) {
  char *why = xasprintf("%s; %s", stop_message() ? stop_message() : "stopped", what ? what : "no result");
  strbuf_t sb;
  strbuf_init(&sb);
  if (format && strcmp(format, "json") == 0) {
    json_envelope_t e = {.command = ctx->command,
                         .input = ctx->input,
                         .verdict = json_envelope_verdict(CLI_EXIT_INCONCLUSIVE),
                         .exit_code = CLI_EXIT_INCONCLUSIVE,
                         .partial = why};
    json_envelope_alone(&sb, &e);
  } else if (format && strcmp(format, "sarif") == 0) {
    char *note = xasprintf("inconclusive: %s", why);
    sarif_begin(&sb, NULL, 0);
    sarif_end(&sb, false, (const char *const[]){note}, 1);
    free(note);
  } else if (!format || strcmp(format, "text") == 0) {
    strbuf_printf(&sb, "partial: %s\n", why);
  }
  free(why);
  int rc = sb.len ? cli_write_output(ctx, strbuf_str(&sb)) : CLI_EXIT_OK;
  strbuf_free(&sb);
  return rc ? rc : CLI_EXIT_INCONCLUSIVE;
}

/* The options of every command. */
static const cli_option_t common_options[NCOMMON] = {
    {"max-memory", 0, OPT_INT, "MB", NULL, "half the physical memory", 16, 1e9,
     "give up (inconclusive, exit 5) when the memory in use would pass MB mebibytes"},
    {"timeout", 0, OPT_REAL, "SECONDS", NULL, "none", 0, 1e9,
     "stop after SECONDS of wall-clock time, every phase included, and report what was found so far, "
     "marked partial (exit 5; 0: no limit; older name: --budget)"},
};

static long long default_max_memory_mb(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  long long mb = pages > 0 && size > 0 ? (long long)pages / 2 * size >> 20 : 4096;
  return mb < 256 ? 256 : mb;
}

/* ---- help ---- */

static void print_main_help(FILE *f) {
  fprintf(f, "usage: ismv COMMAND [OPTIONS] FILE\n\n"
             "ismv verifies software that lives in an uncertain environment.\n\ncommands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++) fprintf(f, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
  fprintf(f,
          "\n  ismv COMMAND --help   options of one command\n"
          "  ismv --version        print the version\n\n%s"
          "\nEvery input file is YAML and starts with `kind:` (ism, robustness, envelope, masking, eventb).\n"
          "Documentation: docs/ in the source tree.\n",
          exit_code_help);
}

/* Columns of an option's line in --help, as GNU tools lay them out: the
 * option from column 3, its description from HELP_COLUMN (1-based) wrapped at
 * HELP_WIDTH columns; an option too long for its column stands on a line of
 * its own, the description below it. */
enum { HELP_COLUMN = 36, HELP_WIDTH = 79 };

/* Display width of s[0..n): UTF-8 continuation bytes take no column. */
static size_t columns(const char *s, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
  return w;
}

/* Writes `left`, then `text` word-wrapped from HELP_COLUMN; a word wider
 * than the column's room stays whole on a line of its own. */
static void print_option_line(FILE *f, const char *left, const char *text) {
  size_t indent = HELP_COLUMN - 1, room = HELP_WIDTH - indent;
  if (columns(left, strlen(left)) + 1 > indent)
    fprintf(f, "%s\n%*s", left, (int)indent, "");
  else
    fprintf(f, "%-*s", (int)indent, left);
  size_t used = 0;
  for (const char *p = text; *p;) {
    while (*p == ' ') p++;
    size_t len = strcspn(p, " ");
    if (!len) break;
    size_t w = columns(p, len);
    if (used > 0 && used + 1 + w > room) {
      fprintf(f, "\n%*s", (int)indent, "");
      used = 0;
    }
    fprintf(f, "%s%.*s", used ? " " : "", (int)len, p);
    used += (used ? 1 : 0) + w;
    p += len;
  }
  fputc('\n', f);
}

static void print_command_help(FILE *f, const cli_command_t *cmd) {
  fprintf(f, "usage: ismv %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->description);
  if (cmd->noptions) fprintf(f, "\noptions:\n");
  for (size_t i = 0; i < cmd->noptions; i++) {
    const cli_option_t *o = &cmd->options[i];
    char left[160];
    int n = snprintf(left, sizeof left, "  %s%c%s--%s", o->short_name ? "-" : "",
                     o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name);
    if (!o->short_name) n = snprintf(left, sizeof left, "      --%s", o->name);
    if (o->type != OPT_FLAG && n > 0 && (size_t)n < sizeof left)
      snprintf(left + n, sizeof left - (size_t)n, " %s", o->type == OPT_CHOICE ? o->choices : o->metavar);
    char *text = o->def ? xasprintf("%s (default: %s)", o->help, o->def) : xstrdup(o->help);
    print_option_line(f, left, text);
    free(text);
  }
  for (size_t i = 0; i < NCOMMON; i++) {
    const cli_option_t *o = &common_options[i];
    char left[160];
    snprintf(left, sizeof left, "      --%s %s", o->name, o->metavar);
    char *text = xasprintf("%s (default: %s)", o->help, o->def);
    print_option_line(f, left, text);
    free(text);
  }
  print_option_line(f, "  -h, --help", "show this help");
  fprintf(f, "\n%s", exit_code_help);
}

/* ---- option parsing ---- */

static int usage_error(FILE *err, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int usage_error(FILE *err, const char *cmd, const char *fmt, ...) {
  fprintf(err, "ismv: error: ");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(err, fmt, ap);
  va_end(ap);
  fprintf(err, "\n(see 'ismv %s --help')\n", cmd ? cmd : "");
  return CLI_EXIT_USAGE;
}

/* Parses and range-checks the value of option o (without printing); on a
 * bad value writes the reason, to follow the option's name, into why. */
static bool check_value(const cli_option_t *o, const char *text, cli_value_t *v, char *why, size_t size) {
  v->set = true;
  v->s = text;
  errno = 0;
  switch (o->type) {
  case OPT_FLAG: v->i = 1; return true;
  case OPT_INT:
    v->i = number_syntax(text, true) ? strtoll(text, NULL, 10) : 0;
    v->r = (double)v->i;
    if (!number_syntax(text, true) || errno) {
      snprintf(why, size, "needs an integer%s, not '%s'", errno ? " in range" : "", text);
      return false;
    }
    break;
  case OPT_REAL:
    v->r = number_syntax(text, false) ? strtod(text, NULL) : 0;
    if (!number_syntax(text, false) || !isfinite(v->r)) {
      snprintf(why, size, "needs a decimal number, not '%s'", text);
      return false;
    }
    break;
  case OPT_STRING: return true;
  case OPT_CHOICE: {
    size_t len = strlen(text);
    for (const char *c = o->choices; *c;) {
      size_t n = strcspn(c, "|");
      if (n == len && strncmp(c, text, n) == 0) return true;
      c += n + (c[n] == '|');
    }
    snprintf(why, size, "must be one of %s, not '%s'", o->choices, text);
    return false;
  }
  }
  if (o->min <= o->max && (v->r < o->min || v->r > o->max)) {
    snprintf(why, size, "must be between %g and %g, not %s", o->min, o->max, text);
    return false;
  }
  return true;
}

/* `name` is the option as written (an older name, or the short one). */
static int parse_value(FILE *err, const cli_command_t *cmd, const cli_option_t *o, const char *name,
                       size_t len, const char *text, cli_value_t *v) {
  char why[256];
  if (check_value(o, text, v, why, sizeof why)) return 0;
  if (name[1] != '-') return usage_error(err, cmd->name, "option '--%s' %s", o->name, why);
  return usage_error(err, cmd->name, "option '%.*s' %s", (int)len, name, why);
}

bool cli_file_option(const cli_option_t *o, const ynode_t *n, cli_value_t *v, diag_list_t *diags) {
  char why[256];
  if (n->kind != YNODE_SCALAR) {
    diag_error(diags, n->loc, "'%s' must be a single value", o->name);
    return false;
  }
  if (o->type == OPT_FLAG) {
    bool b = false;
    bool ok = ydoc_bool(n, &b, o->name, diags);
    *v = (cli_value_t){.set = b, .i = b, .s = n->text};
    return ok;
  }
  if (check_value(o, n->text, v, why, sizeof why)) return true;
  diag_error(diags, n->loc, "'%s' %s", o->name, why);
  return false;
}

cli_value_t *cli_merge_file_options(const cli_command_t *cmd, const cli_value_t *values, const ynode_t *map,
                                    diag_list_t *diags) {
  cli_value_t *merged = xcalloc(cmd->noptions + 1, sizeof *merged);
  memcpy(merged, values, cmd->noptions * sizeof *merged);
  bool ok = true;
  for (size_t k = 0; map && map->kind == YNODE_MAP && k < map->len; k++) {
    size_t i = 0;
    while (i < cmd->noptions && strcmp(cmd->options[i].name, map->keys[k]->text) != 0) i++;
    if (i == cmd->noptions || values[i].set) continue;
    ok &= cli_file_option(&cmd->options[i], map->items[k], &merged[i], diags);
  }
  if (ok) return merged;
  free(merged);
  return NULL;
}

bool cli_file_time_limit(cli_ctx_t *ctx, const ynode_t *map) {
  const ynode_t *n = NULL;
  const char *key = NULL;
  for (size_t k = 0; map && map->kind == YNODE_MAP && k < map->len; k++)
    if (strcmp(map->keys[k]->text, "timeout") == 0 || (!n && strcmp(map->keys[k]->text, "budget") == 0))
      n = map->items[k], key = map->keys[k]->text;
  if (!n || ctx->time_limit > 0) return true;
  const cli_option_t *o = &common_options[COMMON_TIMEOUT];
  cli_value_t v;
  char why[256];
  if (n->kind != YNODE_SCALAR || !check_value(o, n->text, &v, why, sizeof why)) {
    if (n->kind != YNODE_SCALAR) snprintf(why, sizeof why, "must be a single value");
    diag_error(&ctx->diags, n->loc, "'%s' %s", key, why);
    return false;
  }
  ctx->time_limit = v.r;
  cli_time_limit_start(v.r);
  return true;
}

static const cli_option_t *find_option(const cli_command_t *cmd, const char *arg, size_t len) {
  for (size_t i = 0; i < cmd->noptions; i++) {
    const cli_option_t *o = &cmd->options[i];
    if (arg[1] != '-' && len == 2 && o->short_name == arg[1]) return o;
    if (arg[1] == '-' && strlen(o->name) == len - 2 && strncmp(o->name, arg + 2, len - 2) == 0) return o;
  }
  return NULL;
}

static int unknown_option(FILE *err, const cli_command_t *cmd, const char *arg, size_t len) {
  const char *names[64];
  size_t n = 0;
  for (size_t i = 0; i < cmd->noptions && n < 64; i++) names[n++] = cmd->options[i].name;
  char *word = xstrndup(arg + 2, len > 2 ? len - 2 : 0);
  const char *best = arg[1] == '-' ? diag_suggest(word, names, n) : NULL;
  if (best)
    fprintf(err, "ismv: error: unknown option '%.*s' (did you mean '--%s'?)\n", (int)len, arg, best);
  else
    fprintf(err, "ismv: error: unknown option '%.*s'\n", (int)len, arg);
  fprintf(err, "(see 'ismv %s --help')\n", cmd->name);
  free(word);
  return CLI_EXIT_USAGE;
}

/* A common option by its name or an older one (--budget: --timeout). */
static const cli_option_t *find_common(const char *arg, size_t len) {
  if (arg[1] != '-') return NULL;
  for (size_t i = 0; i < NCOMMON; i++)
    if (strlen(common_options[i].name) == len - 2 && strncmp(common_options[i].name, arg + 2, len - 2) == 0)
      return &common_options[i];
  if (len == strlen("--budget") && strncmp(arg, "--budget", len) == 0) return &common_options[COMMON_TIMEOUT];
  return NULL;
}

/* Parses argv into values and positional file names. */
static int parse_args(FILE *out, FILE *err, const cli_command_t *cmd, int argc, char **argv,
                      cli_value_t *values, cli_value_t *common, const char **files, int *nfiles, bool *help) {
  bool options_done = false;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    if (options_done || arg[0] != '-' || arg[1] == '\0') {
      files[(*nfiles)++] = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_done = true;
      continue;
    }
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      print_command_help(out, cmd);
      *help = true;
      return 0;
    }
    const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const cli_option_t *o = find_option(cmd, arg, len);
    const cli_option_t *shared = o ? NULL : find_common(arg, len);
    if (shared) o = shared;
    if (!o) return unknown_option(err, cmd, arg, len);
    cli_value_t *v = shared ? &common[shared - common_options] : &values[o - cmd->options];
    const char *text = "1";
    if (o->type != OPT_FLAG) {
      if (eq)
        text = eq + 1;
      else if (i + 1 < argc)
        text = argv[++i];
      else
        return usage_error(err, cmd->name, "option '--%s' needs a value", o->name);
    } else if (eq) {
      return usage_error(err, cmd->name, "option '--%s' takes no value", o->name);
    }
    int rc = parse_value(err, cmd, o, arg, len, text, v);
    if (rc) return rc;
  }
  return 0;
}

static void init_ctx(cli_ctx_t *ctx, FILE *out, FILE *err) {
  memset(ctx, 0, sizeof *ctx);
  ctx->out = out;
  ctx->err = err;
  ctx->err_is_tty = err == stderr && isatty(STDERR_FILENO);
  ctx->color = ctx->err_is_tty && !getenv("NO_COLOR");
  diag_init(&ctx->diags);
}

static int run_command(const cli_command_t *cmd, int argc, char **argv, FILE *out, FILE *err) {
  cli_value_t *values = xcalloc(cmd->noptions + 1, sizeof *values);
  const char **files = xcalloc((size_t)argc + 1, sizeof *files);
  int nfiles = 0;
  bool help = false;
  cli_value_t common[NCOMMON] = {{0}};
  int rc = parse_args(out, err, cmd, argc, argv, values, common, files, &nfiles, &help);
  if (!rc && !help) {
    long long mb = common[COMMON_MAX_MEMORY].set ? common[COMMON_MAX_MEMORY].i : default_max_memory_mb();
    alloc_set_limit((size_t)mb << 20);
    smt_set_memory_limit((size_t)mb);
    if (nfiles == 0) {
      rc = usage_error(err, cmd->name, "missing input file");
    } else if (nfiles > 1 && !cmd->run_all) {
      rc = usage_error(err, cmd->name, "expected one input file, got '%s' and more", files[1]);
    } else {
      cli_ctx_t ctx;
      init_ctx(&ctx, out, err);
      ctx.time_limit = common[COMMON_TIMEOUT].set ? common[COMMON_TIMEOUT].r : 0;
      for (size_t i = 0; i < cmd->noptions; i++)
        if (strcmp(cmd->options[i].name, "output") == 0 && values[i].set) ctx.output_path = values[i].s;
      rc = CLI_EXIT_OK;
      if (cmd->run_all) {
        rc = cmd->run_all(&ctx, cmd, files, nfiles, values);
        cli_render_diags(&ctx);
      }
      for (int f = 0; !cmd->run_all && f < nfiles; f++) {
        cli_time_limit_start(ctx.time_limit);
        ctx.command = cmd->name;
        ctx.input = files[f];
        int r = cmd->run(&ctx, cmd, files[f], values);
        cli_time_limit_end();
        /* An error reported is never a success: a loader that goes on after
         * an error (a duplicate YAML key) must not lead to exit 0. (A failed
         * expect: is reported as an error with exit 10, and stays 10.) */
        if (r == CLI_EXIT_OK && diag_has_errors(&ctx.diags)) r = CLI_EXIT_INVALID;
        cli_render_diags(&ctx);
        rc = cli_worst_exit(rc, r);
      }
      diag_free(&ctx.diags);
    }
  }
  free(values);
  free(files);
  return rc;
}

static int dispatch(int argc, char **argv, FILE *out, FILE *err) {
  if (argc < 2) {
    print_main_help(err);
    return CLI_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
    print_main_help(out);
    return CLI_EXIT_OK;
  }
  if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
    fprintf(out, "ismv %s\n", ISMV_VERSION);
    return CLI_EXIT_OK;
  }
  const char *names[NCOMMANDS];
  for (size_t i = 0; i < NCOMMANDS; i++) {
    names[i] = commands[i]->name;
    if (strcmp(name, commands[i]->name) == 0) return run_command(commands[i], argc - 2, argv + 2, out, err);
  }
  const char *best = diag_suggest(name, names, NCOMMANDS);
  if (best)
    fprintf(err, "ismv: error: unknown command '%s' (did you mean '%s'?)\n", name, best);
  else
    fprintf(err, "ismv: error: unknown command '%s'\n", name);
  fprintf(err, "(see 'ismv --help')\n");
  return CLI_EXIT_USAGE;
}

/* Whatever wrote to `out` (help, --version, a report printed in pieces),
 * a write error there is exit 6 with a message, reported once. */
int cli_main(int argc, char **argv, FILE *out, FILE *err) {
  int rc = dispatch(argc, argv, out, err);
  errno = 0;
  if ((fflush(out) != 0 || ferror(out)) && rc != CLI_EXIT_INTERNAL) {
    fprintf(err, "ismv: error: cannot write the output: %s\n", errno ? strerror(errno) : "write error");
    rc = CLI_EXIT_INTERNAL;
  }
  return rc;
}
