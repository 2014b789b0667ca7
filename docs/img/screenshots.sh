#!/usr/bin/env bash
# Redraws the README's screenshots of an ismv report (make screenshots):
# docs/img/report-verify.png (the thermostat at bound 3 with its simulation)
# and docs/img/report-robustness.png (the Therac-25 design comparison), by
# headless Chromium (./setup.sh --deps installs it).
#   bash docs/img/screenshots.sh build/release/ismv
set -eu
cd "$(dirname "$0")/../.."
ismv=${1:-build/release/ismv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
m=examples/thermostat/thermostat.yaml
"$ismv" verify $m --bound 3 --format json -o "$tmp/v.json" || [ $? = 10 ]
"$ismv" simulate $m --bound 3 --runs 2000 --format json -o "$tmp/s.json"
(cd "$tmp" && "$OLDPWD/$ismv" report v.json s.json --model "$OLDPWD/$m" -o verify.html)
"$ismv" robustness examples/robustness/therac/design.yaml --format html -o "$tmp/robustness.html"
for page in verify robustness; do
  timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile" \
    --window-size=1100,1300 --screenshot="docs/img/report-$page.png" "file://$tmp/$page.html" 2>/dev/null
  echo "docs/img/report-$page.png: $(wc -c <"docs/img/report-$page.png") bytes"
done
