/* Unit tests of the envelope analysis:
 *  - every benchmark of the CAV'23 paper (examples/envelope/): |Δ| and the
 *    largest d of Table 1, and Δ equal, as a set of sets, to the reference
 *    tool's printed sets (tests/data/envelope/, from its answer keys) after
 *    mapping state numbers;
 *  - differential: the default and the paper algorithm agree on every
 *    benchmark, and agree with brute force on the running example and on
 *    a few hundred random tiny problems (with and without P_env);
 *  - comparison verdicts and their witnesses;
 *  - the ring family of bench/envelope.sh: the default algorithm equals the
 *    previous one (ENVELOPE_CLAUSES) for n = 4..10 (and, without its pair
 *    table, for n = 4..9; so does half of the random problems below); for n = 11 |Δ| = 2^10,
 *    every d robust and (every 16th) maximal by composing E_d with C and
 *    P_err (lts_compose, not the meta-system); and the two agree on a few
 *    hundred random problems larger than brute force takes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/vec.h"
#include "verifier/lts/envelope.h"
#include "verifier/lts/fsp.h"
#include "tests/unit/check.h"


/* ------------------------------------------------------------ loading */

static lts_t *load(lts_labels_t *L, const char *dir, const char *file, bool property) {
  char path[512];
  snprintf(path, sizeof path, "examples/envelope/%s/%s", dir, file);
  diag_list_t d;
  diag_init(&d);
  fsp_file_t *f = fsp_parse_file(path, L, &d);
  lts_t *l = f ? fsp_compile(f, fsp_last_process(f), &d) : NULL;
  if (!l) {
    fprintf(stderr, "cannot load %s\n", path);
    exit(2);
  }
  fsp_free(f);
  diag_free(&d);
  if (property) {
    lts_t *p = lts_property(l);
    lts_free(l);
    l = p;
  }
  return l;
}

typedef struct {
  const char *dir, *env, *ctrl, *prop, *envp[2];
  int ndelta, largest;
  const char *answer; /* tests/data/envelope/NAME.txt */
} bench_t;

static const bench_t benches[] = {
    {"running_example", "env.lts", "ctrl.lts", "p.lts", {NULL, NULL}, 3, 13, "running_example"},
    {"therac25", "env_safe.lts", "sys.lts", "p.lts", {"envp_term.lts", NULL}, 4, 21, "therac25_bug"},
    {"therac25", "env_safe.lts", "sys_fixed.lts", "p.lts", {"envp_term.lts", NULL}, 4, 26, "therac25_fix"},
    {"therac25", "env_safe.lts", "sys_interlock.lts", "p.lts", {"envp_term.lts", NULL}, 4, 26, "therac20"},
    {"voting", "env.lts", "sys.lts", "p_cfm.lts", {"envp_v.lts", "envp_correct_seq_back.lts"}, 1, 12, "voting_pcfm"},
    {"voting", "env.lts", "sys.lts", "p_all.lts", {"envp_v.lts", "envp_correct_seq_back.lts"}, 1, 12, "voting_pall"},
    {"oyster", "human.lts", "gates.lts", "p.lts", {"envp_in_then_out.lts", NULL}, 1, 4, "oyster"},
    {"pump", "env0.lts", "sys.lts", "p.lts", {"envp_req_order.lts", "envp_line.lts"}, 1, 15, "pump"},
};

typedef struct {
  lts_t *env, *ctrl, *prop, *envp;
} loaded_t;

static loaded_t load_bench(lts_labels_t *L, const bench_t *b) {
  loaded_t x = {load(L, b->dir, b->env, false), load(L, b->dir, b->ctrl, false), load(L, b->dir, b->prop, true), NULL};
  if (b->envp[0] && b->envp[1]) {
    lts_t *p0 = load(L, b->dir, b->envp[0], true), *p1 = load(L, b->dir, b->envp[1], true);
    const lts_t *parts[2] = {p0, p1};
    x.envp = lts_compose(parts, 2);
    lts_free(p0);
    lts_free(p1);
  } else if (b->envp[0]) {
    x.envp = load(L, b->dir, b->envp[0], true);
  }
  return x;
}

