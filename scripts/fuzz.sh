#!/usr/bin/env bash
# Fuzzes with libFuzzer for a bounded time: the PTX parser (fuzz_parse,
# FUZZ_SECONDS), then the driver's loader entry points - module images, fat
# binaries, cuLink inputs (fuzz_load, FUZZ_LOAD_SECONDS, default half of
# FUZZ_SECONDS) - seeded with every .ptx under tests/ptx and the fat
# binaries under tests/cuda/fatbin.  Crashes, hangs and leaks are copied to
# tests/fuzz/crashes/ and fail the script.
#   FUZZ_SECONDS (default 60), FUZZ_BUILD_DIR (default build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}
cc=$(command -v clang-19 || command -v clang || true)
if [ -z "$cc" ]; then
    echo "fuzz: SKIP: no clang found (install clang-19)"
    exit 0
fi
CC=$cc cmake -S . -B "$build" -DPTXJIT_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug -DPTXJIT_WERROR=ON >/dev/null
cmake --build "$build" --target fuzz_parse fuzz_load -j "$(nproc)" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
find tests/ptx -name '*.ptx' -size -64k -exec cp {} "$work/corpus/" \;
status=0
# fuzz TARGET SECONDS EXTRA_SEED_DIR...
fuzz() {
    local target=$1 secs=$2
    shift 2
    mkdir -p "$work/$target"
    cp "$work/corpus"/* "$work/$target/"
    for d in "$@"; do cp "$d"/* "$work/$target/"; done
    echo "fuzz: $target: $(ls "$work/$target" | wc -l) seeds, ${secs} s"
    "$build/bin/$target" "$work/$target" -max_total_time="$secs" -max_len=65536 -timeout=10 \
        -rss_limit_mb=2048 -dict=tests/fuzz/ptx.dict -artifact_prefix="$work/artifacts/" \
        -print_final_stats=1 >"$work/log" 2>&1 || status=$?
    tail -n 15 "$work/log"
}
fuzz fuzz_parse "$seconds"
load_seconds=${FUZZ_LOAD_SECONDS:-$(( (seconds + 1) / 2 ))}
[ "$status" = 0 ] && [ "$load_seconds" -gt 0 ] && fuzz fuzz_load "$load_seconds" tests/cuda/fatbin
if ls "$work/artifacts"/* >/dev/null 2>&1; then
    mkdir -p tests/fuzz/crashes
    cp "$work/artifacts"/* tests/fuzz/crashes/
    echo "fuzz: FAILED: findings copied to tests/fuzz/crashes/:"
    ls tests/fuzz/crashes
    exit 1
fi
[ "$status" = 0 ] || { echo "fuzz: FAILED (exit $status)"; exit 1; }
echo "fuzz: no findings"
