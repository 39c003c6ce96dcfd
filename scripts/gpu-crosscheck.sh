#!/usr/bin/env bash
# Checks the conformance suites' C references against a real NVIDIA GPU.
#
#   scripts/gpu-crosscheck.sh emit DIR      write every suite's kernels and
#                                           inputs to DIR (needs build/)
#   scripts/gpu-crosscheck.sh record DIR    on a machine with a GPU and the
#                                           CUDA toolkit (nothing else): run
#                                           them, outputs to tests/gpu/results/
#   scripts/gpu-crosscheck.sh check [RES]   compare the references with the
#                                           recorded outputs (default
#                                           tests/gpu/results/)
#
# emit and check need ptxjit's build; record needs only gcc, cuda.h and
# libcuda, so the three steps can run on different machines.  Commit
# tests/gpu/results/ afterwards: test_conform_* then compare with it on
# every run (and say which kernels it confirms).
# Environment: BUILD (default build), CUDA_HOME (default /usr/local/cuda),
# SUITES (default: the int, float and video conformance tests),
# CONFORM_GPU (a prebuilt runner; the tests use this to run the record step
# through ptxjit's own libcuda.so.1).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
read -r -a suites <<<"${SUITES:-test_conform_int test_conform_float test_conform_video}"

usage() {
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

need_build() {
    for s in "${suites[@]}"; do
        [ -x "$build/bin/$s" ] || { echo "gpu-crosscheck: $build/bin/$s missing: build first (scripts/setup.sh)" >&2; exit 2; }
    done
}

emit() {
    need_build
    mkdir -p "$1"
    for s in "${suites[@]}"; do
        "$build/bin/$s" --emit "$1"
    done
    echo "gpu-crosscheck: kernels written to $1 ($(cat "$1"/*/manifest | grep -vc '^#') kernels)"
}

record() {
    local runner=${CONFORM_GPU:-}
    local results=${RESULTS:-tests/gpu/results}
    if [ -z "$runner" ]; then
        [ -f "$cuda/include/cuda.h" ] || { echo "gpu-crosscheck: no $cuda/include/cuda.h (set CUDA_HOME)" >&2; exit 2; }
        runner=$(mktemp -d)/conform_gpu
        gcc -O2 -std=c11 -DPTXJIT_TEST_NVIDIA_HEADER -I"$cuda/include" tests/gpu/conform_gpu.c \
            -L"$cuda/lib64/stubs" -lcuda -o "$runner"
    fi
    local status=0
    for d in "$1"/*/; do
        local suite
        suite=$(basename "$d")
        mkdir -p "$results/$suite"
        "$runner" "$d" "$results/$suite" || status=1
    done
    return $status
}

check() {
    need_build
    local status=0
    for s in "${suites[@]}"; do
        "$build/bin/$s" --check-gpu "$1" || status=1
    done
    return $status
}

case "${1:-}" in
emit) [ $# -eq 2 ] || usage; emit "$2" ;;
record) [ $# -eq 2 ] || usage; record "$2" ;;
check) check "${2:-tests/gpu/results}" ;;
*) usage ;;
esac
