#!/usr/bin/env bash
# Fortis's robustness modes --unsafe, --expand and --disables against the
# reference tool's own unit tests (fortis-core: RobustnessCalculatorTests,
# RobustnessComputationServiceImplTests; their model files are copied
# unchanged into examples/robustness/fortis-tests/) and LTSA-Robust's
# README (--unsafe on the perfect channel: 8 classes). The expected sets
# below are those tests' literals; labels are printed send[0] where Fortis
# writes send.0.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
D=examples/robustness/fortis-tests
fail=0
check() { # name, python program reading the JSON report on stdin, ismv arguments...
  local name=$1 prog=$2
  shift 2
  local out
  out=$("$ISMV" robustness "$@" --format json 2>/dev/null)
  if ! printf '%s' "$out" | python3 -c "$prog"; then
    echo "FAIL $name"
    fail=1
  fi
}
py_common='
import json, sys
d = json.load(sys.stdin)
def words(traces): return {tuple(t["trace"]) for t in traces}
def expanded(traces): return [tuple(p["trace"]) for t in traces for p in t["expanded"]]
def has_prefix(pre, ts): return any(t[:len(pre)] == tuple(pre) for t in ts)
def want(cond, what):
    if not cond:
        print("  not as Fortis:", what); sys.exit(1)
'

# testTheracUnsafe: one unsafe class x up e enter b, explained x commission up e enter b
check therac_unsafe "$py_common
u = d['unsafe']['traces']
want(words(u) == {('x','up','e','enter','b')}, words(u))
want(u[0]['explanation'] == ['x','commission','up','e','enter','b'], u[0]['explanation'])
" $D/therac_unsafe.yaml --unsafe

# testTherac: the 8 representative traces
check therac "$py_common
want(words(d['traces']) == {('x','up'),('e','up'),('x','enter','up'),('e','enter','up'),
  ('x','enter','b','enter','e','up'),('e','enter','b','enter','x','up'),
  ('x','enter','b','enter','e','enter','up'),('e','enter','b','enter','x','enter','up')}, words(d['traces']))
" $D/therac.yaml

# testTheracExpand / testTheracRExpand: prefixes of the expanded traces
check therac_expand "$py_common
e = expanded(d['traces'])
want(has_prefix(['x','up','x'], e), 'x up x')
want(not has_prefix(['x','up','e','enter','b'], e), 'no x up e enter b')
want(has_prefix(['e','up','e'], e), 'e up e')
want(has_prefix(['e','up','x','enter','b'], e), 'e up x enter b')
" $D/therac.yaml --expand
check therac_r_expand "$py_common
want(d['classes'] == 6, d['classes'])
e = expanded(d['traces'])
for p in (['x','up','x'], ['x','up','e','enter','b'], ['e','up','e'], ['e','up','x','enter','b']):
    want(has_prefix(p, e), p)
" $D/therac_r.yaml --expand

# testCompareTheracExpand: what sys_r tolerates beyond sys, expanded over sys_r's assumption
check therac_compare_expand "$py_common
want(words(d['b_not_a']['traces']) == {('x','up','e','enter','b')}, d['b_not_a'])
want(has_prefix(['x','up','e','enter','b'], expanded(d['b_not_a']['traces'])), 'expanded b_not_a')
want(d['a_not_b']['classes'] == 0, d['a_not_b'])
" $D/therac_compare.yaml --expand

# testSimpleProtocolExpand: the naive protocol's 6 classes expand to these 12 traces
check naive_expand "$py_common
s = lambda t: tuple(t.replace('.0', '[0]').replace('.1', '[1]').split())
want(set(expanded(d['traces'])) == {s(t) for t in [
  'send.0 rec.0 ack.1 getack.0', 'send.0 rec.0 ack.0 getack.1', 'send.1 rec.1 ack.0 getack.1',
  'send.1 rec.1 ack.1 getack.0', 'send.0 rec.1 ack.1 getack.0', 'send.0 rec.1 ack.1 getack.1',
  'send.0 rec.1 ack.0 getack.0', 'send.0 rec.1 ack.0 getack.1', 'send.1 rec.0 ack.0 getack.1',
  'send.1 rec.0 ack.0 getack.0', 'send.1 rec.0 ack.1 getack.1', 'send.1 rec.0 ack.1 getack.0']}, expanded(d['traces']))
want(len(expanded(d['traces'])) == 12, 'duplicates')
" examples/robustness/abp/naive_fortis.yaml --expand

# LTSA-Robust (master) README: --unsafe on the perfect channel, minimised, 8 classes
check perfect_unsafe "$py_common
want(d['unsafe']['classes'] == 8, d['unsafe']['classes'])
" examples/robustness/abp/naive.yaml --unsafe

# --disables by hand (disables.yaml): traces b and a a
check disables "$py_common
want(words(d['traces']) == {('b',), ('a','a')}, words(d['traces']))
" $D/disables.yaml --disables

exit $fail
