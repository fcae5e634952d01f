// Change-stream latency benchmark: how long after PostgreSQL commits a row `tide read --follow` prints it.
//
// It starts its own PostgreSQL, creates `events(id bigint primary key, v text)` with 1,000 rows, runs
// the real `tide sync postgres` binary at its default commit interval (or --commit-interval) into a fresh
// warehouse, and, once the table exists, the real `tide read --follow --from latest --format json` with
// its stdout on a pipe. A writer inserts one row per transaction at --rate rows/s for --seconds and notes
// when PostgreSQL returned from each COMMIT; a reader thread notes when each row's line arrives on the
// pipe. Latency = line arrival - COMMIT return, per row.
//
// Reference from the same run: the lake's own freshness, i.e. when the snapshot that holds the row
// appeared (a thread lists the table's snapshots every 2 ms in-process; the row's snapshot is the one
// its printed line names). `tide read` adds to it its poll interval, the read of the snapshot's files and
// the printing. Also printed: the load average at start and end (the machine may be shared), and the CPU
// seconds the reader used.
//
//   build/bench/read_follow_bench [--seconds=30] [--rate=20] [--commit-interval=DURATION (sync default)]
//       [--poll-interval=20ms] [--table-conf=K=V ...] [--tide=PATH (default: ../tide next to this binary)]
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_util.h"
#include "testing/temp_dir.h"
#include "tide/io/file_system.h"
#include "tide/table/snapshot/snapshot_manager.h"

using namespace tide;

namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  int seconds = 30;
  double rate = 20;
  std::string commit_interval;  // empty: the sync's default
  std::string poll_interval = "20ms";
  std::vector<std::string> table_conf;
  std::string tide;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> std::optional<std::string> {
      std::string prefix = std::string(name) + "=";
      if (a.rfind(prefix, 0) == 0) return a.substr(prefix.size());
      return std::nullopt;
    };
    if (auto v = value("--seconds")) {
      f.seconds = std::stoi(*v);
    } else if (auto v = value("--rate")) {
      f.rate = std::stod(*v);
    } else if (auto v = value("--commit-interval")) {
      f.commit_interval = *v;
    } else if (auto v = value("--poll-interval")) {
      f.poll_interval = *v;
    } else if (auto v = value("--table-conf")) {
      f.table_conf.push_back(*v);
    } else if (auto v = value("--tide")) {
      f.tide = *v;
    } else {
      std::fprintf(stderr, "read_follow_bench: unknown argument %s\n", a.c_str());
      std::exit(2);
    }
  }
  if (f.tide.empty()) {
    f.tide = (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "tide").string();
  }
  return f;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

// utime + stime of `pid` in seconds.
double CpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::vector<std::string> fields;
  std::string field;
  for (char c : text.substr(close + 2)) {
    if (c == ' ') {
      fields.push_back(field);
      field.clear();
    } else {
      field.push_back(c);
    }
  }
  if (fields.size() < 13) return 0;
  return (std::stod(fields[11]) + std::stod(fields[12])) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Starts `args` with stdout to `out_fd` (-1: /dev/null) and stderr appended to `err_path`.
pid_t Spawn(std::vector<std::string> args, int out_fd, const std::string& err_path) {
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = out_fd >= 0 ? out_fd : ::open("/dev/null", O_WRONLY);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(ptrs[0], ptrs.data());
    _exit(127);
  }
  return pid;
}

int Stop(pid_t pid) {
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

}  // namespace

