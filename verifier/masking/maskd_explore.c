/* The explicit state space of a checked MaskD program (maskd_explore)
 * and MaskD's rendering of a state (maskd_state_string). */
#include "verifier/masking/maskd.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ism/stop.h"
#include "verifier/masking/maskd_parse.h"

/* ---- explicit state space ---- */

typedef struct {
  const int32_t *state;
  const int *slot_of_sym;
} lookup_ctx_t;

static value_t lookup(void *ctx, int id, bool primed) {
  (void)primed;
  const lookup_ctx_t *c = ctx;
  value_t v = {0};
  v.i = c->state[c->slot_of_sym[id]];
  return v;
}

typedef struct {
  const maskd_program_t *prog;
  size_t nslots;
  VEC(int32_t) vals;  /* nslots per state */
  uint32_t *table;    /* open addressing over state ids; UINT32_MAX empty */
  size_t table_cap;   /* power of two, > 2 * number of states */
  diag_list_t *diags;
} space_t;

static uint64_t hash_state(const int32_t *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint32_t)s[i]) * 1099511628211ull;
  return h ^ (h >> 31);
}

static size_t nstates_of(const space_t *sp) { return sp->nslots ? sp->vals.len / sp->nslots : 1; }

static void rehash(space_t *sp, size_t cap) {
  free(sp->table);
  sp->table = xmalloc(cap * sizeof *sp->table);
  memset(sp->table, 0xff, cap * sizeof *sp->table);
  sp->table_cap = cap;
  size_t n = nstates_of(sp);
  for (size_t id = 0; id < n; id++) {
    size_t h = hash_state(sp->vals.data + id * sp->nslots, sp->nslots) & (cap - 1);
    while (sp->table[h] != UINT32_MAX) h = (h + 1) & (cap - 1);
    sp->table[h] = (uint32_t)id;
  }
}

/* The id of valuation s, adding it when new. */
static int intern_state(space_t *sp, const int32_t *s, bool *added) {
  size_t n = sp->nslots;
  size_t h = hash_state(s, n) & (sp->table_cap - 1);
  for (; sp->table[h] != UINT32_MAX; h = (h + 1) & (sp->table_cap - 1))
    if (memcmp(sp->vals.data + (size_t)sp->table[h] * n, s, n * sizeof *s) == 0) {
      *added = false;
      return (int)sp->table[h];
    }
  int id = (int)nstates_of(sp);
  if (n == 0 && id == 1) id = 0; /* no variables: one state */
  *added = true;
  VEC_RESERVE(&sp->vals, sp->vals.len + n);
  memcpy(sp->vals.data + sp->vals.len, s, n * sizeof *s);
  sp->vals.len += n;
  sp->table[h] = (uint32_t)id;
  if (2 * nstates_of(sp) >= sp->table_cap) rehash(sp, 2 * sp->table_cap);
  return id;
}

/* Evaluates e; reports `what` at e's location on an evaluation error. */
static bool eval_checked(const expr_t *e, lookup_ctx_t *ctx, long long *out, const char *what, diag_list_t *diags) {
  bool err = false;
  value_t v = expr_eval(e, lookup, ctx, &err);
  if (!err && e->type.kind == TYPE_BOOL) v.i = v.i != 0;
  if (err || v.i < INT32_MIN || v.i > INT32_MAX) {
    diag_error(diags, e->loc, "%s: %s", what, err ? "division by zero or integer overflow" : "value outside 32 bits");
    return false;
  }
  *out = v.i;
  return true;
}

/* Where each slot got its initial value (line 0: not set yet). MaskD applies every process's
 * `Initial:` in order, so a later condition on a shared global overrides an earlier one; that is
 * kept, but a different value is warned about: two processes disagreeing on a global's initial
 * value is almost always a modelling slip. */
typedef struct {
  loc_t *at;
  diag_list_t *diags;
} initial_t;

static void set_initial(initial_t *in, int32_t *st, int slot, int32_t v, const expr_t *e, const char *name) {
  if (in->at[slot].line != 0 && st[slot] != v)
    diag_warning(in->diags, e->loc,
                 "'%s' is initially %ld here but %ld at line %d:%d; the later condition wins (as in MaskD)",
                 name, (long)v, (long)st[slot], in->at[slot].line, in->at[slot].col);
  st[slot] = v;
  in->at[slot] = e->loc;
}

static void apply_initial(initial_t *in, const expr_t *e, int32_t *st, const int *slot_of_sym, bool *ok) {
  if (e->kind == EXPR_AND) {
    apply_initial(in, e->u.op.a, st, slot_of_sym, ok);
    apply_initial(in, e->u.op.b, st, slot_of_sym, ok);
    return;
  }
  lookup_ctx_t ctx = {st, slot_of_sym};
  long long v;
  if (e->kind == EXPR_VAR) {
    set_initial(in, st, slot_of_sym[e->u.var.id], 1, e, e->u.var.name);
  } else if (e->kind == EXPR_NOT) {
    set_initial(in, st, slot_of_sym[e->u.op.a->u.var.id], 0, e, e->u.op.a->u.var.name);
  } else if (e->kind == EXPR_EQ) {
    const expr_t *var = e->u.op.a->kind == EXPR_VAR ? e->u.op.a : e->u.op.b;
    const expr_t *val = var == e->u.op.a ? e->u.op.b : e->u.op.a;
    if (eval_checked(val, &ctx, &v, "in the initial condition", in->diags))
      set_initial(in, st, slot_of_sym[var->u.var.id], (int32_t)v, e, var->u.var.name);
    else
      *ok = false;
  }
}

