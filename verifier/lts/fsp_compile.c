#include "verifier/lts/fsp_compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"
#include "verifier/lts/fsp_fltl.h"

static lts_t *relabelled(fsp_ctx_t *c, lts_t *l);
static fsp_ltsvec_t *open_list(fsp_ctx_t *c);
static void close_list(fsp_ctx_t *c);
static lts_t *hide_or_restrict(fsp_ctx_t *c, lts_t *l);

/* ------------------------------------------------- primitive processes */

static void check_size(fsp_ctx_t *c) {
  if (c->b->nstates >= c->f->max_states || (long)c->b->ntrans >= c->f->max_states ||
      (c->b->nstates > 0 && (c->b->nstates & 1023) == 0 && stop_requested()))
    fsp_fail_limit(c, peek(c)->loc, "process '%s' has too many states or transitions", c->proc->name);
}

static int new_state(fsp_ctx_t *c) {
  if (!c->live) return -1;
  check_size(c);
  return lts_builder_add_state(c->b);
}

static void add_trans(fsp_ctx_t *c, int src, const char *label, int dst) {
  if (!c->live) return;
  check_size(c);
  lts_builder_add(c->b, src, lts_label(c->f->labels, label), dst);
}

static void choice(fsp_ctx_t *c, int src);
static bool starts_seq(const fsp_ctx_t *c);

/* Fails on the process name t, suggesting the closest of the candidates. */
static void undefined_process(fsp_ctx_t *c, const fsp_token_t *t, const char *const *cands, size_t n)
    __attribute__((noreturn));
static void undefined_process(fsp_ctx_t *c, const fsp_token_t *t, const char *const *cands, size_t n) {
  const char *sug = diag_suggest(t->text, cands, n);
  if (sug) fsp_fail(c, t->loc, "undefined process '%s' (did you mean '%s'?)", t->text, sug);
  fsp_fail(c, t->loc, "undefined process '%s'", t->text);
}

/* LTSA tells local processes apart by name and number of indices
 * (ALARM = ALARM[0], ALARM[a:R] = ... is legal). */
static fsp_local_def_t *find_local(fsp_ctx_t *c, const char *name, size_t nidx) {
  fsp_local_def_t *any = NULL;
  for (size_t i = 0; i < c->proc->locals.len; i++)
    if (strcmp(c->proc->locals.data[i].name, name) == 0) {
      if (c->proc->locals.data[i].nidx == nidx) return &c->proc->locals.data[i];
      any = &c->proc->locals.data[i];
    }
  return any;
}

/* Binds the index variables of local `ld` to `vals`, checking ranges. */
static void bind_indices(fsp_ctx_t *c, const fsp_local_def_t *ld, const fsp_val_t *vals, loc_t loc) {
  size_t save = c->pos;
  c->pos = ld->idx;
  for (size_t k = 0; k < ld->nidx; k++) {
    fsp_expect(c, FSP_TOK_LBRACK, "'['");
    const char *var = fsp_expect(c, FSP_TOK_LIDENT, "an index variable")->text;
    fsp_expect(c, FSP_TOK_COLON, "':'");
    long long lo, hi;
    bool in = true;
    if (at(c, FSP_TOK_UIDENT) && peek2(c)->kind == FSP_TOK_RBRACK && fsp_find_range(c->f, peek(c)->text)) {
      const fsp_named_range_t *r = fsp_find_range(c->f, next(c)->text);
      lo = r->lo;
      hi = r->hi;
      in = !vals[k].str && vals[k].i >= lo && vals[k].i <= hi;
    } else if (at(c, FSP_TOK_UIDENT) && peek2(c)->kind == FSP_TOK_RBRACK &&
               fsp_find_set(c->f, peek(c)->text)) {
      const fsp_named_set_t *s = fsp_find_set(c->f, next(c)->text);
      in = false;
      for (size_t i = 0; i < s->count; i++)
        if (vals[k].str && strcmp(vals[k].s, s->items[i]) == 0) in = true;
      lo = hi = 0;
    } else {
      loc_t rl = peek(c)->loc;
      lo = fsp_int_expr(c);
      fsp_expect(c, FSP_TOK_DOTDOT, "'..'");
      hi = fsp_int_expr(c);
      if (lo > hi) fsp_fail(c, rl, "empty range %lld..%lld", lo, hi);
      in = !vals[k].str && vals[k].i >= lo && vals[k].i <= hi;
    }
    fsp_expect(c, FSP_TOK_RBRACK, "']'");
    if (!in) {
      if (vals[k].str) fsp_fail(c, loc, "index '%s' of '%s' is out of its range", vals[k].s, ld->name);
      fsp_fail(c, loc, "index %lld of '%s' is out of range %lld..%lld", vals[k].i, ld->name, lo, hi);
    }
    fsp_push_binding(c, var, vals[k]);
  }
  c->pos = save;
}

/* The state of local process `ld` at index values `vals`. */
static int instantiate(fsp_ctx_t *c, fsp_local_def_t *ld, const fsp_val_t *vals, size_t nvals, loc_t loc) {
  if (nvals != ld->nidx)
    fsp_fail(c, loc, "'%s' takes %zu ind%s, %zu given", ld->name, ld->nidx, ld->nidx == 1 ? "ex" : "ices",
             nvals);
  strbuf_t key;
  strbuf_init(&key);
  strbuf_puts(&key, ld->name);
  for (size_t k = 0; k < nvals; k++) fsp_put_value(&key, vals[k]);
  bool added;
  int id = intern_add2(c->inst, strbuf_str(&key), &added);
  strbuf_free(&key);
  if (!added) {
    int s = c->inst_state.data[id];
    if (s == -2) fsp_fail(c, loc, "process '%s' is defined in terms of itself without an action", ld->name);
    return s;
  }
  VEC_PUSH(&c->inst_state, -2);
  size_t env_len = c->env.len;
  fsp_binding_t *caller = xmalloc((env_len + 1) * sizeof *caller);
  if (env_len) memcpy(caller, c->env.data, env_len * sizeof *caller);
  VEC_PUSH(&c->owned, caller); /* released on failure; popped below */
  c->env.len = c->param_len;
  bind_indices(c, ld, vals, loc);
  size_t save = c->pos;
  c->pos = ld->body;
  int s;
  if (at(c, FSP_TOK_LPAREN) || starts_seq(c)) {
    s = new_state(c);
    fsp_binding_t *snap = xmalloc((c->env.len + 1) * sizeof *snap);
    if (c->env.len) memcpy(snap, c->env.data, c->env.len * sizeof *snap);
    VEC_PUSH(&c->work_local, (size_t)(ld - c->proc->locals.data));
    VEC_PUSH(&c->work_state, s);
    VEC_PUSH(&c->work_env, snap);
    VEC_PUSH(&c->work_nenv, c->env.len);
  } else {
    fsp_nest(c, loc);
    s = fsp_target(c);
    fsp_unnest(c);
  }
  c->pos = save;
  c->env.len = 0;
  for (size_t i = 0; i < env_len; i++) VEC_PUSH(&c->env, caller[i]);
  c->owned.len--;
  free(caller);
  c->inst_state.data[id] = s;
  return s;
}

