#include "verifier/lts/fsm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/intern.h"
#include "ism/strbuf.h"
#include "ism/vec.h"

#define FSM_MAX_ERRORS 50
#define FSM_MAX_FIELDS 6

/* One non-blank line split at its tabs. */
typedef struct {
  int line;
  const char *field[FSM_MAX_FIELDS];
  int len[FSM_MAX_FIELDS];
  int col[FSM_MAX_FIELDS];
  int nfields; /* FSM_MAX_FIELDS + 1 when there are more */
} fsm_line_t;

typedef struct {
  const char *file, *p; /* the next unread character */
  int line;
} reader_t;

/* The next non-blank line into *out; false at the end of the text. */
static bool next_line(reader_t *r, fsm_line_t *out) {
  while (*r->p) {
    const char *start = r->p, *nl = strchr(start, '\n');
    const char *end = nl ? nl : start + strlen(start);
    r->p = nl ? nl + 1 : end;
    r->line++;
    while (end > start && (end[-1] == '\r' || end[-1] == ' ')) end--;
    const char *q = start;
    while (q < end && (*q == ' ' || *q == '\t')) q++;
    if (q == end) continue; /* blank */
    out->line = r->line;
    out->nfields = 0;
    for (const char *f = start;;) {
      const char *tab = memchr(f, '\t', (size_t)(end - f));
      const char *fe = tab ? tab : end;
      if (out->nfields == FSM_MAX_FIELDS) {
        out->nfields++;
        break;
      }
      out->field[out->nfields] = f;
      out->len[out->nfields] = (int)(fe - f);
      out->col[out->nfields] = (int)(f - start) + 1;
      out->nfields++;
      if (!tab) break;
      f = tab + 1;
    }
    return true;
  }
  return false;
}

static loc_t at(const reader_t *r, const fsm_line_t *l, int k) {
  return (loc_t){r->file, l->line, k < l->nfields && k < FSM_MAX_FIELDS ? l->col[k] : 1};
}

static bool is(const fsm_line_t *l, int k, const char *word) {
  return l->len[k] == (int)strlen(word) && strncmp(l->field[k], word, (size_t)l->len[k]) == 0;
}

/* A non-negative decimal field up to INT_MAX; -1 when it is none. */
static long number_field(const fsm_line_t *l, int k) {
  if (l->len[k] == 0) return -1;
  long v = 0;
  for (int i = 0; i < l->len[k]; i++) {
    char ch = l->field[k][i];
    if (ch < '0' || ch > '9') return -1;
    v = v * 10 + (ch - '0');
    if (v > INT_MAX) return -1;
  }
  return v;
}

/* LTSA's "rld.card.5" as ismv's "rld.card[5]": a numeric component is an index. */
static int ltsa_label(lts_labels_t *labels, const char *name, int n) {
  strbuf_t sb;
  strbuf_init(&sb);
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && name[j] != '.') j++;
    bool numeric = j > i;
    for (int k = i; k < j; k++) numeric &= name[k] >= '0' && name[k] <= '9';
    if (numeric && i > 0)
      strbuf_printf(&sb, "[%.*s]", j - i, name + i);
    else
      strbuf_printf(&sb, "%s%.*s", i > 0 ? "." : "", j - i, name + i);
    i = j + 1;
  }
  int id = lts_label(labels, strbuf_str(&sb));
  strbuf_free(&sb);
  return id;
}