static void loaded_free(loaded_t *x) {
  lts_free(x->env);
  lts_free(x->ctrl);
  lts_free(x->prop);
  lts_free(x->envp);
}

/* --------------------------------------------------------- comparison */

static bool same_delta(const envelope_space_t *sp, const envelope_result_t *a, const envelope_result_t *b) {
  if (a->ndeltas != b->ndeltas || a->normal_unsafe != b->normal_unsafe) return false;
  for (int i = 0; i < a->ndeltas; i++) /* both are sorted */
    if (!bitset_equal(a->deltas[i], b->deltas[i], (size_t)sp->ntrans)) return false;
  return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One d as canonical text: its transitions "(s, a, t)" sorted as strings,
 * joined by ";", with state numbers mapped through `map`. */
static char *canon(char **items, int n) {
  qsort(items, (size_t)n, sizeof *items, cmp_str);
  size_t len = 1;
  for (int i = 0; i < n; i++) len += strlen(items[i]) + 1;
  char *s = xcalloc(len, 1);
  for (int i = 0; i < n; i++) {
    strcat(s, items[i]);
    strcat(s, ";");
  }
  return s;
}

/* The reference tool numbers E's states in discovery order: LTSA states
 * ascending, each one's transitions by action, new ids on first sight.
 * map[our state] = reference id. */
static int *reference_numbering(const envelope_space_t *sp, const lts_t *env) {
  int *map = xmalloc((size_t)env->nstates * sizeof *map), next = 0;
  for (int s = 0; s < env->nstates; s++) map[s] = -1;
  map[env->init] = next++;
  for (int s = 0; s < env->nstates; s++) {
    if (map[s] < 0) map[s] = next++;
    for (int a = 0; a < sp->nactions; a++)
      for (int k = env->succ_off[s]; k < env->succ_off[s + 1]; k++)
        if (env->succ_label[k] == sp->actions[a] && map[env->succ_dst[k]] < 0) map[env->succ_dst[k]] = next++;
  }
  return map;
}

static void check_answer_key(const char *name, const envelope_space_t *sp, const lts_t *env,
                             const envelope_result_t *r) {
  char path[256];
  snprintf(path, sizeof path, "tests/data/envelope/%s.txt", name);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    check_failures++;
    return;
  }
  int *map = reference_numbering(sp, env);
  char **ours = xcalloc((size_t)r->ndeltas + 1, sizeof *ours);
  char **items = xmalloc(((size_t)sp->ntrans + 1) * sizeof *items);
  for (int i = 0; i < r->ndeltas; i++) {
    int n = 0;
    for (int t = 0; t < sp->ntrans; t++) {
      if (!bitset_get(r->deltas[i], (size_t)t)) continue;
      int dst = sp->states[t % sp->nq], src = sp->states[(t / sp->nq) % sp->nq];
      items[n++] = xasprintf("(%d, %s, %d)", map[src], sp->names[t / (sp->nq * sp->nq)], map[dst]);
    }
    ours[i] = canon(items, n);
    for (int k = 0; k < n; k++) free(items[k]);
  }
  char line[65536];
  int nref = 0, declared = -1;
  VEC(char *) refs = {0};
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "#delta: %d", &declared) == 1) continue;
    char *open = strchr(line, '{');
    if (!open || line[0] == '#') continue;
    int n = 0;
    for (char *p = open; (p = strchr(p, '(')) != NULL;) {
      char *close = strchr(p, ')');
      items[n++] = xstrndup(p, (size_t)(close - p + 1));
      p = close;
    }
    VEC_PUSH(&refs, canon(items, n));
    for (int k = 0; k < n; k++) free(items[k]);
    nref++;
  }
  fclose(f);
  if (nref != r->ndeltas || declared != nref) {
    fprintf(stderr, "%s: %d deltas, the reference prints %d (#delta: %d)\n", name, r->ndeltas, nref, declared);
    check_failures++;
  }
  for (size_t i = 0; i < refs.len; i++) {
    bool found = false;
    for (int j = 0; j < r->ndeltas && !found; j++) found = strcmp(refs.data[i], ours[j]) == 0;
    if (!found) {
      fprintf(stderr, "%s: reference delta %zu not computed: %s\n", name, i + 1, refs.data[i]);
      check_failures++;
    }
    free(refs.data[i]);
  }
  VEC_FREE(&refs);
  for (int i = 0; i < r->ndeltas; i++) free(ours[i]);
  free(ours);
  free(items);
  free(map);
}

