/* Unit tests of the FSP front end: LTSA's state and transition counts on
 * the shipped examples, located errors, and (when ../shared is next to the
 * clone, as in CI) every anchor model: it compiles, or it is rejected
 * because it uses FLTL (fluent/assert). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ism/strbuf.h"
#include "verifier/lts/fsp.h"
#include "tests/unit/check.h"

static void sizes(const char *path, const char *proc, int states, int trans) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f = fsp_parse_file(path, &L, &d);
  lts_t *l = f ? fsp_compile(f, fsp_pick_process(f, proc), &d) : NULL;
  if (!l || l->nstates != states || l->ntrans != trans) {
    fprintf(stderr, "%s: expected %d states, %d transitions; got %d, %d\n", path, states, trans,
            l ? l->nstates : -1, l ? l->ntrans : -1);
    check_failures++;
  }
  lts_free(l);
  fsp_free(f);
  diag_free(&d);
  lts_labels_free(&L);
}

/* Compiling `text` fails with `message` at line:col. */
static void error_at(const char *text, int line, int col, const char *message) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f = fsp_parse_string("t.lts", text, &L, &d);
  lts_t *l = NULL;
  if (f) l = fsp_compile(f, fsp_last_process(f), &d);
  bool ok = !l && d.count > 0 && d.items[0].loc.line == line && d.items[0].loc.col == col &&
            strcmp(d.items[0].message, message) == 0;
  if (!ok) {
    fprintf(stderr, "for %s\n  expected %d:%d: %s\n", text, line, col, message);
    if (d.count)
      fprintf(stderr, "  got %d:%d: %s\n", d.items[0].loc.line, d.items[0].loc.col, d.items[0].message);
    else
      fprintf(stderr, "  got no error\n");
    check_failures++;
  }
  lts_free(l);
  fsp_free(f);
  diag_free(&d);
  lts_labels_free(&L);
}

static void compiles(const char *text, const char *proc, int states, int trans, int nalpha) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f = fsp_parse_string("t.lts", text, &L, &d);
  lts_t *l = f ? fsp_compile(f, proc ? proc : fsp_last_process(f), &d) : NULL;
  if (!l || l->nstates != states || l->ntrans != trans || l->nalphabet != nalpha) {
    fprintf(stderr, "for %s\n  expected %d/%d/%d, got %d/%d/%d%s%s\n", text, states, trans, nalpha,
            l ? l->nstates : -1, l ? l->ntrans : -1, l ? l->nalphabet : -1, d.count ? ": " : "",
            d.count ? d.items[0].message : "");
    check_failures++;
  }
  lts_free(l);
  fsp_free(f);
  diag_free(&d);
  lts_labels_free(&L);
}

/* The last processes of `files` composed in parallel have this size. */
static void composed(const char *const *files, int n, int states, int trans) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  lts_t *parts[8] = {0};
  fsp_file_t *f[8] = {0};
  bool ok = true;
  for (int i = 0; i < n; i++) {
    f[i] = fsp_parse_file(files[i], &L, &d);
    parts[i] = f[i] ? fsp_compile(f[i], fsp_last_process(f[i]), &d) : NULL;
    ok &= parts[i] != NULL;
  }
  lts_t *l = ok ? lts_compose((const lts_t *const *)parts, n) : NULL;
  if (!l || l->nstates != states || l->ntrans != trans) {
    fprintf(stderr, "%s...: expected %d states, %d transitions; got %d, %d\n", files[0], states, trans,
            l ? l->nstates : -1, l ? l->ntrans : -1);
    check_failures++;
  }
  lts_free(l);
  for (int i = 0; i < n; i++) {
    lts_free(parts[i]);
    fsp_free(f[i]);
  }
  diag_free(&d);
  lts_labels_free(&L);
}

/* Deterministic a and b (same alphabet, one error state each) accept the
 * same traces and reject them at the same point: a product search. */
