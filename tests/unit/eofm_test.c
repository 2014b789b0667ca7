/* Unit tests of the EOFM front end: sizes of the translated task models
 * against the reference tool's answer keys (LTSA-Robust v1.1,
 * anchors/lts/LTSA-Robust/_derived/NAME_tool_output_verbose.txt), located
 * errors for malformed XML and schema violations, and (when ../shared is
 * next to the clone) every anchor EOFM file translates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "verifier/lts/eofm.h"
#include "verifier/lts/eofm_explain.h"
#include "verifier/lts/eofm_translate.h"
#include "verifier/lts/fsp.h"
#include "verifier/lts/robustness.h"
#include "tests/unit/check.h"

/* The world of models/therac25/therac.json. */
static const char *const therac_world[] = {
    "when (iInterface == Edit) hPressX -> VAR[ConfirmXray][InPlace][iPowerLevel]",
    "when (iInterface == Edit) hPressE -> VAR[ConfirmEBeam][OutPlace][iPowerLevel]",
    "when (iInterface == ConfirmXray || iInterface == ConfirmEBeam) hPressUp -> "
    "VAR[Edit][iSpreader][iPowerLevel]",
    "when (iInterface == PrepXray) hPressUp1 -> VAR[ConfirmXray][iSpreader][iPowerLevel]",
    "when (iInterface == PrepEBeam) hPressUp1 -> VAR[ConfirmEBeam][iSpreader][iPowerLevel]",
    "when (iInterface == ConfirmXray) hPressEnter -> VAR[PrepXray][iSpreader][iPowerLevel]",
    "when (iInterface == ConfirmEBeam) hPressEnter -> VAR[PrepEBeam][iSpreader][iPowerLevel]",
    "when (iInterface == PrepXray || iInterface == PrepEBeam) hPressB -> "
    "VAR[Administered][iSpreader][iPowerLevel]",
    "when (iPowerLevel == EBeamLevel) mXrayLvl -> VAR[iInterface][iSpreader][XrayLevel]",
    "when (iPowerLevel == XrayLevel) mEBeamLvl -> VAR[iInterface][iSpreader][EBeamLevel]",
    "when (iPowerLevel == NotSet) mInitXray -> VAR[iInterface][iSpreader][XrayLevel]",
    "when (iPowerLevel == NotSet) mInitEBeam -> VAR[iInterface][iSpreader][EBeamLevel]",
};

/* The world of models/therac25/therac_robust.json (hPressB only fires when
 * the beam is set up). */
static const char *const therac_robust_world[] = {
    "when (iInterface == Edit) hPressX -> VAR[ConfirmXray][InPlace][iPowerLevel]",
    "when (iInterface == Edit) hPressE -> VAR[ConfirmEBeam][OutPlace][iPowerLevel]",
    "when (iInterface == ConfirmXray || iInterface == ConfirmEBeam) hPressUp -> "
    "VAR[Edit][iSpreader][iPowerLevel]",
    "when (iInterface == PrepXray) hPressUp1 -> VAR[ConfirmXray][iSpreader][iPowerLevel]",
    "when (iInterface == PrepEBeam) hPressUp1 -> VAR[ConfirmEBeam][iSpreader][iPowerLevel]",
    "when (iInterface == ConfirmXray) hPressEnter -> VAR[PrepXray][iSpreader][iPowerLevel]",
    "when (iInterface == ConfirmEBeam) hPressEnter -> VAR[PrepEBeam][iSpreader][iPowerLevel]",
    "when (iInterface == PrepXray && iSpreader == InPlace && iPowerLevel == XrayLevel) hPressB -> "
    "VAR[Administered][iSpreader][iPowerLevel]",
    "when (iInterface == PrepEBeam && iSpreader == OutPlace && iPowerLevel == EBeamLevel) hPressB -> "
    "VAR[Administered][iSpreader][iPowerLevel]",
    "when (iInterface == PrepXray && !(iSpreader == InPlace && iPowerLevel == XrayLevel)) hPressB -> "
    "VAR[iInterface][iSpreader][iPowerLevel]",
    "when (iInterface == PrepEBeam && !(iSpreader == OutPlace && iPowerLevel == EBeamLevel)) hPressB -> "
    "VAR[iInterface][iSpreader][iPowerLevel]",
    "when (iPowerLevel == EBeamLevel) mXrayLvl -> VAR[iInterface][iSpreader][XrayLevel]",
    "when (iPowerLevel == XrayLevel) mEBeamLvl -> VAR[iInterface][iSpreader][EBeamLevel]",
    "when (iPowerLevel == NotSet) mInitXray -> VAR[iInterface][iSpreader][XrayLevel]",
    "when (iPowerLevel == NotSet) mInitEBeam -> VAR[iInterface][iSpreader][EBeamLevel]",
};