static int largest(const envelope_space_t *sp, const envelope_result_t *r) {
  int m = 0;
  for (int i = 0; i < r->ndeltas; i++)
    if (envelope_size(sp, r->deltas[i]) > m) m = envelope_size(sp, r->deltas[i]);
  return m;
}

static void test_benchmarks(void) {
  for (size_t i = 0; i < sizeof benches / sizeof *benches; i++) {
    const bench_t *b = &benches[i];
    lts_labels_t L;
    lts_labels_init(&L);
    loaded_t x = load_bench(&L, b);
    envelope_problem_t p = {x.env, x.ctrl, x.prop, x.envp};
    char *err = NULL;
    envelope_t *ev = envelope_new(&p, 1000000, &err);
    CHECK(ev != NULL);
    envelope_result_t fast, paper, brute;
    CHECK(envelope_compute(ev, ENVELOPE_DEFAULT, &fast, &err));
    CHECK(envelope_compute(ev, ENVELOPE_PAPER, &paper, &err));
    const envelope_space_t *sp = envelope_space(ev);
    if (fast.ndeltas != b->ndelta || largest(sp, &fast) != b->largest) {
      fprintf(stderr, "%s: |Δ| = %d, largest %d; expected %d, %d\n", b->answer, fast.ndeltas, largest(sp, &fast),
              b->ndelta, b->largest);
      check_failures++;
    }
    if (!same_delta(sp, &fast, &paper)) {
      fprintf(stderr, "%s: default and paper algorithms disagree\n", b->answer);
      check_failures++;
    }
    for (int k = 0; k < fast.ndeltas; k++) CHECK(envelope_robust(ev, fast.deltas[k]));
    check_answer_key(b->answer, sp, x.env, &fast);
    if (envelope_compute(ev, ENVELOPE_BRUTE_FORCE, &brute, &err)) {
      if (!same_delta(sp, &fast, &brute)) {
        fprintf(stderr, "%s: default and brute-force algorithms disagree\n", b->answer);
        check_failures++;
      }
      envelope_result_free(&brute);
    } else {
      CHECK(strcmp(b->answer, "running_example") != 0); /* brute force must run there */
      free(err);
      err = NULL;
    }
    envelope_result_free(&fast);
    envelope_result_free(&paper);
    envelope_free(ev);
    loaded_free(&x);
    lts_labels_free(&L);
  }
}

/* Therac-25 is less robust than Therac-20, the fixed Therac-25 equal. */
static void test_compare(void) {
  lts_labels_t L;
  lts_labels_init(&L);
  loaded_t bug = load_bench(&L, &benches[1]);
  lts_t *fixed = load(&L, "therac25", "sys_fixed.lts", false), *t20 = load(&L, "therac25", "sys_interlock.lts", false);
  char *err = NULL;
  envelope_problem_t pa = {bug.env, bug.ctrl, bug.prop, bug.envp}, pf = {bug.env, fixed, bug.prop, bug.envp},
                     pb = {bug.env, t20, bug.prop, bug.envp};
  envelope_t *a = envelope_new(&pa, 100000, &err), *f = envelope_new(&pf, 100000, &err),
             *b = envelope_new(&pb, 100000, &err);
  envelope_result_t ra, rf, rb;
  envelope_compute(a, ENVELOPE_DEFAULT, &ra, &err);
  envelope_compute(f, ENVELOPE_DEFAULT, &rf, &err);
  envelope_compute(b, ENVELOPE_DEFAULT, &rb, &err);
  bitword_t *x, *y;
  CHECK(envelope_compare(a, &ra, b, &rb, &x, &y) == ENVELOPE_LESS);
  CHECK(x == NULL && y != NULL);
  if (y) { /* the witness: tolerated by Therac-20, not by Therac-25, minimal */
    CHECK(envelope_robust(b, y) && !envelope_robust(a, y));
    const envelope_space_t *sp = envelope_space(a);
    for (int t = 0; t < sp->ntrans; t++) {
      if (!bitset_get(y, (size_t)t)) continue;
      CHECK(!bitset_get(sp->normal, (size_t)t));
      bitset_clear_bit(y, (size_t)t);
      CHECK(envelope_robust(a, y));
      bitset_set(y, (size_t)t);
    }
  }
  free(y);
  CHECK(envelope_compare(b, &rb, a, &ra, &x, &y) == ENVELOPE_MORE);
  free(x);
  CHECK(envelope_compare(f, &rf, b, &rb, &x, &y) == ENVELOPE_EQUAL);
  CHECK(x == NULL && y == NULL);
  envelope_result_free(&ra);
  envelope_result_free(&rf);
  envelope_result_free(&rb);
  envelope_free(a);
  envelope_free(f);
  envelope_free(b);
  lts_free(fixed);
  lts_free(t20);
  loaded_free(&bug);
  lts_labels_free(&L);
}

