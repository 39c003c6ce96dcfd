#!/usr/bin/env bash
# `ptxjit run` and `ptxjit check` against careless or hostile input: a
# kernel overrunning its --arg buffers (guard pages: silent within the
# buffer's last page, else a fault; the host never corrupts), absurd sizes
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

[ "$fails" = 0 ] && echo "hostile cli: all passed"
exit $((fails > 0))
