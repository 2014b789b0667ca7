/* Unit tests of LTSA's FSP constructs beyond plain composition: action
 * priority (<< and >>). Every expected LTS here was worked out by hand from
 * LTSA's definitions (Magee & Kramer, "Concurrency", appendix A), written
 * as its transitions "src label dst" in the order the LTS core numbers
 * states (breadth-first from 0, labels in the order they first occur). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/terminal.h"
#include "tests/unit/check.h"

/* The transitions of `proc` (NULL: the last process) of `text`, one
 * "src label dst" per line, or the first error message. */
static char *transitions(const char *text, const char *proc) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f = fsp_parse_string("t.lts", text, &L, &d);
  lts_t *l = f ? fsp_compile(f, proc ? proc : fsp_last_process(f), &d) : NULL;
  strbuf_t sb;
  strbuf_init(&sb);
  if (!l)
    strbuf_printf(&sb, "%d:%d: %s", d.count ? d.items[0].loc.line : 0, d.count ? d.items[0].loc.col : 0,
                  d.count ? d.items[0].message : "no error");
  else
    for (int s = 0; s < l->nstates; s++)
      for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++)
        strbuf_printf(&sb, "%d %s %d\n", s, lts_label_name(&L, l->succ_label[i]), l->succ_dst[i]);
  lts_free(l);
  fsp_free(f);
  diag_free(&d);
  lts_labels_free(&L);
  return strbuf_take(&sb);
}

static void expect_lts(const char *text, const char *proc, const char *want) {
  char *got = transitions(text, proc);
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "for %s (%s)\n  want:\n%s\n  got:\n%s\n", text, proc ? proc : "last", want, got);
    check_failures++;
  }
  free(got);
}

static void priority(void) {
  const char *p = "P = (a -> b -> P | c -> P).\n"
                  "||PLAIN = (P).\n"
                  "||HI = (P) << {a}.\n"
                  "||LO = (P) >> {a}.\n"
                  "||HI1 = P << {a}.\n";
  expect_lts(p, "PLAIN", "0 a 1\n0 c 0\n1 b 0\n");
  /* a is enabled in 0, so c goes; in 1 only b is enabled */
  expect_lts(p, "HI", "0 a 1\n1 b 0\n");
  expect_lts(p, "HI1", "0 a 1\n1 b 0\n");
  /* c (high) is enabled in 0, so a goes, and 1 is unreachable */
  expect_lts(p, "LO", "0 c 0\n");

  /* τ is low under <<, high under >> */
  const char *t = "A = (x -> y -> A)\\{x}.\n"
                  "B = (y -> B | z -> B).\n"
                  "||AB = (A || B).\n"
                  "||LOZ = (A || B) >> {z}.\n"
                  "||HIZ = (A || B) << {z}.\n"
                  "||HIY = (A || B) << {y}.\n";
  expect_lts(t, "AB", "0 tau 1\n0 z 0\n1 y 0\n1 z 1\n");
  expect_lts(t, "LOZ", "0 tau 1\n1 y 0\n");
  expect_lts(t, "HIZ", "0 z 0\n");
  /* y is not enabled in 0: τ and z stay; in 1 y is, so z goes */
  expect_lts(t, "HIY", "0 tau 1\n0 z 0\n1 y 0\n");

  /* a composite with a priority is composed before it is used: LO alone
   * never does a; flattened into (P || R) >> {a} it would do c, a, b */
  const char *n = "P = (a -> b -> P | c -> P).\n"
                  "||LO = (P) >> {a}.\n"
                  "R = (c -> STOP).\n"
                  "||OUTER = (LO || R).\n"
                  "||FLAT = (P || R) >> {a}.\n";
  expect_lts(n, "OUTER", "0 c 1\n");
  expect_lts(n, "FLAT", "0 c 1\n1 a 2\n2 b 1\n");

  /* prefix matching, as LTSA: {p} names p.a, p.b and p.c */
  const char *m = "P = (a -> b -> P | c -> P).\n"
                  "||ALL = (p:P) << {p}.\n"
                  "||ONE = (p:P) << {p.a}.\n";
  expect_lts(m, "ALL", "0 p.a 1\n0 p.c 0\n1 p.b 0\n");
  expect_lts(m, "ONE", "0 p.a 1\n1 p.b 0\n");

  /* then hiding */
  expect_lts("P = (a -> b -> P | c -> P).\n||H = (P) << {a} \\ {b}.\n", NULL, "0 a 1\n1 tau 0\n");
  expect_lts("P = (a -> P) << {a}.\n", NULL,
             "1:14: a priority '<<' applies to a composite (||NAME = ...), not to a primitive process");
}

