/* The FSP front end's declarations (const, range, set, menu, processes,
 * composites) and its public API; see verifier/lts/fsp_parse.h for the reader
 * and verifier/lts/fsp_compile.h for the compiler. */
#include "verifier/lts/fsp.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/lts/fsp_compile.h"
#include "verifier/lts/fsp_fltl.h"
#include "verifier/lts/fsp_parse.h"

/* ------------------------------------------------------ declarations */

static const char *const unsupported[] = {"animation", "constraint", "ltl_property", "controller",
                                          "starenv",   "display",    "compose"};

static void parse_params(fsp_ctx_t *c, fsp_proc_def_t *p) {
  p->params = c->pos;
  fsp_expect(c, FSP_TOK_LPAREN, "'('");
  do {
    fsp_expect(c, FSP_TOK_UIDENT, "a parameter name (upper case)");
    fsp_expect(c, FSP_TOK_ASSIGN, "'='");
    bool live = c->live;
    c->live = false;
    fsp_expr(c);
    c->live = live;
    p->nparams++;
  } while (accept(c, FSP_TOK_COMMA));
  fsp_expect(c, FSP_TOK_RPAREN, "')'");
}

static void parse_process(fsp_ctx_t *c, bool property, const fsp_token_t *name) {
  fsp_proc_def_t p = {0};
  p.name = name->text;
  p.loc = name->loc;
  p.property = property;
  if (fsp_find_proc(c->f, p.name)) fsp_fail(c, name->loc, "process '%s' is defined twice", p.name);
  VEC_PUSH(&c->f->procs, p);
  fsp_proc_def_t *pp = &VEC_LAST(&c->f->procs);
  if (at(c, FSP_TOK_LPAREN)) parse_params(c, pp);
  bool live = c->live;
  c->live = false;
  const fsp_token_t *lname = name;
  for (;;) {
    fsp_local_def_t ld = {lname->text, 0, 0, c->pos};
    while (at(c, FSP_TOK_LBRACK)) {
      next(c);
      fsp_expect(c, FSP_TOK_LIDENT, "an index variable (lower case)");
      fsp_expect(c, FSP_TOK_COLON, "':'");
      if (at(c, FSP_TOK_UIDENT) && peek2(c)->kind == FSP_TOK_RBRACK)
        next(c);
      else {
        fsp_expr(c);
        fsp_expect(c, FSP_TOK_DOTDOT, "'..'");
        fsp_expr(c);
      }
      fsp_expect(c, FSP_TOK_RBRACK, "']'");
      ld.nidx++;
    }
    fsp_expect(c, FSP_TOK_ASSIGN, "'='");
    ld.body = c->pos;
    for (size_t i = 0; i < pp->locals.len; i++)
      if (strcmp(pp->locals.data[i].name, ld.name) == 0 && pp->locals.data[i].nidx == ld.nidx)
        fsp_fail(c, lname->loc, "local process '%s' is defined twice", ld.name);
    VEC_PUSH(&pp->locals, ld);
    /* syntax check of the body: a dead run */
    c->proc = pp;
    fsp_target(c);
    if (!accept(c, FSP_TOK_COMMA)) break;
    lname = fsp_expect(c, FSP_TOK_UIDENT, "a local process name (upper case)");
  }
  pp->trailer = c->pos;
  fsp_skip_trailer(c, true);
  c->live = live;
  fsp_expect(c, FSP_TOK_DOT, "'.' at the end of the definition");
}

static void parse_composite(fsp_ctx_t *c, bool property) {
  const fsp_token_t *name = fsp_expect(c, FSP_TOK_UIDENT, "a composite process name (upper case)");
  fsp_proc_def_t p = {0};
  p.name = name->text;
  p.loc = name->loc;
  p.property = property;
  p.composite = true;
  if (fsp_find_proc(c->f, p.name)) fsp_fail(c, name->loc, "process '%s' is defined twice", p.name);
  VEC_PUSH(&c->f->procs, p);
  fsp_proc_def_t *pp = &VEC_LAST(&c->f->procs);
  if (at(c, FSP_TOK_LPAREN)) parse_params(c, pp);
  if (at(c, FSP_TOK_LBRACK)) fsp_fail(c, peek(c)->loc, "indexed composite processes are not supported");
  fsp_expect(c, FSP_TOK_ASSIGN, "'='");
  pp->body = c->pos;
  bool live = c->live;
  c->live = false;
  fsp_ltsvec_t parts = {0};
  fsp_comp_body(c, &parts);
  VEC_FREE(&parts);
  pp->trailer = c->pos;
  pp->compose_first = fsp_skip_trailer(c, false);
  c->live = live;
  fsp_expect(c, FSP_TOK_DOT, "'.' at the end of the definition");
}

