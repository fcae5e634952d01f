#!/usr/bin/env python3
"""The peer benchmark: `tide sync postgres` against Apache Paimon's postgres_sync_table action (Flink CDC
into Paimon, Flink in local mode in one JVM: bench/peers/target/paimon-peer.jar), one after the other,
each on a fresh copy of the field report's `orders` table in the same PostgreSQL (started here, in a
temporary folder, wal_level = logical), into the same target layout. Prints the figures side by side.

Run it through bench/peers/run.sh (builds the jar and checks the tide binary). Phases, per side:
  1. copy: a writer offers --copy-write-rate rows/s (10-row transactions: 5 updates, 5 inserts) while
     the side starts; the writer stops once the lake holds every loaded row; the clock stops at the
     first snapshot whose count and checksum equal PostgreSQL's (computed by PostgreSQL and by
     `tide sql` over that snapshot). Copy rate: loaded rows / time to the first snapshot holding them.
  2. stream: the side is paused (SIGSTOP), --burst changes are written (transactions of 5-100 rows),
     then a marker row is updated; the side resumes; rate: burst / time until a snapshot shows the
     marker.
  3. freshness: a writer offers --fresh-rate rows/s for --fresh-seconds; a probe updates the marker
     every 200-300 ms and notes when its COMMIT returned; a watcher notes when each snapshot file
     appears (every 5 ms). Afterwards `tide sql` reads the marker at each snapshot (time travel), and a
     probe's freshness is the appearance of the first snapshot showing it minus its commit.
  4. findings: ADD COLUMN, new PostgreSQL types in added columns, and TRUNCATE, each checked in the lake.
Peak RSS (VmHWM) and CPU seconds are the side's process's own, read from /proc before it is stopped;
files are those in the table folder at the end.
"""

import argparse
import csv
import datetime
import io
import json
import math
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import psycopg2

PG_BIN = "/usr/lib/postgresql/15/bin"
STATUSES = "(ARRAY['created','paid','shipped','delivered','cancelled'])"
# The field report's orders table (§3.3), with timestamp(p) of --timestamp-precision: the report's own
# timestamp(3) stops Paimon 1.3.1's postgres_sync_table at its first record (see docs/performance.md),
# so the measured runs use timestamp(6) on both sides by default, and the findings phase tries (3).
ORDERS_DDL = ("CREATE TABLE orders (order_id bigint PRIMARY KEY, user_id bigint, amount numeric(10,2), status text, "
              "create_time timestamp({p}), update_time timestamp({p}))")
PG_CHECKSUM = (
    "SELECT count(*), coalesce(sum(('x' || substr(md5(concat_ws('|', order_id, user_id, (amount * 100)::bigint, "
    "status, (extract(epoch FROM create_time) * 1000000)::bigint, (extract(epoch FROM update_time) * 1000000)::bigint)), "
    "1, 15))::bit(60)::bigint), 0) FROM orders")
LAKE_CHECKSUM = (
    "SELECT count(*), coalesce(sum(('0x' || substr(md5(concat_ws('|', order_id, user_id, CAST(amount * 100 AS BIGINT), "
    "status, epoch_us(CAST(create_time AS TIMESTAMP)), epoch_us(CAST(update_time AS TIMESTAMP)))), 1, 15))::BIGINT), 0) "
    "FROM {scan}")

now = time.monotonic


