#!/usr/bin/env bash
# The Dockerfile is not built here (no Docker engine on the project's machines,
# docs/ci.md), so its package lists are checked against what they must cover:
# the build stage installs through ./setup.sh --build-deps (the one list of
# build packages), and the run stage installs the Debian package of every
# shared library the built binary names as NEEDED (apt brings their own
# dependencies), except those debian:bookworm-slim already has. A library added
# to the link line without its runtime package in the image fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -q '^RUN \./setup\.sh --build-deps' Dockerfile || { echo "Dockerfile: the build stage does not run ./setup.sh --build-deps"; exit 1; }
grep -q '^FROM debian:bookworm-slim AS build' Dockerfile && [ "$(grep -c '^FROM debian:bookworm-slim' Dockerfile)" = 2 ] ||
  { echo "Dockerfile: expected two debian:bookworm-slim stages"; exit 1; }
grep -q '^USER ismv' Dockerfile || { echo "Dockerfile: does not run as the unprivileged user"; exit 1; }
if ! command -v readelf >/dev/null || ! command -v dpkg-query >/dev/null; then
  echo "skipped: no readelf or dpkg on this machine"
  exit 0
fi
# the run stage's apt-get install list (the packages up to the next &&)
runtime=$(awk '/^FROM debian:bookworm-slim$/ {run = 1} run' Dockerfile |
  sed -n '/apt-get install/,/&&/p' | tr ' \\' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' |
  grep -vxE 'apt-get|install|rm|useradd|DEBIAN_FRONTEND=noninteractive')
base="libc6 libstdc++6 libgcc-s1" # in debian:bookworm-slim (apt needs them)
n=0
# (an ASan build's sanitizer runtimes are not the image's business)
for lib in $(readelf -d "$ISMV" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -vE '^lib(a|ub|t|l)san\.'); do
  path=$(ldd "$ISMV" | awk -v l="$lib" '$1 == l {print $3}')
  [ -n "$path" ] || { echo "$lib: not found by ldd"; exit 1; }
  pkg=$(dpkg-query -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) ||
    pkg=$(dpkg-query -S "$path" | head -1 | cut -d: -f1)
  n=$((n + 1))
  case " $base " in *" $pkg "*) continue ;; esac
  echo "$runtime" | grep -qx "$pkg" || { echo "Dockerfile: the run stage lacks $pkg (for $lib)"; exit 1; }
done
[ "$n" -ge 5 ] || { echo "only $n NEEDED libraries found"; exit 1; }
echo "dockerfile: the run stage installs the packages of all $n libraries ismv links (or the base image has them)"
