#include "apps/verify_shard.h"

#include <assert.h>
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
  /* --search is recorded as the search the run resolved to ("search"; merge sets it) */
  static const char *const names[] = {"shard", "output", "format", "jobs", "quiet", "search"};
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

void verify_part_split(explore_options_t *opt) {
  if (opt->split_depth >= 0) return;
  assert(!opt->topk);
  int depth = explore_split_depth(opt); /* the full search's automatic split */
  opt->split_depth = depth > 0 ? depth : 0;
}

/* ---- one part: re-checked, ranked, as JSON ---- */

static void set_failure(char **failure, char *msg) {
  if (!*failure)
    *failure = msg;
  else
    free(msg);
}

/* Drops from a subtree's kept counterexamples the copies of those the part
 * above the split kept (its seeds, explore_topk_t.part_new): the receiver
 * has them from the part above the split, and merging a copy changes
 * nothing (topk_merge_part keeps what the union of the parts would keep). */
static void drop_seeds(const topk_t *t, topk_part_result_t *r) {
  size_t out = 0;
  for (size_t k = 0; k < r->nkept; k++) {
    bool seed = false;
    for (size_t q = 0; q < t->nseed && !seed; q++) seed = cex_compare(&r->kept[k], &t->seed[q]) == 0;
    if (seed)
      cex_free(&r->kept[k]);
    else
      r->kept[out++] = r->kept[k];
  }
  r->nkept = out;
}

/* The JSON of one part (index -1: above the split). A part of the full
 * search is re-checked and ranked here; a top-K part (topk) was ranked and
 * re-checked as it was found: its kept counterexamples are replayed again. */
static char *part_json(const verify_job_t *job, long index, explore_result_t *part, topk_part_result_t *topk,
                       char **failure) {
  const ism_model_t *m = job->m;
  char *why = NULL;
  distribute_topk_t extra = {0};
  if (topk) {
    assert(part->ncexs == 0);
    if (index >= 0) drop_seeds(job->topk, topk);
    part->cexs = topk->kept, part->ncexs = topk->nkept;
    topk->kept = NULL, topk->nkept = 0;
    extra = (distribute_topk_t){true, topk->found_boundary_only, topk->unranked};
    if (topk->bad) why = xasprintf("subtree %ld: %s", index, topk->bad);
    topk_part_result_free(topk);
  }
  for (size_t k = 0; k < part->ncexs && !why; k++) {
    char *msg = cex_replay(m, job->opt->mode, &part->cexs[k]);
    if (msg) why = xasprintf("counterexample %zu of subtree %ld failed its re-check: %s", k + 1, index, msg);
    free(msg);
  }
  if (!why && !topk && job->ranked && part->ncexs) {
    if (!verify_rank(m, job->ropt, part->cexs, part->ncexs) && !part->reason)
      part->reason =
          "the time limit (--timeout) ran out while ranking; the later counterexamples are unranked";
    for (size_t k = 0; k < part->ncexs && !why; k++) {
      const cex_t *c = &part->cexs[k];
      char *msg = cex_replay(m, job->opt->mode, c);
      if (msg)
        why =
            xasprintf("ranked counterexample %zu of subtree %ld failed its re-check: %s", k + 1, index, msg);
      else if (c->has_probability && !(c->probability >= 0 && c->probability <= 1))
        why = xasprintf("counterexample %zu of subtree %ld has probability %g outside [0, 1]", k + 1, index,
                        c->probability);
      free(msg);
    }
  }
  if (why) set_failure(failure, why);
  strbuf_t sb;
  strbuf_init(&sb);
  distribute_write_part(&sb, m, index, part, topk ? &extra : NULL);
  return strbuf_take(&sb);
}

/* ---- a share of the subtrees, searched in this process ----
 * Under the top-K search each subtree's part is detached when it ends
 * (part_done) instead of merged into this process's run, and waits, matched
 * by its prefix, until its counts arrive (subtree_done); the part above the
 * split goes into the run, where it seeds the subtrees' parts as in a
 * single run. */

typedef struct {
  int *prefix;
  void *part; /* while it is searched; NULL once detached into result */
  topk_part_result_t result;
} pending_t;

