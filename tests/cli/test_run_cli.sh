#!/usr/bin/env bash
# The `ptxjit run` contract: --arg specs, --print, --out, -k selection,
# usage errors (exit 2), kernel faults (exit 1), --repeat and --stats.
set -u
ptxjit=$1
tests=$2
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vec=$tests/ptx/corpus/vector_ops.sm_80.ptx

. "$(dirname "$0")/lib.sh"

expect vec-add 0 "$ptxjit" run "$vec" -k vec_add -g 3 -b 100 --arg 'f32[300]:iota' \
    --arg 'f32[300]:fill=0.5' --arg 'f32[300]:zeros' --arg s32:300 --print 2:10
grep_out vec-add '^arg 2 \(f32\[300\]\), first 10:$'
grep_out vec-add '0: +0\.5 +1\.5 +2\.5 +3\.5 +4\.5 +5\.5 +6\.5 +7\.5$'
grep_out vec-add '8: +8\.5 +9\.5$'

expect out-file 0 "$ptxjit" run "$vec" -k vec_add -g 1 -b 64 --arg 'u32[64]:iota' \
    --arg 'u32[64]:iota' --arg 'f32[64]:zeros' --arg s32:64 --out "2=$tmp/c.bin"
size=$(stat -c %s "$tmp/c.bin" 2>/dev/null || echo 0)
[ "$size" = 256 ] || { echo "FAIL out-file: $size bytes, want 256"; fails=$((fails + 1)); }
# iota bits reinterpreted as floats: c[1] = 2 * 1.4e-45 -> bits 0x00000002
word1=$(od -An -tx4 -j4 -N4 "$tmp/c.bin" | tr -d ' ')
[ "$word1" = 00000002 ] || { echo "FAIL out-file: c[1] bits $word1, want 00000002"; fails=$((fails + 1)); }

expect kernel-required 2 "$ptxjit" run "$vec"
grep_out kernel-required "choose one with -k"
grep_out kernel-required '^  saxpy_gridstride$'

expect kernel-unknown 2 "$ptxjit" run "$vec" -k nope
grep_out kernel-unknown "no kernel 'nope'"

expect arg-count 2 "$ptxjit" run "$vec" -k vec_add --arg 'f32[4]:zeros'
grep_out arg-count "takes 4 parameters"

expect arg-size 2 "$ptxjit" run "$vec" -k vec_add --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' \
    --arg 'f32[4]:zeros' --arg u16:4
grep_out arg-size "is 2 bytes but parameter"

expect bad-spec 2 "$ptxjit" run "$vec" -k vec_add --arg 'q32:1'

expect fault 1 "$ptxjit" run "$vec" -k vec_add -g 1 -b 32 --arg 'f32[32]:iota' \
    --arg 'f32[32]:iota' --arg u64:0x10 --arg s32:32
grep_out fault "kernel 'vec_add': invalid memory access"

expect repeat 0 "$ptxjit" run "$vec" -k vec_add -g 1 -b 32 --arg 'f32[32]:iota' \
    --arg 'f32[32]:iota' --arg 'f32[32]:zeros' --arg s32:32 --repeat 3 --stats
grep_out repeat 'kernel time: min [0-9.]+ ms, median [0-9.]+ ms over 3 runs'
grep_out repeat '^parse [0-9.]+ ms, lower [0-9.]+ ms, optimize'

expect printf-order 0 "$ptxjit" run "$tests/ptx/corpus/printf_kernel.sm_80.ptx" -k print_grid_info -g 2 -b 40
grep_out printf-order '^block \(0,0,0\) thread \(0,0,0\) of grid \(2,1,1\) x block \(40,1,1\)$'
[ "$(sed -n 2p "$tmp/out")" = "no-args line" ] || { echo "FAIL printf-order: line 2"; fails=$((fails + 1)); }
grep_out printf-order '^block \(1,0,0\) thread \(24,0,0\)'

expect bad-ptx 2 "$ptxjit" run "$tests/ptx/check/names-undeclared.ptx"
grep_out bad-ptx "names-undeclared.ptx:9:13: error: use of undeclared identifier '%r9'"

if [ "$fails" = 0 ]; then echo "run contract: all checks passed"; fi
exit $((fails > 0))
