/* Unit test of explore's streaming in two halves (on_cex_render in the
 * thread that found a counterexample, on_cex_text in report order): on the
 * explorer at bound 5, split at depth 2 on 2 and 3 threads, the texts come
 * in the order and with the content of the counterexamples of a run that
 * keeps them in memory (res->cexs, depth-first order, the other route),
 * with spools of 1 byte (every waiting text goes through a temporary file)
 * and of the default size; the counts agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/strbuf.h"
#include "ism/vec.h"
#include "tests/unit/check.h"
#include "tests/unit/model.h"
#include "verifier/paths/explore.h"

typedef struct {
  const ism_model_t *m;
  VEC(char *) texts;
} sink_t;

/* The path, the failing action and the first true value: what the search
 * found, independent of the thread (values are the solver's of the
 * subtree, which does not depend on the thread either). */
static char *describe(const ism_model_t *m, const cex_t *c) {
  strbuf_t sb;
  strbuf_init(&sb);
  for (int k = 0; k < c->length; k++) strbuf_printf(&sb, "%s ", m->rules[c->rules[k]].id);
  strbuf_printf(&sb, "fails at %d, %.17g", c->fail_position, c->truth[0]);
  return sb.data;
}

static char *render(void *ctx, cex_t *c) {
  sink_t *s = ctx;
  char *t = describe(s->m, c);
  cex_free(c);
  return t;
}

static void text(void *ctx, const char *t) {
  sink_t *s = ctx;
  VEC_PUSH(&s->texts, xstrdup(t));
}

static explore_options_t options(int jobs) {
  return (explore_options_t){
      .bound = 5, .mode = ISM_MODE_ACTUAL, .strategy = EXPLORE_INCREMENTAL, .jobs = jobs, .split_depth = 2};
}

int main(void) {
  ism_model_t *m = load("examples/robotcar/explorer.yaml");
  explore_options_t whole_opt = options(1);
  explore_result_t whole;
  explore_run(m, &whole_opt, &whole);
  CHECK(whole.ncexs > 100); /* teeth: many subtrees with several counterexamples each */
  for (int jobs = 2; jobs <= 3; jobs++)
    for (size_t spool = 1; spool <= 2; spool++) {
      sink_t sink = {m, {0}};
      explore_options_t opt = options(jobs);
      opt.on_cex_render = render;
      opt.on_cex_text = text;
      opt.on_cex_ctx = &sink;
      opt.spool_memory = spool == 1 ? 1 : 0;
      explore_result_t res;
      explore_run(m, &opt, &res);
      CHECK(res.ncexs == 0 && !res.replay_failed);
      CHECK(res.nstreamed == whole.ncexs && sink.texts.len == whole.ncexs);
      CHECK(res.paths == whole.paths && res.verdict == whole.verdict);
      for (size_t k = 0; k < sink.texts.len && k < whole.ncexs; k++) {
        char *want = describe(m, &whole.cexs[k]);
        CHECK(strcmp(sink.texts.data[k], want) == 0);
        free(want);
      }
      for (size_t k = 0; k < sink.texts.len; k++) free(sink.texts.data[k]);
      VEC_FREE(&sink.texts);
      explore_result_free(&res);
    }
  explore_result_free(&whole);
  ism_free(m);
  return CHECK_RESULT();
}
