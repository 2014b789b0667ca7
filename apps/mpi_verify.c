#include "apps/mpi_verify.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include <mpi.h>

#include "apps/verify_options.h"
#include "ism/alloc.h"
#include "ism/json.h"
#include "verifier/paths/distribute.h"

/* Messages, all as bytes (text): a worker asks for a subtree with
 * "N FRONTIER" (its number of subtrees and their fingerprint, which must be
 * rank 0's; "0 0" when it does not split), rank 0 answers with the index or -1; a worker sends each
 * searched subtree as JSON, CUT with the reason when a budget cut its search
 * above the split short (it then asks for nothing), and once it has no
 * more, DONE with nothing (success) or what failed. */
enum { TAG_REQUEST = 1, TAG_ASSIGN, TAG_PART, TAG_DONE, TAG_CUT };

/* MPI is process-wide: whether it was started, and this process's place. */
static struct {
  bool started;
  int rank, size;
} world = {false, 0, 1};

void mpi_verify_init(int *argc, char ***argv) {
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_SIZE")) return;
  int provided;
  /* search threads call MPI one at a time (under the worker's lock) */
  if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return;
  world.started = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  if (provided < MPI_THREAD_SERIALIZED && world.rank == 0)
    fprintf(stderr, "ismv: warning: this MPI gives no thread support; use --jobs 1 under mpirun\n");
}

int mpi_verify_finalize(int rc) {
  if (world.started) MPI_Finalize();
  return rc;
}

int mpi_verify_size(void) { return world.size; }
int mpi_verify_rank(void) { return world.rank; }

