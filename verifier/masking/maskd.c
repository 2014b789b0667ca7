/* MaskD's name resolution and checks, and the program's lifetime; the
 * syntax is read by maskd_parse.c, the state space built by maskd_explore.c. */
#include "verifier/masking/maskd.h"

#include <stdlib.h>
#include <string.h>

#include "verifier/masking/maskd_parse.h"

/* ---- checking ---- */

static int find_enum(const maskd_program_t *prog, const char *name) {
  for (size_t i = 0; i < prog->enums.len; i++)
    if (strcmp(prog->enums.data[i].name, name) == 0) return (int)i;
  return -1;
}

static void resolve_type(maskd_program_t *prog, maskd_decl_t *d, diag_list_t *diags) {
  if (d->kind != TYPE_NONE || !d->type_name) return;
  d->enum_decl = find_enum(prog, d->type_name);
  if (d->enum_decl >= 0) {
    d->kind = TYPE_ENUM;
    return;
  }
  const char *b = prog->yaml ? "bool" : "BOOL", *i = prog->yaml ? "int" : "INT";
  VEC(const char *) cands = {0};
  VEC_PUSH(&cands, b);
  VEC_PUSH(&cands, i);
  for (size_t k = 0; k < prog->enums.len; k++) VEC_PUSH(&cands, prog->enums.data[k].name);
  const char *hint = diag_suggest(d->type_name, cands.data, cands.len);
  if (hint)
    diag_error(diags, d->type_loc, "unknown type '%s' (did you mean '%s'?)", d->type_name, hint);
  else
    diag_error(diags, d->type_loc, "unknown type '%s' (expected '%s', '%s' or an enum name)", d->type_name, b, i);
  VEC_FREE(&cands);
}

static type_t decl_type(const maskd_decl_t *d) {
  type_t t = {d->kind, d->kind == TYPE_ENUM ? 0 : -1}; /* one merged enum, see check_enum_uses */
  return t;
}

/* Reports names declared twice among decls[0..n). */
static void check_unique(const maskd_decl_t *decls, size_t n, const char *what, diag_list_t *diags) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(decls[i].name, decls[j].name) == 0) {
        diag_error(diags, decls[i].loc, "%s '%s' declared twice (first at line %d)", what, decls[i].name,
                   decls[j].loc.line);
        break;
      }
}

static void build_scope(maskd_program_t *prog, maskd_proc_t *pr, diag_list_t *diags) {
  size_t np = pr->params.len, nl = pr->locals.len, ng = prog->globals.len;
  maskd_decl_t *own = xmalloc((np + nl + 1) * sizeof *own);
  for (size_t i = 0; i < np; i++) resolve_type(prog, &pr->params.data[i], diags), own[i] = pr->params.data[i];
  for (size_t i = 0; i < nl; i++) resolve_type(prog, &pr->locals.data[i], diags), own[np + i] = pr->locals.data[i];
  check_unique(own, np + nl, "variable", diags);
  size_t cap = np + nl + ng;
  pr->syms = arena_alloc(&prog->arena, (cap + 1) * sizeof *pr->syms);
  pr->sym_decl_enum = arena_alloc(&prog->arena, (cap + 1) * sizeof(int));
  pr->sym_global = arena_alloc(&prog->arena, (cap + 1) * sizeof(int));
  size_t n = 0;
  for (size_t i = 0; i < np + nl + ng; i++) {
    const maskd_decl_t *d = i < np + nl ? &own[i] : &prog->globals.data[i - np - nl];
    bool shadowed = false;
    for (size_t j = 0; j < n && i >= np + nl; j++) shadowed |= strcmp(pr->syms[j].name, d->name) == 0;
    if (shadowed) continue;
    pr->syms[n] = (expr_sym_t){.name = d->name, .kind = i < np ? SYM_PARAM : SYM_VAR, .type = decl_type(d), .id = (int)n};
    pr->sym_decl_enum[n] = d->enum_decl;
    pr->sym_global[n] = i < np + nl ? -1 : (int)(i - np - nl);
    n++;
  }
  pr->nsyms = n;
  free(own);
}

