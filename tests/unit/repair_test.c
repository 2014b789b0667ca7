/* Path repair (verifier/paths/repair.h). On the explorer, a walk forward
 * fails only from exactly 14 cm (sensed >= 20 with an error of at most 6,
 * a walk of at most 10 + 4): four walks from the middle of the range must
 * be repaired to that point, with the two errors at their ends; a walk back
 * right after a walk forward cannot fail (the walk forward leaves at least
 * 10 + 6 behind, the walk back moves at most 14), so no repair may claim
 * it. Then every path of length 1..3 of every bundled app, in every mode,
 * failing at its last rule: whatever a repair returns must pass cex_replay
 * (the evaluator, which shares no code with the repair) on that path and
 * failing action, and the repair must succeed on some. */
#include <stdlib.h>
#include <string.h>

#include "ism/alloc.h"
#include "ism/cex.h"
#include "tests/unit/check.h"
#include "tests/unit/model.h"
#include "verifier/paths/repair.h"

static int rule_named(const ism_model_t *m, const char *id) {
  for (size_t r = 0; r < m->nrules; r++)
    if (strcmp(m->rules[r].id, id) == 0) return (int)r;
  CHECK(!"no such rule");
  return 0;
}

/* A path's arrays, with row 0 as the explorer starts: initial values, the
 * middle of each range (or 0) for the free ones. */
typedef struct {
  repair_path_t io;
  rat_t *T, *H;
  extend_action_t *acts;
} path_t;

static void path_init(path_t *p, const ism_model_t *m, const int *rules, int length) {
  size_t nv = m->nvars, nacts = 0;
  for (int k = 0; k < length; k++)
    for (size_t s = 0; s < m->rules[rules[k]].nsteps; s++)
      nacts += m->rules[rules[k]].steps[s].kind == ISM_STEP_ACTION;
  p->T = xcalloc((size_t)(length + 1) * nv + 1, sizeof *p->T);
  p->H = xcalloc((size_t)length * nv + 1, sizeof *p->H);
  p->acts = xcalloc(nacts + 1, sizeof *p->acts);
  for (size_t a = 0; a < nacts; a++)
    p->acts[a] = (extend_action_t){xcalloc(nv + 1, sizeof(rat_t)), xcalloc(nv + 1, sizeof(rat_t)),
                                   xcalloc(nv + 1, sizeof(rat_t)), xcalloc(nv + 1, sizeof(bool))};
  for (size_t v = 0; v < nv; v++) {
    const ism_var_t *var = &m->vars[v];
    bool err = false;
    double d = var->init                                       ? expr_eval_real(var->init, NULL, NULL, &err)
               : var->has_range && var->type.kind != TYPE_BOOL ? (var->range_lo + var->range_hi) / 2
                                                               : 0;
    if (var->type.kind != TYPE_REAL) d = (double)(long long)d;
    CHECK(!err && rat_from_double(d, &p->T[v]));
  }
  p->io = (repair_path_t){rules, length, true, p->T, p->H, p->acts, nacts, 0, -1};
}

static void path_free(path_t *p) {
  for (size_t a = 0; a < p->io.nacts; a++)
    free(p->acts[a].before), free(p->acts[a].after), free(p->acts[a].actual), free(p->acts[a].has_actual);
  free(p->acts), free(p->T), free(p->H);
}

/* The repaired values as a counterexample, re-checked by cex_replay. */
static char *replay(const ism_model_t *m, ism_mode_t mode, const path_t *p) {
  size_t nv = m->nvars;
  int L = p->io.length;
  cex_t c = {.length = L, .fail_position = p->io.fail_position};
  c.rules = xmalloc((size_t)L * sizeof *c.rules);
  c.states = xmalloc((size_t)(L + 1) * sizeof *c.states);
  c.truth = xmalloc(((size_t)(L + 1) * nv + 1) * sizeof *c.truth);
  c.sensed = xmalloc(((size_t)L * nv + 1) * sizeof *c.sensed);
  c.states[0] = m->initial;
  for (int k = 0; k < L; k++) c.rules[k] = p->io.rules[k], c.states[k + 1] = m->rules[c.rules[k]].to;
  for (size_t k = 0; k < (size_t)(L + 1) * nv; k++) c.truth[k] = rat_to_double(p->T[k]);
  for (size_t k = 0; k < (size_t)L * nv; k++) c.sensed[k] = rat_to_double(p->H[k]);
  c.nactions = p->io.nacts;
  c.actions = xcalloc(c.nactions + 1, sizeof *c.actions);
  size_t a = 0;
  for (int k = 0; k < L; k++) {
    const ism_rule_t *r = &m->rules[c.rules[k]];
    for (size_t s = 0; s < r->nsteps; s++) {
      if (r->steps[s].kind != ISM_STEP_ACTION) continue;
      cex_action_t *ca = &c.actions[a];
      *ca = (cex_action_t){k,
                           (int)s,
                           r->steps[s].action,
                           xcalloc(nv + 1, sizeof(double)),
                           xcalloc(nv + 1, sizeof(double)),
                           xcalloc(nv + 1, sizeof(double)),
                           xcalloc(nv + 1, sizeof(bool))};
      for (size_t v = 0; v < nv; v++) {
        ca->before[v] = rat_to_double(p->acts[a].before[v]);
        ca->after[v] = rat_to_double(p->acts[a].after[v]);
        ca->has_actual[v] = p->acts[a].has_actual[v];
        if (ca->has_actual[v]) ca->actual[v] = rat_to_double(p->acts[a].actual[v]);
      }
      a++;
    }
  }
  c.fail_action = c.fail_position >= 0 ? m->rules[c.rules[L - 1]].steps[c.fail_position].action : -1;
  char *msg = cex_replay(m, mode, &c);
  cex_free(&c);
  return msg;
}

