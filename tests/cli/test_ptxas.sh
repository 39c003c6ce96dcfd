#!/usr/bin/env bash
# Toolkit-only cross-check: NVIDIA's ptxas must accept every corpus file
# after ptxjit has printed it, so the printer writes real PTX.  Exits 77
# (skipped) when ptxas is absent.
set -u
ptxjit=$1
tests=$2
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
if [ ! -x "$ptxas" ]; then
    echo "SKIP: $ptxas not found (CUDA toolkit absent); printer not cross-checked"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0 skipped=0
while IFS= read -r f; do
    sm=$(sed -n 's/^\.target[[:space:]]*\(sm_[0-9]*[af]\{0,1\}\).*/\1/p' "$f" | head -1)
    [ -n "$sm" ] || continue
    # DWARF sections are dropped by design; files that ptxas rejects as
    # given (unresolved externs) cannot be compared.
    if grep -q '^[[:space:]]*\.section[[:space:]]*\.debug' "$f" || ! "$ptxas" -arch="$sm" "$f" -o /dev/null 2>/dev/null; then
        skipped=$((skipped + 1)); continue
    fi
    n=$((n + 1))
    if ! "$ptxjit" print "$f" >"$tmp/p.ptx"; then
        echo "FAIL $f: ptxjit print failed"; fails=$((fails + 1)); continue
    fi
    if ! "$ptxas" -arch="$sm" "$tmp/p.ptx" -o /dev/null 2>"$tmp/err"; then
        echo "FAIL $f: ptxas rejects the printed PTX:"; head -5 "$tmp/err"; fails=$((fails + 1))
    fi
done < <(find "$tests/ptx/corpus" -name '*.ptx' | sort)
echo "ptxas accepted $((n - fails)) of $n printed corpus files ($skipped skipped: debug sections, or rejected by ptxas as given)"
exit $((fails > 0))
