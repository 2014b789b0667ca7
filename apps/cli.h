/* The ismv command-line program as a library: cli_main parses the
 * arguments, runs one command and returns the exit code, so tests can run
 * the whole CLI in-process. Each command lives in apps/cmd_NAME.c and is
 * described by a cli_command_t; its option table also generates --help. */
#ifndef APPS_CLI_H
#define APPS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "ism/diag.h"
#include "ism/ydoc.h"

/* Exit codes (CBMC's convention). */
enum {
  CLI_EXIT_OK = 0,           /* verified / all expectations hold */
  CLI_EXIT_USAGE = 1,        /* bad command line */
  CLI_EXIT_INVALID = 2,      /* invalid model or input file */
  CLI_EXIT_INCONCLUSIVE = 5, /* budget exhausted, solver unknown */
  CLI_EXIT_INTERNAL = 6,     /* internal error (a bug, or a failed self-check) */
  CLI_EXIT_VIOLATION = 10    /* counterexample found, or an expect: failed */
};

typedef enum { OPT_FLAG, OPT_INT, OPT_REAL, OPT_STRING, OPT_CHOICE } cli_opt_type_t;

typedef struct {
  const char *name; /* long name without "--" */
  char short_name;  /* 0 if none */
  cli_opt_type_t type;
  const char *metavar; /* shown in --help: --bound K */
  const char *choices; /* OPT_CHOICE: "text|json|sarif" */
  const char *def;     /* default, as shown in --help (NULL: none) */
  double min, max;     /* OPT_INT/OPT_REAL range, inclusive; ignored when min > max */
  const char *help;
} cli_option_t;

typedef struct {
  bool set;      /* given on the command line (or, merged, in the model) */
  long long i;   /* OPT_INT; OPT_FLAG: 1 when set */
  double r;      /* OPT_REAL (and OPT_INT, converted) */
  const char *s; /* OPT_STRING/OPT_CHOICE; borrowed from argv */
} cli_value_t;

/* What every command gets: where to write, diagnostics to fill, whether
 * colour is on. Diagnostics collected here are rendered by the CLI after
 * the command returns. */
typedef struct {
  FILE *out;
  FILE *err;
  bool color;      /* colour on stderr */
  bool err_is_tty; /* progress may be shown */
  diag_list_t diags;
  const char *output_path; /* -o FILE, or NULL for out */
  double time_limit;       /* --timeout in seconds (0: none); in force while a command runs */
  const char *command;     /* the command running and its input file (NULL: none), for reports */
  const char *input;       /* written on its behalf (cli_write_stopped) */
} cli_ctx_t;

typedef struct cli_command cli_command_t;
struct cli_command {
  const char *name;        /* ismv NAME */
  const char *kind;        /* the YAML `kind:` it analyses (for `ismv check`), or NULL */
  const char *summary;     /* one line, for `ismv --help` */
  const char *usage;       /* after "usage: ismv NAME " */
  const char *description; /* paragraphs for `ismv NAME --help` */
  const cli_option_t *options;
  size_t noptions;
  /* Runs the command on one input file; values[i] belongs to options[i]. */
  int (*run)(cli_ctx_t *ctx, const cli_command_t *self, const char *path, const cli_value_t *values);
  /* Instead of run, for a command that takes several files and reports on
   * them together (`check`): runs on all of them at once. */
  int (*run_all)(cli_ctx_t *ctx, const cli_command_t *self, const char *const *paths, int npaths,
                 const cli_value_t *values);
};

int cli_main(int argc, char **argv, FILE *out, FILE *err);

/* The command table, in `ismv --help` order (static storage), and the exit-code
 * paragraph every --help ends with; for generated documentation (apps/docgen). */
const cli_command_t *const *cli_commands(size_t *count);
const char *cli_exit_codes_help(void);
const char *cli_version(void);
/* The options every command takes besides its own (--max-memory, --timeout). */
const cli_option_t *cli_common_options(size_t *count);
/* For the program (not for tests running cli_main in-process): SIGINT and
 * SIGTERM stop every analysis cleanly (smt_stop_all), so the command
 * reports what it found, marked partial, and exits 5; a second signal ends
 * the process at once with exit code 5. */
void cli_handle_signals(void);
/* A process that runs analyses for its parent (check -j) calls this first
 * thing after fork: its own thread to interrupt Z3 at a signal, and
 * CLI_SIGNAL_FORWARD (which the parent blocks before forking, so it cannot
 * arrive before the handler) as a stop request that, unlike SIGINT, never
 * counts as the second signal: a child the terminal's Ctrl-C reached too
 * still reports. */
void cli_handle_signals_in_child(void);
#define CLI_SIGNAL_FORWARD SIGUSR1
/* Ends the thread cli_handle_signals started (the handlers stay: a signal
 * still makes the stop request), so that a process about to fork has one
 * thread: a child of a process with other threads inherits whatever locks
 * they held (malloc's, the sanitizers', Z3's) with no thread to release
 * them. A forked child calls cli_handle_signals again for a thread (and a
 * wake-up pipe) of its own. */
void cli_signals_quiesce(void);
/* The time limit: `seconds` from now (0: none, replacing any earlier one)
 * the same stop request as a signal's is made (ism/stop.h) and every solver
 * interrupted, so the command reports what it found so far, marked partial,
 * and exits 5; 30 s later a run that has not ended exits 5 without a report.
 * cli_main sets it from --timeout around each file's run (check: per file);
 * a command may set it again from its model's options. cli_time_limit_end
 * cancels it and withdraws a stop request it made. */
