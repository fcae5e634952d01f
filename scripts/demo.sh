#!/usr/bin/env bash
# The demo: installs and builds Tide, then shows what works end to end today.
#   1. Tables written by Java Paimon (tests/fixtures/paimon-java/parquet), queried with `tide sql`:
#      the latest state, time travel, a primary-key table merged on read.
#   2. A local PostgreSQL 15 that the demo starts (initdb in a temporary folder, wal_level=logical, a
#      free port on 127.0.0.1), a live workload of inserts, updates and deletes on an `orders` table
#      while `tide pg tail` streams the decoded changes; the changes are loaded into a Paimon
#      primary-key table with `tide write` (merge by key), and the lake is checked row for row against
#      PostgreSQL. (`tide sync postgres` will do this continuously and exactly once; until it lands the
#      demo chains the parts by hand.)
# Everything is removed on exit unless TIDE_DEMO_KEEP=1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh tide >/dev/null
tide="$root/build/tide"

section() { printf '\n==== %s\n' "$*"; }
show() {  # prints the command, then runs it
  printf '\n$ %s\n' "$*"
  "$@"
}

# ---------------------------------------------------------------------------------------------------
section "1. Reading tables written by Java Paimon"
wh_java="tests/fixtures/paimon-java/parquet"
show "$tide" sql --warehouse "$wh_java" "SELECT f0, f1, f2, f3 FROM pk_09.pk_09 ORDER BY f0"
show "$tide" sql --warehouse "$wh_java" "SELECT f0, f3 FROM paimon_scan('pk_09.pk_09', snapshot_id => 6) ORDER BY f0"
show "$tide" sql --warehouse "$wh_java" --format csv \
  "SELECT * FROM pk_table_partial_update.pk_table_partial_update ORDER BY k0, k1"
show "$tide" sql --warehouse "$wh_java" \
  "SELECT snapshot_id, commit_kind, total_record_count FROM pk_09.\"pk_09\$snapshots\" ORDER BY 1"