static const eofm_pair_t therac_init[] = {
    {"iInterface", "Edit", {0}}, {"iSpreader", "OutPlace", {0}}, {"iPowerLevel", "NotSet", {0}}};

/* The world of models/coffee/coffee.json. */
static const char *const coffee_world[] = {
    "when (iMugState == Absent) hPlaceMug -> VAR[iBrewing][Empty][iHandleDown][iPodState]",
    "when (iMugState != Absent) hTakeMug -> VAR[iBrewing][Absent][iHandleDown][iPodState]",
    "when (iHandleDown == True) hLiftHandle -> VAR[iBrewing][iMugState][False][iPodState]",
    "when (iHandleDown == False) hLowerHandle -> VAR[iBrewing][iMugState][True][iPodState]",
    "when (1) hAddOrReplacePod -> VAR[iBrewing][iMugState][iHandleDown][New]",
    "when (iPodState == New) hPressBrew -> VAR[True][iMugState][iHandleDown][EmptyOrUsed]",
    "when (iPodState != New) hPressBrew -> VAR[True][iMugState][iHandleDown][iPodState]",
    "when (iBrewing == True && iMugState == Empty) mBrewDone -> VAR[False][Full][iHandleDown][iPodState]",
    "when (iBrewing == True && iMugState == Absent) mBrewDone -> "
    "VAR[False][iMugState][iHandleDown][iPodState]",
};
static const eofm_pair_t coffee_init[] = {{"iBrewing", "False", {0}},
                                          {"iMugState", "Absent", {0}},
                                          {"iHandleDown", "True", {0}},
                                          {"iPodState", "EmptyOrUsed", {0}}};
static const eofm_pair_t coffee_relabels[] = {{"hWaitBrewDone", "mBrewDone", {0}}};

#define N(a) (sizeof(a) / sizeof *(a))

/* Translates `path` with world w and checks the raw LTS's size. */
static void raw_size(const char *path, const eofm_world_t *w, int states, int trans) {
  diag_list_t d;
  diag_init(&d);
  lts_labels_t L;
  lts_labels_init(&L);
  eofm_t *m = eofm_parse_file(path, &d);
  eofm_plan_t *p = m ? eofm_plan_new(m, w, &d) : NULL;
  bool exceeded;
  lts_t *l = p ? eofm_translate(p, NULL, &L, 0, &exceeded, &d) : NULL;
  if (!l || l->nstates != states || l->ntrans != trans) {
    fprintf(stderr, "%s: expected %d states, %d transitions; got %d, %d\n", path, states, trans,
            l ? l->nstates : -1, l ? l->ntrans : -1);
    for (size_t i = 0; i < d.count; i++)
      fprintf(stderr, "  %s:%d:%d: %s\n", d.items[i].loc.file ? d.items[i].loc.file : "?",
              d.items[i].loc.line, d.items[i].loc.col, d.items[i].message);
    check_failures++;
  }
  lts_free(l);
  eofm_plan_delete(p);
  eofm_free(m);
  lts_labels_free(&L);
  diag_free(&d);
}

