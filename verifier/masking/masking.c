#include "verifier/masking/masking.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/bitset.h"
#include "ism/stop.h"
#include "ism/vec.h"

void masking_lts_free(masking_lts_t *lts) {
  free(lts->off);
  free(lts->label);
  free(lts->dst);
  free(lts->kind);
  free(lts->vals);
  memset(lts, 0, sizeof *lts);
}

static int cmp_edge(const void *x, const void *y) {
  const masking_edge_t *a = x, *b = y;
  if (a->label != b->label) return a->label < b->label ? -1 : 1;
  if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
  return (int)a->kind - (int)b->kind;
}

size_t masking_edges_sort_unique(masking_edge_t *edges, size_t first, size_t len) {
  if (len > first)
    qsort(edges + first, len - first, sizeof *edges, cmp_edge); /* edges may be NULL when empty */
  size_t w = first;
  for (size_t i = first; i < len; i++)
    if (w == first || cmp_edge(&edges[w - 1], &edges[i]) != 0) edges[w++] = edges[i];
  return w;
}

void masking_lts_from_edges(masking_lts_t *out, size_t nstates, size_t *off, const masking_edge_t *edges,
                            size_t nedges) {
  memset(out, 0, sizeof *out);
  out->nstates = nstates;
  out->nedges = nedges;
  out->off = off;
  out->label = xmalloc((nedges + 1) * sizeof(int));
  out->dst = xmalloc((nedges + 1) * sizeof(int));
  out->kind = xmalloc(nedges + 1);
  for (size_t i = 0; i < nedges; i++) {
    out->label[i] = edges[i].label;
    out->dst[i] = edges[i].dst;
    out->kind[i] = edges[i].kind;
  }
}

/* ---- weak transitions ---- */

/* Tarjan's SCCs of the τ graph, iteratively. comp[s] is s's component;
 * components are numbered in completion order, so every τ successor of a
 * component has a smaller number (sinks first). Returns the count. */
static size_t tau_sccs(const masking_lts_t *g, int *comp) {
  size_t n = g->nstates, ncomp = 0, counter = 0;
  size_t *index = xmalloc((n + 1) * sizeof *index), *low = xmalloc((n + 1) * sizeof *low);
  size_t *edge_pos = xmalloc((n + 1) * sizeof *edge_pos);
  int *stack = xmalloc((n + 1) * sizeof *stack), *call = xmalloc((n + 1) * sizeof *call);
  bool *on_stack = xcalloc(n + 1, sizeof *on_stack);
  size_t sp = 0, cp = 0;
  for (size_t s = 0; s < n; s++) index[s] = SIZE_MAX;
  for (size_t root = 0; root < n; root++) {
    if (index[root] != SIZE_MAX) continue;
    call[cp++] = (int)root;
    index[root] = low[root] = counter++;
    edge_pos[root] = g->off[root];
    stack[sp++] = (int)root;
    on_stack[root] = true;
    while (cp) {
      int v = call[cp - 1];
      if (edge_pos[v] < g->off[v + 1]) {
        size_t e = edge_pos[v]++;
        if (g->kind[e] != MASKING_TAU) continue;
        int w = g->dst[e];
        if (index[w] == SIZE_MAX) {
          index[w] = low[w] = counter++;
          edge_pos[w] = g->off[w];
          stack[sp++] = w;
          on_stack[w] = true;
          call[cp++] = w;
        } else if (on_stack[w] && index[w] < low[v]) {
          low[v] = index[w];
        }
        continue;
      }
      cp--;
      if (cp && low[v] < low[call[cp - 1]]) low[call[cp - 1]] = low[v];
      if (low[v] == index[v]) {
        int w;
        do {
          w = stack[--sp];
          on_stack[w] = false;
          comp[w] = (int)ncomp;
        } while (w != v);
        ncomp++;
      }
    }
  }
  free(index), free(low), free(edge_pos), free(stack), free(call), free(on_stack);
  return ncomp;
}