/* Checks every progress property of `text` on its last process: `want`
 * has one line per property, "NAME holds" or "NAME: trace -> {actions}". */
static void expect_progress(const char *text, const char *want) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f = fsp_parse_string("t.lts", text, &L, &d);
  lts_t *l = f ? fsp_compile(f, fsp_last_process(f), &d) : NULL;
  strbuf_t sb;
  strbuf_init(&sb);
  if (!l) strbuf_printf(&sb, "error: %s", d.count ? d.items[0].message : "?");
  terminal_sets_t t = {0};
  lts_bfs_t bfs = {0};
  if (l) {
    terminal_sets(l, &t);
    lts_bfs(l, &bfs);
  }
  for (size_t i = 0; l && i < fsp_progress_count(f); i++) {
    const fsp_progress_t *p = fsp_progress_at(f, i);
    int acts[16], cond[16];
    for (size_t k = 0; k < p->nactions && k < 16; k++) acts[k] = lts_label_find(&L, p->actions[k]);
    for (size_t k = 0; k < p->ncond && k < 16; k++) cond[k] = lts_label_find(&L, p->cond[k]);
    int k = terminal_progress_violation(l, &t, acts, (int)p->nactions, cond, (int)p->ncond, p->cond != NULL);
    if (k < 0) {
      strbuf_printf(&sb, "%s holds\n", p->name);
      continue;
    }
    int len, n;
    int *trace = lts_bfs_trace(&bfs, l, t.first[k], &len);
    int *in = terminal_actions(l, &t, k, &n);
    strbuf_printf(&sb, "%s:", p->name);
    for (int j = 0; j < len; j++) strbuf_printf(&sb, " %s", lts_label_name(&L, trace[j]));
    strbuf_puts(&sb, " -> {");
    for (int j = 0; j < n; j++) strbuf_printf(&sb, "%s%s", j ? ", " : "", lts_label_name(&L, in[j]));
    strbuf_puts(&sb, "}\n");
    free(trace);
    free(in);
  }
  CHECK_STREQ(strbuf_str(&sb), want);
  strbuf_free(&sb);
  if (l) {
    terminal_sets_free(&t);
    lts_bfs_free(&bfs);
  }
  lts_free(l);
  fsp_free(f);
  diag_free(&d);
  lts_labels_free(&L);
}

