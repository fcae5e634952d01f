// End-to-end tests of `tide verify` (sync/verify.h) on a real PostgreSQL that the harness starts: a
// synced database matches; values changed, deleted and added behind the sync's back are named by key;
// a verify while the sync runs under a live writer finds a consistent point; and the canonical value
// encoding of both engines (sync/canonical_value_sql.h) agrees type by type, at the values' edges.
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "sync/sync_test_util.h"
#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/pg_type.h"
#include "tide/postgres/pg_type_mapping.h"
#include "tide/postgres/pg_value_decoder.h"
#include "tide/sql/lake_connection.h"
#include "tide/sync/canonical_value_sql.h"
#include "tide/sync/postgres_sync.h"
#include "tide/sync/table_selection.h"

namespace tide {
namespace {

using namespace sync_testing;

// Runs the tide binary; returns its exit code and its stdout (stderr goes to the test's log).
std::pair<int, std::string> RunTideStdout(const std::vector<std::string>& args) {
  std::string cmd = ShellQuote(testing::BuildDir() + "/tide");
  for (const auto& a : args) cmd += " " + ShellQuote(a);
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return {-1, ""};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class VerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = "verify_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name());
    db_ = ToLower(db_).substr(0, 60);
    ASSERT_TRUE(Server().CreateDatabase(db_).ok());
    warehouse_ = dir_.path() + "/warehouse";
    slot_ = "slot_" + db_.substr(7, 40);
  }

  PostgresSyncOptions Options(const std::string& tables) {
    PostgresSyncOptions o;
    o.warehouse = warehouse_;
    o.database = "shop";
    o.conninfo = Server().conninfo(db_);
    o.selection = TableSelection::Parse(tables, "", "", "", "").value();
    o.slot = slot_;
    o.publication = "pub_" + db_.substr(7, 40);
    o.commit_interval = std::chrono::milliseconds(200);
    o.copy_workers = 2;
    return o;
  }

  std::vector<std::string> VerifyArgs(const std::string& tables) {
    return {"verify", "--warehouse", warehouse_, "--database", "shop", "--postgres", Server().conninfo(db_),
            "--tables", tables, "--timeout", "30s"};
  }

