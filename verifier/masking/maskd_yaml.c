#include "verifier/masking/maskd_yaml.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"
#include "verifier/masking/maskd_parse.h"

typedef struct {
  maskd_program_t *prog;
  diag_list_t *diags;
} reader_t;

/* The location of text[k] in a scalar that starts at `at` (as expr_parse
 * counts: a newline restarts at column 1). */
static loc_t loc_after(loc_t at, const char *text, size_t k) {
  for (size_t i = 0; i < k && text[i]; i++) {
    if (text[i] == '\n')
      at.line++, at.col = 1;
    else
      at.col++;
  }
  return at;
}

static size_t skip_space(const char *s, size_t i) {
  while (s[i] == ' ' || s[i] == '\t') i++;
  return i;
}

static size_t name_end(const char *s, size_t i) {
  if (!isalpha((unsigned char)s[i]) && s[i] != '_') return i;
  while (isalnum((unsigned char)s[i]) || s[i] == '_') i++;
  return i;
}

static const char *const KEYWORDS[] = {"and", "or", "not", "if", "then", "else", "true", "false"};

/* A scalar naming a declaration: an identifier that is not a keyword of
 * the expression language. Returns the program's copy, or NULL. */
static const char *read_name(reader_t *r, const ynode_t *n, const char *what) {
  const char *text;
  if (!ydoc_string(n, &text, what, r->diags)) return NULL;
  if (!text[0] || text[name_end(text, 0)]) {
    diag_error(r->diags, n->loc, "%s '%s' is not a name (letters, digits and '_', not starting with a digit)",
               what, text);
    return NULL;
  }
  for (size_t i = 0; i < sizeof KEYWORDS / sizeof *KEYWORDS; i++)
    if (strcmp(text, KEYWORDS[i]) == 0) {
      diag_error(r->diags, n->loc, "%s '%s' is a keyword of the expression language", what, text);
      return NULL;
    }
  return arena_strdup(&r->prog->arena, text);
}

/* A scalar's text as in the file, for expr_parse (which restarts each line
 * at column 1): ydoc locates a block scalar (`|`, `>`) at column 1 of its
 * first content line and strips its indentation, so *start moves to the
 * first character and every later line gets the indentation back. */
static const char *as_in_file(reader_t *r, const ynode_t *n, const char *text, loc_t *start) {
  *start = n->loc;
  char line[4096];
  if (n->loc.col != 1 || !diag_source_line(r->diags, n->loc.file, n->loc.line, line, sizeof line))
    return text;
  int indent = 0;
  while (line[indent] == ' ') indent++;
  start->col = 1 + indent;
  if (!strchr(text, '\n')) return text;
  strbuf_t sb;
  strbuf_init(&sb);
  for (const char *c = text; *c; c++) {
    strbuf_putc(&sb, *c);
    if (*c == '\n' && c[1])
      for (int i = 0; i < indent; i++) strbuf_putc(&sb, ' ');
  }
  const char *copy = arena_strdup(&r->prog->arena, strbuf_str(&sb));
  strbuf_free(&sb);
  return copy;
}

static expr_t *read_expr(reader_t *r, const ynode_t *n, const char *what) {
  const char *text;
  if (!ydoc_string(n, &text, what, r->diags)) return NULL;
  loc_t start;
  text = as_in_file(r, n, text, &start);
  return expr_parse(text, start, &r->prog->arena, r->diags);
}

/* `{name: type, ...}` appended to *out_vec (a VEC(maskd_decl_t)). */
static void read_decls(reader_t *r, const ynode_t *map, void *out_vec, const char *what) {
  VEC(maskd_decl_t) *out = out_vec;
  if (!map || !ydoc_expect_kind(map, YNODE_MAP, what, r->diags)) return;
  for (size_t i = 0; i < map->len; i++) {
    maskd_decl_t d = {.loc = map->keys[i]->loc, .type_loc = map->items[i]->loc, .enum_decl = -1};
    d.name = read_name(r, map->keys[i], "a variable");
    const char *type;
    if (!d.name || !ydoc_string(map->items[i], &type, "a type", r->diags)) continue;
    d.kind = strcmp(type, "bool") == 0 ? TYPE_BOOL : strcmp(type, "int") == 0 ? TYPE_INT : TYPE_NONE;
    d.type_name = arena_strdup(&r->prog->arena, type); /* TYPE_NONE: an enum, resolved by maskd_finish */
    VEC_PUSH(out, d);
  }
}

