/* A worker function on several threads: each worker takes the next item of
 * a shared counter until none is left (the caller's pool says how). */
#ifndef ISM_WORKERS_H
#define ISM_WORKERS_H

#include <stddef.h>

/* Runs worker(arg) on min(jobs, n) threads, at least one (jobs <= 0: one
 * per online core), the caller's own thread among them; returns when every
 * one has returned. When the system refuses a thread, fewer run. */
void workers_run(long jobs, size_t n, void *(*worker)(void *), void *arg);

#endif
