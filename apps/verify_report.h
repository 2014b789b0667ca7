/* Renders the result of `ismv verify` (and the counterexamples `simulate`
 * replays) as text, JSON, SARIF 2.1.0 or JUnit XML. Deterministic: no
 * times unless asked for, stable order. */
#ifndef APPS_VERIFY_REPORT_H
#define APPS_VERIFY_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "apps/json_envelope.h"
#include "apps/verify_keep.h"
#include "ism/ism.h"
#include "ism/strbuf.h"
#include "verifier/paths/explore.h"

typedef struct {
  const ism_model_t *m;
  const explore_options_t *opt;
  const explore_result_t *res;
  size_t shown;   /* counterexamples rendered: the first `shown` of the list */
  bool timings;   /* include seconds */
  size_t dropped; /* counterexamples below min_prob, after the first `shown + ...` kept ones */
  double min_prob;
  bool joint;    /* probabilities from the joint estimator */
  bool unranked; /* --probability none: the list is in the order found (depth-first), not by probability */
  bool classes_view; /* text: the failure classes and the most likely counterexample of each, not every one */
  /* Top-K search (apps/verify_topk.h): res->cexs holds only what the report
   * shows (the most likely of each class, the first --top), and the totals
   * are not known: found counts what the search met before it cut the rest. */
  bool topk;
  size_t found, found_boundary_only;
  size_t
      bounded; /* of those found, not ranked: their bound (probability/bound.h) could not enter the report */
  /* NULL: res->cexs is the report's whole list. Else res->cexs is empty and
   * the list (its totals, classes, and every counterexample the report
   * prints) is keep's (apps/verify_keep.h). */
  const verify_keep_t *keep;
} verify_report_t;

/* The report in `format` ("text", "json", "sarif", "junit"); caller frees. */
char *verify_render(const verify_report_t *rep, const char *format);

/* Streaming JSON (verify --all): begin, then each counterexample as it
 * comes (index from 0; rep->shown unused), then the end, which reads the
 * final verdict, counts and stats from rep (res->nstreamed, rep->dropped,
 * rep->shown = how many were written). Same fields as the JSON report,
 * with those known only at the end after the counterexamples: the
 * envelope's head at the beginning, its verdict and exit code (from e) at
 * the end. The JSON report of verify_render has no "verdict": the command
 * adds the envelope (json_envelope_write). */
void verify_stream_begin(strbuf_t *sb, const verify_report_t *rep, const json_envelope_t *e);
void verify_stream_cex(strbuf_t *sb, const verify_report_t *rep, size_t index, const cex_t *c);
/* The same in two halves: the object after its id (reads rep->m only, so
 * threads may render at once), and what goes before it once its index is
 * known; head then text is verify_stream_cex. */
void verify_stream_cex_text(strbuf_t *sb, const verify_report_t *rep, const cex_t *c);
void verify_stream_cex_head(strbuf_t *sb, size_t index);
void verify_stream_end(strbuf_t *sb, const verify_report_t *rep, const json_envelope_t *e);

/* "A --r0--> A --r1--> B" */
void verify_path_text(strbuf_t *sb, const ism_model_t *m, const cex_t *c);
/* A value as text: bools as true/false, ints without fraction, reals with %.6g. */
void verify_value_text(strbuf_t *sb, const ism_var_t *v, double x);

#endif