/* Parsing `text` fails with `message` at line:col (the first error). */
static void error_at(const char *text, int line, int col, const char *message) {
  diag_list_t d;
  diag_init(&d);
  eofm_t *m = eofm_parse_string("t.xml", text, &d);
  bool ok = !m && d.count > 0 && d.items[0].loc.line == line && d.items[0].loc.col == col &&
            strcmp(d.items[0].message, message) == 0;
  if (!ok) {
    fprintf(stderr, "expected %d:%d: %s\n", line, col, message);
    if (d.count)
      fprintf(stderr, "  got %d:%d: %s\n", d.items[0].loc.line, d.items[0].loc.col, d.items[0].message);
    else
      fprintf(stderr, "  got no error\n");
    check_failures++;
  }
  eofm_free(m);
  diag_free(&d);
}

#define HEAD                                                                                                 \
  "<eofms>\n  <userdefinedtype name=\"TBool\">{False, True}</userdefinedtype>\n  <humanoperator "            \
  "name=\"U\">\n"                                                                                            \
  "    <inputvariable name=\"iX\" userdefinedtype=\"TBool\"/>\n    <humanaction name=\"hA\" "                \
  "behavior=\"autoreset\"/>\n"
#define TAIL "  </humanoperator>\n</eofms>\n"

static void errors(void) {
  error_at("<eofms>\n  <humanoperator name=\"U\">\n  </eofms>\n", 3, 11,
           "malformed XML: opening and ending tag mismatch: humanoperator line 2 and eofms");
  error_at("<eofms>\n<userdefinedtype name=\"T\">{A, B}</userdefinedtype>\n<foo/>\n</eofms>\n", 3, 1,
           "unknown element <foo> in <eofms>");
  error_at(HEAD "    <eofm><activity name=\"aA\">\n      <decomposition operator=\"orr_seq\">\n"
                "        <action humanaction=\"hA\"/>\n      </decomposition>\n    </activity></eofm>\n" TAIL,
           7, 7, "unknown operator 'orr_seq' (did you mean 'or_seq'?)");
  error_at(HEAD "    <eofm><activity name=\"aA\">\n      <precondition>iY == True</precondition>\n"
                "      <decomposition operator=\"ord\"><action humanaction=\"hA\"/></decomposition>\n"
                "    </activity></eofm>\n" TAIL,
           7, 21,
           "precondition of activity 'aA': undefined name 'iY' (not a variable, constant or type value)");
  error_at(HEAD
           "    <eofm><activity name=\"aA\">\n      <decomposition operator=\"ord\">\n"
           "        <action humanaction=\"hPress\"/>\n      </decomposition>\n    </activity></eofm>\n" TAIL,
           8, 9, "action 'hPress' is not a declared human action (add <humanaction name=\"hPress\"/>)");
  error_at(HEAD "    <eofm><activity name=\"aA\">\n      <completioncondition>iX == </completioncondition>\n"
                "      <decomposition operator=\"ord\"><action humanaction=\"hA\"/></decomposition>\n"
                "    </activity></eofm>\n" TAIL,
           7, 28, "completion condition of activity 'aA': expected a name, a number or '(' at 'end'");
}

/* Every EOFM file of the reference tool translates to FSP that compiles,
 * each top-level activity on its own (without a world: the input variables
 * keep their first value; composing all of operators.xml's or pca.xml's
 * top-level activities, which share their actions, is far too large, and
 * benchmark.xml's one activity, an or_par of 16 actions, has about 4^16
 * states: it is only parsed as FSP).
 * therac25.xml is rejected: it uses actions it does not declare. */
