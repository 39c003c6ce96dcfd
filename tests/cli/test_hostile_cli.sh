#!/usr/bin/env bash
# `ptxjit run` and `ptxjit check` against careless or hostile input: a
# kernel overrunning its --arg buffers (guard pages: silent within the
# buffer's last page, else a fault; the host never corrupts), a misaligned
# load (a fault, as on a GPU), absurd sizes
# and endless inputs (errors, never a hang or a crash), output errors.
set -u
ptxjit=$1
tests=$2
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vec=$tests/ptx/corpus/vector_ops.sm_80.ptx

. "$(dirname "$0")/lib.sh"

# vec_add over n elements of 16-float buffers: n = 1024 stays within each
# buffer's page (silent, as within a GPU allocation); n = 2048 reaches the
# guard page after it: a fault, exit 1, and no heap corruption on the way out.
expect overrun-in-page 0 "$ptxjit" run "$vec" -k vec_add -g 4 -b 256 --arg 'f32[16]:iota' \
    --arg 'f32[16]:iota' --arg 'f32[16]:zeros' --arg s32:1024 --print 2:4
grep_out overrun-in-page '0: +0 +2 +4 +6$'
expect overrun-guard 1 "$ptxjit" run "$vec" -k vec_add -g 8 -b 256 --arg 'f32[16]:iota' \
    --arg 'f32[16]:iota' --arg 'f32[16]:zeros' --arg s32:2048
grep_out overrun-guard "kernel 'vec_add': invalid memory access"

# A misaligned load faults as on a GPU (CUDA_ERROR_MISALIGNED_ADDRESS): exit 1,
# naming the kernel, the address's alignment and the PTX line; aligned, it runs.
cat >"$tmp/shift.ptx" <<'PTX'
.version 7.0
.target sm_80
.address_size 64
.visible .entry shifted_load(.param .u64 p, .param .u64 off, .param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [p];
    ld.param.u64 %rd2, [off];
    ld.param.u64 %rd3, [out];
    add.s64 %rd4, %rd1, %rd2;
    ld.global.u32 %r1, [%rd4];
    st.global.u32 [%rd3], %r1;
    ret;
}
PTX
expect misaligned 1 "$ptxjit" run "$tmp/shift.ptx" -k shifted_load -g 1 -b 32 --arg 'u32[8]:iota' \
    --arg u64:6 --arg 'u32[1]:zeros'
grep_out misaligned "kernel 'shifted_load': misaligned address 0x[0-9a-f]*6 for a 4-byte access \(PTX line 12\)"
expect aligned 0 "$ptxjit" run "$tmp/shift.ptx" -k shifted_load -g 1 -b 32 --arg 'u32[8]:iota' \
    --arg u64:8 --arg 'u32[1]:zeros' --print 2
grep_out aligned '^ *0: +2$'

# Device malloc takes from an 8 MiB heap and returns NULL when it is used
# up (the loop stops): 4 KiB blocks, so at most 2048 of them.
cat >"$tmp/heap.ptx" <<'PTX'
.version 7.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.visible .entry take(.param .u64 ptrs, .param .u32 max, .param .u64 size, .param .u64 count)
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [ptrs];
    ld.param.u32 %r1, [max];
    ld.param.u64 %rd2, [size];
    ld.param.u64 %rd3, [count];
    mov.u32 %r2, 0;
LOOP:
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd2;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd4, [retval0];
    }
    setp.eq.u64 %p2, %rd4, 0;
    @%p2 bra DONE;
    mul.wide.u32 %rd5, %r2, 8;
    add.s64 %rd6, %rd1, %rd5;
    st.global.u64 [%rd6], %rd4;
    st.u8 [%rd4], %r2;
    add.s64 %rd7, %rd4, %rd2;
    st.u8 [%rd7+-1], %r2;
    add.u32 %r2, %r2, 1;
    bra.uni LOOP;
DONE:
    st.global.u32 [%rd3], %r2;
    ret;
}
PTX
expect heap-limit 0 "$ptxjit" run "$tmp/heap.ptx" -k take -g 1 -b 1 --arg 'u64[65536]:zeros' \
    --arg u32:65536 --arg u64:4096 --arg 'u32[1]:zeros' --print 3
taken=$(sed -n 's/^ *0: *\([0-9]*\)$/\1/p' "$tmp/out")
if [ -z "$taken" ] || [ "$taken" -gt 2048 ] || [ "$taken" -lt 1024 ]; then
    echo "FAIL heap-limit: malloc gave '$taken' 4 KiB blocks from an 8 MiB heap"; fails=$((fails + 1))
fi