static int cmp_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

/* Each component's τ-closure (the states τ*-reachable from it) as a sorted
 * list, built sinks first: a component's list is its own states and the
 * lists of its τ successors, merged with a mark per state. Memory is the
 * total size of the lists, not components × states. */
typedef struct {
  size_t *off; /* list of component c: ids[off[c] .. off[c + 1]) */
  int *ids;
} closures_t;

/* Counts `amount` units of work; every 2^16 units, whether a stop was
 * requested (ism/stop.h): a poll per state would read the clock too often,
 * one per component or per state may come too late (a closure, or one
 * state's saturated moves, can hold millions of entries). */
static bool stop_due(size_t *work, size_t amount) {
  *work += amount;
  if (*work < ((size_t)1 << 16)) return false;
  *work = 0;
  return stop_requested();
}

/* Returns false, with nothing to free, at a stop request. */
static bool tau_closures(const masking_lts_t *in, const int *comp, size_t ncomp, closures_t *out) {
  size_t n = in->nstates;
  size_t *cstart = xcalloc(ncomp + 2, sizeof *cstart);
  for (size_t s = 0; s < n; s++) cstart[comp[s] + 1]++;
  for (size_t c = 0; c < ncomp; c++) cstart[c + 1] += cstart[c];
  int *by_comp = xmalloc((n + 1) * sizeof *by_comp);
  size_t *fill = xmalloc((ncomp + 1) * sizeof *fill);
  memcpy(fill, cstart, (ncomp + 1) * sizeof *fill);
  for (size_t s = 0; s < n; s++) by_comp[fill[comp[s]]++] = (int)s;
  size_t *mark = xcalloc(n + 1, sizeof *mark); /* c + 1: already in c's list */
  VEC(int) ids = {0};
  out->off = xmalloc((ncomp + 1) * sizeof *out->off);
  size_t work = 0;
  bool stopped = false;
  for (size_t c = 0; c < ncomp && !stopped; c++) {
    out->off[c] = ids.len;
    for (size_t i = cstart[c]; i < cstart[c + 1]; i++) {
      mark[by_comp[i]] = c + 1;
      VEC_PUSH(&ids, by_comp[i]);
    }
    for (size_t i = cstart[c]; i < cstart[c + 1]; i++) {
      int s = by_comp[i];
      for (size_t e = in->off[s]; e < in->off[s + 1]; e++) {
        if (in->kind[e] != MASKING_TAU || (size_t)comp[in->dst[e]] == c) continue;
        size_t d = (size_t)comp[in->dst[e]]; /* d < c: its list is final */
        for (size_t k = out->off[d]; k < out->off[d + 1]; k++) {
          int r = ids.data[k];
          if (mark[r] == c + 1) continue;
          mark[r] = c + 1;
          VEC_PUSH(&ids, r);
        }
        stopped = stopped || stop_due(&work, out->off[d + 1] - out->off[d] + 1);
      }
    }
    qsort(ids.data + out->off[c], ids.len - out->off[c], sizeof *ids.data, cmp_int);
  }
  out->off[ncomp] = ids.len;
  out->ids = ids.data;
  free(cstart), free(by_comp), free(fill), free(mark);
  if (stopped) {
    free(out->off), free(out->ids);
    *out = (closures_t){0};
  }
  return !stopped;
}