static void anchors(void) {
  static const char *const files[] = {"benchmark.xml", "coffee.xml",   "omission1.xml",       "operators.xml",
                                      "pca.xml",       "therac25.xml", "therac25_nowait.xml", "tiny.xml"};
  const char *dir = "../shared/anchors/lts/LTSA-Robust/robustness-calculator/src/main/resources/eofms/";
  struct stat st;
  if (stat(dir, &st) != 0) return;
  for (size_t i = 0; i < N(files); i++) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", dir, files[i]);
    diag_list_t d;
    diag_init(&d);
    lts_labels_t L;
    lts_labels_init(&L);
    eofm_t *m = eofm_parse_file(path, &d);
    eofm_plan_t *p = m ? eofm_plan_new(m, NULL, &d) : NULL;
    char *text = p ? eofm_plan_fsp(p, NULL) : NULL;
    fsp_file_t *f = text ? fsp_parse_string("t.lts", text, &L, &d) : NULL;
    bool ok = f != NULL;
    for (size_t k = 0; f && strcmp(files[i], "benchmark.xml") != 0 && k < eofm_plan_top_count(p); k++) {
      lts_t *l = fsp_compile(f, eofm_plan_top_name(p, k), &d);
      ok &= l != NULL;
      if (l && getenv("EOFM_TEST_VERBOSE"))
        fprintf(stderr, "%s %s: %d states, %d transitions\n", files[i], eofm_plan_top_name(p, k), l->nstates,
                l->ntrans);
      lts_free(l);
    }
    if (strcmp(files[i], "therac25.xml") == 0) {
      CHECK(!m && d.count == 2);
      CHECK(d.count > 0 && d.items[0].loc.line == 83 && d.items[0].loc.col == 53);
      CHECK_STREQ(
          d.count ? d.items[0].message : NULL,
          "action 'hWaitInPlace' is not a declared human action (add <humanaction name=\"hWaitInPlace\"/>)");
    } else if (!ok) {
      fprintf(stderr, "%s does not translate\n", path);
      for (size_t k = 0; k < d.count; k++)
        fprintf(stderr, "  %d:%d: %s\n", d.items[k].loc.line, d.items[k].loc.col, d.items[k].message);
      check_failures++;
    }
    fsp_free(f);
    free(text);
    eofm_plan_delete(p);
    eofm_free(m);
    lts_labels_free(&L);
    diag_free(&d);
  }
}

/* LTSA-Robust's "Potential errors" for the coffee traces (answer keys). */
static const struct {
  const char *sys, *trace, *errors;
} coffee_candidates[] = {
    {"machine.lts", "hLiftHandle, hPressBrew",
     "commission_ABrew, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALiftHandle, omission_AReplacePod, "
     "omission_ALowerHandle"},
    {"machine.lts", "hLiftHandle, hLowerHandle, hLiftHandle, hPressBrew",
     "commission_ABrew, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALiftHandle, omission_AReplacePod, "
     "omission_ALowerHandle"},
    {"machine_r.lts", "hPressBrew", "commission_ABrew, commission_ABrewCoffee, omission_APrepMachine"},
    {"machine_r.lts", "hLiftHandle, hPressBrew",
     "commission_ABrew, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALiftHandle, omission_AReplacePod, "
     "omission_ALowerHandle"},
    {"machine_r.lts", "hLiftHandle, hLowerHandle, hPressBrew",
     "commission_ABrew, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALowerHandle"},
    {"machine_r.lts", "hLiftHandle, hLowerHandle, hLiftHandle, hPressBrew",
     "commission_ABrew, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALiftHandle, omission_AReplacePod, "
     "omission_ALowerHandle"},
    {"machine_r.lts", "hLiftHandle, hLowerHandle, hLiftHandle, hPlaceMug, hPressBrew",
     "commission_ABrew, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALiftHandle, omission_AReplacePod, "
     "omission_ALowerHandle"},
    {"machine_r.lts", "hLiftHandle, hLowerHandle, hLiftHandle, hPlaceMug, hTakeMug",
     "commission_ATakeCoffee, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALiftHandle, omission_AReplacePod, "
     "omission_ALowerHandle, omission_ABrew, omission_AWait"},
    {"machine_r.lts", "hLiftHandle, hLowerHandle, hPlaceMug, hTakeMug",
     "commission_ATakeCoffee, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALowerHandle, omission_ABrew, omission_AWait"},
    {"machine_r.lts", "hLiftHandle, hLowerHandle, hPlaceMug, hPressBrew, hTakeMug",
     "commission_ATakeCoffee, repetition_ABrewCoffee, commission_ABrewCoffee, omission_ABrew, "
     "omission_AWait"},
    {"machine_r.lts", "hLiftHandle, hLowerHandle, hPlaceMug, hPressBrew, mBrewDone, hLiftHandle",
     "commission_ALiftHandle, commission_AAddPod, commission_APrepMachine, repetition_ABrewCoffee, "
     "commission_ABrewCoffee, omission_AWait, omission_ATakeCoffee"},
    {"machine_r.lts", "hLiftHandle, hLowerHandle, hPlaceMug, hPressBrew, mBrewDone, hPressBrew",
     "commission_ABrew, repetition_ABrewCoffee, commission_ABrewCoffee, omission_AWait, "
     "omission_ATakeCoffee, omission_APrepMachine"},
    {"machine_r.lts", "hLiftHandle, hPlaceMug, hPressBrew",
     "commission_ABrew, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALiftHandle, omission_AReplacePod, "
     "omission_ALowerHandle"},
    {"machine_r.lts", "hLiftHandle, hPlaceMug, hTakeMug",
     "commission_ATakeCoffee, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ALiftHandle, omission_AReplacePod, "
     "omission_ALowerHandle, omission_ABrew, omission_AWait"},
    {"machine_r.lts", "hPlaceMug, hPressBrew",
     "commission_ABrew, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod"},
    {"machine_r.lts", "hPlaceMug, hTakeMug",
     "commission_ATakeCoffee, repetition_ABrewCoffee, commission_ABrewCoffee, omission_APrepMachine, "
     "omission_APlaceMug, omission_AAddPod, omission_ABrew, omission_AWait"},
};

