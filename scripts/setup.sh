#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: installs what is missing,
# builds ptxjit into build/, and runs an example kernel on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh "$@"
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXJIT_WERROR=ON >/dev/null
cmake --build build -j "$jobs"
example=tests/ptx/corpus/vector_ops.sm_80.ptx
echo "== ptxjit --version"
build/bin/ptxjit --version
echo "== ptxjit check $example"
build/bin/ptxjit check "$example" && echo "ok: valid PTX"
echo "== ptxjit run $example -k vec_add: c = a + b for 1000 floats (a = 0,1,2,..., b = 2)"
build/bin/ptxjit run "$example" -k vec_add -g 4 -b 256 \
    --arg 'f32[1000]:iota' --arg 'f32[1000]:fill=2' --arg 'f32[1000]:zeros' --arg s32:1000 \
    --print 2:16 --stats
