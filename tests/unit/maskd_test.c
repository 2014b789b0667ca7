/* Unit tests of the MaskD front end: parsing, located errors, state spaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/diag.h"
#include "ism/intern.h"
#include "verifier/masking/maskd.h"
#include "tests/unit/check.h"


static const char *MEMORY =
    "Process Memory {\n"
    "  r: BOOL; b0, b1, b2: BOOL;\n"
    "  Initial: b0 && b1 && b2 && r;\n"
    "  [write1] true -> b0=true, b1=true, b2=true, r=true;\n"
    "  [write0] true -> b0=false, b1=false, b2=false, r=false;\n"
    "  [read0] !r -> r = r;\n"
    "  [read1] r -> r = r;\n"
    "  [fault1] faulty true -> b0=!b0, r=(!b0&&b1)||(b1&&b2)||(!b0&&b2);\n"
    "}\n"
    "Main(){ m: Memory; run m(); }\n";

/* Parses text; returns the first diagnostic as "line:col: message" in buf. */
static maskd_program_t *parse(const char *text, char *buf, size_t size) {
  diag_list_t d;
  diag_init(&d);
  maskd_program_t *p = maskd_parse(text, (loc_t){"t.test", 1, 1}, 0, &d);
  buf[0] = 0;
  for (size_t i = 0; i < d.count; i++)
    if (d.items[i].level == DIAG_ERROR) {
      snprintf(buf, size, "%d:%d: %s", d.items[i].loc.line, d.items[i].loc.col, d.items[i].message);
      break;
    }
  diag_free(&d);
  return p;
}

static void expect_error(const char *text, const char *want) {
  char buf[512];
  maskd_program_t *p = parse(text, buf, sizeof buf);
  CHECK(p == NULL);
  CHECK_STREQ(buf, want);
  maskd_free(p);
}

static void test_memory_space(void) {
  char buf[512];
  maskd_program_t *p = parse(MEMORY, buf, sizeof buf);
  CHECK(p != NULL);
  if (!p) return;
  CHECK(maskd_has_faulty(p) && !maskd_has_internal(p));
  CHECK(maskd_nslots(p) == 4);
  intern_t labels;
  intern_init(&labels);
  diag_list_t d;
  diag_init(&d);
  masking_lts_t lts;
  CHECK(maskd_explore(p, &labels, 1000, &lts, &d) == MASKD_OK);
  /* 111r, 000, 011, 100r (fault from 000 flips b0 and recomputes r) ... */
  CHECK(lts.nstates == 4);
  CHECK(intern_find(&labels, "m.fault1") >= 0);
  strbuf_t sb;
  strbuf_init(&sb);
  maskd_state_string(p, &lts, 0, &sb);
  CHECK_STREQ(strbuf_str(&sb), "<m.r, m.b0, m.b1, m.b2>");
  strbuf_free(&sb);
  /* transitions sorted by (label, target) */
  for (size_t s = 0; s < lts.nstates; s++)
    for (size_t e = lts.off[s] + 1; e < lts.off[s + 1]; e++)
      CHECK(lts.label[e - 1] < lts.label[e] || (lts.label[e - 1] == lts.label[e] && lts.dst[e - 1] < lts.dst[e]));
  masking_lts_free(&lts);
  CHECK(maskd_explore(p, &labels, 2, &lts, &d) == MASKD_TOO_BIG);
  diag_free(&d);
  intern_free(&labels);
  maskd_free(p);
}