/* The candidate errors of every coffee trace equal the reference tool's
 * list, in its order (its matchErrors on the same activity states). */
static void candidates(const eofm_world_t *w) {
  for (size_t i = 0; i < N(coffee_candidates); i++) {
    diag_list_t d;
    diag_init(&d);
    lts_labels_t L;
    lts_labels_init(&L);
    char path[256];
    snprintf(path, sizeof path, "examples/robustness/coffee/%s", coffee_candidates[i].sys);
    fsp_file_t *f = fsp_parse_file(path, &L, &d);
    lts_t *sys = f ? fsp_compile(f, "SYS", &d) : NULL;
    eofm_t *m = eofm_parse_file("examples/robustness/coffee/coffee.xml", &d);
    eofm_plan_t *p = m ? eofm_plan_new(m, w, &d) : NULL;
    bool exceeded;
    lts_t *raw = p ? eofm_translate(p, NULL, &L, 0, &exceeded, &d) : NULL;
    if (!sys || !raw) {
      check_failures++;
      fprintf(stderr, "coffee model does not load\n");
      break;
    }
    int nactions, nalpha, trace[16], len = 0, n;
    int *actions = eofm_plan_actions(p, &L, &nactions);
    lts_t *concise = eofm_concise(sys, raw, actions, nactions);
    int *alpha = robust_interface(sys, concise, &nalpha);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", coffee_candidates[i].trace);
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t && len < 16; t = strtok_r(NULL, ", ", &save))
      trace[len++] = lts_label(&L, t);
    char **errs = eofm_candidate_errors(p, sys, raw, alpha, nalpha, trace, len, &n);
    strbuf_t got;
    strbuf_init(&got);
    for (int k = 0; k < n; k++) strbuf_printf(&got, "%s%s", k ? ", " : "", errs[k]);
    if (strcmp(strbuf_str(&got), coffee_candidates[i].errors) != 0) {
      fprintf(stderr, "candidates of %s with %s\n  want %s\n  got  %s\n", coffee_candidates[i].trace,
              coffee_candidates[i].sys, coffee_candidates[i].errors, strbuf_str(&got));
      check_failures++;
    }
    strbuf_free(&got);
    for (int k = 0; k < n; k++) free(errs[k]);
    free(errs);
    free(alpha);
    free(actions);
    lts_free(concise);
    lts_free(raw);
    lts_free(sys);
    eofm_plan_delete(p);
    eofm_free(m);
    fsp_free(f);
    lts_labels_free(&L);
    diag_free(&d);
  }
}