/* Successors of `cur` appended to *edges (unsorted); false on an error. */
static bool successors(space_t *sp, const int32_t *cur, int32_t *nxt, const int *label_ids, void *edges_vec) {
  VEC(masking_edge_t) *edges = edges_vec;
  const maskd_program_t *prog = sp->prog;
  const int *lid = label_ids;
  for (size_t r = 0; r < prog->runs.len; r++) {
    const maskd_run_t *run = &prog->runs.data[r];
    const maskd_proc_t *pr = &prog->procs.data[prog->insts.data[run->inst_id].proc];
    lookup_ctx_t ctx = {cur, run->slot_of_sym};
    for (size_t b = 0; b < pr->branches.len; b++, lid++) {
      const maskd_branch_t *br = &pr->branches.data[b];
      long long g, v;
      if (!eval_checked(br->guard, &ctx, &g, "in a guard", sp->diags)) return false;
      if (!g) continue;
      memcpy(nxt, cur, sp->nslots * sizeof *cur);
      for (size_t i = 0; i < br->assigns.len; i++) {
        const maskd_assign_t *a = &br->assigns.data[i];
        if (!eval_checked(a->rhs, &ctx, &v, "in an assignment", sp->diags)) return false;
        nxt[run->slot_of_sym[a->sym]] = (int32_t)v;
      }
      bool added;
      int dst = intern_state(sp, nxt, &added);
      uint8_t kind = br->faulty ? MASKING_FAULT : br->internal ? MASKING_TAU : MASKING_NORMAL;
      VEC_PUSH(edges, ((masking_edge_t){*lid, dst, kind}));
    }
  }
  return true;
}

maskd_status_t maskd_explore(const maskd_program_t *p, intern_t *labels, size_t max_states, masking_lts_t *out,
                             diag_list_t *diags) {
  memset(out, 0, sizeof *out);
  space_t sp = {.prog = p, .nslots = p->slots.len, .diags = diags};
  VEC_RESERVE(&sp.vals, 1); /* never NULL, even without variables (memcmp/memcpy of 0 slots) */
  size_t n = sp.nslots;
  VEC(int) label_ids = {0};
  for (size_t r = 0; r < p->runs.len; r++) {
    const maskd_proc_t *pr = &p->procs.data[p->insts.data[p->runs.data[r].inst_id].proc];
    for (size_t b = 0; b < pr->branches.len; b++) VEC_PUSH(&label_ids, intern_add(labels, p->runs.data[r].labels[b]));
  }
  int32_t *cur = xcalloc(n + 1, sizeof *cur), *nxt = xcalloc(n + 1, sizeof *nxt);
  bool ok = true;
  initial_t in = {xcalloc(n + 1, sizeof *in.at), diags};
  for (size_t r = 0; r < p->runs.len; r++) {
    const maskd_run_t *run = &p->runs.data[r];
    const maskd_proc_t *pr = &p->procs.data[p->insts.data[run->inst_id].proc];
    apply_initial(&in, pr->initial, cur, run->slot_of_sym, &ok);
  }
  free(in.at);
  rehash(&sp, 64);
  bool added;
  intern_state(&sp, cur, &added);
  VEC(masking_edge_t) edges = {0};
  VEC(size_t) off = {0};
  maskd_status_t status = ok ? MASKD_OK : MASKD_EVAL_ERROR;
  for (size_t s = 0; status == MASKD_OK && s < nstates_of(&sp); s++) {
    if ((s & 1023) == 1023 && stop_requested()) {
      status = MASKD_STOPPED;
      break;
    }
    VEC_PUSH(&off, edges.len);
    memcpy(cur, sp.vals.data + s * n, n * sizeof *cur);
    size_t first = edges.len;
    if (!successors(&sp, cur, nxt, label_ids.data, &edges)) {
      status = MASKD_EVAL_ERROR;
      break;
    }
    edges.len = masking_edges_sort_unique(edges.data, first, edges.len);
    if (nstates_of(&sp) > max_states) {
      diag_error(diags, p->runs.data[0].loc,
                 "state space exceeds %zu states (the variables must have finitely many reachable values)",
                 max_states);
      status = MASKD_TOO_BIG;
    }
  }
  if (status == MASKD_OK) {
    VEC_PUSH(&off, edges.len);
    masking_lts_from_edges(out, nstates_of(&sp), off.data, edges.data, edges.len);
    out->nslots = n;
    out->vals = sp.vals.data;
    sp.vals.data = NULL;
  } else {
    VEC_FREE(&off);
    if (status == MASKD_STOPPED) out->nstates = nstates_of(&sp);
  }
  VEC_FREE(&edges);
  VEC_FREE(&sp.vals);
  VEC_FREE(&label_ids);
  free(sp.table);
  free(cur);
  free(nxt);
  return status;
}

void maskd_state_string(const maskd_program_t *p, const masking_lts_t *lts, size_t s, strbuf_t *out) {
  const int32_t *v = lts->vals + s * lts->nslots;
  strbuf_putc(out, '<');
  bool first = true;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < p->slots.len; i++) {
      const maskd_slot_t *sl = &p->slots.data[i];
      if ((sl->kind == TYPE_BOOL) != (pass == 0) || (sl->kind == TYPE_BOOL && !v[i])) continue;
      if (!first) strbuf_puts(out, ", ");
      first = false;
      strbuf_puts(out, sl->name);
      if (sl->kind == TYPE_ENUM)
        strbuf_printf(out, "=%s", v[i] > 0 && (size_t)v[i] < p->values.len ? p->values.data[v[i]] : "\"\"");
      else if (sl->kind == TYPE_INT)
        strbuf_printf(out, "=%d", (int)v[i]);
    }
  strbuf_putc(out, '>');
}

