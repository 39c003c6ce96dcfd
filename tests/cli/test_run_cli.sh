#!/usr/bin/env bash
# The `ptxjit run` contract: --arg specs (iota, fill, zeros, file, rand),
# --print, --out (raw bytes), -k selection (listing the kernels), usage
# errors (exit 2, naming the argument or parameter), kernel faults, traps and
# asserts (exit 1, naming the kernel), --cooperative (grid barriers), --repeat
# and --stats, printf order
# (by block, then thread), the .reqntid default block and PTXJIT_PERF_MAP.
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

# grid_ranks: rank[] then, after a grid barrier, count[0] = slots out of place (0).
gs=$tests/ptx/corpus/grid_sync.sm_80.ptx
expect cooperative 0 "$ptxjit" run "$gs" -k grid_ranks -g 4 -b 32 --cooperative \
    --arg 'u32[128]:fill=7' --arg 'u32[1]:fill=9' --print 1
grep_out cooperative '^ *0: +0$'
expect cooperative-plain 1 "$ptxjit" run "$gs" -k grid_ranks -g 4 -b 32 \
    --arg 'u32[128]:zeros' --arg 'u32[1]:zeros'
grep_out cooperative-plain "kernel 'grid_ranks': trap"
expect cooperative-too-large 2 "$ptxjit" run "$gs" -k grid_ranks -g 100000 -b 32 --cooperative \
    --arg 'u32[3200000]:zeros' --arg 'u32[1]:zeros'
grep_out cooperative-too-large "cooperative grid of 100000 blocks exceeds"

expect printf-order 0 "$ptxjit" run "$tests/ptx/corpus/printf_kernel.sm_80.ptx" -k print_grid_info -g 2 -b 40
grep_out printf-order '^block \(0,0,0\) thread \(0,0,0\) of grid \(2,1,1\) x block \(40,1,1\)$'
[ "$(sed -n 2p "$tmp/out")" = "no-args line" ] || { echo "FAIL printf-order: line 2"; fails=$((fails + 1)); }
grep_out printf-order '^block \(1,0,0\) thread \(24,0,0\)'

expect bad-ptx 2 "$ptxjit" run "$tests/ptx/check/names-undeclared.ptx"
grep_out bad-ptx "names-undeclared.ptx:9:13: error: use of undeclared identifier '%r9'"

# ---- more of the contract -------------------------------------------------
# --print without a count prints the whole buffer; the element past n stays 0
expect print-all 0 "$ptxjit" run "$vec" -k vec_add -g 2 -b 3 --arg 'f32[6]:fill=1.5' \
    --arg 'f32[6]:iota' --arg 'f32[6]:zeros' --arg s32:5 --print 2 --print 0:2
grep_out print-all '^arg 2 \(f32\[6\]\):$'
grep_out print-all '^0: +1\.5 +2\.5 +3\.5 +4\.5 +5\.5 +0$'
grep_out print-all '^arg 0 \(f32\[6\]\), first 2:$'
grep_out print-all '^0: +1\.5 +1\.5$'

# --out writes the buffer's raw bytes after the run: x[i] = -2 * i for i < 6
expect out-bytes 0 "$ptxjit" run "$vec" -k scale_inplace -g 1 -b 8 --arg 'f32[8]:iota' \
    --arg f32:-2 --arg u32:6 --out "0=$tmp/x.bin"
got=$(od -An -v -tx4 "$tmp/x.bin" | tr -s ' \n' ' ' | sed 's/^ //')
[ "$got" = "80000000 c0000000 c0800000 c0c00000 c1000000 c1200000 40c00000 40e00000 " ] ||
    { echo "FAIL out-bytes: $got"; fails=$((fails + 1)); }

# file= and rand=SEED inputs; rand is reproducible
printf '\000\000\200\077\000\000\000\100\000\000\100\100\000\000\200\100' >"$tmp/in.bin"
expect file-input 0 "$ptxjit" run "$vec" -k vec_add -b 4 --arg "f32[4]:file=$tmp/in.bin" \
    --arg 'f32[4]:fill=0.25' --arg 'f32[4]:zeros' --arg s32:4 --print 2
grep_out file-input '^0: +1\.25 +2\.25 +3\.25 +4\.25$'
expect file-short 2 "$ptxjit" run "$vec" -k vec_add -b 4 --arg "f32[5]:file=$tmp/in.bin" \
    --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' --arg s32:4