static void add_named_set(fsp_ctx_t *c, bool menu) {
  const fsp_token_t *name =
      fsp_expect(c, FSP_TOK_UIDENT, menu ? "a menu name (upper case)" : "a set name (upper case)");
  fsp_expect(c, FSP_TOK_ASSIGN, "'='");
  fsp_strvec_t *items = fsp_open_strs(c); /* released by a failure's longjmp too */
  fsp_set_expr(c, items);
  fsp_named_set_t s = {name->text, arena_alloc(&c->f->arena, (items->len + 1) * sizeof(char *)), items->len};
  if (items->len) memcpy(s.items, items->data, items->len * sizeof(char *));
  fsp_close_strs(c);
  if (menu)
    VEC_PUSH(&c->f->menus, s);
  else {
    if (fsp_find_set(c->f, s.name)) fsp_fail(c, name->loc, "set '%s' is defined twice", s.name);
    VEC_PUSH(&c->f->sets, s);
  }
}

/* A progress set: a label pattern ({a, b}, a[1..2]) or a named set. */
static const char *const *progress_set(fsp_ctx_t *c, size_t *n) {
  fsp_strvec_t *v = fsp_open_strs(c);
  if (at(c, FSP_TOK_LIDENT) || at(c, FSP_TOK_LBRACK))
    fsp_labels_of(c, v);
  else
    fsp_set_expr(c, v);
  const char **items = arena_alloc(&c->f->arena, (v->len + 1) * sizeof *items);
  if (v->len) memcpy(items, v->data, v->len * sizeof *items);
  *n = v->len;
  fsp_close_strs(c);
  return items;
}

/* The body of `progress NAME = ...` (after '='), once, with the bindings
 * of an indexed property pushed. */
static void progress_body(fsp_ctx_t *c, const char *name, loc_t loc) {
  fsp_progress_t p = {name, loc, NULL, 0, NULL, 0};
  if (fsp_is_kw(peek(c), "if")) {
    next(c);
    p.cond = progress_set(c, &p.ncond);
    if (!fsp_is_kw(peek(c), "then"))
      fsp_fail(c, peek(c)->loc, "expected 'then', found '%s'", fsp_describe(peek(c)));
    next(c);
  }
  p.actions = progress_set(c, &p.nactions);
  VEC_PUSH(&c->f->progress, p);
}

/* progress NAME = set | progress NAME = if set then set, NAME may be
 * indexed [i:R]; LTSA ends it without '.', one is accepted. */
static void parse_progress(fsp_ctx_t *c) {
  const fsp_token_t *name = fsp_expect(c, FSP_TOK_UIDENT, "a progress property name (upper case)");
  for (size_t i = 0; i < c->f->progress.len; i++)
    if (strcmp(c->f->progress.data[i].name, name->text) == 0)
      fsp_fail(c, name->loc, "progress property '%s' is defined twice", name->text);
  if (!accept(c, FSP_TOK_LBRACK)) {
    fsp_expect(c, FSP_TOK_ASSIGN, "'='");
    progress_body(c, name->text, name->loc);
  } else {
    const char *var = fsp_expect(c, FSP_TOK_LIDENT, "an index variable (lower case)")->text;
    fsp_expect(c, FSP_TOK_COLON, "':'");
    fsp_valvec_t vals = {0};
    fsp_index_domain(c, &vals);     /* fails before it pushes a value */
    VEC_PUSH(&c->owned, vals.data); /* released on failure */
    fsp_expect(c, FSP_TOK_RBRACK, "']'");
    fsp_expect(c, FSP_TOK_ASSIGN, "'='");
    size_t body = c->pos;
    for (size_t k = 0; k < vals.len; k++) {
      c->pos = body;
      strbuf_t *sb = xmalloc(sizeof *sb);
      VEC_PUSH(&c->bufs, sb);
      strbuf_init(sb);
      strbuf_puts(sb, name->text);
      fsp_put_value(sb, vals.data[k]);
      const char *inst = arena_strdup(&c->f->arena, strbuf_str(sb));
      c->bufs.len--;
      strbuf_free(sb);
      free(sb);
      fsp_push_binding(c, var, vals.data[k]);
      progress_body(c, inst, name->loc);
      c->env.len--;
    }
    c->owned.len--;
    VEC_FREE(&vals);
  }
  accept(c, FSP_TOK_DOT);
}

