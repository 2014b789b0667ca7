#!/usr/bin/env bash
# One command on a fresh Debian bookworm machine: install what is missing,
# build ismv, and run `ismv verify` on the bundled robot-car explorer.
#   ./setup.sh            install (as root) or print the install line, build, run the example
#   ./setup.sh --deps     only make sure the dependencies are installed
set -euo pipefail
cd "$(dirname "$0")"
packages=(build-essential pkg-config libz3-dev libgsl-dev libyaml-dev python3 time clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "setup: missing packages; install them with:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
[ "${1:-}" = --deps ] && exit 0
make -j"$(nproc)"
echo "setup: built build/release/ismv; running the robot-car explorer at bound 4:"
set +e
build/release/ismv verify examples/robotcar/explorer.yaml --bound 4 --top 3
rc=$?
set -e
# 10 = counterexamples found, which is what this example shows.
[ $rc = 0 ] || [ $rc = 10 ] || exit $rc
echo "setup: done (exit code $rc: 10 means the verifier found counterexamples; see README)"
