#!/usr/bin/env bash
# One command on a fresh Debian bookworm machine: install what is missing,
# build ismv, and run `ismv verify` on the bundled robot-car explorer.
#   ./setup.sh            install (as root) or print the install line, build, run the example
#   ./setup.sh --deps     only make sure the dependencies (build and test) are installed
#   ./setup.sh --build-deps   only what building ismv needs (used by the GitHub Action)
#   ./setup.sh --mpi      only Open MPI, for `make MPI=1` (ismv-mpi: verify over MPI ranks,
#                         docs/scale-out.md; make builds it by default once mpicc is installed)
set -euo pipefail
cd "$(dirname "$0")"
build_packages=(build-essential pkg-config libz3-dev libgsl-dev libyaml-dev libxml2-dev libgraphviz-dev)
# for `make check`, the fuzz harnesses and the benchmarks: scripts, GNU time, man -l,
# zsh -n, clang with libFuzzer, python3-jsonschema for the JSON schema test, headless Chromium for
# the HTML reports (tests/report_browser.sh)
test_packages=(python3 python3-jsonschema time man-db zsh clang-14 libclang-rt-14-dev chromium)
packages=("${build_packages[@]}" "${test_packages[@]}")
mpi_packages=(libopenmpi-dev openmpi-bin)
[ "${1:-}" = --build-deps ] && packages=("${build_packages[@]}")
[ "${1:-}" = --mpi ] && packages=("${mpi_packages[@]}")
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
[ "${1:-}" = --build-deps ] && exit 0
[ "${1:-}" = --mpi ] && exit 0
# Microsoft's SARIF Multitool (npm) validates the SARIF ismv writes, in `make check`
# (tests/sarif_validate.sh); it goes to .tools/, outside build/ so `make clean` keeps it.
multitool=.tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ ! -x "$multitool" ]; then
  if ! command -v npm >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      echo "setup: installing nodejs npm"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
    else
      echo "setup: npm is missing (for the SARIF Multitool); install it with:" >&2
      echo "  sudo apt-get install -y nodejs npm" >&2
      exit 1
    fi
  fi
  echo "setup: installing the SARIF Multitool into .tools/"
  npm install --prefix .tools --no-audit --no-fund --loglevel=error @microsoft/sarif-multitool@5.7.0 >/dev/null
  chmod u+x "$multitool"
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