static bool same_property(const lts_t *a, const lts_t *b) {
  if (a->nalphabet != b->nalphabet ||
      memcmp(a->alphabet, b->alphabet, (size_t)a->nalphabet * sizeof(int)) != 0)
    return false;
  int n = a->nstates * b->nstates;
  char *seen = calloc((size_t)n, 1);
  int *queue = malloc((size_t)n * sizeof *queue);
  int head = 0, tail = 0;
  queue[tail++] = a->init * b->nstates + b->init;
  seen[queue[0]] = 1;
  bool same = true;
  while (head < tail && same) {
    int sa = queue[head] / b->nstates, sb = queue[head] % b->nstates;
    head++;
    if ((sa == a->error) != (sb == b->error)) same = false;
    if (sa == a->error || sb == b->error) continue;
    for (int k = 0; k < a->nalphabet && same; k++) {
      int ta = lts_step(a, sa, a->alphabet[k]), tb = lts_step(b, sb, a->alphabet[k]);
      if ((ta < 0) != (tb < 0)) same = false;
      if (ta < 0 || tb < 0) continue;
      int q = ta * b->nstates + tb;
      if (!seen[q]) seen[q] = 1, queue[tail++] = q;
    }
  }
  free(seen);
  free(queue);
  return same;
}

/* The FLTL assertion `fltl` (its last definition) and the hand-written
 * property `fsp` (its last process) are the same safety property of
 * `states` states (error included). */
static void fltl_equals(const char *fltl, const char *fsp, int states) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f1 = fsp_parse_string("fltl.lts", fltl, &L, &d), *f2 = fsp_parse_string("fsp.lts", fsp, &L, &d);
  lts_t *a = f1 ? fsp_compile(f1, fsp_last_process(f1), &d) : NULL;
  lts_t *b0 = f2 ? fsp_compile(f2, fsp_last_process(f2), &d) : NULL;
  lts_t *b = b0 ? lts_minimise(b0) : NULL;
  if (!a || !b || a->nstates != states || b->nstates != states || !same_property(a, b)) {
    fprintf(stderr, "for %s\n  expected the property of %s with %d states; got %d and %d states, %s%s%s\n",
            fltl, fsp, states, a ? a->nstates : -1, b ? b->nstates : -1,
            a && b && same_property(a, b) ? "same" : "different", d.count ? ": " : "",
            d.count ? d.items[0].message : "");
    check_failures++;
  }
  lts_free(a);
  lts_free(b0);
  lts_free(b);
  fsp_free(f1);
  fsp_free(f2);
  diag_free(&d);
  lts_labels_free(&L);
}

/* An anchor's FLTL assertion `proc` (an invariant [] φ, compiled over the
 * reachable valuations) has `states`/`trans` (its sizes before the
 * tableau existed), and the same assertion written "(φ') && true", which
 * the tableau compiles, is the same property of the same size. */
static void fltl_anchor(const char *path, const char *proc, int states, int trans) {
  FILE *in = fopen(path, "rb");
  char text[8192];
  size_t n = in ? fread(text, 1, sizeof text - 1, in) : 0;
  if (in) fclose(in);
  text[n] = 0;
  strbuf_t b;
  strbuf_init(&b);
  for (const char *line = text; *line;) { /* the assert line rewritten */
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    const char *eq = strchr(line, '=');
    if (strncmp(line, "assert ", 7) == 0 && eq && eq < line + len) {
      strbuf_putn(&b, line, (size_t)(eq - line) + 1);
      strbuf_puts(&b, " (");
      strbuf_putn(&b, eq + 1, len - (size_t)(eq - line) - 1);
      strbuf_puts(&b, ") && true");
    } else
      strbuf_putn(&b, line, len);
    strbuf_putc(&b, '\n');
    line += len + (end ? 1 : 0);
  }
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f1 = fsp_parse_string("inv.lts", text, &L, &d),
             *f2 = fsp_parse_string("tab.lts", b.data, &L, &d);
  lts_t *x = f1 ? fsp_compile(f1, proc, &d) : NULL, *y = f2 ? fsp_compile(f2, proc, &d) : NULL;
  if (!x || !y || x->nstates != states || x->ntrans != trans || y->nstates != states || y->ntrans != trans ||
      !same_property(x, y)) {
    fprintf(stderr, "%s %s: expected %d/%d both ways; got %d/%d and %d/%d%s%s\n", path, proc, states, trans,
            x ? x->nstates : -1, x ? x->ntrans : -1, y ? y->nstates : -1, y ? y->ntrans : -1,
            d.count ? ": " : "", d.count ? d.items[0].message : "");
    check_failures++;
  }
  lts_free(x);
  lts_free(y);
  fsp_free(f1);
  fsp_free(f2);
  diag_free(&d);
  lts_labels_free(&L);
  strbuf_free(&b);
}