typedef struct {
  const verify_job_t *job;
  const verify_share_t *share;
  explore_topk_t side;  /* the run's (job->opt->topk), part_new and part_done wrapped */
  pthread_mutex_t lock; /* guards what follows */
  pending_t *pending;
  size_t npending;
  const int *prefixes; /* the subtrees' (explore's, valid while it searches them) */
  int depth;
} share_run_t;

static void *share_part_new(void *ctx, const int *prefix, int depth) {
  share_run_t *s = ctx;
  const explore_topk_t *run = s->job->opt->topk;
  void *part = run->part_new(run->ctx, prefix, depth);
  if (depth > 0) {
    pthread_mutex_lock(&s->lock);
    s->pending = xrealloc(s->pending, (s->npending + 1) * sizeof *s->pending);
    pending_t *p = &s->pending[s->npending++];
    *p = (pending_t){xcalloc((size_t)depth, sizeof *p->prefix), part, {0}};
    memcpy(p->prefix, prefix, (size_t)depth * sizeof *prefix);
    pthread_mutex_unlock(&s->lock);
  }
  return part;
}

static void share_part_done(void *ctx, void *part) {
  share_run_t *s = ctx;
  bool detached = false;
  pthread_mutex_lock(&s->lock);
  for (size_t k = 0; k < s->npending && !detached; k++)
    if (s->pending[k].part == part) {
      topk_part_detach(part, &s->pending[k].result);
      s->pending[k].part = NULL;
      detached = true;
    }
  pthread_mutex_unlock(&s->lock);
  if (!detached) { /* the part above the split */
    const explore_topk_t *run = s->job->opt->topk;
    run->part_done(run->ctx, part);
  }
}

static long share_next(void *ctx, size_t n, const int *prefixes, int depth) {
  share_run_t *s = ctx;
  pthread_mutex_lock(&s->lock);
  s->prefixes = prefixes, s->depth = depth;
  pthread_mutex_unlock(&s->lock);
  return s->share->next(s->share->ctx, n, prefixes, depth);
}

/* The detached top-K part of subtree index; false when there is none. */
static bool take_pending(share_run_t *s, size_t index, topk_part_result_t *out) {
  bool found = false;
  pthread_mutex_lock(&s->lock);
  const int *prefix = s->prefixes + index * (size_t)s->depth;
  for (size_t k = 0; k < s->npending && !found; k++) {
    pending_t *p = &s->pending[k];
    if (p->part || memcmp(p->prefix, prefix, (size_t)s->depth * sizeof *prefix) != 0) continue;
    *out = p->result;
    free(p->prefix);
    *p = s->pending[--s->npending];
    found = true;
  }
  pthread_mutex_unlock(&s->lock);
  return found;
}

static void share_done(void *ctx, size_t index, explore_result_t *part) {
  share_run_t *s = ctx;
  char *failure = NULL;
  topk_part_result_t topk = {0};
  if (s->job->topk && !take_pending(s, index, &topk))
    failure = xasprintf("subtree %zu: its top-K part went missing", index);
  char *json = part_json(s->job, (long)index, part, s->job->topk ? &topk : NULL, &failure);
  s->share->done(s->share->ctx, index, json, part, failure);
}

char *verify_search_share(const verify_job_t *job, const verify_share_t *share, bool with_top, char **failure,
                          char **top_cut) {
  share_run_t s = {.job = job, .share = share};
  pthread_mutex_init(&s.lock, NULL);
  explore_options_t opt = *job->opt;
  opt.next_subtree = share_next;
  opt.subtree_done = share_done;
  opt.subtree_ctx = &s;
  if (job->topk) {
    s.side = *job->opt->topk;
    s.side.ctx = &s;
    s.side.part_new = share_part_new;
    s.side.part_done = share_part_done;
    opt.topk = &s.side;
  }
  explore_result_t top;
  explore_run(job->m, &opt, &top);
  if (top.replay_failed) set_failure(failure, xstrdup(top.replay_message));
  *top_cut = top.reason ? xstrdup(top.reason) : NULL;
  topk_part_result_t kept = {0};
  if (job->topk) { /* what the part above the split kept is in the run */
    explore_result_t t = {0};
    topk_finish(job->topk, &t);
    kept = (topk_part_result_t){
        t.cexs, t.ncexs, top.nstreamed, job->topk->found_boundary_only, job->topk->unranked, job->topk->bad,
        job->topk->bounded};
    job->topk->bad = NULL;
  }
  if (!with_top) { /* one process reports the counterexamples above the split */
    for (size_t k = 0; k < top.ncexs; k++) cex_free(&top.cexs[k]);
    top.ncexs = 0;
    for (size_t k = 0; k < kept.nkept; k++) cex_free(&kept.kept[k]);
    kept.nkept = 0;
  }
  char *json = part_json(job, -1, &top, job->topk ? &kept : NULL, failure);
  explore_result_free(&top);
  for (size_t k = 0; k < s.npending; k++) { /* none unless a part never ended */
    free(s.pending[k].prefix);
    topk_part_result_free(&s.pending[k].result);
  }
  free(s.pending);
  pthread_mutex_destroy(&s.lock);
  return json;
}