static expr_scope_t proc_scope(const maskd_program_t *prog, const maskd_proc_t *pr) {
  expr_scope_t sc = {.syms = pr->syms, .nsyms = pr->nsyms, .enums = &prog->merged, .nenums = prog->enums.len ? 1 : 0};
  return sc;
}

static bool enum_has(const maskd_program_t *prog, int decl, long long value) {
  const maskd_enum_decl_t *en = &prog->enums.data[decl];
  for (size_t i = 0; i < en->values.len; i++)
    if (en->values.data[i] == value) return true;
  return false;
}

/* Enum values are global names in MaskD, shared between enums; the merged
 * enum type cannot tell `s == fst` with s: SSTATE from a correct use, so
 * comparisons of a variable with a constant are checked here. */
static void check_enum_uses(const maskd_program_t *prog, const maskd_proc_t *pr, const expr_t *e, diag_list_t *diags) {
  if (!e) return;
  switch (e->kind) {
  case EXPR_INT: case EXPR_REAL: case EXPR_BOOL: case EXPR_NAME: case EXPR_VAR: case EXPR_ENUM:
    return;
  case EXPR_NEG: case EXPR_NOT: case EXPR_ABS: case EXPR_TOREAL:
    check_enum_uses(prog, pr, e->u.op.a, diags);
    return;
  default:
    break;
  }
  const expr_t *a = e->u.op.a, *b = e->u.op.b;
  if (e->kind == EXPR_EQ || e->kind == EXPR_NE) {
    if (b && b->kind == EXPR_VAR) {
      const expr_t *t = a;
      a = b, b = t;
    }
    if (a && b && a->kind == EXPR_VAR && b->kind == EXPR_ENUM) {
      int decl = pr->sym_decl_enum[a->u.var.id];
      if (decl >= 0 && !enum_has(prog, decl, b->u.ival))
        diag_error(diags, b->loc, "'%s' is not a value of enum '%s' (the type of '%s')", prog->values.data[b->u.ival],
                   prog->enums.data[decl].name, a->u.var.name);
    }
  }
  check_enum_uses(prog, pr, e->u.op.a, diags);
  check_enum_uses(prog, pr, e->u.op.b, diags);
  if (e->kind == EXPR_ITE) check_enum_uses(prog, pr, e->u.op.c, diags);
}

static int find_sym(const maskd_proc_t *pr, const char *name) {
  for (size_t i = 0; i < pr->nsyms; i++)
    if (strcmp(pr->syms[i].name, name) == 0) return (int)i;
  return -1;
}

static void unknown_variable(const maskd_proc_t *pr, const char *name, loc_t loc, diag_list_t *diags) {
  const char **names = xmalloc((pr->nsyms + 1) * sizeof *names);
  for (size_t i = 0; i < pr->nsyms; i++) names[i] = pr->syms[i].name;
  const char *hint = diag_suggest(name, names, pr->nsyms);
  if (hint)
    diag_error(diags, loc, "unknown variable '%s' (did you mean '%s'?)", name, hint);
  else
    diag_error(diags, loc, "unknown variable '%s'", name);
  free(names);
}

/* Initial: a conjunction of x, !x, x == e (or e == x), true. */
static void check_initial_form(const maskd_program_t *prog, const expr_t *e, diag_list_t *diags) {
  if (e->kind == EXPR_AND) {
    check_initial_form(prog, e->u.op.a, diags);
    check_initial_form(prog, e->u.op.b, diags);
    return;
  }
  bool ok = (e->kind == EXPR_BOOL && e->u.bval) || e->kind == EXPR_VAR ||
            (e->kind == EXPR_NOT && e->u.op.a->kind == EXPR_VAR) ||
            (e->kind == EXPR_EQ && (e->u.op.a->kind == EXPR_VAR || e->u.op.b->kind == EXPR_VAR));
  if (ok) return;
  if (prog->yaml)
    diag_error(diags, e->loc,
               "unsupported initial condition: 'initial' must be a conjunction of 'x', 'not x' and 'x == value'");
  else
    diag_error(diags, e->loc,
               "unsupported initial condition: 'Initial:' must be a conjunction of 'x', '!x' and 'x == value'");
}