/* Whether the cursor is at a sequential composition A;... or A(args);... */
/* A process reference's optional argument list "(e1, ..., en)", at most 16. */
static size_t call_args(fsp_ctx_t *c, fsp_val_t args[16]) {
  size_t nargs = 0;
  if (accept(c, FSP_TOK_LPAREN)) {
    if (!at(c, FSP_TOK_RPAREN)) do {
        loc_t l = peek(c)->loc;
        fsp_val_t v = fsp_expr(c);
        if (nargs == 16) fsp_fail(c, l, "more than 16 arguments");
        args[nargs++] = v;
      } while (accept(c, FSP_TOK_COMMA));
    fsp_expect(c, FSP_TOK_RPAREN, "')'");
  }
  return nargs;
}

static bool starts_seq(const fsp_ctx_t *c) {
  return at(c, FSP_TOK_UIDENT) && (peek2(c)->kind == FSP_TOK_SEMI || peek2(c)->kind == FSP_TOK_LPAREN);
}

static int seq_into(fsp_ctx_t *c, int s);

static int special_state(fsp_ctx_t *c, int *slot, bool end) {
  if (!c->live) return -1;
  if (*slot < 0) {
    *slot = lts_builder_add_state(c->b);
    if (end) lts_builder_mark_end(c->b, *slot);
  }
  return *slot;
}

/* A process term after '->' or '=': returns its state. */
int fsp_target(fsp_ctx_t *c) {
  const fsp_token_t *t = peek(c);
  if (fsp_is_kw(t, "STOP")) return next(c), special_state(c, &c->stop, false);
  if (fsp_is_kw(t, "END")) return next(c), special_state(c, &c->end, true);
  if (fsp_is_kw(t, "ERROR")) {
    next(c);
    int s = special_state(c, &c->error, false);
    if (c->live) c->b->error = s;
    return s;
  }
  if (fsp_is_kw(t, "if")) {
    next(c);
    fsp_nest(c, t->loc);
    bool live = c->live;
    bool cond = fsp_int_expr(c) != 0;
    if (!fsp_is_kw(peek(c), "then"))
      fsp_fail(c, peek(c)->loc, "expected 'then', found '%s'", fsp_describe(peek(c)));
    next(c);
    c->live = live && cond;
    int a = fsp_target(c);
    int r = a;
    c->live = live && !cond;
    if (fsp_is_kw(peek(c), "else")) {
      next(c);
      r = fsp_target(c);
    } else if (live && !cond)
      r = special_state(c, &c->stop, false);
    c->live = live;
    fsp_unnest(c);
    return cond ? a : r;
  }
  if (t->kind == FSP_TOK_LPAREN) {
    next(c);
    fsp_nest(c, t->loc);
    int s = new_state(c);
    choice(c, s);
    fsp_expect(c, FSP_TOK_RPAREN, "')'");
    fsp_unnest(c);
    return s;
  }
  if (starts_seq(c)) return seq_into(c, -1);
  if (t->kind == FSP_TOK_UIDENT) {
    next(c);
    fsp_val_t vals[16];
    size_t nvals = 0;
    while (accept(c, FSP_TOK_LBRACK)) {
      loc_t l = peek(c)->loc;
      fsp_val_t v = fsp_expr(c);
      if (nvals == 16) fsp_fail(c, l, "more than 16 indices");
      vals[nvals++] = v;
      fsp_expect(c, FSP_TOK_RBRACK, "']'");
    }
    if (!c->live) return -1;
    fsp_local_def_t *ld = find_local(c, t->text, nvals);
    if (!ld) {
      if (fsp_find_proc(c->f, t->text))
        fsp_fail(c, t->loc,
                 "'%s' is a top-level process; a process body may only refer to its own local processes",
                 t->text);
      const char *cands[64];
      size_t nc = 0;
      for (size_t i = 0; i < c->proc->locals.len && nc < 64; i++) cands[nc++] = c->proc->locals.data[i].name;
      undefined_process(c, t, cands, nc);
    }
    return instantiate(c, ld, vals, nvals, t->loc);
  }
  fsp_fail(c, t->loc, "expected a process (a name, STOP, END, ERROR or '('), found '%s'", fsp_describe(t));
}

/* ---------------------------------------------- sequential composition */

static bool has_end(const lts_t *l) {
  for (int s = 0; l->end && s < l->nstates; s++)
    if (bitset_get(l->end, (size_t)s)) return true;
  return false;
}

/* Copies the states and transitions of process `l` into the process being
 * built: its initial state becomes `entry`, its END states `exit`, its
 * error state the process's ERROR. */
