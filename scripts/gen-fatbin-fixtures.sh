#!/usr/bin/env bash
# gen-fatbin-fixtures.sh -- regenerate the fat-binary fixtures in tests/cuda/fatbin/.
#
#   scripts/gen-fatbin-fixtures.sh           regenerate
#   scripts/gen-fatbin-fixtures.sh --check   regenerate into a scratch dir and diff
#
# Outputs (tests/cuda/fatbin/, from add1.cu and ../vector_ops.cu):
#   add1.sm_80.ptx              nvcc -ptx: the reference text for every add1 PTX entry
#   add1.sm_80.cubin            nvcc -cubin: a bare ELF image
#   add1.c80.none.fatbin        compute_80 PTX, stored plain   (--compress-mode=none)
#   add1.c80.lz4.fatbin         compute_80 PTX, raw LZ4 block  (--compress-mode=speed)
#   add1.c80.zstd.fatbin        compute_80 PTX, zstd frame     (--compress-mode=default)
#   add1.c80_sm80.size.fatbin   compute_80 PTX + sm_80 cubin, both zstd (--compress-mode=size)
#   add1.multi.fatbin           compute_75/80/90 PTX + sm_80 cubin (default mode)
#   add1.sass_only.fatbin       sm_75 + sm_80 cubins, no PTX (--compress-mode=size)
#   add1.specific.fatbin        compute_90a, compute_100f, compute_120 PTX
#   add1.ident.fatbin           fatbinary --ident/--cmdline: PTX + cubin with identifier
#                               and options strings
#   add1.wrapper.seg            .nvFatBinSegment of `nvcc -c` (the 24-byte wrapper, data
#                               pointer unrelocated) and
#   add1.wrapper.fatbin         the .nv_fatbin section it points to
#   vector_ops.c80.lz4.fatbin   a larger LZ4 entry; reference tests/ptx/corpus/vector_ops.sm_80.ptx
#   linklib.rdc.a               nvcc -rdc -lib of link_lib_add.cu and link_lib_mul.cu
#                               (compute_80 PTX in each member's __nv_relfatbin)
#   link_lib_add.rdc.o          nvcc -rdc -c of link_lib_add.cu: a host object
#   link_main.rdc.sm_80.ptx     nvcc -rdc -ptx of link_main.cu, whose kernel calls both
#                               (the archive and object hold nvcc's temporary names, so
#                               --check does not compare them)
#   pattern.fast.lz4, pattern.hc.lz4
#                               LZ4 frames (lz4 -1 / lz4 -12, 64 KiB blocks) of the
#                               11,096-byte pattern test_lz4.c rebuilds (written below)
#
# Sources are staged into a fixed directory so output does not depend on the
# checkout's path.  Needs nvcc and fatbinary (CUDA_PATH, default /usr/local/cuda)
# objcopy and the lz4 command; without nvcc it says so and leaves the committed files alone.
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=$ROOT/tests/cuda/fatbin
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_PATH/bin/nvcc}
FATBINARY=${FATBINARY:-$CUDA_PATH/bin/fatbinary}
STAGE=${STAGE:-/tmp/ptxjit-gen-fatbin}

check=0
case "${1:-}" in
"") ;;
--check) check=1 ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
if ! [ -x "$NVCC" ]; then
    echo "SKIP: $NVCC not found; committed fatbin fixtures left as they are"
    exit 0
fi

rm -rf "$STAGE"
mkdir -p "$STAGE/src" "$STAGE/out"
cp "$DIR/add1.cu" "$DIR"/link_*.cu "$ROOT/tests/cuda/vector_ops.cu" "$STAGE/src/"
cd "$STAGE/src"
O=$STAGE/out
fatbin() { # fatbin OUT MODE GENCODE... (from add1.cu)
    local out=$1 mode=$2; shift 2
    "$NVCC" -fatbin --compress-mode="$mode" "$@" -o "$O/$out" add1.cu
}