/* ------------------------------------------------------------- random */

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static int rnd(int n) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (int)((rng >> 33) % (unsigned long long)n);
}

/* A random LTS over `labels`; deterministic ones may miss transitions. */
static lts_t *random_lts(lts_labels_t *L, int nstates, const char *const *labels, int nlabels, bool det, int density) {
  lts_builder_t b;
  lts_builder_init(&b, L);
  for (int i = 0; i < nstates; i++) lts_builder_add_state(&b);
  for (int i = 0; i < nlabels; i++) lts_builder_alphabet_add(&b, lts_label(L, labels[i]));
  for (int s = 0; s < nstates; s++)
    for (int l = 0; l < nlabels; l++)
      for (int t = 0; t < (det ? 1 : nstates); t++)
        if (rnd(100) < density) lts_builder_add(&b, s, lts_label(L, labels[l]), det ? rnd(nstates) : t);
  return lts_freeze(&b);
}

static void test_random(void) {
  static const char *const env_l[] = {"a", "b"}, *ctrl_l[] = {"a", "b", "c"}, *prop_l[] = {"a", "c"},
                           *envp_l[] = {"a", "b"};
  int agree = 0, cases = 300;
  for (int i = 0; i < cases; i++) {
    lts_labels_t L;
    lts_labels_init(&L);
    int nq = i % 10 == 0 ? 3 : 2;
    lts_t *env = random_lts(&L, nq, env_l, nq == 3 ? 1 : 2, false, 30);
    lts_t *ctrl = random_lts(&L, 1 + rnd(3), ctrl_l, 3, false, 50);
    lts_t *pd = random_lts(&L, 2 + rnd(3), prop_l, 2, true, 90), *prop = lts_property(pd);
    lts_t *ed = i % 2 ? random_lts(&L, 2, envp_l, 2, true, 85) : NULL, *envp = ed ? lts_property(ed) : NULL;
    envelope_problem_t p = {env, ctrl, prop, envp};
    char *err = NULL;
    envelope_t *ev = envelope_new(&p, 100000, &err);
    envelope_result_t r1, r2, r3;
    bool ok = ev && envelope_compute(ev, ENVELOPE_DEFAULT, &r1, &err) && envelope_compute(ev, ENVELOPE_PAPER, &r2, &err) &&
              envelope_compute(ev, ENVELOPE_BRUTE_FORCE, &r3, &err);
    if (!ok) {
      fprintf(stderr, "random case %d: %s\n", i, err ? err : "failed");
      free(err);
      check_failures++;
    } else {
      const envelope_space_t *sp = envelope_space(ev);
      if (getenv("ENVELOPE_TEST_VERBOSE")) fprintf(stderr, "case %d: %d deltas%s\n", i, r3.ndeltas, r3.normal_unsafe ? " (unsafe)" : "");
      if (same_delta(sp, &r1, &r3) && same_delta(sp, &r2, &r3)) agree++;
      else fprintf(stderr, "random case %d: algorithms disagree (%d, %d, %d deltas)\n", i, r1.ndeltas, r2.ndeltas, r3.ndeltas);
      envelope_result_free(&r1);
      envelope_result_free(&r2);
      envelope_result_free(&r3);
    }
    envelope_free(ev);
    lts_free(env);
    lts_free(ctrl);
    lts_free(pd);
    lts_free(prop);
    lts_free(ed);
    lts_free(envp);
    lts_labels_free(&L);
  }
  if (agree != cases) {
    fprintf(stderr, "random: %d/%d cases agree\n", agree, cases);
    check_failures++;
  }
}

