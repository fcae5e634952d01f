// Java Paimon (1.4, interop/java) reads a table that the real `tide sync postgres` binary mirrors from
// a real PostgreSQL (the harness's server), with a column of every PostgreSQL type the sync maps
// (docs/postgres-types.md): while the sync runs and a writer keeps changing the source, each of
// Java's reads (of the latest snapshot it saw) equals Tide's read of that snapshot, row for row in the
// canonical text; once the sync has caught up, Java's latest read holds exactly the source's rows.

#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "interop/interop_util.h"
#include "sync/sync_test_util.h"

namespace tide::interop {
namespace {

using sync_testing::Server;
using sync_testing::SpawnTide;

constexpr const char* kColumns =
    "id bigint PRIMARY KEY, b boolean, s smallint, i integer, bi bigint, o oid, r real, d double precision, "
    "n numeric(12,3), big numeric(50,2), nn numeric, neg numeric(5,-2), m money, t text, vc varchar(10), "
    "c char(4), q \"char\", by bytea, u uuid, j json, jb jsonb, x xml, dt date, tm time(3), tm6 time, "
    "ttz timetz, ts timestamp(6), ts3 timestamp(3), tz timestamptz, iv interval, ip inet, ci cidr, "
    "mac macaddr, bits bit(4), vb varbit, lsn pg_lsn, e mood, dom posint, pt point, ia integer[], "
    "ta text[], na numeric(6,2)[], tsa timestamp[]";

std::string Values(int64_t id, const std::string& tag) {
  std::string i = std::to_string(id);
  return "(" + i + ", " + (id % 2 ? "true" : "false") + ", " + std::to_string(id % 30000) + ", " + i + ", " + i +
         " * 1000000000000, " + i + ", " + (id % 5 == 0 ? "'NaN'" : id % 5 == 1 ? "'-Infinity'" : i + ".5") + ", " +
         (id % 7 == 0 ? "'-0'" : i + ".25") + ", " + i + ".125, 12345678901234567890123456789012345678901234567.89, " +
         (id % 3 == 0 ? "'NaN'" : i + ".000100") + ", " + i + "00, " + i + ".99, '" + tag + " tab\there ✓', 'vc" + i +
         "', 'ab', 'q', '\\x00ff" + (id % 2 ? "10" : "") + "', '" +
         "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a" + std::to_string(10 + id % 90) + "', '{\"k\": " + i + "}', '{\"b\": 2, \"a\": " +
         i + "}', '<x>" + i + "</x>', " + (id % 4 == 0 ? "'infinity'" : "date '2024-02-29' + " + i) + ", '12:34:56.789', " +
         "'23:59:59.999999', '12:00:00+05:30', " +
         (id % 6 == 0 ? "'-infinity'" : "timestamp '1999-12-31 23:59:59.123456' + interval '" + i + " hours'") + ", " +
         "'2024-01-01 00:00:00.123', timestamptz '2024-06-01 12:00:00+02' + interval '" + i + " seconds', " +
         "'1 year 2 mons 3 days 04:05:06.789', '192.168.1." + std::to_string(id % 250) + "/24', '10.0.0.0/8', " +
         "'08:00:2b:01:02:03', B'1010', B'10', '16/B374D848', 'happy', " + i + ", '(1.5,2)', " +
         (id % 3 == 0 ? "'{}'" : "ARRAY[1, NULL, " + i + "]") + ", ARRAY['a', NULL, 'x\"y'], ARRAY[1.50, -2.25], " +
         "ARRAY[timestamp '2000-01-01 00:00:00.000001'])";
}

TEST(JavaReadsSyncTest, JavaReadsWhatTheSyncWritesWhileItRuns) {
  std::string db = "interop_java_reads_sync";
  ASSERT_TRUE(Server().CreateDatabase(db).ok());
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  ASSERT_TRUE(Server().Exec("CREATE TYPE mood AS ENUM ('sad', 'happy'); CREATE DOMAIN posint AS integer CHECK (VALUE > 0); "
                            "CREATE TABLE typed (" + std::string(kColumns) + ")",
                            db)
                  .ok());
  std::string rows;
  for (int64_t id = 1; id <= 60; ++id) rows += (id > 1 ? ", " : "") + Values(id, "copy");
  Status inserted = Server().Exec("INSERT INTO typed VALUES " + rows, db);
  ASSERT_TRUE(inserted.ok()) << inserted.ToString();
  // A NULL in every column but the key.
  ASSERT_TRUE(Server().Exec("INSERT INTO typed (id) VALUES (1000)", db).ok());

  pid_t sync = SpawnTide({"sync", "postgres", "--warehouse", w, "--database", "shop", "--postgres",
                          Server().conninfo(db), "--tables", "public.typed", "--slot", "interop_java",
                          "--publication", "interop_java", "--commit-interval", "100ms"},
                         dir.path() + "/sync.log");
  ASSERT_GT(sync, 0);
  auto lake_ids = [&]() -> std::set<std::string> {
    auto lines = TideRead(w, "shop.typed");
    std::set<std::string> ids;
    if (!lines.ok()) return ids;
    for (const std::string& l : *lines) ids.insert(l.substr(0, l.find('\t')));
    return ids;
  };
  auto pg_ids = [&]() {
    std::set<std::string> ids;
    auto r = Server().Query("SELECT id::text FROM typed", db);
    EXPECT_TRUE(r.ok());
    if (r.ok()) {
      for (const auto& row : *r) ids.insert(*row[0]);
    }
    return ids;
  };
  auto wait_caught_up = [&](int seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (lake_ids() == pg_ids()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  };
  ASSERT_TRUE(wait_caught_up(120)) << "the initial copy; " << ReadFile(dir.path() + "/sync.log");

  // A writer changes the source while Java reads the lake.
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    for (int64_t n = 0; writing.load(); ++n) {
      int64_t id = 2000 + n;
      std::string txn = "BEGIN; INSERT INTO typed VALUES " + Values(id, "live") + "; UPDATE typed SET t = 'updated " +
                        std::to_string(n) + "', i = i + 1 WHERE id = " + std::to_string(1 + n % 60) +
                        "; DELETE FROM typed WHERE id = " + std::to_string(id - 3) + "; COMMIT";
      Status st = Server().Exec(txn, db);
      if (!st.ok()) ADD_FAILURE() << st.ToString();
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
  });
  std::vector<std::vector<std::string>> commands;
  for (int i = 0; i < 5; ++i) {
    commands.push_back({"read", "--warehouse", w, "--table", "shop.typed", "--print-snapshot"});
    commands.push_back({"sleep", "--millis", "700"});
  }
  std::vector<JavaResult> during = RunJavaBatch(commands);
  writing = false;
  writer.join();
  bool caught_up = wait_caught_up(120);
  std::vector<JavaResult> after = RunJavaBatch({{"read", "--warehouse", w, "--table", "shop.typed", "--print-snapshot"}});
  ::kill(sync, SIGTERM);
  int status = 0;
  ::waitpid(sync, &status, 0);
  ASSERT_TRUE(caught_up) << ReadFile(dir.path() + "/sync.log");

  std::set<int64_t> seen;
  std::vector<JavaResult> reads;
  for (size_t i = 0; i < during.size(); i += 2) reads.push_back(during[i]);
  reads.push_back(after[0]);
  for (const JavaResult& r : reads) {
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_FALSE(r.lines.empty());
    ASSERT_EQ(r.lines[0].rfind("#snapshot ", 0), 0u) << r.lines[0];
    int64_t snapshot = std::stoll(r.lines[0].substr(10));
    seen.insert(snapshot);
    SCOPED_TRACE("snapshot " + std::to_string(snapshot));
    auto tide_rows = TideRead(w, "shop.typed", snapshot);
    ASSERT_TRUE(tide_rows.ok()) << tide_rows.status().ToString();
    std::vector<std::string> java_rows(r.lines.begin() + 1, r.lines.end());
    EXPECT_EQ(Join(java_rows), Join(*tide_rows));
  }
  EXPECT_GE(seen.size(), 3u) << "Java's reads while the sync ran saw too few snapshots";
  // Java's last read holds the source's rows: its keys, and one column of each row checked by value.
  std::set<std::string> java_ids;
  for (size_t i = 1; i < after[0].lines.size(); ++i) {
    java_ids.insert(after[0].lines[i].substr(0, after[0].lines[i].find('\t')));
  }
  EXPECT_EQ(java_ids, pg_ids());
  auto texts = Server().Query("SELECT id::text || E'\\t' || coalesce(i::text, '\\N') FROM typed", db);
  ASSERT_TRUE(texts.ok());
  std::set<std::string> pg_id_i, java_id_i;
  for (const auto& row : *texts) pg_id_i.insert(*row[0]);
  for (size_t i = 1; i < after[0].lines.size(); ++i) {
    const std::string& l = after[0].lines[i];
    size_t a = l.find('\t'), b = l.find('\t', a + 1), c = l.find('\t', b + 1), d = l.find('\t', c + 1);
    java_id_i.insert(l.substr(0, a) + "\t" + l.substr(c + 1, d - c - 1));
  }
  EXPECT_EQ(java_id_i, pg_id_i);
}

}  // namespace
}  // namespace tide::interop