grep_out file-short "is 16 bytes but f32\[5\] needs 20 bytes"
for i in 1 2; do
    "$ptxjit" run "$vec" -k vec_add -b 16 --arg 'f32[16]:rand=7' --arg 'f32[16]:zeros' \
        --arg 'f32[16]:zeros' --arg s32:16 --out "2=$tmp/rand$i.bin" >/dev/null 2>&1
done
cmp -s "$tmp/rand1.bin" "$tmp/rand2.bin" || { echo "FAIL rand-seed: two runs differ"; fails=$((fails + 1)); }

# -k missing: every kernel is listed, exit 2; an unknown -k lists them too
expect kernels-listed 2 "$ptxjit" run "$vec"
for k in vec_add saxpy_gridstride scale_inplace axpby_f64 vec_add_i64 scale_float4 \
    add_ldg_restrict relu_clamp copy_u8_u16; do
    grep_out kernels-listed "^  $k\$"
done
grep_out kernels-listed "has 9 kernels"
expect unknown-lists 2 "$ptxjit" run "$vec" -k vec_ad
grep_out unknown-lists "no kernel 'vec_ad'"
grep_out unknown-lists '^  vec_add$'
grep_out unknown-lists '^  copy_u8_u16$'

# wrong --arg count names the parameters; wrong size names the parameter
expect too-few 2 "$ptxjit" run "$vec" -k vec_add --arg 'f32[4]:zeros'
grep_out too-few "kernel 'vec_add' takes 4 parameters \(vec_add_param_0, vec_add_param_1, vec_add_param_2, vec_add_param_3\), 1 --arg given"
expect too-many 2 "$ptxjit" run "$vec" -k vec_add --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' \
    --arg 'f32[4]:zeros' --arg s32:4 --arg s32:5
grep_out too-many "takes 4 parameters .*, 5 --arg given"
expect wrong-size 2 "$ptxjit" run "$vec" -k vec_add --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' \
    --arg 'f32[4]:zeros' --arg u64:4
grep_out wrong-size "parameter 'vec_add_param_3' is \.u32 \(4 bytes\)"
expect scalar-for-pointer 2 "$ptxjit" run "$vec" -k vec_add --arg u32:1 --arg 'f32[4]:zeros' \
    --arg 'f32[4]:zeros' --arg s32:4
grep_out scalar-for-pointer "vec_add_param_0"

# other usage errors: exit 2 with a message
expect grid-zero 2 "$ptxjit" run "$vec" -k vec_add -g 0 -b 4 --arg 'f32[4]:zeros' \
    --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' --arg s32:4
grep_out grid-zero "grid x must be a positive integer"
expect block-too-big 2 "$ptxjit" run "$vec" -k vec_add -b 2000 --arg 'f32[4]:zeros' \
    --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' --arg s32:4
grep_out block-too-big "more than 1024"
expect print-scalar 2 "$ptxjit" run "$vec" -k vec_add -b 4 --arg 'f32[4]:zeros' \
    --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' --arg s32:4 --print 3
grep_out print-scalar "is a scalar, not a buffer"
expect print-missing 2 "$ptxjit" run "$vec" -k vec_add -b 4 --arg 'f32[4]:zeros' \
    --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' --arg s32:4 --print 9
grep_out print-missing "there is no --arg 9"
expect out-unwritable 2 "$ptxjit" run "$vec" -k vec_add -b 4 --arg 'f32[4]:zeros' \
    --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' --arg s32:4 --out "2=$tmp/no/such/dir/c.bin"
grep_out out-unwritable "cannot write '.*/no/such/dir/c.bin'"

# kernel failures: exit 1, the message names the kernel and what happened
mal=$tests/ptx/corpus/malloc_assert.sm_80.ptx
expect fault-null 1 "$ptxjit" run "$vec" -k vec_add -g 2 -b 100 --arg 'f32[200]:iota' \
    --arg 'f32[200]:iota' --arg u64:0 --arg s32:200
grep_out fault-null "kernel 'vec_add': invalid memory access"
expect trap 1 "$ptxjit" run "$mal" -k trap_if_negative -g 1 -b 4 --arg 's32[4]:fill=-1' \
    --arg 's32[4]:zeros' --arg s32:4
grep_out trap "kernel 'trap_if_negative': trap"
expect assert 1 "$ptxjit" run "$mal" -k check_nonneg -g 1 -b 4 --arg 's32[4]:fill=-1' \
    --arg 's32[4]:zeros' --arg s32:4
grep_out assert "kernel 'check_nonneg': .*Assertion \`in\[gid\] >= 0\` failed"

# --stats alone: stage timings and one kernel time
expect stats 0 "$ptxjit" run "$vec" -k vec_add -b 4 --arg 'f32[4]:iota' --arg 'f32[4]:iota' \
    --arg 'f32[4]:zeros' --arg s32:4 --stats