static void read_enums(reader_t *r, const ynode_t *map) {
  maskd_program_t *prog = r->prog;
  if (!map || !ydoc_expect_kind(map, YNODE_MAP, "'enums'", r->diags)) return;
  for (size_t i = 0; i < map->len; i++) {
    maskd_enum_decl_t en = {.loc = map->keys[i]->loc};
    en.name = read_name(r, map->keys[i], "an enum");
    const ynode_t *vals = map->items[i];
    if (!en.name || !ydoc_expect_kind(vals, YNODE_SEQ, "the values of an enum", r->diags)) continue;
    for (size_t j = 0; j < vals->len; j++) {
      const char *v = read_name(r, vals->items[j], "an enum value");
      if (!v) continue;
      size_t k = 1;
      while (k < prog->values.len && strcmp(prog->values.data[k], v) != 0) k++;
      if (k == prog->values.len) VEC_PUSH(&prog->values, v);
      for (size_t m = 0; m < en.values.len; m++)
        if (en.values.data[m] == (int)k)
          diag_error(r->diags, vals->items[j]->loc, "enum value '%s' listed twice in '%s'", v, en.name);
      VEC_PUSH(&en.values, (int)k);
    }
    VEC_PUSH(&prog->enums, en);
  }
}

/* `"x := e"`: the name and the expression at their offsets. */
static bool read_assign_text(reader_t *r, const ynode_t *n, maskd_assign_t *a) {
  const char *text;
  if (!ydoc_string(n, &text, "an assignment", r->diags)) return false;
  loc_t start;
  text = as_in_file(r, n, text, &start);
  size_t b = skip_space(text, 0), e = name_end(text, b), k = skip_space(text, e);
  if (e == b || strncmp(text + k, ":=", 2) != 0) {
    diag_error(r->diags, start, "an assignment must read 'variable := expression', not '%s'", text);
    return false;
  }
  a->lhs = arena_strndup(&r->prog->arena, text + b, e - b);
  a->loc = loc_after(start, text, b);
  a->rhs = expr_parse(text + k + 2, loc_after(start, text, k + 2), &r->prog->arena, r->diags);
  return a->rhs != NULL;
}

/* `do:` — a mapping {x: e, ...} or a list of "x := e". */
static void read_assigns(reader_t *r, const ynode_t *n, maskd_branch_t *b) {
  if (n->kind == YNODE_MAP) {
    for (size_t i = 0; i < n->len; i++) {
      maskd_assign_t a = {.lhs = arena_strdup(&r->prog->arena, n->keys[i]->text), .loc = n->keys[i]->loc};
      a.rhs = read_expr(r, n->items[i], "an assigned value");
      if (a.rhs) VEC_PUSH(&b->assigns, a);
    }
  } else if (n->kind == YNODE_SEQ) {
    for (size_t i = 0; i < n->len; i++) {
      maskd_assign_t a = {0};
      if (read_assign_text(r, n->items[i], &a)) VEC_PUSH(&b->assigns, a);
    }
  } else if (!ydoc_is_null(n)) {
    diag_error(r->diags, n->loc,
               "'do' must be a mapping {variable: expression} or a list of 'variable := expression'");
  }
}

static void read_action(reader_t *r, const ynode_t *n, maskd_proc_t *pr) {
  static const char *const keys[] = {"label", "guard", "do", "faulty", "internal"};
  if (!ydoc_expect_kind(n, YNODE_MAP, "an action", r->diags)) return;
  ydoc_check_keys(n, keys, sizeof keys / sizeof *keys, "an action", r->diags);
  maskd_branch_t b = {.loc = n->loc, .label = ""};
  const ynode_t *v;
  if ((v = ydoc_get(n, "label")) && !(ydoc_is_null(v) || (b.label = read_name(r, v, "a label"))))
    b.label = "";
  if ((v = ydoc_get(n, "faulty"))) ydoc_bool(v, &b.faulty, "'faulty'", r->diags);
  if ((v = ydoc_get(n, "internal"))) ydoc_bool(v, &b.internal, "'internal'", r->diags);
  b.guard =
      (v = ydoc_get(n, "guard")) ? read_expr(r, v, "a guard") : expr_new_bool(&r->prog->arena, true, n->loc);
  if ((v = ydoc_get(n, "do"))) read_assigns(r, v, &b);
  VEC_PUSH(&pr->branches, b); /* pushed even after an error, so maskd_free frees it */
}

