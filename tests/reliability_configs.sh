#!/usr/bin/env bash
# Mutation probe of the configuration loaders (found three defects the fuzz
# harnesses had not: a malformed expect: value, robustify's `method: [..]` and
# a masking config without `kind:` each ran the whole analysis, printed its
# result and only then exited 2). One small example per analysis; every
# top-level key removed in turn, and every `key: value` line's value replaced
# by each of seven malformed values. Each run must end within its budget with
# exit 0, 1, 2, 5 or 10 (never a signal, never 6), and a run that exits 2 (an
# invalid input) must print nothing on stdout: an input is rejected before
# any result is shown, or it is valid.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
python3 - "$ISMV" <<'PY'
import os, re, shutil, subprocess, sys, tempfile
ismv = sys.argv[1]
tmp = tempfile.mkdtemp()  # each example's folder is copied here: the probes never touch examples/
cases = [("masking", "examples/masking/memory3.yaml", []),
         ("robustness", "examples/robustness/abp/abp.yaml", []),
         ("envelope", "examples/envelope/running_example/envelope.yaml", []),
         ("eventb", "examples/eventb/heater.yaml", []),
         ("verify", "examples/robotcar/cautious.yaml", ["--bound", "3"]),
         ("robustify", "examples/robustify/iterations/robustify.yaml", [])]
garbage = ["zzz", "-1", "1e400", '""', "[]", "{}", "nan"]
runs = bad = 0
def run(cmd, path, extra, text, what):
    global runs, bad
    folder = os.path.join(tmp, os.path.dirname(path))
    if not os.path.isdir(folder):
        shutil.copytree(os.path.dirname(path), folder)
    probe = os.path.join(folder, "probe.yaml")
    with open(probe, "w") as f:
        f.write(text)
    runs += 1
    try:
        r = subprocess.run([ismv, cmd, probe, "--timeout", "20"] + extra, capture_output=True, text=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        print(f"FAIL {path}: {what}: no answer after 60 s")
        bad += 1
        return
    finally:
        os.remove(probe)
    why = None
    if r.returncode not in (0, 1, 2, 5, 10):
        why = f"exit {r.returncode}"
    elif r.returncode == 2 and r.stdout.strip():
        why = "exit 2 after printing a result"
    elif r.returncode == 2 and "error" not in r.stderr:
        why = "exit 2 without an error message"
    if why:
        bad += 1
        print(f"FAIL {path}: {what}: {why}\n  stdout: {r.stdout[:200]!r}\n  stderr: {r.stderr[:300]!r}")
for cmd, path, extra in cases:
    lines = open(path).read().split("\n")
    top = [i for i, l in enumerate(lines) if re.match(r"^[A-Za-z_-]+:", l)]
    for j, i in enumerate(top):
        end = top[j + 1] if j + 1 < len(top) else len(lines)
        run(cmd, path, extra, "\n".join(lines[:i] + lines[end:]), f"without {lines[i].split(':')[0]!r}")
    for i, l in enumerate(lines):
        m = re.match(r"^(\s*(?:- )?[A-Za-z_.-]+:\s*)(\S.*)$", l)
        if not m or l.lstrip().startswith("#"):
            continue
        for g in garbage:
            mutated = lines[:]
            mutated[i] = m.group(1) + g
            run(cmd, path, extra, "\n".join(mutated), f"line {i + 1} value {g}")
shutil.rmtree(tmp)
print(f"{runs} runs, {bad} failed")
sys.exit(1 if bad else 0)
PY