/* Fortis' sizes of one thesis problem (NOTES.md, from its robustness.log):
 * S = the system files composed, S || P_err with the completed property.
 * Fortis adds one error state to |S|, so its |S| is states + 1 (s_states
 * -1: not printed, not checked). */
static void fortis_sizes(const char *prop, const char *const *sys, int n, int s_states, int s_trans,
                         int sp_states, int sp_trans) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  lts_t *parts[8] = {0};
  fsp_file_t *f[8] = {0};
  bool ok = true;
  char path[512];
  for (int i = 0; i <= n; i++) {
    snprintf(path, sizeof path, "examples/robustness/fortis/%s", i == 0 ? prop : sys[i - 1]);
    f[i] = fsp_parse_file(path, &L, &d);
    parts[i] = f[i] ? fsp_compile(f[i], fsp_last_process(f[i]), &d) : NULL;
    ok &= parts[i] != NULL;
  }
  if (ok) {
    lts_t *p = lts_property(parts[0]);
    lts_free(parts[0]);
    parts[0] = p;
  }
  lts_t *sl = ok ? lts_compose((const lts_t *const *)parts + 1, n) : NULL;
  lts_t *sp = ok ? lts_compose((const lts_t *const *)parts, n + 1) : NULL;
  if (!sl || (s_states >= 0 && (sl->nstates + 1 != s_states || sl->ntrans != s_trans)) ||
      sp->nstates != sp_states || sp->ntrans != sp_trans) {
    fprintf(stderr, "%s: expected |S| %d/%d, |S||P| %d/%d; got %d/%d, %d/%d\n", sys[0], s_states, s_trans,
            sp_states, sp_trans, sl ? sl->nstates + 1 : -1, sl ? sl->ntrans : -1, sp ? sp->nstates : -1,
            sp ? sp->ntrans : -1);
    check_failures++;
  }
  lts_free(sl);
  lts_free(sp);
  for (int i = 0; i <= n; i++) {
    lts_free(parts[i]);
    fsp_free(f[i]);
  }
  diag_free(&d);
  lts_labels_free(&L);
}

static int anchors_ok, anchors_rejected;

static void anchor_file(const char *path) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f = fsp_parse_file(path, &L, &d);
  bool ok = f != NULL;
  for (size_t i = 0; f && i < fsp_process_count(f); i++) {
    lts_t *l = fsp_compile(f, fsp_process_name(f, i), &d);
    if (!l) ok = false;
    lts_free(l);
  }
  if (ok)
    anchors_ok++;
  else if (d.count && strstr(d.items[0].message, "is not supported") &&
           (strstr(d.items[0].message, "'fluent'") || strstr(d.items[0].message, "'assert'")))
    anchors_rejected++;
  else {
    fprintf(stderr, "%s: %s\n", path, d.count ? d.items[0].message : "failed");
    check_failures++;
  }
  fsp_free(f);
  diag_free(&d);
  lts_labels_free(&L);
}

/* Worklist over directories: no recursion. */
static void anchors(const char *root) {
  char **stack = malloc(sizeof *stack * 4096);
  int top = 0;
  stack[top++] = strdup(root);
  while (top > 0) {
    char *dir = stack[--top];
    DIR *dp = opendir(dir);
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      struct stat st;
      if (stat(path, &st) != 0) continue;
      size_t n = strlen(e->d_name);
      if (S_ISDIR(st.st_mode) && top < 4096)
        stack[top++] = strdup(path);
      else if (n > 4 && strcmp(e->d_name + n - 4, ".lts") == 0)
        anchor_file(path);
    }
    if (dp) closedir(dp);
    free(dir);
  }
  free(stack);
}