static void inline_process(fsp_ctx_t *c, const lts_t *l, int entry, int exit) {
  int *map = xmalloc(((size_t)l->nstates + 1) * sizeof *map);
  VEC_PUSH(&c->owned, map); /* released on failure */
  for (int st = 0; st < l->nstates; st++) {
    if (st == l->init)
      map[st] = entry;
    else if (l->end && bitset_get(l->end, (size_t)st))
      map[st] = exit;
    else if (st == l->error) {
      map[st] = special_state(c, &c->error, false);
      c->b->error = map[st];
    } else
      map[st] = new_state(c);
  }
  for (int a = 0; a < l->nalphabet; a++) lts_builder_alphabet_add(c->b, l->alphabet[a]);
  for (int st = 0; st < l->nstates; st++)
    for (int i = l->succ_off[st]; i < l->succ_off[st + 1]; i++) {
      check_size(c);
      lts_builder_add(c->b, map[st], l->succ_label[i], map[l->succ_dst[i]]);
    }
  c->owned.len--;
  free(map);
}

/* A sequential composition `A;B(1);...;X` at the cursor (LTSA): A, B, ...
 * are top-level processes that can END, X a process term of the body.
 * A's END continues as B, the last one's END as X. Enters at state s
 * (s < 0: a new state; an A that is only END is left out). Returns the
 * entry state (-1 in dead mode). */
static int seq_into(fsp_ctx_t *c, int s) {
  fsp_ltsvec_t *parts = open_list(c);
  loc_t first = peek(c)->loc;
  while (starts_seq(c)) {
    const fsp_token_t *t = next(c);
    fsp_val_t args[16];
    size_t nargs = call_args(c, args);
    fsp_expect(c, FSP_TOK_SEMI, "';' (a sequential composition A;B)");
    if (!c->live) continue;
    fsp_proc_def_t *p = fsp_find_proc(c->f, t->text);
    if (!p) {
      const char *cands[256];
      size_t nc = 0;
      for (size_t i = 0; i < c->f->procs.len && nc < 256; i++) cands[nc++] = c->f->procs.data[i].name;
      undefined_process(c, t, cands, nc);
    }
    lts_t *l = fsp_compile_def(c, p, args, nargs, t->loc);
    if (!has_end(l))
      fsp_fail(c, t->loc,
               "process '%s' cannot reach END, so nothing can follow it in a sequential composition",
               t->text);
    if (l->nstates > 1) VEC_PUSH(parts, l); /* one that is only END does nothing */
  }
  if (!at(c, FSP_TOK_UIDENT))
    fsp_fail(c, peek(c)->loc, "expected a process after ';', found '%s'", fsp_describe(peek(c)));
  int cont = fsp_target(c);
  if (!c->live) {
    close_list(c);
    return -1;
  }
  if (parts->len == 0) {
    if (s >= 0)
      fsp_fail(c, first,
               "every process of this sequential composition is only END (write the process after the last "
               "';' instead)");
    close_list(c);
    return cont;
  }
  if (s < 0) s = new_state(c);
  int entry = s;
  for (size_t i = 0; i < parts->len; i++) {
    int exit = i + 1 < parts->len ? new_state(c) : cont;
    inline_process(c, parts->data[i], entry, exit);
    entry = exit;
  }
  close_list(c);
  return s;
}

typedef struct {
  int src;
  size_t after; /* token index after '->' */
  size_t end;
} chain_t;

static void chain_from(fsp_ctx_t *c, int src);

static void chain_cb(fsp_ctx_t *c, const char *label, void *data) {
  chain_t *ch = data;
  c->pos = ch->after;
  if (fsp_starts_label(c)) {
    int s = new_state(c);
    add_trans(c, ch->src, label, s);
    fsp_nest(c, peek(c)->loc);
    chain_from(c, s);
    fsp_unnest(c);
  } else {
    int dst = fsp_target(c);
    add_trans(c, ch->src, label, dst);
  }
  ch->end = c->pos;
}

/* Whether the label pattern in tokens [from, to) stands for one label and
 * binds nothing (no set, range, binding or named range/set index). */
static bool single_label(const fsp_ctx_t *c, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    const fsp_token_t *t = &c->f->toks[i];
    if (t->kind == FSP_TOK_LBRACE || t->kind == FSP_TOK_COLON || t->kind == FSP_TOK_DOTDOT) return false;
    if (t->kind == FSP_TOK_UIDENT && (fsp_find_range(c->f, t->text) || fsp_find_set(c->f, t->text)))
      return false;
  }
  return true;
}

static void one_label_cb(fsp_ctx_t *c, const char *label, void *data) {
  (void)c;
  *(const char **)data = label;
}

/* label -> label -> ... -> target, from state src. A run of single labels
 * is followed in a loop; a set-valued label recurses once per such label
 * (its bindings hold for the rest of the chain). */
static void chain_from(fsp_ctx_t *c, int src) {
  for (;;) {
    size_t start = c->pos;
    fsp_skip_label(c);
    size_t stop = c->pos;
    fsp_expect(c, FSP_TOK_ARROW, "'->'");
    size_t after = c->pos;
    if (single_label(c, start, stop)) {
      const char *label = "";
      c->pos = start;
      fsp_enum_label(c, one_label_cb, &label);
      c->pos = after;
      if (fsp_starts_label(c)) {
        int s = new_state(c);
        add_trans(c, src, label, s);
        src = s;
        continue;
      }
      int dst = fsp_target(c);
      add_trans(c, src, label, dst);
      return;
    }
    chain_t ch = {src, after, 0};
    c->pos = start;
    fsp_enum_label(c, chain_cb, &ch);
    if (ch.end == 0) {
      /* nothing enumerated (dead code or an empty set): check the syntax */
      bool live = c->live;
      c->live = false;
      chain_cb(c, "", &ch);
      c->live = live;
    }
    c->pos = ch.end;
    return;
  }
}

static void choice(fsp_ctx_t *c, int src) {
  do {
    bool live = c->live;
    if (fsp_is_kw(peek(c), "when")) {
      next(c);
      bool g = fsp_int_expr(c) != 0;
      c->live = live && g;
    }
    chain_from(c, src);
    c->live = live;
  } while (accept(c, FSP_TOK_BAR));
}

/* Relabel pairs new/old from `/{...}` at the cursor. */
typedef struct {
  fsp_strvec_t *news, *olds; /* opened with open_strs */
} relabel_t;

