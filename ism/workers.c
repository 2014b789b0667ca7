#include "ism/workers.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "ism/alloc.h"

void workers_run(long jobs, size_t n, void *(*worker)(void *), void *arg) {
  if (jobs <= 0) jobs = sysconf(_SC_NPROCESSORS_ONLN);
  if (jobs < 1) jobs = 1;
  if ((size_t)jobs > n) jobs = n ? (long)n : 1;
  pthread_t *threads = xcalloc((size_t)jobs, sizeof *threads);
  long started = 1;
  for (; started < jobs; started++)
    if (pthread_create(&threads[started], NULL, worker, arg) != 0) break; /* fewer threads then */
  worker(arg);
  for (long t = 1; t < started; t++) pthread_join(threads[t], NULL);
  free(threads);
}
