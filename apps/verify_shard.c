#include "apps/verify_shard.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/verify_options.h"
#include "ism/alloc.h"
#include "ism/strbuf.h"
#include "verifier/paths/distribute.h"
#ifdef ISMV_MPI
#include "apps/mpi_verify.h"
#endif

/* Options that change how a run is carried out or written, not its result. */
static bool run_only_option(const char *name) {
  static const char *const names[] = {"shard", "output", "format", "jobs", "quiet"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (strcmp(name, names[k]) == 0) return true;
  return false;
}

void verify_options_json(strbuf_t *sb, const cli_command_t *self, const cli_value_t *given) {
  strbuf_putc(sb, '{');
  bool first = true;
  for (size_t i = 0; i < self->noptions; i++) {
    const cli_option_t *o = &self->options[i];
    if (!given[i].set || run_only_option(o->name)) continue;
    strbuf_puts(sb, first ? "" : ", ");
    first = false;
    strbuf_json_string(sb, o->name);
    strbuf_puts(sb, ": ");
    switch (o->type) {
    case OPT_FLAG: strbuf_puts(sb, "true"); break;
    case OPT_INT: strbuf_printf(sb, "%lld", given[i].i); break;
    case OPT_REAL: strbuf_json_number(sb, given[i].r); break;
    case OPT_STRING:
    case OPT_CHOICE: strbuf_json_string(sb, given[i].s); break;
    }
  }
  strbuf_putc(sb, '}');
}

bool verify_is_part(const cli_command_t *self, const cli_value_t *given, const verify_merge_t *merge) {
  if (merge || cli_opt(self, given, "shard")->set) return true;
#ifdef ISMV_MPI
  return mpi_verify_size() > 1;
#else
  return false;
#endif
}

/* ---- one part: re-checked, ranked, as JSON ---- */

static void set_failure(char **failure, char *msg) {
  if (!*failure)
    *failure = msg;
  else
    free(msg);
}

char *verify_part_json(const verify_job_t *job, long index, explore_result_t *part, char **failure) {
  const ism_model_t *m = job->m;
  char *why = NULL;
  for (size_t k = 0; k < part->ncexs && !why; k++) {
    char *msg = cex_replay(m, job->opt->mode, &part->cexs[k]);
    if (msg) why = xasprintf("counterexample %zu of subtree %ld failed its re-check: %s", k + 1, index, msg);
    free(msg);
  }
  if (!why && job->ranked && part->ncexs) {
    if (!verify_rank(m, job->ropt, part->cexs, part->ncexs) && !part->reason)
      part->reason = "the time limit (--timeout) ran out while ranking; the later counterexamples are unranked";
    for (size_t k = 0; k < part->ncexs && !why; k++) {
      const cex_t *c = &part->cexs[k];
      char *msg = cex_replay(m, job->opt->mode, c);
      if (msg)
        why = xasprintf("ranked counterexample %zu of subtree %ld failed its re-check: %s", k + 1, index, msg);
      else if (c->has_probability && !(c->probability >= 0 && c->probability <= 1))
        why = xasprintf("counterexample %zu of subtree %ld has probability %g outside [0, 1]", k + 1, index,
                        c->probability);
      free(msg);
    }
  }
  if (why) set_failure(failure, why);
  strbuf_t sb;
  strbuf_init(&sb);
  distribute_write_part(&sb, m, index, part);
  return strbuf_take(&sb);
}

void verify_assemble(explore_result_t *top, explore_result_t *parts, size_t n, explore_result_t *res) {
  memset(res, 0, sizeof *res);
  explore_result_add(res, top);
  for (size_t p = 0; p < n; p++) explore_result_add(res, &parts[p]);
  /* probability, then depth-first path order: a total order, so the same
   * as rank_all's over the same counterexamples (unranked: path order) */
  cex_sort_by_probability(res->cexs, res->ncexs);
  res->verdict = res->ncexs ? EXPLORE_VIOLATED : res->reason ? EXPLORE_INCONCLUSIVE : EXPLORE_VERIFIED;
}

/* ---- --shard I/N ---- */

typedef struct {
  const verify_job_t *job;
  int shard, nshards;
  pthread_mutex_t lock; /* guards what follows */
  size_t cursor;        /* next subtree index to consider */
  size_t nsubtrees;
  uint64_t frontier; /* hash of the subtrees' prefixes */
  strbuf_t parts;    /* the parts searched so far, as JSON */
  size_t nparts;
  char *failure;
  bool incomplete;
} shard_t;

static long shard_next(void *ctx, size_t n, const int *prefixes, int depth) {
  shard_t *s = ctx;
  pthread_mutex_lock(&s->lock);
  if (!s->nsubtrees) {
    s->nsubtrees = n;
    s->frontier = distribute_hash(prefixes, n * (size_t)depth * sizeof *prefixes, DISTRIBUTE_HASH_START);
  }
  while (s->cursor < n && !distribute_shard_owns(s->cursor, s->shard, s->nshards)) s->cursor++;
  long p = s->cursor < n ? (long)s->cursor++ : -1;
  pthread_mutex_unlock(&s->lock);
  return p;
}

static void shard_done(void *ctx, size_t index, explore_result_t *part) {
  shard_t *s = ctx;
  char *failure = NULL;
  char *json = verify_part_json(s->job, (long)index, part, &failure);
  pthread_mutex_lock(&s->lock);
  if (part->reason) s->incomplete = true;
  if (failure) set_failure(&s->failure, failure);
  strbuf_puts(&s->parts, s->nparts++ ? ",\n" : "\n");
  strbuf_puts(&s->parts, json);
  pthread_mutex_unlock(&s->lock);
  free(json);
}

static bool parse_shard(const char *text, int *shard, int *nshards) {
  char tail;
  return sscanf(text, "%d/%d%c", shard, nshards, &tail) == 2 && *nshards >= 1 && *nshards <= 100000 &&
         *shard >= 1 && *shard <= *nshards;
}

/* The model file's digest as 16 hex digits into buf; false when it cannot be read. */
static bool model_digest(const char *path, char buf[17]) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  uint64_t h = DISTRIBUTE_HASH_START;
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) h = distribute_hash(chunk, got, h);
  bool ok = !ferror(f);
  fclose(f);
  snprintf(buf, 17, "%016" PRIx64, h);
  return ok;
}

