#include "verifier/paths/distribute.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

bool distribute_shard_owns(size_t index, int shard, int nshards) {
  return nshards >= 1 && shard >= 1 && shard <= nshards && index % (size_t)nshards == (size_t)(shard - 1);
}

uint64_t distribute_hash(const void *data, size_t n, uint64_t h) {
  const unsigned char *p = data;
  for (size_t k = 0; k < n; k++) h = (h ^ p[k]) * 1099511628211ULL;
  return h;
}

/* ---- writing ---- */

static void put_double(strbuf_t *sb, double x) {
  if (x == 0 && signbit(x)) /* strbuf_json_number writes 0: a report may show "-0" */
    strbuf_puts(sb, "-0");
  else if (isfinite(x))
    strbuf_json_number(sb, x);
  else
    strbuf_puts(sb, isnan(x) ? "\"nan\"" : x > 0 ? "\"inf\"" : "\"-inf\"");
}

static void put_doubles(strbuf_t *sb, const double *xs, size_t n) {
  strbuf_putc(sb, '[');
  for (size_t k = 0; k < n; k++) {
    if (k) strbuf_putc(sb, ',');
    put_double(sb, xs[k]);
  }
  strbuf_putc(sb, ']');
}

static void put_ints(strbuf_t *sb, const int *xs, size_t n) {
  strbuf_putc(sb, '[');
  for (size_t k = 0; k < n; k++) strbuf_printf(sb, k ? ",%d" : "%d", xs[k]);
  strbuf_putc(sb, ']');
}

static void put_cex(strbuf_t *sb, size_t nv, const cex_t *c) {
  size_t len = (size_t)c->length;
  strbuf_puts(sb, "{\"rules\":");
  put_ints(sb, c->rules, len);
  strbuf_puts(sb, ",\"states\":");
  put_ints(sb, c->states, len + 1);
  strbuf_puts(sb, ",\"truth\":");
  put_doubles(sb, c->truth, (len + 1) * nv);
  strbuf_puts(sb, ",\"sensed\":");
  put_doubles(sb, c->sensed, len * nv);
  strbuf_puts(sb, ",\"actions\":[");
  for (size_t k = 0; k < c->nactions; k++) {
    const cex_action_t *a = &c->actions[k];
    strbuf_printf(sb, "%s{\"step\":%d,\"position\":%d,\"action\":%d,\"before\":", k ? "," : "", a->step,
                  a->position, a->action);
    put_doubles(sb, a->before, nv);
    strbuf_puts(sb, ",\"after\":");
    put_doubles(sb, a->after, nv);
    strbuf_puts(sb, ",\"actual\":");
    put_doubles(sb, a->actual, nv);
    strbuf_puts(sb, ",\"has_actual\":[");
    for (size_t v = 0; v < nv; v++) strbuf_printf(sb, v ? ",%d" : "%d", a->has_actual[v]);
    strbuf_puts(sb, "]}");
  }
  strbuf_printf(sb,
                "],\"fail_position\":%d,\"fail_action\":%d,\"boundary_known\":%s,\"boundary_only\":%s,"
                "\"has_probability\":%s,\"probability\":",
                c->fail_position, c->fail_action, c->boundary_known ? "true" : "false",
                c->boundary_only ? "true" : "false", c->has_probability ? "true" : "false");
  put_double(sb, c->probability);
  strbuf_puts(sb, ",\"probability_error\":");
  put_double(sb, c->probability_error);
  strbuf_putc(sb, '}');
}

void distribute_write_part(strbuf_t *sb, const ism_model_t *m, long index, const explore_result_t *part,
                           const distribute_topk_t *topk) {
  strbuf_printf(
      sb,
      "{\"index\":%ld,\"paths\":%llu,\"pruned\":%llu,\"cut\":%llu,\"found\":%zu,\"solver_checks\":%llu,"
      "\"extended_prefixes\":%llu,\"extended_failures\":%llu,\"repaired_prefixes\":%llu,"
      "\"repaired_failures\":%llu,\"alone_failures\":%llu,\"solver_prefixes\":%llu,\"solver_failures\":%llu,"
      "\"seconds\":",
      index, part->paths, part->pruned, part->cut, part->nstreamed, part->solver_checks,
      part->extended_prefixes, part->extended_failures, part->repaired_prefixes, part->repaired_failures,
      part->alone_failures, part->solver_prefixes, part->solver_failures);
  put_double(sb, part->seconds);
  strbuf_puts(sb, ",\"reason\":");
  if (part->reason)
    strbuf_json_string(sb, part->reason);
  else
    strbuf_puts(sb, "null");
  if (topk && topk->topk)
    strbuf_printf(sb, ",\"topk\":{\"found_boundary_only\":%llu,\"unranked\":%s}", topk->found_boundary_only,
                  topk->unranked ? "true" : "false");
  strbuf_puts(sb, ",\"counterexamples\":[");
  for (size_t k = 0; k < part->ncexs; k++) {
    if (k) strbuf_puts(sb, ",\n");
    put_cex(sb, m->nvars, &part->cexs[k]);
  }
  strbuf_puts(sb, "]}");
}