/* ------------------------------------------------------------- ring */

/* tests/lib/ring.sh's ring: E cycles through n states by a (b in its
 * alphabet), C allows a and b, P forbids b after n-1 a's (counted mod n). */
static void ring(lts_labels_t *L, int n, lts_t **env, lts_t **ctrl, lts_t **prop) {
  int a = lts_label(L, "a"), b = lts_label(L, "b");
  lts_builder_t e, c, p;
  lts_builder_init(&e, L);
  lts_builder_init(&c, L);
  lts_builder_init(&p, L);
  for (int i = 0; i < n; i++) {
    lts_builder_add_state(&e);
    lts_builder_add_state(&p);
  }
  lts_builder_add_state(&c);
  lts_builder_t *all[3] = {&e, &c, &p};
  for (int k = 0; k < 3; k++) {
    lts_builder_alphabet_add(all[k], a);
    lts_builder_alphabet_add(all[k], b);
  }
  for (int i = 0; i < n; i++) {
    lts_builder_add(&e, i, a, (i + 1) % n);
    lts_builder_add(&p, i, a, (i + 1) % n);
    if (i < n - 1) lts_builder_add(&p, i, b, 0);
  }
  lts_builder_add(&c, 0, a, 0);
  lts_builder_add(&c, 0, b, 0);
  *env = lts_freeze(&e);
  *ctrl = lts_freeze(&c);
  lts_t *pd = lts_freeze(&p);
  *prop = lts_property(pd);
  lts_free(pd);
}

/* Robustness by definition, independent of the meta-system: E_d ‖ C ‖ P_err
 * reaches no error. */
static bool robust_composed(const envelope_space_t *sp, const lts_t *env, const lts_t *ctrl, const lts_t *prop,
                            const bitword_t *d) {
  lts_t *ed = envelope_deviation_lts(sp, env, d);
  const lts_t *parts[3] = {ed, ctrl, prop};
  lts_t *c = lts_compose(parts, 3);
  bool ok = c->error < 0;
  lts_free(c);
  lts_free(ed);
  return ok;
}

static void test_ring(void) {
  for (int n = 4; n <= 11; n++) {
    lts_labels_t L;
    lts_labels_init(&L);
    lts_t *env, *ctrl, *prop;
    ring(&L, n, &env, &ctrl, &prop);
    envelope_problem_t p = {env, ctrl, prop, NULL};
    char *err = NULL;
    envelope_t *ev = envelope_new(&p, 1000000, &err);
    CHECK(ev != NULL);
    const envelope_space_t *sp = envelope_space(ev);
    envelope_result_t r;
    CHECK(envelope_compute(ev, ENVELOPE_DEFAULT, &r, &err));
    CHECK(!r.partial && r.ndeltas == 1 << (n - 1));
    if (n <= 10) {
      envelope_result_t old;
      CHECK(envelope_compute(ev, ENVELOPE_CLAUSES, &old, &err));
      if (!same_delta(sp, &r, &old)) {
        fprintf(stderr, "ring n = %d: %d sets, the previous algorithm %d\n", n, r.ndeltas, old.ndeltas);
        check_failures++;
      }
      if (n <= 9) { /* and without the pair table */
        envelope_result_t bare;
        envelope_set_pair_table_limit(0);
        CHECK(envelope_compute(ev, ENVELOPE_DEFAULT, &bare, &err));
        envelope_set_pair_table_limit(1L << 24);
        if (!same_delta(sp, &bare, &old)) {
          fprintf(stderr, "ring n = %d without pairs: %d sets, the previous algorithm %d\n", n, bare.ndeltas,
                  old.ndeltas);
          check_failures++;
        }
        envelope_result_free(&bare);
      }
      envelope_result_free(&old);
    } else {
      int bad = 0;
      bitword_t *x = bitset_new((size_t)sp->ntrans);
      for (int k = 0; k < r.ndeltas; k++) {
        if (!robust_composed(sp, env, ctrl, prop, r.deltas[k])) bad++;
        if (k % 16) continue;
        for (int t = 0; t < sp->ntrans; t++) {
          if (bitset_get(r.deltas[k], (size_t)t)) continue;
          memcpy(x, r.deltas[k], BITSET_WORDS((size_t)sp->ntrans) * sizeof *x);
          bitset_set(x, (size_t)t);
          if (robust_composed(sp, env, ctrl, prop, x)) bad++;
        }
      }
      free(x);
      if (bad) {
        fprintf(stderr, "ring n = %d: %d sets not robust or not maximal\n", n, bad);
        check_failures++;
      }
    }
    envelope_result_free(&r);
    envelope_free(ev);
    lts_free(env);
    lts_free(ctrl);
    lts_free(prop);
    lts_labels_free(&L);
  }
}