/* The identity of a run: model digest, result options and split depth, hashed. */
static void run_key(const char *digest, const char *options, int split_depth, char buf[17]) {
  char depth[32];
  snprintf(depth, sizeof depth, "|%d|", split_depth);
  uint64_t h = distribute_hash(digest, strlen(digest), DISTRIBUTE_HASH_START);
  h = distribute_hash(depth, strlen(depth), h);
  h = distribute_hash(options, strlen(options), h);
  snprintf(buf, 17, "%016" PRIx64, h);
}

static int run_shard(const verify_job_t *job, const char *spec) {
  cli_ctx_t *ctx = job->ctx;
  shard_t s = {.job = job};
  if (!parse_shard(spec, &s.shard, &s.nshards)) {
    fprintf(ctx->err, "ismv: error: --shard takes I/N with 1 <= I <= N (e.g. 2/5), not '%s'\n", spec);
    return CLI_EXIT_USAGE;
  }
  if (job->opt->strategy != EXPLORE_INCREMENTAL) {
    fprintf(ctx->err, "ismv: error: --shard splits the incremental search; it cannot go with --strategy per-path\n");
    return CLI_EXIT_USAGE;
  }
  char digest[17], key[17];
  if (!model_digest(job->m->path, digest)) {
    fprintf(ctx->err, "ismv: error: cannot read '%s': %s\n", job->m->path, strerror(errno));
    return CLI_EXIT_INVALID;
  }
  strbuf_t options;
  strbuf_init(&options);
  verify_options_json(&options, job->self, job->given);
  int depth = explore_split_depth(job->opt);
  run_key(digest, strbuf_str(&options), depth, key);
  pthread_mutex_init(&s.lock, NULL);
  strbuf_init(&s.parts);
  explore_options_t opt = *job->opt;
  opt.next_subtree = shard_next;
  opt.subtree_done = shard_done;
  opt.subtree_ctx = &s;
  /* Without a split the whole search is one unit, shard 1's. */
  bool owns_top = s.shard == 1;
  char *top_json = NULL;
  explore_result_t top = {0};
  if (depth > 0 || owns_top) {
    explore_run(job->m, &opt, &top);
    if (top.replay_failed) set_failure(&s.failure, xstrdup(top.replay_message));
    if (top.reason) s.incomplete = true;
    if (!owns_top) { /* shard 1 reports the counterexamples above the split */
      for (size_t k = 0; k < top.ncexs; k++) cex_free(&top.cexs[k]);
      top.ncexs = 0;
    }
    top_json = verify_part_json(job, -1, &top, &s.failure);
    explore_result_free(&top);
  }
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_printf(&sb, "{\n\"ismv_shard\": 1,\n\"shard\": %d,\n\"of\": %d,\n\"model\": ", s.shard, s.nshards);
  strbuf_json_string(&sb, job->m->path);
  strbuf_printf(&sb, ",\n\"model_digest\": \"%s\",\n\"run\": \"%s\",\n\"options\": %s,\n", digest, key,
                strbuf_str(&options));
  strbuf_printf(&sb, "\"split_depth\": %d,\n\"subtrees\": %zu,\n\"frontier\": \"%016" PRIx64 "\",\n\"error\": ",
                depth, s.nsubtrees, s.frontier);
  if (s.failure)
    strbuf_json_string(&sb, s.failure);
  else
    strbuf_puts(&sb, "null");
  strbuf_printf(&sb, ",\n\"top_counterexamples\": %s,\n\"top\": %s,\n\"parts\": [%s]\n}\n",
                owns_top ? "true" : "false", top_json ? top_json : "null", strbuf_str(&s.parts));
  int rc = cli_write_output(ctx, strbuf_str(&sb));
  if (s.failure) fprintf(ctx->err, "ismv: internal error: %s\n", s.failure);
  fprintf(ctx->err, "ismv: shard %d of %d: %zu of %zu subtrees searched\n", s.shard, s.nshards, s.nparts,
          s.nsubtrees);
  if (!rc) rc = s.failure ? CLI_EXIT_INTERNAL : s.incomplete ? CLI_EXIT_INCONCLUSIVE : CLI_EXIT_OK;
  free(top_json);
  free(s.failure);
  strbuf_free(&sb);
  strbuf_free(&s.parts);
  strbuf_free(&options);
  pthread_mutex_destroy(&s.lock);
  return rc;
}