static void send_text(const char *text, int tag, int to) {
  MPI_Send(text, (int)strlen(text), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

/* Receives the next message from `from` (or anyone): its text (caller
 * frees), tag and sender. Waits by polling with short sleeps, not in
 * MPI_Probe: Open MPI's blocking calls spin, and rank 0, which waits most of
 * the run, would take a core from the ranks that search. */
static char *receive(int from, int *tag, int *source) {
  MPI_Status st;
  long pause_ns = 50000;
  for (int ready = 0;;) {
    MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &ready, &st);
    if (ready) break;
    struct timespec ts = {0, pause_ns};
    nanosleep(&ts, NULL);
    if (pause_ns < 2000000) pause_ns *= 2; /* at most 2 ms late */
  }
  int len = 0;
  MPI_Get_count(&st, MPI_CHAR, &len);
  char *buf = xmalloc((size_t)len + 1);
  MPI_Recv(buf, len, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  buf[len] = '\0';
  *tag = st.MPI_TAG;
  *source = st.MPI_SOURCE;
  return buf;
}

static uint64_t fingerprint(size_t n, const int *prefixes, int depth) {
  return distribute_hash(prefixes, n * (size_t)depth * sizeof *prefixes, DISTRIBUTE_HASH_START);
}

/* ---- a worker (rank > 0) ---- */

typedef struct {
  const verify_job_t *job;
  pthread_mutex_t lock; /* one thread at a time talks MPI; guards the counts */
  char *failure;
  size_t subtrees, cexs; /* searched and sent, for --stats */
  unsigned long long paths;
} worker_t;

/* This process's CPU time so far (user + system), in seconds. */
static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
         ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

/* This process's peak resident memory so far, in MB. */
static double peak_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024; /* kilobytes on Linux */
}

static bool stats(const verify_job_t *job) { return cli_opt(job->self, job->given, "stats")->set; }

static long worker_next(void *ctx, size_t n, const int *prefixes, int depth) {
  worker_t *w = ctx;
  char ask[64];
  snprintf(ask, sizeof ask, "%zu %016" PRIx64, n, fingerprint(n, prefixes, depth));
  pthread_mutex_lock(&w->lock);
  send_text(ask, TAG_REQUEST, 0);
  int tag, source;
  char *answer = receive(0, &tag, &source);
  pthread_mutex_unlock(&w->lock);
  long index = tag == TAG_ASSIGN ? strtol(answer, NULL, 10) : -1;
  free(answer);
  return index;
}

static void worker_done(void *ctx, size_t index, char *json, const explore_result_t *part, char *failure) {
  (void)index;
  worker_t *w = ctx;
  pthread_mutex_lock(&w->lock);
  w->subtrees++, w->paths += part->paths, w->cexs += part->ncexs;
  send_text(json, TAG_PART, 0);
  if (failure && !w->failure)
    w->failure = failure;
  else
    free(failure);
  pthread_mutex_unlock(&w->lock);
  free(json);
}

static int work(const verify_job_t *job) {
  worker_t w = {.job = job};
  pthread_mutex_init(&w.lock, NULL);
  if (explore_split_depth(job->opt) <= 0) { /* rank 0 searches it all, if it does not split either */
    char *answer = NULL;
    pthread_mutex_lock(&w.lock);
    send_text("0 0", TAG_REQUEST, 0);
    int tag, source;
    answer = receive(0, &tag, &source);
    pthread_mutex_unlock(&w.lock);
    free(answer);
  } else {
    verify_share_t share = {worker_next, worker_done, &w};
    char *top_cut = NULL; /* above the split: rank 0 reports it */
    free(verify_search_share(job, &share, false, &w.failure, &top_cut));
    if (top_cut) send_text(top_cut, TAG_CUT, 0);
    free(top_cut);
  }
  send_text(w.failure ? w.failure : "", TAG_DONE, 0);
  if (stats(job))
    fprintf(job->ctx->err,
            "ismv: rank %d: %zu subtrees, %llu paths, %zu counterexamples sent, %.2f s CPU, %.0f MB peak\n",
            world.rank, w.subtrees, w.paths, w.cexs, cpu_seconds(), peak_mb());
  free(w.failure);
  pthread_mutex_destroy(&w.lock);
  return CLI_EXIT_OK;
}

/* ---- rank 0 ---- */

typedef struct {
  size_t n;
  uint64_t frontier;
  bool split;
} top_t;

/* Rank 0 searches above the split only: it records the subtrees and takes none. */
static long coordinator_next(void *ctx, size_t n, const int *prefixes, int depth) {
  top_t *t = ctx;
  if (!t->split) {
    t->split = true;
    t->n = n;
    t->frontier = fingerprint(n, prefixes, depth);
  }
  return -1;
}

typedef struct {
  const verify_job_t *job;
  top_t top;
  bool top_cut;            /* rank 0's search above the split was cut short: it hands out nothing */
  explore_result_t *parts; /* full search: each subtree's, until all are in */
  distribute_topk_t *topk;
  explore_result_t merged; /* top-K search: the counts of the parts merged as they came */
  int *owner;              /* [n]: the rank a subtree was handed to, or 0 */
  bool *have;
  size_t next;
  char *failure; /* the first failure, with its rank */
  char *cut;     /* the first rank whose part a budget cut short, and why, or NULL */
  char *idle;    /* the first worker a budget stopped above the split (it took no subtree), or NULL */
} coordinator_t;

static void cut_short(char **note, int source, const char *reason) {
  if (!*note) *note = xasprintf("rank %d cut short (%s)", source, reason);
}

static void fail(coordinator_t *c, char *msg) {
  if (!c->failure)
    c->failure = msg;
  else
    free(msg);
}

static void on_request(coordinator_t *c, int source, const char *text) {
  size_t n = 0;
  uint64_t frontier = 0;
  long index = -1;
  if (c->top_cut) /* rank 0 does not know the subtrees: none is searched */
    ;
  else if (sscanf(text, "%zu %" SCNx64, &n, &frontier) != 2 || n != c->top.n || frontier != c->top.frontier)
    fail(c, xasprintf("rank %d split the search into other subtrees (%zu, not %zu): a different model or "
                      "options?",
                      source, n, c->top.n));
  else if (!c->failure && c->next < c->top.n)
    index = (long)c->next++;
  if (index >= 0) c->owner[index] = source;
  char answer[32];
  snprintf(answer, sizeof answer, "%ld", index);
  send_text(answer, TAG_ASSIGN, source);
}

static void on_part(coordinator_t *c, int source, const char *text) {
  diag_list_t diags;
  diag_init(&diags);
  char name[32];
  snprintf(name, sizeof name, "rank %d", source);
  json_doc_t *doc = json_parse(name, text, &diags);
  explore_result_t part;
  distribute_topk_t topk;
  long index = -1;
  char *why =
      doc ? distribute_read_part(doc->root, c->job->m, &index, &part, &topk) : xstrdup("malformed JSON");
  if (!why && (index < 0 || (size_t)index >= c->top.n || c->owner[index] != source || c->have[index]))
    why = xasprintf("subtree %ld was not handed to it", index);
  else if (!why && topk.topk != (c->job->topk != NULL))
    why = xasprintf("a part of the %s search (other options?)", topk.topk ? "top-K" : "full");
  if (!why && part.reason) cut_short(&c->cut, source, part.reason);
  if (doc && why) explore_result_free(&part);
  if (why) {
    fail(c, xasprintf("rank %d sent a result rank 0 cannot use: %s", source, why));
    free(why);
  } else {
    if (c->job->topk) /* merged at once (the merge does not depend on the order): memory stays small */
      verify_add_part(c->job, &c->merged, &part, &topk);
    else
      c->parts[index] = part, c->topk[index] = topk;
    c->have[index] = true;
  }
  if (doc) json_free(doc);
  diag_free(&diags);
}

int mpi_verify_search(const verify_job_t *job, explore_result_t *res) {
  if (world.rank != 0) return work(job);
  coordinator_t c = {.job = job};
  explore_options_t opt = *job->opt;
  opt.next_subtree = coordinator_next;
  opt.subtree_ctx = &c.top;
  explore_result_t top;
  explore_run(job->m, &opt, &top);
  c.top_cut = top.reason != NULL;
  c.parts = xcalloc(c.top.n + 1, sizeof *c.parts);
  c.topk = xcalloc(c.top.n + 1, sizeof *c.topk);
  c.owner = xcalloc(c.top.n + 1, sizeof *c.owner);
  c.have = xcalloc(c.top.n + 1, sizeof *c.have);
  for (int done = 0; done < world.size - 1;) {
    int tag, source;
    char *text = receive(MPI_ANY_SOURCE, &tag, &source);
    if (tag == TAG_REQUEST) on_request(&c, source, text);
    if (tag == TAG_PART) on_part(&c, source, text);
    if (tag == TAG_CUT) cut_short(&c.idle, source, text);
    if (tag == TAG_DONE) {
      done++;
      if (*text) fail(&c, xasprintf("rank %d failed: %s", source, text));
    }
    free(text);
  }
  /* A worker stopped above the split asks for nothing: the others search
   * its share; only when no rank asked for a subtree is the run incomplete. */
  size_t unasked = 0;
  for (size_t p = 0; p < c.top.n && !c.failure; p++)
    if (c.owner[p] && !c.have[p])
      fail(&c, xasprintf("subtree %zu was handed to rank %d, which never sent it back", p, c.owner[p]));
    else if (!c.owner[p] && !c.idle)
      fail(&c, xasprintf("no rank asked for subtree %zu", p));
    else
      unasked += !c.owner[p];
  if (unasked && !c.cut) {
    c.cut = xasprintf("%s; %zu of %zu subtrees not searched", c.idle, unasked, c.top.n);
  }
  if (top.replay_failed) fail(&c, xstrdup(top.replay_message));
  if (!c.failure && job->ranked && top.ncexs) { /* the counterexamples above the split */
    if (!verify_rank(job->m, job->ropt, top.cexs, top.ncexs) && !top.reason)
      top.reason = "the time limit (--timeout) ran out while ranking; the later counterexamples are unranked";
  }
  if (stats(job))
    fprintf(job->ctx->err,
            "ismv: rank 0: %llu paths above the split, %zu subtrees handed out, %.2f s CPU, %.0f MB peak\n",
            top.paths, c.top.n, cpu_seconds(), peak_mb());
  int rc = -1;
  if (c.failure) {
    fprintf(job->ctx->err, "ismv: error: %s; no report\n", c.failure);
    explore_result_free(&top);
    explore_result_free(&c.merged);
    for (size_t p = 0; p < c.top.n; p++) explore_result_free(&c.parts[p]);
    memset(res, 0, sizeof *res);
    rc = CLI_EXIT_INTERNAL;
  } else {
    explore_result_add(&top, &c.merged);
    char *bad = verify_assemble(job, &top, NULL, c.parts, c.topk, c.top.n, res);
    if (bad) {
      fprintf(job->ctx->err, "ismv: error: %s; no report\n", bad);
      explore_result_free(res);
      rc = CLI_EXIT_INTERNAL;
    } else if (c.cut) { /* the report names the rank */
      free(res->reason_owned);
      res->reason = res->reason_owned = c.cut, c.cut = NULL;
      if (!res->ncexs && !res->nstreamed) res->verdict = EXPLORE_INCONCLUSIVE;
    }
    free(bad);
  }
  free(c.parts), free(c.topk), free(c.owner), free(c.have), free(c.failure), free(c.cut), free(c.idle);
  return rc;
}