/* The concise environments the reference tool prints ("Translated LTSA
 * spec:" in the answer keys). */
static const char therac_concise[] = "ENV = (hPressX -> ENV_1 | hPressE -> ENV_1),\n"
                                     "ENV_1 = (hPressEnter -> ENV_2),\n"
                                     "ENV_2 = (hPressB -> END)+{hPressUp, hPressUp1}.\n";
static const char coffee_concise[] = "ENV = (hLiftHandle -> ENV_7 | hPlaceMug -> ENV_1),\n"
                                     "ENV_1 = (hLiftHandle -> ENV_2),\n"
                                     "ENV_2 = (hAddOrReplacePod -> ENV_3),\n"
                                     "ENV_3 = (hLowerHandle -> ENV_4),\n"
                                     "ENV_4 = (hLiftHandle -> ENV_3 | hPressBrew -> ENV_5),\n"
                                     "ENV_5 = (mBrewDone -> ENV_6),\n"
                                     "ENV_6 = (hTakeMug -> ENV),\n"
                                     "ENV_7 = (hPlaceMug -> ENV_2 | hAddOrReplacePod -> ENV_8),\n"
                                     "ENV_8 = (hPlaceMug -> ENV_3 | hLowerHandle -> ENV_9),\n"
                                     "ENV_9 = (hLiftHandle -> ENV_8 | hPlaceMug -> ENV_4).\n";

/* Whether b's error LTS is unreachable from a (a's traces are b's). */
static bool included(const lts_t *a, const lts_t *b) {
  lts_t *err = lts_property(b);
  const lts_t *parts[2] = {a, err};
  lts_t *prod = lts_compose(parts, 2);
  bool ok = prod->error < 0;
  lts_free(prod);
  lts_free(err);
  return ok;
}

/* Our concise environment has the reference's traces and alphabet. */
static void concise(const char *xml, const char *sys_path, const eofm_world_t *w, const char *reference) {
  diag_list_t d;
  diag_init(&d);
  lts_labels_t L;
  lts_labels_init(&L);
  fsp_file_t *f = fsp_parse_file(sys_path, &L, &d);
  lts_t *sys = f ? fsp_compile(f, "SYS", &d) : NULL;
  fsp_file_t *rf = fsp_parse_string("reference.lts", reference, &L, &d);
  lts_t *ref = rf ? fsp_compile(rf, "ENV", &d) : NULL;
  eofm_t *m = eofm_parse_file(xml, &d);
  eofm_plan_t *p = m ? eofm_plan_new(m, w, &d) : NULL;
  bool exceeded;
  lts_t *raw = p ? eofm_translate(p, NULL, &L, 0, &exceeded, &d) : NULL;
  int nactions;
  int *actions = p ? eofm_plan_actions(p, &L, &nactions) : NULL;
  lts_t *ours = sys && raw ? eofm_concise(sys, raw, actions, nactions) : NULL;
  bool ok = ours && ref && ours->nalphabet == ref->nalphabet &&
            memcmp(ours->alphabet, ref->alphabet, (size_t)ref->nalphabet * sizeof(int)) == 0 &&
            included(ours, ref) && included(ref, ours);
  if (!ok) {
    fprintf(stderr, "%s: the concise environment differs from the reference's\n", xml);
    check_failures++;
  }
  free(actions);
  lts_free(ours);
  lts_free(raw);
  lts_free(ref);
  lts_free(sys);
  eofm_plan_delete(p);
  eofm_free(m);
  fsp_free(rf);
  fsp_free(f);
  lts_labels_free(&L);
  diag_free(&d);
}

/* Local variables: aConfirm (precondition lChoice == Left) can only run once
 * aLeft has pressed Left (completion iPressed) and remembered it. The human
 * actions of the translation: hRight* hLeft (hRight | hConfirm)*, 2 states. */
