#!/usr/bin/env bash
# The demo: installs and builds Tide, then queries the Paimon tables that Java Paimon wrote
# (tests/fixtures/paimon-java/parquet) with `tide sql`: the latest state, time travel, and a
# primary-key table merged on read. The PostgreSQL sync joins this demo when it lands.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh >/dev/null
wh="tests/fixtures/paimon-java/parquet"
run() {
  echo
  echo "\$ tide sql --warehouse $wh $*"
  build/tide sql --warehouse "$wh" "$@"
}
echo "Tide demo: reading tables written by Java Paimon"
run "SELECT table_schema AS database, table_name FROM information_schema.tables WHERE table_schema LIKE 'pk_%' ORDER BY 1, 2"
run "SELECT f0, f1, f2, f3 FROM pk_09.pk_09 ORDER BY f0"
run "SELECT f0, f3 FROM paimon_scan('pk_09.pk_09', snapshot_id => 6) ORDER BY f0"
run --format csv "SELECT * FROM pk_table_partial_update.pk_table_partial_update ORDER BY k0, k1"
run "SELECT f1, count(*) AS n FROM append_09.append_09 GROUP BY f1 ORDER BY f1" || true
