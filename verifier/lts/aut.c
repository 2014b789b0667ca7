#include "verifier/lts/aut.h"

#include <limits.h>
#include <string.h>

#include "ism/alloc.h"

#define AUT_MAX_ERRORS 50

/* A cursor over one line of the file. */
typedef struct {
  const char *file;
  int line;
  const char *start, *p, *end; /* the line is [start, end) */
  diag_list_t *d;
} cursor_t;

static loc_t here(const cursor_t *c) { return (loc_t){c->file, c->line, (int)(c->p - c->start) + 1}; }

static void skip_ws(cursor_t *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')) c->p++;
}

static bool expect_char(cursor_t *c, char ch, const char *what) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  if (c->p < c->end)
    diag_error(c->d, here(c), "expected %s, found '%c'", what, *c->p);
  else
    diag_error(c->d, here(c), "expected %s, found the end of the line", what);
  return false;
}

/* A non-negative decimal number up to INT_MAX into *out. */
static bool number(cursor_t *c, const char *what, long *out) {
  skip_ws(c);
  loc_t at = here(c);
  if (c->p >= c->end || *c->p < '0' || *c->p > '9') {
    diag_error(c->d, at, "expected %s (a number)", what);
    return false;
  }
  long v = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    v = v * 10 + (*c->p++ - '0');
    if (v > INT_MAX) {
      diag_error(c->d, at, "%s is too large", what);
      return false;
    }
  }
  *out = v;
  return true;
}

/* The label of a transition line: "quoted" or bare up to the line's last
 * ','. Interns it (tau and i are τ). */
static bool label(cursor_t *c, lts_labels_t *labels, int *out) {
  skip_ws(c);
  const char *from, *to;
  if (c->p < c->end && *c->p == '"') {
    from = ++c->p;
    while (c->p < c->end && *c->p != '"') c->p++;
    if (c->p >= c->end) {
      diag_error(c->d, here(c), "unterminated label (missing '\"')");
      return false;
    }
    to = c->p++;
  } else {
    const char *comma = NULL;
    for (const char *q = c->p; q < c->end; q++)
      if (*q == ',') comma = q;
    if (!comma || comma == c->p) {
      diag_error(c->d, here(c), "expected a label");
      return false;
    }
    from = c->p;
    to = comma;
    while (to > from && (to[-1] == ' ' || to[-1] == '\t')) to--;
    const char *quote = memchr(from, '"', (size_t)(to - from));
    if (quote) { /* a label is written quoted, without escapes: it could not be read back */
      c->p = quote;
      diag_error(c->d, here(c), "a label cannot contain '\"'");
      return false;
    }
    c->p = comma;
  }
  size_t n = (size_t)(to - from);
  if ((n == 3 && strncmp(from, "tau", 3) == 0) || (n == 1 && *from == 'i')) {
    *out = LTS_TAU;
    return true;
  }
  char *name = xmalloc(n + 1);
  memcpy(name, from, n);
  name[n] = '\0';
  *out = lts_label(labels, name);
  free(name);
  return true;
}

static bool line_end(cursor_t *c) {
  skip_ws(c);
  if (c->p < c->end) {
    diag_error(c->d, here(c), "unexpected text after ')'");
    return false;
  }
  return true;
}

/* des (initial, ntrans, nstates) */
static bool header(cursor_t *c, long *init, long *ntrans, long *nstates) {
  skip_ws(c);
  if (c->end - c->p < 3 || strncmp(c->p, "des", 3) != 0) {
    /* not an Aldebaran file at all (a system file named by mistake): its
     * lines are never echoed */
    diag_source_conceal(c->d, here(c).file);
    diag_error(c->d, here(c), "expected the header 'des (initial, transitions, states)'");
    return false;
  }
  c->p += 3;
  return expect_char(c, '(', "'('") && number(c, "the initial state", init) && expect_char(c, ',', "','") &&
         number(c, "the number of transitions", ntrans) && expect_char(c, ',', "','") &&
         number(c, "the number of states", nstates) && expect_char(c, ')', "')'") && line_end(c);
}

