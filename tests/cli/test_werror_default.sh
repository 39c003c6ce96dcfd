#!/usr/bin/env bash
# A user's plain `cmake -DCMAKE_BUILD_TYPE=Release` must not make warnings
# fatal (a newer compiler's new warning would break their build): a fresh
# configure of the source tree has PTXJIT_WERROR off and -Werror in no
# target's flags.  CI and scripts/ turn it on themselves.
# Usage: test_werror_default.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! cmake -S "$src" -B "$tmp" -DCMAKE_BUILD_TYPE=Release >"$tmp.log" 2>&1; then
    echo "FAIL: a plain configure failed:"; sed 's/^/  | /' "$tmp.log"; rm -f "$tmp.log"; exit 1
fi
rm -f "$tmp.log"
fails=0
grep -q '^PTXJIT_WERROR:BOOL=OFF$' "$tmp/CMakeCache.txt" ||
    { echo "FAIL: PTXJIT_WERROR is not off by default"; fails=1; }
flagged=$(grep -rl -e '-Werror' --include=flags.make "$tmp")
[ -z "$flagged" ] || { echo "FAIL: -Werror in a default build's flags:"; echo "$flagged"; fails=1; }
[ "$fails" = 0 ] && echo "werror default: off"
exit "$fails"