  // Writes a marker row and waits until the lake holds it: every transaction before it is then
  // committed in the lake (a commit round commits every table at one position).
  bool WaitForMarker(int value) {
    Sql("INSERT INTO tide_marker VALUES (" + std::to_string(value) + ")", db_);
    const std::string path = warehouse_ + "/shop.db/tide_marker";
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      auto rows = ReadLakeRows(path);
      if (rows.ok() && std::find(rows->begin(), rows->end(), std::to_string(value)) != rows->end()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  // Several tables of many types: a keyed table with NULLs, empty strings, negative numerics,
  // timestamptz, bytea, arrays and json; the field report's layout (a day computed from update_time,
  // partitioned by it, key without the partition: rows move between days); a table PostgreSQL
  // partitions itself; a table without a primary key.
  void CreateShop() {
    Sql("CREATE TABLE tide_marker (id int PRIMARY KEY)", db_);
    Sql("CREATE TABLE accounts (id bigint PRIMARY KEY, name text, balance numeric(12,2), opened timestamptz, "
        "born date, active boolean, avatar bytea, tags text[], scores int[], profile jsonb, ratio double precision, "
        "code char(4), uid uuid)",
        db_);
    Sql("INSERT INTO accounts SELECT g, CASE WHEN g % 10 = 0 THEN NULL WHEN g % 10 = 1 THEN '' ELSE 'näme ' || g END, "
        "(g - 500) * 1.37, timestamptz '1965-03-01 10:00:00+02' + g * interval '7 hours 3 minutes', "
        "date '1950-01-01' + g, g % 3 = 0, CASE WHEN g % 4 = 0 THEN NULL ELSE decode(md5(g::text), 'hex') END, "
        "CASE WHEN g % 5 = 0 THEN NULL WHEN g % 5 = 1 THEN '{}'::text[] ELSE ARRAY['a' || g, NULL, ''] END, "
        "ARRAY[g, -g], jsonb_build_object('k', g, 's', 'x,y'), g / 7.0, 'c' || (g % 10), "
        "md5(g::text)::uuid FROM generate_series(1, 1000) g",
        db_);
    Sql("CREATE TABLE orders (order_id bigint PRIMARY KEY, status text NOT NULL, update_time timestamp(3), "
        "amount numeric(10,2))",
        db_);
    Sql("INSERT INTO orders SELECT g, 'created', timestamp '2026-11-28 12:00:00' + (g % 5) * interval '1 day', "
        "g * 0.5 FROM generate_series(1, 500) g",
        db_);
    Sql("CREATE TABLE readings (sensor int, day date, value real, PRIMARY KEY (sensor, day)) PARTITION BY RANGE (day)",
        db_);
    Sql("CREATE TABLE readings_2025 PARTITION OF readings FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')", db_);
    Sql("CREATE TABLE readings_2026 PARTITION OF readings FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')", db_);
    Sql("INSERT INTO readings SELECT s, date '2025-12-20' + d, s * d / 3.0 FROM generate_series(1, 20) s, "
        "generate_series(0, 20) d",
        db_);
    Sql("CREATE TABLE notes (body text, n int)", db_);
    Sql("INSERT INTO notes VALUES ('same', 1), ('same', 1), ('', NULL), (NULL, 2)", db_);
  }

  PostgresSyncOptions ShopOptions() {
    PostgresSyncOptions options = Options("public\\..*");
    options.computed_columns = {ScopedValue::Parse("dt=date_format(update_time, yyyy-MM-dd)").value()};
    options.partition_keys = {ScopedValue::Parse("orders:dt").value()};
    return options;
  }

  // Changes streamed after the copy: updates (rows moving days), deletes, inserts.
  void StreamSomeChanges() {
    Sql("UPDATE accounts SET name = NULL, balance = -balance WHERE id % 17 = 0", db_);
    Sql("DELETE FROM accounts WHERE id BETWEEN 900 AND 910", db_);
    Sql("INSERT INTO accounts (id, name, tags) VALUES (2000, '', ARRAY[NULL]::text[])", db_);
    Sql("UPDATE orders SET status = 'paid', update_time = update_time + interval '2 days' WHERE order_id <= 50", db_);
    Sql("INSERT INTO notes VALUES ('later', 3)", db_);
  }

  std::string db_;
  testing::TempDir dir_;
  std::string warehouse_;
  std::string slot_;
};

TEST_F(VerifyTest, SyncedDatabaseMatches) {
  CreateShop();
  {
    SyncThread sync(ShopOptions());
    ASSERT_TRUE(WaitForMarker(1)) << StopReason(sync);
    StreamSomeChanges();
    ASSERT_TRUE(WaitForMarker(2)) << StopReason(sync);
    ASSERT_TRUE(sync.Stop().ok());
  }
  auto [code, out] = RunTideStdout(VerifyArgs("public\\..*"));
  EXPECT_EQ(code, 0) << out;
  for (const char* table : {"public.accounts -> shop.accounts", "public.orders -> shop.orders",
                            "public.readings -> shop.readings", "public.notes -> shop.notes"}) {
    EXPECT_NE(out.find(std::string("OK   ") + table + ": match"), std::string::npos) << table << "\n" << out;
  }
}

TEST_F(VerifyTest, NamesEachKeyChangedBehindTheSyncsBack) {
  CreateShop();
  {
    SyncThread sync(ShopOptions());
    ASSERT_TRUE(WaitForMarker(1)) << StopReason(sync);
    ASSERT_TRUE(WaitForMarker(2)) << StopReason(sync);  // streamed: every table's copy is committed
    ASSERT_TRUE(sync.Stop().ok());
  }
  // With the sync stopped: one value changed, one row deleted, one row added, in PostgreSQL.
  Sql("UPDATE accounts SET balance = balance + 0.01 WHERE id = 5", db_);
  Sql("DELETE FROM accounts WHERE id = 7", db_);
  Sql("INSERT INTO accounts (id, name) VALUES (5000, 'new')", db_);
  Sql("UPDATE orders SET status = 'lost' WHERE order_id = 42", db_);
  auto [code, out] = RunTideStdout(VerifyArgs("public\\..*"));
  std::cerr << out;
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("FAIL public.accounts -> shop.accounts: differs"), std::string::npos) << out;
  EXPECT_NE(out.find("key id=5: differs in balance\n"), std::string::npos) << out;
  EXPECT_NE(out.find("key id=7: extra in the lake\n"), std::string::npos) << out;
  EXPECT_NE(out.find("key id=5000: missing in the lake\n"), std::string::npos) << out;
  // The whole-table checks: one row gone and one added leave the count as it was; the rest see it.
  EXPECT_NE(out.find("ok   row count: PostgreSQL 1000, lake 1000\n"), std::string::npos) << out;
  EXPECT_NE(out.find("FAIL max key: PostgreSQL id=5000, lake id=1000\n"), std::string::npos) << out;
  EXPECT_NE(out.find("FAIL checksum: PostgreSQL "), std::string::npos) << out;
  EXPECT_NE(out.find("key order_id=42: differs in status\n"), std::string::npos) << out;
  EXPECT_NE(out.find("OK   public.readings -> shop.readings: match"), std::string::npos) << out;
  // Only the tables asked for are compared.
  auto [code2, out2] = RunTideStdout(VerifyArgs("readings,notes"));
  EXPECT_EQ(code2, 0) << out2;
  EXPECT_EQ(out2.find("accounts"), std::string::npos) << out2;
}

// --into: shards merged into one lake table, each compared with its own rows there (table_name), so a
// key that repeats across shards is told apart, and a change in one shard is named with its shard.
TEST_F(VerifyTest, ComparesEachShardOfAnIntoTable) {
  for (const char* t : {"shard_1", "shard_2"}) {
    Sql(std::string("CREATE TABLE ") + t + " (id bigint PRIMARY KEY, note text)", db_);
    Sql(std::string("INSERT INTO ") + t + " SELECT g, '" + t + "' || g FROM generate_series(1, 300) g", db_);
  }
  {
    PostgresSyncOptions o = Options("public.shard_\\d+");
    o.selection = TableSelection::Parse("public.shard_\\d+", "", "", "", "shards").value();
    o.metadata_columns = {MetadataColumn::kTableName};
    SyncThread sync(o);
    ASSERT_TRUE(WaitEqual(warehouse_ + "/shop.db/shards",
                          "SELECT concat_ws('|', id::text, note, 'shard_1') FROM shard_1 UNION ALL "
                          "SELECT concat_ws('|', id::text, note, 'shard_2') FROM shard_2",
                          db_))
        << StopReason(sync);
    ASSERT_TRUE(sync.Stop().ok());
  }
  std::vector<std::string> args = VerifyArgs("public.shard_\\d+");
  args.insert(args.end(), {"--into", "shards"});
  auto [code, out] = RunTideStdout(args);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("OK   public.shard_1 -> shop.shards: match"), std::string::npos) << out;
  EXPECT_NE(out.find("OK   public.shard_2 -> shop.shards: match"), std::string::npos) << out;
  Sql("UPDATE shard_2 SET note = 'changed' WHERE id = 7", db_);
  auto [code2, out2] = RunTideStdout(args);
  EXPECT_EQ(code2, 1) << out2;
  EXPECT_NE(out2.find("OK   public.shard_1 -> shop.shards: match"), std::string::npos) << out2;
  EXPECT_NE(out2.find("FAIL public.shard_2 -> shop.shards: differs"), std::string::npos) << out2;
  EXPECT_NE(out2.find("key id=7: differs in note\n"), std::string::npos) << out2;
}

TEST_F(VerifyTest, FindsAConsistentPointWhileTheSyncRunsUnderALiveWriter) {
  CreateShop();
  SyncThread sync(ShopOptions());
  ASSERT_TRUE(WaitForMarker(1)) << StopReason(sync);
  ASSERT_TRUE(WaitForMarker(2)) << StopReason(sync);
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::thread writer([&] {
    auto conn = PgConnection::Connect(Server().conninfo(db_));
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    std::mt19937 rng(7);
    int next_id = 10000;
    while (!stop.load()) {
      int id = static_cast<int>(rng() % 1000) + 1;
      std::string sql;
      switch (rng() % 4) {
        case 0:
          sql = "UPDATE accounts SET balance = balance + 1, name = 'w" + std::to_string(id) + "' WHERE id = " +
                std::to_string(id);
          break;
        case 1:
          sql = "INSERT INTO accounts (id, name, opened) VALUES (" + std::to_string(next_id++) + ", 'live', now())";
          break;
        case 2:
          sql = "DELETE FROM accounts WHERE id = " + std::to_string(id);
          break;
        default:
          sql = "BEGIN; UPDATE orders SET update_time = update_time + interval '1 day' WHERE order_id = " +
                std::to_string(id % 500 + 1) + "; UPDATE accounts SET active = NOT coalesce(active, false) WHERE id = " +
                std::to_string(id) + "; COMMIT";
      }
      ASSERT_TRUE((*conn)->Execute(sql).ok());
      ++writes;
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 10));
    }
  });
  std::this_thread::sleep_for(std::chrono::seconds(1));
  auto [code, out] = RunTideStdout(VerifyArgs("accounts,orders"));
  const int writes_during = writes.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const bool wrote_after = writes.load() > writes_during;
  stop = true;
  writer.join();
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("OK   public.accounts -> shop.accounts: match"), std::string::npos) << out;
  EXPECT_NE(out.find("OK   public.orders -> shop.orders: match"), std::string::npos) << out;
  EXPECT_GT(writes_during, 50) << "the writer should have been busy while verify ran";
  EXPECT_TRUE(wrote_after) << "the writer should still have been writing when verify ended";
  ASSERT_FALSE(sync.done()) << StopReason(sync);
  ASSERT_TRUE(sync.Stop().ok());
  std::cerr << out;
}