static void test_enums_and_params(void) {
  char buf[512];
  const char *text =
      "Enum A = {idle, busy};\nEnum B = {idle, done};\nGlobal g: A; Global h: B;\n"
      "Process P(x: A) { s: B; Initial: s == idle && x == idle;\n"
      "  [go] x == idle -> x = busy, s = done;\n"
      "  [back] x == busy && s == done -> x = idle; }\n"
      "Main(){ p, q: P; run p(g); run q(g); }\n";
  maskd_program_t *p = parse(text, buf, sizeof buf);
  CHECK(p != NULL);
  if (!p) {
    fprintf(stderr, "  %s\n", buf);
    return;
  }
  CHECK(maskd_nslots(p) == 4); /* g, h, p.s, q.s */
  intern_t labels;
  intern_init(&labels);
  diag_list_t d;
  diag_init(&d);
  masking_lts_t lts;
  CHECK(maskd_explore(p, &labels, 100, &lts, &d) == MASKD_OK);
  /* g shared by reference: (g, p.s, q.s) over {idle,busy} x {idle,done}^2,
   * all but (busy, idle, idle) and the three with g=busy and s=idle where
   * the other is done ... seven in all */
  if (lts.nstates != 7) fprintf(stderr, "  nstates = %zu\n", lts.nstates);
  CHECK(lts.nstates == 7);
  masking_lts_free(&lts);
  diag_free(&d);
  intern_free(&labels);
  maskd_free(p);
}

static void test_errors(void) {
  expect_error("Process P { x: BOOL; Initial: x; [a] y -> x = true; }\nMain(){ p: P; run p(); }",
               "1:38: undefined name 'y'");
  expect_error("Process P { x: BOOL; Initial: x; [a] x -> z = true; }\nMain(){ p: P; run p(); }",
               "1:43: unknown variable 'z'");
  expect_error("Process P { x: BOOL; Initial: x; [a] x x = true; }\nMain(){ p: P; run p(); }",
               "1:40: expected '->', found 'x'");
  expect_error("Process P { x: BOL; Initial: x; }\nMain(){ p: P; run p(); }",
               "1:16: unknown type 'BOL' (did you mean 'BOOL'?)");
  expect_error("Process P(a: BOOL) { Initial: a; [t] a -> a = !a; }\nMain(){ p: P; run p(); }",
               "2:19: process 'P' takes 1 parameter, but 'p' is run with 0");
  expect_error("Enum E = {on, off};\nEnum F = {up};\nProcess P { e: E; Initial: e == up; }\nMain(){ p: P; run p(); }",
               "3:33: 'up' is not a value of enum 'E' (the type of 'e')");
  expect_error("Process P { x: INT; Initial: x < 3; }\nMain(){ p: P; run p(); }",
               "1:32: unsupported initial condition: 'Initial:' must be a conjunction of 'x', '!x' and 'x == value'");
  expect_error("Process P { x: BOOL; Initial: x; }\nMain(){ p: Q; run p(); }",
               "2:12: unknown process 'Q'");
  expect_error("Process P { x: BOOL; Initial: x; /* open\n", "1:34: unterminated comment");
  expect_error("Process P { x: BOOL; Initial: x; [a] x -> x = x, x = !x; }\nMain(){ p: P; run p(); }",
               "1:50: 'x' is assigned twice in one action");
}

static void test_normative_and_unlabelled(void) {
  char buf[512];
  const char *text = "Global a: BOOL;\nProcess P { Initial: !a; Normative: true;\n true -> a = !a; }\n"
                     "Main(){ p: P; run p(); }\n";
  maskd_program_t *p = parse(text, buf, sizeof buf);
  CHECK(p != NULL);
  maskd_free(p);
}

static void test_deep_nesting(void) {
  size_t n = 5000;
  char *text = malloc(n * 2 + 200);
  strcpy(text, "Process P { x: BOOL; Initial: x; [a] ");
  size_t len = strlen(text);
  for (size_t i = 0; i < n; i++) text[len++] = '(';
  text[len] = 0;
  strcat(text, "x -> x = x; }\nMain(){ p: P; run p(); }");
  char buf[512];
  maskd_program_t *p = parse(text, buf, sizeof buf);
  CHECK(p == NULL);
  CHECK(strstr(buf, "nested too deeply") != NULL);
  free(text);
}

int main(void) {
  test_memory_space();
  test_enums_and_params();
  test_errors();
  test_normative_and_unlabelled();
  test_deep_nesting();
  return CHECK_RESULT();
}
