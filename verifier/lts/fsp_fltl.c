#include "verifier/lts/fsp_fltl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ism/keytab.h"

typedef enum {
  F_TRUE,
  F_FALSE,
  F_FLUENT,
  F_ACTION, /* an action label as a proposition: the fluent <a, the formula's other actions> */
  F_NOT,
  F_AND,
  F_OR,
  F_IMPLIES,
  F_IFF,
  F_ALWAYS,     /* [] a */
  F_EVENTUALLY, /* <> a */
  F_NEXT,       /* X a */
  F_UNTIL,      /* a U b */
  F_WEAK,       /* a W b */
  F_RELEASE     /* a R b */
} f_kind_t;

struct fsp_formula {
  f_kind_t kind;
  int fluent; /* F_FLUENT: index in f->fluents; F_ACTION: set when compiled (fluents.len + k) */
  loc_t loc;
  fsp_formula_t *a, *b;
  int id;             /* the tableau's numbering of the formula's subformulas */
  const char *action; /* F_ACTION: the label (the file's arena) */
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
  *n = (fsp_formula_t){k, -1, loc, a, b, -1, NULL};
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
    r = node(c, F_EVENTUALLY, t->loc, unary(c), NULL);
  } else if (fsp_is_kw(t, "X")) {
    next(c);
    r = node(c, F_NEXT, t->loc, unary(c), NULL);
  } else if (accept(c, FSP_TOK_LPAREN)) {
    r = iff(c);
    fsp_expect(c, FSP_TOK_RPAREN, "')'");
  } else if (fsp_is_kw(t, "true") || fsp_is_kw(t, "false")) {
    next(c);
    r = node(c, t->text[0] == 't' ? F_TRUE : F_FALSE, t->loc, NULL, NULL);
  } else if (fsp_is_kw(t, "forall") || fsp_is_kw(t, "exists") || fsp_is_kw(t, "rigid")) {
    fsp_fail(c, t->loc, "'%s' in a formula is not supported", t->text);
  } else if (t->kind == FSP_TOK_LIDENT) { /* an action label, indices and all */
    fsp_strvec_t *v = fsp_open_strs(c);
    fsp_labels_of(c, v);
    if (v->len != 1)
      fsp_fail(c, t->loc, "an action in a formula must be one label; this one stands for %zu", v->len);
    r = node(c, F_ACTION, t->loc, NULL, NULL);
    r->action = v->data[0];
    fsp_close_strs(c);
  } else if (t->kind == FSP_TOK_UIDENT) {
    next(c);
    r = node(c, F_FLUENT, t->loc, NULL, NULL);
    for (size_t i = 0; i < c->f->fluents.len; i++)
      if (strcmp(c->f->fluents.data[i].name, t->text) == 0) r->fluent = (int)i;
    if (r->fluent < 0) fsp_fail(c, t->loc, "undefined fluent '%s'", t->text);
  } else
    fsp_fail(c, t->loc, "expected a fluent, an action, '!', '[]' or '(' in the formula, found '%s'",
             fsp_describe(t));
  fsp_unnest(c);
  return r;
}

/* && binds tighter than ||, then ->, then <-> (LTSA's FLTL); the binary
 * temporal operators U, W (and R, not in LTSA) bind as && does, to the
 * left. */
