#!/usr/bin/env bash
# Installs everything Tide needs to build, test and run its demo on a fresh Debian 12 machine:
# Debian packages through apt-get (Java 17 and Maven build the interoperability tests' jar,
# interop/java), and DuckDB 1.4.4 (library and header) from the npm registry into third_party/duckdb/
# (ignored by git), each tarball checked against its pinned sha256.
# Idempotent: a second run only checks what is there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

debian_packages=(
  build-essential cmake pkg-config git ca-certificates ccache
  libpq-dev postgresql-15 postgresql-client-15
  libzstd-dev zlib1g-dev libsnappy-dev nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev libssl-dev libroaring-dev librocksdb-dev
  libcpp-httplib-dev
  chromium python3 python3-pip python3-prometheus-client
  python3-venv python3-psycopg2
  libyaml-cpp-dev libedit-dev
  openjdk-17-jdk-headless maven

)
# npm comes with Node.js; Debian's npm package only where no npm is installed already.
command -v npm >/dev/null 2>&1 || debian_packages+=(nodejs npm)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "install-deps: installing Debian packages: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python modules the tests use (tests/sync/read_metrics.py parses /metrics with prometheus_client), for
# the python3 first on PATH: Debian's package serves Debian's python3; another one gets it from PyPI.
for module in prometheus_client; do
  if ! python3 -c "import $module" 2>/dev/null; then
    echo "install-deps: installing the Python module $module from PyPI"
    python3 -m pip install --quiet "$module"
  fi
done

# DuckDB: the npm registry ships the prebuilt library and the header in two packages.
duck_dir="$root/third_party/duckdb"
lib_pkg="@duckdb/node-bindings-linux-x64@1.4.4-r.4"
lib_tgz="duckdb-node-bindings-linux-x64-1.4.4-r.4.tgz"
lib_sha="732fac4dc6b8f198870b9c4bb6ddf13544466daca00ad28ba2f1d80de5d7aa4b"
hdr_pkg="duckdb@1.4.4"
hdr_tgz="duckdb-1.4.4.tgz"
hdr_sha="5bb967dcbcd517670ba5f169f238fb9d6787e53752c60ebe24386169d76941ed"

if [ -f "$duck_dir/lib/libduckdb.so" ] && [ -f "$duck_dir/include/duckdb.h" ]; then
  exit 0
fi
mkdir -p "$duck_dir/download" "$duck_dir/lib" "$duck_dir/include"
cd "$duck_dir/download"
fetch() {  # package, tarball name, sha256
  if [ ! -f "$2" ] || ! echo "$3  $2" | sha256sum -c --quiet - 2>/dev/null; then
    rm -f "$2"
    echo "install-deps: fetching $1 from the npm registry"
    npm pack --silent "$1" >/dev/null
  fi
  if ! echo "$3  $2" | sha256sum -c --quiet -; then
    echo "install-deps: $2 does not match its pinned sha256 $3; refusing to use it" >&2
    exit 1
  fi
}
fetch "$lib_pkg" "$lib_tgz" "$lib_sha"
fetch "$hdr_pkg" "$hdr_tgz" "$hdr_sha"
rm -rf unpack && mkdir unpack
tar -xzf "$lib_tgz" -C unpack
tar -xzf "$hdr_tgz" -C unpack package/src/duckdb/src/include/duckdb.h
so="$(find unpack -name 'libduckdb.so' | head -1)"
[ -n "$so" ] || { echo "install-deps: libduckdb.so not found in $lib_tgz" >&2; exit 1; }
cp "$so" "$duck_dir/lib/libduckdb.so"
cp unpack/package/src/duckdb/src/include/duckdb.h "$duck_dir/include/duckdb.h"
rm -rf unpack
echo "install-deps: DuckDB 1.4.4 ready in $duck_dir"
