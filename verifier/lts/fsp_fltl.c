#include "verifier/lts/fsp_fltl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
  F_TRUE,
  F_FALSE,
  F_FLUENT,
  F_NOT,
  F_AND,
  F_OR,
  F_IMPLIES,
  F_IFF,
  F_ALWAYS,
  F_TEMPORAL
} f_kind_t;

struct fsp_formula {
  f_kind_t kind;
  int fluent; /* F_FLUENT: index in f->fluents */
  loc_t loc;
  fsp_formula_t *a, *b;
};

/* ------------------------------------------------------------- fluents */

/* One side of <..., ...>: a set, a named set or one action label. */
static void fluent_side(fsp_ctx_t *c, const char ***out, size_t *n) {
  fsp_strvec_t *v = fsp_open_strs(c);
  if (at(c, FSP_TOK_LBRACE) || at(c, FSP_TOK_UIDENT))
    fsp_set_expr(c, v);
  else
    fsp_labels_of(c, v);
  *n = v->len;
  *out = arena_alloc(&c->f->arena, (v->len + 1) * sizeof **out);
  if (v->len) memcpy(*out, v->data, v->len * sizeof **out);
  fsp_close_strs(c);
}

void fsp_parse_fluent(fsp_ctx_t *c) {
  const fsp_token_t *name = fsp_expect(c, FSP_TOK_UIDENT, "a fluent name (upper case)");
  if (at(c, FSP_TOK_LBRACK)) fsp_fail(c, peek(c)->loc, "indexed fluents are not supported");
  for (size_t i = 0; i < c->f->fluents.len; i++)
    if (strcmp(c->f->fluents.data[i].name, name->text) == 0)
      fsp_fail(c, name->loc, "fluent '%s' is defined twice", name->text);
  fsp_fluent_t fl = {name->text, name->loc, NULL, NULL, 0, 0, false};
  fsp_expect(c, FSP_TOK_ASSIGN, "'='");
  fsp_expect(c, FSP_TOK_LT, "'<'");
  fluent_side(c, &fl.init, &fl.ninit);
  fsp_expect(c, FSP_TOK_COMMA, "','");
  fluent_side(c, &fl.term, &fl.nterm);
  fsp_expect(c, FSP_TOK_GT, "'>'");
  if (fsp_is_kw(peek(c), "initially")) {
    next(c);
    fl.initially = fsp_int_expr(c) != 0;
  }
  for (size_t i = 0; i < fl.ninit; i++)
    for (size_t k = 0; k < fl.nterm; k++)
      if (strcmp(fl.init[i], fl.term[k]) == 0)
        fsp_fail(c, name->loc, "action '%s' both initiates and terminates fluent '%s'", fl.init[i], fl.name);
  VEC_PUSH(&c->f->fluents, fl);
}

/* ------------------------------------------------------------- formulas */

static fsp_formula_t *node(fsp_ctx_t *c, f_kind_t k, loc_t loc, fsp_formula_t *a, fsp_formula_t *b) {
  fsp_formula_t *n = arena_alloc(&c->f->arena, sizeof *n);
  *n = (fsp_formula_t){k, -1, loc, a, b};
  return n;
}

static fsp_formula_t *iff(fsp_ctx_t *c);

static fsp_formula_t *unary(fsp_ctx_t *c) {
  const fsp_token_t *t = peek(c);
  fsp_nest(c, t->loc);
  fsp_formula_t *r;
  if (accept(c, FSP_TOK_NOT))
    r = node(c, F_NOT, t->loc, unary(c), NULL);
  else if (at(c, FSP_TOK_LBRACK) && peek2(c)->kind == FSP_TOK_RBRACK) {
    next(c), next(c);
    r = node(c, F_ALWAYS, t->loc, unary(c), NULL);
  } else if (at(c, FSP_TOK_LT) && peek2(c)->kind == FSP_TOK_GT) {
    next(c), next(c);
    r = node(c, F_TEMPORAL, t->loc, unary(c), NULL);
  } else if (fsp_is_kw(t, "X")) {
    next(c);
    r = node(c, F_TEMPORAL, t->loc, unary(c), NULL);
  } else if (accept(c, FSP_TOK_LPAREN)) {
    r = iff(c);
    fsp_expect(c, FSP_TOK_RPAREN, "')'");
  } else if (fsp_is_kw(t, "true") || fsp_is_kw(t, "false")) {
    next(c);
    r = node(c, t->text[0] == 't' ? F_TRUE : F_FALSE, t->loc, NULL, NULL);
  } else if (t->kind == FSP_TOK_UIDENT) {
    next(c);
    r = node(c, F_FLUENT, t->loc, NULL, NULL);
    for (size_t i = 0; i < c->f->fluents.len; i++)
      if (strcmp(c->f->fluents.data[i].name, t->text) == 0) r->fluent = (int)i;
    if (r->fluent < 0) fsp_fail(c, t->loc, "undefined fluent '%s'", t->text);
  } else
    fsp_fail(c, t->loc, "expected a fluent, '!', '[]' or '(' in the formula, found '%s'", fsp_describe(t));
  fsp_unnest(c);
  return r;
}