typedef struct {
  relabel_t *r;
  size_t old_pos;
} relabel_cb_t;

static void relabel_new_cb(fsp_ctx_t *c, const char *label, void *data) {
  relabel_cb_t *rc = data;
  size_t save = c->pos;
  c->pos = rc->old_pos;
  fsp_strvec_t *olds = fsp_open_strs(c);
  fsp_labels_of(c, olds);
  for (size_t i = 0; i < olds->len; i++) {
    VEC_PUSH(rc->r->news, label);
    VEC_PUSH(rc->r->olds, olds->data[i]);
  }
  fsp_close_strs(c);
  c->pos = save;
}

static void parse_relabel(fsp_ctx_t *c, relabel_t *r) {
  fsp_expect(c, FSP_TOK_LBRACE, "'{'");
  if (!at(c, FSP_TOK_RBRACE)) do {
      size_t new_pos = c->pos;
      fsp_skip_label(c);
      fsp_expect(c, FSP_TOK_SLASH, "'/'");
      size_t old_pos = c->pos;
      fsp_skip_label(c);
      size_t end = c->pos;
      c->pos = new_pos;
      relabel_cb_t rc = {r, old_pos};
      fsp_enum_label(c, relabel_new_cb, &rc);
      c->pos = end;
    } while (accept(c, FSP_TOK_COMMA));
  fsp_expect(c, FSP_TOK_RBRACE, "'}'");
}

static lts_t *keep_temp(fsp_ctx_t *c, lts_t *l) {
  VEC_PUSH(&c->temps, l);
  return l;
}

/* p's `property` error LTS, or its `deterministic` form, of l: the
 * subset construction is bounded by max_states and stops at a stop
 * request (ism/stop.h), either a located limit error at p. */
static lts_t *property_of(fsp_ctx_t *c, const lts_t *l, const fsp_proc_def_t *p) {
  lts_t *r = lts_property_bounded(l, c->f->max_states, stop_poll, NULL);
  if (!r) fsp_fail_limit(c, p->loc, "the property '%s' has too many states", p->name);
  return keep_temp(c, r);
}

static lts_t *deterministic_of(fsp_ctx_t *c, const lts_t *l, const fsp_proc_def_t *p) {
  lts_t *r = lts_determinise_bounded(l, false, c->f->max_states, stop_poll, NULL);
  if (!r) fsp_fail_limit(c, p->loc, "the deterministic form of '%s' has too many states", p->name);
  return keep_temp(c, r);
}

static lts_t *apply_relabel(fsp_ctx_t *c, const lts_t *l, const relabel_t *r) {
  lts_builder_t *b = xmalloc(sizeof *b);
  VEC_PUSH(&c->builders, b);
  lts_builder_init(b, c->f->labels);
  b->nstates = l->nstates;
  b->init = l->init;
  b->error = l->error;
  strbuf_t sb;
  strbuf_init(&sb);
  int nlab = (int)c->f->labels->names.count;
  /* map each label once: the list of its new names */
  VEC(int) *map = xcalloc((size_t)nlab, sizeof *map);
  bool *done = xcalloc((size_t)nlab, sizeof *done);
#define MAP_LABEL(lab)                                                                                       \
  do {                                                                                                       \
    if ((lab) < nlab && !done[lab]) {                                                                        \
      done[lab] = true;                                                                                      \
      const char *nm = lts_label_name(c->f->labels, (lab));                                                  \
      for (size_t k = 0; k < r->olds->len; k++)                                                              \
        if (lts_label_has_prefix(nm, r->olds->data[k])) {                                                    \
          strbuf_clear(&sb);                                                                                 \
          strbuf_puts(&sb, r->news->data[k]);                                                                \
          strbuf_puts(&sb, nm + strlen(r->olds->data[k]));                                                   \
          VEC_PUSH(&map[lab], lts_label(c->f->labels, strbuf_str(&sb)));                                     \
        }                                                                                                    \
      if (map[lab].len == 0) VEC_PUSH(&map[lab], (lab));                                                     \
    }                                                                                                        \
  } while (0)
  for (int i = 0; i < l->nalphabet; i++) {
    int a = l->alphabet[i];
    MAP_LABEL(a);
    for (size_t k = 0; k < map[a].len; k++) lts_builder_alphabet_add(b, map[a].data[k]);
  }
  for (int s = 0; s < l->nstates; s++) {
    if (l->end && bitset_get(l->end, (size_t)s)) lts_builder_mark_end(b, s);
    for (int i = l->succ_off[s]; i < l->succ_off[s + 1]; i++) {
      int a = l->succ_label[i];
      if (a == LTS_TAU) {
        lts_builder_add(b, s, a, l->succ_dst[i]);
        continue;
      }
      MAP_LABEL(a);
      for (size_t k = 0; k < map[a].len; k++) lts_builder_add(b, s, map[a].data[k], l->succ_dst[i]);
    }
  }
#undef MAP_LABEL
  for (int i = 0; i < nlab; i++) VEC_FREE(&map[i]);
  free(map);
  free(done);
  strbuf_free(&sb);
  c->builders.len--;
  lts_t *r2 = lts_freeze(b);
  free(b);
  return keep_temp(c, r2);
}

/* The sorted ids of alphabet labels having some prefix in `set`. */
static int matching_labels(fsp_ctx_t *c, const lts_t *l, const fsp_strvec_t *set, int **out) {
  int *ids = xmalloc(((size_t)l->nalphabet + 1) * sizeof *ids);
  int n = 0;
  for (int i = 0; i < l->nalphabet; i++) {
    const char *nm = lts_label_name(c->f->labels, l->alphabet[i]);
    for (size_t k = 0; k < set->len; k++)
      if (lts_label_has_prefix(nm, set->data[k])) {
        ids[n++] = l->alphabet[i];
        break;
      }
  }
  *out = ids;
  return n;
}

