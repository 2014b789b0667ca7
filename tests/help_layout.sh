#!/usr/bin/env bash
# `ismv COMMAND --help` lays its options out as GNU tools do (issue 11): the
# option from column 3, its description from column 36 wrapped within 79
# columns; an option too long for its column (masking's
# `-f, --format text|json|sarif|dot|html`) stands alone, its description on
# the next line. Every command, every line of its options section.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
export LC_ALL=C.UTF-8 # awk counts characters (τ is one column)
fail=0
cmds=$("$ISMV" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ "$(echo "$cmds" | wc -w)" -ge 8 ] || { echo "FAIL: commands not found in ismv --help"; exit 1; }
for c in $cmds; do
  "$ISMV" "$c" --help >"$c.help.$$" 2>&1 || { echo "FAIL: $c --help: exit $?"; fail=1; }
  sed -n '/^options:/,/^exit codes:/p' "$c.help.$$" | sed '1d;$d' | awk -v c="$c" '
    /^$/ { next }
    length($0) > 79 { print "FAIL: " c ": line of " length($0) " columns: " $0; bad = 1 }
    /^  -/ || /^      --/ {
      n++
      left = $0; sub(/^ +/, "", left); sub(/   .*/, "", left) # the option, up to its column gap
      left = substr($0, 1, index($0, left) - 1) left
      if (length(left) > 34 && left != $0) { print "FAIL: " c ": text after an overlong option: " $0; bad = 1 }
      if (length(left) <= 34 && length($0) > 34 && substr($0, 36, 1) == " ") {
        print "FAIL: " c ": description not at column 36: " $0; bad = 1
      }
      alone = left == $0
      next
    }
    substr($0, 1, 35) ~ /^ +$/ && substr($0, 36, 1) != " " { alone = 0; next }
    { print "FAIL: " c ": neither an option nor a description line: " $0; bad = 1 }
    END {
      if (n < 3) { print "FAIL: " c ": " n " options"; bad = 1 }
      if (alone) { print "FAIL: " c ": the last option has no description"; bad = 1 }
      exit bad
    }' || fail=1
  rm -f "$c.help.$$"
done
# the case of the issue: the description below the option, nothing cut
"$ISMV" masking --help >"$$.m"
grep -A1 -- '^  -f, --format text|json|sarif|dot|html$' "$$.m" | tail -1 |
  grep -q "^$(printf '%35s' '')output format; dot: the game graph; html:\$" || {
  echo "FAIL: masking --format's description is not on the next line at column 36"
  fail=1
}
rm -f "$$.m"
exit $fail
