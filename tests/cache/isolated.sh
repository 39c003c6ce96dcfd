#!/bin/sh
# isolated.sh [--dir DIR] CMD...: runs CMD with a compilation cache of its
# own, so that tests never touch ~/.cache and never see each other's
# entries.  Without --dir the cache is a fresh temporary directory, deleted
# afterwards; with --dir it is DIR, emptied first and kept (warm.sh runs the
# same test again on it).
keep=
if [ "$1" = --dir ]; then
    keep=$2
    shift 2
    rm -rf "$keep" && mkdir -p "$keep" || exit 1
    PTXJIT_CACHE_PATH=$keep
else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxjit-test-cache.XXXXXX") || exit 1
    PTXJIT_CACHE_PATH=$tmp/cache
fi
export PTXJIT_CACHE_PATH
unset PTXJIT_CACHE_DISABLE PTXJIT_CACHE_MAXSIZE
"$@"
rc=$?
[ -n "$keep" ] || rm -rf "$tmp"
exit $rc
