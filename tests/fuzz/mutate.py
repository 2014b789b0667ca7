#!/usr/bin/env python3
"""Mutation fuzzing of ismv's front ends (not part of `make check`).

Mutates bundled inputs (byte flips, deletions, inserted syntax, copied
chunks) and runs ismv on each; any exit code other than 0, 1, 2, 5 or 10
(a crash, a sanitizer report, an internal error), and a run past 20 s, is
kept as /tmp/ismv-fuzz/crashN.* and printed. The standing gate is the
libFuzzer harnesses (`make fuzz`, docs/reliability.md); this script is the
quick look.

  python3 tests/fuzz/mutate.py yaml 400              # ISM and Event-B models via `ismv check`
  python3 tests/fuzz/mutate.py fsp 200               # FSP files via `ismv robustness`
  ISMV=build/asan/ismv ASAN_OPTIONS=exitcode=99 UBSAN_OPTIONS=exitcode=98 python3 tests/fuzz/mutate.py yaml 150
"""
import glob, os, random, shutil, subprocess, sys

OK = {0, 1, 2, 5, 10}
TOKENS = {
    "yaml": [b"{", b"}", b"[", b"]", b":", b'"', b"'", b" and ", b"*", b"/0", b"-", b"\n  ", b"x'", b"1e999",
             b"if ", b"(", b")"],
    "fsp": [b"(", b")", b"[", b"]", b"->", b"|", b"||", b".", b",", b"..", b"when ", b"if ", b"\\{", b"@{",
            b"/{", b"+{", b"property ", b"const N = ", b"range R = 0..", b"P[i:R]", b"STOP", b"ERROR", b"-1",
            b"999999999999"],
}


def mutate(data, tokens, rng):
    for _ in range(rng.randint(1, 4)):
        pos = rng.randrange(len(data))
        op = rng.random()
        if op < 0.3:
            data[pos] = rng.randrange(32, 127)
        elif op < 0.5:
            del data[pos:pos + rng.randint(1, 20)]
        elif op < 0.7:
            data[pos:pos] = rng.choice(tokens)
        else:
            j = rng.randrange(len(data))
            data[pos:pos] = data[j:j + rng.randint(1, 30)]
        if not data:
            data.extend(b"x")
    return data


def main():
    kind, iterations = sys.argv[1], int(sys.argv[2])
    ismv = os.environ.get("ISMV", "build/release/ismv")
    out = "/tmp/ismv-fuzz"
    os.makedirs(out, exist_ok=True)
    rng = random.Random(int(os.environ.get("SEED", "7")))
    if kind == "yaml":
        seeds = sorted(glob.glob("examples/robotcar/*.yaml") + glob.glob("examples/eventb/*.yaml") +
                       glob.glob("tests/models/verify/*.yaml"))
    else:
        seeds = sorted(glob.glob("examples/robustness/*/*.lts") + glob.glob("examples/envelope/*/*.lts"))
        for f in glob.glob("examples/robustness/abp/*.lts"):
            shutil.copy(f, out)
        with open(os.path.join(out, "cfg.yaml"), "w") as f:
            f.write("kind: robustness\nsystem: sys.lts\nenvironment: abp_env.lts\nproperty: p.lts\n"
                    "deviation: abp_env_lossy.lts\n")
    crashes = 0
    for _ in range(iterations):
        src = rng.choice(seeds)
        data = mutate(bytearray(open(src, "rb").read()), TOKENS[kind], rng)
        if kind == "yaml":
            case = os.path.join(out, "case.yaml")
            cmd = [ismv, "check", case]
        else:
            case = os.path.join(out, "sys.lts")
            cmd = [ismv, "robustness", os.path.join(out, "cfg.yaml")]
        open(case, "wb").write(bytes(data))
        try:
            r = subprocess.run(cmd, capture_output=True, timeout=20)
            code, err = r.returncode, r.stderr
        except subprocess.TimeoutExpired as e:
            # a hang is a failure too: every limit must end in exit 5 or an error
            code, err = "timeout (20 s)", e.stderr or b""
        if code not in OK:
            crashes += 1
            keep = os.path.join(out, "crash%d%s" % (crashes, os.path.splitext(case)[1]))
            shutil.copy(case, keep)
            print("exit", code, "from", src, "kept as", keep)
            print(err.decode(errors="replace")[-400:])
    print("%d inputs, %d failures (crashes, internal errors, timeouts)" % (iterations, crashes))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