static void progress(void) {
  /* Magee & Kramer 7.2: the trick coin's terminal set {toss, heads} never
   * does tails; the fair coin's does both */
  const char *coins = "TWOCOIN = (pick -> COIN | pick -> TRICK),\n"
                      "TRICK = (toss -> heads -> TRICK),\n"
                      "COIN = (toss -> heads -> COIN | toss -> tails -> COIN).\n"
                      "progress HEADS = {heads}\n"
                      "progress TAILS = {tails}\n"
                      "progress HT = if {heads} then {tails}\n"
                      "progress TH = if {tails} then {heads}\n"
                      "progress EITHER = {heads, tails}.\n";
  expect_progress(coins, "HEADS holds\nTAILS: pick -> {toss, heads}\nHT: pick -> {toss, heads}\nTH holds\n"
                         "EITHER holds\n");
  /* two non-terminal components before the terminal one {e} */
  expect_progress("P = (a -> P | b -> Q), Q = (c -> Q | d -> R), R = (e -> R).\n"
                  "progress C = {c}\nprogress E = {e}\n",
                  "C: b d -> {e}\nE holds\n");
  /* a deadlock is a terminal set without actions (as LTSA) */
  expect_progress("P = (a -> b -> STOP | c -> P).\nprogress A = {a}\nprogress IFA = if {a} then {b}\n",
                  "A: a b -> {}\nIFA holds\n");
  /* a set with a transition to the error state is not terminal: no set here */
  expect_progress("P = (a -> P | b -> ERROR).\nprogress C = {c}\n", "C holds\n");
  /* indexed: one property per value */
  expect_progress("P = (x[1] -> P | y -> Q), Q = (x[2] -> Q).\nprogress X[i:1..2] = {x[i]}\n",
                  "X[1]: y -> {x[2]}\nX[2] holds\n");
  /* an action no process has never occurs */
  expect_progress("P = (a -> P).\nprogress Z = {z}\n", "Z: -> {a}\n");
  /* a label that is only a set value is that value (it was ".x") */
  expect_lts("P = ([s:{x,y}] -> P).\n", NULL, "0 x 0\n0 y 0\n");
  expect_progress("P = (pick -> Q | pick -> R), Q = (x -> Q | y -> Q), R = (x -> R).\n"
                  "progress SIDE[s:{x,y}] = {[s]}\n",
                  "SIDE.x holds\nSIDE.y: pick -> {x}\n");
  expect_lts("P = (a -> P).\nprogress X = if {a} {b}\n", NULL, "2:21: expected 'then', found '{'");
  expect_lts("P = (a -> P).\nprogress X = {a}\nprogress X = {b}\n", NULL,
             "3:10: progress property 'X' is defined twice");
}

static void sequential(void) {
  /* Magee & Kramer, appendix A (sequential composition) */
  const char *p = "P(I=1) = (a[I] -> b[I] -> END).\n"
                  "SKIP = END.\n"
                  "P123 = P(1);P(2);P(3);END.\n"
                  "LOOP = P(1);LOOP.\n"
                  "LOOP123 = P123;LOOP123.\n"
                  "Q = (start -> P(2);Q | stop -> STOP).\n"
                  "S = SKIP;P(1);SKIP;END.\n"
                  "T = P(1);T2, T2 = (c -> T2).\n";
  expect_lts(p, "P123", "0 a[1] 1\n1 b[1] 2\n2 a[2] 3\n3 b[2] 4\n4 a[3] 5\n5 b[3] 6\n");
  expect_lts(p, "LOOP", "0 a[1] 1\n1 b[1] 0\n");
  expect_lts(p, "LOOP123", "0 a[1] 1\n1 b[1] 2\n2 a[2] 3\n3 b[2] 4\n4 a[3] 5\n5 b[3] 0\n");
  expect_lts(p, "Q", "0 start 1\n0 stop 2\n1 a[2] 3\n3 b[2] 0\n");
  expect_lts(p, "S", "0 a[1] 1\n1 b[1] 2\n");
  expect_lts(p, "T", "0 a[1] 1\n1 b[1] 2\n2 c 2\n");
  /* a composite ends when all its parts do: 3 x 2 states, 7 transitions;
   * then its END state continues as END */
  const char *comp = "P = (a -> b -> END).\nR = (x -> END).\n||C = (P || R).\nS = C;END.\n";
  {
    char *seq = transitions(comp, "S"), *par = transitions(comp, "C");
    CHECK_STREQ(seq, par);
    int lines = 0;
    for (const char *q = seq; *q; q++) lines += *q == '\n';
    CHECK(lines == 7);
    free(seq);
    free(par);
  }
  /* errors */
  expect_lts("A = (a -> A).\nS = A;END.\n", NULL,
             "2:5: process 'A' cannot reach END, so nothing can follow it in a sequential composition");
  expect_lts("S = B;END.\n", NULL, "1:5: undefined process 'B'");
  expect_lts("A = (a -> END).\nS = A;(b -> END).\n", NULL, "2:7: expected a process after ';', found '('");
  expect_lts(
      "SKIP = END.\nS = SKIP;S.\n", NULL,
      "2:5: every process of this sequential composition is only END (write the process after the last "
      "';' instead)");
}

int main(void) {
  priority();
  sequential();
  progress();
  return CHECK_RESULT();
}
