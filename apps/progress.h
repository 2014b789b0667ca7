/* A progress line on stderr for commands that can run for seconds: shown
 * only when stderr is a terminal and the user did not ask for --quiet,
 * redrawn in place at most four times a second, erased when the work ends,
 * so the terminal is left as if it had never been there. Any command may
 * use it; the text is the caller's. Not thread-safe: callers serialise. */
#ifndef APPS_PROGRESS_H
#define APPS_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "apps/cli.h"

typedef struct {
  FILE *out;    /* NULL: progress is off */
  double start; /* seconds, monotonic */
  double last;  /* when the line was last drawn, or < 0 */
  bool drawn;   /* a line is on screen */
} progress_t;

/* On when ctx's stderr is a terminal and !quiet. */
void progress_init(progress_t *p, const cli_ctx_t *ctx, bool quiet);
/* Seconds since progress_init. */
double progress_elapsed(const progress_t *p);
/* Whether a redraw is due (false when off): lets a caller skip composing the text. */
bool progress_due(const progress_t *p);
/* Draws the line (printf-style) if due. */
void progress_show(progress_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Draws it now, due or not (a new phase of the work). */
void progress_phase(progress_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Erases the line, if one is shown. */
void progress_end(progress_t *p);

#endif