bool masking_saturate(const masking_lts_t *in, int tau_label, masking_lts_t *out) {
  size_t n = in->nstates;
  memset(out, 0, sizeof *out);
  int *comp = xmalloc((n + 1) * sizeof *comp);
  size_t ncomp = tau_sccs(in, comp);
  closures_t clo;
  if (!tau_closures(in, comp, ncomp, &clo)) {
    free(comp);
    return false;
  }
  /* p =a⇒ r' for q ∈ τ*(p), q -a-> r, r' ∈ τ*(r); p =τ⇒ q for q ∈ τ*(p) */
  VEC(masking_edge_t) edges = {0};
  size_t *off = xmalloc((n + 1) * sizeof *off);
  size_t work = 0;
  bool stopped = false;
  for (size_t p = 0; p < n && !stopped; p++) {
    off[p] = edges.len;
    size_t cp = (size_t)comp[p];
    for (size_t i = clo.off[cp]; i < clo.off[cp + 1]; i++) {
      int q = clo.ids[i];
      VEC_PUSH(&edges, ((masking_edge_t){tau_label, q, MASKING_TAU}));
      for (size_t e = in->off[q]; e < in->off[q + 1]; e++) {
        if (in->kind[e] != MASKING_NORMAL) continue;
        size_t cr = (size_t)comp[in->dst[e]];
        for (size_t k = clo.off[cr]; k < clo.off[cr + 1]; k++)
          VEC_PUSH(&edges, ((masking_edge_t){in->label[e], clo.ids[k], MASKING_NORMAL}));
        stopped = stopped || stop_due(&work, clo.off[cr + 1] - clo.off[cr] + 1);
      }
      if (stopped) break;
    }
    if (stopped) break;
    for (size_t e = in->off[p]; e < in->off[p + 1]; e++)
      if (in->kind[e] != MASKING_NORMAL)
        VEC_PUSH(&edges, ((masking_edge_t){in->label[e], in->dst[e], in->kind[e]}));
    edges.len = masking_edges_sort_unique(edges.data, off[p], edges.len);
    stopped = stop_due(&work, edges.len - off[p] + 1);
  }
  if (stopped) {
    VEC_FREE(&edges);
    free(off), free(comp), free(clo.off), free(clo.ids);
    return false;
  }
  off[n] = edges.len;
  masking_lts_from_edges(out, n, off, edges.data, edges.len);
  out->nslots = in->nslots;
  if (in->vals) {
    out->vals = xmalloc((n * in->nslots + 1) * sizeof *out->vals);
    memcpy(out->vals, in->vals, n * in->nslots * sizeof *out->vals);
  }
  VEC_FREE(&edges);
  free(comp), free(clo.off), free(clo.ids);
  return true;
}

/* ---- the game graph ---- */

typedef struct {
  const masking_lts_t *spec, *imp;
  const masking_options_t *opts;
  VEC(masking_node_t) nodes;
  uint32_t *table; /* open addressing over node ids; UINT32_MAX empty */
  size_t table_cap;
  int err;
  VEC(int) succ;
  bool too_big;
} builder_t;

static uint64_t node_hash(const masking_node_t *x) {
  uint64_t h = (uint64_t)(uint32_t)x->spec * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)(uint32_t)x->imp * 0xC2B2AE3D27D4EB4Full;
  h ^= (uint64_t)(uint32_t)x->label * 0x165667B19E3779F9ull;
  h ^= ((uint64_t)x->player << 8 | (uint64_t)x->side << 4 | (uint64_t)x->tau << 1 | x->fault) * 0x27D4EB2F165667C5ull;
  return h ^ (h >> 29);
}

static bool node_eq(const masking_node_t *a, const masking_node_t *b) {
  return a->spec == b->spec && a->imp == b->imp && a->label == b->label && a->player == b->player &&
         a->side == b->side && a->fault == b->fault && a->tau == b->tau;
}

static void node_rehash(builder_t *b, size_t cap) {
  free(b->table);
  b->table = xmalloc(cap * sizeof *b->table);
  memset(b->table, 0xff, cap * sizeof *b->table);
  b->table_cap = cap;
  for (size_t i = 0; i < b->nodes.len; i++) {
    size_t h = node_hash(&b->nodes.data[i]) & (cap - 1);
    while (b->table[h] != UINT32_MAX) h = (h + 1) & (cap - 1);
    b->table[h] = (uint32_t)i;
  }
}

