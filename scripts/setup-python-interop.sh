#!/usr/bin/env bash
# Makes interop/python/.venv (ignored by git): a Python virtual environment with pypaimon as pinned in
# interop/python/requirements.txt, for the pypaimon interop tests (tests/interop/pypaimon_*_test.cc).
# Idempotent: when the environment already has the pinned version, it only checks it. Any failure
# (no python3, no venv module, PyPI unreachable) is an error: the tests must not skip for want of it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/interop/python/.venv"
requirements="$root/interop/python/requirements.txt"
pinned="$(grep -E '^pypaimon==' "$requirements" | cut -d= -f3)"

if [ -x "$venv/bin/python" ] &&
   [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("pypaimon"))' 2>/dev/null)" = "$pinned" ]; then
  exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "setup-python-interop: python3 is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
rm -rf "$venv"
echo "setup-python-interop: making $venv with pypaimon $pinned"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
"$venv/bin/python" -c 'import pypaimon.catalog.catalog_factory' \
  || { echo "setup-python-interop: pypaimon does not import in $venv" >&2; exit 1; }
echo "setup-python-interop: pypaimon $pinned ready"