static void parse_decl(fsp_ctx_t *c) {
  {
    const fsp_token_t *t = peek(c);
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
      if (fsp_is_kw(t, unsupported[i]))
        fsp_fail(c, t->loc,
                 "'%s' is not supported (ismv compiles FSP processes, not FLTL or LTSA's other extensions)",
                 t->text);
    if (fsp_is_kw(t, "const")) {
      next(c);
      const fsp_token_t *n = fsp_expect(c, FSP_TOK_UIDENT, "a constant name (upper case)");
      fsp_expect(c, FSP_TOK_ASSIGN, "'='");
      if (fsp_find_binding(c, n->text)) fsp_fail(c, n->loc, "constant '%s' is defined twice", n->text);
      long long v = fsp_int_expr(c);
      VEC_PUSH(&c->f->consts, ((fsp_binding_t){n->text, fsp_ival(v)}));
    } else if (fsp_is_kw(t, "range")) {
      next(c);
      const fsp_token_t *n = fsp_expect(c, FSP_TOK_UIDENT, "a range name (upper case)");
      fsp_expect(c, FSP_TOK_ASSIGN, "'='");
      loc_t at_lo = peek(c)->loc;
      long long lo = fsp_int_expr(c);
      fsp_expect(c, FSP_TOK_DOTDOT, "'..'");
      long long hi = fsp_int_expr(c);
      if (fsp_find_range(c->f, n->text)) fsp_fail(c, n->loc, "range '%s' is defined twice", n->text);
      fsp_check_range(c, at_lo, lo, hi);
      VEC_PUSH(&c->f->ranges, ((fsp_named_range_t){n->text, lo, hi}));
    } else if (fsp_is_kw(t, "set")) {
      next(c);
      add_named_set(c, false);
    } else if (fsp_is_kw(t, "fluent")) {
      next(c);
      fsp_parse_fluent(c);
    } else if (fsp_is_kw(t, "assert")) {
      next(c);
      fsp_parse_assert(c);
    } else if (fsp_is_kw(t, "progress")) {
      next(c);
      parse_progress(c);
    } else if (fsp_is_kw(t, "menu")) {
      next(c);
      add_named_set(c, true);
    } else if (fsp_is_kw(t, "property") || fsp_is_kw(t, "minimal") || fsp_is_kw(t, "deterministic")) {
      bool property = false, minimal = false, deterministic = false;
      for (;;) {
        if (fsp_is_kw(peek(c), "property"))
          property = true;
        else if (fsp_is_kw(peek(c), "minimal"))
          minimal = true;
        else if (fsp_is_kw(peek(c), "deterministic"))
          deterministic = true;
        else
          break;
        next(c);
      }
      if (accept(c, FSP_TOK_OROR))
        parse_composite(c, property);
      else
        parse_process(c, property, fsp_expect(c, FSP_TOK_UIDENT, "a process name (upper case)"));
      VEC_LAST(&c->f->procs).minimal = minimal;
      VEC_LAST(&c->f->procs).deterministic = deterministic;
    } else if (t->kind == FSP_TOK_OROR) {
      next(c);
      parse_composite(c, false);
    } else if (t->kind == FSP_TOK_UIDENT) {
      next(c);
      parse_process(c, false, t);
    } else if (c->pos == 0) { /* the first token: perhaps a file named by mistake, not to be echoed */
      c->f->foreign = true;
      diag_source_conceal(c->d, t->loc.file);
      fsp_fail(
          c, t->loc,
          "expected a declaration (const, range, set, menu, property, a process or '||') at the start of "
          "the file: is this an FSP file?");
    } else
      fsp_fail(c, t->loc,
               "expected a declaration (const, range, set, menu, property, a process or '||'), found '%s'",
               fsp_describe(t));
  }
}

