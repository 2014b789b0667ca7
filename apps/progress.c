#include "apps/progress.h"

#include <stdarg.h>
#include <time.h>

enum { PROGRESS_WIDTH = 79 };
static const double PROGRESS_INTERVAL = 0.25; /* seconds between redraws: a few a second */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(progress_t *p, const cli_ctx_t *ctx, bool quiet) {
  *p = (progress_t){ctx->err_is_tty && !quiet ? ctx->err : NULL, now(), -1, false};
}

double progress_elapsed(const progress_t *p) { return now() - p->start; }

bool progress_due(const progress_t *p) {
  return p->out && (p->last < 0 || now() - p->last >= PROGRESS_INTERVAL);
}

static void draw(progress_t *p, const char *fmt, va_list ap) {
  char line[PROGRESS_WIDTH + 1];
  vsnprintf(line, sizeof line, fmt, ap);
  fprintf(p->out, "\r%s\033[K", line); /* \033[K: clear to the end of the line */
  fflush(p->out);
  p->last = now();
  p->drawn = true;
}

void progress_show(progress_t *p, const char *fmt, ...) {
  if (!progress_due(p)) return;
  va_list ap;
  va_start(ap, fmt);
  draw(p, fmt, ap);
  va_end(ap);
}

void progress_phase(progress_t *p, const char *fmt, ...) {
  if (!p->out) return;
  va_list ap;
  va_start(ap, fmt);
  draw(p, fmt, ap);
  va_end(ap);
}

void progress_end(progress_t *p) {
  if (!p->out || !p->drawn) return;
  fputs("\r\033[K", p->out);
  fflush(p->out);
  p->drawn = false;
}
