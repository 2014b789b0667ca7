#!/usr/bin/env bash
# `make install` into a staging directory, then use what it installed: the
# program, the man page (rendered by man -l), the bash completion (driven as
# bash would), the zsh completion (syntax), and libismv through its pkg-config
# file (a program that runs the CLI in-process is compiled and run against it).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${MODE:-release}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
make -s install MODE="$mode" DESTDIR="$stage" PREFIX=/usr >/dev/null
root=$stage/usr

# the program
"$root/bin/ismv" --version | grep -qx 'ismv [0-9][0-9.]*'
"$root/bin/ismv" verify examples/robotcar/explorer.yaml --bound 1 --format json >/dev/null && rc=0 || rc=$?
[ "$rc" = 10 ] || { echo "installed ismv verify: exit $rc, expected 10"; exit 1; }

# the man page: renders without warnings, has its sections, names every option of every command
man_txt=$stage/man.txt
MANWIDTH=100 man --warnings -l "$root/share/man/man1/ismv.1" >"$man_txt" 2>"$stage/man.err"
if [ -s "$stage/man.err" ]; then echo "man warnings:"; cat "$stage/man.err"; exit 1; fi
for section in NAME SYNOPSIS DESCRIPTION COMMANDS 'EXIT STATUS'; do
  grep -q "^$section" "$man_txt" || { echo "man page lacks $section"; exit 1; }
done
commands=$("$root/bin/ismv" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')
[ "$(echo "$commands" | wc -l)" -ge 8 ] || { echo "ismv --help lists too few commands: $commands"; exit 1; }
for cmd in $commands; do
  grep -q "ismv $cmd" "$man_txt" || { echo "man page lacks ismv $cmd"; exit 1; }
  for opt in $("$root/bin/ismv" "$cmd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "$opt" "$man_txt" || { echo "man page lacks $cmd $opt"; exit 1; }
  done
done

# bash completion: command names, option names, choice values
bash_out=$(bash -c '
  source "$1"
  complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _ismv; echo "${COMPREPLY[*]}"; }
  complete_words ismv ver
  complete_words ismv verify --for
  complete_words ismv verify --format ""
  complete_words ismv masking --tr
' _ "$root/share/bash-completion/completions/ismv")
expected=$'verify\n--format\ntext json sarif junit html\n--trace'
[ "$bash_out" = "$expected" ] || { echo "bash completion gave:"; echo "$bash_out"; echo "expected:"; echo "$expected"; exit 1; }

# zsh completion: a #compdef file zsh accepts
head -1 "$root/share/zsh/site-functions/_ismv" | grep -qx '#compdef ismv'
if command -v zsh >/dev/null; then zsh -n "$root/share/zsh/site-functions/_ismv"; fi

# the library through pkg-config
cat >"$stage/use.c" <<'C'
#include <stdio.h>
#include "apps/cli.h"
int main(void) {
  char *argv[] = {"ismv", "--version", NULL};
  return cli_main(2, argv, stdout, stderr);
}
C
if [ -f "$root/lib/libismv.a" ]; then
  export PKG_CONFIG_PATH=$root/lib/pkgconfig
  sed -i "s#^prefix=.*#prefix=$root#" "$root/lib/pkgconfig/ismv.pc"
  flags=""
  [ "$mode" = asan ] && flags="-fsanitize=address,undefined"
  # shellcheck disable=SC2046
  cc $flags -o "$stage/use" "$stage/use.c" $(pkg-config --cflags ismv) $(pkg-config --libs --static ismv)
  "$stage/use" | grep -qx 'ismv [0-9][0-9.]*'
fi
echo "install: ok"
