/* The exit-code decision (cli_exit_code) against the contract of
 * DESIGN.md, over every combination of its inputs: 0 only for a complete
 * run that holds (or whose violations the filters all dropped), or when
 * expectations that state the verdict hold; failed expectations are 10;
 * malformed ones 2; nothing else turns inconclusive or violated into 0. */
#include "apps/cli.h"

#include "tests/unit/check.h"

static const int analyses[] = {CLI_EXIT_OK, CLI_EXIT_VIOLATION, CLI_EXIT_INCONCLUSIVE, CLI_EXIT_INTERNAL};
static const int expects[] = {-1, CLI_EXIT_OK, CLI_EXIT_VIOLATION, CLI_EXIT_INVALID};
static const size_t founds[][2] = {{0, 0}, {3, 0}, {3, 1}, {3, 3}};

static void one(int analysis, bool complete, const size_t fk[2], int expect, bool verdict) {
  cli_outcome_t o = {analysis, complete, fk[0], fk[1], expect, verdict, false, false};
  int rc = cli_exit_code(&o);
  bool holds = analysis == CLI_EXIT_OK || (analysis == CLI_EXIT_VIOLATION && fk[0] > 0 && fk[1] == 0);
  if (analysis == CLI_EXIT_INTERNAL) {
    CHECK(rc == CLI_EXIT_INTERNAL);
    return;
  }
  if (expect == CLI_EXIT_INVALID) CHECK(rc == CLI_EXIT_INVALID);
  if (expect == CLI_EXIT_VIOLATION) CHECK(rc == CLI_EXIT_VIOLATION);
  if (expect == CLI_EXIT_OK && verdict) CHECK(rc == CLI_EXIT_OK);
  if (expect < 0 || (expect == CLI_EXIT_OK && !verdict)) {
    int want = !holds ? analysis : complete ? CLI_EXIT_OK : CLI_EXIT_INCONCLUSIVE;
    if (rc != want)
      fprintf(stderr, "analysis %d complete %d found %zu kept %zu expect %d verdict %d: %d\n", analysis,
              complete, fk[0], fk[1], expect, verdict, rc);
    CHECK(rc == want);
  }
  /* the invariant itself, stated once more without the cases above */
  if (rc == CLI_EXIT_OK) CHECK((expect == CLI_EXIT_OK && verdict) || (holds && complete));
}

int main(void) {
  for (size_t a = 0; a < sizeof analyses / sizeof *analyses; a++)
    for (int complete = 0; complete < 2; complete++)
      for (size_t f = 0; f < sizeof founds / sizeof *founds; f++)
        for (size_t e = 0; e < sizeof expects / sizeof *expects; e++)
          for (int verdict = 0; verdict < 2; verdict++)
            one(analyses[a], complete, founds[f], expects[e], verdict);
  /* an interrupted run is 5 whatever it found, errors aside */
  for (size_t a = 0; a < 3; a++) {
    cli_outcome_t o = {analyses[a], false, 3, 3, -1, false, true, false};
    CHECK(cli_exit_code(&o) == CLI_EXIT_INCONCLUSIVE);
  }
  /* a run a size limit ended is 5, the error it reported included; usage
   * and internal errors stay */
  const int limited[] = {CLI_EXIT_OK,      CLI_EXIT_VIOLATION, CLI_EXIT_INCONCLUSIVE,
                         CLI_EXIT_INVALID, CLI_EXIT_USAGE,     CLI_EXIT_INTERNAL};
  for (size_t a = 0; a < sizeof limited / sizeof *limited; a++)
    for (size_t e = 0; e < sizeof expects / sizeof *expects; e++)
      for (int verdict = 0; verdict < 2; verdict++) {
        cli_outcome_t o = {limited[a], true, 0, 0, expects[e], verdict, false, true};
        int want = limited[a] == CLI_EXIT_USAGE || limited[a] == CLI_EXIT_INTERNAL ? limited[a]
                                                                                   : CLI_EXIT_INCONCLUSIVE;
        CHECK(cli_exit_code(&o) == want);
      }
  /* without the limit, an invalid run stays invalid */
  cli_outcome_t invalid = {CLI_EXIT_INVALID, true, 0, 0, -1, false, false, false};
  CHECK(cli_exit_code(&invalid) == CLI_EXIT_INVALID);
  return CHECK_RESULT();
}