/* Whether t can start a declaration (where parsing resumes after an error). */
static bool starts_decl(const fsp_token_t *t) {
  static const char *const kws[] = {"const",    "range",  "set",    "menu",
                                    "property", "fluent", "assert", "progress"};
  if (t->kind == FSP_TOK_EOF || t->kind == FSP_TOK_OROR || t->kind == FSP_TOK_UIDENT) return true;
  for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
    if (fsp_is_kw(t, kws[i])) return true;
  for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
    if (fsp_is_kw(t, unsupported[i])) return true;
  return false;
}

static void ctx_init(fsp_ctx_t *c, fsp_file_t *f, diag_list_t *d);
static void ctx_free(fsp_ctx_t *c, lts_t *keep);

/* Parses one declaration; false after reporting an error. */
static bool parse_decl_caught(fsp_ctx_t *c) {
  if (setjmp(c->fail)) return false;
  parse_decl(c);
  return true;
}

#define FSP_MAX_ERRORS 50

/* Every declaration; after an error, parsing resumes after the next '.'
 * that ends a definition, so one run reports every syntax error. */
static void parse_decls(fsp_ctx_t *c) {
  while (!at(c, FSP_TOK_EOF)) {
    if (parse_decl_caught(c)) continue;
    fsp_file_t *f = c->f;
    size_t pos = c->pos;
    ctx_free(c, NULL);
    diag_list_t *d = c->d;
    ctx_init(c, f, d);
    c->pos = pos;
    if (++f->nerrors >= FSP_MAX_ERRORS || f->limit_hit || f->foreign) return;
    while (!at(c, FSP_TOK_EOF)) {
      const fsp_token_t *t = next(c);
      if (t->kind == FSP_TOK_DOT && starts_decl(peek(c))) break;
    }
  }
}

/* ------------------------------------------------------------- API */

static void ctx_init(fsp_ctx_t *c, fsp_file_t *f, diag_list_t *d) {
  memset(c, 0, sizeof *c);
  c->f = f;
  c->d = d;
  c->live = true;
  c->stop = c->end = c->error = -1;
}

static void ctx_free(fsp_ctx_t *c, lts_t *keep) {
  for (size_t i = 0; i < c->temps.len; i++)
    if (c->temps.data[i] != keep) lts_free(c->temps.data[i]);
  for (size_t i = 0; i < c->builders.len; i++) {
    lts_builder_free(c->builders.data[i]);
    free(c->builders.data[i]);
  }
  for (size_t i = 0; i < c->interns.len; i++) {
    intern_free(c->interns.data[i]);
    free(c->interns.data[i]);
  }
  for (size_t i = 0; i < c->work_env.len; i++) free(c->work_env.data[i]);
  for (size_t i = 0; i < c->owned.len; i++) free(c->owned.data[i]);
  VEC_FREE(&c->owned);
  for (size_t i = 0; i < c->bufs.len; i++) {
    strbuf_free(c->bufs.data[i]);
    free(c->bufs.data[i]);
  }
  VEC_FREE(&c->bufs);
  for (size_t i = 0; i < c->lists.len; i++) {
    VEC_FREE(c->lists.data[i]);
    free(c->lists.data[i]);
  }
  VEC_FREE(&c->lists);
  for (size_t i = 0; i < c->strs.len; i++) {
    VEC_FREE(c->strs.data[i]);
    free(c->strs.data[i]);
  }
  VEC_FREE(&c->strs);
  VEC_FREE(&c->temps);
  VEC_FREE(&c->builders);
  VEC_FREE(&c->interns);
  VEC_FREE(&c->env);
  VEC_FREE(&c->inst_state);
  VEC_FREE(&c->work_local);
  VEC_FREE(&c->work_state);
  VEC_FREE(&c->work_env);
  VEC_FREE(&c->work_nenv);
}

