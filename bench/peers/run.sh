#!/usr/bin/env bash
# The peer benchmark as one command: builds the peer's jar (Maven, bench/peers/pom.xml) when missing or
# older than its sources, checks the tide binary, then runs bench/peers/peer_bench.py, which starts its
# own PostgreSQL and runs `tide sync postgres` and Paimon's postgres_sync_table one after the other.
#
#   bash bench/peers/run.sh [--rows 2000000] [--burst N] [--copy-write-rate 2000] [--fresh-seconds 25]
#       [--fresh-rate 2000] [--peer-checkpoint-ms 1000] [--peer-parallelism 2] [--peer-heap 4g]
#       [--peer-chunk-size 8096] [--peer-backfill] [--peer-source-conf K=V] [--peer-table-conf K=V]
#       [--peer-flink-conf K=V] [--sides tide,paimon] [--timeout 3600] [--keep]
# A small run: bash bench/peers/run.sh --rows 10000 --fresh-seconds 10 (about 3 minutes); the full
# run (2,000,000 rows) took 40 minutes on 2026-12-03, 38 of them the peer's (docs/performance.md).
# Needs Java 17, Maven, the Debian packages of scripts/install-deps.sh (PostgreSQL 15,
# python3-psycopg2) and build/tide (`bash scripts/build.sh tide`).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tide="${TIDE_BIN:-$root/build/tide}"
jar="$here/target/paimon-peer.jar"
[ -x "$tide" ] || { echo "run.sh: $tide is missing: bash scripts/build.sh tide" >&2; exit 1; }
command -v java >/dev/null || { echo "run.sh: java is missing (Java 17)" >&2; exit 1; }
if [ ! -f "$jar" ] || [ -n "$(find "$here/pom.xml" "$here/src" -newer "$jar" -print -quit)" ]; then
  command -v mvn >/dev/null || { echo "run.sh: mvn is missing (Maven)" >&2; exit 1; }
  echo "run.sh: building $jar" >&2
  (cd "$here" && mvn -q -B package)
fi
# Debian's python3, where python3-psycopg2 is installed.
python=/usr/bin/python3
"$python" -c 'import psycopg2' 2>/dev/null || python=python3
exec "$python" "$here/peer_bench.py" --tide "$tide" --jar "$jar" "$@"
