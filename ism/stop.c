#include "ism/stop.h"

#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

/* Lock-free atomics: safe to store from a signal handler. */
static atomic_int requested;
static atomic_llong deadline_ns; /* CLOCK_MONOTONIC; 0: none */

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void stop_request(stop_reason_t why) {
  int none = STOP_NONE;
  atomic_compare_exchange_strong(&requested, &none, (int)why);
}

stop_reason_t stop_reason(void) {
  int why = atomic_load_explicit(&requested, memory_order_relaxed);
  long long at = atomic_load_explicit(&deadline_ns, memory_order_relaxed);
  if (why == STOP_NONE && at && now_ns() >= at) {
    stop_request(STOP_TIMEOUT);
    why = atomic_load(&requested);
  }
  return (stop_reason_t)why;
}

void stop_set_deadline(double seconds) {
  atomic_store(&deadline_ns, seconds > 0 ? now_ns() + (long long)(seconds * 1e9) + 1 : 0);
}

bool stop_requested(void) { return stop_reason() != STOP_NONE; }

bool stop_poll(void *unused) {
  (void)unused;
  return stop_requested();
}

const char *stop_message(void) {
  switch (stop_reason()) {
  case STOP_SIGNAL: return "interrupted by a signal";
  case STOP_TIMEOUT: return "the time limit (--timeout) ran out";
  case STOP_NONE: break;
  }
  return NULL;
}

void stop_clear(void) { atomic_store(&requested, STOP_NONE); }