lts_t *fsm_read_string(const char *name, const char *text, lts_labels_t *labels, long max, bool *limit_hit,
                       diag_list_t *diags) {
  const char *file = diag_add_source(diags, name, text);
  reader_t r = {file, text, 0};
  fsm_line_t l;
  int errors = 0;
  intern_t states;
  intern_init(&states);
  VEC(int) defined = {0};     /* per state id: the line defining it, 0 when only a target so far */
  VEC(loc_t) first_use = {0}; /* per state id: where it was first named */
  lts_builder_t b;
  lts_builder_init(&b, labels);
  long nstates = -1, ntrans = 0;
  int unmarked = -1;
#define ERR(loc, ...) (diag_error(diags, loc, __VA_ARGS__), errors++)
  if (!next_line(&r, &l))
    ERR(((loc_t){file, 1, 1}), "expected the number of states, found an empty file");
  else if (l.nfields != 1 || (nstates = number_field(&l, 0)) < 1) {
    diag_source_conceal(diags, file); /* not an FSM file at all: never echoed */
    ERR(at(&r, &l, 0), "expected the number of states (a positive number) on the first line");
  }
  else if (max > 0 && nstates > max) {
    ERR(at(&r, &l, 0), "%ld states: more than the limit %ld (raise --max-states)", nstates, max);
    if (limit_hit) *limit_hit = true;
  }
  for (long s = 0; errors == 0 && s < nstates; s++) {
    if (!next_line(&r, &l)) {
      ERR(((loc_t){file, r.line, 1}), "the file ends after %ld of its %ld states", s, nstates);
      break;
    }
    long nt = l.nfields == 3 ? number_field(&l, 2) : -1;
    if (l.nfields != 3 || l.len[0] == 0 || !(is(&l, 1, "0") || is(&l, 1, "1")) || nt < 0) {
      ERR(at(&r, &l, 0), "expected a state: NAME<tab>MARKED (0 or 1)<tab>NUMBER OF TRANSITIONS");
      break;
    }
    char *sname = xstrndup(l.field[0], (size_t)l.len[0]);
    bool added;
    int src = intern_add2(&states, sname, &added);
    free(sname);
    if (added) {
      lts_builder_add_state(&b);
      VEC_PUSH(&defined, 0);
      VEC_PUSH(&first_use, at(&r, &l, 0));
    }
    if (defined.data[src]) {
      ERR(at(&r, &l, 0), "state '%.*s' is defined twice (first on line %d)", l.len[0], l.field[0],
          defined.data[src]);
      break;
    }
    defined.data[src] = l.line;
    if (is(&l, 1, "0")) {
      if (unmarked >= 0)
        ERR(at(&r, &l, 1),
            "a second unmarked state: the error state is the only unmarked one (as in Fortis)");
      else if (nt > 0)
        ERR(at(&r, &l, 2), "the unmarked state is the error state and cannot have transitions");
      unmarked = src;
    }
    ntrans += nt;
    if (max > 0 && ntrans > max) {
      ERR(at(&r, &l, 2), "more than %ld transitions: more than the limit (raise --max-states)", max);
      if (limit_hit) *limit_hit = true;
      break;
    }
    for (long t = 0; t < nt && errors < FSM_MAX_ERRORS; t++) {
      if (!next_line(&r, &l)) {
        ERR(((loc_t){file, r.line, 1}), "the file ends inside a state's %ld transitions", nt);
        break;
      }
      if (l.nfields < 4 || l.nfields > 5 || l.len[0] == 0 || l.len[1] == 0) {
        ERR(at(&r, &l, 0), "expected a transition: EVENT<tab>TARGET<tab>c|uc<tab>o|uo[<tab>PROBABILITY]");
        continue;
      }
      if (!is(&l, 2, "c") && !is(&l, 2, "uc")) {
        ERR(at(&r, &l, 2), "expected 'c' (controllable) or 'uc'");
        continue;
      }
      if (!is(&l, 3, "o") && !is(&l, 3, "uo")) {
        ERR(at(&r, &l, 3), "expected 'o' (observable) or 'uo'");
        continue;
      }
      char *tname = xstrndup(l.field[1], (size_t)l.len[1]);
      int dst = intern_add2(&states, tname, &added);
      free(tname);
      if (added) {
        lts_builder_add_state(&b);
        VEC_PUSH(&defined, 0);
        VEC_PUSH(&first_use, at(&r, &l, 1));
      }
      lts_builder_add(&b, src, ltsa_label(labels, l.field[0], l.len[0]), dst);
    }
  }
  if (errors == 0 && next_line(&r, &l))
    ERR(at(&r, &l, 0), "text after the %ld states the first line announces", nstates);
  for (size_t s = 0; errors == 0 && s < defined.len; s++)
    if (!defined.data[s])
      ERR(first_use.data[s], "state '%s' is a target but never defined", intern_name(&states, (int)s));
#undef ERR
  intern_free(&states);
  VEC_FREE(&defined);
  VEC_FREE(&first_use);
  if (errors > 0) {
    lts_builder_free(&b);
    return NULL;
  }
  b.init = 0;
  b.error = unmarked;
  lts_t *out = lts_freeze(&b);
  lts_builder_free(&b);
  return out;
}

lts_t *fsm_read_file(const char *path, lts_labels_t *labels, long max, bool *limit_hit, diag_list_t *diags) {
  const char *registered;
  const char *text = diag_read_file(diags, path, (loc_t){0}, &registered);
  if (!text) return NULL;
  return fsm_read_string(registered, text, labels, max, limit_hit, diags);
}
