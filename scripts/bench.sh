#!/usr/bin/env bash
# Builds and runs the benchmarks: ptxjit next to pocl (Debian's, on the CPU)
# and plain C + OpenMP, same run; then cold vs warm start of `ptxjit run`
# (the compilation cache).
# Usage: scripts/bench.sh [SCALE [THREADS [ROUNDS]]]
#   SCALE    default 1; smaller is faster
#   THREADS  default: online CPUs; ptxjit's workers, OpenMP's threads and
#            pocl's threads are all pinned to this count
#   ROUNDS   timed rounds of the interleaved kernels (default 12)
# pocl is optional: if it cannot be installed the pocl column is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/deps.sh --with-bench || echo "bench: pocl not installed; measuring without it"
threads=${2:-$(nproc)}
export PTXJIT_THREADS=$threads OMP_NUM_THREADS=$threads POCL_MAX_PTHREAD_COUNT=$threads
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXJIT_WERROR=ON >/dev/null
cmake --build build -j "$(nproc)" --target bench_kernels ptxjit
build/bin/bench_kernels "${1:-1}" "$threads" ${3:+"$3"}
bench/bench_cache.sh build/bin/ptxjit