/* ---- reading ---- */

typedef struct {
  char *why; /* the first problem, or NULL */
} reader_t;

static void bad(reader_t *r, const json_t *at, const char *what) {
  if (r->why) return;
  r->why = at ? xasprintf("%d:%d: %s", at->loc.line, at->loc.col, what) : xstrdup(what);
}

static const json_t *field(reader_t *r, const json_t *o, const char *key, json_kind_t kind) {
  const json_t *v = json_get(o, key);
  if (!v || v->kind != kind) {
    char *msg = xasprintf("'%s' is missing or of the wrong type", key);
    bad(r, o, msg);
    free(msg);
    return NULL;
  }
  return v;
}

static double get_double(reader_t *r, const json_t *v) {
  if (v && v->kind == JSON_NUMBER) return v->number;
  if (v && v->kind == JSON_STRING) {
    if (strcmp(v->text, "inf") == 0) return INFINITY;
    if (strcmp(v->text, "-inf") == 0) return -INFINITY;
    if (strcmp(v->text, "nan") == 0) return NAN;
  }
  bad(r, v, "expected a number");
  return 0;
}

static long long get_int(reader_t *r, const json_t *o, const char *key, long long lo, long long hi) {
  const json_t *v = field(r, o, key, JSON_NUMBER);
  if (!v) return lo;
  double x = v->number;
  if (!(x >= (double)lo && x <= (double)hi) || x != floor(x)) {
    char *msg = xasprintf("'%s' is out of range", key);
    bad(r, v, msg);
    free(msg);
    return lo;
  }
  return (long long)x;
}

static bool get_bool(reader_t *r, const json_t *o, const char *key) {
  const json_t *v = field(r, o, key, JSON_BOOL);
  return v && v->boolean;
}

/* An array of exactly n numbers into a fresh array of n + 1 doubles. */
static double *doubles(reader_t *r, const json_t *o, const char *key, size_t n) {
  double *out = xcalloc(n + 1, sizeof *out);
  const json_t *a = field(r, o, key, JSON_ARRAY);
  if (a && a->len != n) bad(r, a, "an array of the wrong length");
  for (size_t k = 0; a && k < a->len && k < n; k++) out[k] = get_double(r, a->items[k]);
  return out;
}

static int *ints(reader_t *r, const json_t *o, const char *key, size_t n, long long hi) {
  int *out = xcalloc(n + 1, sizeof *out);
  const json_t *a = field(r, o, key, JSON_ARRAY);
  if (a && a->len != n) bad(r, a, "an array of the wrong length");
  for (size_t k = 0; a && k < a->len && k < n; k++) {
    const json_t *v = a->items[k];
    if (v->kind != JSON_NUMBER || !(v->number >= 0 && v->number < (double)hi) ||
        v->number != floor(v->number))
      bad(r, v, "an id out of range");
    else
      out[k] = (int)v->number;
  }
  return out;
}