void cli_time_limit_start(double seconds);
void cli_time_limit_end(void);

/* The value of option `name` of cmd (asserts that it exists). */
const cli_value_t *cli_opt(const cli_command_t *cmd, const cli_value_t *values, const char *name);

/* Writes text to -o FILE or to ctx->out. Returns an exit code: 0, or
 * CLI_EXIT_INTERNAL when it cannot be written (reported), stdout included;
 * CLI_EXIT_USAGE when -o names a file the run has read. */
int cli_write_output(cli_ctx_t *ctx, const char *text);
/* Writes text to the file `path` (an output other than the report: --dot,
 * --svg, --write-model ...) as cli_write_output does -o: to a temporary file
 * in the same directory, renamed over path (in place when path is no
 * regular file, e.g. /dev/null); never over a file the run has read. */
int cli_write_file(cli_ctx_t *ctx, const char *path, const char *text);

/* A report written piece by piece (verify --all -f json) to `path` under
 * the same rules: cli_stream_open refuses a file the run has read
 * (CLI_EXIT_USAGE) and opens a temporary file next to path (path itself
 * when it is no regular file), CLI_EXIT_INTERNAL when it cannot (both
 * reported); s->f is then the stream to write. cli_stream_close closes it
 * and renames it over path: CLI_EXIT_OK, or CLI_EXIT_INTERNAL (reported,
 * the temporary file removed) after any write error. */
typedef struct {
  FILE *f;
  char *tmp;        /* the temporary file, or NULL when writing path in place */
  const char *path; /* borrowed */
} cli_stream_t;
int cli_stream_open(cli_ctx_t *ctx, const char *path, cli_stream_t *s);
int cli_stream_close(cli_ctx_t *ctx, cli_stream_t *s);

/* The report of a run a stop request (ism/stop.h) ended before it had any
 * result: "partial: WHY; WHAT" as text (format NULL or "text"), as JSON the
 * envelope alone (apps/json_envelope.h: ctx->command and ctx->input, verdict
 * "inconclusive", exit code 5, "partial": true, "reason": "WHY; WHAT"), as
 * SARIF a log without results whose invocation did not succeed (so it can
 * never pass for a clean run), nothing in other formats; WHY is
 * stop_message(), WHAT says how far it got (NULL: "no result"). Returns
 * CLI_EXIT_INCONCLUSIVE, or cli_write_output's error. */
int cli_write_stopped(cli_ctx_t *ctx, const char *format, const char *what);

/* Prints every collected diagnostic GCC style to ctx->err and clears them. */
void cli_render_diags(cli_ctx_t *ctx);

/* What an analysis run found, for cli_exit_code. */
typedef struct {
  int analysis;  /* the analysis alone: CLI_EXIT_OK (holds), _VIOLATION, _INCONCLUSIVE, or an error code */
  bool complete; /* it covered all it was asked to (false: budget, solver unknown, interrupted) */
  size_t found, kept;  /* violations found, and kept by the filters (--min-prob); kept <= found */
  int expect;          /* expect_check's code, or -1 when there is no expect: block */
  bool expect_verdict; /* the expect: block states the verdict (so it may accept a violation) */
  bool interrupted;    /* stopped by SIGINT/SIGTERM: the report is partial, the exit code 5 */
  bool limit_hit;      /* a size limit (--max-states, a translation's max_states) ended the run before
                          its result; the error reported (analysis CLI_EXIT_INVALID) is that limit */
} cli_outcome_t;

/* The one place an analysis's exit code is decided. An interrupted run, or
 * one a size limit ended, is inconclusive whatever it found (usage and
 * internal errors aside). A violation the filters
 * dropped entirely counts as holding, but an incomplete run that holds is
 * inconclusive; a failed or malformed expectation wins over both; holding
 * expectations turn the result into 0 only when they state the verdict.
 * Nothing turns inconclusive or violated into 0 otherwise. */
int cli_exit_code(const cli_outcome_t *o);

/* The options in force for one model: values[i] when set on the command
 * line, else the entry of the same name in `map` (a model's options block,
 * may be NULL) parsed and range-checked exactly as on the command line,
 * a bad entry being a located error. Returns a fresh array (caller frees),
 * or NULL after reporting. Entries of map that name no option are ignored. */
cli_value_t *cli_merge_file_options(const cli_command_t *cmd, const cli_value_t *values, const ynode_t *map,
                                    diag_list_t *diags);

/* One entry of a model's or configuration's options, node n, for option o,
 * parsed and range-checked exactly as on the command line into *v (a flag
 * reads true/false); false after a located error. */
bool cli_file_option(const cli_option_t *o, const ynode_t *n, cli_value_t *v, diag_list_t *diags);

/* The time limit a model's options block `map` (may be NULL) sets with
 * `timeout:` (or its older name `budget:`), checked as --timeout is, when
 * the command line set none: starts it (cli_time_limit_start) and records
 * it in ctx->time_limit. Returns false after reporting a bad value. */
bool cli_file_time_limit(cli_ctx_t *ctx, const ynode_t *map);

/* Combines two exit codes of a multi-file run: the most severe wins
 * (internal > invalid > usage > violation > inconclusive > ok). */
int cli_worst_exit(int a, int b);

#endif