static int node_id(builder_t *b, masking_node_t x) {
  size_t h = node_hash(&x) & (b->table_cap - 1);
  for (; b->table[h] != UINT32_MAX; h = (h + 1) & (b->table_cap - 1))
    if (node_eq(&b->nodes.data[b->table[h]], &x)) return (int)b->table[h];
  int id = (int)b->nodes.len;
  VEC_PUSH(&b->nodes, x);
  b->table[h] = (uint32_t)id;
  if (2 * b->nodes.len >= b->table_cap) node_rehash(b, 2 * b->table_cap);
  if (b->nodes.len > b->opts->max_nodes) b->too_big = true;
  return id;
}

static masking_node_t r_node(int spec, int imp) {
  return (masking_node_t){.spec = spec, .imp = imp, .label = -1, .player = MASKING_PLAYER_R};
}

static int err_node(builder_t *b) {
  if (b->err < 0) b->err = node_id(b, (masking_node_t){.spec = -1, .imp = -1, .label = -1, .player = MASKING_PLAYER_ERR});
  return b->err;
}

/* Does a move of kind k labelled a answer (or get answered by) kind k2 labelled a2? Any τ matches any τ. */
static bool matches(int a, uint8_t k, int a2, uint8_t k2) {
  if (k == MASKING_TAU || k2 == MASKING_TAU) return k == k2;
  return a == a2;
}

static void expand_r(builder_t *b, masking_node_t x) {
  const masking_lts_t *imp = b->imp, *spec = b->spec;
  for (size_t e = imp->off[x.imp]; e < imp->off[x.imp + 1]; e++) {
    masking_node_t v = {.spec = x.spec, .imp = imp->dst[e], .label = imp->label[e], .player = MASKING_PLAYER_V,
                        .side = MASKING_SIDE_IMP, .fault = imp->kind[e] == MASKING_FAULT};
    v.tau = imp->kind[e] == MASKING_TAU;
    VEC_PUSH(&b->succ, node_id(b, v));
  }
  if (b->opts->nominal_match)
    for (size_t e = spec->off[x.spec]; e < spec->off[x.spec + 1]; e++) {
      masking_node_t v = {.spec = spec->dst[e], .imp = x.imp, .label = spec->label[e], .player = MASKING_PLAYER_V,
                          .side = MASKING_SIDE_SPEC, .tau = spec->kind[e] == MASKING_TAU};
      VEC_PUSH(&b->succ, node_id(b, v));
    }
  if (b->opts->deadlock_error && imp->off[x.imp] == imp->off[x.imp + 1]) {
    masking_node_t v = {.spec = x.spec, .imp = x.imp, .label = -1, .player = MASKING_PLAYER_V,
                        .side = MASKING_SIDE_DEADLOCK};
    VEC_PUSH(&b->succ, node_id(b, v));
  }
}

static void expand_v(builder_t *b, masking_node_t x) {
  size_t first = b->succ.len;
  uint8_t kind = x.tau ? MASKING_TAU : MASKING_NORMAL;
  if (x.side == MASKING_SIDE_DEADLOCK) {
    /* no answer */
  } else if (x.fault) {
    VEC_PUSH(&b->succ, node_id(b, r_node(x.spec, x.imp))); /* the masking move M */
  } else if (x.side == MASKING_SIDE_IMP) {
    const masking_lts_t *spec = b->spec;
    for (size_t e = spec->off[x.spec]; e < spec->off[x.spec + 1]; e++)
      if (matches(x.label, kind, spec->label[e], spec->kind[e] == MASKING_TAU ? MASKING_TAU : MASKING_NORMAL))
        VEC_PUSH(&b->succ, node_id(b, r_node(spec->dst[e], x.imp)));
  } else {
    const masking_lts_t *imp = b->imp;
    for (size_t e = imp->off[x.imp]; e < imp->off[x.imp + 1]; e++)
      if ((imp->kind[e] != MASKING_FAULT || b->opts->fault_answers) &&
          matches(x.label, kind, imp->label[e], imp->kind[e]))
        VEC_PUSH(&b->succ, node_id(b, r_node(x.spec, imp->dst[e])));
  }
  if (b->succ.len == first) VEC_PUSH(&b->succ, err_node(b));
}