static void read_process(reader_t *r, const ynode_t *key, const ynode_t *n) {
  static const char *const keys[] = {"parameters", "variables", "initial", "actions"};
  maskd_proc_t pr = {.loc = key->loc};
  pr.name = read_name(r, key, "a process");
  if (!pr.name || !ydoc_expect_kind(n, YNODE_MAP, "a process", r->diags)) return;
  ydoc_check_keys(n, keys, sizeof keys / sizeof *keys, "a process", r->diags);
  read_decls(r, ydoc_get(n, "parameters"), &pr.params, "'parameters'");
  read_decls(r, ydoc_get(n, "variables"), &pr.locals, "'variables'");
  const ynode_t *v = ydoc_get(n, "initial");
  pr.initial = v ? read_expr(r, v, "'initial'") : expr_new_bool(&r->prog->arena, true, n->loc);
  const ynode_t *actions = ydoc_get(n, "actions");
  if (actions && ydoc_expect_kind(actions, YNODE_SEQ, "'actions'", r->diags))
    for (size_t i = 0; i < actions->len; i++) read_action(r, actions->items[i], &pr);
  VEC_PUSH(&r->prog->procs, pr);
}

static void read_instances(reader_t *r, const ynode_t *map) {
  if (!ydoc_expect_kind(map, YNODE_MAP, "'instances'", r->diags)) return;
  for (size_t i = 0; i < map->len; i++) {
    maskd_inst_t in = {.loc = map->keys[i]->loc, .proc_loc = map->items[i]->loc, .proc = -1, .run = -1};
    in.name = read_name(r, map->keys[i], "an instance");
    in.proc_name = read_name(r, map->items[i], "a process");
    if (in.name && in.proc_name) VEC_PUSH(&r->prog->insts, in);
  }
}

/* A run item: `inst` or `inst(global, ...)`. */
static void read_run(reader_t *r, const ynode_t *n) {
  const char *text;
  if (!ydoc_string(n, &text, "a run item", r->diags)) return;
  maskd_run_t run = {.inst_id = -1};
  size_t b = skip_space(text, 0), e = name_end(text, b), i = skip_space(text, e);
  const char *expected = "an instance name";
  if (e == b) goto bad;
  run.inst = arena_strndup(&r->prog->arena, text + b, e - b);
  run.loc = loc_after(n->loc, text, b);
  if (text[i] == '(') {
    i = skip_space(text, i + 1);
    while (text[i] != ')') {
      size_t ab = i, ae = name_end(text, ab);
      expected = "a global variable";
      if (ae == ab) goto bad;
      VEC_PUSH(&run.args, arena_strndup(&r->prog->arena, text + ab, ae - ab));
      VEC_PUSH(&run.arg_locs, loc_after(n->loc, text, ab));
      i = skip_space(text, ae);
      expected = "',' or ')'";
      if (text[i] == ',')
        i = skip_space(text, i + 1);
      else if (text[i] != ')')
        goto bad;
    }
    i = skip_space(text, i + 1);
  }
  expected = "'(' or the end of the item";
  if (text[i]) goto bad;
  VEC_PUSH(&r->prog->runs, run);
  return;
bad:
  diag_error(r->diags, loc_after(n->loc, text, i),
             "expected %s in a run item (write 'instance' or 'instance(global, ...)')", expected);
  VEC_FREE(&run.args);
  VEC_FREE(&run.arg_locs);
}

maskd_program_t *maskd_yaml_read(const ynode_t *model, diag_list_t *diags) {
  static const char *const keys[] = {"enums", "globals", "processes", "instances", "run"};
  const char *what = "a masking model";
  maskd_program_t *prog = maskd_new();
  prog->yaml = true;
  reader_t r = {prog, diags};
  size_t before = diag_error_count(diags);
  if (!ydoc_expect_kind(model, YNODE_MAP, what, diags)) return maskd_finish(prog, before, diags);
  ydoc_check_keys(model, keys, sizeof keys / sizeof *keys, what, diags);
  read_enums(&r, ydoc_get(model, "enums"));
  read_decls(&r, ydoc_get(model, "globals"), &prog->globals, "'globals'");
  const ynode_t *procs = ydoc_require(model, "processes", what, diags);
  if (procs && ydoc_expect_kind(procs, YNODE_MAP, "'processes'", diags))
    for (size_t i = 0; i < procs->len; i++) read_process(&r, procs->keys[i], procs->items[i]);
  const ynode_t *insts = ydoc_require(model, "instances", what, diags);
  if (insts) read_instances(&r, insts);
  const ynode_t *runs = ydoc_require(model, "run", what, diags);
  if (runs && ydoc_expect_kind(runs, YNODE_SEQ, "'run'", diags)) {
    for (size_t i = 0; i < runs->len; i++) read_run(&r, runs->items[i]);
    if (runs->len == 0) diag_error(diags, runs->loc, "'run' must list at least one instance");
  }
  return maskd_finish(prog, before, diags);
}