/* The default algorithm against the previous one on random problems with
 * 3-4 environment states (18-32 deviation transitions: past brute force). */
static void test_random_larger(void) {
  static const char *const env_l[] = {"a", "b"}, *ctrl_l[] = {"a", "b", "c"}, *prop_l[] = {"a", "b"},
                           *envp_l[] = {"a", "b"};
  int agree = 0, cases = 200;
  for (int i = 0; i < cases; i++) {
    lts_labels_t L;
    lts_labels_init(&L);
    lts_t *env = random_lts(&L, 3 + i % 2, env_l, 2, false, 15);
    lts_t *ctrl = i % 2 ? random_lts(&L, 1 + rnd(3), ctrl_l, 3, false, 70) : random_lts(&L, 1, ctrl_l, 2, false, 100);
    lts_t *pd = random_lts(&L, 4 + rnd(3), prop_l, 2, true, 95), *prop = lts_property(pd);
    lts_t *ed = i % 3 == 0 ? random_lts(&L, 2, envp_l, 2, true, 85) : NULL, *envp = ed ? lts_property(ed) : NULL;
    envelope_problem_t p = {env, ctrl, prop, envp};
    char *err = NULL;
    envelope_t *ev = envelope_new(&p, 100000, &err);
    envelope_result_t r1, r2;
    bool no_pairs = i % 2 == 1; /* half of them without the pair table */
    if (no_pairs) envelope_set_pair_table_limit(0);
    bool ok = ev && envelope_compute(ev, ENVELOPE_DEFAULT, &r1, &err);
    envelope_set_pair_table_limit(1L << 24);
    if (ok && envelope_compute(ev, ENVELOPE_CLAUSES, &r2, &err)) {
      if (getenv("ENVELOPE_TEST_VERBOSE")) fprintf(stderr, "larger %d: %d deltas%s, %d transitions\n", i, r1.ndeltas, r1.normal_unsafe ? " (unsafe)" : "", envelope_space(ev)->ntrans);
      if (same_delta(envelope_space(ev), &r1, &r2))
        agree++;
      else
        fprintf(stderr, "larger random case %d: %d vs %d sets\n", i, r1.ndeltas, r2.ndeltas);
      envelope_result_free(&r1);
      envelope_result_free(&r2);
    } else {
      fprintf(stderr, "larger random case %d: %s\n", i, err ? err : "failed");
      free(err);
      if (ok) envelope_result_free(&r1);
    }
    envelope_free(ev);
    lts_free(env);
    lts_free(ctrl);
    lts_free(pd);
    lts_free(prop);
    lts_free(ed);
    lts_free(envp);
    lts_labels_free(&L);
  }
  if (agree != cases) {
    fprintf(stderr, "larger random: %d/%d cases agree\n", agree, cases);
    check_failures++;
  }
}

int main(void) {
  test_benchmarks();
  test_compare();
  test_random();
  test_random_larger();
  test_ring();
  if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures);
  return check_failures != 0;
}