/* ---- parts read back: the whole result ---- */

void verify_add_part(const verify_job_t *job, explore_result_t *res, explore_result_t *part,
                     const distribute_topk_t *topk) {
  if (job->topk && topk && topk->topk) {
    topk_part_result_t r = {part->cexs,     part->ncexs, part->nstreamed, topk->found_boundary_only,
                            topk->unranked, NULL,           0}; /* bounded: not carried in the JSON */
    part->cexs = NULL, part->ncexs = 0;
    topk_merge_part(job->topk, &r);
  }
  explore_result_add(res, part);
}

char *verify_assemble(const verify_job_t *job, explore_result_t *top, const distribute_topk_t *top_topk,
                      explore_result_t *parts, const distribute_topk_t *topk, size_t n,
                      explore_result_t *res) {
  memset(res, 0, sizeof *res);
  verify_add_part(job, res, top, top_topk);
  for (size_t p = 0; p < n; p++) verify_add_part(job, res, &parts[p], topk ? &topk[p] : NULL);
  /* probability, then depth-first path order: a total order, so the same
   * as rank_all's over the same counterexamples (unranked: path order) */
  cex_sort_by_probability(res->cexs, res->ncexs);
  res->verdict = res->ncexs || res->nstreamed ? EXPLORE_VIOLATED
                 : res->reason                ? EXPLORE_INCONCLUSIVE
                                              : EXPLORE_VERIFIED;
  char *bad = NULL;
  for (size_t k = 0; job->topk && k < job->topk->nkept && !bad; k++) {
    const cex_t *c = &job->topk->kept[k];
    char *msg = cex_replay(job->m, job->opt->mode, c);
    if (msg)
      bad = xasprintf("kept counterexample %zu failed its re-check: %s", k + 1, msg);
    else if (c->has_probability && !(c->probability >= 0 && c->probability <= 1))
      bad = xasprintf("kept counterexample %zu has probability %g outside [0, 1]", k + 1, c->probability);
    free(msg);
  }
  return bad;
}

/* ---- --shard I/N ---- */