static void local_variables(void) {
  static const char *const world[] = {"when (iPressed == False) hLeft -> VAR[True]"};
  eofm_world_t w = {NULL, 0, world, NULL, 1, NULL, 0};
  diag_list_t d;
  diag_init(&d);
  lts_labels_t L;
  lts_labels_init(&L);
  eofm_t *m = eofm_parse_file("tests/cases/eofm/local.xml", &d);
  eofm_plan_t *p = m ? eofm_plan_new(m, &w, &d) : NULL;
  bool exceeded;
  lts_t *raw = p ? eofm_translate(p, NULL, &L, 0, &exceeded, &d) : NULL;
  int n;
  int *actions = p ? eofm_plan_actions(p, &L, &n) : NULL;
  lts_t *r = raw ? lts_restrict(raw, actions, n) : NULL;
  lts_t *det = r ? lts_determinise(r, false) : NULL;
  lts_t *min = det ? lts_minimise(det) : NULL;
  int left = lts_label(&L, "hLeft"), right = lts_label(&L, "hRight"), confirm = lts_label(&L, "hConfirm");
  CHECK(min && min->nstates == 2 && min->ntrans == 4);
  if (min) {
    int s0 = min->init, s1 = lts_step(min, s0, left);
    CHECK(lts_step(min, s0, confirm) < 0 && lts_step(min, s0, right) == s0);
    CHECK(s1 >= 0 && s1 != s0 && lts_step(min, s1, confirm) == s1 && lts_step(min, s1, right) == s1);
  }
  free(actions);
  lts_free(min);
  lts_free(det);
  lts_free(r);
  lts_free(raw);
  eofm_plan_delete(p);
  eofm_free(m);
  lts_labels_free(&L);
  diag_free(&d);
}

/* The budget: the Therac task model has exactly 5760 states. */
static void budget(const eofm_world_t *w) {
  diag_list_t d;
  diag_init(&d);
  lts_labels_t L;
  lts_labels_init(&L);
  eofm_t *m = eofm_parse_file("examples/robustness/therac/therac25_nowait.xml", &d);
  eofm_plan_t *p = m ? eofm_plan_new(m, w, &d) : NULL;
  bool exceeded = false;
  lts_t *l = p ? eofm_translate(p, NULL, &L, 5759, &exceeded, &d) : NULL;
  CHECK(p && !l && exceeded && d.count == 0);
  lts_free(l);
  l = p ? eofm_translate(p, NULL, &L, 5760, &exceeded, &d) : NULL;
  CHECK(l && !exceeded && l->nstates == 5760);
  lts_free(l);
  eofm_plan_delete(p);
  eofm_free(m);
  lts_labels_free(&L);
  diag_free(&d);
}

int main(void) {
  errors();
  anchors();
  eofm_world_t therac = {therac_init, N(therac_init), therac_world, NULL, N(therac_world), NULL, 0};
  eofm_world_t therac_r = {
      therac_init, N(therac_init), therac_robust_world, NULL, N(therac_robust_world), NULL, 0};
  eofm_world_t coffee = {coffee_init,     N(coffee_init),  coffee_world,      NULL,
                         N(coffee_world), coffee_relabels, N(coffee_relabels)};
  /* answer keys: "Translated EOFM LTS: N states and M transitions." */
  raw_size("examples/robustness/therac/therac25_nowait.xml", &therac, 5760, 35856);
  raw_size("examples/robustness/therac/therac25_nowait.xml", &therac_r, 5536, 33872);
  raw_size("examples/robustness/coffee/coffee.xml", &coffee, 99, 171);
  budget(&therac);
  local_variables();
  concise("examples/robustness/therac/therac25_nowait.xml", "examples/robustness/therac/sys.lts", &therac,
          therac_concise);
  concise("examples/robustness/coffee/coffee.xml", "examples/robustness/coffee/machine.lts", &coffee,
          coffee_concise);
  candidates(&coffee);
  return CHECK_RESULT();
}
