#!/usr/bin/env bash
# The compilation cache from the command line: `ptxjit run --stats` says
# miss then hit (a hit shows no parse/lower/LLVM time), --no-cache and
# PTXJIT_CACHE_DISABLE turn it off, `ptxjit cache stats|clear`, the
# default locations (~/.cache/ptxjit, $XDG_CACHE_HOME/ptxjit, mode 0700),
# PTXJIT_CACHE_MAXSIZE, an unwritable or full directory (the run succeeds
# with one warning), a damaged entry (reported on PTXJIT_DEBUG=cache,
# recompiled), and concurrent runs on one directory.  A run stores two
# entries: the module's (metadata, variables) and its kernel's.
set -u
ptxjit=$1
tests=$2
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vec=$tests/ptx/corpus/vector_ops.sm_80.ptx
. "$tests/cli/lib.sh"
unset PTXJIT_CACHE_DISABLE PTXJIT_CACHE_MAXSIZE PTXJIT_DEBUG XDG_CACHE_HOME
export PTXJIT_CACHE_PATH=$tmp/cache

# count_out NAME REGEX N: exactly N lines of the output match
count_out() {
    local n
    n=$(grep -Ec -- "$2" "$tmp/out")
    if [ "$n" != "$3" ]; then
        echo "FAIL $1: $n lines match /$2/, want $3"; sed 's/^/  | /' "$tmp/out"; fails=$((fails + 1))
    fi
}
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

# vec_add of iota and 0.5: the reference is 0.5, 1.5, 2.5, ...
run_vec() {
    "$ptxjit" run "$vec" -k vec_add -g 3 -b 100 --arg 'f32[300]:iota' \
        --arg 'f32[300]:fill=0.5' --arg 'f32[300]:zeros' --arg s32:300 --print 2:10 "$@"
}
right='^0: +0\.5 +1\.5 +2\.5 +3\.5 +4\.5 +5\.5 +6\.5 +7\.5$'

expect stats-empty 0 "$ptxjit" cache stats
grep_out stats-empty "^directory: $tmp/cache\$"
grep_out stats-empty '^entries: +0$'

expect cold 0 run_vec --stats
grep_out cold "$right"
grep_out cold "^cache: miss, [0-9.]+ ms \\($tmp/cache\\)\$"
grep_out cold '^kernels: 1 compiled, 0 from the cache$'
[ "$(stat -c %a "$tmp/cache")" = 700 ] || fail "cache directory mode $(stat -c %a "$tmp/cache"), want 700"

expect warm 0 run_vec --stats
grep_out warm "$right"
grep_out warm "^cache: hit, [0-9.]+ ms"
grep_out warm '^parse 0\.000 ms, lower 0\.000 ms, optimize 0\.000 ms, codegen 0\.000 ms, load [0-9.]+ ms$'
grep_out warm '^kernels: 0 compiled, 1 from the cache$'

expect no-cache 0 run_vec --stats --no-cache
grep_out no-cache "$right"
grep_out no-cache '^cache: off$'
expect disabled 0 env PTXJIT_CACHE_DISABLE=1 "$ptxjit" run "$vec" -k vec_add -g 3 -b 100 \
    --arg 'f32[300]:iota' --arg 'f32[300]:fill=0.5' --arg 'f32[300]:zeros' --arg s32:300 \
    --print 2:10 --stats
grep_out disabled '^cache: off$'

expect stats 0 "$ptxjit" cache stats
grep_out stats '^entries: +2$'
grep_out stats '^hits: +1$'
grep_out stats '^misses: +1$'
grep_out stats '^size: +[1-9][0-9]* bytes \([0-9.]+ MiB of at most 256\.0 MiB\)$'
expect stats-off 0 env PTXJIT_CACHE_DISABLE=1 "$ptxjit" cache stats
grep_out stats-off 'disabled by PTXJIT_CACHE_DISABLE'

