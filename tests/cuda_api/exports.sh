#!/bin/sh
# exports.sh LIB PROCS_DEF: the library exports exactly the symbols
# procs.def lists (the cu* API, nothing internal), and its soname is
# libcuda.so.1.
lib=$1 def=$2
command -v nm >/dev/null || { echo "skipped: no nm"; exit 77; }
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
listed=$(sed -n 's/^P([^,]*, [0-9]*, [A-Z_]*, \([A-Za-z0-9_]*\))$/\1/p' "$def" | sort -u)
if [ "$exported" != "$listed" ]; then
    tmp=$(mktemp -d) || exit 1
    echo "$exported" > "$tmp/exported"
    echo "$listed" > "$tmp/listed"
    echo "< exported only, > listed only:"
    diff "$tmp/exported" "$tmp/listed" | head -20
    rm -rf "$tmp"
    exit 1
fi
n=$(echo "$exported" | wc -l)
soname=$(readelf -d "$lib" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ -z "$soname" ] || [ "$soname" = libcuda.so.1 ] || { echo "soname $soname"; exit 1; }
echo "ok: $n symbols exported, all in procs.def; soname ${soname:-unchecked}"