# ---------------------------------------------------------------------------------------------------
section "2. PostgreSQL -> tide pg tail -> tide write -> Paimon table, checked against PostgreSQL"
work="$(mktemp -d /tmp/tide-demo.XXXXXX)"
chmod 755 "$work"
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$pg_bin/initdb" ] || { echo "demo: PostgreSQL server binaries not found (scripts/install-deps.sh installs postgresql-15)" >&2; exit 1; }
as_pg() {  # initdb and postgres refuse to run as root: run them as the package's `postgres` user
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
mkdir -p "$work/pg" "$work/sock"
[ "$(id -u)" -ne 0 ] || chown postgres: "$work/pg" "$work/sock"
tail_pid=""
cleanup() {
  [ -z "$tail_pid" ] || kill "$tail_pid" 2>/dev/null || true
  as_pg "$pg_bin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  if [ "${TIDE_DEMO_KEEP:-0}" = 1 ]; then echo "demo: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
as_pg "$pg_bin/initdb" -D "$work/pg" -U postgres -A trust -E UTF8 >/dev/null
port=""
for attempt in 1 2 3 4 5 6 7 8; do
  candidate=$((20000 + RANDOM % 30000))
  if as_pg "$pg_bin/pg_ctl" -D "$work/pg" -l "$work/pg/server.log" -w -t 60 \
       -o "-c port=$candidate -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work/sock -c wal_level=logical -c max_wal_senders=10 -c max_replication_slots=10 -c fsync=off" \
       start >/dev/null; then
    port=$candidate
    break
  fi
done
[ -n "$port" ] || { echo "demo: PostgreSQL did not start; see $work/pg/server.log" >&2; exit 1; }
conn="host=127.0.0.1 port=$port dbname=postgres user=postgres"
psql_q() { psql "$conn" -X -q -v ON_ERROR_STOP=1 "$@"; }
echo "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $work/pg)"

psql_q -c "CREATE TABLE orders (order_id bigint PRIMARY KEY, user_id bigint NOT NULL, amount numeric(10,2),
             status text, create_time timestamp(3), update_time timestamp(3))"

# The tail starts before the workload, on a temporary slot: every change after it is streamed.
printf '\n$ tide pg tail --postgres "%s" --tables public.orders --temporary > changes.jsonl &\n' "$conn"
"$tide" pg tail --postgres "$conn" --tables public.orders --temporary >"$work/changes.jsonl" 2>"$work/tail.log" &
tail_pid=$!
for _ in $(seq 1 100); do
  [ "$(psql_q -tAc "SELECT count(*) FROM pg_replication_slots WHERE active")" -ge 1 ] && break
  sleep 0.2
done

echo "Workload: 20 transactions of inserts, updates and deletes, one every 100 ms"
for batch in $(seq 0 19); do
  psql_q <<SQL
BEGIN;
INSERT INTO orders
  SELECT g, (g * 7919) % 1000, round((g % 9973) * 1.37, 2), 'created',
         timestamp '2026-11-01 08:00:00' + g * interval '1.001 second', NULL
  FROM generate_series($batch * 500 + 1, $batch * 500 + 500) g;
UPDATE orders SET status = 'paid', amount = amount + 1, update_time = create_time + interval '5 minutes'
  WHERE order_id % 3 = 0 AND order_id > $batch * 500 - 1000 AND status = 'created';
DELETE FROM orders WHERE order_id % 17 = 0 AND order_id <= $batch * 500;
COMMIT;
SQL
  sleep 0.1
done
psql_q -c "INSERT INTO orders VALUES (999999999, 1, 0.01, 'last', now(), NULL)"
for _ in $(seq 1 300); do
  grep -q '"order_id":999999999' "$work/changes.jsonl" && break
  sleep 0.1
done
kill "$tail_pid"; wait "$tail_pid" 2>/dev/null || true; tail_pid=""
echo "Streamed $(wc -l <"$work/changes.jsonl") changes; the first two:"
head -2 "$work/changes.jsonl"

wh="$work/lake"
mkdir -p "$wh"
show "$tide" table create --warehouse "$wh" shop.orders \
  --columns "order_id BIGINT, user_id BIGINT, amount DECIMAL(10, 2), status STRING, create_time TIMESTAMP(3), update_time TIMESTAMP(3)" \
  --primary-keys order_id --option bucket=4

# The change lines become a CSV with a row-kind column, in stream order (DuckDB reads the JSON lines).
"$tide" sql --warehouse "$wh" "COPY (SELECT kind AS op, row.order_id, row.user_id, row.amount, row.status,
    row.create_time, row.update_time FROM read_json('$work/changes.jsonl', format => 'newline_delimited')
    WHERE kind IN ('+I', '+U', '-D')) TO '$work/changes.csv' (HEADER)" >/dev/null
show "$tide" write --warehouse "$wh" --table shop.orders --input "$work/changes.csv" --row-kind-column op
show "$tide" sql --warehouse "$wh" \
  "SELECT status, count(*) AS orders, sum(amount) AS amount FROM shop.orders GROUP BY status ORDER BY status"
show "$tide" table describe --warehouse "$wh" shop.orders

echo
echo "Check: every row of PostgreSQL's orders equals the lake's, column for column"
psql_q -A -F, -P footer=off -c "SELECT order_id, user_id, amount, status,
    (extract(epoch FROM create_time) * 1000)::bigint AS create_ms,
    (extract(epoch FROM update_time) * 1000)::bigint AS update_ms FROM orders ORDER BY order_id" >"$work/pg.csv"
"$tide" sql --warehouse "$wh" --format csv "SELECT order_id, user_id, amount, status,
    epoch_ms(create_time) AS create_ms, epoch_ms(update_time) AS update_ms FROM shop.orders ORDER BY order_id" \
  >"$work/lake.csv"
if diff -q "$work/pg.csv" "$work/lake.csv" >/dev/null; then
  echo "OK: $(($(wc -l <"$work/pg.csv") - 1)) rows equal in PostgreSQL and in the lake"
else
  echo "MISMATCH between PostgreSQL and the lake:" >&2
  diff "$work/pg.csv" "$work/lake.csv" | head -20 >&2
  exit 1
fi