static void check_branch(maskd_program_t *prog, maskd_proc_t *pr, maskd_branch_t *b, diag_list_t *diags) {
  expr_scope_t sc = proc_scope(prog, pr);
  if (expr_check(b->guard, &sc, TYPE_BOOL, &prog->arena, diags)) check_enum_uses(prog, pr, b->guard, diags);
  for (size_t i = 0; i < b->assigns.len; i++) {
    maskd_assign_t *a = &b->assigns.data[i];
    a->sym = find_sym(pr, a->lhs);
    for (size_t j = 0; j < i; j++)
      if (strcmp(b->assigns.data[j].lhs, a->lhs) == 0)
        diag_error(diags, a->loc, "'%s' is assigned twice in one action", a->lhs);
    if (a->sym < 0) {
      unknown_variable(pr, a->lhs, a->loc, diags);
      continue;
    }
    type_t t = pr->syms[a->sym].type;
    if (!expr_check(a->rhs, &sc, t.kind, &prog->arena, diags)) continue;
    int decl = pr->sym_decl_enum[a->sym];
    if (decl >= 0 && a->rhs->kind == EXPR_ENUM && !enum_has(prog, decl, a->rhs->u.ival))
      diag_error(diags, a->rhs->loc, "'%s' is not a value of enum '%s' (the type of '%s')",
                 prog->values.data[a->rhs->u.ival], prog->enums.data[decl].name, a->lhs);
    check_enum_uses(prog, pr, a->rhs, diags);
  }
  if (b->faulty) prog->has_faulty = true; /* narrowed to run instances later */
}

static void check_process(maskd_program_t *prog, maskd_proc_t *pr, diag_list_t *diags) {
  build_scope(prog, pr, diags);
  expr_scope_t sc = proc_scope(prog, pr);
  if (pr->initial && expr_check(pr->initial, &sc, TYPE_BOOL, &prog->arena, diags)) {
    check_initial_form(prog, pr->initial, diags);
    check_enum_uses(prog, pr, pr->initial, diags);
  }
  for (size_t i = 0; i < pr->branches.len; i++) check_branch(prog, pr, &pr->branches.data[i], diags);
}

static int find_global(const maskd_program_t *prog, const char *name) {
  for (size_t i = 0; i < prog->globals.len; i++)
    if (strcmp(prog->globals.data[i].name, name) == 0) return (int)i;
  return -1;
}

static void check_instances(maskd_program_t *prog, diag_list_t *diags) {
  for (size_t i = 0; i < prog->insts.len; i++) {
    maskd_inst_t *in = &prog->insts.data[i];
    for (size_t j = 0; j < i; j++)
      if (strcmp(prog->insts.data[j].name, in->name) == 0) {
        diag_error(diags, in->loc, "instance '%s' declared twice", in->name);
        break;
      }
    for (size_t j = 0; j < prog->procs.len; j++)
      if (strcmp(prog->procs.data[j].name, in->proc_name) == 0) in->proc = (int)j;
    if (in->proc >= 0) continue;
    const char **names = xmalloc((prog->procs.len + 1) * sizeof *names);
    for (size_t j = 0; j < prog->procs.len; j++) names[j] = prog->procs.data[j].name;
    const char *hint = diag_suggest(in->proc_name, names, prog->procs.len);
    if (hint)
      diag_error(diags, in->proc_loc, "unknown process '%s' (did you mean '%s'?)", in->proc_name, hint);
    else
      diag_error(diags, in->proc_loc, "unknown process '%s'", in->proc_name);
    free(names);
  }
}