/* The trailer: + {ext} / {relabel} \ {hide} or @ {interface}, then '.'. */
static lts_t *apply_trailer(fsp_ctx_t *c, lts_t *l, bool primitive) {
  if (primitive && accept(c, FSP_TOK_PLUS)) {
    fsp_strvec_t *ext = fsp_open_strs(c); /* released by a failure's longjmp too */
    fsp_set_expr(c, ext);
    lts_builder_t b;
    lts_builder_init(&b, c->f->labels);
    for (size_t i = 0; i < ext->len; i++) lts_builder_alphabet_add(&b, lts_label(c->f->labels, ext->data[i]));
    fsp_close_strs(c);
    /* merge the extension into a copy of l */
    lts_t *cp = lts_copy(l);
    int *alpha = xmalloc(((size_t)cp->nalphabet + b.nalpha + 1) * sizeof *alpha);
    if (cp->nalphabet) memcpy(alpha, cp->alphabet, (size_t)cp->nalphabet * sizeof *alpha);
    if (b.nalpha) memcpy(alpha + cp->nalphabet, b.alpha, b.nalpha * sizeof *alpha);
    int n = cp->nalphabet + (int)b.nalpha;
    lts_builder_free(&b);
    /* sort-unique */
    for (int i = 1; i < n; i++)
      for (int j = i; j > 0 && alpha[j - 1] > alpha[j]; j--) {
        int t = alpha[j];
        alpha[j] = alpha[j - 1];
        alpha[j - 1] = t;
      }
    int m = 0;
    for (int i = 0; i < n; i++)
      if (m == 0 || alpha[m - 1] != alpha[i]) alpha[m++] = alpha[i];
    free(cp->alphabet);
    cp->alphabet = alpha;
    cp->nalphabet = m;
    l = keep_temp(c, cp);
  }
  if (accept(c, FSP_TOK_SLASH)) l = relabelled(c, l);
  if (at(c, FSP_TOK_BACKSLASH) || at(c, FSP_TOK_AT)) l = hide_or_restrict(c, l);
  return l;
}

/* Binds the parameters of `p` to `args` (or to their defaults). */
static void bind_params(fsp_ctx_t *c, const fsp_proc_def_t *p, const fsp_val_t *args, size_t nargs,
                        loc_t loc) {
  if (nargs > p->nparams)
    fsp_fail(c, loc, "'%s' takes %zu parameter%s, %zu given", p->name, p->nparams, p->nparams == 1 ? "" : "s",
             nargs);
  if (!p->params) return;
  size_t save = c->pos;
  c->pos = p->params;
  fsp_expect(c, FSP_TOK_LPAREN, "'('");
  for (size_t k = 0; k < p->nparams; k++) {
    const char *name = next(c)->text;
    fsp_expect(c, FSP_TOK_ASSIGN, "'='");
    fsp_val_t v = fsp_expr(c);
    fsp_push_binding(c, name, k < nargs ? args[k] : v);
    accept(c, FSP_TOK_COMMA);
  }
  c->pos = save;
}

static lts_t *compile_primitive(fsp_ctx_t *c, fsp_proc_def_t *p, const fsp_val_t *args, size_t nargs,
                                loc_t loc) {
  fsp_proc_def_t *saved_proc = c->proc;
  lts_builder_t *saved_b = c->b;
  intern_t *saved_inst = c->inst;
  int saved_stop = c->stop, saved_end = c->end, saved_error = c->error;
  size_t saved_param_len = c->param_len;
  /* the caller's instance states (a sequential composition compiles its
   * processes in the middle of another one); released on failure */
  int *saved_inst_state = c->inst_state.data;
  size_t saved_inst_len = c->inst_state.len, saved_inst_cap = c->inst_state.cap;
  VEC_PUSH(&c->owned, saved_inst_state);
  memset(&c->inst_state, 0, sizeof c->inst_state);
  size_t env_len = c->env.len;
  c->proc = p;
  c->b = xmalloc(sizeof *c->b);
  VEC_PUSH(&c->builders, c->b);
  lts_builder_init(c->b, c->f->labels);
  c->inst = xmalloc(sizeof *c->inst);
  intern_init(c->inst);
  VEC_PUSH(&c->interns, c->inst);
  c->stop = c->end = c->error = -1;
  bind_params(c, p, args, nargs, loc);
  c->param_len = c->env.len;
  size_t base_work = c->work_state.len;
  c->b->init = instantiate(c, &p->locals.data[0], NULL, 0, p->loc);
  while (c->work_state.len > base_work) {
    size_t k = c->work_state.len - 1;
    fsp_local_def_t *ld = &p->locals.data[c->work_local.data[k]];
    int s = c->work_state.data[k];
    fsp_binding_t *snap = c->work_env.data[k];
    size_t nenv = c->work_nenv.data[k];
    c->work_local.len--;
    c->work_state.len--;
    c->work_env.len--;
    c->work_nenv.len--;
    c->env.len = 0;
    for (size_t i = 0; i < nenv; i++) VEC_PUSH(&c->env, snap[i]);
    free(snap);
    c->pos = ld->body;
    if (starts_seq(c)) {
      seq_into(c, s);
      continue;
    }
    fsp_expect(c, FSP_TOK_LPAREN, "'('");
    choice(c, s);
    fsp_expect(c, FSP_TOK_RPAREN, "')'");
  }
  c->env.len = env_len;
  bind_params(c, p, args, nargs, loc);
  lts_builder_t *b = c->b;
  c->builders.len--;
  lts_t *raw = keep_temp(c, lts_freeze(b));
  free(b);
  c->pos = p->trailer;
  lts_t *l = apply_trailer(c, raw, true);
  c->env.len = env_len;
  lts_t *r = keep_temp(c, lts_reachable(l));
  if (p->property) r = property_of(c, r, p);
  c->interns.len--;
  intern_free(c->inst);
  free(c->inst);
  c->proc = saved_proc;
  c->b = saved_b;
  c->inst = saved_inst;
  c->stop = saved_stop;
  c->end = saved_end;
  c->error = saved_error;
  c->param_len = saved_param_len;
  VEC_FREE(&c->inst_state);
  c->owned.len--;
  c->inst_state.data = saved_inst_state;
  c->inst_state.len = saved_inst_len;
  c->inst_state.cap = saved_inst_cap;
  return r;
}

