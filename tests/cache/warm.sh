#!/bin/sh
# warm.sh PTXJIT DIR CMD...: runs CMD again on the cache DIR that a first
# (cold) run of it filled (isolated.sh --dir DIR), and checks that the
# cached objects behave identically: CMD passes, and every module it loads
# comes from the cache (the statistics show no new miss and one hit for
# each load of the cold run).
ptxjit=$1 dir=$2
unset PTXJIT_CACHE_DISABLE PTXJIT_CACHE_MAXSIZE
shift 2
counts() { # prints "HITS MISSES"
    PTXJIT_CACHE_PATH=$dir "$ptxjit" cache stats |
        awk '$1 == "hits:" { h = $2 } $1 == "misses:" { m = $2 } END { print h + 0, m + 0 }'
}
before=$(counts) || exit 1
h1=${before% *} m1=${before#* }
if [ "$m1" -eq 0 ]; then
    echo "warm.sh: the cold run left no entries in $dir (run it first)"
    exit 1
fi
PTXJIT_CACHE_PATH=$dir "$@" || { echo "warm.sh: FAIL: the warm run failed"; exit 1; }
after=$(counts) || exit 1
h2=${after% *} m2=${after#* }
echo "warm.sh: cold run: $h1 hits, $m1 misses; warm run: $((h2 - h1)) hits, $((m2 - m1)) misses"
if [ "$m2" -ne "$m1" ] || [ $((h2 - h1)) -ne $((h1 + m1)) ]; then
    echo "warm.sh: FAIL: every load of the warm run should have been a hit"
    exit 1
fi
