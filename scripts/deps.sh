#!/usr/bin/env bash
# Installs the Debian packages ptxjit needs, only those missing.
# Usage: scripts/deps.sh [--with-fuzz]
set -euo pipefail
pkgs=(cmake make gcc pkg-config llvm-19-dev libzstd-dev libcmocka-dev)
[ "${1:-}" = "--with-fuzz" ] && pkgs+=(clang-19 libclang-rt-19-dev)
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
