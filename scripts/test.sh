#!/usr/bin/env bash
# Sets up (scripts/setup.sh), then runs every test: the ctest suite in the
# normal build and again under ASan+UBSan, then a bounded fuzzing run.
# FUZZ_SECONDS (default 60) bounds the fuzzer; FUZZ_SECONDS=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-fuzz
jobs=$(nproc)
echo "== ctest (build/)"
ctest --test-dir build --output-on-failure -j "$jobs"
echo "== ctest under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)"
# clang's sanitizer runtime when there is one (setup.sh --with-fuzz installs
# it): GCC 12's copies every memmove a byte at a time, a fifth of the
# sanitized suite's time (LLVM's own code calls it through the runtime).
asan_cc=$(command -v clang-19 || command -v cc)
CC=$asan_cc cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPTXJIT_SANITIZE=ON -DPTXJIT_WERROR=ON >/dev/null
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"
if [ "${FUZZ_SECONDS:-60}" != 0 ] && [ -x scripts/fuzz.sh ]; then
    echo "== fuzzing the parser (${FUZZ_SECONDS:-60} s) and the loader"
    FUZZ_SECONDS=${FUZZ_SECONDS:-60} scripts/fuzz.sh
fi
echo "== all tests passed"
