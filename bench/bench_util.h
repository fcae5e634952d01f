// Small helpers shared by the benchmarks: wall-clock timing, running a reference command, and the
// test server with benchmark settings. Thread-safety: single-threaded use.
#pragma once

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "testing/pg_server.h"

namespace tide::bench {

inline double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Runs a shell command, returns its wall time in seconds (negative when it failed).
inline double TimeCommand(const std::string& command) {
  auto start = std::chrono::steady_clock::now();
  int rc = std::system(command.c_str());
  double s = Seconds(start);
  if (rc != 0) {
    std::fprintf(stderr, "reference command failed (%d): %s\n", rc, command.c_str());
    return -1;
  }
  return s;
}

// A server as the tests use it, but with PostgreSQL's default logical_decoding_work_mem (64MB).
inline std::unique_ptr<testing::PgServer> StartServer() {
  testing::PgServer::Options options;
  options.config.push_back("logical_decoding_work_mem = '64MB'");
  options.config.push_back("max_wal_size = '4GB'");
  auto server = testing::PgServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "cannot start PostgreSQL: %s\n", server.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(server).value();
}

inline void MustExec(testing::PgServer& server, const std::string& sql) {
  Status st = server.Exec(sql);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    std::exit(1);
  }
}

// The benchmark table of docs/shared PG_CDC.md §5.3: t(id bigint pk, a bigint, b int, c float8,
// d text(32 hex), e text(32), ts timestamptz).
inline const char* kBenchTableDdl =
    "CREATE TABLE t(id bigint PRIMARY KEY, a bigint, b int, c float8, d text, e text, ts timestamptz)";
inline std::string BenchRowsSelect(const std::string& from_expr) {
  return "SELECT g, g * 7, (g % 100000)::int, g / 3.0, md5(g::text), md5((g + 1)::text), "
         "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' FROM " + from_expr + " g";
}

}  // namespace tide::bench
