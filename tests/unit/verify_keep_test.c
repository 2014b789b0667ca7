/* apps/verify_keep.h against the whole list: random lists of
 * counterexamples (last rule, failing action, boundary-only) handed over
 * one by one; the totals and classes must be cex_classes' over the whole
 * list, with each class's first boundary-only member found by a scan, and
 * exactly the first `first`, the classes' first members and first
 * boundary-only members kept, each the list's own. */
#include <stdint.h>
#include <stdlib.h>

#include "apps/verify_keep.h"
#include "ism/alloc.h"
#include "tests/unit/check.h"

static cex_t make(int length, int last_rule, int action, bool boundary_only) {
  cex_t c = {0};
  c.length = length;
  c.rules = xcalloc((size_t)length, sizeof *c.rules);
  c.states = xcalloc((size_t)length + 1, sizeof *c.states);
  c.rules[length - 1] = last_rule;
  c.truth = xcalloc(1, sizeof *c.truth);
  c.sensed = xcalloc(1, sizeof *c.sensed);
  c.actions = xcalloc(1, sizeof *c.actions);
  c.fail_action = action;
  c.boundary_only = boundary_only;
  return c;
}

static void one_list(unsigned seed, size_t n, size_t first) {
  srand(seed);
  cex_t *all = xcalloc(n + 1, sizeof *all);
  for (size_t k = 0; k < n; k++) all[k] = make(1 + rand() % 4, rand() % 5, rand() % 3 - 1, rand() % 4 == 0);
  verify_keep_t keep;
  verify_keep_init(&keep, first);
  for (size_t k = 0; k < n; k++) {
    cex_t c = make(all[k].length, all[k].rules[all[k].length - 1], all[k].fail_action, all[k].boundary_only);
    c.rules[0] = (int)k; /* marks which of the list it is (the last rule when length 1) */
    if (c.length == 1) c.rules[0] = all[k].rules[0];
    c.states[0] = (int)k;
    verify_keep_take(&keep, &c);
  }
  cex_class_t *cl = NULL;
  size_t ncl = cex_classes(all, n, &cl);
  size_t nb = 0;
  for (size_t k = 0; k < n; k++) nb += all[k].boundary_only;
  CHECK(keep.total == n);
  CHECK(keep.boundary_only == nb);
  CHECK(keep.nclasses == ncl);
  bool *wanted = xcalloc(n + 1, sizeof *wanted);
  for (size_t k = 0; k < n && k < first; k++) wanted[k] = true;
  for (size_t i = 0; i < ncl && i < keep.nclasses; i++) {
    CHECK(keep.classes[i].rule == cl[i].rule && keep.classes[i].action == cl[i].action);
    CHECK(keep.classes[i].count == cl[i].count);
    CHECK(keep.classes[i].boundary_only == cl[i].boundary_only);
    CHECK(keep.classes[i].top == cl[i].top);
    wanted[cl[i].top] = true;
    size_t fb = SIZE_MAX;
    for (size_t k = 0; k < n && fb == SIZE_MAX; k++)
      if (all[k].boundary_only && all[k].rules[all[k].length - 1] == cl[i].rule &&
          all[k].fail_action == cl[i].action)
        fb = k;
    CHECK(keep.first_boundary[i] == fb);
    if (fb != SIZE_MAX) wanted[fb] = true;
  }
  size_t nwanted = 0;
  for (size_t k = 0; k < n; k++) {
    nwanted += wanted[k];
    const cex_t *c = verify_keep_at(&keep, k);
    CHECK((c != NULL) == wanted[k]);
    if (c) CHECK(c->states[0] == (int)k && c->fail_action == all[k].fail_action);
  }
  CHECK(keep.n == nwanted);
  CHECK(verify_keep_at(&keep, n) == NULL);
  free(wanted);
  free(cl);
  verify_keep_free(&keep);
  for (size_t k = 0; k < n; k++) cex_free(&all[k]);
  free(all);
}

int main(void) {
  one_list(1, 0, 0);
  one_list(2, 1, 0);
  for (unsigned seed = 3; seed < 40; seed++) {
    one_list(seed, 200, 0);
    one_list(seed, 200, 7);
    one_list(seed, 50, 1000);
  }
  return CHECK_RESULT();
}