/* && binds tighter than ||, then ->, then <-> (LTSA's FLTL); U and W are
 * temporal and only recognised to be refused. */
static fsp_formula_t *conjunction(fsp_ctx_t *c) {
  fsp_formula_t *a = unary(c);
  for (;;) {
    const fsp_token_t *t = peek(c);
    if (accept(c, FSP_TOK_ANDAND))
      a = node(c, F_AND, t->loc, a, unary(c));
    else if (fsp_is_kw(t, "U") || fsp_is_kw(t, "W")) {
      next(c);
      a = node(c, F_TEMPORAL, t->loc, a, unary(c));
    } else
      return a;
  }
}

static fsp_formula_t *disj(fsp_ctx_t *c) {
  fsp_formula_t *a = conjunction(c);
  while (at(c, FSP_TOK_OROR)) {
    loc_t loc = next(c)->loc;
    a = node(c, F_OR, loc, a, conjunction(c));
  }
  return a;
}

static fsp_formula_t *implies(fsp_ctx_t *c) {
  fsp_formula_t *a = disj(c);
  if (!at(c, FSP_TOK_ARROW)) return a;
  loc_t loc = next(c)->loc;
  fsp_nest(c, loc);
  fsp_formula_t *r = node(c, F_IMPLIES, loc, a, implies(c)); /* right associative */
  fsp_unnest(c);
  return r;
}

static fsp_formula_t *iff(fsp_ctx_t *c) {
  fsp_formula_t *a = implies(c);
  while (at(c, FSP_TOK_LT) && peek2(c)->kind == FSP_TOK_ARROW) {
    loc_t loc = next(c)->loc;
    next(c);
    a = node(c, F_IFF, loc, a, implies(c));
  }
  return a;
}

/* The first temporal operator (or nested []) inside f, NULL when f is
 * propositional. Worklist, no recursion. */
static const fsp_formula_t *temporal_in(const fsp_formula_t *f) {
  VEC(const fsp_formula_t *) todo = {0};
  VEC_PUSH(&todo, f);
  const fsp_formula_t *found = NULL;
  while (todo.len && !found) {
    const fsp_formula_t *n = VEC_POP(&todo);
    if (n->kind == F_ALWAYS || n->kind == F_TEMPORAL) found = n;
    if (n->a) VEC_PUSH(&todo, n->a);
    if (n->b) VEC_PUSH(&todo, n->b);
  }
  VEC_FREE(&todo);
  return found;
}

void fsp_parse_assert(fsp_ctx_t *c) {
  const fsp_token_t *name = fsp_expect(c, FSP_TOK_UIDENT, "an assertion name (upper case)");
  if (fsp_find_proc(c->f, name->text)) fsp_fail(c, name->loc, "process '%s' is defined twice", name->text);
  fsp_expect(c, FSP_TOK_ASSIGN, "'='");
  fsp_formula_t *f = iff(c);
  if (f->kind != F_ALWAYS || temporal_in(f->a))
    fsp_fail(c, f->kind == F_ALWAYS ? temporal_in(f->a)->loc : f->loc,
             "only safety invariants '[] formula' over fluents are supported (no nested [], <>, X, U or W)");
  fsp_proc_def_t p = {0};
  p.name = name->text;
  p.loc = name->loc;
  p.formula = f->a;
  p.property = true;
  VEC_PUSH(&c->f->procs, p);
}

/* ------------------------------------------------------------ compiling */

/* φ on valuation v (bit i: fluent i holds). Worklist evaluation: post-order
 * over an explicit stack, values on a second stack. */