# Absurd sizes are errors with file:line:col, for check and run alike.
printf '.version 7.0\n.target sm_80\n.address_size 64\n.global .align 4 .b8 big[1099511627776];\n.const .align 4 .b8 c[1099511627776];\n' >"$tmp/huge.ptx"
expect huge-check 2 "$ptxjit" check "$tmp/huge.ptx"
grep_out huge-check "huge.ptx:4:22: error: .global variable 'big' is too large"
grep_out huge-check "huge.ptx:5:21: error: .const variable 'c' is too large"
expect huge-run 2 "$ptxjit" run "$tmp/huge.ptx" -k nothing
grep_out huge-run "huge.ptx:4:22: error"

# Shared memory within a GPU's limits, per kernel: 200,000 bytes of static
# .shared (ptxas allows 48 KiB) is an error at the kernel; a block's static
# and dynamic shared memory together at most the 227 KiB a GPU gives.
printf '.version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %%r<2>;\n.shared .align 4 .b8 s[200000];\nmov.u32 %%r1, 1;\nst.shared.u32 [s], %%r1;\nret;\n}\n' >"$tmp/smem.ptx"
expect static-shared 2 "$ptxjit" run "$tmp/smem.ptx" --arg u64:0
grep_out static-shared "smem.ptx:4:17: error: kernel 'k' uses too much shared data \(200000 bytes"
for bytes in 1073741824 232449; do
    expect "dynamic-shared-$bytes" 2 "$ptxjit" run "$vec" -k vec_add --shared $bytes \
        --arg 'f32[4]:iota' --arg 'f32[4]:iota' --arg 'f32[4]:zeros' --arg s32:4
    grep_out "dynamic-shared-$bytes" "$bytes bytes of shared memory per block .* exceed the limit of 232448"
done
expect dynamic-shared-limit 0 "$ptxjit" run "$vec" -k vec_add --shared 232448 \
    --arg 'f32[4]:iota' --arg 'f32[4]:iota' --arg 'f32[4]:zeros' --arg s32:4

# Endless inputs end: read with a bound, an error at once (timeout: a hang fails).
expect endless-check 2 timeout 60 "$ptxjit" check /dev/zero
grep_out endless-check "cannot read '/dev/zero': File too large \(PTX input is limited to 64 MiB\)"
expect endless-run 2 timeout 60 "$ptxjit" run /dev/zero -k k
expect endless-arg 2 timeout 60 "$ptxjit" run "$vec" -k vec_add --arg 'f32[4]:file=/dev/zero' \
    --arg 'f32[4]:zeros' --arg 'f32[4]:zeros' --arg s32:4
grep_out endless-arg "file '/dev/zero' is more than 16 bytes but f32\[4\] needs 16 bytes"

# Under an address-space limit (ulimit -v 4 GiB; 1.5 GiB) launches still run:
# the shared-memory window takes less than its usual 4 GiB reservation.
# (A sanitizer build cannot start under such a limit at all: skipped there.)
for kb in 4194304 1572864; do
    if (ulimit -v $kb && "$ptxjit" --version) >/dev/null 2>&1; then
        expect "ulimit-v-$kb" 0 bash -c "ulimit -v $kb && exec \"\$0\" \"\$@\"" "$ptxjit" run "$vec" \
            -k vec_add -g 4 -b 64 --arg 'f32[256]:iota' --arg 'f32[256]:fill=1' \
            --arg 'f32[256]:zeros' --arg s32:256 --print 2:4
        grep_out "ulimit-v-$kb" '0: +1 +2 +3 +4$'
    else
        echo "ulimit-v-$kb: skipped (this build cannot start under ulimit -v $kb)"
    fi
done

# A compile that could not fit under the limit is refused before LLVM starts
# (which would abort the process): 300,000 statements under 768 MiB, exit 1.
awk 'BEGIN { print ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{";
             print ".reg .b32 %r<3>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, 1;";
             for (i = 0; i < 300000; i++) print "add.s32 %r1, %r1, %r1;";
             print "st.global.u32 [%rd1], %r1;\nret;\n}" }' >"$tmp/long.ptx"
if (ulimit -v 786432 && "$ptxjit" --version) >/dev/null 2>&1; then
    expect ulimit-v-compile 1 bash -c "ulimit -v 786432 && exec \"\$0\" \"\$@\"" "$ptxjit" run \
        "$tmp/long.ptx" -k k --arg 'u32[1]:zeros'
    grep_out ulimit-v-compile "out of memory"
else
    echo "ulimit-v-compile: skipped (this build cannot start under ulimit -v 786432)"
fi

# Output that cannot be written is a failure (exit 1, a message), not lost.
if [ -w /dev/full ]; then
    expect print-full 1 bash -c '"$0" "$@" >/dev/full' "$ptxjit" run "$vec" -k vec_add -g 1 -b 32 \
        --arg 'f32[32]:iota' --arg 'f32[32]:iota' --arg 'f32[32]:zeros' --arg s32:32 --print 2:4
    grep_out print-full "ptxjit run: cannot write the output: No space left on device"
else
    echo "print-full: skipped (no /dev/full)"
fi

[ "$fails" = 0 ] && echo "hostile cli: all passed"
exit $((fails > 0))
