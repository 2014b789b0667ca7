#include "verifier/lts/robustify_symmetry.h"

#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"

/* Whether pi maps each preferred behaviour onto one (its word label by
 * label, its alphabet as a set), distinct ones onto distinct ones: into
 * beta[i] the behaviour behaviour i goes to. */
static bool behaviour_map(const search_t *s, const int *pi, int *beta) {
  const robustify_problem_t *p = s->p;
  int nl = s->g.nlabels;
  bool *used = xcalloc((size_t)p->npref + 1, sizeof *used);
  bool ok = true;
  for (int i = 0; i < p->npref && ok; i++) {
    const robustify_pref_t *w = &p->pref[i];
    beta[i] = -1;
    for (int j = 0; j < p->npref && beta[i] < 0; j++) {
      const robustify_pref_t *v = &p->pref[j];
      if (used[j] || v->len != w->len || v->nalpha != w->nalpha) continue;
      bool same = true;
      for (int k = 0; k < w->len && same; k++) {
        int l = w->word[k];
        same = (l >= 0 && l < nl ? pi[l] : l) == v->word[k];
      }
      for (int k = 0; k < w->nalpha && same; k++) {
        int l = w->alpha[k], m = l >= 0 && l < nl ? pi[l] : l;
        bool in = false;
        for (int q = 0; q < v->nalpha && !in; q++) in = v->alpha[q] == m;
        same = in;
      }
      if (same) beta[i] = j, used[j] = true;
    }
    ok = beta[i] >= 0;
  }
  free(used);
  return ok;
}

/* The label ids of G's alphabet (s->g.alpha) and what they go to when
 * pi is applied: a symmetry maps G's alphabet onto itself, maps every
 * preferred behaviour i (its word label by label, its extra alphabet as a
 * set) onto a preferred behaviour β(i), β a permutation, and is an
 * automorphism of G: a bijection σ of G's reachable states with
 * σ(init) = init, σ(error) = error, x marked iff σ(x) marked, and x -l-> y
 * iff σ(x) -π(l)-> σ(y). G is deterministic, so σ is forced: a search
 * from (init, init) in lockstep, which fails at the first mismatch. Then
 * σ maps the observer of O onto the observer of π(O) set by set (an
 * O-set Y to the π(O)-set σ(Y)), the fixpoint of (C, O) onto that of
 * (π(C), π(O)) and the closed loop's traces t onto π(t), whose projection
 * on β(i)'s alphabet is π of t's projection on i's (π maps i's alphabet
 * onto β(i)'s, and so the complements onto each other): the same
 * existence, behaviour i kept for (C, O) iff β(i) is for (π(C), π(O)), and
 * the idle actions mapped by π. pi holds nl label ids, then npref
 * behaviour ids, where β is written. */

bool robustify_symmetry_check(const search_t *s, int *pi) {
  const plant_t *g = &s->g;
  int nl = g->nlabels;
  bool *hit = xcalloc((size_t)nl + 1, sizeof *hit);
  for (int l = 0; l < nl; l++) {
    bool bad = pi[l] < 0 || pi[l] >= nl || hit[pi[l]] ||
               bitset_get(g->alpha, (size_t)l) != bitset_get(g->alpha, (size_t)pi[l]);
    if (bad) {
      free(hit);
      return false;
    }
    hit[pi[l]] = true;
  }
  free(hit);
  if (!behaviour_map(s, pi, pi + nl)) return false;
  int *sigma = xmalloc(((size_t)g->n + 1) * sizeof *sigma), *inv = xmalloc(((size_t)g->n + 1) * sizeof *inv);
  int *stack = xmalloc(((size_t)g->n + 1) * sizeof *stack), top = 0;
  memset(sigma, -1, (size_t)g->n * sizeof *sigma);
  memset(inv, -1, (size_t)g->n * sizeof *inv);
  bool ok = true;
  sigma[0] = inv[0] = 0; /* the initial state is 0 */
  stack[top++] = 0;
  while (ok && top) {
    int x = stack[--top], y = sigma[x];
    if ((x == g->error) != (y == g->error) ||
        bitset_get(g->marked, (size_t)x) != bitset_get(g->marked, (size_t)y) ||
        g->off[x + 1] - g->off[x] != g->off[y + 1] - g->off[y]) {
      ok = false;
      break;
    }
    for (int t = g->off[x]; ok && t < g->off[x + 1]; t++) {
      int l = pi[g->lab[t]], lo = g->off[y], hi = g->off[y + 1]; /* y's moves, sorted by label */
      while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (g->lab[mid] < l)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == g->off[y + 1] || g->lab[lo] != l) {
        ok = false;
        break;
      }
      int dx = g->dst[t], dy = g->dst[lo];
      if (sigma[dx] < 0 && inv[dy] < 0) {
        sigma[dx] = dy, inv[dy] = dx;
        stack[top++] = dx;
      } else if (sigma[dx] != dy || inv[dy] != dx)
        ok = false;
    }
  }
  free(sigma);
  free(inv);
  free(stack);
  return ok;
}

