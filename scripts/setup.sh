#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: installs what is missing,
# builds ptxjit into build/, and runs it on an example kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh "$@"
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
example=tests/ptx/corpus/ptxjit-features.hand.ptx
echo "== ptxjit --version"
build/bin/ptxjit --version
echo "== ptxjit check $example"
build/bin/ptxjit check "$example" && echo "ok: $example is valid PTX"
echo "(kernel execution, 'ptxjit run', is not available in this build yet)"