/* (from, label, to) into b; states are checked against nstates. */
static bool transition(cursor_t *c, lts_builder_t *b, long nstates) {
  long from, to;
  int lab;
  loc_t at_from, at_to;
  if (!expect_char(c, '(', "'(' to start a transition")) return false;
  skip_ws(c);
  at_from = here(c);
  if (!number(c, "the source state", &from) || !expect_char(c, ',', "','") || !label(c, b->labels, &lab) ||
      !expect_char(c, ',', "','"))
    return false;
  skip_ws(c);
  at_to = here(c);
  if (!number(c, "the target state", &to) || !expect_char(c, ')', "')'") || !line_end(c)) return false;
  if (from >= nstates || to >= nstates) {
    diag_error(c->d, from >= nstates ? at_from : at_to,
               "state %ld is out of range (the header says %ld states)", from >= nstates ? from : to,
               nstates);
    return false;
  }
  lts_builder_add(b, (int)from, lab, (int)to);
  return true;
}

lts_t *aut_read_string(const char *name, const char *text, lts_labels_t *labels, long max, bool *limit_hit,
                       diag_list_t *diags) {
  const char *file = diag_add_source(diags, name, text);
  cursor_t c = {file, 0, NULL, NULL, NULL, diags};
  lts_builder_t b;
  lts_builder_init(&b, labels);
  bool have_header = false;
  long init = 0, ntrans = 0, nstates = 0, count = 0;
  int errors = 0;
  loc_t header_loc = {file, 1, 1};
  for (const char *p = text; *p && errors < AUT_MAX_ERRORS;) {
    const char *nl = strchr(p, '\n');
    c.line++;
    c.start = c.p = p;
    c.end = nl ? nl : p + strlen(p);
    p = nl ? nl + 1 : c.end;
    skip_ws(&c);
    if (c.p == c.end) continue; /* a blank line */
    if (!have_header) {
      header_loc = here(&c);
      if (!header(&c, &init, &ntrans, &nstates)) {
        errors = AUT_MAX_ERRORS;
        break;
      }
      have_header = true;
      if (nstates == 0 || init >= nstates) {
        diag_error(diags, header_loc, "the initial state %ld is not one of the %ld states", init, nstates);
        errors = AUT_MAX_ERRORS;
        break;
      }
      if ((max > 0 && (nstates > max || ntrans > max))) {
        diag_error(diags, header_loc,
                   "%ld states and %ld transitions: more than the limit %ld (raise --max-states)", nstates,
                   ntrans, max);
        if (limit_hit) *limit_hit = true;
        errors = AUT_MAX_ERRORS;
        break;
      }
      b.nstates = (int)nstates;
      b.init = (int)init;
      continue;
    }
    count++;
    if (!transition(&c, &b, nstates)) errors++;
  }
  if (!have_header && errors == 0) {
    diag_error(diags, header_loc,
               "expected the header 'des (initial, transitions, states)', found an empty file");
    errors++;
  }
  if (errors == 0 && count != ntrans) {
    diag_error(diags, header_loc, "the header says %ld transitions, the file has %ld", ntrans, count);
    errors++;
  }
  if (errors > 0) {
    lts_builder_free(&b);
    return NULL;
  }
  return lts_freeze(&b);
}

lts_t *aut_read_file(const char *path, lts_labels_t *labels, long max, bool *limit_hit, diag_list_t *diags) {
  const char *registered;
  const char *text = diag_read_file(diags, path, (loc_t){0}, &registered);
  if (!text) return NULL;
  return aut_read_string(registered, text, labels, max, limit_hit, diags);
}

void aut_write(const lts_t *l, strbuf_t *out) {
  strbuf_printf(out, "des (%d, %d, %d)\n", l->init, l->ntrans, l->nstates);
  for (int s = 0; s < l->nstates; s++)
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      strbuf_printf(out, "(%d, \"", s);
      for (const char *q = lts_label_name(l->labels, l->succ_label[i]); *q; q++)
        strbuf_putc(out, *q == '"' ? '\'' : *q);
      strbuf_printf(out, "\", %d)\n", l->succ_dst[i]);
    }
}