"$NVCC" -ptx -arch=sm_80 -o "$O/add1.sm_80.ptx" add1.cu
"$NVCC" -cubin -arch=sm_80 -o "$O/add1.sm_80.cubin" add1.cu
fatbin add1.c80.none.fatbin none -gencode arch=compute_80,code=compute_80
fatbin add1.c80.lz4.fatbin speed -gencode arch=compute_80,code=compute_80
fatbin add1.c80.zstd.fatbin default -gencode arch=compute_80,code=compute_80
fatbin add1.c80_sm80.size.fatbin size -gencode 'arch=compute_80,code=[compute_80,sm_80]'
fatbin add1.multi.fatbin default -gencode arch=compute_75,code=compute_75 \
    -gencode 'arch=compute_80,code=[compute_80,sm_80]' -gencode arch=compute_90,code=compute_90
fatbin add1.sass_only.fatbin size -gencode arch=compute_75,code=sm_75 \
    -gencode arch=compute_80,code=sm_80
fatbin add1.specific.fatbin default -gencode arch=compute_90a,code=compute_90a \
    -gencode arch=compute_100f,code=compute_100f -gencode arch=compute_120,code=compute_120
"$FATBINARY" --64 --compress-mode=none --ident=add1.cu --cmdline="-O3 --verbose" \
    --image3=kind=ptx,sm=80,file="$O/add1.sm_80.ptx" \
    --image3=kind=elf,sm=80,file="$O/add1.sm_80.cubin" --create="$O/add1.ident.fatbin"
"$NVCC" -c -gencode arch=compute_80,code=compute_80 -o add1.o add1.cu
objcopy -O binary --only-section=.nvFatBinSegment add1.o "$O/add1.wrapper.seg"
objcopy -O binary --only-section=.nv_fatbin add1.o "$O/add1.wrapper.fatbin"
"$NVCC" -fatbin --compress-mode=speed -gencode arch=compute_80,code=compute_80 \
    -o "$O/vector_ops.c80.lz4.fatbin" vector_ops.cu
"$NVCC" -rdc=true -lib -gencode arch=compute_80,code=compute_80 -o "$O/linklib.rdc.a" \
    link_lib_add.cu link_lib_mul.cu
"$NVCC" -rdc=true -c -gencode arch=compute_80,code=compute_80 -o "$O/link_lib_add.rdc.o" \
    link_lib_add.cu
"$NVCC" -rdc=true -ptx -arch=sm_80 -o "$O/link_main.rdc.sm_80.ptx" link_main.cu

# The pattern: 4000 x 'z', then "PTXJIT-lz4 " repeated to 3000 bytes, then 2048
# bytes of an LCG (x = x * 1103515245 + 12345 mod 2^32 from x = 1, byte =
# bits 16..23), then those 2048 bytes again.
python3 - "$O/pattern.bin" <<'PY'
import sys
lcg, x = bytearray(), 1
for _ in range(2048):
    x = (x * 1103515245 + 12345) & 0xffffffff
    lcg.append((x >> 16) & 0xff)
pat = b"PTXJIT-lz4 "
data = b"z" * 4000 + bytes(pat[i % len(pat)] for i in range(3000)) + lcg + lcg
open(sys.argv[1], "wb").write(data)
PY
lz4 -q -1 -B4 --no-frame-crc "$O/pattern.bin" "$O/pattern.fast.lz4"
lz4 -q -12 -B4 --no-frame-crc "$O/pattern.bin" "$O/pattern.hc.lz4"
rm "$O/pattern.bin"

status=0
for f in "$O"/*; do
    b=$(basename "$f")
    if [ $check = 1 ]; then
        case $b in *.rdc.a | *.rdc.o) continue ;; esac
        cmp -s "$f" "$DIR/$b" || { echo "DIFFERS: $b"; status=1; }
    else
        cp "$f" "$DIR/$b"
        printf '%6d  tests/cuda/fatbin/%s\n' "$(wc -c <"$f")" "$b"
    fi
done
exit $status
