#!/usr/bin/env bash
# The ptxjit command-line contract: exit codes (0 ok, 2 usage/PTX error),
# diagnostics as FILE:LINE:COL: error: MESSAGE, --help and --version.
set -u
ptxjit=$1
tests=$2
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib.sh"

expect help 0 "$ptxjit" --help
grep_out help '^usage: ptxjit'
expect version 0 "$ptxjit" --version
grep_out version '^ptxjit [0-9]+\.[0-9]+\.[0-9]+ \(LLVM 19\.[0-9]+\.[0-9]+\)$'
expect no-args 2 "$ptxjit"
expect unknown-command 2 "$ptxjit" frobnicate
grep_out unknown-command "unknown command 'frobnicate'"
expect missing-file 2 "$ptxjit" check "$tmp/nope.ptx"
grep_out missing-file "cannot read '.*nope.ptx': No such file or directory"

expect valid 0 "$ptxjit" check "$tests/ptx/corpus/ptxjit-features.hand.ptx"
[ -s "$tmp/out" ] && { echo "FAIL valid: check printed output for a valid file"; fails=$((fails + 1)); }

printf '.version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{\n    .reg .b32 %%r;\n    add.u32 %%r, %%r, %%q;\n    bogus.u32 %%r;\n}\n' >"$tmp/bad.ptx"
expect invalid 2 "$ptxjit" check "$tmp/bad.ptx"
grep_out invalid "^$tmp/bad.ptx:8:5: error: unknown instruction 'bogus'$"
grep_out invalid '^        bogus\.u32 %r;$'
grep_out invalid '^        \^$'
expect invalid-check 2 "$ptxjit" check "$tmp/bad.ptx"

printf '.version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{\n    .reg .b32 %%r;\n    add.u32 %%r, %%r, %%q;\n}\n' >"$tmp/undecl.ptx"
expect undeclared 2 "$ptxjit" check "$tmp/undecl.ptx"
grep_out undeclared "^$tmp/undecl.ptx:7:21: error: use of undeclared identifier '%q'$"

expect stdin 2 bash -c "\"$ptxjit\" check - < \"$tmp/undecl.ptx\""
grep_out stdin "^<stdin>:7:21: error:"

expect print 0 "$ptxjit" print "$tests/ptx/corpus/ptxjit-features.hand.ptx"
grep_out print '^\.visible \.entry features\('

head -c 3000 /dev/urandom >"$tmp/random.ptx"
expect random-bytes 2 "$ptxjit" check "$tmp/random.ptx"

expect run-no-file 2 "$ptxjit" run
grep_out run-no-file "no PTX file given"

if [ "$fails" = 0 ]; then echo "cli contract: all checks passed"; fi
exit $((fails > 0))
