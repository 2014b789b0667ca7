#!/usr/bin/env bash
# The report pages in headless Chromium (Debian's chromium, installed by
# ./setup.sh --deps): each page loads with no console message at all (a
# script error is logged as "CONSOLE ... Uncaught ..."), its script runs to
# the end (it marks <html data-ready="yes">), the DOM holds every failure
# class, counterexample and trace of the JSON, and clicking a
# counterexample's "show on the drawing" highlights exactly its rules and
# states. Screenshots for review go to build/report/*.png. Every Chromium
# run is under `timeout 60`; as root Chromium needs --no-sandbox.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
if ! command -v chromium >/dev/null; then
  echo "SKIP: chromium is not installed (./setup.sh --deps installs it)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p build/report
failed=0
fail() { echo "FAIL $*"; failed=1; }
chrome() { # PAGE, then chromium's own arguments
  local page=$1
  shift
  timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr --v=0 \
    --user-data-dir="$tmp/profile" "$@" "file://$page"
}
# dump PAGE NAME: the DOM after the scripts ran into $tmp/NAME.dom; fails on any console message
dump() {
  chrome "$1" --dump-dom >"$tmp/$2.dom" 2>"$tmp/$2.log" || fail "$2: chromium exit $?"
  if grep -E "CONSOLE|Uncaught" "$tmp/$2.log"; then fail "$2: console messages"; fi
  grep -q '<html[^>]* data-ready="yes"' "$tmp/$2.dom" || fail "$2: the script did not run to its end"
}

m=examples/thermostat/thermostat.yaml
timeout 120 "$ISMV" verify $m --bound 3 --format json -o "$tmp/v.json" 2>/dev/null
timeout 120 "$ISMV" simulate $m --bound 3 --runs 2000 --format json -o "$tmp/s.json" 2>/dev/null
"$ISMV" report "$tmp/v.json" "$tmp/s.json" --model $m -o "$tmp/verify.html" || fail "report verify"
dump "$tmp/verify.html" verify
python3 - "$tmp/verify.dom" "$tmp/v.json" <<'EOF' || fail "verify: DOM lacks classes or counterexamples"
import json, sys
dom, res = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
missing = ["class %d" % (k + 1) for k in range(len(res["classes"])) if 'id="r1-class-%d"' % (k + 1) not in dom]
missing += ["counterexample %d" % c["id"] for c in res["counterexamples"] if 'id="r1-cex-%d"' % c["id"] not in dom]
missing += ["scatter"] if dom.count("<circle") != sum(not r["boundary_only"] for r in json.load(open(sys.argv[2].replace("v.json", "s.json")))["rows"]) else []
if missing or not res["counterexamples"]:
    sys.exit("missing: %s" % missing)
EOF
# a click on the second counterexample's button: its rules and states become the highlighted ones
sed 's|</body>|<script>var b = document.querySelectorAll("button.show")[1]; b.click(); document.body.setAttribute("data-want", b.getAttribute("data-ids")); document.body.setAttribute("data-got", Array.prototype.map.call(document.querySelectorAll("figure .hl"), function (e) { return e.id; }).join(" "));</script></body>|' \
  "$tmp/verify.html" >"$tmp/click.html"
dump "$tmp/click.html" click
python3 - "$tmp/click.dom" <<'EOF' || fail "click: the highlight does not follow the button"
import re, sys
dom = open(sys.argv[1]).read()
want = re.search(r'data-want="([^"]*)"', dom).group(1).split()
got = re.search(r'data-got="([^"]*)"', dom).group(1).split()
if not want or sorted(want) != sorted(got) or 'class="cex current"' not in dom.replace("cex  current", "cex current"):
    sys.exit("want %s, got %s" % (want, got))
EOF
chrome "$tmp/verify.html" --window-size=1280,2000 --screenshot=build/report/verify.png >/dev/null 2>&1 ||
  fail "verify screenshot"

"$ISMV" robustness examples/robustness/abp/abp.yaml --format json -o "$tmp/r.json" 2>/dev/null
"$ISMV" envelope examples/envelope/therac25/therac25_vs_therac20.yaml --format json -o "$tmp/e.json" 2>/dev/null
"$ISMV" masking examples/masking/brp-n1-m1.yaml --format json -o "$tmp/m.json" 2>/dev/null
"$ISMV" eventb examples/eventb/heater.yaml --format json -o "$tmp/b.json" 2>/dev/null
"$ISMV" report "$tmp/r.json" "$tmp/e.json" "$tmp/m.json" "$tmp/b.json" -o "$tmp/lts.html" || fail "report lts"
dump "$tmp/lts.html" lts
python3 - "$tmp/lts.dom" "$tmp/r.json" "$tmp/b.json" <<'EOF' || fail "lts: DOM lacks traces or checks"
import json, sys
dom, r, b = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
missing = ["trace %d" % (k + 1) for k in range(len(r["traces"])) if 'id="r1-trace-%d"' % (k + 1) not in dom]
missing += [c for k, c in enumerate(b["checks"]) if 'id="r4-check-%d"' % (k + 1) not in dom or ">%s<" % c not in dom]
if missing:
    sys.exit("missing: %s" % missing)
EOF
"$ISMV" robustness examples/robustness/therac/design.yaml --format html -o "$tmp/robustness.html" 2>/dev/null
chrome "$tmp/robustness.html" --window-size=1280,2000 --screenshot=build/report/robustness.png >/dev/null 2>&1 ||
  fail "robustness screenshot"
for png in verify robustness; do
  [ "$(head -c 8 build/report/$png.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png.png is no PNG"
done
[ $failed = 0 ] && echo "ok: pages load without console messages; screenshots in build/report/"
exit $failed
