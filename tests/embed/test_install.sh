#!/usr/bin/env bash
# The installed layout works for the three ways ptxjit is used: installs
# the build into a scratch prefix, builds tests/embed/client.c there with
# nothing but `pkg-config ptxjit` and runs it; checks that libptxjit.so
# exports exactly the functions of ptxjit.h, that `ptxjit` runs, and that
# libcuda.so.1 sits in lib/ptxjit (never on the default library path).
#   test_install.sh BUILD_DIR
set -euo pipefail
build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
pkg-config --exists ptxjit
# shellcheck disable=SC2046
cc -std=c11 -O1 -o "$work/client" "$src/tests/embed/client.c" $(pkg-config --cflags --libs ptxjit) -lm
LD_LIBRARY_PATH=$prefix/lib PTXJIT_CACHE_PATH=$work/cache "$work/client"

want=$(grep -oE '\bptxjit_[a-z_]+\(' "$src/include/ptxjit/ptxjit.h" | tr -d '(' | sort -u)
have=$(nm -D --defined-only "$prefix/lib/libptxjit.so" | awk '{print $3}' | sort -u)
if [ "$want" != "$have" ]; then
    echo "libptxjit.so exports differ from ptxjit.h:"
    diff <(echo "$want") <(echo "$have") || true
    exit 1
fi
echo "libptxjit.so exports the $(echo "$have" | wc -l) functions of ptxjit.h"

"$prefix/bin/ptxjit" --version
[ -e "$prefix/lib/ptxjit/libcuda.so.1" ] || { echo "no lib/ptxjit/libcuda.so.1"; exit 1; }
[ ! -e "$prefix/lib/libcuda.so.1" ] || { echo "libcuda.so.1 on the default path"; exit 1; }
echo "install layout ok"
