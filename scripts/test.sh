#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test with CTest (unit tests,
# compatibility tests on the Java-written fixtures, interoperability tests with Apache Paimon's Java
# library and with pypaimon, and integration tests on a PostgreSQL server that the tests start
# themselves). Exit code 0 only when all pass.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# Warnings are errors here, and so in CI.
TIDE_CMAKE_ARGS="-DTIDE_WERROR=ON ${TIDE_CMAKE_ARGS:-}" bash scripts/build.sh
# The Java side of the interoperability tests (tests/interop), built once here.
bash scripts/build-interop.sh
# The pypaimon interop tests read with the pinned pypaimon in interop/python/.venv: made here, and a
# failure to make it fails the test command (no test skips for want of it).
bash scripts/setup-python-interop.sh
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 900
