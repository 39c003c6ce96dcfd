#!/usr/bin/env bash
# Installs the Debian packages ptxjit needs, only those missing.
# Usage: scripts/deps.sh [--with-fuzz] [--with-bench]
#   --with-fuzz   clang and its runtime, for the libFuzzer targets
#   --with-bench  pocl and the OpenCL headers/loader: the optional pocl peer
#                 of bench_kernels (never needed to build or test ptxjit)
set -euo pipefail
pkgs=(cmake make gcc pkg-config llvm-19-dev libzstd-dev libcmocka-dev)
for opt in "$@"; do
    case "$opt" in
        --with-fuzz) pkgs+=(clang-19 libclang-rt-19-dev) ;;
        --with-bench) pkgs+=(pocl-opencl-icd ocl-icd-opencl-dev opencl-headers) ;;
        *) echo "usage: $0 [--with-fuzz] [--with-bench]" >&2; exit 2 ;;
    esac
done
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ptxjit: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