/* ---------------------------------------------------------- composites */

static lts_t *prefix_lts(fsp_ctx_t *c, const lts_t *l, const fsp_strvec_t *prefixes) {
  relabel_t r = {fsp_open_strs(c), fsp_open_strs(c)};
  /* every label x becomes p.x for each prefix p: relabel with old = each label */
  for (int i = 0; i < l->nalphabet; i++) {
    const char *nm = lts_label_name(c->f->labels, l->alphabet[i]);
    for (size_t k = 0; k < prefixes->len; k++) {
      VEC_PUSH(r.news, fsp_label_dup(c, arena_printf(&c->f->arena, "%s.%s", prefixes->data[k], nm)));
      VEC_PUSH(r.olds, nm);
    }
  }
  /* exact matches only: use a private relabel where old == whole label */
  lts_t *out = apply_relabel(c, l, &r);
  fsp_close_strs(c);
  fsp_close_strs(c);
  return out;
}

static void comp_list(fsp_ctx_t *c, fsp_ltsvec_t *parts);
static void comp_elem(fsp_ctx_t *c, fsp_ltsvec_t *parts);

/* Heap vectors that a failure (longjmp) releases: stacks in ctx. */
static fsp_ltsvec_t *open_list(fsp_ctx_t *c) {
  fsp_ltsvec_t *v = xcalloc(1, sizeof *v);
  VEC_PUSH(&c->lists, v);
  return v;
}

static void close_list(fsp_ctx_t *c) {
  fsp_ltsvec_t *v = VEC_POP(&c->lists);
  VEC_FREE(v);
  free(v);
}

static lts_t *hide_or_restrict(fsp_ctx_t *c, lts_t *l) {
  bool hide = next(c)->kind == FSP_TOK_BACKSLASH;
  fsp_strvec_t *set = fsp_open_strs(c);
  fsp_set_expr(c, set);
  if (l) {
    int *ids;
    int n = matching_labels(c, l, set, &ids);
    l = keep_temp(c, hide ? lts_hide(l, ids, n) : lts_restrict(l, ids, n));
    free(ids);
  }
  fsp_close_strs(c);
  return l;
}

static lts_t *relabelled(fsp_ctx_t *c, lts_t *l) {
  relabel_t r = {fsp_open_strs(c), fsp_open_strs(c)};
  parse_relabel(c, &r);
  if (l) l = apply_relabel(c, l, &r);
  fsp_close_strs(c);
  fsp_close_strs(c);
  return l;
}

/* The machines `m` composed into one; `loc` locates a size-limit error. */
static lts_t *compose_all(fsp_ctx_t *c, const fsp_ltsvec_t *m, loc_t loc) {
  if (m->len == 1) return m->data[0];
  lts_t *l = lts_compose_max((const lts_t *const *)m->data, (int)m->len, c->f->max_states, c->f->max_states);
  if (!l) fsp_fail_limit(c, loc, "this composition has too many states or transitions");
  return keep_temp(c, l);
}

/* The machines `m` composed under the priority `<< {...}` or `>> {...}` at
 * the cursor (LTSA applies it while composing, to one machine too). */
static lts_t *compose_priority(fsp_ctx_t *c, const fsp_ltsvec_t *m, loc_t loc) {
  bool high = next(c)->kind == FSP_TOK_SHL;
  fsp_strvec_t *set = fsp_open_strs(c);
  fsp_set_expr(c, set);
  /* the labels of the machines that the set names (prefix matching, as LTSA) */
  lts_builder_t *alpha = xmalloc(sizeof *alpha);
  VEC_PUSH(&c->builders, alpha);
  lts_builder_init(alpha, c->f->labels);
  for (size_t i = 0; i < m->len; i++)
    for (int a = 0; a < m->data[i]->nalphabet; a++) lts_builder_alphabet_add(alpha, m->data[i]->alphabet[a]);
  lts_builder_add_state(alpha);
  c->builders.len--;
  lts_t *all = keep_temp(c, lts_freeze(alpha));
  free(alpha);
  int *ids;
  int n = matching_labels(c, all, set, &ids);
  fsp_close_strs(c);
  lts_priority_t prio = {ids, n, high};
  lts_t *l = lts_compose_priority((const lts_t *const *)m->data, (int)m->len, c->f->max_states,
                                  c->f->max_states, &prio);
  free(ids);
  if (!l) fsp_fail_limit(c, loc, "this composition has too many states or transitions");
  return keep_temp(c, l);
}

/* Whether relabelling `r` maps some label of the machines to two or more
 * new labels: then, as in LTSA, the machines are composed first (copies of
 * one action in separate machines would not synchronise as one). */
static bool one_to_many(fsp_ctx_t *c, const fsp_ltsvec_t *m, const relabel_t *r) {
  for (size_t i = 0; i < m->len; i++)
    for (int a = 0; a < m->data[i]->nalphabet; a++) {
      const char *nm = lts_label_name(c->f->labels, m->data[i]->alphabet[a]);
      const char *first = NULL;
      for (size_t k = 0; k < r->olds->len; k++)
        if (lts_label_has_prefix(nm, r->olds->data[k])) {
          if (first && strcmp(first, r->news->data[k]) != 0) return true;
          first = r->news->data[k];
        }
    }
  return false;
}

/* Relabels every machine of `m` in place (LTSA relabels the components of
 * a composite before composing them, so labels it merges synchronise). */
static void relabel_machines(fsp_ctx_t *c, fsp_ltsvec_t *m) {
  loc_t loc = peek(c)->loc;
  relabel_t r = {fsp_open_strs(c), fsp_open_strs(c)};
  parse_relabel(c, &r);
  if (c->live && m->len > 1 && one_to_many(c, m, &r)) {
    lts_t *all = compose_all(c, m, loc);
    m->len = 0;
    VEC_PUSH(m, all);
  }
  if (c->live)
    for (size_t i = 0; i < m->len; i++) m->data[i] = apply_relabel(c, m->data[i], &r);
  fsp_close_strs(c);
  fsp_close_strs(c);
}