static void dedup_tail(builder_t *b, size_t first) {
  if (b->succ.len - first < 2) return; /* nothing to sort (and succ.data may still be NULL) */
  qsort(b->succ.data + first, b->succ.len - first, sizeof(int), cmp_int);
  size_t w = first;
  for (size_t i = first; i < b->succ.len; i++)
    if (w == first || b->succ.data[w - 1] != b->succ.data[i]) b->succ.data[w++] = b->succ.data[i];
  b->succ.len = w;
}

/* Backward attractor, layer by layer: layer k holds the nodes of value k.
 * Within a layer an R node is won by one won successor and a V node by all;
 * a fault V node is won one layer after its successor. O(V+E) overall. */
static void solve(masking_game_t *g) {
  size_t n = g->nnodes;
  size_t *pred_off = xcalloc(n + 2, sizeof *pred_off);
  int *pred = xmalloc((g->nedges + 1) * sizeof *pred);
  for (size_t e = 0; e < g->nedges; e++) pred_off[g->succ[e] + 2]++;
  for (size_t i = 0; i < n; i++) pred_off[i + 2] += pred_off[i + 1];
  for (size_t x = 0; x < n; x++)
    for (size_t e = g->succ_off[x]; e < g->succ_off[x + 1]; e++) pred[pred_off[g->succ[e] + 1]++] = (int)x;
  uint32_t *missing = xmalloc((n + 1) * sizeof *missing);
  for (size_t x = 0; x < n; x++) missing[x] = (uint32_t)(g->succ_off[x + 1] - g->succ_off[x]);
  int *queue = xmalloc((n + 1) * sizeof *queue), *next = xmalloc((n + 1) * sizeof *next);
  size_t head = 0, tail = 0, nnext = 0;
  uint32_t won = 0, layer = 1;
  if (g->err >= 0) {
    g->value[g->err] = 1;
    g->order[g->err] = won++;
    queue[tail++] = g->err;
  }
  while (head < tail || nnext) {
    if (head == tail) { /* next layer: fault nodes whose masked successor was won in this one */
      layer++;
      head = tail = 0;
      for (size_t i = 0; i < nnext; i++) queue[tail++] = next[i];
      nnext = 0;
      continue;
    }
    int x = queue[head++];
    for (size_t e = pred_off[x]; e < pred_off[x + 1]; e++) {
      int y = pred[e];
      const masking_node_t *ny = &g->nodes[y];
      if (g->value[y]) continue;
      if (ny->player == MASKING_PLAYER_V && ny->fault) {
        g->value[y] = layer + 1;
        g->order[y] = won++;
        next[nnext++] = y;
      } else if (ny->player == MASKING_PLAYER_R || --missing[y] == 0) {
        g->value[y] = layer;
        g->order[y] = won++;
        queue[tail++] = y;
      }
    }
  }
  free(pred_off), free(pred), free(missing), free(queue), free(next);
}

