#!/usr/bin/env bash
# Cold vs warm start of `ptxjit run` on a large module (the double-precision
# math fixture: six kernels, ~65 KB of PTX): cold = an empty compilation
# cache (parse, lower, LLVM, store), warm = the entry is there (decompress,
# load the object).  Prints the median wall time of each, the warm/cold
# ratio, and what a warm start spends its time on.
# Usage: bench/bench_cache.sh [PTXJIT] [COLD_RUNS] [WARM_RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
ptxjit=${1:-build/bin/ptxjit}
cold_runs=${2:-3}
warm_runs=${3:-10}
ptx=tests/ptx/corpus/double_math.sm_80.ptx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset PTXJIT_CACHE_DISABLE PTXJIT_CACHE_MAXSIZE PTXJIT_DUMP_IR PTXJIT_DUMP_ASM

run() { # run CACHE_DIR: one `ptxjit run`, its --stats on $tmp/stats
    PTXJIT_CACHE_PATH=$1 "$ptxjit" run "$ptx" -k dmath_transcendental -g 4 -b 256 \
        --arg 'f64[1024]:rand' --arg 'f64[8192]:zeros' --arg s32:1024 --stats \
        >/dev/null 2>"$tmp/stats"
}
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000 )) | awk '{ printf "%.1f", $1 / 1000 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

cold=()
for i in $(seq "$cold_runs"); do
    rm -rf "$tmp/cache"
    t0=$(date +%s%N); run "$tmp/cache"; cold+=("$(ms_since "$t0")")
    grep -q '^cache: miss' "$tmp/stats" || { echo "bench_cache: cold run was not a miss"; exit 1; }
done
cp "$tmp/stats" "$tmp/cold-stats"
warm=()
for i in $(seq "$warm_runs"); do
    t0=$(date +%s%N); run "$tmp/cache"; warm+=("$(ms_since "$t0")")
    grep -q '^cache: hit' "$tmp/stats" || { echo "bench_cache: warm run was not a hit"; exit 1; }
done
start=()
for i in $(seq "$warm_runs"); do
    t0=$(date +%s%N); "$ptxjit" --version >/dev/null; start+=("$(ms_since "$t0")")
done
c=$(printf '%s\n' "${cold[@]}" | median)
w=$(printf '%s\n' "${warm[@]}" | median)
s=$(printf '%s\n' "${start[@]}" | median)
echo "ptxjit run $(basename "$ptx") (dmath_transcendental), medians:"
echo "  cold (empty cache, $cold_runs runs):  $c ms   [$(head -1 "$tmp/cold-stats")]"
echo "  warm (cache hit, $warm_runs runs):    $w ms   [$(head -2 "$tmp/stats" | tr '\n' ' ' | sed 's/ $//')]"
echo "  process start (ptxjit --version): $s ms"
awk -v c="$c" -v w="$w" 'BEGIN { printf "  warm/cold: %.2f%% (target < 5%%)\n", 100 * w / c }'
