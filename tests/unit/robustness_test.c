/* Unit tests of the robustness analysis: the explanations computed from
 * one composition M ‖ D (robust_explain) equal, trace by trace, those of
 * the paper's definition computed the direct way: compose M ‖ D ‖ T_σ for
 * each trace σ and take a BFS-shortest path to π. Run on the Fortis
 * problems that have a deviation model (examples/robustness/fortis). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/robustness.h"

/* The last process of each file, composed; properties completed. */
static lts_t *load(lts_labels_t *L, diag_list_t *d, const char *const *files, int n, bool property) {
  lts_t *parts[8] = {0};
  for (int i = 0; i < n; i++) {
    char path[512];
    snprintf(path, sizeof path, "examples/robustness/fortis/%s", files[i]);
    fsp_file_t *f = fsp_parse_file(path, L, d);
    parts[i] = f ? fsp_compile(f, fsp_last_process(f), d) : NULL;
    fsp_free(f);
    if (!parts[i]) {
      fprintf(stderr, "%s: %s\n", path, d->count ? d->items[0].message : "?");
      exit(1);
    }
    if (property) {
      lts_t *p = lts_property(parts[i]);
      lts_free(parts[i]);
      parts[i] = p;
    }
  }
  if (n == 1) return parts[0];
  lts_t *l = lts_compose((const lts_t *const *)parts, n);
  for (int i = 0; i < n; i++) lts_free(parts[i]);
  return l;
}

/* T_σ: σ's prefix, then the faults, then σ's last action into π. */
static lts_t *trace_lts(lts_labels_t *L, const robust_trace_t *rt, const int *alpha, int nalpha,
                        const int *faults, int nfaults) {
  lts_builder_t b;
  lts_builder_init(&b, L);
  for (int i = 0; i < nalpha; i++) lts_builder_alphabet_add(&b, alpha[i]);
  for (int i = 0; i < nfaults; i++) lts_builder_alphabet_add(&b, faults[i]);
  for (int i = 0; i <= rt->len; i++) lts_builder_add_state(&b);
  b.error = rt->len;
  for (int i = 0; i + 1 < rt->len; i++) lts_builder_add(&b, i, rt->trace[i], i + 1);
  for (int i = 0; i < nfaults; i++) lts_builder_add(&b, rt->len - 1, faults[i], rt->len - 1);
  lts_builder_add(&b, rt->len - 1, rt->trace[rt->len - 1], rt->len);
  return lts_freeze(&b);
}

static void problem(const char *name, const char *const *sys, int nsys, const char *env_file,
                    const char *prop_file, const char *dev_file, const char *const *fault_names,
                    int nfault_names, int classes, int explained) {
  lts_labels_t L;
  lts_labels_init(&L);
  diag_list_t d;
  diag_init(&d);
  lts_t *m = load(&L, &d, sys, nsys, false), *e = load(&L, &d, &env_file, 1, false);
  lts_t *p = load(&L, &d, &prop_file, 1, true), *dev = load(&L, &d, &dev_file, 1, false);
  int nalpha, nfaults;
  int *alpha = robust_interface(m, e, &nalpha);
  int *faults = robust_faults(dev, fault_names, (size_t)nfault_names, &nfaults);
  bool empty;
  lts_t *w = robust_weakest_assumption(m, p, alpha, nalpha, false, &empty);
  lts_t *ev = robust_env_view(e, alpha, nalpha);
  robust_traces_t t = {0};
  robust_delta(w, ev, &t);
  robust_explain(m, dev, alpha, nalpha, faults, nfaults, &t);
  int nexpl = 0, differ = 0;
  for (int k = 0; k < t.ntraces; k++) {
    const robust_trace_t *rt = &t.traces[k];
    nexpl += rt->expl != NULL;
    lts_t *tr = trace_lts(&L, rt, alpha, nalpha, faults, nfaults);
    const lts_t *parts[3] = {m, dev, tr};
    lts_t *prod = lts_compose(parts, 3);
    int len = -1;
    int *path = NULL;
    if (prod->error >= 0) {
      lts_bfs_t bfs;
      lts_bfs(prod, &bfs);
      path = lts_bfs_trace(&bfs, prod, prod->error, &len);
      lts_bfs_free(&bfs);
    }
    int n = 0;
    for (int i = 0; i < len; i++) n += path[i] != LTS_TAU;
    bool same = (len > 0) == (rt->expl != NULL) && (!rt->expl || n == rt->expl_len);
    for (int i = 0, j = 0; same && i < len; i++)
      if (path[i] != LTS_TAU) same = path[i] == rt->expl[j++];
    differ += !same;
    free(path);
    lts_free(prod);
    lts_free(tr);
  }
  if (t.ntraces != classes || nexpl != explained || differ) {
    fprintf(stderr, "%s: %d classes, %d explained, %d explanations differ from the direct computation\n",
            name, t.ntraces, nexpl, differ);
    check_failures++;
  }
  robust_traces_free(&t);
  free(alpha);
  free(faults);
  lts_free(m), lts_free(e), lts_free(p), lts_free(dev), lts_free(w), lts_free(ev);
  diag_free(&d);
  lts_labels_free(&L);
}

int main(void) {
  const char *lossy[] = {"lose", "duplicate", "corrupt"}, *commission[] = {"commission"};
  const char *omit[] = {"omit_confirm"}, *oyster[] = {"fg", "rmb"};
  const char *naive[] = {"abp/perfect.lts"}, *abp[] = {"abp/abp.lts"}, *therac[] = {"therac25/sys.lts"};
  const char *voting[] = {"voting/sys.lts"}, *voting3[] = {"voting2-3-3/sys.lts"};
  problem("naive", naive, 1, "abp/abp_env.lts", "abp/p.lts", "abp/abp_env_lossy.lts", lossy, 3, 6, 6);
  problem("abp", abp, 1, "abp/abp_env.lts", "abp/p.lts", "abp/abp_env_lossy.lts", lossy, 3, 111, 103);
  problem("therac25", therac, 1, "therac25/env0.lts", "therac25/p.lts", "therac25/dev.lts", commission, 1, 4,
          4);
  problem("voting", voting, 1, "voting/env0.lts", "voting/p.lts", "voting/dev.lts", omit, 1, 4, 1);
  problem("voting-3-3", voting3, 1, "voting2-3-3/env.lts", "voting2-3-3/p.lts", "voting2-3-3/dev.lts", omit,
          1, 4, 1);
  for (int i = 1; i <= 3; i++) {
    char cb[64], ob[64], name[32];
    snprintf(cb, sizeof cb, "oyster-%d/card-bal.lts", i);
    snprintf(ob, sizeof ob, "oyster-%d/oyster-bal.lts", i);
    snprintf(name, sizeof name, "oyster-%d", i);
    const char *sys[] = {"oyster/gate-in.lts", "oyster/gate-out.lts", cb, ob};
    const int classes[] = {88, 198, 352}, expl[] = {16, 36, 64};
    problem(name, sys, 4, "oyster/human.lts", "oyster/no-collision.lts", "oyster/human-dev.lts", oyster, 2,
            classes[i - 1], expl[i - 1]);
  }
  return CHECK_RESULT();
}