def log(msg):
    print("[%s] %s" % (datetime.datetime.utcnow().strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


# ---- PostgreSQL ---------------------------------------------------------------------------------------

class Postgres:
    """A PostgreSQL server of our own in a temporary folder, stopped by stop()."""

    def __init__(self, work):
        folder = os.path.join(work, "pg")
        os.makedirs(folder)
        # initdb and postgres refuse to run as root: as root, the server runs as the Debian package's
        # user `postgres`, which must reach and own its folder.
        self.as_user = []
        if os.geteuid() == 0:
            os.chmod(work, 0o755)
            shutil.chown(folder, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.folder = folder
        self.data = os.path.join(folder, "data")
        self.port = free_port()
        subprocess.run(self.as_user + [PG_BIN + "/initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E",
                                       "UTF8", "--no-sync"], check=True, stdout=subprocess.DEVNULL)
        conf = {
            "listen_addresses": "'127.0.0.1'", "port": str(self.port), "unix_socket_directories": "'%s'" % folder,
            "wal_level": "logical", "max_replication_slots": "20", "max_wal_senders": "20",
            "max_wal_size": "'4GB'", "logical_decoding_work_mem": "'64MB'", "shared_buffers": "'256MB'",
            # The field report's PostgreSQL side (§2.1, §7.3), except wal_sender_timeout: 0 lets the
            # stream phase pause a side without PostgreSQL ending its replication connection.
            "wal_compression": "on", "wal_keep_size": "'2GB'", "wal_sender_timeout": "0",
            # On (PostgreSQL's default): with it off a commit reaches the walsender only when the WAL
            # writer flushes it, which would add up to 200 ms to every freshness figure.
            "synchronous_commit": "on", "fsync": "off", "max_connections": "100",
        }
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            for k, v in conf.items():
                f.write("%s = %s\n" % (k, v))
        subprocess.run(self.as_user + [PG_BIN + "/pg_ctl", "-D", self.data, "-l", os.path.join(folder, "postgres.log"),
                                       "-w", "start"],
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            self.pid = int(f.readline())

    def connect(self, db="postgres"):
        conn = psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=db)
        conn.autocommit = True
        return conn

    def conninfo(self, db):
        return "host=127.0.0.1 port=%d user=postgres dbname=%s" % (self.port, db)

    def version(self):
        c = self.connect()
        version = exec_sql(c, "SHOW server_version")[0][0]
        c.close()
        return version

    def stop(self):
        subprocess.run(self.as_user + [PG_BIN + "/pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def exec_sql(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall() if cur.description else None


class OfferedWriter(threading.Thread):
    """Offers `rate` rows/s to orders in 10-row transactions (5 updates of loaded keys, 5 new orders) on its
    own connection, keeping its own schedule (one late runs at once, so the achieved rate shows whether the
    offer was met)."""

    def __init__(self, pg, db, rate, loaded, key_base):
        super().__init__(daemon=True)
        self.conn = pg.connect(db)
        self.rate, self.loaded, self.next_key = rate, loaded, key_base
        self.stop_flag = threading.Event()
        self.rows = 0
        self.error = None
        self.started_at = self.stopped_at = None

    def run(self):
        interval = 10.0 / self.rate
        due = now()
        rng = random.Random(self.next_key)
        self.started_at = now()
        i = 0
        try:
            with self.conn.cursor() as cur:
                while not self.stop_flag.is_set():
                    due += interval
                    delay = due - now()
                    if delay > 0:
                        time.sleep(delay)
                    keys = ",".join(str(rng.randint(1, self.loaded)) for _ in range(5))
                    cur.execute(
                        "WITH u AS (UPDATE orders SET amount = amount + 1, status = %s[%d], update_time = localtimestamp(3) "
                        "WHERE order_id IN (%s) RETURNING 1) INSERT INTO orders SELECT g, 1 + g %% 100003, "
                        "(g %% 1000000) / 100.0, 'created', localtimestamp(3), localtimestamp(3) "
                        "FROM generate_series(%d, %d) g" % (STATUSES, 1 + i % 5, keys, self.next_key, self.next_key + 4))
                    self.next_key += 5
                    self.rows += 10
                    i += 1
        except Exception as e:  # reported by stop()
            self.error = e
        self.stopped_at = now()

    def stop(self):
        self.stop_flag.set()
        self.join()
        self.conn.close()
        if self.error:
            raise RuntimeError("writer: %s" % self.error)
        return self.rows / max(1e-9, self.stopped_at - self.started_at)


# ---- the lake -----------------------------------------------------------------------------------------

class SnapshotWatcher(threading.Thread):
    """Notes when each snapshot-N file of a table first appears (polling every 5 ms)."""

    def __init__(self, table_dir):
        super().__init__(daemon=True)
        self.dir = os.path.join(table_dir, "snapshot")
        self.table_dir = table_dir
        self.seen = {}  # id -> monotonic time first seen
        self.kinds = {}
        self.lock = threading.Lock()
        self.stop_flag = threading.Event()

    def run(self):
        while not self.stop_flag.is_set():
            try:
                names = os.listdir(self.dir)
            except FileNotFoundError:
                names = []
            t = now()
            fresh = []
            with self.lock:
                for n in names:
                    if n.startswith("snapshot-"):
                        try:
                            sid = int(n[9:])
                        except ValueError:
                            continue
                        if sid not in self.seen:
                            self.seen[sid] = t
                            fresh.append(sid)
            for sid in fresh:
                self.kinds[sid] = self._describe(sid)
            time.sleep(0.005)

    def _describe(self, sid):
        for _ in range(20):
            try:
                with open(os.path.join(self.dir, "snapshot-%d" % sid)) as f:
                    s = json.load(f)
                return (s.get("commitKind"), s.get("deltaRecordCount") or 0)
            except (OSError, ValueError):
                time.sleep(0.002)
        return ("UNKNOWN", 0)

    def latest(self):
        with self.lock:
            return max(self.seen) if self.seen else 0

    def snapshots_since(self, t):
        with self.lock:
            return sorted(s for s, at in self.seen.items() if at >= t)

    def data_snapshots_since(self, t):
        return [s for s in self.snapshots_since(t) if self.kinds.get(s, ("?", 0))[0] != "COMPACT"]

    def delta_since(self, t):
        return sum(self.kinds.get(s, ("?", 0))[1] for s in self.data_snapshots_since(t))

    def stop(self):
        self.stop_flag.set()
        self.join()


class Lake:
    """`tide sql` over one side's warehouse: the same reader for both sides."""

    def __init__(self, tide, warehouse, table="shop.orders"):
        self.tide, self.warehouse, self.table = tide, warehouse, table

    def query(self, sql, timeout=600):
        r = subprocess.run([self.tide, "sql", "--warehouse", self.warehouse, "--format", "csv", sql],
                           capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError("tide sql failed: %s" % r.stderr.strip())
        rows = list(csv.reader(io.StringIO(r.stdout)))
        return rows[1:]

    def scan(self, snapshot):
        return "paimon_scan('%s', snapshot_id => %d)" % (self.table, snapshot)

    def checksum(self, snapshot):
        row = self.query(LAKE_CHECKSUM.format(scan=self.scan(snapshot)))[0]
        return "%s,%s" % (row[0], row[1])

    def loaded_count(self, snapshot, rows):
        return int(self.query("SELECT count(*) FROM %s WHERE order_id BETWEEN 1 AND %d" % (self.scan(snapshot), rows))[0][0])

    def markers(self, snapshots):
        """The marker's user_id at each snapshot (None where the marker is absent)."""
        out = {}
        for i in range(0, len(snapshots), 40):
            chunk = snapshots[i:i + 40]
            sql = " UNION ALL ".join("SELECT %d AS s, max(user_id) AS m FROM %s WHERE order_id = 0" % (s, self.scan(s))
                                     for s in chunk)
            for s, m in self.query(sql):
                out[int(s)] = int(m) if m not in ("", "NULL") else None
        return out


def first_snapshot(snapshots, holds):
    """The first snapshot of a sorted list for which holds(s) is true, given it holds for the last one and
    stays true once true (binary search)."""
    lo, hi = 0, len(snapshots) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if holds(snapshots[mid]):
            hi = mid
        else:
            lo = mid + 1
    return snapshots[lo]


# ---- the two sides ------------------------------------------------------------------------------------

class SideProcess:
    def __init__(self, name, argv, log_path, env=None):
        self.name = name
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.started = now()
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def alive(self):
        return self.proc.poll() is None

    def cpu_seconds(self):
        try:
            with open("/proc/%d/stat" % self.proc.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            tick = os.sysconf("SC_CLK_TCK")
            return sum(int(x) for x in fields[11:15]) / tick
        except OSError:
            return None

    def peak_rss_mb(self):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024.0
        except OSError:
            return None
        return None

    def pause(self):
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self):
        os.kill(self.proc.pid, signal.SIGCONT)

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def tail(self, n=15):
        """Why the process ended: the peer's "job failed" line when it printed one, else the log's last lines."""
        try:
            with open(self.log_path, errors="replace") as f:
                lines = f.read().strip().split("\n")
        except OSError:
            return ""
        for line in lines:
            if line.startswith("peer: job failed"):
                return line
        return "\n".join(lines[-n:])


def percentile(values, p):
    if not values:
        return None
    v = sorted(values)
    k = max(0, min(len(v) - 1, math.ceil(p / 100.0 * len(v)) - 1))  # nearest rank
    return v[k]


def files_in(table_dir):
    data = total = size = 0
    for root, _, names in os.walk(table_dir):
        for n in names:
            total += 1
            p = os.path.join(root, n)
            try:
                size += os.path.getsize(p)
            except OSError:
                pass
            if n.startswith("data-") or n.startswith("changelog-"):
                data += 1
    return data, total, size / 1e6


def run_side(side, args, pg, work):
    """Runs one side on a fresh database; returns its figures and findings."""
    db = "bench_" + side
    res = {"side": side, "findings": [], "load_start": load_average()}
    admin = pg.connect()
    exec_sql(admin, "CREATE DATABASE %s" % db)
    admin.close()
    conn = pg.connect(db)
    t_load = now()
    exec_sql(conn, ORDERS_DDL.format(p=args.timestamp_precision))
    exec_sql(conn, "INSERT INTO orders SELECT g, 1 + (g * 7) %% 100003, ((g * 7919) %% 1000000) / 100.0, %s[1 + g %% 5], "
                   "timestamp '2024-01-01' + g * interval '1 second', timestamp '2024-01-01' + g * interval '1 second' + "
                   "(g %% 1000) * interval '1 millisecond' FROM generate_series(1::bigint, %d) g"
             % (STATUSES, args.rows))
    exec_sql(conn, "INSERT INTO orders VALUES (0, 0, 0, 'marker', timestamp '2024-01-01', timestamp '2024-01-01')")
    # A row whose update moves it to another day's partition leaves its old partition only when the
    # change carries the old row: both sides need the full old row, so the source table sends it.
    exec_sql(conn, "ALTER TABLE orders REPLICA IDENTITY FULL")
    exec_sql(conn, "VACUUM ANALYZE orders")
    log("%s: orders loaded, %d rows in %.1f s" % (side, args.rows, now() - t_load))

    warehouse = os.path.join(work, side + "-lake")
    table_dir = os.path.join(warehouse, "shop.db", "orders")
    lake = Lake(args.tide, warehouse)
    layout = ["--computed-column", "dt=date_format(update_time,yyyy-MM-dd)", "--partition-keys", "dt",
              "--primary-keys", "order_id,dt"]
    table_conf = ["bucket=4", "changelog-producer=input"]
    if side == "tide":
        argv = [args.tide, "sync", "postgres", "--warehouse", warehouse, "--database", "shop", "--postgres",
                pg.conninfo(db), "--tables", "public.orders", "--slot", "tide_bench"] + layout
        for kv in table_conf:
            argv += ["--table-conf", kv]
        env = None
    else:
        argv = ["java", "-Xmx%s" % args.peer_heap, "-jar", args.jar, "--warehouse", warehouse, "--database", "shop",
                "--table", "orders", "--pg-host", "127.0.0.1", "--pg-port", str(pg.port), "--pg-user", "postgres",
                "--pg-database", db, "--pg-schema", "public", "--pg-table", "orders", "--slot", "paimon_bench",
                "--checkpoint-interval-ms", str(args.peer_checkpoint_ms), "--parallelism", str(args.peer_parallelism),
                # A paused JVM (the stream phase) must not be declared dead when it resumes.
                "--flink-conf", "heartbeat.timeout=3600000"] + layout
        for kv in table_conf + PEER_TUNING + args.peer_table_conf:
            argv += ["--table-conf", kv]
        for kv in peer_source_conf(args):
            argv += ["--source-conf", kv]
        for kv in args.peer_flink_conf:
            argv += ["--flink-conf", kv]
        env = None
    watcher = SnapshotWatcher(table_dir)
    watcher.start()

    # ---- 1. copy under a writer, until the lake equals PostgreSQL ---------------------------------
    writer = OfferedWriter(pg, db, args.copy_write_rate, args.rows, 10 ** 12)
    writer.start()
    time.sleep(1)
    cpu_marks = {}
    p = SideProcess(side, argv, os.path.join(work, side + ".log"), env)
    t0 = p.started
    try:
        copied_at = None
        last_check = 0
        deadline = t0 + args.timeout
        while copied_at is None:
            if not p.alive():
                raise SideFailed("the process ended during the copy:\n" + p.tail())
            if now() > deadline:
                raise SideFailed("the copy did not reach the lake in %d s" % args.timeout)
            latest = watcher.latest()
            # Cheap first (the snapshots' delta record counts), then the reader; every 10 s regardless, in
            # case a writer leaves the counts out.
            due = watcher.delta_since(t0) >= args.rows and now() - last_check > 2
            if latest and (due or now() - last_check > 10):
                last_check = now()
                try:
                    if lake.loaded_count(latest, args.rows) == args.rows:
                        copied_at = latest
                except RuntimeError as e:
                    res["findings"].append("tide sql could not read the lake table: %s" % e)
                    raise SideFailed(str(e))
            time.sleep(0.05)
        achieved = writer.stop()
        cpu_marks["copy"] = p.cpu_seconds()
        pg_sum = "%s,%s" % tuple(exec_sql(conn, PG_CHECKSUM)[0])
        equal_at = None
        checked = set()
        while equal_at is None:
            if not p.alive():
                raise SideFailed("the process ended before the lake equalled PostgreSQL:\n" + p.tail())
            if now() > deadline:
                raise SideFailed("the lake did not equal PostgreSQL in %d s (PostgreSQL %s)" % (args.timeout, pg_sum))
            latest = watcher.latest()
            if latest not in checked:
                checked.add(latest)
                if lake.checksum(latest) == pg_sum:
                    equal_at = latest
            time.sleep(0.1)
        # The first snapshot holding every loaded row, and the first equal to PostgreSQL.
        data_snaps = [s for s in watcher.data_snapshots_since(t0) if s <= copied_at]
        first_copied = first_snapshot(data_snaps, lambda s: lake.loaded_count(s, args.rows) == args.rows)
        candidates = [s for s in watcher.snapshots_since(t0) if s <= equal_at]
        res["until_equal_s"] = watcher.seen[equal_at] - t0
        res["copy_s"] = watcher.seen[first_copied] - t0
        res["copy_rows_per_s"] = args.rows / res["copy_s"]
        res["copy_writer"] = achieved
        res["copy_snapshots"] = len(candidates)
        log("%s: lake equals PostgreSQL after %.1f s (copy %.1f s)" % (side, res["until_equal_s"], res["copy_s"]))

        # ---- 2. stream: a burst written while the side is paused ------------------------------------
        marker = 1
        p.pause()
        t_burst = now()
        exec_sql(conn, (
            "DO $$ DECLARE done bigint := 0; i bigint := 0; s int; x bigint; next_key bigint := 3000000000000; BEGIN "
            "WHILE done < {0} LOOP "
            "  s := least(5 + (i * 7919) % 96, {0} - done); "
            "  IF i % 2 = 0 THEN "
            "    INSERT INTO orders SELECT g, 1 + g % 100003, (g % 1000000) / 100.0, 'created', localtimestamp(3), "
            "      localtimestamp(3) FROM generate_series(next_key, next_key + s - 1) g; "
            "    next_key := next_key + s; "
            "  ELSE "
            "    x := 1 + (i * 104729) % ({1} - 100); "
            "    UPDATE orders SET amount = amount + 1, status = {2}[1 + i % 5], update_time = localtimestamp(3) "
            "      WHERE order_id BETWEEN x AND x + s - 1; "
            "  END IF; "
            "  COMMIT; done := done + s; i := i + 1; "
            "END LOOP; END $$").format(args.burst, args.rows, STATUSES))
        exec_sql(conn, "UPDATE orders SET user_id = %d, update_time = localtimestamp(3) WHERE order_id = 0" % marker)
        log("%s: burst of %d changes written in %.1f s" % (side, args.burst, now() - t_burst))
        cpu_before_stream = p.cpu_seconds()
        p.resume()
        t_resume = now()
        shown_at = None
        checked = set()
        last_check = 0
        while shown_at is None:
            if not p.alive():
                raise SideFailed("the process ended during the stream phase:\n" + p.tail())
            if now() - t_resume > args.timeout:
                raise SideFailed("the burst did not reach the lake in %d s" % args.timeout)
            latest = watcher.latest()
            due = watcher.delta_since(t_resume) >= args.burst and now() - last_check > 1
            if latest not in checked and (due or now() - last_check > 10):
                checked.add(latest)
                last_check = now()
                if lake.markers([latest]).get(latest) == marker:
                    shown_at = latest
            time.sleep(0.05)
        snaps = [s for s in watcher.data_snapshots_since(t_resume) if s <= shown_at] or [shown_at]
        first_shown = first_snapshot(snaps, lambda s: lake.markers([s]).get(s) == marker)
        res["stream_s"] = watcher.seen[first_shown] - t_resume
        res["stream_rows_per_s"] = args.burst / res["stream_s"]
        cpu_marks["stream"] = p.cpu_seconds() - cpu_before_stream
        log("%s: burst in the lake after %.1f s" % (side, res["stream_s"]))

        # ---- 3. freshness ----------------------------------------------------------------------------
        writer = OfferedWriter(pg, db, args.fresh_rate, args.rows, 2 * 10 ** 12)
        writer.start()
        probe = pg.connect(db)
        commits = {}
        t_fresh = now()
        rng = random.Random(7)
        while now() - t_fresh < args.fresh_seconds:
            time.sleep(rng.uniform(0.2, 0.3))
            marker += 1
            exec_sql(probe, "UPDATE orders SET user_id = %d, update_time = localtimestamp(3) WHERE order_id = 0" % marker)
            commits[marker] = now()
        res["fresh_writer"] = writer.stop()
        last = marker
        wait_from = now()
        while True:
            latest = watcher.latest()
            if lake.markers([latest]).get(latest) == last:
                break
            if now() - wait_from > 120 or not p.alive():
                raise SideFailed("the last freshness probe did not reach the lake")
            time.sleep(0.2)
        snaps = watcher.data_snapshots_since(t_fresh)
        values = lake.markers(snaps)
        lat = []
        for m, committed in commits.items():
            visible = [watcher.seen[s] for s in snaps if values.get(s) is not None and values[s] >= m]
            if visible:
                lat.append((min(visible) - committed) * 1000.0)
        res["fresh_probes"] = len(lat)
        res["fresh_p50_ms"] = percentile(lat, 50)
        res["fresh_p99_ms"] = percentile(lat, 99)
        res["fresh_commits"] = len(snaps)
        log("%s: freshness p50 %.0f ms, p99 %.0f ms over %d probes" % (side, res["fresh_p50_ms"], res["fresh_p99_ms"], len(lat)))

        # ---- 4. findings: DDL, types, TRUNCATE --------------------------------------------------------
        if args.findings:
            findings_phase(side, conn, lake, watcher, p, res)
        res["peak_rss_mb"] = p.peak_rss_mb()
        res["cpu_s"] = p.cpu_seconds()
        res["cpu_copy_s"] = cpu_marks.get("copy")
        res["cpu_stream_s"] = cpu_marks.get("stream")
    except SideFailed as e:
        res["failed"] = str(e)
        res["findings"].append("FAILED: %s" % e)
        res["peak_rss_mb"] = p.peak_rss_mb()
        res["cpu_s"] = p.cpu_seconds()
        if writer.is_alive():
            try:
                writer.stop()
            except RuntimeError:
                pass
    finally:
        p.stop()
        watcher.stop()
        conn.close()
    res["data_files"], res["files"], res["mb"] = files_in(table_dir)
    if side != "tide":
        res["log_summary"] = peer_log_summary(p.log_path)
    res["load_end"] = load_average()
    c = pg.connect()
    try:
        exec_sql(c, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                    "WHERE database = '%s' AND NOT active" % db)
    except psycopg2.Error as e:
        log("could not drop the slots of %s: %s" % (db, e))
    try:
        exec_sql(c, "DROP DATABASE %s WITH (FORCE)" % db)
    except psycopg2.Error as e:
        log("could not drop %s: %s" % (db, e))
    c.close()
    return res


class SideFailed(Exception):
    pass


FINDING_WAIT_S = 30  # how long each finding waits for the lake to show the change


def wait_for(predicate, seconds):
    deadline = now() + seconds
    while now() < deadline:
        try:
            if predicate():
                return True
        except RuntimeError:
            pass
        time.sleep(0.5)
    return False


def findings_phase(side, conn, lake, watcher, p, res):
    """Schema change, types the orders table lacks, TRUNCATE: each either reaches the lake or is a finding."""
    def column_value(column, key):
        rows = lake.query("SELECT CAST(%s AS VARCHAR) FROM shop.orders WHERE order_id = %d" % (column, key))
        return rows[0][0] if rows else None

    exec_sql(conn, "ALTER TABLE orders ADD COLUMN coupon text")
    exec_sql(conn, "INSERT INTO orders (order_id, user_id, amount, status, create_time, update_time, coupon) "
                   "VALUES (5000000000001, 1, 1.00, 'created', localtimestamp, localtimestamp, 'SAVE10')")
    ok = wait_for(lambda: column_value("coupon", 5000000000001) == "SAVE10", FINDING_WAIT_S)
    res["findings"].append("ALTER TABLE ADD COLUMN coupon text, then a row using it: %s" %
                           ("in the lake" if ok else "NOT in the lake within %d s" % FINDING_WAIT_S +
                            ("" if p.alive() else " (the process ended: %s)" % p.tail(3).replace("\n", " | "))))
    types = [("extra_json", "jsonb", "'{\"a\": 1}'"), ("extra_uuid", "uuid", "'6c1e4a1e-0000-4000-8000-000000000001'"),
             ("extra_tstz", "timestamptz", "'2024-05-06 07:08:09.123456+00'"), ("extra_num", "numeric", "12345.6789"),
             ("extra_arr", "integer[]", "ARRAY[1,2,3]"), ("extra_bytes", "bytea", "'\\xdeadbeef'")]
    key = 5000000000002
    for name, pgtype, literal in types:
        if not p.alive():
            res["findings"].append("%s column %s: not tried, the process had ended" % (pgtype, name))
            continue
        exec_sql(conn, "ALTER TABLE orders ADD COLUMN %s %s" % (name, pgtype))
        exec_sql(conn, "INSERT INTO orders (order_id, user_id, amount, status, create_time, update_time, %s) "
                       "VALUES (%d, 1, 1.00, 'created', localtimestamp(3), localtimestamp(3), %s)" % (name, key, literal))
        got = [None]

        def check(k=key, n=name):
            try:
                got[0] = column_value(n, k)
            except RuntimeError:
                got[0] = None
            return got[0] not in (None, "", "NULL")
        ok = wait_for(check, FINDING_WAIT_S)
        if ok:
            res["findings"].append("ADD COLUMN %s %s, then a row using it: in the lake as %s" % (name, pgtype, got[0]))
        else:
            why = "" if p.alive() else " (the process ended: %s)" % p.tail(3).replace("\n", " | ")
            res["findings"].append("ADD COLUMN %s %s, then a row using it: NOT in the lake within %d s%s"
                                   % (name, pgtype, FINDING_WAIT_S, why))
        key += 1
    truncate_phase(conn, lake, p, res)
    if p.alive():
        # The field report's own column type, last: it stops Paimon 1.3.1's job.
        exec_sql(conn, "ALTER TABLE orders ADD COLUMN extra_ts3 timestamp(3)")
        exec_sql(conn, "INSERT INTO orders (order_id, user_id, amount, status, create_time, update_time, extra_ts3) "
                       "VALUES (7000000000000, 1, 1.00, 'created', localtimestamp, localtimestamp, "
                       "timestamp '2024-01-02 03:04:05.678')")

        def ts3():
            rows = lake.query("SELECT CAST(extra_ts3 AS VARCHAR) FROM shop.orders WHERE order_id = 7000000000000")
            return bool(rows) and rows[0][0] not in ("", "NULL")
        ok = wait_for(ts3, FINDING_WAIT_S)
        why = "" if p.alive() else " (the process ended: %s)" % p.tail(3).replace("\n", " | ")
        res["findings"].append("ADD COLUMN extra_ts3 timestamp(3) (the field report's type), then a row using it: %s%s"
                               % ("in the lake" if ok else "NOT in the lake within %d s" % FINDING_WAIT_S, why))


def truncate_phase(conn, lake, p, res):
    if p.alive():
        exec_sql(conn, "TRUNCATE orders")
        exec_sql(conn, "INSERT INTO orders (order_id, user_id, amount, status, create_time, update_time) "
                       "VALUES (6000000000000, 1, 1.00, 'created', localtimestamp(3), localtimestamp(3))")

        def one_row():
            return int(lake.query("SELECT count(*) FROM shop.orders")[0][0]) == 1
        ok = wait_for(one_row, FINDING_WAIT_S)
        rows = lake.query("SELECT count(*) FROM shop.orders")[0][0]
        res["findings"].append("TRUNCATE orders, then one insert: %s" % (
            "the lake holds the one row" if ok else "the lake holds %s rows (PostgreSQL 1) after %d s" % (rows, FINDING_WAIT_S)))


PEER_TUNING = [
    # The field report's §7.2 Paimon write settings.
    "write-buffer-size=128mb", "write-buffer-spillable=true",
]


def peer_source_conf(args):
    """The Flink CDC source options the peer runs with (all documented options of the Postgres CDC source,
    passed through postgres_sync_table's --postgres_conf)."""
    conf = ["scan.incremental.snapshot.chunk.size=%d" % args.peer_chunk_size]
    if args.peer_backfill_skip:
        # Without it every chunk creates a replication slot of its own, reads the chunk, then decodes the WAL
        # written meanwhile (the backfill) and drops the slot; with it the changes made during the copy are
        # replayed from the stream afterwards (at-least-once while copying, which a primary-key table
        # absorbs: a replayed upsert or delete leaves the same row).
        conf.append("scan.incremental.snapshot.backfill.skip=true")
    return conf + args.peer_source_conf


def peer_log_summary(log_path):
    """What the peer's own log says about its copy: chunks read and checkpoint durations (Flink CDC and
    Flink log them at INFO, bench/peers/src/main/resources/log4j2.properties)."""
    chunks = rows = 0
    durations = []
    try:
        with open(log_path, errors="replace") as f:
            for line in f:
                if "Finished exporting" in line:
                    chunks += 1
                    try:
                        rows += int(line.split("Finished exporting", 1)[1].split()[0])
                    except (ValueError, IndexError):
                        pass
                elif "Completed checkpoint" in line and "checkpointDuration=" in line:
                    try:
                        durations.append(int(line.split("checkpointDuration=", 1)[1].split()[0]))
                    except (ValueError, IndexError):
                        pass
    except OSError:
        return None
    if not chunks and not durations:
        return None
    out = "%d snapshot chunks read (%s rows)" % (chunks, format(rows, ","))
    if durations:
        out += "; %d checkpoints completed, duration p50 %s ms, p99 %s ms, max %s ms" % (
            len(durations), format(percentile(durations, 50), ","), format(percentile(durations, 99), ","),
            format(max(durations), ","))
    return out


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def print_table(results, args, versions, t_started):
    sides = [r["side"] for r in results]
    rows = [
        ("time until the lake equals PostgreSQL", "until_equal_s", ".1f", " s"),
        ("copy: rows/s (loaded rows / time to the first snapshot holding them)", "copy_rows_per_s", ",.0f", ""),
        ("  copy: time", "copy_s", ".1f", " s"),
        ("  writer during the copy: rows/s achieved", "copy_writer", ",.0f", ""),
        ("stream: rows/s (burst / time to the snapshot showing its end)", "stream_rows_per_s", ",.0f", ""),
        ("  stream: time", "stream_s", ".1f", " s"),
        ("freshness p50 (commit in PostgreSQL to snapshot visible)", "fresh_p50_ms", ",.0f", " ms"),
        ("freshness p99", "fresh_p99_ms", ",.0f", " ms"),
        ("  probes / data snapshots during the freshness phase", None, None, None),
        ("  writer during freshness: rows/s achieved", "fresh_writer", ",.0f", ""),
        ("peak RSS (VmHWM of the process)", "peak_rss_mb", ",.0f", " MB"),
        ("CPU seconds of the process (user + system), whole run", "cpu_s", ",.1f", " s"),
        ("  CPU seconds: start to copy in the lake", "cpu_copy_s", ",.1f", " s"),
        ("  CPU seconds: stream phase (after resume)", "cpu_stream_s", ",.1f", " s"),
        ("files in the table folder at the end: data / all", None, None, None),
        ("table folder size", "mb", ",.1f", " MB"),
        ("load average (1 min) at start / end", None, None, None),
    ]
    width = 72
    print()
    print("== peer benchmark: %d rows, burst %d, freshness %d s at %d rows/s offered" %
          (args.rows, args.burst, args.fresh_seconds, args.fresh_rate))
    print("%-*s %28s %28s" % (width, "", sides[0], sides[1] if len(sides) > 1 else ""))
    for label, key, spec, unit in rows:
        cells = []
        for r in results:
            if key is None and label.startswith("  probes"):
                cells.append("%s / %s" % (r.get("fresh_probes", "-"), r.get("fresh_commits", "-")))
            elif key is None and label.startswith("files"):
                cells.append("%s / %s" % (r.get("data_files", "-"), r.get("files", "-")))
            elif key is None:
                cells.append("%s / %s" % (r.get("load_start", "").split()[0], r.get("load_end", "").split()[0]))
            else:
                v = r.get(key)
                cells.append("-" if v is None else fmt(v, spec) + unit)
        print("%-*s %28s %28s" % (width, label, cells[0], cells[1] if len(cells) > 1 else ""))
    print()
    for r in results:
        print("findings, %s:" % r["side"])
        for f in r["findings"]:
            print("  - " + f)
    for r in results:
        if r.get("log_summary"):
            print("%s's log: %s" % (r["side"], r["log_summary"]))
    print()
    print("settings:")
    print("  target (both sides): shop.orders, primary key (order_id, dt), dt = date_format(update_time, yyyy-MM-dd) "
          "as the partition, bucket = 4, changelog-producer = input; source REPLICA IDENTITY FULL")
    print("  tide: `tide sync postgres` defaults (commit interval 500 ms)")
    print("  peer: PostgresSyncTableAction, Flink local mode in one JVM (-Xmx%s), parallelism %d (the machine's cores), "
          "checkpoint every %d ms (exactly-once; the field report's §7 end-to-end delay of 1.2 s needs about one a "
          "second), decoding.plugin.name = pgoutput; heartbeat.timeout 1 h (the stream phase pauses the JVM)"
          % (args.peer_heap, args.peer_parallelism, args.peer_checkpoint_ms))
    print("    Paimon table options: %s (the field report's §7.2)%s"
          % (", ".join(PEER_TUNING), "; " + ", ".join(args.peer_table_conf) if args.peer_table_conf else ""))
    print("    Flink CDC source options: %s%s" % (", ".join(peer_source_conf(args)), (
        " (backfill skipped: no replication slot and WAL read per chunk; changes during the copy are replayed "
        "from the stream into the primary-key table)" if args.peer_backfill_skip else
        " (with Flink CDC's backfill: a replication slot and a WAL read per chunk)")))
    if args.peer_flink_conf:
        print("    Flink configuration: %s" % ", ".join(args.peer_flink_conf))
    print("  PostgreSQL: wal_level logical, wal_compression on, wal_keep_size 2GB (the report's §2.1/§7.3), "
          "synchronous_commit on, wal_sender_timeout 0")
    print("versions: " + "; ".join("%s %s" % kv for kv in versions.items()))
    print("machine: %d CPUs, %s; run took %.0f s" % (os.cpu_count(), mem_total(), now() - t_started))


def mem_total():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return "%.0f GiB RAM" % (int(line.split()[1]) / 1024 / 1024)
    return "?"


def versions_of(args, pg):
    v = {"PostgreSQL": pg.version()}
    r = subprocess.run([args.tide, "--version"], capture_output=True, text=True)
    lines = (r.stdout or r.stderr).strip().split("\n")
    v["tide"] = lines[0].replace("tide ", "", 1) + (" (%s)" % ", ".join(lines[1:3]) if len(lines) > 1 else "")
    r = subprocess.run(["java", "-version"], capture_output=True, text=True)
    v["java"] = [l for l in r.stderr.strip().split("\n") if not l.startswith("Picked up")][0]
    pom = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pom.xml")).read()
    for prop, name in (("paimon.version", "paimon-flink-1.20"), ("flink.version", "Flink"),
                       ("flink.cdc.version", "flink-sql-connector-postgres-cdc")):
        start = pom.find("<%s>" % prop) + len(prop) + 2
        v[name] = pom[start:pom.find("</%s>" % prop)]
    return v


def main():
    ap = argparse.ArgumentParser(description="tide sync postgres against Paimon's postgres_sync_table (Flink CDC)")
    ap.add_argument("--rows", type=int, default=2_000_000, help="rows of orders (default 2,000,000)")
    ap.add_argument("--burst", type=int, help="changes written while a side is paused (default rows / 2)")
    ap.add_argument("--copy-write-rate", type=float, default=2000, help="rows/s offered during the copy")
    ap.add_argument("--fresh-rate", type=float, default=2000, help="rows/s offered during the freshness phase")
    ap.add_argument("--fresh-seconds", type=int, default=25)
    ap.add_argument("--peer-checkpoint-ms", type=int, default=1000,
                    help="Flink checkpoint interval (default 1 s: the report's §7 end-to-end delay of 1.2 s)")
    ap.add_argument("--peer-parallelism", type=int, default=2, help="Flink parallelism (default: the machine's 2 cores)")
    ap.add_argument("--peer-heap", default="4g", help="the JVM's -Xmx")
    ap.add_argument("--peer-chunk-size", type=int, default=8096,
                    help="the peer's scan.incremental.snapshot.chunk.size (default 8096, Flink CDC's default)")
    ap.add_argument("--peer-backfill", dest="peer_backfill_skip", action="store_false",
                    help="run the peer with Flink CDC's per-chunk backfill (default: scan.incremental.snapshot."
                         "backfill.skip = true)")
    ap.add_argument("--peer-source-conf", action="append", default=[], metavar="K=V",
                    help="an extra Flink CDC source option for the peer (repeatable)")
    ap.add_argument("--peer-table-conf", action="append", default=[], metavar="K=V",
                    help="an extra Paimon table option for the peer (repeatable)")
    ap.add_argument("--peer-flink-conf", action="append", default=[], metavar="K=V",
                    help="an extra Flink configuration entry for the peer (repeatable)")
    ap.add_argument("--sides", default="tide,paimon", help="which sides to run, in order")
    ap.add_argument("--timestamp-precision", type=int, default=6,
                    help="p of the timestamp(p) columns (default 6; the report's 3 stops the peer, a finding)")
    ap.add_argument("--no-findings", dest="findings", action="store_false", help="skip the DDL/type/TRUNCATE checks")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds a phase may take before the side fails")
    ap.add_argument("--tide", required=True)
    ap.add_argument("--jar", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, lakes)")
    args = ap.parse_args()
    if args.burst is None:
        args.burst = max(1000, args.rows // 2)
    t_started = now()
    work = tempfile.mkdtemp(prefix="peer_bench_")
    log("work folder %s" % work)
    pg = Postgres(work)
    results = []
    try:
        versions = versions_of(args, pg)
        for side in args.sides.split(","):
            log("== %s" % side)
            results.append(run_side(side, args, pg, work))
        print_table(results, args, versions, t_started)
    finally:
        pg.stop()
        if args.keep:
            log("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if any("failed" in r for r in results if r["side"] == "tide") else 0


if __name__ == "__main__":
    sys.exit(main())