static void read_cex(reader_t *r, const json_t *o, const ism_model_t *m, cex_t *c) {
  size_t nv = m->nvars;
  const json_t *rules = field(r, o, "rules", JSON_ARRAY);
  size_t len = rules ? rules->len : 0;
  if (rules && (len < 1 || len > 100000)) bad(r, rules, "a path of no rules");
  if (r->why) len = 0;
  c->length = (int)len;
  c->rules = ints(r, o, "rules", len, (long long)m->nrules);
  c->states = ints(r, o, "states", len + 1, (long long)m->nstates);
  c->truth = doubles(r, o, "truth", (len + 1) * nv);
  c->sensed = doubles(r, o, "sensed", len * nv);
  const json_t *acts = field(r, o, "actions", JSON_ARRAY);
  c->nactions = acts && !r->why ? acts->len : 0;
  c->actions = xcalloc(c->nactions + 1, sizeof *c->actions);
  for (size_t k = 0; k < c->nactions; k++) {
    const json_t *a = acts->items[k];
    cex_action_t *ca = &c->actions[k];
    ca->step = (int)get_int(r, a, "step", 0, (long long)len - 1);
    ca->position = (int)get_int(r, a, "position", 0, 1000000);
    ca->action = (int)get_int(r, a, "action", 0, (long long)m->nactions - 1);
    ca->before = doubles(r, a, "before", nv);
    ca->after = doubles(r, a, "after", nv);
    ca->actual = doubles(r, a, "actual", nv);
    ca->has_actual = xcalloc(nv + 1, sizeof *ca->has_actual);
    int *flags = ints(r, a, "has_actual", nv, 2);
    for (size_t v = 0; v < nv; v++) ca->has_actual[v] = flags[v] != 0;
    free(flags);
  }
  c->fail_position = (int)get_int(r, o, "fail_position", -1, 1000000);
  c->fail_action = (int)get_int(r, o, "fail_action", -1, (long long)m->nactions - 1);
  c->boundary_known = get_bool(r, o, "boundary_known");
  c->boundary_only = get_bool(r, o, "boundary_only");
  c->has_probability = get_bool(r, o, "has_probability");
  c->probability = get_double(r, json_get(o, "probability"));
  c->probability_error = get_double(r, json_get(o, "probability_error"));
}

char *distribute_read_part(const json_t *node, const ism_model_t *m, long *index, explore_result_t *part,
                           distribute_topk_t *topk) {
  reader_t r = {0};
  memset(part, 0, sizeof *part);
  if (topk) *topk = (distribute_topk_t){0};
  if (!node || node->kind != JSON_OBJECT) {
    bad(&r, node, "a part of the search must be an object");
    return r.why;
  }
  *index = (long)get_int(&r, node, "index", -1, 1LL << 40);
  part->paths = (unsigned long long)get_int(&r, node, "paths", 0, 1LL << 62);
  part->pruned = (unsigned long long)get_int(&r, node, "pruned", 0, 1LL << 62);
  part->cut = (unsigned long long)get_int(&r, node, "cut", 0, 1LL << 62);
  part->nstreamed = (size_t)get_int(&r, node, "found", 0, 1LL << 50);
  part->solver_checks = (unsigned long long)get_int(&r, node, "solver_checks", 0, 1LL << 62);
  part->extended_prefixes = (unsigned long long)get_int(&r, node, "extended_prefixes", 0, 1LL << 62);
  part->extended_failures = (unsigned long long)get_int(&r, node, "extended_failures", 0, 1LL << 62);
  part->repaired_failures = (unsigned long long)get_int(&r, node, "repaired_failures", 0, 1LL << 62);
  part->repaired_prefixes = (unsigned long long)get_int(&r, node, "repaired_prefixes", 0, 1LL << 62);
  part->alone_failures = (unsigned long long)get_int(&r, node, "alone_failures", 0, 1LL << 62);
  part->solver_prefixes = (unsigned long long)get_int(&r, node, "solver_prefixes", 0, 1LL << 62);
  part->solver_failures = (unsigned long long)get_int(&r, node, "solver_failures", 0, 1LL << 62);
  part->seconds = get_double(&r, json_get(node, "seconds"));
  const json_t *reason = json_get(node, "reason");
  if (reason && reason->kind == JSON_STRING)
    part->reason = strcmp(reason->text, EXPLORE_INTERRUPTED) == 0 /* the reason compared by pointer */
                       ? EXPLORE_INTERRUPTED
                       : (part->reason_owned = xstrdup(reason->text));
  else if (!reason || reason->kind != JSON_NULL)
    bad(&r, node, "'reason' must be a string or null");
  const json_t *extra = json_get(node, "topk");
  if (extra && extra->kind != JSON_OBJECT) bad(&r, extra, "'topk' must be an object");
  if (extra && extra->kind == JSON_OBJECT && topk) {
    topk->topk = true;
    topk->found_boundary_only = (unsigned long long)get_int(&r, extra, "found_boundary_only", 0, 1LL << 50);
    topk->unranked = get_bool(&r, extra, "unranked");
  }
  const json_t *cexs = field(&r, node, "counterexamples", JSON_ARRAY);
  size_t n = cexs && !r.why ? cexs->len : 0;
  part->cexs = xcalloc(n + 1, sizeof *part->cexs);
  for (size_t k = 0; k < n && !r.why; k++) {
    if (cexs->items[k]->kind != JSON_OBJECT) {
      bad(&r, cexs->items[k], "a counterexample must be an object");
      break;
    }
    read_cex(&r, cexs->items[k], m, &part->cexs[k]);
    part->ncexs = k + 1;
  }
  if (r.why) explore_result_free(part);
  return r.why;
}