static bool eval(const fsp_formula_t *f, uint64_t v, const int *slot) {
  VEC(const fsp_formula_t *) todo = {0};
  VEC(bool) vals = {0};
  VEC(bool) expanded = {0};
  VEC_PUSH(&todo, f);
  VEC_PUSH(&expanded, false);
  while (todo.len) {
    const fsp_formula_t *n = VEC_LAST(&todo);
    bool done = VEC_LAST(&expanded);
    if (!done && (n->a || n->b)) {
      expanded.data[expanded.len - 1] = true;
      if (n->b) {
        VEC_PUSH(&todo, n->b);
        VEC_PUSH(&expanded, false);
      }
      if (n->a) {
        VEC_PUSH(&todo, n->a);
        VEC_PUSH(&expanded, false);
      }
      continue;
    }
    todo.len--;
    expanded.len--;
    bool r = false, y = n->b ? VEC_POP(&vals) : false, x = n->a ? VEC_POP(&vals) : false;
    switch (n->kind) {
    case F_TRUE: r = true; break;
    case F_FALSE: r = false; break;
    case F_FLUENT: r = (v >> slot[n->fluent]) & 1; break;
    case F_NOT: r = !x; break;
    case F_AND: r = x && y; break;
    case F_OR: r = x || y; break;
    case F_IMPLIES: r = !x || y; break;
    case F_IFF: r = x == y; break;
    default: r = false; break;
    }
    VEC_PUSH(&vals, r);
  }
  bool r = vals.data[0];
  VEC_FREE(&todo);
  VEC_FREE(&vals);
  VEC_FREE(&expanded);
  return r;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

lts_t *fsp_compile_assert(fsp_ctx_t *c, const fsp_proc_def_t *p) {
  fsp_file_t *f = c->f;
  /* the fluents φ uses, each given a bit */
  int *slot = xmalloc((f->fluents.len + 1) * sizeof *slot);
  for (size_t i = 0; i < f->fluents.len; i++) slot[i] = -1;
  int nused = 0;
  VEC(const fsp_formula_t *) todo = {0};
  VEC_PUSH(&todo, p->formula);
  while (todo.len) {
    const fsp_formula_t *n = VEC_POP(&todo);
    if (n->kind == F_FLUENT && slot[n->fluent] < 0) slot[n->fluent] = nused++;
    if (n->a) VEC_PUSH(&todo, n->a);
    if (n->b) VEC_PUSH(&todo, n->b);
  }
  VEC_FREE(&todo);
  VEC_PUSH(&c->owned, slot); /* released on failure */
  if (nused > 63) fsp_fail(c, p->loc, "assertion '%s' uses more than 63 fluents", p->name);
  /* the alphabet: every action of a used fluent, with its effect */
  VEC(int) alpha = {0};
  uint64_t v0 = 0;
  for (size_t i = 0; i < f->fluents.len; i++) {
    if (slot[i] < 0) continue;
    const fsp_fluent_t *fl = &f->fluents.data[i];
    if (fl->initially) v0 |= (uint64_t)1 << slot[i];
    for (size_t k = 0; k < fl->ninit; k++) VEC_PUSH(&alpha, lts_label(f->labels, fl->init[k]));
    for (size_t k = 0; k < fl->nterm; k++) VEC_PUSH(&alpha, lts_label(f->labels, fl->term[k]));
  }
  if (alpha.len) qsort(alpha.data, alpha.len, sizeof *alpha.data, cmp_int);
  size_t na = 0;
  for (size_t i = 0; i < alpha.len; i++)
    if (na == 0 || alpha.data[na - 1] != alpha.data[i]) alpha.data[na++] = alpha.data[i];
  uint64_t *set = xcalloc(na + 1, sizeof *set), *clear = xcalloc(na + 1, sizeof *clear);
  for (size_t i = 0; i < f->fluents.len; i++) {
    if (slot[i] < 0) continue;
    const fsp_fluent_t *fl = &f->fluents.data[i];
    for (int side = 0; side < 2; side++)
      for (size_t k = 0; k < (side ? fl->nterm : fl->ninit); k++) {
        int l = lts_label(f->labels, side ? fl->term[k] : fl->init[k]);
        size_t a = (size_t)((int *)bsearch(&l, alpha.data, na, sizeof(int), cmp_int) - alpha.data);
        (side ? clear : set)[a] |= (uint64_t)1 << slot[i];
      }
  }
  /* BFS over the reachable valuations that satisfy φ */
  lts_builder_t b;
  lts_builder_init(&b, f->labels);
  for (size_t a = 0; a < na; a++) lts_builder_alphabet_add(&b, alpha.data[a]);
  VEC(uint64_t) states = {0}; /* valuations, in discovery order */
  VEC(int) ids = {0};         /* their builder states */
  int error = -1;
  bool over = false;
  if (eval(p->formula, v0, slot)) {
    VEC_PUSH(&states, v0);
    VEC_PUSH(&ids, lts_builder_add_state(&b));
  } else
    error = lts_builder_add_state(&b);
  b.init = 0;
  for (size_t s = 0; s < states.len && !over; s++) {
    for (size_t a = 0; a < na && !over; a++) {
      uint64_t w = (states.data[s] | set[a]) & ~clear[a];
      int dst = -1;
      if (!eval(p->formula, w, slot)) {
        if (error < 0) error = lts_builder_add_state(&b);
        dst = error;
      } else {
        for (size_t k = 0; k < states.len && dst < 0; k++)
          if (states.data[k] == w) dst = ids.data[k];
        if (dst < 0 && (long)states.len >= f->max_states)
          over = true;
        else if (dst < 0) {
          VEC_PUSH(&states, w);
          dst = lts_builder_add_state(&b);
          VEC_PUSH(&ids, dst);
        }
      }
      if (!over) lts_builder_add(&b, ids.data[s], alpha.data[a], dst);
    }
  }
  b.error = error;
  lts_t *raw = over ? NULL : lts_freeze(&b);
  lts_builder_free(&b);
  VEC_FREE(&states);
  VEC_FREE(&ids);
  VEC_FREE(&alpha);
  free(set);
  free(clear);
  c->owned.len--;
  free(slot);
  if (over) fsp_fail_limit(c, p->loc, "assertion '%s' has too many fluent valuations", p->name);
  lts_t *m = lts_minimise(raw);
  lts_free(raw);
  VEC_PUSH(&c->temps, m);
  return m;
}