# damaged entries: each reported once on the debug channel, recompiled, right
for entry in "$tmp/cache"/*.pjc; do
    head -c 200 "$entry" >"$tmp/cut" && cat "$tmp/cut" >"$entry"
done
expect damaged 0 env PTXJIT_DEBUG=cache "$ptxjit" run "$vec" -k vec_add -g 3 -b 100 \
    --arg 'f32[300]:iota' --arg 'f32[300]:fill=0.5' --arg 'f32[300]:zeros' --arg s32:300 \
    --print 2:10 --stats
grep_out damaged "$right"
count_out damaged 'ptxjit: cache: bad entry .*truncated' 2
grep_out damaged '^cache: miss'
expect repaired 0 run_vec --stats
grep_out repaired '^cache: hit'

expect clear 0 "$ptxjit" cache clear
grep_out clear "^removed 2 entries from $tmp/cache\$"
expect cleared 0 "$ptxjit" cache stats
grep_out cleared '^entries: +0$'
grep_out cleared '^hits: +0$'
expect after-clear 0 run_vec --stats
grep_out after-clear '^cache: miss'

expect cache-usage 2 "$ptxjit" cache
grep_out cache-usage "expected 'stats' or 'clear'"
expect cache-usage2 2 "$ptxjit" cache purge

expect help 0 "$ptxjit" --help
grep_out help 'cache stats'
grep_out help 'cache clear'
grep_out help -- '--no-cache'
grep_out help 'PTXJIT_CACHE_PATH'
grep_out help 'PTXJIT_CACHE_MAXSIZE'
grep_out help 'PTXJIT_CACHE_DISABLE'

# default locations: ~/.cache/ptxjit, else $XDG_CACHE_HOME/ptxjit
mkdir -p "$tmp/home"
expect home 0 env -u PTXJIT_CACHE_PATH HOME="$tmp/home" "$ptxjit" run "$vec" -k vec_add \
    -g 3 -b 100 --arg 'f32[300]:iota' --arg 'f32[300]:fill=0.5' --arg 'f32[300]:zeros' \
    --arg s32:300 --print 2:10 --stats
grep_out home "^cache: miss, [0-9.]+ ms \\($tmp/home/.cache/ptxjit\\)\$"
ls "$tmp/home/.cache/ptxjit"/*.pjc >/dev/null 2>&1 || fail "home: no entry in ~/.cache/ptxjit"
[ "$(stat -c %a "$tmp/home/.cache")" = 700 ] || fail "home: ~/.cache made with mode $(stat -c %a "$tmp/home/.cache")"
expect xdg 0 env -u PTXJIT_CACHE_PATH HOME="$tmp/home" XDG_CACHE_HOME="$tmp/xdg" \
    "$ptxjit" cache stats
grep_out xdg "^directory: $tmp/xdg/ptxjit\$"

# PTXJIT_CACHE_MAXSIZE: a bound smaller than an entry keeps nothing; a
# malformed one warns and uses the default
expect maxsize 0 env PTXJIT_CACHE_PATH="$tmp/small" PTXJIT_CACHE_MAXSIZE=1K "$ptxjit" run \
    "$vec" -k vec_add -g 3 -b 100 --arg 'f32[300]:iota' --arg 'f32[300]:fill=0.5' \
    --arg 'f32[300]:zeros' --arg s32:300 --print 2:10
grep_out maxsize "$right"
[ -z "$(ls "$tmp/small"/*.pjc 2>/dev/null)" ] || fail "maxsize: an entry above 1K was kept"
expect maxsize-bad 0 env PTXJIT_CACHE_MAXSIZE=lots "$ptxjit" cache stats
grep_out maxsize-bad "warning: PTXJIT_CACHE_MAXSIZE='lots'"
grep_out maxsize-bad 'at most 256\.0 MiB'

# an unwritable directory (a file is in the way) and a full one (a file
# size limit the kernel's entry exceeds): the run succeeds, with one
# warning, and no partial file is left
touch "$tmp/file"
expect unwritable 0 env PTXJIT_CACHE_PATH="$tmp/file/cache" "$ptxjit" run "$vec" -k vec_add \
    -g 3 -b 100 --arg 'f32[300]:iota' --arg 'f32[300]:fill=0.5' --arg 'f32[300]:zeros' \
    --arg s32:300 --print 2:10
grep_out unwritable "$right"
count_out unwritable 'warning' 1
grep_out unwritable "compilation cache '$tmp/file/cache': creating the directory: Not a directory"
# a cache others can write to (a shared directory, or an entry someone
# could have planted): not trusted - one warning, the run compiles for
# itself and is right
shared() { PTXJIT_CACHE_PATH="$tmp/$1" run_vec; }
for kind in dir entry; do
    shared "shared-$kind" >/dev/null 2>&1 # leaves this run's entries there
    if [ $kind = dir ]; then chmod 777 "$tmp/shared-dir"; else chmod 666 "$tmp/shared-entry"/*.pjc; fi
    expect "shared-$kind" 0 shared "shared-$kind"
    grep_out "shared-$kind" "$right"
    count_out "shared-$kind" 'warning' 1
    grep_out "shared-$kind" "is writable by other users; continuing without the cache"
done
full() { (ulimit -f 1; trap '' XFSZ; PTXJIT_CACHE_PATH="$tmp/full" run_vec); }
expect full 0 full
grep_out full "$right"
count_out full 'warning' 1
grep_out full 'File too large'
[ -z "$(ls -A "$tmp/full" | grep -v '^stats$' | grep -v '\.pjc$')" ] || fail "full: files left in the cache: $(ls -A "$tmp/full")"

# concurrent runs of the same and of different PTX on one directory
sed 's/vec_add/vec_add2/g' "$vec" >"$tmp/vec2.ptx"
pids=()
for i in 1 2 3 4 5 6; do
    if [ $((i % 2)) = 0 ]; then f=$vec k=vec_add; else f=$tmp/vec2.ptx k=vec_add2; fi
    PTXJIT_CACHE_PATH=$tmp/shared "$ptxjit" run "$f" -k "$k" -g 3 -b 100 \
        --arg 'f32[300]:iota' --arg 'f32[300]:fill=0.5' --arg 'f32[300]:zeros' --arg s32:300 \
        --print 2:10 >"$tmp/par$i" 2>&1 &
    pids+=($!)
done
for i in 1 2 3 4 5 6; do
    wait "${pids[$((i - 1))]}" || fail "concurrent run $i exited $?"
    grep -Eq "$right" "$tmp/par$i" || { fail "concurrent run $i: wrong output"; cat "$tmp/par$i"; }
done
expect concurrent-stats 0 env PTXJIT_CACHE_PATH="$tmp/shared" "$ptxjit" cache stats
grep_out concurrent-stats '^entries: +4$'
count_out concurrent-stats '^(hits|misses): +[0-6]$' 2

if [ "$fails" = 0 ]; then echo "cache CLI: all checks passed"; fi
exit $((fails > 0))