fsp_file_t *fsp_parse_string(const char *name, const char *text, lts_labels_t *labels, diag_list_t *diags) {
  fsp_file_t *f = xcalloc(1, sizeof *f);
  arena_init(&f->arena);
  f->labels = labels;
  f->path = diag_add_source(diags, name, text);
  diag_source_conceal_binary(diags, f->path); /* a binary named by mistake: never echoed */
  if (!fsp_lex(f, f->path, text, diags)) {
    fsp_free(f);
    return NULL;
  }
  f->max_states = FSP_DEFAULT_MAX_STATES;
  fsp_ctx_t c;
  ctx_init(&c, f, diags);
  parse_decls(&c);
  ctx_free(&c, NULL);
  if (f->nerrors > 0) {
    fsp_free(f);
    return NULL;
  }
  return f;
}

fsp_file_t *fsp_parse_file(const char *path, lts_labels_t *labels, diag_list_t *diags) {
  const char *registered;
  const char *text = diag_read_file(diags, path, (loc_t){0}, &registered);
  if (!text) return NULL;
  return fsp_parse_string(registered, text, labels, diags);
}

void fsp_free(fsp_file_t *f) {
  if (!f) return;
  for (size_t i = 0; i < f->procs.len; i++) VEC_FREE(&f->procs.data[i].locals);
  VEC_FREE(&f->procs);
  VEC_FREE(&f->fluents);
  VEC_FREE(&f->progress);
  VEC_FREE(&f->consts);
  VEC_FREE(&f->ranges);
  VEC_FREE(&f->sets);
  VEC_FREE(&f->menus);
  arena_free(&f->arena);
  free(f);
}

void fsp_set_max_states(fsp_file_t *f, long max) { f->max_states = max > 0 ? max : FSP_DEFAULT_MAX_STATES; }
bool fsp_limit_reached(const fsp_file_t *f) { return f->limit_hit; }

bool fsp_has_process(const fsp_file_t *f, const char *name) { return fsp_find_proc(f, name) != NULL; }

size_t fsp_process_count(const fsp_file_t *f) { return f->procs.len; }
const char *fsp_process_name(const fsp_file_t *f, size_t i) {
  return i < f->procs.len ? f->procs.data[i].name : NULL;
}

const char *fsp_last_process(const fsp_file_t *f) { return f->procs.len ? VEC_LAST(&f->procs).name : NULL; }

const char *fsp_pick_process(const fsp_file_t *f, const char *preferred) {
  if (preferred && fsp_find_proc(f, preferred)) return preferred;
  return fsp_last_process(f);
}

lts_t *fsp_compile(fsp_file_t *f, const char *name, diag_list_t *diags) {
  fsp_ctx_t c;
  ctx_init(&c, f, diags);
  fsp_proc_def_t *p = fsp_find_proc(f, name);
  if (!p) {
    diag_error(diags, (loc_t){f->path, 1, 1}, "no process '%s' in '%s'", name, f->path);
    return NULL;
  }
  if (setjmp(c.fail)) {
    ctx_free(&c, NULL);
    return NULL;
  }
  lts_t *l = fsp_compile_def(&c, p, NULL, 0, p->loc);
  /* the result must not alias a temporary that is freed */
  ctx_free(&c, l);
  return l;
}

size_t fsp_progress_count(const fsp_file_t *f) { return f->progress.len; }
const fsp_progress_t *fsp_progress_at(const fsp_file_t *f, size_t i) {
  return i < f->progress.len ? &f->progress.data[i] : NULL;
}

const char *const *fsp_menu(const fsp_file_t *f, const char *name, size_t *count) {
  for (size_t i = 0; f && i < f->menus.len; i++)
    if (strcmp(f->menus.data[i].name, name) == 0) {
      *count = f->menus.data[i].count;
      return f->menus.data[i].items;
    }
  *count = 0;
  return NULL;
}