static void def_machines(fsp_ctx_t *c, fsp_proc_def_t *p, const fsp_val_t *args, size_t nargs, loc_t loc,
                         fsp_ltsvec_t *out);

/* One element of a composition; appends its machines (not yet composed)
 * to parts: prefixes, then relabelling, are applied to each machine. */
static void comp_elem(fsp_ctx_t *c, fsp_ltsvec_t *parts) {
  fsp_strvec_t *prefixes = fsp_open_strs(c);
  bool shared = false;
  if (fsp_starts_label(c)) {
    fsp_labels_of(c, prefixes);
    if (accept(c, FSP_TOK_COLONCOLON))
      shared = true;
    else
      fsp_expect(c, FSP_TOK_COLON, "':' or '::'");
  }
  fsp_ltsvec_t *inner = open_list(c);
  loc_t loc = peek(c)->loc;
  if (accept(c, FSP_TOK_LPAREN)) {
    fsp_nest(c, loc);
    comp_list(c, inner);
    fsp_expect(c, FSP_TOK_RPAREN, "')'");
    fsp_unnest(c);
  } else {
    const fsp_token_t *t = fsp_expect(c, FSP_TOK_UIDENT, "a process name");
    fsp_val_t args[16];
    size_t nargs = call_args(c, args);
    if (c->live) {
      fsp_proc_def_t *p = fsp_find_proc(c->f, t->text);
      if (!p) {
        const char *cands[256];
        size_t nc = 0;
        for (size_t i = 0; i < c->f->procs.len && nc < 256; i++) cands[nc++] = c->f->procs.data[i].name;
        undefined_process(c, t, cands, nc);
      }
      def_machines(c, p, args, nargs, loc, inner);
    }
  }
  fsp_ltsvec_t *machines = open_list(c);
  if (prefixes->len == 0 || !c->live)
    for (size_t i = 0; i < inner->len; i++) VEC_PUSH(machines, inner->data[i]);
  else if (shared)
    for (size_t i = 0; i < inner->len; i++) VEC_PUSH(machines, prefix_lts(c, inner->data[i], prefixes));
  else
    for (size_t k = 0; k < prefixes->len; k++) {
      fsp_strvec_t *one = fsp_open_strs(c);
      VEC_PUSH(one, prefixes->data[k]);
      for (size_t i = 0; i < inner->len; i++) VEC_PUSH(machines, prefix_lts(c, inner->data[i], one));
      fsp_close_strs(c);
    }
  if (accept(c, FSP_TOK_SLASH)) relabel_machines(c, machines);
  if (at(c, FSP_TOK_BACKSLASH) || at(c, FSP_TOK_AT)) {
    lts_t *l = c->live && machines->len ? compose_all(c, machines, loc) : NULL;
    l = hide_or_restrict(c, l);
    machines->len = 0;
    if (l) VEC_PUSH(machines, l);
  }
  for (size_t i = 0; i < machines->len; i++) VEC_PUSH(parts, machines->data[i]);
  close_list(c);
  close_list(c);
  fsp_close_strs(c);
}

void fsp_index_domain(fsp_ctx_t *c, fsp_valvec_t *vals) {
  const fsp_token_t *t = peek(c);
  if (t->kind == FSP_TOK_UIDENT && peek2(c)->kind == FSP_TOK_RBRACK) {
    next(c);
    const fsp_named_range_t *r = fsp_find_range(c->f, t->text);
    const fsp_named_set_t *s = r ? NULL : fsp_find_set(c->f, t->text);
    if (!r && !s && c->live) fsp_fail(c, t->loc, "undefined range or set '%s'", t->text);
    if (r) fsp_check_range(c, t->loc, r->lo, r->hi);
    if (r && c->live)
      for (long long v = r->lo; v <= r->hi; v++) VEC_PUSH(vals, fsp_ival(v));
    if (s)
      for (size_t k = 0; k < s->count; k++) VEC_PUSH(vals, ((fsp_val_t){true, 0, s->items[k]}));
  } else if (t->kind == FSP_TOK_LBRACE) {
    fsp_strvec_t *items = fsp_open_strs(c);
    fsp_labels_of(c, items);
    for (size_t k = 0; k < items->len; k++) VEC_PUSH(vals, ((fsp_val_t){true, 0, items->data[k]}));
    fsp_close_strs(c);
  } else {
    long long lo = fsp_int_expr(c);
    fsp_expect(c, FSP_TOK_DOTDOT, "'..'");
    long long hi = fsp_int_expr(c);
    fsp_check_range(c, t->loc, lo, hi);
    if (c->live)
      for (long long v = lo; v <= hi; v++) VEC_PUSH(vals, fsp_ival(v));
  }
}

/* After `forall`: [i:R] at the cursor, then more [j:S] or the element,
 * once per value with the index bound (LTSA's replicated composition). */
static void forall_rest(fsp_ctx_t *c, fsp_ltsvec_t *parts) {
  fsp_nest(c, peek(c)->loc);
  fsp_expect(c, FSP_TOK_LBRACK, "'[' after 'forall'");
  const char *var = fsp_expect(c, FSP_TOK_LIDENT, "an index variable (lower case)")->text;
  fsp_expect(c, FSP_TOK_COLON, "':'");
  fsp_valvec_t vals = {0};
  fsp_index_domain(c, &vals);
  fsp_expect(c, FSP_TOK_RBRACK, "']'");
  VEC_PUSH(&c->owned, vals.data); /* released on failure */
  size_t body = c->pos, end = body;
  if (!c->live || vals.len == 0) { /* syntax only */
    bool live = c->live;
    c->live = false;
    fsp_push_binding(c, var, fsp_ival(0));
    if (at(c, FSP_TOK_LBRACK))
      forall_rest(c, parts);
    else
      comp_elem(c, parts);
    c->env.len--;
    c->live = live;
    end = c->pos;
  } else
    for (size_t k = 0; k < vals.len; k++) {
      c->pos = body;
      fsp_push_binding(c, var, vals.data[k]);
      if (at(c, FSP_TOK_LBRACK))
        forall_rest(c, parts);
      else
        comp_elem(c, parts);
      c->env.len--;
      end = c->pos;
    }
  c->pos = end;
  c->owned.len--;
  VEC_FREE(&vals);
  fsp_unnest(c);
}