// Runs `sql` on DuckDB; every column must be VARCHAR. Rows of text (nullopt = NULL).
std::vector<std::vector<std::optional<std::string>>> DuckText(DuckConnection& conn, const std::string& sql) {
  std::vector<std::vector<std::optional<std::string>>> rows;
  auto result = conn.Query(sql);
  EXPECT_TRUE(result.ok()) << result.status().ToString() << "\n" << sql;
  if (!result.ok()) return rows;
  while (true) {
    DuckDataChunk chunk = result->FetchChunk();
    if (!chunk || chunk.size() == 0) break;
    size_t base = rows.size();
    rows.resize(base + chunk.size());
    for (idx_t c = 0; c < chunk.column_count(); ++c) {
      auto* strings = static_cast<duckdb_string_t*>(duckdb_vector_get_data(chunk.column(c)));
      uint64_t* validity = duckdb_vector_get_validity(chunk.column(c));
      for (idx_t r = 0; r < chunk.size(); ++r) {
        if (validity && !duckdb_validity_row_is_valid(validity, r)) {
          rows[base + r].emplace_back(std::nullopt);
        } else {
          rows[base + r].emplace_back(std::string(duckdb_string_t_data(&strings[r]), duckdb_string_t_length(strings[r])));
        }
      }
    }
  }
  return rows;
}

