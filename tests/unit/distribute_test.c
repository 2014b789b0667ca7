/* Unit tests of verifier/paths/distribute.c and explore's distribution
 * hooks: the shard partition covers every subtree exactly once with shares
 * differing by at most one; a part written and read back is the same part,
 * bit for bit (±inf, nan, -0, subnormal values included) and writes the same
 * text again; malformed parts are errors naming what is wrong; and a run
 * whose subtrees are searched in two halves through next_subtree and
 * subtree_done finds the same counterexample paths, values and counts as
 * one run (the thermostat, bound 4, split at depth 2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/json.h"
#include "tests/unit/check.h"
#include "verifier/paths/distribute.h"

static void partition(void) {
  for (int nshards = 1; nshards <= 7; nshards++)
    for (size_t n = 0; n <= 50; n++) {
      size_t share_min = (size_t)-1, share_max = 0;
      for (int s = 1; s <= nshards; s++) {
        size_t share = 0;
        for (size_t p = 0; p < n; p++) share += distribute_shard_owns(p, s, nshards);
        if (share < share_min) share_min = share;
        if (share > share_max) share_max = share;
      }
      CHECK(share_max - share_min <= 1);
      for (size_t p = 0; p < n; p++) {
        int owners = 0;
        for (int s = 1; s <= nshards; s++) owners += distribute_shard_owns(p, s, nshards);
        CHECK(owners == 1);
      }
    }
  CHECK(!distribute_shard_owns(0, 0, 3) && !distribute_shard_owns(0, 4, 3));
}

static ism_model_t *load(void) {
  diag_list_t diags;
  diag_init(&diags);
  ism_model_t *m = ism_load("examples/thermostat/thermostat.yaml", &diags);
  diag_free(&diags);
  CHECK(m != NULL);
  return m;
}

static bool same_double(double a, double b) {
  return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

static bool same_cex(const cex_t *a, const cex_t *b, size_t nv) {
  if (a->length != b->length || a->nactions != b->nactions || a->fail_position != b->fail_position ||
      a->fail_action != b->fail_action || a->boundary_known != b->boundary_known ||
      a->boundary_only != b->boundary_only || a->has_probability != b->has_probability ||
      !same_double(a->probability, b->probability) ||
      !same_double(a->probability_error, b->probability_error))
    return false;
  size_t len = (size_t)a->length;
  if (memcmp(a->rules, b->rules, len * sizeof *a->rules) ||
      memcmp(a->states, b->states, (len + 1) * sizeof *a->states))
    return false;
  for (size_t k = 0; k < (len + 1) * nv; k++)
    if (!same_double(a->truth[k], b->truth[k])) return false;
  for (size_t k = 0; k < len * nv; k++)
    if (!same_double(a->sensed[k], b->sensed[k])) return false;
  for (size_t k = 0; k < a->nactions; k++) {
    const cex_action_t *x = &a->actions[k], *y = &b->actions[k];
    if (x->step != y->step || x->position != y->position || x->action != y->action) return false;
    for (size_t v = 0; v < nv; v++)
      if (!same_double(x->before[v], y->before[v]) || !same_double(x->after[v], y->after[v]) ||
          !same_double(x->actual[v], y->actual[v]) || x->has_actual[v] != y->has_actual[v])
        return false;
  }
  return true;
}

static char *text_of(const ism_model_t *m, long index, const explore_result_t *part,
                     const distribute_topk_t *topk) {
  strbuf_t sb;
  strbuf_init(&sb);
  distribute_write_part(&sb, m, index, part, topk);
  return strbuf_take(&sb);
}

/* Reads text back as a part: NULL and *part filled, or the error. */
static char *read_text(const ism_model_t *m, const char *text, long *index, explore_result_t *part,
                       distribute_topk_t *topk) {
  diag_list_t diags;
  diag_init(&diags);
  json_doc_t *doc = json_parse("part", text, &diags);
  char *why = doc ? distribute_read_part(doc->root, m, index, part, topk) : xstrdup("not JSON");
  if (doc) json_free(doc);
  diag_free(&diags);
  return why;
}