masking_status_t masking_solve(const masking_lts_t *spec, const masking_lts_t *imp, const masking_options_t *opts,
                               masking_game_t *game) {
  memset(game, 0, sizeof *game);
  builder_t b = {.spec = spec, .imp = imp, .opts = opts, .err = -1};
  node_rehash(&b, 1024);
  VEC(size_t) off = {0};
  node_id(&b, r_node(0, 0));
  err_node(&b); /* node 1, present even when unreachable (as MaskD counts it) */
  bool stopped = false;
  for (size_t x = 0; x < b.nodes.len && !b.too_big; x++) {
    if ((x & 4095) == 4095 && stop_requested()) {
      stopped = true;
      break;
    }
    VEC_PUSH(&off, b.succ.len);
    masking_node_t nx = b.nodes.data[x];
    size_t first = b.succ.len;
    if (nx.player == MASKING_PLAYER_R)
      expand_r(&b, nx);
    else if (nx.player == MASKING_PLAYER_V)
      expand_v(&b, nx);
    dedup_tail(&b, first);
  }
  free(b.table);
  if (b.too_big || stopped) {
    if (stopped) game->nnodes = b.nodes.len;
    VEC_FREE(&b.nodes);
    VEC_FREE(&b.succ);
    VEC_FREE(&off);
    return stopped ? MASKING_STOPPED : MASKING_TOO_BIG;
  }
  VEC_PUSH(&off, b.succ.len);
  game->nnodes = b.nodes.len;
  game->nedges = b.succ.len;
  game->nodes = b.nodes.data;
  game->succ = b.succ.data;
  game->succ_off = off.data;
  game->err = b.err;
  game->value = xcalloc(game->nnodes + 1, sizeof *game->value);
  game->order = xcalloc(game->nnodes + 1, sizeof *game->order);
  solve(game);
  return MASKING_OK;
}

void masking_game_free(masking_game_t *game) {
  free(game->nodes);
  free(game->succ_off);
  free(game->succ);
  free(game->value);
  free(game->order);
  memset(game, 0, sizeof *game);
}

uint32_t masking_value(const masking_game_t *game) { return game->nnodes ? game->value[0] : 0; }

double masking_distance(const masking_game_t *game) {
  uint32_t w = masking_value(game);
  return w ? 1.0 / w : 0.0;
}

size_t masking_trace(const masking_game_t *g, int **path) {
  *path = NULL;
  if (!masking_value(g)) return 0;
  VEC(int) p = {0};
  int x = 0;
  VEC_PUSH(&p, x);
  while (x != g->err) {
    bool refuter = g->nodes[x].player == MASKING_PLAYER_R;
    int best = -1;
    for (size_t e = g->succ_off[x]; e < g->succ_off[x + 1]; e++) {
      int y = g->succ[e];
      if (!g->value[y]) continue;
      if (best < 0) {
        best = y;
        continue;
      }
      uint32_t vy = g->value[y], vb = g->value[best];
      bool better = refuter ? (vy < vb || (vy == vb && g->order[y] < g->order[best]))
                            : (vy > vb || (vy == vb && g->order[y] > g->order[best]));
      if (better) best = y;
    }
    if (best < 0 || g->order[best] >= g->order[x]) break; /* cannot happen on a solved game */
    x = best;
    VEC_PUSH(&p, x);
  }
  *path = p.data;
  return p.len;
}

bool masking_check(const masking_game_t *g, strbuf_t *why) {
  for (size_t x = 0; x < g->nnodes; x++) {
    const masking_node_t *nx = &g->nodes[x];
    if ((int)x == g->err) {
      if (g->value[x] != 1) return strbuf_printf(why, "error node has value %u", g->value[x]), false;
      continue;
    }
    bool any = false, all = true;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t e = g->succ_off[x]; e < g->succ_off[x + 1]; e++) {
      uint32_t v = g->value[g->succ[e]];
      any |= v != 0, all &= v != 0;
      if (v && v < lo) lo = v;
      if (v > hi) hi = v;
    }
    bool is_r = nx->player == MASKING_PLAYER_R;
    bool wins = is_r ? any : (all && g->succ_off[x + 1] > g->succ_off[x]);
    uint32_t want = !wins ? 0 : is_r ? lo : hi + nx->fault;
    if (g->value[x] != want)
      return strbuf_printf(why, "node %zu has value %u, its successors give %u", x, g->value[x], want), false;
  }
  return true;
}
