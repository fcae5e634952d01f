#!/usr/bin/env bash
# Installs the dependencies (scripts/install-deps.sh), then configures and builds Tide into build/.
# The binary is build/tide. Set TIDE_BUILD_TYPE (default RelWithDebInfo) to change the build type.
# Arguments, if any, are the targets to build (e.g. `bash scripts/build.sh tide`); default: everything.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/install-deps.sh
# TIDE_CMAKE_ARGS: extra CMake arguments (scripts/test.sh passes -DTIDE_WERROR=ON).
# With ccache on the PATH, compiles go through it; paths are made relative to the checkout so that
# several checkouts of the tree share one cache.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
fi
# shellcheck disable=SC2086
cmake -S . -B build "${launcher[@]}" -DCMAKE_BUILD_TYPE="${TIDE_BUILD_TYPE:-RelWithDebInfo}" ${TIDE_CMAKE_ARGS:-} >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
