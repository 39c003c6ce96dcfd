#!/usr/bin/env bash
# What ptxjit ships (the command, libptxjit.so, libcuda.so.1) has no
# untrusted library search path: every RPATH/RUNPATH entry is absolute or
# $ORIGIN-relative, none empty (an empty entry, as in "/usr/lib/llvm-19/lib:",
# means the current directory).  Exit 77 (skip) without readelf.
set -u
command -v readelf >/dev/null || { echo "skipped: no readelf"; exit 77; }
fails=0
for f in "$@"; do
    paths=$(readelf -d "$f" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p')
    for p in $paths; do
        case ":$p:" in
        *::*) echo "FAIL $f: empty entry in '$p'"; fails=$((fails + 1)) ;;
        esac
        IFS=: read -ra entries <<<"$p"
        for e in "${entries[@]}"; do
            case "$e" in
            /* | '$ORIGIN'*) ;;
            *) echo "FAIL $f: relative entry '$e' in '$p'"; fails=$((fails + 1)) ;;
            esac
        done
    done
done
[ "$fails" = 0 ] && echo "runpath: $# files clean"
exit $((fails > 0))