/* ---- ismv merge: the result from the shard reports ---- */

static int merge_error(const verify_job_t *job, int code, char *msg) {
  fprintf(job->ctx->err, "ismv: error: %s\n", msg);
  free(msg);
  return code;
}

static char *read_part(const verify_job_t *job, const json_t *node, const char *path, long *index,
                       explore_result_t *part) {
  char *why = distribute_read_part(node, job->m, index, part);
  if (!why) return NULL;
  char *msg = xasprintf("%s: %s", path, why);
  free(why);
  return msg;
}

/* Whether two parts' counts agree (the search above the split, the same in every shard). */
static bool same_counts(const explore_result_t *a, const explore_result_t *b) {
  return a->paths == b->paths && a->pruned == b->pruned && a->solver_checks == b->solver_checks &&
         a->extended_prefixes == b->extended_prefixes && a->extended_failures == b->extended_failures &&
         a->solver_prefixes == b->solver_prefixes && a->solver_failures == b->solver_failures;
}

static int merged(const verify_job_t *job, explore_result_t *res) {
  const verify_merge_t *mg = job->merge;
  char digest[17], key[17];
  if (!model_digest(job->m->path, digest))
    return merge_error(job, CLI_EXIT_INVALID, xasprintf("cannot read '%s': %s", job->m->path, strerror(errno)));
  if (strcmp(digest, json_str(mg->shards[0], "model_digest", "")) != 0)
    return merge_error(job, CLI_EXIT_USAGE,
                       xasprintf("the model '%s' has changed since the shards ran (digest %s, shards %s)",
                                 job->m->path, digest, json_str(mg->shards[0], "model_digest", "")));
  strbuf_t options;
  strbuf_init(&options);
  verify_options_json(&options, job->self, job->given);
  int depth = explore_split_depth(job->opt);
  run_key(digest, strbuf_str(&options), depth, key);
  strbuf_free(&options);
  if (strcmp(key, json_str(mg->shards[0], "run", "")) != 0)
    return merge_error(job, CLI_EXIT_USAGE,
                       xasprintf("%s: its options do not give the run it records (edited?)", mg->paths[0]));
  double subtrees = json_num(mg->shards[0], "subtrees", -1);
  if (!(subtrees >= 0 && subtrees <= 1e8 && subtrees == (double)(size_t)subtrees))
    return merge_error(job, CLI_EXIT_INVALID, xasprintf("%s: 'subtrees' is not a count", mg->paths[0]));
  size_t n = (size_t)subtrees;
  for (int i = 1; i < mg->nshards; i++)
    if (json_num(mg->shards[i], "subtrees", -1) != subtrees ||
        strcmp(json_str(mg->shards[i], "frontier", ""), json_str(mg->shards[0], "frontier", "")) != 0)
      return merge_error(job, CLI_EXIT_USAGE,
                         xasprintf("%s and %s split the search into other subtrees (a different machine's solver?)",
                                   mg->paths[0], mg->paths[i]));
  explore_result_t top = {0}, *parts = xcalloc(n + 1, sizeof *parts);
  bool *have = xcalloc(n + 1, sizeof *have);
  char *why = NULL;
  int code = CLI_EXIT_INVALID;
  for (int i = 0; i < mg->nshards && !why; i++) {
    const json_t *doc = mg->shards[i], *tnode = json_get(doc, "top");
    explore_result_t t = {0};
    long index;
    if (tnode && tnode->kind != JSON_NULL && !(why = read_part(job, tnode, mg->paths[i], &index, &t))) {
      if (i == 0)
        top = t;
      else if (!same_counts(&top, &t))
        why = xasprintf("%s and %s searched above the split differently (a different machine's solver?)",
                        mg->paths[0], mg->paths[i]);
      if (i) explore_result_free(&t);
    }
    const json_t *list = json_array(doc, "parts");
    for (size_t k = 0; list && k < list->len && !why; k++) {
      explore_result_t part;
      if ((why = read_part(job, list->items[k], mg->paths[i], &index, &part))) break;
      if (index < 0 || (size_t)index >= n || !distribute_shard_owns((size_t)index, i + 1, mg->nshards) ||
          have[index]) {
        why = xasprintf("%s: subtree %ld is not one of shard %d of %d, or twice", mg->paths[i], index, i + 1,
                        mg->nshards);
        explore_result_free(&part);
        break;
      }
      parts[index] = part;
      have[index] = true;
    }
  }
  for (size_t p = 0; p < n && !why; p++)
    if (!have[p]) {
      int owner = (int)(p % (size_t)mg->nshards);
      why = xasprintf("%s (shard %d of %d) lacks subtree %zu: it did not finish", mg->paths[owner], owner + 1,
                      mg->nshards, p);
      code = CLI_EXIT_INTERNAL;
    }
  if (why) {
    explore_result_free(&top);
    for (size_t p = 0; p < n; p++) explore_result_free(&parts[p]);
    free(parts), free(have);
    return merge_error(job, code, why);
  }
  verify_assemble(&top, parts, n, res);
  free(parts), free(have);
  return -1;
}

int verify_search(const verify_job_t *job, explore_result_t *res, bool *preranked) {
  *preranked = false;
  if (job->merge) {
    memset(res, 0, sizeof *res);
    *preranked = job->ranked;
    return merged(job, res);
  }
  const cli_value_t *shard = cli_opt(job->self, job->given, "shard");
  if (shard->set) return run_shard(job, shard->s);
#ifdef ISMV_MPI
  if (mpi_verify_size() > 1) {
    *preranked = job->ranked;
    return mpi_verify_search(job, res);
  }
#endif
  explore_run(job->m, job->opt, res);
  return -1;
}