static void check_run(maskd_program_t *prog, maskd_run_t *r, diag_list_t *diags) {
  for (size_t j = 0; j < prog->insts.len; j++)
    if (strcmp(prog->insts.data[j].name, r->inst) == 0) r->inst_id = (int)j;
  if (r->inst_id < 0) {
    if (prog->yaml)
      diag_error(diags, r->loc, "unknown instance '%s' (declare it under 'instances')", r->inst);
    else
      diag_error(diags, r->loc, "unknown instance '%s' (declare it as '%s: Process;')", r->inst, r->inst);
    return;
  }
  maskd_inst_t *in = &prog->insts.data[r->inst_id];
  if (in->run >= 0) {
    diag_error(diags, r->loc, "instance '%s' is run twice", r->inst);
    return;
  }
  in->run = (int)(r - prog->runs.data);
  if (in->proc < 0) return;
  const maskd_proc_t *pr = &prog->procs.data[in->proc];
  if (r->args.len != pr->params.len) {
    diag_error(diags, r->loc, "process '%s' takes %zu parameter%s, but '%s' is run with %zu", pr->name,
               pr->params.len, pr->params.len == 1 ? "" : "s", r->inst, r->args.len);
    return;
  }
  for (size_t k = 0; k < r->args.len; k++) {
    int g = find_global(prog, r->args.data[k]);
    const maskd_decl_t *par = &pr->params.data[k];
    if (g < 0) {
      diag_error(diags, r->arg_locs.data[k], "'%s' is not a global variable (parameters are passed by reference)",
                 r->args.data[k]);
      continue;
    }
    const maskd_decl_t *gd = &prog->globals.data[g];
    if (par->kind != TYPE_NONE && gd->kind != TYPE_NONE && (gd->kind != par->kind || gd->enum_decl != par->enum_decl))
      diag_error(diags, r->arg_locs.data[k], "global '%s' has type %s, but parameter '%s' of '%s' has type %s",
                 gd->name, gd->type_name, par->name, pr->name, par->type_name);
  }
}

/* Slots: globals, then the locals of each run instance. */
static void build_slots(maskd_program_t *prog) {
  for (size_t i = 0; i < prog->globals.len; i++)
    VEC_PUSH(&prog->slots, ((maskd_slot_t){prog->globals.data[i].name, prog->globals.data[i].kind}));
  prog->has_faulty = false;
  for (size_t r = 0; r < prog->runs.len; r++) {
    maskd_run_t *run = &prog->runs.data[r];
    const maskd_proc_t *pr = &prog->procs.data[prog->insts.data[run->inst_id].proc];
    run->slot_of_sym = arena_alloc(&prog->arena, (pr->nsyms + 1) * sizeof(int));
    size_t np = pr->params.len;
    for (size_t s = 0; s < pr->nsyms; s++) {
      if (pr->sym_global[s] >= 0) {
        run->slot_of_sym[s] = pr->sym_global[s];
      } else if (s < np) {
        run->slot_of_sym[s] = find_global(prog, run->args.data[s]);
      } else {
        run->slot_of_sym[s] = (int)prog->slots.len;
        const char *name = arena_printf(&prog->arena, "%s.%s", run->inst, pr->syms[s].name);
        VEC_PUSH(&prog->slots, ((maskd_slot_t){name, pr->syms[s].type.kind}));
      }
    }
    run->labels = arena_alloc(&prog->arena, (pr->branches.len + 1) * sizeof(char *));
    for (size_t b = 0; b < pr->branches.len; b++) {
      const maskd_branch_t *br = &pr->branches.data[b];
      run->labels[b] = arena_printf(&prog->arena, "%s.%s", run->inst, br->label);
      prog->has_faulty |= br->faulty;
      prog->has_internal |= br->internal && !br->faulty;
    }
  }
}

