#!/usr/bin/env bash
# gen-fixtures.sh -- regenerate the PTX fixture corpus from the CUDA sources.
#
#   scripts/gen-fixtures.sh           regenerate tests/ptx/corpus/*.{sm_XX,clang.sm_XX}*.ptx
#   scripts/gen-fixtures.sh --check   regenerate into a scratch dir and diff against the
#                                     committed files (exit 1 on any difference)
#
# Producers and outputs (NAME = basename of tests/cuda/NAME.cu):
#   nvcc  -ptx -arch=sm_XX                 NAME.sm_XX.ptx            every file, XX in 75 80 90
#   nvcc  -ptx -G -arch=sm_80              NAME.sm_80.G.ptx          DEBUG_FILES (full DWARF sections)
#   nvcc  -ptx -lineinfo -arch=sm_80       NAME.sm_80.lineinfo.ptx   LINEINFO_FILES (.file/.loc only)
#   nvcc  -ptx -use_fast_math -arch=sm_80  NAME.sm_80.fastmath.ptx   FASTMATH_FILES
#   clang -x cuda --cuda-device-only -S    NAME.clang.sm_XX.ptx      CLANG_FILES (LLVM NVPTX back end)
# Hand-written files (*.hand.ptx) in the corpus are never touched.
#
# Determinism: nvcc derives the names of internal-linkage symbols
# (_ZN..._INTERNAL_<hash>_...) from the absolute path of the source file, and -G
# output records the source path and the working directory in its DWARF. So
# sources are staged into a fixed directory ($STAGE, default
# /tmp/ptxjit-gen-fixtures) and compiled from there; re-running with the same
# toolchains yields byte-identical files. Nothing is post-processed.
#
# Tools: NVCC (default /usr/local/cuda/bin/nvcc), CUDA_PATH (default /usr/local/cuda),
# CLANG (default: clang-19, else clang-14, else clang). A missing nvcc or clang skips
# that producer with a message (and leaves its committed files alone).
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC=$ROOT/tests/cuda
CORPUS=$ROOT/tests/ptx/corpus
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_PATH/bin/nvcc}
STAGE=${STAGE:-/tmp/ptxjit-gen-fixtures}

ARCHES="75 80 90"
DEBUG_FILES="vector_ops recursion"
LINEINFO_FILES="divergence reduce_shared sgemm warp_shuffle lib_cg"
FASTMATH_FILES="float_rounding lib_math"
# Files clang-19 compiles against the CUDA 13 headers (with tests/cuda/clang-shim).
# Not listed: globals_const (__managed__ is a host variable to clang), kernel_attrs
# (no __ldcs/__stwt overloads, __maxnreg__, __grid_constant__ in clang's wrappers).
CLANG_FILES="async_copy atomics_global atomics_shared divergence double_math float_rounding grid3d
             half_bf16 image2d inline_asm int_intrinsics local_arrays malloc_assert memory_ordering
             printf_kernel recursion reduce_shared sgemm templates tensor_core vector_ops warp_shuffle
             warp_vote texture mma_sync"
CLANG_ARCHES="80"
CLANG_EXTRA_ARCH_FILES="warp_vote atomics_global" # also at sm_75 and sm_90

check=0
case "${1:-}" in
"") ;;
--check) check=1 ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# Serialise concurrent runs on the shared staging directory.
mkdir -p "$(dirname "$STAGE")"
exec 9>"$STAGE.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi

rm -rf "$STAGE"
mkdir -p "$STAGE/src" "$STAGE/out"
cp "$SRC"/*.cu "$STAGE/src/"
cp -r "$SRC/clang-shim" "$STAGE/src/clang-shim"

generated=()   # names written to $STAGE/out
failures=0

emit() { # emit OUTNAME CMD... ; runs CMD in $STAGE/src, writing $STAGE/out/OUTNAME
    local name=$1; shift
    if (cd "$STAGE/src" && "$@" -o "$STAGE/out/$name") >"$STAGE/log" 2>&1; then
        generated+=("$name")
    else
        echo "FAILED: $name" >&2
        sed 's/^/    /' "$STAGE/log" >&2
        failures=$((failures + 1))
    fi
}

names=$(cd "$STAGE/src" && ls *.cu | sed 's/\.cu$//')

have_nvcc=0
if [ -x "$NVCC" ] || command -v "$NVCC" >/dev/null 2>&1; then
    have_nvcc=1
    echo "nvcc: $("$NVCC" --version | tail -n 2 | head -n 1)"
    for n in $names; do
        for a in $ARCHES; do
            emit "$n.sm_$a.ptx" "$NVCC" -ptx -arch=sm_$a "$n.cu"
        done
    done
    for n in $DEBUG_FILES; do emit "$n.sm_80.G.ptx" "$NVCC" -ptx -G -arch=sm_80 "$n.cu"; done
    for n in $LINEINFO_FILES; do emit "$n.sm_80.lineinfo.ptx" "$NVCC" -ptx -lineinfo -arch=sm_80 "$n.cu"; done
    for n in $FASTMATH_FILES; do emit "$n.sm_80.fastmath.ptx" "$NVCC" -ptx -use_fast_math -arch=sm_80 "$n.cu"; done
else
    echo "SKIP nvcc: $NVCC not found; committed nvcc fixtures left as they are"
fi

CLANG=${CLANG:-}
if [ -z "$CLANG" ]; then
    for c in clang-19 clang-14 clang; do
        if command -v "$c" >/dev/null 2>&1; then CLANG=$c; break; fi
    done
fi
have_clang=0
if [ -n "$CLANG" ] && command -v "$CLANG" >/dev/null 2>&1 && [ -d "$CUDA_PATH/include" ]; then
    have_clang=1
    echo "clang: $("$CLANG" --version | head -n 1)"
    clang_cmd=("$CLANG" -x cuda --cuda-device-only -S -O2 --cuda-path="$CUDA_PATH"
        -Wno-unknown-cuda-version -Iclang-shim -I"$CUDA_PATH/include/cccl")
    for n in $CLANG_FILES; do
        for a in $CLANG_ARCHES; do
            emit "$n.clang.sm_$a.ptx" "${clang_cmd[@]}" --cuda-gpu-arch=sm_$a "$n.cu"
        done
    done
    for n in $CLANG_EXTRA_ARCH_FILES; do
        for a in 75 90; do
            emit "$n.clang.sm_$a.ptx" "${clang_cmd[@]}" --cuda-gpu-arch=sm_$a "$n.cu"
        done
    done
else
    echo "SKIP clang: no clang-19/clang-14/clang (or no CUDA headers at $CUDA_PATH); committed clang fixtures left as they are"
fi

# Which committed files belong to a producer that ran (and may be replaced/removed).
owned() { # owned FILE -> true if FILE is regenerated by a producer that ran
    case "$1" in
    *.hand.ptx) return 1 ;;
    *.clang.sm_*.ptx) [ $have_clang = 1 ] ;;
    *.sm_[0-9]*.ptx) [ $have_nvcc = 1 ] ;;
    *) return 1 ;;
    esac
}

if [ $check = 1 ]; then
    diffs=0
    for f in "${generated[@]}"; do
        if ! cmp -s "$STAGE/out/$f" "$CORPUS/$f"; then echo "DIFFERS: $f"; diffs=$((diffs + 1)); fi
    done
    for p in "$CORPUS"/*.ptx; do
        [ -e "$p" ] || continue
        b=$(basename "$p")
        if owned "$b" && [ ! -e "$STAGE/out/$b" ]; then echo "STALE: $b"; diffs=$((diffs + 1)); fi
    done
    echo "checked ${#generated[@]} generated files: $diffs difference(s), $failures compile failure(s)"
    [ $diffs = 0 ] && [ $failures = 0 ]
    exit
fi

mkdir -p "$CORPUS"
for p in "$CORPUS"/*.ptx; do
    [ -e "$p" ] || continue
    b=$(basename "$p")
    if owned "$b" && [ ! -e "$STAGE/out/$b" ]; then rm -f "$p"; echo "removed stale $b"; fi
done
total=0
for f in "${generated[@]}"; do
    cp "$STAGE/out/$f" "$CORPUS/$f"
    sz=$(wc -c <"$CORPUS/$f")
    total=$((total + sz))
    printf '%8d  tests/ptx/corpus/%s\n' "$sz" "$f"
done
echo "generated ${#generated[@]} PTX files ($total bytes); $failures compile failure(s)"
[ $failures = 0 ]