// One column per type Tide maps (docs/postgres-types.md), with values at the edges: the canonical text
// PostgreSQL computes for each value equals the one DuckDB computes over the lake, column by column,
// row by row; and `tide verify` agrees.
TEST_F(VerifyTest, CanonicalEncodingAgreesTypeByType) {
  Sql("CREATE TABLE tide_marker (id int PRIMARY KEY)", db_);
  Sql("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')", db_);
  Sql("CREATE DOMAIN posint AS integer CHECK (VALUE > 0)", db_);
  Sql("CREATE DOMAIN price AS numeric(10,2)", db_);
  Sql("CREATE TABLE types (id int PRIMARY KEY, b boolean, i2 smallint, i4 integer, i8 bigint, o oid, f4 real, "
      "f8 double precision, n numeric(38,10), nneg numeric(5,-2), nsmall numeric(3,5), nfree numeric, m money, "
      "t text, vc varchar(10), c char(5), ch \"char\", nm name, by bytea, u uuid, j json, jb jsonb, d date, "
      "tm time(6), tm3 time(3), ttz timetz, ts timestamp(6), ts3 timestamp(3), ts0 timestamp(0), tstz timestamptz, "
      "iv interval, ine inet, ci cidr, ma macaddr, bi bit(4), vb varbit, lsn pg_lsn, e mood, dom posint, pr price, "
      "ai int[], at text[], atz timestamptz[], an numeric(10,2)[], ab bytea[], ad date[], ab2 boolean[], "
      "af float8[], pt point)",
      db_);
  Sql("INSERT INTO types VALUES (1, true, 1, 2, 3, 4, 1.5, 2.25, 12345.6789, 12300, 0.00123, 1.5, 12.34, 'text', "
      "'varchar', 'ab', 'a', 'name', '\\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": [1, 2]}', "
      "'{\"b\": 1, \"a\": 2}', '2024-02-29', '12:34:56.789123', '23:59:59.999', '12:34:56+05:30', "
      "'2024-02-29 12:34:56.123456', '2024-02-29 12:34:56.123', '2024-02-29 12:34:56', '2024-02-29 12:34:56.5+01', "
      "'1 year 2 mons 3 days 04:05:06.789', '192.168.1.5/24', '10.0.0.0/8', '08:00:2b:01:02:03', B'1010', B'101', "
      "'16/B374D848', 'happy', 7, 99.99, ARRAY[1, NULL, 3], ARRAY['x', NULL, '', 'a,b'], "
      "ARRAY['2024-01-01 00:00:00+00'::timestamptz, NULL], ARRAY[1.5, -2.25], ARRAY['\\x01'::bytea, NULL], "
      "ARRAY['2024-01-01'::date, 'infinity'], ARRAY[true, NULL, false], ARRAY[0.1, 'NaN', '-Infinity']::float8[], "
      "'(1.5,2)')",
      db_);
  // Edges: negative numerics, large scales, before 1970 and BC, infinities, NaN, -0, extremes of floats,
  // unicode, empty strings and arrays, blank-padded chars, "char" above ASCII.
  Sql("INSERT INTO types VALUES (2, false, -32768, -2147483648, -9223372036854775808, 4294967295, '-0', "
      "'-1e-300', -9999999999999999999999999999.9999999999, -9999900, -0.00001, '-0.000000000000000000001', "
      "-92233720368547758.08, 'ünïcødé 😀 中文', '', '', '\\200', '', '\\x', "
      "'00000000-0000-0000-0000-000000000000', '\"\"', '[]', '0044-03-15 BC', '00:00:00', '24:00:00', "
      "'00:00:00-12', '1900-01-01 00:00:00.000001', '1969-12-31 23:59:59.999', '0001-01-01 00:00:00', "
      "'1901-12-13 20:45:52.123456+00', '-1 days -00:00:00.000001', '::1', '2001:db8::/32', "
      "'ff:ff:ff:ff:ff:ff', B'0000', B'', '0/0', 'sad', 1, -0.01, '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', "
      "'(0,0)')",
      db_);
  Sql("INSERT INTO types VALUES (3, NULL, 32767, 2147483647, 9223372036854775807, 0, 'Infinity', '1.7976931348623157e308', "
      "9999999999999999999999999999.9999999999, 9999900, 0.00999, 'NaN', 0, 'line1\nline2\ttab \\ back', "
      "'tenchars__', 'abcde', 'z', 'x', '\\xdeadbeef', NULL, '{\"nested\": {\"x\": null}}', 'null', 'infinity', "
      "'23:59:59.999999', '00:00:00.001', NULL, 'infinity', 'infinity', '-infinity', '-infinity', NULL, NULL, NULL, "
      "NULL, NULL, NULL, NULL, 'ok', NULL, NULL, ARRAY[NULL]::int[], ARRAY[NULL]::text[], NULL, NULL, NULL, "
      "ARRAY['-infinity'::date], NULL, ARRAY['-0', '5e-324', 'Infinity']::float8[], NULL)",
      db_);
  Sql("INSERT INTO types (id, f4, f8, nfree, d, tstz) VALUES (4, 'NaN', 'NaN', 'Infinity', '-infinity', "
      "'0044-03-15 12:00:00+00 BC'), (5, '-Infinity', '4.9e-324', '-Infinity', '5874897-12-31', "
      "'200000-12-31 23:59:59.999999+00')",
      db_);
  Sql("INSERT INTO types (id) VALUES (6)", db_);
  {
    SyncThread sync(Options("types,tide_marker"));
    ASSERT_TRUE(WaitForMarker(1)) << StopReason(sync);  // may arrive with the marker's copy alone
    ASSERT_TRUE(WaitForMarker(2)) << StopReason(sync);  // streamed: every table's copy is committed
    ASSERT_TRUE(sync.Stop().ok());
  }

  // Column by column: PostgreSQL's canonical text against DuckDB's over the lake.
  auto conn = PgConnection::Connect(Server().conninfo(db_), PgSessionKind::kSql, kPgTextSessionOptions);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto cols = (*conn)->Query(
      "SELECT a.attname, a.atttypid, a.atttypmod FROM pg_attribute a WHERE a.attrelid = 'types'::regclass "
      "AND a.attnum > 1 AND NOT a.attisdropped ORDER BY a.attnum");
  ASSERT_TRUE(cols.ok());
  PgRelation relation;
  for (int r = 0; r < cols->rows(); ++r) {
    PgRelationColumn col;
    col.name = std::string(cols->Value(r, 0));
    col.type_oid = static_cast<PgOid>(std::stoul(std::string(cols->Value(r, 1))));
    col.type_modifier = std::stoi(std::string(cols->Value(r, 2)));
    relation.columns.push_back(col);
  }
  PgTypeRegistry types;
  std::vector<PgOid> unknown = types.UnresolvedTypeOids(relation);
  if (!unknown.empty()) {
    auto rows = (*conn)->Query(PgTypeCatalogQuery(unknown));
    ASSERT_TRUE(rows.ok());
    for (int r = 0; r < rows->rows(); ++r) {
      std::vector<std::string> fields;
      for (int c = 0; c < rows->columns(); ++c) fields.emplace_back(rows->Value(r, c));
      ASSERT_TRUE(types.AddFromCatalogRow(fields).ok());
    }
  }
  auto lake = LakeConnection::OpenWarehouse(FileSystem::Local(), warehouse_);
  ASSERT_TRUE(lake.ok()) << lake.status().ToString();
  auto table = Table::Open(FileSystem::Local(), warehouse_ + "/shop.db/types", "shop.types");
  ASSERT_TRUE(table.ok());
  const TableSchema& schema = (*table)->latest_schema();
  int compared = 0;
  for (const PgRelationColumn& col : relation.columns) {
    SCOPED_TRACE(col.name);
    auto mapping = MapPgType(col.type_oid, col.type_modifier, types);
    ASSERT_TRUE(mapping.ok());
    int field = schema.FieldIndex(col.name);
    ASSERT_GE(field, 0);
    const std::string pg_text = PgCanonicalText(*mapping, "\"" + col.name + "\"");
    auto lake_text = LakeCanonicalText(schema.fields[static_cast<size_t>(field)].type, "\"" + col.name + "\"");
    ASSERT_TRUE(lake_text.ok()) << lake_text.status().ToString();
    auto pg_rows = Server().Query("SET extra_float_digits = 3; SET IntervalStyle = postgres; SET DateStyle = 'ISO,MDY'; "
                                  "SELECT id::text, " + pg_text + " FROM types ORDER BY id",
                                  db_);
    ASSERT_TRUE(pg_rows.ok()) << pg_rows.status().ToString() << "\n" << pg_text;
    auto lake_rows =
        DuckText((*lake)->connection(), "SELECT CAST(id AS VARCHAR), " + *lake_text + " FROM shop.types ORDER BY id");
    ASSERT_EQ(pg_rows->size(), lake_rows.size());
    for (size_t r = 0; r < lake_rows.size(); ++r) {
      EXPECT_EQ((*pg_rows)[r][1], lake_rows[r][1])
          << "column " << col.name << " (" << mapping->pg_type_name << " -> " << mapping->type.ToString() << ") row id "
          << lake_rows[r][0].value_or("?");
    }
    ++compared;
  }
  EXPECT_EQ(compared, 48);

  auto [code, out] = RunTideStdout(VerifyArgs("types"));
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("OK   public.types -> shop.types: match"), std::string::npos) << out;
}

}  // namespace
}  // namespace tide