/* Labels are split into fields at '.', '[' and ']' (FSP's v[1].enter
 * and v.1.enter). */
static bool is_sep(char c) { return c == '.' || c == '[' || c == ']'; }

/* The next field of a label at or after p that is all digits: [*b, *e);
 * false when none is left. */
static bool next_number(const char *p, const char **b, const char **e) {
  while (*p) {
    const char *q = p;
    while (*q && !is_sep(*q)) q++;
    bool digits = q > p;
    for (const char *c = p; c < q; c++) digits = digits && *c >= '0' && *c <= '9';
    if (digits) {
      *b = p, *e = q;
      return true;
    }
    p = *q ? q + 1 : q;
  }
  return false;
}

/* name with every field equal to a written b and every one equal to b
 * written a, the separators kept, into out (cap bytes); false when it
 * does not fit. */
static bool swap_numbers(const char *name, const char *a, const char *b, char *out, size_t cap) {
  size_t k = 0, na = strlen(a), nb = strlen(b);
  const char *p = name;
  for (;;) {
    const char *q = p;
    while (*q && !is_sep(*q)) q++;
    size_t n = (size_t)(q - p);
    const char *w = p;
    if (n == na && memcmp(p, a, n) == 0)
      w = b, n = nb;
    else if (n == nb && memcmp(p, b, n) == 0)
      w = a, n = na;
    if (k + n + 2 > cap) return false;
    memcpy(out + k, w, n);
    k += n;
    if (!*q) break;
    out[k++] = *q;
    p = q + 1;
  }
  out[k] = 0;
  return true;
}

void robustify_symmetry_free(search_t *s) {
  free(s->sym);
  s->sym = NULL;
  s->nsym = 0;
}

/* Candidates: FSP's indexed labels (v.1.enter, v.2.enter, ...) name the
 * copies of a replicated component by numbers. For every two numbers that
 * occur as a '.'-separated field of G's labels (at most 16 of them), the
 * transposition swapping them in every label (labels outside G's alphabet
 * stay); kept when it is a symmetry (robustify_symmetry_check). The kept
 * ones generate the group the search looks up images in. */
void robustify_symmetry_find(search_t *s) {
  robustify_symmetry_free(s);
  const plant_t *g = &s->g;
  int nl = g->nlabels;
  const lts_labels_t *labels = s->p->sys->labels;
  enum { MAX_NUMBERS = 16, NAME_CAP = 256 };
  char nums[MAX_NUMBERS][24];
  int nn = 0;
  for (int l = 1; l < nl && nn < MAX_NUMBERS; l++) {
    if (!bitset_get(g->alpha, (size_t)l)) continue;
    const char *p = lts_label_name(labels, l), *b, *e;
    while (nn < MAX_NUMBERS && next_number(p, &b, &e)) {
      size_t n = (size_t)(e - b);
      if (n < sizeof nums[0]) {
        int i = 0;
        while (i < nn && !(strlen(nums[i]) == n && memcmp(nums[i], b, n) == 0)) i++;
        if (i == nn) memcpy(nums[nn], b, n), nums[nn++][n] = 0;
      }
      if (!*e) break;
      p = e + 1;
    }
  }
  int *pi = xmalloc(((size_t)nl + (size_t)s->p->npref + 1) * sizeof *pi);
  char buf[NAME_CAP];
  VEC(int) found = {0};
  for (int i = 0; i < nn; i++)
    for (int j = i + 1; j < nn; j++) {
      bool ok = true, moves = false;
      for (int l = 0; l < nl; l++) {
        pi[l] = l;
        if (l == 0 || !bitset_get(g->alpha, (size_t)l)) continue;
        if (!swap_numbers(lts_label_name(labels, l), nums[i], nums[j], buf, sizeof buf)) {
          ok = false;
          break;
        }
        int m = lts_label_find(labels, buf);
        if (m < 0 || m >= nl) {
          ok = false;
          break;
        }
        pi[l] = m;
        moves = moves || m != l;
      }
      if (!ok || !moves || !robustify_symmetry_check(s, pi)) continue;
      for (int l = 0; l < nl + s->p->npref; l++) VEC_PUSH(&found, pi[l]);
      s->nsym++;
    }
  free(pi);
  s->sym = found.data;
}