grep_out stats '^parse [0-9.]+ ms, lower [0-9.]+ ms, optimize [0-9.]+ ms, codegen [0-9.]+ ms, load [0-9.]+ ms$'
grep_out stats 'kernel time: min [0-9.]+ ms, median [0-9.]+ ms over 1 run'
expect repeat-3 0 "$ptxjit" run "$vec" -k vec_add -b 4 --arg 'f32[4]:iota' --arg 'f32[4]:iota' \
    --arg 'f32[4]:zeros' --arg s32:4 --repeat 3 --print 2
grep_out repeat-3 'kernel time: min [0-9.]+ ms, median [0-9.]+ ms over 3 runs'
grep_out repeat-3 '^0: +0 +2 +4 +6$'

# printf: the whole output, ordered by block (linear id) then thread, with
# two workers running blocks concurrently
pk=$tests/ptx/corpus/printf_kernel.sm_80.ptx
expect printf-3d 0 env PTXJIT_THREADS=2 "$ptxjit" run "$pk" -k print_grid_info -g 3,2,2 -b 10,3,2
: >"$tmp/want"
for bz in 0 1; do for by in 0 1; do for bx in 0 1 2; do
    for tz in 0 1; do for ty in 0 1 2; do for tx in 0 1 2 3 4 5 6 7 8 9; do
        gid=$(( (bx + 3 * (by + 2 * bz)) * 60 + tx + 10 * (ty + 3 * tz) ))
        if [ $((gid % 64)) = 0 ]; then
            echo "block ($bx,$by,$bz) thread ($tx,$ty,$tz) of grid (3,2,2) x block (10,3,2)" >>"$tmp/want"
        fi
        [ "$gid" = 0 ] && echo "no-args line" >>"$tmp/want"
    done; done; done
done; done; done
cmp -s "$tmp/out" "$tmp/want" || { echo "FAIL printf-3d: output differs"; diff "$tmp/want" "$tmp/out" | head; fails=$((fails + 1)); }

# without -b the block is the kernel's .reqntid
cat >"$tmp/reqntid.ptx" <<'PTX'
.version 7.0
.target sm_80
.address_size 64
// out[tid.x + ntid.x * tid.y] = ntid.x * 1000 + ntid.y * 100 + tid.x
.visible .entry req(.param .u64 out)
.reqntid 6, 2, 1
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %ntid.y;
    mad.lo.u32 %r5, %r3, %r2, %r1;
    mul.lo.u32 %r6, %r3, 1000;
    mad.lo.u32 %r6, %r4, 100, %r6;
    add.u32 %r6, %r6, %r1;
    mul.wide.u32 %rd2, %r5, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}
PTX
expect reqntid 0 "$ptxjit" run "$tmp/reqntid.ptx" --arg 'u32[13]:zeros' --print 0
grep_out reqntid '^0: 6200 6201 6202 6203 6204 6205 6200 6201$'
grep_out reqntid '^8: 6202 6203 6204 6205 +0$'
# and without .reqntid the default block is 1 thread
sed '/\.reqntid/d' "$tmp/reqntid.ptx" >"$tmp/noreq.ptx"
expect no-reqntid 0 "$ptxjit" run "$tmp/noreq.ptx" --arg 'u32[2]:zeros' --print 0
grep_out no-reqntid '^0: 1100 +0$'

# PTXJIT_PERF_MAP=1 names the kernel's code for perf in /tmp/perf-PID.map,
# compiled (cache miss) or loaded from the cache (hit)
for pass in miss hit; do
    PTXJIT_PERF_MAP=1 PTXJIT_CACHE_PATH="$tmp/perf-cache" "$ptxjit" run "$vec" -k vec_add \
        --arg 'f32[32]:iota' --arg 'f32[32]:iota' --arg 'f32[32]:zeros' --arg s32:32 \
        --stats >"$tmp/out" 2>&1 &
    pid=$!
    wait "$pid"
    grep_out "perf-map-$pass" "cache: $pass"
    map=/tmp/perf-$pid.map
    if ! grep -Eq '^[0-9a-f]{6,} [0-9a-f]+ ptxjit\.entry\..*vec_add$' "$map" 2>/dev/null; then
        echo "FAIL perf-map-$pass: $map lacks vec_add"; cat "$map" 2>/dev/null; fails=$((fails + 1))
    fi
    rm -f "$map"
done

if [ "$fails" = 0 ]; then echo "run contract: all checks passed"; fi
exit $((fails > 0))