static void round_trip(ism_model_t *m) {
  explore_options_t opt = {
      .bound = 3, .mode = ISM_MODE_ACTUAL, .strategy = EXPLORE_INCREMENTAL, .split_depth = 0};
  explore_result_t res;
  explore_run(m, &opt, &res);
  CHECK(res.ncexs >= 2);
  if (res.ncexs < 2) return;
  /* values no solver gives, but the writer must carry */
  res.cexs[0].truth[0] = -0.0;
  res.cexs[0].sensed[0] = 4.9e-324;
  res.cexs[0].has_probability = true;
  res.cexs[0].probability = 0.1;
  res.cexs[0].probability_error = INFINITY;
  res.cexs[1].probability = NAN;
  res.cexs[1].probability_error = -INFINITY;
  res.cexs[1].truth[1] = 1e308;
  res.reason = "the time budget is exhausted";
  res.cut = 123, res.nstreamed = 45; /* a top-K part's */
  distribute_topk_t topk = {true, 6, true}, topk_back;
  char *text = text_of(m, 17, &res, &topk);
  explore_result_t back;
  long index = 0;
  char *why = read_text(m, text, &index, &back, &topk_back);
  CHECK(why == NULL);
  if (why) fprintf(stderr, "  %s\n", why);
  CHECK(index == 17);
  CHECK(back.ncexs == res.ncexs && back.paths == res.paths && back.pruned == res.pruned &&
        back.solver_checks == res.solver_checks && back.solver_failures == res.solver_failures &&
        back.alone_failures == res.alone_failures);
  CHECK(back.cut == 123 && back.nstreamed == 45);
  CHECK(topk_back.topk && topk_back.found_boundary_only == 6 && topk_back.unranked);
  CHECK_STREQ(back.reason, "the time budget is exhausted");
  for (size_t k = 0; k < res.ncexs && k < back.ncexs; k++)
    CHECK(same_cex(&res.cexs[k], &back.cexs[k], m->nvars));
  char *again = text_of(m, 17, &back, &topk_back);
  CHECK_STREQ(again, text);
  free(again);
  explore_result_free(&back);

  /* malformed: each is an error naming the problem, and leaves the part empty */
  struct {
    const char *from, *to, *want;
  } cases[] = {
      {"\"rules\":[", "\"rules\":[999,", "out of range"},
      {"\"truth\":[", "\"truth\":[1,", "wrong length"},
      {"\"paths\":", "\"pathz\":", "'paths' is missing"},
      {"\"fail_action\":", "\"fail_action\":1e9,\"x\":", "out of range"},
      {"\"found_boundary_only\":", "\"found_boundary_only\":-1,\"x\":", "out of range"},
      {"\"topk\":", "\"topk\":1,\"x\":", "'topk' must be an object"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    const char *at = strstr(text, cases[c].from);
    CHECK(at != NULL);
    if (!at) continue;
    char *bad = xasprintf("%.*s%s%s", (int)(at - text), text, cases[c].to, at + strlen(cases[c].from));
    why = read_text(m, bad, &index, &back, &topk_back);
    CHECK(why && strstr(why, cases[c].want));
    if (why && !strstr(why, cases[c].want)) fprintf(stderr, "  case %zu: %s\n", c, why);
    CHECK(back.ncexs == 0 && back.cexs == NULL);
    free(why);
    free(bad);
  }
  free(text);
  res.reason = NULL;
  explore_result_free(&res);
}

/* Takes the subtrees of one parity and collects their results. */
typedef struct {
  int parity;
  long next;
  explore_result_t got;
  size_t subtrees;
} half_t;

static long take_half(void *ctx, size_t n, const int *prefixes, int depth) {
  (void)prefixes, (void)depth;
  half_t *h = ctx;
  if (h->next < 0) h->next = h->parity;
  long p = h->next;
  h->next += 2;
  return (size_t)p < n ? p : -1;
}

static void collect(void *ctx, size_t index, explore_result_t *part) {
  (void)index;
  half_t *h = ctx;
  h->subtrees++;
  explore_result_add(&h->got, part);
}

static int by_path(const void *pa, const void *pb) {
  const cex_t *a = pa, *b = pb;
  for (int k = 0; k < a->length && k < b->length; k++)
    if (a->rules[k] != b->rules[k]) return a->rules[k] < b->rules[k] ? -1 : 1;
  return (a->length > b->length) - (a->length < b->length);
}

static void halves(ism_model_t *m) {
  explore_options_t opt = {
      .bound = 4, .mode = ISM_MODE_ACTUAL, .strategy = EXPLORE_INCREMENTAL, .split_depth = 2, .jobs = 2};
  CHECK(explore_split_depth(&opt) == 2);
  explore_result_t whole, top[2];
  explore_run(m, &opt, &whole);
  half_t h[2] = {{0, -1, {0}, 0}, {1, -1, {0}, 0}};
  for (int k = 0; k < 2; k++) {
    explore_options_t o = opt;
    o.jobs = 1; /* take_half keeps no lock */
    o.next_subtree = take_half, o.subtree_done = collect, o.subtree_ctx = &h[k];
    explore_run(m, &o, &top[k]);
  }
  CHECK(top[0].paths == top[1].paths && top[0].ncexs == top[1].ncexs);
  CHECK(h[0].subtrees + h[1].subtrees >= 4);
  explore_result_t all = {0};
  explore_result_add(&all, &top[0]);
  explore_result_free(&top[1]);
  explore_result_add(&all, &h[0].got);
  explore_result_add(&all, &h[1].got);
  qsort(all.cexs, all.ncexs, sizeof *all.cexs, by_path);
  CHECK(all.paths == whole.paths && all.pruned == whole.pruned && all.solver_checks == whole.solver_checks);
  CHECK(all.ncexs == whole.ncexs);
  for (size_t k = 0; k < all.ncexs && k < whole.ncexs; k++)
    CHECK(same_cex(&all.cexs[k], &whole.cexs[k], m->nvars));
  explore_result_free(&all);
  explore_result_free(&whole);
}

int main(void) {
  partition();
  ism_model_t *m = load();
  if (m) {
    round_trip(m);
    halves(m);
    ism_free(m);
  }
  return CHECK_RESULT();
}