static void check_program(maskd_program_t *prog, diag_list_t *diags) {
  size_t before = diag_error_count(diags);
  if (prog->enums.len) {
    for (size_t i = 0; i < prog->enums.len; i++)
      for (size_t j = 0; j < i; j++)
        if (strcmp(prog->enums.data[i].name, prog->enums.data[j].name) == 0)
          diag_error(diags, prog->enums.data[i].loc, "enum '%s' declared twice", prog->enums.data[i].name);
    prog->merged = (expr_enum_t){.name = "enum", .nvalues = (int)prog->values.len, .values = prog->values.data};
  }
  for (size_t i = 0; i < prog->globals.len; i++) resolve_type(prog, &prog->globals.data[i], diags);
  check_unique(prog->globals.data, prog->globals.len, "global", diags);
  for (size_t i = 0; i < prog->procs.len; i++) {
    for (size_t j = 0; j < i; j++)
      if (strcmp(prog->procs.data[i].name, prog->procs.data[j].name) == 0)
        diag_error(diags, prog->procs.data[i].loc, "process '%s' declared twice", prog->procs.data[i].name);
    check_process(prog, &prog->procs.data[i], diags);
  }
  check_instances(prog, diags);
  for (size_t r = 0; r < prog->runs.len; r++) check_run(prog, &prog->runs.data[r], diags);
  if (diag_error_count(diags) > before) return;
  for (size_t i = 0; i < prog->insts.len; i++)
    if (prog->insts.data[i].run < 0)
      diag_warning(diags, prog->insts.data[i].loc, "instance '%s' is never run", prog->insts.data[i].name);
  build_slots(prog);
}

maskd_program_t *maskd_new(void) {
  maskd_program_t *prog = xcalloc(1, sizeof *prog);
  arena_init(&prog->arena);
  VEC_PUSH(&prog->values, ""); /* an enum variable no Initial mentions holds "" */
  return prog;
}

maskd_program_t *maskd_finish(maskd_program_t *prog, size_t errors_before, diag_list_t *diags) {
  if (diag_error_count(diags) == errors_before) check_program(prog, diags);
  if (diag_error_count(diags) > errors_before) {
    maskd_free(prog);
    return NULL;
  }
  return prog;
}

maskd_program_t *maskd_parse(const char *text, loc_t start, int indent, diag_list_t *diags) {
  maskd_program_t *prog = maskd_new();
  size_t before = diag_error_count(diags);
  maskd_parse_syntax(prog, text, start, indent, diags);
  return maskd_finish(prog, before, diags);
}

maskd_program_t *maskd_load_file(const char *path, loc_t from, diag_list_t *diags) {
  const char *reg = NULL;
  const char *text = diag_read_file(diags, path, from, &reg);
  return text ? maskd_parse(text, (loc_t){reg, 1, 1}, 0, diags) : NULL;
}

void maskd_free(maskd_program_t *p) {
  if (!p) return;
  for (size_t i = 0; i < p->enums.len; i++) VEC_FREE(&p->enums.data[i].values);
  for (size_t i = 0; i < p->procs.len; i++) {
    maskd_proc_t *pr = &p->procs.data[i];
    for (size_t b = 0; b < pr->branches.len; b++) VEC_FREE(&pr->branches.data[b].assigns);
    VEC_FREE(&pr->branches);
    VEC_FREE(&pr->params);
    VEC_FREE(&pr->locals);
  }
  for (size_t r = 0; r < p->runs.len; r++) {
    VEC_FREE(&p->runs.data[r].args);
    VEC_FREE(&p->runs.data[r].arg_locs);
  }
  VEC_FREE(&p->enums);
  VEC_FREE(&p->values);
  VEC_FREE(&p->globals);
  VEC_FREE(&p->procs);
  VEC_FREE(&p->insts);
  VEC_FREE(&p->runs);
  VEC_FREE(&p->slots);
  arena_free(&p->arena);
  free(p);
}

bool maskd_has_internal(const maskd_program_t *p) { return p->has_internal; }
bool maskd_has_faulty(const maskd_program_t *p) { return p->has_faulty; }
size_t maskd_nslots(const maskd_program_t *p) { return p->slots.len; }