int main(void) {
  /* the counts LTSA reports (FSE'20, section 7) */
  sizes("examples/robustness/abp/abp_env.lts", "ENV", 9, 24);
  sizes("examples/robustness/abp/perfect.lts", "SYS", 20, 67);
  sizes("examples/robustness/abp/abp.lts", "SYS", 30, 104);
  sizes("examples/robustness/therac/sys.lts", "SYS", 19, 40);
  sizes("examples/robustness/therac/sys_r.lts", "SYS", 19, 42);
  sizes("examples/robustness/therac/env.lts", "ENV", 4, 4);

  compiles("P = (a -> b -> P).", NULL, 2, 2, 2);
  compiles("P = (a -> STOP | b -> STOP).", NULL, 2, 2, 2);
  compiles("P = (a -> END)+{c}.", NULL, 2, 1, 2);
  compiles("const N = 2\nrange R = 0..N\nP = C[0], C[i:R] = (when (i < N) up -> C[i+1] | when (i > 0) down "
           "-> C[i-1]).",
           NULL, 3, 4, 2);
  compiles("P = (a[i:0..2] -> if i == 1 then STOP else P).", NULL, 2, 3, 3);
  compiles("property P = (a -> b -> P).", NULL, 3, 4, 2);
  compiles("set S = {x, y}\nP = ({S}[i:1..2] -> P)\\{x}.", NULL, 1, 3,
           2); /* x[1], x[2] hide to one tau loop */
  compiles("P = (a -> P).\n||C = (one:P || two:P).", NULL, 1, 2, 2);
  compiles("P = (a -> P).\n||C = ({one, two}::P).", NULL, 1, 2, 2);
  compiles("P = (a -> b -> P).\n||C = (P)/{x/a}@{x}.", NULL, 2, 2, 1);
  compiles("Q(N=1) = (a[N] -> Q).\n||C = (Q(3) || Q).", NULL, 1, 2, 2);

  /* Fortis' printed sizes on its 15 thesis problems (38 files) */
  {
    const char *naive[] = {"abp/perfect.lts"}, *abp[] = {"abp/abp.lts"}, *therac[] = {"therac25/sys.lts"};
    fortis_sizes("abp/p.lts", naive, 1, 21, 67, 41, 134);
    fortis_sizes("abp/p.lts", abp, 1, 31, 104, 23, 80);
    fortis_sizes("therac25/p.lts", therac, 1, 39, 72, 35, 66);
    const char *v1[] = {"voting/sys.lts"}, *v2[] = {"voting2-2-2/sys.lts"}, *v3[] = {"voting2-3-3/sys.lts"},
               *v4[] = {"voting2-4-4/sys.lts"};
    fortis_sizes("voting/p.lts", v1, 1, 5, 9, 69, 283);
    fortis_sizes("voting2-2-2/p.lts", v2, 1, 5, 9, 373, 2301);
    fortis_sizes("voting2-3-3/p.lts", v3, 1, 5, 9, 1109, 9087);
    fortis_sizes("voting2-4-4/p.lts", v4, 1, 5, 9, 2469, 25201);
    const char *p1[] = {"pump/lines.lts", "pump/power.lts", "pump/alarm.lts"};
    const char *p2[] = {"pump2/lines.lts", "pump2/power.lts", "pump2/alarm.lts"};
    const char *p3[] = {"pump3/lines.lts", "pump3/power.lts", "pump3/alarm.lts"};
    fortis_sizes("pump/p.lts", p1, 3, 105, 484, 163, 730);
    fortis_sizes("pump2/p.lts", p2, 3, 761, 4794, 1679, 9946);
    fortis_sizes("pump3/p.lts", p3, 3, 6249, 49854, 19435, 144652);
    const int sp[5][2] = {{289, 1800}, {577, 4224}, {961, 8040}, {1441, 13536}, {2017, 21000}};
    for (int i = 1; i <= 5; i++) {
      char cb[64], ob[64];
      snprintf(cb, sizeof cb, "oyster-%d/card-bal.lts", i);
      snprintf(ob, sizeof ob, "oyster-%d/oyster-bal.lts", i);
      const char *oy[] = {"oyster/gate-in.lts", "oyster/gate-out.lts", cb, ob};
      /* |S| is printed for oyster-1 and oyster-5 only */
      int ss = i == 1 ? 97 : i == 5 ? 673 : -1, st = i == 1 ? 600 : i == 5 ? 7000 : -1;
      fortis_sizes("oyster/no-collision.lts", oy, 4, ss, st, sp[i - 1][0], sp[i - 1][1]);
    }
  }

  /* composite relabelling applies to each component, as LTSA: labels it
   * merges synchronise (LTSA's manual: SEMA2 has 4 states, 5 transitions) */
  compiles(
      "SEMA = (up -> down -> SEMA).\n"
      "||SEMA2 = (first:SEMA || second:SEMA)/{up/first.up, mid/first.down, mid/second.up, down/second.down}.",
      NULL, 4, 5, 3);
  compiles("SEMA = (up -> down -> SEMA).\n||SEMA2 = (SEMA/{mid/down} || SEMA/{mid/up}).", NULL, 4, 5, 3);
  compiles("SEMA = (up -> down -> SEMA).\n||TWO = (first:SEMA || second:SEMA).\n"
           "||SEMA2 = TWO/{up/first.up, mid/first.down, mid/second.up, down/second.down}.",
           NULL, 4, 5, 3);
  /* hiding makes a composite one machine before it is relabelled: mid of
   * one copy no longer meets the other */
  compiles(
      "SEMA = (up -> down -> SEMA).\n||ONE = SEMA\\{}.\n"
      "||SEMA2 = (first:ONE || second:ONE)/{up/first.up, mid/first.down, mid/second.up, down/second.down}.",
      NULL, 4, 5, 3);
  /* one old label to two new ones: composed first, then relabelled */
  compiles("A = (a -> A).\nB = (b -> B).\n||C = (A || B)/{{x, y}/a}.", NULL, 1, 3, 3);
  /* prefix first, then relabelling (LTSA's order) */
  compiles("P = (a -> b -> P).\n||C = (p:P || q:P)/{go/p.a, go/q.a}.", NULL, 4, 5, 3);

  /* forall, minimal, deterministic (counts by hand: 3 copies sharing b are
   * the 2^3 subsets of copies waiting for b; 4 independent copies 2^4) */
  compiles("const N = 3\nP(I=0) = (a[I] -> b -> P).\n||A = (forall [i:1..N] P(i)).", NULL, 8, 13, 4);
  compiles("P = (a -> b -> P).\n||B = (forall [i:1..2][j:{x,y}] p[i][j]:P).", NULL, 16, 64, 8);
  compiles("P(I=0) = (a[I] -> b -> P).\n||C = forall [i:1..2] P(i).", NULL, 4, 5, 3);
  compiles("P = (a -> b -> P).\nminimal ||M = (x:P || y:P)\\{x.b, y.b}.", NULL, 1, 2, 2);
  compiles("deterministic D = (a -> b -> D | a -> c -> D).", NULL, 2, 3, 3);
  error_at("P = (a -> P).\n||C = (forall [i:3..1] P).", 2, 18, "empty range 3..1");

  /* FLTL: Fortis' Therac property p_s, and p_w with a third fluent, against
   * the same invariants written as FSP properties by hand */
  fltl_equals(
      "fluent Xray = <set_xray, {set_ebeam, reset}>\nfluent EBeam = <set_ebeam, {set_xray, reset}>\n"
      "fluent InPlace = <x, e> initially 1\nassert OVER_DOSE = [](Xray -> InPlace)",
      "property P = S[0][1],\nS[xr:0..1][in:0..1] = (set_xray -> if in == 1 then S[1][in] else ERROR\n"
      "  | {set_ebeam, reset} -> S[0][in] | x -> S[xr][1] | e -> if xr == 1 then ERROR else S[xr][0]).",
      4);
  fltl_equals(
      "fluent Xray = <set_xray, {set_ebeam, reset}>\nfluent InPlace = <x, e> initially 1\n"
      "fluent Fired = <{fire_xray, fire_ebeam}, reset>\nassert OVER_DOSE = [](Xray && Fired -> InPlace)",
      "property P = S[0][1][0],\nS[xr:0..1][in:0..1][fi:0..1] = (\n"
      "    set_xray -> if fi == 1 && in == 0 then ERROR else S[1][in][fi]\n"
      "  | set_ebeam -> S[0][in][fi] | reset -> S[0][in][0]\n"
      "  | x -> S[xr][1][fi] | e -> if xr == 1 && fi == 1 then ERROR else S[xr][0][fi]\n"
      "  | {fire_xray, fire_ebeam} -> if xr == 1 && in == 0 then ERROR else S[xr][in][1]).",
      8);
  /* <->, ||, !, && and true/false: the formula is B -> A */
  fltl_equals(
      "fluent A = <a, na>\nfluent B = <b, nb>\n"
      "assert S = []((A <-> B) || (A && !B) || (false && true) || !true)",
      "property P = S[0][0],\nS[x:0..1][y:0..1] = (a -> S[1][y] | na -> if y == 1 then ERROR else S[0][y]\n"
      "  | b -> if x == 0 then ERROR else S[x][1] | nb -> S[x][0]).",
      4);

  /* FLTL safety formulas beyond [] φ (the tableau), each against its
   * property written by hand from the definition: positions are the
   * actions of the formula's fluents (position i is the i-th action, the
   * fluents as it leaves them; LTSA's FLTL); a violation is a trace after
   * which the formula's obligations are false (an informative bad prefix);
   * F = <a, b>, G = <c, d> unless said otherwise. */
  const char *fg = "fluent F = <a, b>\nfluent G = <c, d>\n";
  char src[512];
  /* X F: the second action makes F true */
  fltl_equals("fluent F = <a, b>\nassert A = X F",
              "property P = ({a, b} -> Q), Q = (a -> R), R = ({a, b} -> R).", 4);
  /* X X F: the third one does */
  fltl_equals("fluent F = <a, b>\nassert A = X X F",
              "property P = ({a, b} -> Q), Q = ({a, b} -> R), R = (a -> S), S = ({a, b} -> S).", 5);
  /* X [] F: F from the second action on: anything, then a only */
  fltl_equals("fluent F = <a, b>\nassert A = X [] F", "property P = ({a, b} -> Q), Q = (a -> Q) + {b}.", 3);
  /* [] F with F initially false: the initial valuation is no position, so
   * the empty trace is fine; every action must leave F true (the invariant
   * construction, and the tableau through && true) */
  fltl_equals("fluent F = <a, b>\nassert A = [] F", "property P = (a -> P) + {b}.", 2);
  fltl_equals("fluent F = <a, b>\nassert A = [] F && true", "property P = (a -> P) + {b}.", 2);
  /* X F && X !F: due at the second action, which cannot meet it */
  fltl_equals("fluent F = <a, b>\nassert A = X F && X !F", "property P = ({a, b} -> Q), Q = STOP + {a, b}.",
              3);
  /* F W G, F initially true: no b before the first c */
  fltl_equals("fluent F = <a, b> initially 1\nfluent G = <c, d>\nassert A = F W G",
              "property P = ({a, d} -> P | c -> Q), Q = ({a, b, c, d} -> Q).", 3);
  /* F R G, G initially true: no d before (or at) the first a */
  fltl_equals("fluent F = <a, b>\nfluent G = <c, d> initially 1\nassert A = F R G",
              "property P = ({b, c} -> P | a -> Q), Q = ({a, b, c, d} -> Q).", 3);
  /* [](F -> X G): at every position after one where F holds, G holds */
  snprintf(src, sizeof src, "%sassert A = [](F -> X G)", fg);
  fltl_equals(src,
              "property P = S[0][0],\nS[f:0..1][g:0..1] = (a -> if f == 1 && g == 0 then ERROR else S[1][g]\n"
              "  | b -> if f == 1 && g == 0 then ERROR else S[0][g] | c -> S[f][1]\n"
              "  | d -> if f == 1 then ERROR else S[f][0]).",
              5);
  /* !<> F is [] !F: never a */
  fltl_equals("fluent F = <a, b>\nassert A = !<>F", "property P = (b -> P) + {a}.", 2);
  /* !(F U G) is !G W (!F && !G): F initially true, no c before the first b */
  fltl_equals("fluent F = <a, b> initially 1\nfluent G = <c, d>\nassert A = !(F U G)",
              "property P = ({a, d} -> P | b -> Q), Q = ({a, b, c, d} -> Q) + {c}.", 3);
  /* X (F && G) never holds (a and b each set one and clear the other): after
   * h, the next action, whichever, violates */
  fltl_equals("fluent F = <a, b>\nfluent G = <b, a>\nfluent H = <h, k>\nassert A = [](H -> X (F && G))",
              "property P = ({a, b, k} -> P | h -> Q), Q = ({a, b, h, k} -> ERROR).", 3);
  /* an invariant through the tableau (&& true keeps it off the invariant
   * path) gives the invariant's property: Therac's p_s as above */
  fltl_equals(
      "fluent Xray = <set_xray, {set_ebeam, reset}>\nfluent EBeam = <set_ebeam, {set_xray, reset}>\n"
      "fluent InPlace = <x, e> initially 1\nassert OVER_DOSE = [](Xray -> InPlace) && true",
      "property P = S[0][1],\nS[xr:0..1][in:0..1] = (set_xray -> if in == 1 then S[1][in] else ERROR\n"
      "  | {set_ebeam, reset} -> S[0][in] | x -> S[xr][1] | e -> if xr == 1 then ERROR else S[xr][0]).",
      4);
  /* action names as propositions: a holds at the positions where a is the
   * action (the fluent <a, the formula's other actions>); MTSA's on/off
   * example: alternate, starting with on */
  fltl_equals("assert ONOFF = [](on -> X off) && [](off -> X on) && on",
              "property P = (on -> Q), Q = (off -> P).", 3);
  fltl_equals("fluent F = <x, y>\nassert A = [](go -> F)",
              "property P = (x -> Q | y -> P), Q = ({x, go} -> Q | y -> P).", 3);
  fltl_equals("assert A = [](p[1].a -> X p[2].b)",
              "property P = (p[1].a -> Q | p[2].b -> P), Q = (p[2].b -> P).", 3);
  error_at("fluent F[i:1..2] = <a[i], b[i]>\nassert A = forall[i:1..2] F[i].", 1, 9,
           "indexed fluents are not supported");
  error_at("assert A = [](forall[i:1..2] a[i]).", 1, 15, "'forall' in a formula is not supported");
  error_at("assert A = [](p[1..2].a -> X b).", 1, 15,
           "an action in a formula must be one label; this one stands for 2");
  /* liveness formulas (in NNF) are refused at their U or <> */
  error_at(
      "fluent F = <a, b>\nassert A = <>F.", 2, 12,
      "'<>' makes assertion 'A' a liveness formula (in negation normal form); only safety formulas compile "
      "to property LTSs: [], X, W, R, and <> or U under a negation");
  snprintf(src, sizeof src, "%sassert A = F U G.", fg);
  error_at(
      src, 3, 14,
      "'U' makes assertion 'A' a liveness formula (in negation normal form); only safety formulas compile "
      "to property LTSs: [], X, W, R, and <> or U under a negation");
  snprintf(src, sizeof src, "%sassert A = ![]F.", fg);
  error_at(
      src, 3, 13,
      "'<>' makes assertion 'A' a liveness formula (in negation normal form); only safety formulas compile "
      "to property LTSs: [], X, W, R, and <> or U under a negation");
  snprintf(src, sizeof src, "%sassert A = !(F W G).", fg);
  error_at(
      src, 3, 16,
      "'U' makes assertion 'A' a liveness formula (in negation normal form); only safety formulas compile "
      "to property LTSs: [], X, W, R, and <> or U under a negation");
  { /* limits: a chain of 1 001 operands; 13 binary choices under X (2^13 alternatives) */
    strbuf_t b;
    strbuf_init(&b);
    strbuf_puts(&b, "fluent F = <a, b>\nassert A = X F");
    for (int i = 0; i < 1000; i++) strbuf_puts(&b, " && F");
    const char *last = strrchr(b.data, '&');
    error_at(b.data, 2, (int)(last - strchr(b.data, '\n')) - 1,
             "the formula nests more than 1000 operators deep; split it into several assertions");
    strbuf_clear(&b);
    strbuf_puts(&b, "fluent F = <a, b>\nfluent G = <c, d>\nassert A = X F");
    for (int i = 0; i < 13; i++) strbuf_puts(&b, " && (X F || X G)");
    error_at(
        b.data, 3, 8,
        "assertion 'A' needs an obligation of more than 4096 alternatives (its disjunctions under X, W and R "
        "multiply); split it into several assertions");
    /* 20 nested <-> double 20 times in negation normal form */
    strbuf_clear(&b);
    strbuf_puts(&b, "fluent F = <a, b>\nassert A = X ");
    for (int i = 0; i < 20; i++) strbuf_puts(&b, "(F <-> ");
    strbuf_puts(&b, "F");
    for (int i = 0; i < 20; i++) strbuf_puts(&b, ")");
    error_at(b.data, 2, 12, "the formula has more than 100000 operators once '<->' is expanded");
    strbuf_free(&b);
  }

  error_at("P = (a -> ).", 1, 11, "expected a process (a name, STOP, END, ERROR or '('), found ')'");
  error_at("P = (a -> Q).", 1, 11, "undefined process 'Q'");
  error_at("P = (a -> P)", 1, 13, "expected '.' at the end of the definition, found 'end of file'");
  error_at("fluent F = <a, b>\nassert A = [](F -> G).", 2, 20, "undefined fluent 'G'");
  error_at("animation A = \"a.xml\"\nQ = (a -> Q).", 1, 1,
           "'animation' is not supported (ismv compiles FSP processes, not FLTL or LTSA's other extensions)");
  error_at("P = C[0], C[i:0..1] = (a -> C[i+1]).", 1, 29, "index 2 of 'C' is out of range 0..1");
  error_at("P = (a[x] -> P).", 1, 8, "undefined name 'x'");
  error_at("P = (a -> P).\n||C = (P || Qq).", 2, 13, "undefined process 'Qq'");
  error_at("P = (a -> P) # b.", 1, 14, "unexpected character '#'");

  struct stat st;
  if (stat("../shared/anchors/lts", &st) == 0) {
    /* the Fortis thesis pumps: LINES of pump2, and lines || power || alarm
     * (Fortis reports one more state: its extra error state) */
#define TE "../shared/anchors/lts/fortis-core/thesis-examples/"
    sizes(TE "pump2/lines.lts", "LINES", 97, 416);
    sizes(TE "pump3/lines.lts", "LINES", 793, 4594);
    const char *pump1[] = {TE "pump/lines.lts", TE "pump/power.lts", TE "pump/alarm.lts"};
    const char *pump2[] = {TE "pump2/lines.lts", TE "pump2/power.lts", TE "pump2/alarm.lts"};
    const char *pump3[] = {TE "pump3/lines.lts", TE "pump3/power.lts", TE "pump3/alarm.lts"};
    composed(pump1, 3, 104, 484);
    composed(pump2, 3, 760, 4794);
    composed(pump3, 3, 6248, 49854);
#undef TE
    /* the 6 anchor files with FLTL, through both compilations */
    const char *FC = "../shared/anchors/lts/fortis-core/";
    char path[512];
    snprintf(path, sizeof path, "%sfortis/src/test/resources/specs/therac25-2/p1.lts", FC);
    fltl_anchor(path, "OVER_DOSE", 4, 15);
    snprintf(path, sizeof path, "%sfortis/src/test/resources/specs/voting-2/p1.lts", FC);
    fltl_anchor(path, "SELECT_VOTE_BY_VOTER", 6, 30);
    snprintf(path, sizeof path, "%sfortis/src/test/resources/specs/voting-2/p2.lts", FC);
    fltl_anchor(path, "SELECT_VOTE_BY_VOTER", 10, 81);
    snprintf(path, sizeof path, "%sthesis-examples/therac25/p_s.lts", FC);
    fltl_anchor(path, "OVER_DOSE", 4, 15);
    snprintf(path, sizeof path, "%sthesis-examples/therac25/p_w.lts", FC);
    fltl_anchor(path, "OVER_DOSE", 8, 49);
    fltl_anchor(
        "../shared/anchors/lts/LTSA-Robust/robustness-calculator/src/main/resources/specs/pcapump.lts", "P",
        10, 72);
    anchors("../shared/anchors/lts");
    CHECK(anchors_ok == 469);
    CHECK(anchors_rejected == 0);
  }
  return CHECK_RESULT();
}
