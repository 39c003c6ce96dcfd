#!/usr/bin/env bash
# Builds and runs the benchmarks: ptxjit next to plain C + OpenMP, same run;
# then cold vs warm start of `ptxjit run` (the compilation cache).
# Usage: scripts/bench.sh [SCALE]   (default 1; smaller is faster)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target bench_kernels ptxjit
build/bin/bench_kernels "${1:-1}"
bench/bench_cache.sh build/bin/ptxjit