static fsp_formula_t *conjunction(fsp_ctx_t *c) {
  fsp_formula_t *a = unary(c);
  for (;;) {
    const fsp_token_t *t = peek(c);
    if (accept(c, FSP_TOK_ANDAND))
      a = node(c, F_AND, t->loc, a, unary(c));
    else if (fsp_is_kw(t, "U") || fsp_is_kw(t, "W") || fsp_is_kw(t, "R")) {
      next(c);
      a = node(c, t->text[0] == 'U' ? F_UNTIL : t->text[0] == 'W' ? F_WEAK : F_RELEASE, t->loc, a, unary(c));
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
    if (n->kind == F_ALWAYS || n->kind >= F_EVENTUALLY) found = n;
    if (n->a) VEC_PUSH(&todo, n->a);
    if (n->b) VEC_PUSH(&todo, n->b);
  }
  VEC_FREE(&todo);
  return found;
}

/* The tableau recurses on the formula's depth: deeper formulas are a
 * located error (the parser nests only through parentheses and unary
 * operators; a chain a && b && ... is as deep as it is long). NNF expands
 * <-> into both polarities, doubling its operands: its size is bounded. */
#define FLTL_MAX_DEPTH 1000
#define FLTL_MAX_NODES 100000

/* The depth of f (a leaf is 1). Worklist, no recursion. */
static int formula_depth(const fsp_formula_t *f) {
  VEC(const fsp_formula_t *) todo = {0};
  VEC(int) depth = {0};
  VEC_PUSH(&todo, f);
  VEC_PUSH(&depth, 1);
  int max = 0;
  while (todo.len) {
    const fsp_formula_t *n = VEC_POP(&todo);
    int d = VEC_POP(&depth);
    if (d > max) max = d;
    for (int side = 0; side < 2; side++) {
      const fsp_formula_t *k = side ? n->b : n->a;
      if (!k) continue;
      VEC_PUSH(&todo, k);
      VEC_PUSH(&depth, d + 1);
    }
  }
  VEC_FREE(&todo);
  VEC_FREE(&depth);
  return max;
}

/* An upper bound of the size of f's negation normal form in either
 * polarity, capped at FLTL_MAX_NODES + 1 (recursion bounded by
 * FLTL_MAX_DEPTH, checked before). */
static long nnf_bound(const fsp_formula_t *f) {
  long a = f->a ? nnf_bound(f->a) : 0, b = f->b ? nnf_bound(f->b) : 0, r;
  switch (f->kind) {
  case F_FLUENT:
  case F_ACTION: r = 2; break; /* with its ! */
  case F_NOT: r = a; break;
  case F_IFF: r = 3 + 2 * a + 2 * b; break;
  case F_UNTIL:
  case F_WEAK: r = 2 + 2 * a + 2 * b; break; /* negated: !b W (!a && !b) */
  default: r = 1 + a + b; break;
  }
  return r > FLTL_MAX_NODES ? FLTL_MAX_NODES + 1 : r;
}

/* f (negated when neg) in negation normal form: ! only on fluents, no ->
 * or <->, negations pushed through the temporal operators by their
 * dualities (!X a = X !a, ![] a = <> !a, !(a U b) = !b W (!a && !b),
 * !(a W b) = !b U (!a && !b), !(a R b) = !a U !b). Recursion bounded by
 * FLTL_MAX_DEPTH and its size by FLTL_MAX_NODES (both checked before). */
static fsp_formula_t *nnf(fsp_ctx_t *c, const fsp_formula_t *f, bool neg) {
  loc_t l = f->loc;
  switch (f->kind) {
  case F_TRUE:
  case F_FALSE: return node(c, (f->kind == F_TRUE) != neg ? F_TRUE : F_FALSE, l, NULL, NULL);
  case F_FLUENT:
  case F_ACTION: {
    fsp_formula_t *x = node(c, f->kind, l, NULL, NULL);
    x->fluent = f->fluent;
    x->action = f->action;
    return neg ? node(c, F_NOT, l, x, NULL) : x;
  }
  case F_NOT: return nnf(c, f->a, !neg);
  case F_AND:
  case F_OR:
    return node(c, (f->kind == F_AND) != neg ? F_AND : F_OR, l, nnf(c, f->a, neg), nnf(c, f->b, neg));
  case F_IMPLIES: /* !a || b; negated a && !b */
    return node(c, neg ? F_AND : F_OR, l, nnf(c, f->a, !neg), nnf(c, f->b, neg));
  case F_IFF: /* (a && b) || (!a && !b); negated (a && !b) || (!a && b) */
    return node(c, F_OR, l, node(c, F_AND, l, nnf(c, f->a, false), nnf(c, f->b, neg)),
                node(c, F_AND, l, nnf(c, f->a, true), nnf(c, f->b, !neg)));
  case F_ALWAYS:
  case F_EVENTUALLY:
    return node(c, (f->kind == F_ALWAYS) != neg ? F_ALWAYS : F_EVENTUALLY, l, nnf(c, f->a, neg), NULL);
  case F_NEXT: return node(c, F_NEXT, l, nnf(c, f->a, neg), NULL);
  case F_UNTIL:
  case F_WEAK:
    if (!neg) return node(c, f->kind, l, nnf(c, f->a, false), nnf(c, f->b, false));
    return node(c, f->kind == F_UNTIL ? F_WEAK : F_UNTIL, l, nnf(c, f->b, true),
                node(c, F_AND, l, nnf(c, f->a, true), nnf(c, f->b, true)));
  case F_RELEASE: return node(c, neg ? F_UNTIL : F_RELEASE, l, nnf(c, f->a, neg), nnf(c, f->b, neg));
  }
  return NULL;
}

/* The first U or <> of an NNF formula (they make it a liveness formula),
 * in source order; NULL when it is a safety formula. */
static const fsp_formula_t *liveness_in(const fsp_formula_t *f) {
  VEC(const fsp_formula_t *) todo = {0};
  VEC_PUSH(&todo, f);
  const fsp_formula_t *found = NULL;
  while (todo.len) {
    const fsp_formula_t *n = VEC_POP(&todo);
    if ((n->kind == F_UNTIL || n->kind == F_EVENTUALLY) &&
        (!found || n->loc.line < found->loc.line ||
         (n->loc.line == found->loc.line && n->loc.col < found->loc.col)))
      found = n;
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
  if (f->kind != F_ALWAYS || temporal_in(f->a)) { /* not an invariant: the tableau's fragment */
    if (formula_depth(f) > FLTL_MAX_DEPTH)
      fsp_fail(c, f->loc, "the formula nests more than %d operators deep; split it into several assertions",
               FLTL_MAX_DEPTH);
    if (nnf_bound(f) > FLTL_MAX_NODES)
      fsp_fail(c, f->loc, "the formula has more than %d operators once '<->' is expanded", FLTL_MAX_NODES);
    f = nnf(c, f, false);
    const fsp_formula_t *live = liveness_in(f);
    if (live)
      fsp_fail(c, live->loc,
               "'%s' makes assertion '%s' a liveness formula (in negation normal form); only safety formulas "
               "compile to property LTSs: [], X, W, R, and <> or U under a negation",
               live->kind == F_UNTIL ? "U" : "<>", name->text);
  }
  fsp_proc_def_t p = {0};
  p.name = name->text;
  p.loc = name->loc;
  p.formula = f;
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
    case F_FLUENT:
    case F_ACTION: r = (v >> slot[n->fluent]) & 1; break;
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

/* ------------------------------------------------ the safety tableau */

/* An obligation: a positive Boolean combination, in disjunctive normal
 * form, of subformulas (by id) that must hold from the next position on.
 * Cube k is ids[off[k] .. off[k+1]), sorted; no cube contains another and
 * the cubes are ordered by (length, ids), so equal obligations are equal
 * arrays. No cube is false; one empty cube is true. */
typedef struct {
  VEC(int) ids;
  VEC(int) off;
} dnf_t;

/* More cubes than this in one obligation (or in one product of two) is
 * the assertion's size limit, as --max-states is for its states. */
#define FLTL_MAX_CUBES 4096

typedef struct {
  const fsp_formula_t **nodes; /* by id */
  const int *slot;             /* fluent -> bit */
  bool over;                   /* FLTL_MAX_CUBES passed */
} tableau_t;

static void dnf_init(dnf_t *d, bool truth) {
  memset(d, 0, sizeof *d);
  VEC_PUSH(&d->off, 0);
  if (truth) VEC_PUSH(&d->off, 0);
}

static void dnf_free(dnf_t *d) {
  VEC_FREE(&d->ids);
  VEC_FREE(&d->off);
}

static size_t dnf_cubes(const dnf_t *d) { return d->off.len - 1; }
static const int *dnf_cube(const dnf_t *d, size_t k, int *n) {
  *n = d->off.data[k + 1] - d->off.data[k];
  return *n ? d->ids.data + d->off.data[k] : NULL; /* the empty cube may have no storage */
}

static void dnf_push(dnf_t *d, const int *ids, int n) {
  for (int i = 0; i < n; i++) VEC_PUSH(&d->ids, ids[i]);
  VEC_PUSH(&d->off, (int)d->ids.len);
}

/* x ⊆ y for sorted arrays */
static bool cube_subset(const int *x, int nx, const int *y, int ny) {
  int j = 0;
  for (int i = 0; i < nx; i++) {
    while (j < ny && y[j] < x[i]) j++;
    if (j == ny || y[j] != x[i]) return false;
    j++;
  }
  return true;
}

static int cube_cmp(const int *x, int nx, const int *y, int ny) {
  if (nx != ny) return nx < ny ? -1 : 1;
  for (int i = 0; i < nx; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

/* The canonical form of d: cubes in (length, ids) order, without
 * duplicates or cubes containing another (insertion sort: obligations are
 * small). */
static void dnf_normalise(dnf_t *d) {
  size_t k = dnf_cubes(d);
  int *order = xmalloc((k + 1) * sizeof *order);
  for (size_t i = 0; i < k; i++) {
    int ni, nj;
    const int *ci = dnf_cube(d, i, &ni);
    size_t j = i;
    for (; j > 0; j--) {
      const int *cj = dnf_cube(d, (size_t)order[j - 1], &nj);
      if (cube_cmp(cj, nj, ci, ni) <= 0) break;
      order[j] = order[j - 1];
    }
    order[j] = (int)i;
  }
  dnf_t r;
  dnf_init(&r, false);
  for (size_t i = 0; i < k; i++) {
    int n, m;
    const int *x = dnf_cube(d, (size_t)order[i], &n);
    bool keep = true;
    for (size_t j = 0; j < dnf_cubes(&r) && keep; j++) {
      const int *y = dnf_cube(&r, j, &m);
      keep = !cube_subset(y, m, x, n);
    }
    if (keep) dnf_push(&r, x, n);
  }
  free(order);
  dnf_free(d);
  *d = r;
}

static void dnf_set(dnf_t *d, bool truth) {
  dnf_free(d);
  dnf_init(d, truth);
}

/* d := d ∨ a */
static void dnf_or(tableau_t *t, dnf_t *d, const dnf_t *a) {
  for (size_t k = 0; k < dnf_cubes(a); k++) {
    int n;
    const int *x = dnf_cube(a, k, &n);
    dnf_push(d, x, n);
  }
  dnf_normalise(d);
  if (dnf_cubes(d) > FLTL_MAX_CUBES) t->over = true, dnf_set(d, false);
}

/* d := a ∧ b (d distinct from both) */
static void dnf_and(tableau_t *t, dnf_t *d, const dnf_t *a, const dnf_t *b) {
  dnf_set(d, false);
  if (dnf_cubes(a) * dnf_cubes(b) > FLTL_MAX_CUBES) {
    t->over = true;
    return;
  }
  VEC(int) u = {0};
  for (size_t i = 0; i < dnf_cubes(a); i++)
    for (size_t j = 0; j < dnf_cubes(b); j++) {
      int nx, ny, p = 0, q = 0;
      const int *x = dnf_cube(a, i, &nx), *y = dnf_cube(b, j, &ny);
      VEC_CLEAR(&u);
      while (p < nx || q < ny) { /* sorted union */
        int v = q == ny || (p < nx && x[p] <= y[q]) ? x[p] : y[q];
        if (p < nx && x[p] == v) p++;
        if (q < ny && y[q] == v) q++;
        VEC_PUSH(&u, v);
      }
      dnf_push(d, u.data, (int)u.len);
    }
  VEC_FREE(&u);
  dnf_normalise(d);
}

static void dnf_atom(dnf_t *d, int id) {
  dnf_set(d, false);
  dnf_push(d, &id, 1);
}

/* *out := what must hold from the next position on for n to hold at a
 * position with fluent valuation v (formula progression). Recursion on
 * the formula's depth, bounded by FLTL_MAX_DEPTH at parsing. */
static void progress(tableau_t *t, const fsp_formula_t *n, uint64_t v, dnf_t *out) {
  dnf_t a, b, x;
  switch (n->kind) {
  case F_TRUE:
  case F_FALSE: dnf_set(out, n->kind == F_TRUE); return;
  case F_FLUENT:
  case F_ACTION: dnf_set(out, (v >> t->slot[n->fluent]) & 1); return;
  case F_NOT: dnf_set(out, !((v >> t->slot[n->a->fluent]) & 1)); return;
  case F_NEXT: dnf_atom(out, n->a->id); return;
  default: break;
  }
  dnf_init(&a, false);
  dnf_init(&b, false);
  dnf_init(&x, false);
  switch (n->kind) {
  case F_AND:
    progress(t, n->a, v, &a);
    progress(t, n->b, v, &b);
    dnf_and(t, out, &a, &b);
    break;
  case F_OR:
    progress(t, n->a, v, out);
    progress(t, n->b, v, &b);
    dnf_or(t, out, &b);
    break;
  case F_ALWAYS: /* a now, [] a next */
    progress(t, n->a, v, &a);
    dnf_atom(&x, n->id);
    dnf_and(t, out, &a, &x);
    break;
  case F_WEAK: /* b now, or a now and a W b next */
    progress(t, n->a, v, &a);
    dnf_atom(&x, n->id);
    dnf_and(t, &b, &a, &x);
    progress(t, n->b, v, out);
    dnf_or(t, out, &b);
    break;
  case F_RELEASE: /* b now, and a now or a R b next */
    progress(t, n->a, v, &a);
    dnf_atom(&x, n->id);
    dnf_or(t, &a, &x);
    progress(t, n->b, v, &b);
    dnf_and(t, out, &b, &a);
    break;
  default: dnf_set(out, false); break; /* U and <> were refused at parsing */
  }
  dnf_free(&a);
  dnf_free(&b);
  dnf_free(&x);
}

/* *out := the obligation psi after a position with valuation v */
static void step(tableau_t *t, const dnf_t *psi, uint64_t v, dnf_t *out) {
  dnf_t acc, p, tmp;
  dnf_init(&acc, false);
  dnf_init(&p, false);
  dnf_init(&tmp, false);
  dnf_set(out, false);
  for (size_t k = 0; k < dnf_cubes(psi) && !t->over; k++) {
    int n;
    const int *cube = dnf_cube(psi, k, &n);
    dnf_set(&acc, true);
    for (int i = 0; i < n && dnf_cubes(&acc); i++) {
      progress(t, t->nodes[cube[i]], v, &p);
      dnf_and(t, &tmp, &acc, &p);
      dnf_t sw = acc;
      acc = tmp;
      tmp = sw;
    }
    dnf_or(t, out, &acc);
  }
  dnf_free(&acc);
  dnf_free(&p);
  dnf_free(&tmp);
}

/* The key of state (v, psi): v's two halves, then each cube's length and
 * ids. */
typedef VEC(int) keyvec_t;

static void state_key(uint64_t v, const dnf_t *psi, keyvec_t *key) {
  VEC_CLEAR(key);
  VEC_PUSH(key, (int)(uint32_t)v);
  VEC_PUSH(key, (int)(uint32_t)(v >> 32));
  for (size_t k = 0; k < dnf_cubes(psi); k++) {
    int n;
    const int *x = dnf_cube(psi, k, &n);
    VEC_PUSH(key, n);
    for (int i = 0; i < n; i++) VEC_PUSH(key, x[i]);
  }
}

static void key_state(const int *key, size_t len, uint64_t *v, dnf_t *psi) {
  *v = (uint64_t)(uint32_t)key[0] | (uint64_t)(uint32_t)key[1] << 32;
  dnf_set(psi, false);
  for (size_t i = 2; i < len; i += (size_t)key[i] + 1) dnf_push(psi, key + i + 1, key[i]);
}

/* The deterministic property LTS of an NNF safety formula phi (no U, no <>)
 * into b: states are (fluent valuation, obligation) pairs reachable from
 * the initial valuation v0 through the actions alpha[0..na) (set/clear:
 * the bits each action makes true/false), starting with phi due at the
 * first action. Positions are actions, as in LTSA's FLTL (position i is
 * the i-th action, the fluents as it leaves them; the initial valuation
 * alone is no position): each action updates the valuation, then the
 * obligation progresses through that position, and
 * where the obligation becomes false the action leads to the error state
 * (a violation is a trace after which the formula's obligations are
 * false: its informative bad prefixes, Kupferman and Vardi 2001; for
 * [] φ the traces after which φ is false). Returns TABLEAU_STATES past
 * max_states states, TABLEAU_CUBES past FLTL_MAX_CUBES cubes. */
typedef enum { TABLEAU_OK, TABLEAU_STATES, TABLEAU_CUBES } tableau_result_t;

/* The fluents of an assertion and how its actions change them. */
typedef struct {
  const int *slot;             /* fluent -> its bit in a valuation, -1 when unused */
  uint64_t v0;                 /* the initial valuation */
  const int *alpha;            /* the actions, sorted */
  size_t na;                   /* their number */
  const uint64_t *set, *clear; /* per action: the bits it makes true, false */
} fluent_moves_t;

static tableau_result_t tableau_build(const fsp_formula_t *phi, const fluent_moves_t *m, long max_states,
                                      lts_builder_t *b) {
  const int *slot = m->slot, *alpha = m->alpha;
  const uint64_t *set = m->set, *clear = m->clear, v0 = m->v0;
  size_t na = m->na;
  /* number the subformulas */
  VEC(const fsp_formula_t *) nodes = {0}, todo = {0};
  VEC_PUSH(&todo, phi);
  while (todo.len) {
    fsp_formula_t *n = (fsp_formula_t *)VEC_POP(&todo);
    n->id = (int)nodes.len;
    VEC_PUSH(&nodes, n);
    if (n->a) VEC_PUSH(&todo, n->a);
    if (n->b) VEC_PUSH(&todo, n->b);
  }
  VEC_FREE(&todo);
  tableau_t t = {nodes.data, slot, false};
  keytab_t states;
  keytab_init(&states);
  keyvec_t key = {0};
  VEC(int) sid = {0};
  dnf_t psi, next;
  dnf_init(&psi, false);
  dnf_init(&next, false);
  int error = -1;
  bool added, over = false;
  dnf_atom(&psi, phi->id); /* φ is due at the first action */
  state_key(v0, &psi, &key);
  keytab_add(&states, key.data, key.len, &added);
  VEC_PUSH(&sid, lts_builder_add_state(b));
  for (size_t s = 0; s < states.count && !over; s++) {
    uint64_t v;
    size_t len;
    const int *k = keytab_key(&states, (int)s, &len);
    key_state(k, len, &v, &psi);
    for (size_t a = 0; a < na && !over; a++) {
      uint64_t w = (v | set[a]) & ~clear[a];
      step(&t, &psi, w, &next);
      if (t.over) {
        over = true;
        break;
      }
      int dst;
      if (dnf_cubes(&next) == 0) {
        if (error < 0) error = lts_builder_add_state(b);
        dst = error;
      } else {
        state_key(w, &next, &key);
        int id = keytab_add(&states, key.data, key.len, &added);
        if (added) {
          if ((long)states.count > max_states) over = true;
          VEC_PUSH(&sid, lts_builder_add_state(b));
        }
        dst = sid.data[id];
      }
      lts_builder_add(b, sid.data[s], alpha[a], dst);
    }
  }
  b->init = 0;
  b->error = error;
  dnf_free(&psi);
  dnf_free(&next);
  keytab_free(&states);
  VEC_FREE(&key);
  VEC_FREE(&sid);
  VEC_FREE(&nodes);
  return t.over ? TABLEAU_CUBES : over ? TABLEAU_STATES : TABLEAU_OK;
}

lts_t *fsp_compile_assert(fsp_ctx_t *c, const fsp_proc_def_t *p) {
  fsp_file_t *f = c->f;
  /* an invariant [] φ, φ propositional: the reachable valuations (below);
   * any other (NNF safety) formula: the tableau */
  bool invariant = p->formula->kind == F_ALWAYS && !temporal_in(p->formula->a);
  const fsp_formula_t *phi = invariant ? p->formula->a : p->formula;
  /* the fluents the formula uses, each given a bit; each action it names
   * is a fluent too (index fluents.len + k in slot, its label acts[k]) */
  VEC(int) acts = {0};
  VEC(const fsp_formula_t *) todo = {0};
  VEC_PUSH(&todo, p->formula);
  while (todo.len) {
    fsp_formula_t *n = (fsp_formula_t *)VEC_POP(&todo);
    if (n->kind == F_ACTION) {
      int l = lts_label(f->labels, n->action);
      size_t k = 0;
      while (k < acts.len && acts.data[k] != l) k++;
      if (k == acts.len) VEC_PUSH(&acts, l);
      n->fluent = (int)(f->fluents.len + k);
    }
    if (n->a) VEC_PUSH(&todo, n->a);
    if (n->b) VEC_PUSH(&todo, n->b);
  }
  size_t nslots = f->fluents.len + acts.len;
  int *slot = xmalloc((nslots + 1) * sizeof *slot);
  for (size_t i = 0; i < nslots; i++) slot[i] = -1;
  int nused = 0;
  VEC_PUSH(&todo, p->formula);
  while (todo.len) {
    const fsp_formula_t *n = VEC_POP(&todo);
    if ((n->kind == F_FLUENT || n->kind == F_ACTION) && slot[n->fluent] < 0) slot[n->fluent] = nused++;
    if (n->a) VEC_PUSH(&todo, n->a);
    if (n->b) VEC_PUSH(&todo, n->b);
  }
  VEC_FREE(&todo);
  VEC_PUSH(&c->owned, slot); /* released on failure */
  VEC_PUSH(&c->owned, acts.data);
  if (nused > 63) fsp_fail(c, p->loc, "assertion '%s' uses more than 63 fluents and actions", p->name);
  /* the alphabet: every action of a used fluent, with its effect, and the
   * actions named */
  VEC(int) alpha = {0};
  for (size_t k = 0; k < acts.len; k++) VEC_PUSH(&alpha, acts.data[k]);
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
  for (size_t k = 0; k < acts.len; k++) /* true after its action, false after any other */
    for (size_t a = 0; a < na; a++)
      (alpha.data[a] == acts.data[k] ? set : clear)[a] |= (uint64_t)1 << slot[f->fluents.len + k];
  /* BFS over the reachable valuations that satisfy φ */
  lts_builder_t b;
  lts_builder_init(&b, f->labels);
  for (size_t a = 0; a < na; a++) lts_builder_alphabet_add(&b, alpha.data[a]);
  VEC(uint64_t) states = {0}; /* valuations, in discovery order */
  VEC(int) ids = {0};         /* their builder states */
  int error = -1;
  bool over = false;
  tableau_result_t tr = TABLEAU_OK;
  if (!invariant) {
    fluent_moves_t fm = {slot, v0, alpha.data, na, set, clear};
    tr = tableau_build(phi, &fm, f->max_states, &b);
    over = tr != TABLEAU_OK;
    error = b.error;
  } else { /* the initial valuation is no position: φ is checked after each action */
    VEC_PUSH(&states, v0);
    VEC_PUSH(&ids, lts_builder_add_state(&b));
  }
  b.init = 0;
  for (size_t s = 0; s < states.len && !over; s++) {
    for (size_t a = 0; a < na && !over; a++) {
      uint64_t w = (states.data[s] | set[a]) & ~clear[a];
      int dst = -1;
      if (!eval(phi, w, slot)) {
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
  c->owned.len -= 2;
  free(acts.data);
  free(slot);
  if (tr == TABLEAU_CUBES)
    fsp_fail(c, p->loc,
             "assertion '%s' needs an obligation of more than %d alternatives (its disjunctions under X, W "
             "and R multiply); split it into several assertions",
             p->name, FLTL_MAX_CUBES);
  if (over)
    fsp_fail_limit(c, p->loc,
                   invariant ? "assertion '%s' has too many fluent valuations"
                             : "assertion '%s' has too many tableau states (valuations and obligations)",
                   p->name);
  lts_t *m = lts_minimise(raw);
  lts_free(raw);
  VEC_PUSH(&c->temps, m);
  return m;
}
