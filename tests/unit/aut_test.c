/* Unit tests of the Aldebaran (.aut) reader and writer: FSP processes
 * written and read back are the same LTS (same states, same transitions by
 * label name), hand-written files in CADP's and mCRL2's spellings, and one
 * malformed file per error class with its location. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"
#include "verifier/lts/aut.h"
#include "verifier/lts/fsp.h"
#include "tests/unit/check.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The transitions of l as sorted "src label dst" lines (label names, not
 * ids: two label tables number labels differently). */
static char *relation(const lts_t *l) {
  char **lines = calloc((size_t)l->ntrans + 1, sizeof *lines);
  int n = 0;
  for (int s = 0; s < l->nstates; s++)
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      strbuf_t line;
      strbuf_init(&line);
      strbuf_printf(&line, "%d %s %d\n", s, lts_label_name(l->labels, l->succ_label[i]), l->succ_dst[i]);
      lines[n++] = strbuf_take(&line);
    }
  qsort(lines, (size_t)n, sizeof *lines, cmp_str);
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_printf(&sb, "init %d, %d states\n", l->init, l->nstates);
  for (int i = 0; i < n; i++) {
    strbuf_puts(&sb, lines[i]);
    free(lines[i]);
  }
  free(lines);
  return strbuf_take(&sb);
}

/* Process `proc` of the FSP file, written as .aut and read back into a
 * fresh label table, has the same transition relation (and the expected
 * size, LTSA's). */
static void round_trip(const char *path, const char *proc, int states, int trans) {
  lts_labels_t L, L2;
  lts_labels_init(&L);
  lts_labels_init(&L2);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f = fsp_parse_file(path, &L, &d);
  lts_t *l = f ? fsp_compile(f, proc, &d) : NULL;
  CHECK(l && l->nstates == states && l->ntrans == trans);
  if (l) {
    strbuf_t aut;
    strbuf_init(&aut);
    aut_write(l, &aut);
    lts_t *back = aut_read_string("back.aut", strbuf_str(&aut), &L2, 0, NULL, &d);
    CHECK(back != NULL);
    if (back) {
      char *a = relation(l), *b = relation(back);
      CHECK_STREQ(b, a);
      free(a);
      free(b);
    }
    lts_free(back);
    strbuf_free(&aut);
  }
  lts_free(l);
  fsp_free(f);
  diag_free(&d);
  lts_labels_free(&L);
  lts_labels_free(&L2);
}

/* Reading `text` gives `want` (relation()) or the first error "line:col: message". */
static void reads(const char *text, const char *want) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  bool limit = false;
  lts_t *l = aut_read_string("t.aut", text, &L, 1000, &limit, &d);
  char *got;
  if (l)
    got = relation(l);
  else {
    strbuf_t sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%d:%d: %s", d.count ? d.items[0].loc.line : 0, d.count ? d.items[0].loc.col : 0,
                  d.count ? d.items[0].message : "no error");
    got = strbuf_take(&sb);
  }
  CHECK_STREQ(got, want);
  free(got);
  lts_free(l);
  diag_free(&d);
  lts_labels_free(&L);
}

int main(void) {
  /* LTSA's sizes of the ABP models (also in fsp_test.c) */
  round_trip("examples/robustness/abp/abp_env.lts", "ENV", 9, 24);
  round_trip("examples/robustness/abp/perfect.lts", "SYS", 20, 67);
  round_trip("examples/robustness/abp/abp.lts", "SYS", 30, 104);

  /* CADP: bare labels, i for τ; mCRL2: quoted labels with commas, tau */
  reads("des (0, 3, 2)\n(0, a, 1)\n(1, i, 0)\n(1, b !1, 1)\n",
        "init 0, 2 states\n0 a 1\n1 b !1 1\n1 tau 0\n");
  reads("des (1,2,3)\r\n(1,\"send(1, 2)\",2)\r\n\r\n(2,\"tau\",0)\r\n",
        "init 1, 3 states\n1 send(1, 2) 2\n2 tau 0\n");

  /* one malformed file per error class */
  reads("", "1:1: expected the header 'des (initial, transitions, states)', found an empty file");
  reads("dez (0, 0, 1)\n", "1:1: expected the header 'des (initial, transitions, states)'");
  reads("des (0, 0 1)\n", "1:11: expected ',', found '1'");
  reads("des (3, 0, 2)\n", "1:1: the initial state 3 is not one of the 2 states");
  reads("des (0, 1, 2)\n(0, \"a\", 2)\n", "2:10: state 2 is out of range (the header says 2 states)");
  reads("des (0, 1, 2)\n(0, \"a, 1)\n", "2:11: unterminated label (missing '\"')");
  reads("des (0, 1, 2)\n(x, \"a\", 1)\n", "2:2: expected the source state (a number)");
  reads("des (0, 1, 2)\n(0, \"a\", 1) x\n", "2:13: unexpected text after ')'");
  reads("des (0, 2, 2)\n(0, \"a\", 1)\n", "1:1: the header says 2 transitions, the file has 1");
  reads("des (0, 0, 99999999)\n",
        "1:1: 99999999 states and 0 transitions: more than the limit 1000 (raise --max-states)");
  reads("des (0, 0, 99999999999)\n", "1:12: the number of states is too large");
  return CHECK_RESULT();
}
