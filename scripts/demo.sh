#!/usr/bin/env bash
# The demo: installs and builds Tide, then shows what works end to end today.
#   1. Tables written by Java Paimon (tests/fixtures/paimon-java/parquet), queried with `tide sql`:
#      the latest state, time travel, a primary-key table merged on read.
#   2. A local PostgreSQL 15 that the demo starts (initdb in a temporary folder, wal_level=logical, a
#      free port on 127.0.0.1) with the field report's `orders` table (200,000 rows) and a `carts`
#      table; `tide doctor` checks the server; `tide sync postgres` copies them into the field report's layout (orders partitioned by a
#      day `dt` computed from update_time, primary key order_id, so updates move rows between days) and
#      then follows a live workload of inserts, updates and deletes, an ADD COLUMN and a TRUNCATE; the
#      demo runs the field report's checks (row counts, key range and distinct keys, an UPDATE visible
#      in `tide sql` within a second), stops the sync with SIGTERM, runs `tide verify` and checks the
#      lake row for row against PostgreSQL.
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
section "2. PostgreSQL -> tide sync postgres -> Paimon table, checked against PostgreSQL"
work="$(mktemp -d /tmp/tide-demo.XXXXXX)"
chmod 755 "$work"
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$pg_bin/initdb" ] || { echo "demo: PostgreSQL server binaries not found (scripts/install-deps.sh installs postgresql-15)" >&2; exit 1; }
as_pg() {  # initdb and postgres refuse to run as root: run them as the package's `postgres` user
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
mkdir -p "$work/pg" "$work/sock"
[ "$(id -u)" -ne 0 ] || chown postgres: "$work/pg" "$work/sock"
sync_pid=""
cleanup() {
  [ -z "$sync_pid" ] || kill -9 "$sync_pid" 2>/dev/null || true
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
psql_q -c "INSERT INTO orders SELECT g, (g * 7919) % 1000, round((g % 9973) * 1.37, 2), 'created',
             timestamp '2026-11-01 08:00:00' + g * interval '1.001 second',
             timestamp '2026-11-01 08:00:00' + g * interval '1.001 second' FROM generate_series(1, 200000) g"
psql_q -c "CREATE TABLE carts (cart_id bigint PRIMARY KEY, user_id bigint NOT NULL, items int NOT NULL)"
psql_q -c "INSERT INTO carts SELECT g, g % 1000, g % 7 + 1 FROM generate_series(1, 5000) g"
echo "orders: $(psql_q -tAc "SELECT count(*) FROM orders") rows, carts: $(psql_q -tAc "SELECT count(*) FROM carts") rows"

# The field report's orders_paimon: PRIMARY KEY (order_id), PARTITIONED BY (dt), dt computed from
# update_time. An UPDATE moves an order to the day of its update_time (Paimon's cross-partition update
# mode); the computed column applies to the tables that have update_time (orders, not carts).
wh="$work/lake"
printf '\n$ tide doctor --postgres "%s" --tables public.orders,public.carts\n' "$conn"
"$tide" doctor --postgres "$conn" --tables public.orders,public.carts | sed 's/^/  /'
printf '\n$ tide sync postgres --warehouse %s --database shop --postgres "%s" \\\n    --tables public.orders,public.carts --computed-column "dt=date_format(update_time, yyyy-MM-dd)" --partition-keys dt &\n' "$wh" "$conn"
"$tide" sync postgres --warehouse "$wh" --database shop --postgres "$conn" --tables public.orders,public.carts \
  --computed-column "dt=date_format(update_time, yyyy-MM-dd)" --partition-keys dt 2> >(sed -u 's/^/  | /' >&2) &
sync_pid=$!
lake_count() { "$tide" sql --warehouse "$wh" --format csv "SELECT count(*) FROM shop.${1:-orders}" 2>/dev/null | tail -1; }
for _ in $(seq 1 600); do
  [ "$(lake_count)" = "200000" ] && break
  sleep 0.1
done
echo "The initial copy is in the lake: $(lake_count) rows"
show "$tide" sql --warehouse "$wh" "SELECT dt, count(*) AS orders FROM shop.orders GROUP BY dt ORDER BY dt"

echo "Workload: 20 transactions of inserts, updates (moving orders to today's partition) and deletes, one"
echo "every 100 ms, with an ALTER TABLE orders ADD COLUMN and a TRUNCATE of carts on the way"
for batch in $(seq 0 19); do
  extra=""
  if [ "$batch" = 8 ]; then extra="ALTER TABLE orders ADD COLUMN coupon text;"; fi
  if [ "$batch" -ge 8 ]; then coupon="'C' || (g % 10)"; else coupon=""; fi
  if [ "$batch" = 14 ]; then extra="TRUNCATE carts; INSERT INTO carts SELECT g, g % 100, 1 FROM generate_series(1, 50) g;"; fi
  psql_q <<SQL
BEGIN;
$extra
INSERT INTO orders (order_id, user_id, amount, status, create_time, update_time${coupon:+, coupon})
  SELECT g, (g * 7919) % 1000, round((g % 9973) * 1.37, 2), 'created',
         timestamp '2026-12-02 08:00:00' + g * interval '10 ms', timestamp '2026-12-02 08:00:00' + g * interval '10 ms'
         ${coupon:+, $coupon}
  FROM generate_series(200000 + $batch * 500 + 1, 200000 + $batch * 500 + 500) g;
UPDATE orders SET status = 'paid', amount = amount + 1, update_time = timestamp '2026-12-02 09:00:00' + order_id * interval '1 ms'
  WHERE order_id % 97 = $batch AND status = 'created';
DELETE FROM orders WHERE order_id % 1013 = $batch;
COMMIT;
SQL
  sleep 0.1
done

echo
echo "The field report's checks (§3.7), while the sync runs:"
pg_count="$(psql_q -tAc "SELECT count(*) FROM orders")"
for _ in $(seq 1 300); do [ "$(lake_count)" = "$pg_count" ] && break; sleep 0.1; done
echo "  row count:   PostgreSQL $pg_count, lake $(lake_count)"
echo "  keys:        PostgreSQL $(psql_q -tAc "SELECT min(order_id) || ' .. ' || max(order_id) || ' / ' || count(DISTINCT order_id) || ' distinct' FROM orders")"
echo "               lake       $("$tide" sql --warehouse "$wh" --format csv "SELECT min(order_id) || ' .. ' || max(order_id) || ' / ' || count(DISTINCT order_id) || ' distinct' FROM shop.orders" | tail -1)"
start_ns=$(date +%s%N)
psql_q -c "UPDATE orders SET status = 'refunded' WHERE order_id = 42"
for _ in $(seq 1 100); do
  [ "$("$tide" sql --warehouse "$wh" --format csv "SELECT status FROM shop.orders WHERE order_id = 42" | tail -1)" = "refunded" ] && break
  sleep 0.05
done
echo "  an UPDATE:   visible in tide sql after $(( ($(date +%s%N) - start_ns) / 1000000 )) ms"

printf '\n$ kill -TERM %s   # the sync commits what it holds, acknowledges it, exits 0\n' "$sync_pid"
kill -TERM "$sync_pid"; wait "$sync_pid"; sync_pid=""
show "$tide" sql --warehouse "$wh" \
  "SELECT status, count(*) AS orders, sum(amount) AS amount FROM shop.orders GROUP BY status ORDER BY status"
show "$tide" sql --warehouse "$wh" "SELECT dt, count(*) AS orders FROM shop.orders GROUP BY dt ORDER BY dt"
show "$tide" table describe --warehouse "$wh" shop.orders

echo
echo "Check: every row of PostgreSQL's orders equals the lake's, column for column"
psql_q -A -F, -P footer=off -c "SELECT order_id, user_id, amount, status,
    (extract(epoch FROM create_time) * 1000)::bigint AS create_ms,
    (extract(epoch FROM update_time) * 1000)::bigint AS update_ms, coupon, to_char(update_time, 'YYYY-MM-DD') AS dt
    FROM orders ORDER BY order_id" >"$work/pg.csv"
"$tide" sql --warehouse "$wh" --format csv "SELECT order_id, user_id, amount, status,
    epoch_ms(create_time) AS create_ms, epoch_ms(update_time) AS update_ms, coupon, dt FROM shop.orders ORDER BY order_id" \
  >"$work/lake.csv"
psql_q -A -F, -P footer=off -c "SELECT cart_id, user_id, items FROM carts ORDER BY cart_id" >>"$work/pg.csv"
"$tide" sql --warehouse "$wh" --format csv "SELECT cart_id, user_id, items FROM shop.carts ORDER BY cart_id" >>"$work/lake.csv"
printf '\n$ tide verify --warehouse %s --database shop --postgres "%s" --tables public.orders,public.carts\n' "$wh" "$conn"
"$tide" verify --warehouse "$wh" --database shop --postgres "$conn" --tables public.orders,public.carts | sed 's/^/  /'
if diff -q "$work/pg.csv" "$work/lake.csv" >/dev/null; then
  echo "OK: $(($(wc -l <"$work/pg.csv") - 2)) rows (orders with their day partition, and carts) equal in PostgreSQL and in the lake"
else
  echo "MISMATCH between PostgreSQL and the lake:" >&2
  diff "$work/pg.csv" "$work/lake.csv" | head -20 >&2
  exit 1
fi
