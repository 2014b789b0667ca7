#!/usr/bin/env bash
# The default (joint) probabilities against `ismv simulate`, whose executor
# (probability/forward.c) shares nothing with the estimator but the model
# loader, the expression evaluator and the distributions: on the bundled
# robot-car apps at bounds 2-4, at least 19 of the 20 most likely
# counterexamples (of positive probability) lie in the 95% interval of 10000
# simulated runs, Spearman's correlation is at least 0.95 where it is defined
# (or within 0.05 of the correlation of two independent simulations, when
# the predictions are closer together than the simulation can resolve: see
# docs/probability.md), and no boundary-only counterexample (the first 20
# simulated) is ever observed. The wall-follower's counterexamples are all boundary-only; the
# cautious explorer has none in mode actual. Bounds 5 and 6 take tens of seconds;
# docs/probability.md has their numbers. Run by tests/run.sh (one test).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for app in explorer wall-follower cautious; do
  for bound in 2 3 4; do
    "$ISMV" simulate "examples/robotcar/$app.yaml" --bound "$bound" --top 20 --runs 10000 --format csv >"$tmp/out.csv" 2>"$tmp/err"
    rc=$?
    if [ $rc != 0 ] && [ $rc != 10 ]; then echo "$app bound $bound: exit $rc" >&2; cat "$tmp/err" >&2; status=1; continue; fi
    "$ISMV" simulate "examples/robotcar/$app.yaml" --bound "$bound" --top 20 --runs 10000 --seed 2 --format csv >"$tmp/out2.csv" 2>/dev/null
    python3 - "$tmp/out.csv" "$app" "$bound" "$tmp/out2.csv" <<'PY' || status=1
import csv, sys
allrows = list(csv.DictReader(open(sys.argv[1])))
rows = [r for r in allrows if r["boundary_only"] == "no"]
boundary = [r for r in allrows if r["boundary_only"] == "yes"]
seen = sum(int(r["same_failure"]) for r in boundary)
name = "%s bound %s" % (sys.argv[2], sys.argv[3])
def ranks(x):
    order = sorted(range(len(x)), key=lambda i: x[i])
    r = [0.0] * len(x)
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r
def spearman(x, y):
    if len(x) < 2:
        return None
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return None if sxx == 0 or syy == 0 else sxy / (sxx * syy) ** 0.5
agree = sum(r["agrees"] == "yes" for r in rows)
need = min(19, len(rows)) if len(rows) >= 20 else len(rows)
rho = spearman([float(r["predicted"]) for r in rows], [float(r["observed"]) for r in rows])
rows2 = [r for r in csv.DictReader(open(sys.argv[4])) if r["boundary_only"] == "no"]
assert [r["path"] for r in rows2] == [r["path"] for r in rows]
ceiling = spearman([float(r["observed"]) for r in rows2], [float(r["observed"]) for r in rows])
show = lambda r: "undefined" if r is None else "%.4f" % r
print("%s: %d ranked counterexamples simulated, %d agree, Spearman %s (two simulations: %s); %d boundary-only, observed %d times" %
      (name, len(rows), agree, show(rho), show(ceiling), len(boundary), seen))
ok = agree >= need and seen == 0 and (rho is None or rho >= 0.95 or (ceiling is not None and rho >= ceiling - 0.05))
sys.exit(0 if ok else 1)
PY
  done
done
exit $status