typedef struct {
  int shard, nshards;
  pthread_mutex_t lock; /* guards what follows */
  size_t cursor;        /* next subtree index to consider */
  size_t nsubtrees;
  uint64_t frontier; /* hash of the subtrees' prefixes */
  strbuf_t parts;    /* the parts searched so far, as JSON */
  size_t nparts;
  char *failure;
  char *cut; /* why a budget cut the shard short (the first reason), or NULL */
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

static void shard_done(void *ctx, size_t index, char *json, const explore_result_t *part, char *failure) {
  (void)index;
  shard_t *s = ctx;
  pthread_mutex_lock(&s->lock);
  if (part->reason && !s->cut) s->cut = xstrdup(part->reason);
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

/* The identity of a run: model digest, result options, split depth and search, hashed. */
static void run_key(const char *digest, const char *options, int split_depth, bool topk, char buf[17]) {
  char depth[32];
  snprintf(depth, sizeof depth, "|%d|%s|", split_depth, topk ? "top-k" : "full");
  uint64_t h = distribute_hash(digest, strlen(digest), DISTRIBUTE_HASH_START);
  h = distribute_hash(depth, strlen(depth), h);
  h = distribute_hash(options, strlen(options), h);
  snprintf(buf, 17, "%016" PRIx64, h);
}

static int run_shard(const verify_job_t *job, const char *spec) {
  cli_ctx_t *ctx = job->ctx;
  shard_t s = {0};
  if (!parse_shard(spec, &s.shard, &s.nshards)) {
    fprintf(ctx->err, "ismv: error: --shard takes I/N with 1 <= I <= N (e.g. 2/5), not '%s'\n", spec);
    return CLI_EXIT_USAGE;
  }
  if (job->opt->strategy != EXPLORE_INCREMENTAL) {
    fprintf(ctx->err,
            "ismv: error: --shard splits the incremental search; it cannot go with --strategy per-path\n");
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
  run_key(digest, strbuf_str(&options), depth, job->topk != NULL, key);
  pthread_mutex_init(&s.lock, NULL);
  strbuf_init(&s.parts);
  /* Without a split the whole search is one unit, shard 1's, which also
   * reports the counterexamples above the split. */
  bool owns_top = s.shard == 1;
  char *top_json = NULL, *top_cut = NULL;
  if (depth > 0 || owns_top) {
    verify_share_t share = {shard_next, shard_done, &s};
    top_json = verify_search_share(job, &share, owns_top, &s.failure, &top_cut);
  }
  if (top_cut) { /* the search above the split comes first */
    free(s.cut);
    s.cut = top_cut;
  }
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_printf(&sb, "{\n\"ismv_shard\": %d,\n\"shard\": %d,\n\"of\": %d,\n\"model\": ", VERIFY_SHARD_FORMAT,
                s.shard, s.nshards);
  strbuf_json_string(&sb, job->m->path);
  strbuf_printf(&sb, ",\n\"model_digest\": \"%s\",\n\"run\": \"%s\",\n\"options\": %s,\n", digest, key,
                strbuf_str(&options));
  strbuf_printf(&sb,
                "\"search\": \"%s\",\n\"split_depth\": %d,\n\"subtrees\": %zu,\n\"frontier\": \"%016" PRIx64
                "\",\n\"error\": ",
                job->topk ? "top-k" : "full", depth, s.nsubtrees, s.frontier);
  if (s.failure)
    strbuf_json_string(&sb, s.failure);
  else
    strbuf_puts(&sb, "null");
  strbuf_puts(&sb, ",\n\"cut_short\": ");
  if (s.cut)
    strbuf_json_string(&sb, s.cut);
  else
    strbuf_puts(&sb, "null");
  strbuf_printf(&sb, ",\n\"top_counterexamples\": %s,\n\"top\": %s,\n\"parts\": [%s]\n}\n",
                owns_top ? "true" : "false", top_json ? top_json : "null", strbuf_str(&s.parts));
  int rc = cli_write_output(ctx, strbuf_str(&sb));
  if (s.failure) fprintf(ctx->err, "ismv: internal error: %s\n", s.failure);
  fprintf(ctx->err, "ismv: shard %d of %d: %zu of %zu subtrees searched%s%s\n", s.shard, s.nshards, s.nparts,
          s.nsubtrees, s.cut ? "; cut short: " : "", s.cut ? s.cut : "");
  if (!rc) rc = s.failure ? CLI_EXIT_INTERNAL : s.cut ? CLI_EXIT_INCONCLUSIVE : CLI_EXIT_OK;
  free(top_json);
  free(s.cut);
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
                       explore_result_t *part, distribute_topk_t *topk) {
  char *why = distribute_read_part(node, job->m, index, part, topk);
  if (!why && topk->topk != (job->topk != NULL)) {
    why = xasprintf("a part of the %s search in a run of the %s search", topk->topk ? "top-K" : "full",
                    job->topk ? "top-K" : "full");
    explore_result_free(part);
  }
  if (!why) return NULL;
  char *msg = xasprintf("%s: %s", path, why);
  free(why);
  return msg;
}

/* Whether two parts' counts agree (the search above the split, the same in every shard). */
static bool same_counts(const explore_result_t *a, const explore_result_t *b) {
  return a->paths == b->paths && a->pruned == b->pruned && a->cut == b->cut && a->nstreamed == b->nstreamed &&
         a->solver_checks == b->solver_checks && a->extended_prefixes == b->extended_prefixes &&
         a->extended_failures == b->extended_failures && a->repaired_failures == b->repaired_failures &&
         a->repaired_prefixes == b->repaired_prefixes && a->alone_failures == b->alone_failures &&
         a->solver_prefixes == b->solver_prefixes && a->solver_failures == b->solver_failures;
}

/* Why shard i was cut short (its "cut_short"), or NULL. */
static const char *cut_short(const verify_merge_t *mg, int i) {
  const json_t *v = json_get(mg->shards[i], "cut_short");
  return v && v->kind == JSON_STRING ? v->text : NULL;
}

/* Whether shard i searched above the split in full (so it knows the subtrees). */
static bool top_complete(const verify_merge_t *mg, int i) {
  const json_t *top = json_get(mg->shards[i], "top");
  const json_t *reason = top && top->kind == JSON_OBJECT ? json_get(top, "reason") : NULL;
  return top && top->kind == JSON_OBJECT && reason && reason->kind == JSON_NULL;
}

/* The subtrees of the run, from the first shard that searched above the
 * split in full (none: 0); every other such shard must agree. */
static void subtree_count(const verify_job_t *job, size_t *n, char **why, int *code) {
  const verify_merge_t *mg = job->merge;
  int ref = -1;
  for (int i = 0; i < mg->nshards && !*why; i++) {
    const json_t *top = json_get(mg->shards[i], "top");
    if (top && top->kind != JSON_NULL && !top_complete(mg, i)) continue; /* cut short above the split */
    if (ref < 0) {
      double subtrees = json_num(mg->shards[i], "subtrees", -1);
      if (!(subtrees >= 0 && subtrees <= 1e8 && subtrees == (double)(size_t)subtrees))
        *why = xasprintf("%s: 'subtrees' is not a count", mg->paths[i]), *code = CLI_EXIT_INVALID;
      *n = (size_t)subtrees;
      ref = i;
    } else if (json_num(mg->shards[i], "subtrees", -1) != (double)*n ||
               strcmp(json_str(mg->shards[i], "frontier", ""), json_str(mg->shards[ref], "frontier", "")) !=
                   0) {
      *why = xasprintf("%s and %s split the search into other subtrees (a different machine's solver?)",
                       mg->paths[ref], mg->paths[i]);
      *code = CLI_EXIT_USAGE;
    }
  }
}

/* The reason of a merged run some of whose shards were cut short, naming them (caller frees). */
static char *cut_reason(const verify_merge_t *mg) {
  strbuf_t sb;
  strbuf_init(&sb);
  int ncut = 0, first = -1;
  for (int i = 0; i < mg->nshards; i++)
    if (cut_short(mg, i)) {
      strbuf_printf(&sb, "%s%d", ncut++ ? ", " : "", i + 1);
      if (first < 0) first = i;
    }
  char *reason = ncut ? xasprintf("shard%s %s of %d cut short (%s: %s)", ncut > 1 ? "s" : "", strbuf_str(&sb),
                                  mg->nshards, mg->paths[first], cut_short(mg, first))
                      : NULL;
  strbuf_free(&sb);
  return reason;
}

/* What the shards sent. The full search: shard 1's search above the split
 * (top) and every subtree's part, until all are in. The top-K search: the
 * counts of every part in top, their kept counterexamples in job->topk. */
typedef struct {
  explore_result_t top, *parts;
  distribute_topk_t top_topk, *topk;
  bool *have;
  size_t n;
} merge_parts_t;

/* Reads every shard's parts into mp (the search above the split from
 * shard 1, which holds its counterexamples); NULL or what is wrong. */
static char *read_shards(const verify_job_t *job, merge_parts_t *mp) {
  const verify_merge_t *mg = job->merge;
  char *why = NULL;
  explore_result_t counts = {0}; /* the first complete search above the split's (counts only) */
  int first = -1;
  for (int i = 0; i < mg->nshards && !why; i++) {
    const json_t *doc = mg->shards[i], *tnode = json_get(doc, "top");
    explore_result_t t = {0};
    distribute_topk_t tx;
    long index;
    if (tnode && tnode->kind != JSON_NULL && !(why = read_part(job, tnode, mg->paths[i], &index, &t, &tx))) {
      if (top_complete(mg, i) && first < 0)
        first = i, counts = (explore_result_t){.paths = t.paths,
                                               .pruned = t.pruned,
                                               .cut = t.cut,
                                               .nstreamed = t.nstreamed,
                                               .solver_checks = t.solver_checks,
                                               .extended_prefixes = t.extended_prefixes,
                                               .extended_failures = t.extended_failures,
                                               .repaired_failures = t.repaired_failures,
                                               .repaired_prefixes = t.repaired_prefixes,
                                               .alone_failures = t.alone_failures,
                                               .solver_prefixes = t.solver_prefixes,
                                               .solver_failures = t.solver_failures};
      else if (top_complete(mg, i) && !same_counts(&counts, &t))
        why = xasprintf("%s and %s searched above the split differently (a different machine's solver?)",
                        mg->paths[first], mg->paths[i]);
      if (i == 0 && job->topk) /* merged in the order read, as rank 0 does: the merge is order-free */
        verify_add_part(job, &mp->top, &t, &tx);
      else if (i == 0)
        mp->top = t, mp->top_topk = tx;
      else
        explore_result_free(&t);
    }
    const json_t *list = json_array(doc, "parts");
    for (size_t k = 0; list && k < list->len && !why; k++) {
      explore_result_t part;
      distribute_topk_t px;
      if ((why = read_part(job, list->items[k], mg->paths[i], &index, &part, &px))) break;
      if (index < 0 || (size_t)index >= mp->n || !distribute_shard_owns((size_t)index, i + 1, mg->nshards) ||
          mp->have[index]) {
        why = xasprintf("%s: subtree %ld is not one of shard %d of %d, or twice", mg->paths[i], index, i + 1,
                        mg->nshards);
        explore_result_free(&part);
        break;
      }
      if (job->topk)
        verify_add_part(job, &mp->top, &part, &px);
      else
        mp->parts[index] = part, mp->topk[index] = px;
      mp->have[index] = true;
    }
  }
  return why;
}

static int merged(const verify_job_t *job, explore_result_t *res) {
  const verify_merge_t *mg = job->merge;
  char digest[17], key[17];
  if (!model_digest(job->m->path, digest))
    return merge_error(job, CLI_EXIT_INVALID,
                       xasprintf("cannot read '%s': %s", job->m->path, strerror(errno)));
  if (strcmp(digest, json_str(mg->shards[0], "model_digest", "")) != 0)
    return merge_error(job, CLI_EXIT_USAGE,
                       xasprintf("the model '%s' has changed since the shards ran (digest %s, shards %s)",
                                 job->m->path, digest, json_str(mg->shards[0], "model_digest", "")));
  strbuf_t options;
  strbuf_init(&options);
  verify_options_json(&options, job->self, job->given);
  int depth = explore_split_depth(job->opt);
  run_key(digest, strbuf_str(&options), depth, job->topk != NULL, key);
  strbuf_free(&options);
  if (strcmp(key, json_str(mg->shards[0], "run", "")) != 0)
    return merge_error(job, CLI_EXIT_USAGE,
                       xasprintf("%s: its options do not give the run it records (edited?)", mg->paths[0]));
  merge_parts_t mp = {0};
  char *why = NULL;
  int code = CLI_EXIT_INVALID;
  subtree_count(job, &mp.n, &why, &code);
  if (why) return merge_error(job, code, why);
  mp.parts = xcalloc(mp.n + 1, sizeof *mp.parts);
  mp.topk = xcalloc(mp.n + 1, sizeof *mp.topk);
  mp.have = xcalloc(mp.n + 1, sizeof *mp.have);
  code = CLI_EXIT_INVALID;
  why = read_shards(job, &mp);
  for (size_t p = 0; p < mp.n && !why; p++) {
    int owner = (int)(p % (size_t)mg->nshards);
    if (!mp.have[p] && !cut_short(mg, owner)) { /* a shard cut short lacks what it did not reach */
      why = xasprintf("%s (shard %d of %d) lacks subtree %zu: it did not finish", mg->paths[owner], owner + 1,
                      mg->nshards, p);
      code = CLI_EXIT_INTERNAL;
    }
  }
  if (!why) {
    why = verify_assemble(job, &mp.top, &mp.top_topk, mp.parts, mp.topk, mp.n, res);
    if (why) code = CLI_EXIT_INTERNAL;
  }
  char *cut = why ? NULL : cut_reason(mg);
  if (cut) { /* the report names the shards that were cut short */
    free(res->reason_owned);
    res->reason = res->reason_owned = cut;
    if (!res->ncexs && !res->nstreamed) res->verdict = EXPLORE_INCONCLUSIVE;
  }
  if (why) {
    explore_result_free(&mp.top);
    for (size_t p = 0; p < mp.n; p++) explore_result_free(&mp.parts[p]);
    explore_result_free(res);
  }
  free(mp.parts), free(mp.topk), free(mp.have);
  return why ? merge_error(job, code, why) : -1;
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
