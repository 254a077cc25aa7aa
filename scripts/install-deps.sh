#!/usr/bin/env bash
# Installs everything Tandem needs to build and test, from Debian 12 packages.
# Idempotent: when every package is already present it returns in well under a
# second without touching the network.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build git python3
  llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev libzstd-dev zlib1g-dev libedit-dev libxml2-dev
  verilator
  libgtest-dev libgmock-dev libbenchmark-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or install them yourself) and try again" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