int main(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  const std::string load_start = LoadAverage();
  std::printf("read_follow_bench: %d s at %.0f rows/s, one row per transaction; commit interval %s; poll %s; tide %s\n",
              flags.seconds, flags.rate, flags.commit_interval.empty() ? "(sync default)" : flags.commit_interval.c_str(),
              flags.poll_interval.c_str(), flags.tide.c_str());
  std::printf("load average at start: %s (%u cores)\n", load_start.c_str(), std::thread::hardware_concurrency());

  auto server = bench::StartServer();
  bench::MustExec(*server, "CREATE TABLE events (id bigint PRIMARY KEY, v text)");
  bench::MustExec(*server, "INSERT INTO events SELECT g, 'copy' FROM generate_series(1, 1000) g");
  testing::TempDir dir;
  const std::string warehouse = dir.path() + "/warehouse";
  const std::string log = dir.path() + "/tide.log";
  const std::string table_path = warehouse + "/bench.db/events";

  std::vector<std::string> sync_args = {flags.tide, "sync", "postgres", "--warehouse", warehouse, "--database", "bench",
                                        "--postgres", server->conninfo(), "--tables", "public.events", "--slot",
                                        "bench_slot", "--publication", "bench_pub"};
  if (!flags.commit_interval.empty()) {
    sync_args.push_back("--commit-interval");
    sync_args.push_back(flags.commit_interval);
  }
  for (const auto& kv : flags.table_conf) {
    sync_args.push_back("--table-conf");
    sync_args.push_back(kv);
  }
  pid_t sync = Spawn(sync_args, -1, log);
  SnapshotManager snapshots(FileSystem::Local(), table_path);
  auto ready_deadline = Clock::now() + std::chrono::seconds(120);
  while (true) {
    auto latest = snapshots.LatestId();
    if (latest.ok() && latest->has_value()) break;
    if (Clock::now() > ready_deadline) {
      std::fprintf(stderr, "read_follow_bench: the sync made no snapshot in 120 s (log: %s)\n", log.c_str());
      Stop(sync);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return 1;
  pid_t reader = Spawn({flags.tide, "read", "--warehouse", warehouse, "--table", "bench.events", "--follow", "--from",
                        "latest", "--format", "json", "--poll-interval", flags.poll_interval},
                       pipe_fds[1], log);
  ::close(pipe_fds[1]);

  // When each id's line arrived, and from which snapshot.
  std::mutex mu;
  std::map<int64_t, std::pair<Clock::time_point, int64_t>> printed;
  std::thread lines([&] {
    std::string buffer;
    char chunk[65536];
    while (true) {
      ssize_t n = ::read(pipe_fds[0], chunk, sizeof(chunk));
      if (n <= 0) break;
      auto now = Clock::now();
      buffer.append(chunk, static_cast<size_t>(n));
      size_t start = 0, end;
      while ((end = buffer.find('\n', start)) != std::string::npos) {
        auto j = nlohmann::json::parse(buffer.substr(start, end - start), nullptr, false);
        start = end + 1;
        if (j.is_discarded() || !j.contains("row")) continue;
        std::lock_guard<std::mutex> lock(mu);
        printed.emplace(j["row"]["id"].get<int64_t>(), std::make_pair(now, j["snapshot_id"].get<int64_t>()));
      }
      buffer.erase(0, start);
    }
  });
  // When each snapshot appeared (the reference).
  std::atomic<bool> watching{true};
  std::map<int64_t, Clock::time_point> appeared;
  std::thread watcher([&] {
    int64_t seen = 0;
    while (watching.load()) {
      auto latest = snapshots.LatestId();
      auto now = Clock::now();
      if (latest.ok() && latest->has_value() && **latest > seen) {
        std::lock_guard<std::mutex> lock(mu);
        for (int64_t id = seen + 1; id <= **latest; ++id) appeared.emplace(id, now);
        seen = **latest;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });

  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the reader is up and following
  const double reader_cpu_start = CpuSeconds(reader);
  PGconn* conn = server->ConnectSuperuser();
  std::map<int64_t, Clock::time_point> committed;
  const auto begin = Clock::now();
  const auto period = std::chrono::duration<double>(1.0 / flags.rate);
  int64_t rows = static_cast<int64_t>(flags.seconds * flags.rate);
  for (int64_t i = 0; i < rows; ++i) {
    std::this_thread::sleep_until(begin + std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(i)));
    int64_t id = 1000000 + i;
    std::string sql = "INSERT INTO events VALUES (" + std::to_string(id) + ", 'live')";
    PGresult* res = PQexec(conn, sql.c_str());
    auto now = Clock::now();
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
      std::fprintf(stderr, "insert failed: %s\n", PQerrorMessage(conn));
      PQclear(res);
      return 1;
    }
    PQclear(res);
    committed.emplace(id, now);
  }
  PQfinish(conn);
  const double write_seconds = bench::Seconds(begin);
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (printed.size() >= committed.size()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double reader_cpu = CpuSeconds(reader) - reader_cpu_start;
  watching = false;
  watcher.join();
  int reader_exit = Stop(reader);
  lines.join();
  int sync_exit = Stop(sync);

  std::vector<double> to_printed, to_snapshot, read_added;
  int64_t missing = 0;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& [id, at] : committed) {
      auto p = printed.find(id);
      if (p == printed.end()) {
        ++missing;
        continue;
      }
      to_printed.push_back(Ms(at, p->second.first));
      auto s = appeared.find(p->second.second);
      if (s != appeared.end()) {
        to_snapshot.push_back(Ms(at, s->second));
        read_added.push_back(Ms(s->second, p->second.first));
      }
    }
  }
  std::printf("writer: %zu rows in %.1f s; reader exit %d, sync exit %d; %lld rows never printed\n", committed.size(),
              write_seconds, reader_exit, sync_exit, static_cast<long long>(missing));
  std::printf("PostgreSQL COMMIT -> line printed by `tide read --follow`: p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms "
              "(%zu rows)\n",
              Percentile(to_printed, 0.5), Percentile(to_printed, 0.9), Percentile(to_printed, 0.99),
              Percentile(to_printed, 1.0), to_printed.size());
  std::printf("reference, COMMIT -> its snapshot in the lake (2 ms polling): p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms\n",
              Percentile(to_snapshot, 0.5), Percentile(to_snapshot, 0.9), Percentile(to_snapshot, 0.99),
              Percentile(to_snapshot, 1.0));
  std::printf("added by the reader (snapshot -> line): p50 %.0f ms, p99 %.0f ms, max %.0f ms; reader CPU %.2f s over %.1f s\n",
              Percentile(read_added, 0.5), Percentile(read_added, 0.99), Percentile(read_added, 1.0), reader_cpu,
              write_seconds);
  double p99 = Percentile(to_printed, 0.99);
  std::printf("goal p99 <= 1000 ms: %s (p99 %.0f ms; ratio to the lake's own p99: %.2fx)\n", p99 <= 1000 ? "met" : "NOT met",
              p99, Percentile(to_snapshot, 0.99) > 0 ? p99 / Percentile(to_snapshot, 0.99) : 0.0);
  std::printf("load average at end: %s\n", LoadAverage().c_str());
  return missing == 0 && reader_exit == 0 ? 0 : 1;
}
