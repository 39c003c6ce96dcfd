#!/bin/sh
# run.sh LIBDIR SRCDIR PROGRAM: runs an nvcc-built program (NVIDIA's
# libcudart inside it) on ptxjit's libcuda.so.1 twice, found through
# LD_LIBRARY_PATH and forced with LD_PRELOAD, as a user would.  Each run
# must exit 0 and print PASSED (the program checks its results against
# the host); runtime_api's printf lines and runtime_faults' assertion
# message (file, line, function, block, thread and text as a GPU prints
# them) must appear in its output.  PTXJIT_TEST_PRELOAD (the sanitizer
# build's runtime library) is preloaded first in both runs.
set -u
libdir=$1 srcdir=$2 prog=$3
out=$(mktemp "${TMPDIR:-/tmp}/ptxjit-cudart.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
status=0

expect() { # a fixed string the output must hold
    if ! grep -qF -- "$1" "$out"; then
        echo "FAIL ($how): missing from the output: $1"
        status=1
    fi
}

for how in LD_LIBRARY_PATH LD_PRELOAD; do
    echo "== $(basename "$prog") with $how"
    first=${PTXJIT_TEST_PRELOAD:+$PTXJIT_TEST_PRELOAD }
    if [ $how = LD_LIBRARY_PATH ]; then
        env LD_LIBRARY_PATH="$libdir" ${first:+LD_PRELOAD="$first"} "$prog" >"$out" 2>&1
    else
        env LD_PRELOAD="$first$libdir/libcuda.so.1" "$prog" >"$out" 2>&1
    fi
    rc=$?
    cat "$out"
    if [ $rc -ne 0 ]; then
        echo "FAIL ($how): exit status $rc"
        status=1
    fi
    expect PASSED
    case $(basename "$prog") in
    runtime_api*)
        for b in 0 1; do
            for t in 0 1 2; do
                expect "hello from block $b thread $t tag 42"
            done
        done ;;
    runtime_faults*)
        line=$(grep -n 'assert(v\[i\] < limit);' "$srcdir/runtime_faults.cu" | cut -d: -f1)
        expect "runtime_faults.cu:$line: void check_below(const int *, int): block: [1,0,0], thread: [5,0,0] Assertion \`v[i] < limit\` failed." ;;
    esac
done
exit $status
