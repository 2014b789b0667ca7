"""The driver of the random differential tests (tests/random_*.py): runs
check(ismv, seed, workdir) for each seed of the command line (ISMV FIRST COUNT),
each in a temporary directory that is kept, and named, when the check reports
problems (a list of strings; None skips the seed: no model drawn), and prints
a summary line. Returns the exit code: 1 when some model disagrees."""
import shutil
import sys
import tempfile


def run(check, prefix, summary=""):
    ismv, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    failed = checked = 0
    for seed in range(first, first + count):
        d = tempfile.mkdtemp(prefix="%s%d." % (prefix, seed))
        problems = check(ismv, seed, d)
        if problems:
            checked += 1
            failed += 1
            print("seed %d: FAIL (files in %s)" % (seed, d))
            for p in problems[:8]:
                print("  " + p)
            continue
        checked += problems is not None
        shutil.rmtree(d, ignore_errors=True)
    print("%d models checked, %d failed%s" % (checked, failed, summary() if callable(summary) else summary))
    return 1 if failed else 0