static void explorer_by_hand(void) {
  ism_model_t *m = load("examples/robotcar/explorer.yaml");
  if (!m) return;
  extend_prep_t *prep = extend_prepare(m);
  size_t nv = m->nvars;
  int r0 = rule_named(m, "r0"), walks[4] = {r0, r0, r0, r0};
  path_t p;
  path_init(&p, m, walks, 4);
  CHECK(repair_path(prep, ISM_MODE_ACTUAL, 12, &p.io));
  int disF = 0, unit = 4;
  CHECK(strcmp(m->vars[disF].name, "disF") == 0 && strcmp(m->vars[unit].name, "unit") == 0);
  rat_t err;
  CHECK(p.T[3 * nv + disF].num == 14 && p.T[3 * nv + disF].den == 1);
  CHECK(rat_sub(p.H[3 * nv + disF], p.T[3 * nv + disF], &err) && err.num == 6 && err.den == 1);
  CHECK(p.acts[3].has_actual[unit] && p.acts[3].actual[unit].num == 14 && p.acts[3].actual[unit].den == 1);
  CHECK(p.io.fail_position == 0);
  char *msg = replay(m, ISM_MODE_ACTUAL, &p);
  CHECK(msg == NULL);
  free(msg);
  path_free(&p);

  int back[2] = {r0, rule_named(m, "r3")};
  path_init(&p, m, back, 2);
  CHECK(!repair_path(prep, ISM_MODE_ACTUAL, 12, &p.io));
  path_free(&p);
  extend_prep_free(prep);
  ism_free(m);
}

typedef struct {
  const char *app;
  const ism_model_t *m;
  const extend_prep_t *prep;
  ism_mode_t mode;
  int rules[3];
  size_t tried, repaired;
} sweep_t;

static void sweep(sweep_t *s, int depth, int state, int max) {
  const ism_model_t *m = s->m;
  for (const int *r = m->rules_from[state]; *r >= 0; r++) {
    s->rules[depth] = *r;
    path_t p;
    path_init(&p, m, s->rules, depth + 1);
    s->tried++;
    if (repair_path(s->prep, s->mode, 12, &p.io)) {
      s->repaired++;
      char *msg = replay(m, s->mode, &p);
      if (msg) {
        fprintf(stderr, "%s, mode %d, path", s->app, (int)s->mode);
        for (int k = 0; k <= depth; k++) fprintf(stderr, " %s", m->rules[s->rules[k]].id);
        fprintf(stderr, ": a repair fails its re-check: %s\n", msg);
      }
      CHECK(msg == NULL);
      free(msg);
    }
    path_free(&p);
    if (depth + 1 < max) sweep(s, depth + 1, m->rules[*r].to, max);
  }
}

int main(void) {
  explorer_by_hand();
  const char *apps[] = {"examples/cruise/cruise.yaml",          "examples/drone/drone.yaml",
                        "examples/robotcar/cautious.yaml",      "examples/robotcar/explorer.yaml",
                        "examples/robotcar/wall-follower.yaml", "examples/thermostat/thermostat.yaml"};
  size_t repaired_explorer = 0;
  for (size_t a = 0; a < sizeof apps / sizeof *apps; a++) {
    ism_model_t *m = load(apps[a]);
    if (!m) continue;
    extend_prep_t *prep = extend_prepare(m);
    for (int mode = ISM_MODE_ACTUAL; mode <= ISM_MODE_NAIVE; mode++) {
      sweep_t s = {.app = apps[a], .m = m, .prep = prep, .mode = (ism_mode_t)mode};
      sweep(&s, 0, m->initial, 3);
      CHECK(s.tried > 0);
      if (strstr(apps[a], "explorer")) repaired_explorer += s.repaired;
    }
    extend_prep_free(prep);
    ism_free(m);
  }
  CHECK(repaired_explorer > 0);
  return CHECK_RESULT();
}
