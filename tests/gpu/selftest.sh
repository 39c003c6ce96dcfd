#!/usr/bin/env bash
# Keeps the GPU cross-check working without a GPU: scripts/gpu-crosscheck.sh
# emits the integer suite, "records" it with tests/gpu/conform_gpu.c running
# through ptxjit's own libcuda.so.1, and checks the references against
# those outputs.  Then one recorded output is corrupted, and the check must
# fail: the comparison is real.
#   selftest.sh BUILD_DIR CONFORM_GPU
set -euo pipefail
build=$1 runner=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# some kernels target sm_90 (as on an H100): the device must claim 9.0
# the integer suite alone: the others add minutes and test the same steps
export BUILD=$build CONFORM_GPU=$runner RESULTS=$work/results PTXJIT_CC=9.0 SUITES=test_conform_int
"$root/scripts/gpu-crosscheck.sh" emit "$work/emit"
"$root/scripts/gpu-crosscheck.sh" record "$work/emit"
"$root/scripts/gpu-crosscheck.sh" check "$work/results" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
grep 'GPU results:' "$work/log"
grep -q ' 0 missing or stale' "$work/log" || { echo "selftest: outputs missing"; exit 1; }

# flip one byte of one output: the check must report it
outputs=("$work"/results/int/*.out)
victim=${outputs[0]}
byte=$(od -An -tu1 -j24 -N1 "$victim" | tr -d ' ')
printf "\\x$(printf %02x $((byte ^ 0xff)))" | dd of="$victim" bs=1 seek=24 conv=notrunc status=none
if "$root/scripts/gpu-crosscheck.sh" check "$work/results" >"$work/log2" 2>&1; then
    echo "selftest: a corrupted output in $(basename "$victim") went unnoticed"
    exit 1
fi
echo "selftest: a corrupted output is reported"
