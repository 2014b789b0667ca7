/* Stopping a run early: one process-wide request, made by a signal handler
 * or by the run's time limit (both in apps/cli.c), that the long loops of
 * every analysis poll, so each ends its work and reports what it found so
 * far, marked partial. Z3 checks are interrupted apart (smt_stop_all). */
#ifndef ISM_STOP_H
#define ISM_STOP_H

#include <stdbool.h>

typedef enum {
  STOP_NONE = 0,
  STOP_SIGNAL,  /* SIGINT or SIGTERM */
  STOP_TIMEOUT, /* the --timeout limit ran out */
} stop_reason_t;

/* Asks every analysis to stop; the first reason stays until stop_clear.
 * Async-signal-safe. */
void stop_request(stop_reason_t why);
/* The time limit: `seconds` from now (<= 0: none) the request is
 * STOP_TIMEOUT, as stop_reason sees. Only the pollers see it; whoever sets
 * it also interrupts what does not poll (apps/cli.c: Z3). */
void stop_set_deadline(double seconds);
/* The reason of the request, or STOP_NONE (two atomic loads and, with a
 * deadline, a clock read: cheap enough for a loop, not for the innermost). */
stop_reason_t stop_reason(void);
bool stop_requested(void);
/* stop_requested() as a callback (the argument is ignored), for the
 * bounded LTS constructions that take one (lts_compose_bounded,
 * lts_determinise_bounded). */
bool stop_poll(void *unused);
/* For a report: "interrupted by a signal" or "the time limit (--timeout)
 * ran out"; NULL when no stop was requested. Static storage. */
const char *stop_message(void);
/* Withdraws a request (a run in the same process after a timed-out one);
 * the deadline stays. */
void stop_clear(void);

#endif
