#!/usr/bin/env bash
# TOAST-heavy stream: one transaction updates a small column of every row of a table whose large
# values PostgreSQL does not send again ('u'); time from COMMIT until the lake shows every update.
# Usage: bench/toast_fill_bench.sh ROWS TIDE_BINARY [TIDE_BINARY...] (as root: PostgreSQL runs as `postgres`;
# each binary runs against the same table and server, one after the other, for a ratio in one run).
set -euo pipefail
rows=$1; shift
PGBIN=/usr/lib/postgresql/15/bin
dir=$(mktemp -d /tmp/toastbench.XXXX); chmod 777 $dir
port=$((56000 + RANDOM % 1000))
runuser -u postgres -- $PGBIN/initdb -D $dir/data -U postgres -A trust >/dev/null
cat >> $dir/data/postgresql.conf <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
wal_level = logical
fsync = off
synchronous_commit = off
CONF
runuser -u postgres -- $PGBIN/pg_ctl -D $dir/data -l $dir/log -w start >/dev/null
trap 'runuser -u postgres -- $PGBIN/pg_ctl -D $dir/data -m immediate stop >/dev/null; rm -rf $dir' EXIT
conn="host=127.0.0.1 port=$port dbname=postgres user=postgres"
psql() { command psql -X -q -At "$conn" -c "$1"; }
psql "CREATE TABLE docs (id bigint PRIMARY KEY, n int NOT NULL, body text)"
psql "ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL"
psql "INSERT INTO docs SELECT g, 0, repeat(md5(g::text), 80) FROM generate_series(1, $rows) g"
i=0
for bin in "$@"; do
  i=$((i+1)); wh=$dir/wh$i
  $bin sync postgres --warehouse $wh --database shop --postgres "$conn" --tables public.docs --slot s$i \
    --publication p$i --commit-interval 500ms 2>$dir/sync$i.log &
  pid=$!
  count() { $bin sql --warehouse $wh "SELECT count(*) FROM shop.docs WHERE n >= $1" 2>/dev/null | grep -Eo '[0-9]+' | tail -1; }
  until [ "$(count 0)" = "$rows" ]; do sleep 0.2; done
  for q in 0 1 2 3; do psql "UPDATE docs SET n = n + 1 WHERE id % 4 = $q"; done
  until [ "$(count 1)" = "$rows" ]; do sleep 0.2; done
  psql "UPDATE docs SET n = n - 1"   # back to 0 ... then the timed one
  until [ "$(count 1)" = "0" ]; do sleep 0.2; done
  start=$(date +%s.%N)
  psql "UPDATE docs SET n = n + 10"
  until [ "$(count 10)" = "$rows" ]; do sleep 0.05; done
  end=$(date +%s.%N)
  kill -TERM $pid; wait $pid || true
  nulls=$($bin sql --warehouse $wh "SELECT count(*) FROM shop.docs WHERE body IS NULL" 2>/dev/null | grep -Eo '[0-9]+' | tail -1)
  echo "$bin: $rows unchanged TOASTed values filled in $(echo "$end - $start" | bc) s (NULL bodies: $nulls); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  psql "SELECT pg_drop_replication_slot('s$i')" >/dev/null
  psql "UPDATE docs SET n = 0"
done
