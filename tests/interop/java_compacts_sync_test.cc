// Java Paimon (1.4, interop/java) compacts a table while the real `tide sync postgres` binary writes it:
// the scale-out the docs describe (another engine compacts, Tide ingests). Both commit to the same
// table at the same time, each with Paimon's conflict rules; whatever interleaving happens, the table
// never loses or repeats a row: once the sync has caught up, Tide's and Java's reads of the latest
// snapshot both equal PostgreSQL, and Java's compactions left COMPACT snapshots between the sync's.
//
// Two layouts: `write-only=true` (the documented set-up: only Java compacts; its compactions commit) and
// both compacting (Paimon allows one compactor per bucket: a Java compaction that loses a conflict
// against Tide's fails with Paimon's conflict error, and may be tried again; Tide's sync never fails).

#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <chrono>
#include <iterator>
#include <map>
#include <set>
#include <thread>

#include "interop/interop_util.h"
#include "sync/sync_test_util.h"
#include "tide/table/manifest/file_entry_merger.h"
#include "tide/table/manifest/manifest_writer.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table.h"

namespace tide::interop {
namespace {

using sync_testing::Server;
using sync_testing::SpawnTide;

constexpr const char* kSelect = "SELECT id::text || E'\\t' || qty::text || E'\\t' || coalesce(note, '\\N') FROM orders";

// The lake's rows as "id\tqty\tnote", from Java's canonical lines (id, qty, note are its columns).
std::multiset<std::string> Rows(const std::vector<std::string>& lines) {
  std::multiset<std::string> rows;
  for (const std::string& l : lines) {
    if (l.rfind("#", 0) == 0) continue;
    rows.insert(l);
  }
  return rows;
}

std::multiset<std::string> PgRows(const std::string& db) {
  std::multiset<std::string> rows;
  auto r = Server().Query(kSelect, db);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) {
    for (const auto& row : *r) rows.insert(*row[0]);
  }
  return rows;
}

// For a failure's message: whether every snapshot's files are its predecessor's with its own delta
// applied (each committer, Java or Tide, built on the snapshot just before its own), or the first
// snapshot that is not. A snapshot replaced after it landed leaves no such break (the replacing one
// was built on the same predecessor); the sync's log says so instead.
std::string HistoryBreak(const std::string& table_path) {
  auto table = Table::Open(FileSystem::Local(), table_path, "shop.orders");
  if (!table.ok()) return table.status().ToString();
  const TableSchema& schema = (*table)->latest_schema();
  SnapshotManager snapshots(FileSystem::Local(), table_path);
  FileStoreScan scan(FileSystem::Local(), table_path, "shop.orders", schema);
  ManifestFileNamer namer;
  ManifestFileWriter manifests(FileSystem::Local(), table_path + "/manifest", /*partition_types=*/{}, &namer);  // unpartitioned
  auto live_of = [&](const Snapshot& s) -> Result<std::map<std::string, std::string>> {
    TIDE_ASSIGN_OR_RETURN(auto entries, scan.ReadLiveEntries(s));
    std::map<std::string, std::string> live;
    for (const ManifestEntry& e : entries) live[FileEntryKey(e)] = fmt::format("{}@{}", e.file.file_name, e.file.level);
    return live;
  };
  auto earliest = snapshots.EarliestId(), latest = snapshots.LatestId();
  if (!earliest.ok() || !latest.ok() || !*earliest || !*latest) return "no snapshots";
  std::optional<std::map<std::string, std::string>> before;
  for (int64_t id = **earliest; id <= **latest; ++id) {
    auto snap = snapshots.Get(id);
    if (!snap.ok()) return snap.status().ToString();
    auto live = live_of(*snap);
    if (!live.ok()) return fmt::format("snapshot {}: {}", id, live.status().ToString());
    if (before) {
      std::map<std::string, std::string> expected = *before;
      auto delta = manifests.ReadManifestList(snap->delta_manifest_list);
      if (!delta.ok()) return delta.status().ToString();
      for (const ManifestFileMeta& m : *delta) {
        auto entries = manifests.ReadManifest(m.file_name);
        if (!entries.ok()) return entries.status().ToString();
        for (const ManifestEntry& e : *entries) {
          if (e.kind == FileKind::kAdd) {
            expected[FileEntryKey(e)] = fmt::format("{}@{}", e.file.file_name, e.file.level);
          } else {
            expected.erase(FileEntryKey(e));
          }
        }
      }
      if (expected != *live) {
        std::vector<std::string> lost, extra;
        for (const auto& [k, f] : expected) {
          if (!live->count(k)) lost.push_back(f);
        }
        for (const auto& [k, f] : *live) {
          if (!expected.count(k)) extra.push_back(f);
        }
        return fmt::format("snapshot {} ({} by {}) is not snapshot {} with its delta: files missing [{}], files "
                           "extra [{}]",
                           id, CommitKindName(snap->commit_kind), snap->commit_user, id - 1, fmt::join(lost, " "),
                           fmt::join(extra, " "));
      }
    }
    before = std::move(*live);
  }
  return "";
}

// `tide_compacts`: the sync compacts too (not write-only). `slow_check_millis`: Java's snapshot commits
// wait that long between their check that the snapshot is absent and their rename (the interop CLI's
// --slow-snapshot-check-millis), so that the sync's snapshots are replaced, and repaired, again and again.
void RunWhileJavaCompacts(const std::string& db, const std::vector<std::string>& table_conf, bool tide_compacts,
                          int slow_check_millis = 0) {
  ASSERT_TRUE(Server().CreateDatabase(db).ok());
  tide::testing::TempDir dir;
  const std::string w = dir.path() + "/lake";
  ASSERT_TRUE(Server().Exec("CREATE TABLE orders (id bigint PRIMARY KEY, qty integer NOT NULL, note text); "
                            "INSERT INTO orders SELECT g, g, 'copy' FROM generate_series(1, 3000) g",
                            db)
                  .ok());
  std::vector<std::string> args = {"sync", "postgres", "--warehouse", w, "--database", "shop", "--postgres",
                                   Server().conninfo(db), "--tables", "public.orders", "--slot", db,
                                   "--publication", db, "--commit-interval", "100ms", "--table-conf", "bucket=2"};
  for (const std::string& conf : table_conf) {
    args.push_back("--table-conf");
    args.push_back(conf);
  }
  pid_t sync = SpawnTide(args, dir.path() + "/sync.log");
  ASSERT_GT(sync, 0);
  std::string last_difference;  // what the last comparison found, for the failure message
  auto lake_rows = [&]() -> std::multiset<std::string> {
    auto lines = TideRead(w, "shop.orders");
    if (!lines.ok()) {
      last_difference = "the lake read failed: " + lines.status().ToString();
      return {};
    }
    return Rows(*lines);
  };
  auto wait_caught_up = [&](int seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      last_difference.clear();
      std::multiset<std::string> lake = lake_rows(), pg = PgRows(db);
      if (lake == pg) return true;
      if (last_difference.empty()) {
        std::vector<std::string> only_lake, only_pg;
        std::set_difference(lake.begin(), lake.end(), pg.begin(), pg.end(), std::back_inserter(only_lake));
        std::set_difference(pg.begin(), pg.end(), lake.begin(), lake.end(), std::back_inserter(only_pg));
        last_difference = fmt::format("lake {} rows, PostgreSQL {}; only in the lake ({}): {}; only in PostgreSQL "
                                      "({}): {}",
                                      lake.size(), pg.size(), only_lake.size(),
                                      fmt::join(only_lake.begin(), only_lake.begin() + std::min<size_t>(5, only_lake.size()), " | "),
                                      only_pg.size(),
                                      fmt::join(only_pg.begin(), only_pg.begin() + std::min<size_t>(5, only_pg.size()), " | "));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  };
  ASSERT_TRUE(wait_caught_up(120)) << "the initial copy; " << ReadFile(dir.path() + "/sync.log");

  std::atomic<bool> writing{true};
  std::thread writer([&] {
    for (int64_t n = 0; writing.load(); ++n) {
      std::string txn = "BEGIN; INSERT INTO orders VALUES (" + std::to_string(10000 + n) + ", 1, 'new'); " +
                        "UPDATE orders SET qty = qty + 1, note = 'u" + std::to_string(n) + "' WHERE id % 50 = " +
                        std::to_string(n % 50) + "; DELETE FROM orders WHERE id = " + std::to_string(1 + n % 3000) +
                        "; COMMIT";
      Status st = Server().Exec(txn, db);
      if (!st.ok()) ADD_FAILURE() << st.ToString();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  // Java compacts again and again in one JVM while the sync commits every 100 ms.
  std::vector<std::vector<std::string>> commands;
  for (int i = 0; i < 6; ++i) {
    commands.push_back({"compact", "--warehouse", w, "--table", "shop.orders", "--full"});
    if (slow_check_millis > 0) {
      commands.back().push_back("--slow-snapshot-check-millis");
      commands.back().push_back(std::to_string(slow_check_millis));
    }
    commands.push_back({"sleep", "--millis", "300"});
  }
  std::vector<JavaResult> compactions = RunJavaBatch(commands);
  writing = false;
  writer.join();
  const bool caught_up = wait_caught_up(120);
  std::vector<JavaResult> after = RunJavaBatch({{"read", "--warehouse", w, "--table", "shop.orders", "--print-snapshot"}});
  ::kill(sync, SIGTERM);
  int status = 0;
  ::waitpid(sync, &status, 0);
  const std::string log = ReadFile(dir.path() + "/sync.log");
  if (!caught_up) {
    // What Java reads of the same snapshot tells a wrong table from a wrong read; the warehouse is kept
    // for a post-mortem when TIDE_TEST_KEEP names a folder.
    std::string java_read = after[0].ok ? (Rows(after[0].lines) == PgRows(db) ? "Java's read equals PostgreSQL"
                                                                               : "Java's read differs too")
                                        : "Java's read failed: " + after[0].error;
    if (const char* keep = std::getenv("TIDE_TEST_KEEP")) {
      std::string copy = fmt::format("cp -r '{}' '{}/{}-{}'", dir.path(), keep, db, ::getpid());
      java_read += std::system(copy.c_str()) == 0 ? "; kept in " + std::string(keep) : "; could not keep the warehouse";
    }
    FAIL() << last_difference << "\n" << java_read << "\n" << HistoryBreak(w + "/shop.db/orders") << "\n" << log;
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << "\n" << log;

  int succeeded = 0;
  for (size_t i = 0; i < compactions.size(); i += 2) {
    if (compactions[i].ok) {
      ++succeeded;
    } else {
      // Acceptable failures: losing Paimon's conflict check, only when Tide compacts too; and, in either
      // layout, Java giving up after commit.max-retries lost races against the sync's commits every
      // 100 ms (a slow machine: each of Java's attempts outlasts the gap between two of the sync's).
      const bool out_of_retries = compactions[i].error.find("retries") != std::string::npos;
      if (!out_of_retries) {
        EXPECT_TRUE(tide_compacts) << compactions[i].error;
        EXPECT_NE(compactions[i].error.find("onflict"), std::string::npos) << compactions[i].error;
      }
    }
  }
  // Alone in compacting, Java's compactions commit; beside Tide's own (every 100 ms here) they may all
  // lose (Paimon allows one compactor per bucket), and the table stays exact either way.
  if (!tide_compacts) {
    EXPECT_GE(succeeded, 1) << "no Java compaction committed";
  }
  std::cerr << succeeded << " of " << compactions.size() / 2 << " Java compactions committed\n";
  // How often Java's rename replaced a snapshot of the sync's (each repaired: RecheckLastCommit).
  size_t replaced = 0;
  for (size_t at = log.find("were replaced by another committer"); at != std::string::npos;
       at = log.find("were replaced by another committer", at + 1)) {
    ++replaced;
  }
  std::cerr << replaced << " snapshot(s) of the sync replaced by Java's and repaired\n";
  if (slow_check_millis > 0 && !tide_compacts) {
    EXPECT_GT(replaced, 0u) << "Java's commits waited up to " << slow_check_millis << " ms between check and rename, the "
                            << "sync committed every 100 ms, and no snapshot of the sync was replaced\n" << log;
  }
  ASSERT_TRUE(after[0].ok) << after[0].error;
  EXPECT_EQ(Rows(after[0].lines), PgRows(db)) << "Java's read of the latest snapshot";
  // Java's compactions are in the table's history, between the sync's commits.
  SnapshotManager snapshots(FileSystem::Local(), w + "/shop.db/orders");
  int java_compacts = 0;
  for (int64_t id = snapshots.EarliestId().ValueOr(std::nullopt).value_or(1);
       id <= snapshots.LatestId().ValueOr(std::nullopt).value_or(0); ++id) {
    auto s = snapshots.Get(id);
    if (s.ok() && s->commit_kind == CommitKind::kCompact && s->commit_user.rfind("tide-sync-", 0) != 0) ++java_compacts;
  }
  EXPECT_EQ(java_compacts, succeeded);
}

TEST(JavaCompactsSyncTest, JavaCompactsAWriteOnlyTableWhileTheSyncWritesIt) {
  RunWhileJavaCompacts("interop_java_compacts_write_only", {"write-only=true"}, false);
}

TEST(JavaCompactsSyncTest, JavaAndTheSyncBothCompactTheSameTable) {
  RunWhileJavaCompacts("interop_java_compacts_both", {"num-sorted-run.compaction-trigger=2"}, true);
}

// Java's rename replaces a snapshot of the sync's on almost every compaction it commits: its window
// between check and rename is widened to up to 250 ms (longer than the sync's commit interval) and ends
// right after the sync creates the snapshot, before the sync's next step (its COMPACT snapshot, whose
// compaction then loses to Java's). The sync finds each replaced snapshot, commits its files again
// before its writer re-reads the table, and the table stays equal to PostgreSQL.
TEST(JavaCompactsSyncTest, SnapshotsJavaReplacesAreRepaired) {
  RunWhileJavaCompacts("interop_java_replaces", {"num-sorted-run.compaction-trigger=2"}, true, 250);
}

TEST(JavaCompactsSyncTest, SnapshotsJavaReplacesOnAWriteOnlyTableAreRepaired) {
  RunWhileJavaCompacts("interop_java_replaces_write_only", {"write-only=true"}, false, 250);
}

}  // namespace
}  // namespace tide::interop
