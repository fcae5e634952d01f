// Helpers of the end-to-end sync tests (tests/sync/*_test.cc): the shared PostgreSQL server, SQL, the
// rows of a lake table and of a PostgreSQL query in one comparable text form, waiting until they agree
// (saying what differs when they do not), a PostgresSync on a thread of its own, and the tide binary run
// to completion. Thread-safety: as PgServer's; SyncThread is driven from one test thread.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/sync/postgres_sync.h"
#include "tide/table/table.h"

namespace tide::sync_testing {

inline testing::PgServer& Server() { return testing::PgServer::Shared(); }

inline void Sql(const std::string& sql, const std::string& db) {
  Status st = Server().Exec(sql, db);
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// The rows of the lake table at `path` (its latest snapshot, or `snapshot_id`), each as "v1|v2|..."
// (NULL as \N), sorted: every column, or `columns` by name. A named column the lake lacks reads as NULL:
// PostgreSQL describes a table anew (pgoutput's Relation message) only before the next change of one
// of its rows, so a column added after the last change (NULL in every row) is not known yet.
inline Result<std::vector<std::string>> ReadLakeRows(const std::string& path,
                                                     const std::vector<std::string>& columns = {},
                                                     std::optional<int64_t> snapshot_id = std::nullopt) {
  TIDE_ASSIGN_OR_RETURN(auto table, Table::Open(FileSystem::Local(), path, "lake"));
  ReadOptions read;
  read.snapshot.snapshot_id = snapshot_id;
  std::vector<int> slot_of;  // per named column: its place in the projection, -1 when the lake lacks it
  if (!columns.empty()) {
    TIDE_ASSIGN_OR_RETURN(TableSchema schema, table->ReadSchema(read.snapshot));
    for (const std::string& c : columns) {
      int idx = schema.FieldIndex(c);
      slot_of.push_back(idx < 0 ? -1 : static_cast<int>(read.projection.size()));
      if (idx >= 0) read.projection.push_back(idx);
    }
    read.all_columns = !read.projection.empty();
  }
  TIDE_ASSIGN_OR_RETURN(auto reader, table->NewReader(read));
  std::vector<Row> rows;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1024, &rows));
    if (!more) break;
  }
  const auto& fields = reader->fields();
  if (columns.empty()) {
    for (size_t i = 0; i < fields.size(); ++i) slot_of.push_back(static_cast<int>(i));
  }
  std::vector<std::string> out;
  for (const Row& row : rows) {
    std::vector<std::string> parts;
    for (int slot : slot_of) {
      const size_t i = static_cast<size_t>(slot);
      parts.push_back(slot < 0 || row[i].is_null() ? "\\N" : DatumToString(row[i], fields[i].type));
    }
    out.push_back(Join(parts, "|"));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ReadLakeRows of every column; none while the table does not exist yet.
inline std::vector<std::string> LakeRows(const std::string& path) {
  auto rows = ReadLakeRows(path);
  if (!rows.ok()) {
    if (!rows.status().IsNotFound()) ADD_FAILURE() << rows.status().ToString();
    return {};
  }
  return std::move(rows).value();
}

// The rows of `select` (one text column per row, "v1|v2|..."), sorted.
inline std::vector<std::string> PgRows(const std::string& select, const std::string& db) {
  auto rows = Server().Query(select, db);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<std::string> out;
  if (!rows.ok()) return out;
  for (const auto& r : *rows) out.push_back(r[0].value_or("\\N"));
  std::sort(out.begin(), out.end());
  return out;
}

// Polls until the lake table equals PostgreSQL (or `seconds` pass); returns whether it did, and says on
// stderr what differs when it did not.
inline bool WaitEqual(const std::string& path, const std::string& select, const std::string& db, int seconds = 30) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (LakeRows(path) == PgRows(select, db)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::vector<std::string> lake = LakeRows(path), pg = PgRows(select, db), only_lake, only_pg;
  std::set_difference(lake.begin(), lake.end(), pg.begin(), pg.end(), std::back_inserter(only_lake));
  std::set_difference(pg.begin(), pg.end(), lake.begin(), lake.end(), std::back_inserter(only_pg));
  auto first = [](const std::vector<std::string>& rows) {
    return Join(std::vector<std::string>(rows.begin(), rows.begin() + std::min<size_t>(3, rows.size())), "; ");
  };
  std::cerr << "lake " << lake.size() << " rows, PostgreSQL " << pg.size() << "; only in the lake: " << first(only_lake)
            << "; only in PostgreSQL: " << first(only_pg) << std::endl;
  return false;
}

// Runs a PostgresSync on its own thread until Stop().
class SyncThread {
 public:
  explicit SyncThread(PostgresSyncOptions options) : sync_(std::move(options)) {
    thread_ = std::thread([this] {
      result_ = sync_.Run();
      done_ = true;
    });
  }
  ~SyncThread() {
    if (thread_.joinable()) Stop().IgnoreError();
  }
  Status Stop() {
    if (thread_.joinable()) {
      sync_.RequestStop();
      thread_.join();
    }
    return result_;
  }
  bool done() const { return done_.load(); }
  // Waits until the sync ends by itself (an error), up to `seconds`.
  bool WaitDone(int seconds) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
  }
  const PostgresSync& sync() const { return sync_; }

 private:
  PostgresSync sync_;
  Status result_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Why a sync that should still run is not in step: its error when it stopped, else that it runs.
inline std::string StopReason(SyncThread& sync) {
  return sync.done() ? "the sync stopped: " + sync.Stop().ToString() : "the sync runs, but the lake differs";
}

// Starts the tide binary with `args`, its stderr appended to `stderr_path` (/dev/null: discarded);
// returns its pid.
inline pid_t SpawnTide(std::vector<std::string> args, const std::string& stderr_path = "/dev/null") {
  args.insert(args.begin(), testing::BuildDir() + "/tide");
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(err, 2);
    ::execv(ptrs[0], ptrs.data());
    _exit(127);
  }
  return pid;
}

// SIGKILL, then reap.
inline void KillNow(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

// `s` quoted for sh: in single quotes, each single quote closed, escaped and reopened.
inline std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs the tide binary with `args` to completion; returns its exit code and what it printed on stderr.
inline std::pair<int, std::string> RunTide(const std::vector<std::string>& args, const std::string& scratch_dir) {
  const std::string err_path = scratch_dir + "/tide.stderr";
  FileSystem::Local()->DeleteFile(err_path).IgnoreError();
  pid_t pid = SpawnTide(args, err_path);
  int status = 0;
  ::waitpid(pid, &status, 0);
  auto text = FileSystem::Local()->ReadFile(err_path);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.ok() ? *text : std::string()};
}

}  // namespace tide::sync_testing