static void comp_list(fsp_ctx_t *c, fsp_ltsvec_t *parts) {
  do {
    if (fsp_is_kw(peek(c), "forall")) {
      next(c);
      forall_rest(c, parts);
    } else
      comp_elem(c, parts);
  } while (accept(c, FSP_TOK_OROR));
}

/* A composite body: (P || Q || ...) or one element. */
void fsp_comp_body(fsp_ctx_t *c, fsp_ltsvec_t *parts) {
  if (accept(c, FSP_TOK_LPAREN)) {
    comp_list(c, parts);
    fsp_expect(c, FSP_TOK_RPAREN, "')'");
    if (accept(c, FSP_TOK_SLASH)) relabel_machines(c, parts);
  } else if (fsp_is_kw(peek(c), "forall")) {
    next(c);
    forall_rest(c, parts);
  } else
    comp_elem(c, parts);
}

/* The machines of composite p: its body's machines, relabelled by the
 * trailer's `/{...}`; not composed, not hidden. */
static void composite_machines(fsp_ctx_t *c, fsp_proc_def_t *p, const fsp_val_t *args, size_t nargs,
                               loc_t loc, fsp_ltsvec_t *out) {
  bind_params(c, p, args, nargs, loc);
  c->pos = p->body;
  fsp_comp_body(c, out);
  c->pos = p->trailer;
  if (accept(c, FSP_TOK_SLASH)) relabel_machines(c, out);
}

static lts_t *compile_composite(fsp_ctx_t *c, fsp_proc_def_t *p, const fsp_val_t *args, size_t nargs,
                                loc_t loc) {
  size_t env_len = c->env.len;
  fsp_ltsvec_t *parts = open_list(c);
  composite_machines(c, p, args, nargs, loc, parts);
  bool prio = at(c, FSP_TOK_SHL) || at(c, FSP_TOK_SHR);
  lts_t *l = prio ? compose_priority(c, parts, p->loc) : compose_all(c, parts, p->loc);
  close_list(c);
  if (at(c, FSP_TOK_BACKSLASH) || at(c, FSP_TOK_AT)) l = hide_or_restrict(c, l);
  c->env.len = env_len;
  lts_t *r = keep_temp(c, lts_reachable(l));
  if (p->property) r = property_of(c, r, p);
  return r;
}

/* Runs `p` in a fresh environment (a definition sees only its own
 * parameters and the constants) and appends its machines to out: the
 * components of a composite that neither hides nor is a property (LTSA
 * flattens those), else the one compiled LTS. */
static void def_machines(fsp_ctx_t *c, fsp_proc_def_t *p, const fsp_val_t *args, size_t nargs, loc_t loc,
                         fsp_ltsvec_t *out) {
  if (++c->depth > 100) fsp_fail(c, loc, "process '%s' is composed of itself", p->name);
  size_t save = c->pos;
  size_t env_len = c->env.len;
  fsp_binding_t *saved = xmalloc((env_len + 1) * sizeof *saved);
  if (env_len) memcpy(saved, c->env.data, env_len * sizeof *saved);
  VEC_PUSH(&c->owned, saved); /* released on failure; popped below */
  c->env.len = 0;
  if (p->formula)
    VEC_PUSH(out, fsp_compile_assert(c, p));
  else if (p->composite && !p->compose_first && !p->property && !p->minimal && !p->deterministic)
    composite_machines(c, p, args, nargs, loc, out);
  else {
    lts_t *l =
        p->composite ? compile_composite(c, p, args, nargs, loc) : compile_primitive(c, p, args, nargs, loc);
    if (p->deterministic && !lts_is_deterministic(l)) l = deterministic_of(c, l, p);
    if (p->minimal) l = keep_temp(c, lts_minimise(l));
    if (p->minimal && stop_requested()) /* lts_minimise gave up (unminimised) */
      fsp_fail_limit(c, loc, "the minimisation of '%s' stopped", p->name);
    VEC_PUSH(out, l);
  }
  c->env.len = 0;
  for (size_t i = 0; i < env_len; i++) VEC_PUSH(&c->env, saved[i]);
  c->owned.len--;
  free(saved);
  c->pos = save;
  c->depth--;
}

lts_t *fsp_compile_def(fsp_ctx_t *c, fsp_proc_def_t *p, const fsp_val_t *args, size_t nargs, loc_t loc) {
  fsp_ltsvec_t *m = open_list(c);
  def_machines(c, p, args, nargs, loc, m);
  lts_t *l = m->len == 1 ? m->data[0] : keep_temp(c, lts_reachable(compose_all(c, m, loc)));
  close_list(c);
  return l;
}

bool fsp_skip_trailer(fsp_ctx_t *c, bool primitive) {
  bool live = c->live, first = false;
  c->live = false;
  fsp_strvec_t *tmp = fsp_open_strs(c); /* released by a failure's longjmp too */
  if (primitive && accept(c, FSP_TOK_PLUS)) fsp_set_expr(c, tmp);
  if (accept(c, FSP_TOK_SLASH)) {
    relabel_t r = {fsp_open_strs(c), fsp_open_strs(c)};
    parse_relabel(c, &r);
    fsp_close_strs(c);
    fsp_close_strs(c);
  }
  if (primitive && (at(c, FSP_TOK_SHL) || at(c, FSP_TOK_SHR)))
    fsp_fail(c, peek(c)->loc,
             "a priority '%s' applies to a composite (||NAME = ...), not to a primitive process",
             peek(c)->text);
  if (accept(c, FSP_TOK_SHL) || accept(c, FSP_TOK_SHR)) {
    first = true;
    fsp_set_expr(c, tmp);
  }
  if (accept(c, FSP_TOK_BACKSLASH) || accept(c, FSP_TOK_AT)) {
    first = true;
    fsp_set_expr(c, tmp);
  }
  fsp_close_strs(c);
  c->live = live;
  return first;
}
