// Sync benchmark: the field report's scenario (field-report.txt §3.4-3.7) as one command. It starts its
// own PostgreSQL, loads the report's `orders` table, runs the real `tide sync postgres` binary as a
// child process into a fresh warehouse, and measures, each beside a reference from the same run:
//
//   1. Time until the lake equals PostgreSQL: the sync starts while a writer keeps inserting and
//      updating orders; the writer stops when the initial copy is committed; the clock stops when the
//      lake shows the last transaction, and the lake is then checked equal to PostgreSQL (count and an
//      order-independent checksum, computed by PostgreSQL and by `tide sql`). Reference: the field
//      report's 4 min 38 s (its hardware, Flink CDC + Paimon).
//   2. Copy rate: rows committed into the lake per second, from the slot's creation to the copy's
//      commit (the sync's progress lines), against `COPY orders TO STDOUT (FORMAT binary)` by psql into
//      /dev/null, timed in the same run under the same concurrent writer (best of its rounds).
//   3. Streaming throughput: the sync is caught up and paused (SIGSTOP); a burst of changes is written
//      in transactions of 5-100 rows; the sync resumes and the clock runs until the lake shows the
//      burst's last transaction. Reference: `pg_recvlogical` reading the same WAL, from slots created at
//      the same position, with the same pgoutput options, into /dev/null; run before and after Tide.
//   4. Freshness: a writer offers 10,000 rows/s in 10-row transactions; a probe updates a marker row of
//      `orders` (order_id 0) every 200-300 ms and notes when PostgreSQL returned from its COMMIT; a
//      poller watches the lake table's latest snapshot every 2 ms through Tide's reader in-process and
//      reads the marker from each new snapshot (a primary-key lookup) until it sees the probe's value.
//   5. Peak RSS of the sync: VmRSS sampled every 100 ms per phase, VmHWM and the kernel's ru_maxrss.
//
// Beside the figures it prints the CPU seconds the sync, PostgreSQL and the bench itself used per phase
// (from /proc), and the load average at start and end.
//
//   build/bench/sync_bench [--rows=2000000] [--burst=1000000] [--fresh-seconds=25] [--fresh-rate=10000]
//       [--copy-write-rate=2000] [--copy-reference-rounds=3] [--copy-workers=N] [--commit-interval=500ms]
//       [--layout=by-day|bucketed] [--table-conf=K=V ...]
//   --layout by-day (default) is the field report's orders_paimon: primary key order_id, PARTITIONED BY dt
//   computed from update_time (`--computed-column dt=date_format(update_time, yyyy-MM-dd) --partition-keys
//   dt`), so updates move rows to today's partition (cross-partition update mode, bucket -1), with
//   changelog-producer=input; `bucketed` is the report's bucket=4 without the partition. --table-conf
//   replaces the layout's options.
//       [--tide=PATH (default: ../tide next to this binary)] [--sync-log=PATH]
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "testing/temp_dir.h"
#include "tide/io/file_system.h"
#include "tide/postgres/pg_connection.h"
#include "tide/catalog/catalog.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table.h"

extern char** environ;

using namespace tide;

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

void Die(const std::string& what, const Status& st = Status::OK()) {
  std::fprintf(stderr, "sync_bench: %s%s%s\n", what.c_str(), st.ok() ? "" : ": ", st.ok() ? "" : st.ToString().c_str());
  std::exit(1);
}

template <typename T>
T Must(Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what, r.status());
  return std::move(r).value();
}

struct Flags {
  int64_t rows = 2000000;
  int64_t burst = 1000000;
  int fresh_seconds = 25;
  double fresh_rate = 10000;
  double copy_write_rate = 2000;
  int copy_reference_rounds = 3;
  int copy_workers = 0;  // 0: the sync's default
  std::string commit_interval;  // empty: the sync's default
  std::vector<std::string> table_conf;
  std::string layout = "by-day";
  std::string tide;
  std::string sync_log;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  bool conf_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (name == "--rows") {
      f.rows = std::atoll(value.c_str());
    } else if (name == "--burst") {
      f.burst = std::atoll(value.c_str());
    } else if (name == "--fresh-seconds") {
      f.fresh_seconds = std::atoi(value.c_str());
    } else if (name == "--fresh-rate") {
      f.fresh_rate = std::atof(value.c_str());
    } else if (name == "--copy-write-rate") {
      f.copy_write_rate = std::atof(value.c_str());
    } else if (name == "--copy-reference-rounds") {
      f.copy_reference_rounds = std::max(1, std::atoi(value.c_str()));
    } else if (name == "--copy-workers") {
      f.copy_workers = std::atoi(value.c_str());
    } else if (name == "--commit-interval") {
      f.commit_interval = value;
    } else if (name == "--table-conf") {
      f.table_conf.push_back(value);
      conf_given = true;
    } else if (name == "--layout" && (value == "by-day" || value == "bucketed")) {
      f.layout = value;
    } else if (name == "--tide") {
      f.tide = value;
    } else if (name == "--sync-log") {
      f.sync_log = value;
    } else {
      std::fprintf(stderr,
                   "usage: sync_bench [--rows=N] [--burst=N] [--fresh-seconds=S] [--fresh-rate=ROWS_PER_S] "
                   "[--copy-write-rate=ROWS_PER_S] [--copy-reference-rounds=N] [--copy-workers=N] [--commit-interval=D] "
                   "[--layout=by-day|bucketed] [--table-conf=KEY=VALUE ...] [--tide=PATH] [--sync-log=PATH]\n");
      std::exit(2);
    }
  }
  // The field report's Paimon table (§3.4): changelog-producer input; bucket 4 without the partition
  // (with dt partitioning and the key order_id alone, the bucket must be -1: cross-partition updates).
  if (!conf_given) {
    f.table_conf = {"changelog-producer=input"};
    if (f.layout == "bucketed") f.table_conf.insert(f.table_conf.begin(), "bucket=4");
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

// ---- /proc readings -------------------------------------------------------------------------------

// The text of a /proc file, "" when it cannot be read. Plain read(2): a process or thread that ends
// between listing and reading makes read fail with ESRCH, which std::ifstream turns into an exception.
std::string ReadProcText(const std::string& path) {
  std::string text;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

// Fields of /proc/<pid>/stat after the command name: index 0 is field 3 (state).
std::vector<std::string> StatFields(pid_t pid) {
  std::string text = ReadProcText("/proc/" + std::to_string(pid) + "/stat");
  size_t close = text.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(text.substr(close + 1));
  std::vector<std::string> fields;
  std::string f;
  while (rest >> f) fields.push_back(f);
  return fields;
}

double Ticks(const std::string& s) { return std::atof(s.c_str()) / static_cast<double>(sysconf(_SC_CLK_TCK)); }

// utime + stime of a process (and of its waited-for children when `with_children`).
double ProcCpuSeconds(pid_t pid, bool with_children) {
  std::vector<std::string> f = StatFields(pid);
  if (f.size() < 15) return 0;
  double s = Ticks(f[11]) + Ticks(f[12]);  // fields 14, 15
  if (with_children) s += Ticks(f[13]) + Ticks(f[14]);
  return s;
}

// CPU of the whole PostgreSQL server: the postmaster with its reaped children (backends that ended, e.g.
// the copy sessions and psql's) plus every live child (walsenders, backends, background workers).
double PostgresCpuSeconds(pid_t postmaster) {
  double s = ProcCpuSeconds(postmaster, true);
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    pid_t pid = std::atoi(name.c_str());
    std::vector<std::string> f = StatFields(pid);
    if (f.size() < 15 || std::atoi(f[1].c_str()) != postmaster) continue;  // field 4: ppid
    s += Ticks(f[11]) + Ticks(f[12]);
  }
  return s;
}

double SelfCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// A line of /proc/<pid>/status such as "VmRSS:" in kB; -1 when unreadable.
int64_t ProcStatusKb(pid_t pid, const std::string& key) {
  std::istringstream in(ReadProcText("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::atoll(line.c_str() + key.size());
  }
  return -1;
}

// ---- child processes -------------------------------------------------------------------------------

// posix_spawn of argv with stdout to `out_fd` (or /dev/null) and stderr to `err_fd` (or inherited).
Result<pid_t> Spawn(const std::vector<std::string>& args, int out_fd, int err_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (out_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  }
  if (err_fd >= 0) posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Status::IOError("cannot start {}: {}", args[0], std::strerror(rc));
  return pid;
}

// Runs argv to completion; returns its standard output (IOError when it fails).
Result<std::string> RunCapture(const std::vector<std::string>& args) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::IOError("pipe: {}", std::strerror(errno));
  auto pid = Spawn(args, fds[1], -1);
  ::close(fds[1]);
  if (!pid.ok()) {
    ::close(fds[0]);
    return pid.status();
  }
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  waitpid(*pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return Status::IOError("{} failed (status {})", args[0], status);
  return out;
}

// `tide sync postgres` as a child process. Its stderr (the progress lines) is read on a thread, each
// line stamped with the time it arrived and copied to a log file with its offset from the start.
class SyncProcess {
 public:
  static std::unique_ptr<SyncProcess> Start(const std::vector<std::string>& args, const std::string& log_path) {
    std::unique_ptr<SyncProcess> p(new SyncProcess());
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) Die("pipe");
    p->log_.open(log_path);
    p->started_ = Clock::now();
    p->pid_ = Must(Spawn(args, -1, fds[1]), "starting tide sync postgres");
    ::close(fds[1]);
    p->err_fd_ = fds[0];
    p->reader_ = std::thread([raw = p.get()] { raw->ReadLines(); });
    return p;
  }

  ~SyncProcess() {
    if (!exited_) {
      ::kill(pid_, SIGKILL);
      Reap();
    }
    if (reader_.joinable()) reader_.join();
    ::close(err_fd_);
  }

  pid_t pid() const { return pid_; }
  Clock::time_point started() const { return started_; }

  // The arrival time (and text) of the first stderr line containing `needle`; dies when the process
  // ends without printing it or `timeout` passes.
  Clock::time_point WaitForLine(const std::string& needle, std::chrono::seconds timeout, std::string* text = nullptr) {
    std::unique_lock<std::mutex> lock(mu_);
    auto deadline = Clock::now() + timeout;
    while (true) {
      for (const auto& [at, line] : lines_) {
        if (line.find(needle) != std::string::npos) {
          if (text) *text = line;
          return at;
        }
      }
      if (eof_) Die("tide sync postgres ended before printing '" + needle + "' (see " + log_name_ + ")");
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && Clock::now() >= deadline) {
        Die("no '" + needle + "' from tide sync postgres in time");
      }
    }
  }

  std::string LastLineContaining(const std::string& needle) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = lines_.rbegin(); it != lines_.rend(); ++it) {
      if (it->second.find(needle) != std::string::npos) return it->second;
    }
    return "";
  }

  // The lines that arrived in [from, to].
  std::vector<std::string> LinesBetween(Clock::time_point from, Clock::time_point to) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& [at, line] : lines_) {
      if (at >= from && at <= to) out.push_back(line);
    }
    return out;
  }

  void Pause() { ::kill(pid_, SIGSTOP); }
  void Resume() { ::kill(pid_, SIGCONT); }

  // SIGINT (a clean stop: final commit, acknowledgement), then waits; returns the exit code.
  int Stop() {
    ::kill(pid_, SIGINT);
    auto deadline = Clock::now() + std::chrono::seconds(120);
    while (!exited_ && Clock::now() < deadline) {
      ReapNoHang();
      if (!exited_) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!exited_) {
      ::kill(pid_, SIGKILL);
      Reap();
      return -1;
    }
    return exit_code_;
  }
  // Peak resident set of the whole run, from the kernel (wait4's ru_maxrss), in kB.
  int64_t max_rss_kb() const { return max_rss_kb_; }

  void set_log_name(std::string name) { log_name_ = std::move(name); }

 private:
  SyncProcess() = default;

  void ReadLines() {
    std::string pending;
    char buf[4096];
    while (true) {
      ssize_t n = ::read(err_fd_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      auto now = Clock::now();
      pending.append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        std::string line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        log_ << fmt::format("[{:9.3f}] {}\n", Since(started_, now), line) << std::flush;
        std::lock_guard<std::mutex> lock(mu_);
        lines_.emplace_back(now, std::move(line));
        cv_.notify_all();
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    eof_ = true;
    cv_.notify_all();
  }

  void Reap() {
    int status = 0;
    rusage usage{};
    if (wait4(pid_, &status, 0, &usage) == pid_) Finish(status, usage);
  }
  void ReapNoHang() {
    int status = 0;
    rusage usage{};
    if (wait4(pid_, &status, WNOHANG, &usage) == pid_) Finish(status, usage);
  }
  void Finish(int status, const rusage& usage) {
    exited_ = true;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    max_rss_kb_ = usage.ru_maxrss;
  }

  pid_t pid_ = -1;
  int err_fd_ = -1;
  Clock::time_point started_;
  std::thread reader_;
  std::ofstream log_;
  std::string log_name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<Clock::time_point, std::string>> lines_;
  bool eof_ = false;
  bool exited_ = false;
  int exit_code_ = -1;
  int64_t max_rss_kb_ = 0;
};

// ---- the sync's memory, per phase ------------------------------------------------------------------

// Samples the sync's VmRSS every 100 ms and keeps the largest value seen in each phase.
class RssSampler {
 public:
  explicit RssSampler(pid_t pid) : pid_(pid), thread_([this] { Run(); }) {}
  ~RssSampler() {
    stop_.store(true);
    thread_.join();
  }
  void SetPhase(const std::string& phase) {
    std::lock_guard<std::mutex> lock(mu_);
    phase_ = phase;
    if (std::find(order_.begin(), order_.end(), phase) == order_.end()) order_.push_back(phase);
  }
  // "phase: max MB" for every phase, in the order they began.
  std::vector<std::pair<std::string, double>> PeakPerPhaseMb() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<std::string, double>> out;
    for (const auto& p : order_) out.emplace_back(p, peak_kb_[p] / 1024.0);
    return out;
  }
  int64_t samples() {
    std::lock_guard<std::mutex> lock(mu_);
    return samples_;
  }

 private:
  void Run() {
    while (!stop_.load()) {
      int64_t kb = ProcStatusKb(pid_, "VmRSS:");
      if (kb > 0) {
        std::lock_guard<std::mutex> lock(mu_);
        peak_kb_[phase_] = std::max(peak_kb_[phase_], kb);
        ++samples_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  pid_t pid_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::string phase_ = "start";
  std::vector<std::string> order_{"start"};
  std::map<std::string, int64_t> peak_kb_;
  int64_t samples_ = 0;
  std::thread thread_;
};

// The scheduler's account of one thread (/proc/<pid>/task/<tid>/schedstat): seconds on a CPU and
// seconds runnable but waiting for one. The rest of the wall time the thread was blocked (I/O, a lock,
// a condition variable, the network).
struct SchedTimes {
  double on_cpu = 0;
  double waiting = 0;
};
SchedTimes ThreadSchedTimes(pid_t pid, pid_t tid) {
  std::istringstream in(ReadProcText("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/schedstat"));
  double run_ns = 0, wait_ns = 0;
  in >> run_ns >> wait_ns;
  return {run_ns / 1e9, wait_ns / 1e9};
}

// CPU seconds of the sync, of PostgreSQL and of this process between two marks, and how the sync's
// main thread (the pipeline: it applies rows to the table writer and commits) spent its time.
struct CpuMark {
  Clock::time_point at;
  double sync = 0, postgres = 0, bench = 0;
  SchedTimes sync_main;
};
struct CpuMeter {
  pid_t sync_pid = -1;
  pid_t postmaster = -1;
  CpuMark Mark() const {
    return {Clock::now(), sync_pid > 0 ? ProcCpuSeconds(sync_pid, false) : 0, SettledPostgresCpuSeconds(),
            SelfCpuSeconds(), sync_pid > 0 ? ThreadSchedTimes(sync_pid, sync_pid) : SchedTimes{}};
  }
  // A backend that is ending is briefly counted neither among the live children nor in the postmaster's
  // reaped time; the true figure only grows, so the largest of three readings 10 ms apart is kept.
  double SettledPostgresCpuSeconds() const {
    double best = PostgresCpuSeconds(postmaster);
    for (int i = 0; i < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      best = std::max(best, PostgresCpuSeconds(postmaster));
    }
    return best;
  }
};
std::vector<std::string> g_cpu_lines;  // the per-phase CPU table, printed at the end
void RecordCpu(const std::string& phase, const CpuMark& a, const CpuMark& b) {
  double wall = Since(a.at, b.at);
  double on_cpu = b.sync_main.on_cpu - a.sync_main.on_cpu, waiting = b.sync_main.waiting - a.sync_main.waiting;
  g_cpu_lines.push_back(fmt::format("  {:<30} {:6.2f} s wall; CPU-s: sync {:5.2f}, PostgreSQL {:5.2f}, bench {:4.2f}; "
                                    "sync main thread: on CPU {:5.2f} s, waiting for a CPU {:5.2f} s, blocked {:5.2f} s",
                                    phase, wall, b.sync - a.sync, b.postgres - a.postgres, b.bench - a.bench, on_cpu,
                                    waiting, std::max(0.0, wall - on_cpu - waiting)));
}

// ---- PostgreSQL side ------------------------------------------------------------------------------

const char* kOrdersDdl =
    "CREATE TABLE orders (order_id bigint PRIMARY KEY, user_id bigint, amount numeric(10,2), status text, "
    "create_time timestamp(3), update_time timestamp(3))";
const char* kStatusArray = "(ARRAY['created','paid','shipped','delivered','cancelled'])";

// Count and an order-independent checksum of `orders`: the sum over rows of the first 60 bits of the
// md5 of the row's values as text (amount in cents, timestamps in epoch milliseconds). The lake query
// below computes the same text for the same row.
const char* kPgChecksum =
    "SELECT count(*), coalesce(sum(('x' || substr(md5(concat_ws('|', order_id, user_id, (amount * 100)::bigint, status, "
    "(extract(epoch FROM create_time) * 1000)::bigint, (extract(epoch FROM update_time) * 1000)::bigint)), 1, 15))"
    "::bit(60)::bigint), 0) FROM orders";
const char* kLakeChecksum =
    "SELECT count(*), coalesce(sum(('0x' || substr(md5(concat_ws('|', order_id, user_id, CAST(amount * 100 AS BIGINT), "
    "status, epoch_ms(CAST(create_time AS TIMESTAMP)), epoch_ms(CAST(update_time AS TIMESTAMP)))), 1, 15))::BIGINT), 0) "
    "FROM shop.orders";

std::string PgChecksum(testing::PgServer& server) {
  auto rows = Must(server.Query(kPgChecksum), "PostgreSQL checksum");
  return *rows[0][0] + "," + *rows[0][1];
}

// The same through the `tide sql` binary (what a user runs), as "count,checksum".
std::string LakeChecksum(const std::string& tide, const std::string& warehouse) {
  std::string out = Must(RunCapture({tide, "sql", "--warehouse", warehouse, "--format", "csv", kLakeChecksum}),
                         "tide sql checksum");
  std::istringstream in(out);
  std::string header, values;
  std::getline(in, header);
  std::getline(in, values);
  return values;
}

// Writers that offer `rate` rows/s to `orders`, each transaction one statement of 10 rows: 5 new orders
// and 5 updated ones (amount, status, update_time). Each thread keeps its own schedule (a transaction
// every 10 * threads / rate seconds); one that falls behind runs at once, so the achieved rate shows
// whether the offer was met. Threads update disjoint keys (key % threads), so they never wait on each
// other's row locks.
class OfferedWriter {
 public:
  OfferedWriter(const std::string& conninfo, double rate, int64_t existing_keys, int64_t new_key_base)
      : threads_(std::max(1, static_cast<int>(std::ceil(rate / 2500.0)))) {
    start_ = Clock::now();
    for (int t = 0; t < threads_; ++t) {
      workers_.emplace_back([=, this] { Run(conninfo, rate, existing_keys, new_key_base, t); });
    }
  }
  ~OfferedWriter() { Stop(); }

  void Stop() {
    if (stopped_) return;
    stop_.store(true);
    for (auto& w : workers_) w.join();
    seconds_ = Since(start_, Clock::now());
    stopped_ = true;
    if (!error_.empty()) Die("writer: " + error_);
  }
  int64_t rows() const { return rows_.load(); }
  int64_t transactions() const { return transactions_.load(); }
  double seconds() const { return seconds_; }
  int threads() const { return threads_; }

 private:
  static constexpr int kRowsPerTransaction = 10;

  void Run(const std::string& conninfo, double rate, int64_t existing_keys, int64_t new_key_base, int t) {
    auto conn = PgConnection::Connect(conninfo);
    if (!conn.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = conn.status().ToString();
      return;
    }
    std::mt19937_64 rng(static_cast<uint64_t>(new_key_base) + static_cast<uint64_t>(t));
    auto interval = std::chrono::duration<double>(kRowsPerTransaction * threads_ / rate);
    auto due = Clock::now();
    int64_t next_key = new_key_base + static_cast<int64_t>(t) * 100000000;
    int64_t per_thread = existing_keys / threads_;
    for (int64_t i = 0; !stop_.load(); ++i) {
      due += std::chrono::duration_cast<Clock::duration>(interval);
      if (Clock::now() < due) std::this_thread::sleep_until(due);
      std::string keys;
      for (int k = 0; k < kRowsPerTransaction / 2; ++k) {
        int64_t key = t + 1 + threads_ * static_cast<int64_t>(rng() % static_cast<uint64_t>(per_thread));
        keys += (k ? "," : "") + std::to_string(key);
      }
      std::string sql = fmt::format(
          "WITH u AS (UPDATE orders SET amount = amount + 1, status = {}[{}], update_time = localtimestamp(3) "
          "WHERE order_id IN ({}) RETURNING 1) INSERT INTO orders SELECT g, 1 + g % 100003, (g % 1000000) / 100.0, "
          "'created', localtimestamp(3), localtimestamp(3) FROM generate_series({}, {}) g",
          kStatusArray, 1 + i % 5, keys, next_key, next_key + kRowsPerTransaction / 2 - 1);
      next_key += kRowsPerTransaction / 2;
      Status st = (*conn)->Execute(sql);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        error_ = st.ToString();
        return;
      }
      rows_ += kRowsPerTransaction;
      ++transactions_;
    }
  }

  int threads_;
  Clock::time_point start_;
  double seconds_ = 0;
  bool stopped_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> rows_{0}, transactions_{0};
  std::mutex mu_;
  std::string error_;
  std::vector<std::thread> workers_;
};

// ---- the lake side ---------------------------------------------------------------------------------

// Watches the marker row of the lake's `orders` (order_id 0, whose user_id the probe sets) through
// Tide's reader in-process: the table's latest snapshot id is polled (a look at its snapshot folder),
// and each new snapshot is read with a primary-key lookup (Table::NewReader with primary_key_equals,
// pinned to that snapshot). A snapshot is visible to any query that starts after it appears, so the
// time a new snapshot is first seen is when its rows became visible; the lookup only confirms which
// rows those are. (`tide sql` cannot push `WHERE order_id = 0` down, so a query through it scans the
// whole table; the bench prints what one such command takes.)
class LakeMarker {
 public:
  explicit LakeMarker(const std::string& warehouse) {
    auto catalog = Must(Catalog::Open(FileSystem::Local(), warehouse), "opening the lake");
    TableIdentifier id{"shop", "orders"};
    table_ = Must(catalog->GetTable(id), "opening shop.orders");
    snapshots_ = std::make_unique<SnapshotManager>(FileSystem::Local(), catalog->TablePath(id));
  }

  // The marker in the latest snapshot; `seen_at` receives when that snapshot was first seen.
  int64_t Read(Clock::time_point* seen_at = nullptr) {
    auto now = Clock::now();
    auto latest = Must(snapshots_->LatestId(), "latest snapshot");
    if (latest && *latest != snapshot_id_) {
      snapshot_id_ = *latest;
      snapshot_seen_at_ = now;
      ReadOptions options;
      options.snapshot.snapshot_id = *latest;
      options.primary_key_equals = Row{Datum(int64_t{0})};
      auto start = Clock::now();
      auto reader = Must(table_->NewReader(options), "marker lookup");
      std::vector<Row> rows;
      while (Must(reader->NextBatch(16, &rows), "marker lookup") && rows.empty()) {
      }
      if (rows.size() != 1) Die("the lake's orders has no marker row (order_id 0)");
      marker_ = rows[0][1].as_int();
      lookup_seconds_.push_back(Since(start, Clock::now()));
    }
    if (seen_at) *seen_at = snapshot_seen_at_;
    return marker_;
  }
  // Polls every 2 ms until the lake's marker reaches `seq`; returns when the snapshot holding it
  // appeared.
  Clock::time_point WaitFor(int64_t seq, std::chrono::seconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      Clock::time_point seen;
      if (Read(&seen) >= seq) return seen;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    Die(fmt::format("the lake did not show marker {} within {} s", seq, timeout.count()));
    return {};
  }
  double MedianLookupMs() {
    if (lookup_seconds_.empty()) return 0;
    std::vector<double> v = lookup_seconds_;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2] * 1000;
  }

 private:
  std::unique_ptr<Table> table_;
  std::unique_ptr<SnapshotManager> snapshots_;
  int64_t snapshot_id_ = -1;
  Clock::time_point snapshot_seen_at_;
  int64_t marker_ = -1;
  std::vector<double> lookup_seconds_;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// The sync's own account of its commits of `table` among `lines` (its debug lines, `tide -v`: "table T:
// committed up to LSN (N snapshot(s)): prepare X ms (F flushes X1 ms, waits for compaction X2 ms), commit Y
// ms, partition expiry Z ms"): how many, and the median and largest duration of each step.
std::string CommitSteps(const std::vector<std::string>& lines, const std::string& table) {
  std::vector<double> prepare, flush, wait, commit, expiry;
  std::string needle = "table " + table + ": committed up to";
  for (const std::string& line : lines) {
    if (line.find(needle) == std::string::npos) continue;
    auto value = [&](const std::string& key) {
      size_t at = line.find(key);
      return at == std::string::npos ? 0.0 : std::atof(line.c_str() + at + key.size());
    };
    prepare.push_back(value("prepare "));
    flush.push_back(value(" flushes "));
    wait.push_back(value("waits for compaction "));
    commit.push_back(value("commit "));
    expiry.push_back(value("partition expiry "));
  }
  if (prepare.empty()) return "no commit lines";
  auto max = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  return fmt::format("{} commits of {}; median (max) ms: prepare {:.0f} ({:.0f}) of which flushes {:.0f} ({:.0f}) and "
                     "waits for compaction {:.0f} ({:.0f}), commit {:.0f} ({:.0f}), partition expiry {:.0f} ({:.0f})",
                     prepare.size(), table, Percentile(prepare, 0.5), max(prepare), Percentile(flush, 0.5), max(flush),
                     Percentile(wait, 0.5), max(wait), Percentile(commit, 0.5), max(commit),
                     Percentile(expiry, 0.5), max(expiry));
}

std::string Mb(int64_t kb) { return fmt::format("{:.0f} MB", kb / 1024.0); }

}  // namespace

int main(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  if (access(flags.tide.c_str(), X_OK) != 0) Die("no tide binary at " + flags.tide + " (give --tide=PATH)");
  std::vector<std::string> summary;  // the figures, printed together at the end
  std::string load_start = LoadAverage();
  std::printf("sync_bench: %lld rows, burst %lld, freshness %d s at %.0f rows/s, copy writer %.0f rows/s; tide %s\n",
              (long long)flags.rows, (long long)flags.burst, flags.fresh_seconds, flags.fresh_rate,
              flags.copy_write_rate, flags.tide.c_str());
  std::printf("load average at start: %s\n", load_start.c_str());
  auto bench_start = Clock::now();

  // wal_sender_timeout 0: the streaming phase pauses the sync (SIGSTOP) while the burst is written.
  testing::PgServer::Options server_options;
  // synchronous_commit on (PostgreSQL's default; the test harness turns it off): with it off, a commit's
  // WAL reaches the walsender only when the WAL writer flushes it (wal_writer_delay, 200 ms), which
  // would add up to that much to every freshness figure without being the sync's doing.
  server_options.config = {"logical_decoding_work_mem = '64MB'", "max_wal_size = '4GB'", "wal_sender_timeout = 0",
                           "synchronous_commit = on"};
  auto server = Must(testing::PgServer::Start(server_options), "starting PostgreSQL");
  pid_t postmaster = 0;
  {
    std::ifstream pidfile(server->folder() + "/data/postmaster.pid");
    pidfile >> postmaster;
  }
  std::string conninfo = server->conninfo();
  std::string pg_bin = "/usr/lib/postgresql/15/bin";

  bench::MustExec(*server, kOrdersDdl);
  auto load_start_time = Clock::now();
  bench::MustExec(*server, fmt::format(
      "INSERT INTO orders SELECT g, 1 + (g * 7) % 100003, ((g * 7919) % 1000000) / 100.0, {}[1 + g % 5], "
      "timestamp '2024-01-01' + g * interval '1 second', timestamp '2024-01-01' + g * interval '1 second' + "
      "(g % 1000) * interval '1 millisecond' FROM generate_series(1::bigint, {}) g", kStatusArray, flags.rows));
  // The marker row the probes update (user_id = probe number); the writers never touch it.
  bench::MustExec(*server, "INSERT INTO orders VALUES (0, 0, 0, 'marker', timestamp '2024-01-01', timestamp '2024-01-01')");
  bench::MustExec(*server, "VACUUM ANALYZE orders");
  // The load goes to disk before anything is measured. Left dirty, PostgreSQL's 300 MB of new pages are
  // written back by the kernel 30 s later (vm.dirty_expire_centisecs), in the middle of the freshness
  // phase, and every fsync on the machine (the sync's commits) waits behind that write: measured, two
  // stalls of 450-560 ms, 5 s apart (the flusher's period), in an otherwise 50 ms commit.
  bench::MustExec(*server, "CHECKPOINT");
  ::sync();
  std::printf("orders: %lld rows, %s, loaded in %.1f s\n", (long long)flags.rows,
              server->QueryValue("SELECT pg_size_pretty(pg_relation_size('orders'))")->c_str(),
              bench::Seconds(load_start_time));

  testing::TempDir work;
  std::string warehouse = work.path() + "/warehouse";
  std::string sync_log = flags.sync_log.empty() ? work.path() + "/sync.log" : flags.sync_log;
  auto probe = Must(PgConnection::Connect(conninfo), "probe connection");
  int64_t marker = 0;
  auto set_marker = [&] {
    ++marker;
    Status st = probe->Execute(
        fmt::format("UPDATE orders SET user_id = {}, update_time = localtimestamp(3) WHERE order_id = 0", marker));
    if (!st.ok()) Die("marker update", st);
    return Clock::now();  // COMMIT has returned
  };
  CpuMeter meter{-1, postmaster};

  // ---- 1 + 2: the initial copy under a concurrent writer, until the lake equals PostgreSQL ----------
  std::printf("\n== copy under a writer offering %.0f rows/s, then until the lake equals PostgreSQL\n",
              flags.copy_write_rate);
  auto copy_writer = std::make_unique<OfferedWriter>(conninfo, flags.copy_write_rate, flags.rows, 1000000000000LL);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  double best_ref = 1e30;
  int64_t ref_rows = std::atoll(server->QueryValue("SELECT count(*) FROM orders")->c_str());
  std::string ref_rounds;
  CpuMark ref_mark = meter.Mark();
  for (int r = 0; r < flags.copy_reference_rounds; ++r) {
    double s = bench::TimeCommand(fmt::format("{}/psql -X -q '{}' -c 'COPY orders TO STDOUT (FORMAT binary)' > /dev/null",
                                              pg_bin, conninfo));
    if (s < 0) return 1;
    best_ref = std::min(best_ref, s);
    ref_rounds += fmt::format("{}{:.2f}", r ? ", " : "", s);
  }
  RecordCpu("reference COPY rounds", ref_mark, meter.Mark());
  std::printf("COPY orders TO STDOUT (FORMAT binary) > /dev/null: rounds %s s (%lld rows)\n", ref_rounds.c_str(),
              (long long)ref_rows);

  // -v: the sync's debug lines say how long each commit's steps took (summarized per phase below).
  std::vector<std::string> sync_args = {flags.tide, "-v", "sync",       "postgres",        "--warehouse", warehouse,
                                        "--database", "shop",       "--postgres",      conninfo,      "--tables",
                                        "public.orders", "--slot", "bench_sync"};
  if (flags.layout == "by-day") {
    for (const char* a : {"--computed-column", "dt=date_format(update_time, yyyy-MM-dd)", "--partition-keys", "dt"}) {
      sync_args.push_back(a);
    }
  }
  for (const std::string& conf : flags.table_conf) {
    sync_args.push_back("--table-conf");
    sync_args.push_back(conf);
  }
  if (!flags.commit_interval.empty()) {
    sync_args.push_back("--commit-interval");
    sync_args.push_back(flags.commit_interval);
  }
  if (flags.copy_workers > 0) {
    sync_args.push_back("--copy-workers");
    sync_args.push_back(std::to_string(flags.copy_workers));
  }
  CpuMark launch_mark = meter.Mark();
  auto sync = SyncProcess::Start(sync_args, sync_log);
  sync->set_log_name(sync_log);
  meter.sync_pid = sync->pid();
  auto launched = sync->started();
  std::string command_line;
  for (const std::string& a : sync_args) command_line += (command_line.empty() ? "" : " ") + a;
  std::printf("%s\ntide sync postgres: pid %d, log %s\n", command_line.c_str(), static_cast<int>(sync->pid()),
              sync_log.c_str());
  std::fflush(stdout);  // for a profiler to attach to
  RssSampler rss(sync->pid());
  rss.SetPhase("initial copy");
  auto slot_created = sync->WaitForLine("created replication slot", std::chrono::seconds(300));
  std::string copied_line;
  auto copied = sync->WaitForLine("copied public.orders into", std::chrono::seconds(1800), &copied_line);
  int64_t copied_rows = 0;
  if (size_t open = copied_line.rfind('('); open != std::string::npos) copied_rows = std::atoll(copied_line.c_str() + open + 1);
  auto streaming = sync->WaitForLine("streaming from slot", std::chrono::seconds(600));
  LakeMarker lake(warehouse);  // the table exists once the copy is committed
  CpuMark copy_mark = meter.Mark();
  RecordCpu("sync start → copy committed", launch_mark, copy_mark);
  rss.SetPhase("catch-up");
  copy_writer->Stop();
  auto writer_stopped = Clock::now();
  std::printf("copy-phase writer: %lld rows in %lld transactions over %.1f s (%.0f rows/s achieved, %d thread(s))\n",
              (long long)copy_writer->rows(), (long long)copy_writer->transactions(), copy_writer->seconds(),
              copy_writer->rows() / copy_writer->seconds(), copy_writer->threads());
  auto marker_committed = set_marker();
  auto marker_seen = lake.WaitFor(marker, std::chrono::seconds(600));
  // PostgreSQL is quiescent now (the writer stopped, the marker's transaction was the last), so its
  // checksum, computed after the wait so as not to take CPU from the catch-up, is that of the moment
  // the marker became visible.
  std::string pg_sum = PgChecksum(*server);
  std::string lake_sum = LakeChecksum(flags.tide, warehouse);
  auto equal_at = marker_seen;
  while (lake_sum != pg_sum) {  // not expected: the marker's transaction is the last one
    std::printf("lake %s != PostgreSQL %s; waiting\n", lake_sum.c_str(), pg_sum.c_str());
    if (Since(marker_seen, Clock::now()) > 300) Die("the lake never equalled PostgreSQL");
    std::this_thread::sleep_for(std::chrono::seconds(1));
    lake_sum = LakeChecksum(flags.tide, warehouse);
    equal_at = Clock::now();
  }
  RecordCpu("copy committed → lake equal", copy_mark, meter.Mark());
  std::printf("sync commits, copy: %s\n", CommitSteps(sync->LinesBetween(launched, copied), "shop.orders").c_str());
  // The catch-up's commits (their debug lines follow the snapshot by the commit's last steps).
  std::printf("sync commits, catch-up: %s\n",
              CommitSteps(sync->LinesBetween(copied + std::chrono::microseconds(1), Clock::now()), "shop.orders").c_str());
  double copy_s = Since(slot_created, copied);
  double tide_copy_rate = copied_rows / copy_s, ref_copy_rate = ref_rows / best_ref;
  std::printf("sync: slot created at %.2f s, orders copied and committed at %.2f s (%lld rows), streaming at %.2f s\n",
              Since(launched, slot_created), Since(launched, copied), (long long)copied_rows,
              Since(launched, streaming));
  std::printf("writer stopped at %.2f s; marker committed at %.2f s, seen in the lake at %.2f s; "
              "lake = PostgreSQL (count,checksum %s)\n",
              Since(launched, writer_stopped), Since(launched, marker_committed), Since(launched, marker_seen),
              pg_sum.c_str());
  double equal_s = Since(launched, equal_at);
  summary.push_back(fmt::format("time until the lake equals PostgreSQL: {:.1f} s from sync start ({} rows + {} "
                                "written during the copy; copy {:.1f} s, catch-up after the writer stopped {:.1f} s); "
                                "reference: field report 278 s (4 min 38 s, its hardware); goal < 15 s: {}",
                                equal_s, flags.rows, copy_writer->rows(), Since(launched, copied),
                                Since(writer_stopped, equal_at), equal_s < 15 ? "met" : "NOT met"));
  summary.push_back(fmt::format("copy into the lake, committed: {:.0f} rows/s ({:.2f} s from slot creation to the "
                                "copy's commit); reference COPY (FORMAT binary) > /dev/null: {:.0f} rows/s (best of "
                                "{}: {} s)",
                                tide_copy_rate, copy_s, ref_copy_rate, flags.copy_reference_rounds, ref_rounds));
  summary.push_back(fmt::format("ratio copy tide/COPY: {:.2f}x (goal >= 0.5x: {})", tide_copy_rate / ref_copy_rate,
                                tide_copy_rate / ref_copy_rate >= 0.5 ? "met" : "NOT met"));

  // ---- 4: freshness at the offered rate ---------------------------------------------------------------
  std::printf("\n== freshness: %.0f rows/s offered for %d s, marker probes every 200-300 ms\n", flags.fresh_rate,
              flags.fresh_seconds);
  rss.SetPhase("freshness");
  CpuMark fresh_mark = meter.Mark();
  auto fresh_wall_start = std::chrono::system_clock::now();
  auto fresh_writer = std::make_unique<OfferedWriter>(conninfo, flags.fresh_rate, flags.rows, 2000000000000LL);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // let the stream reach a steady state
  std::mutex probe_mu;
  std::map<int64_t, Clock::time_point> committed_at;
  std::atomic<bool> probes_done{false};
  std::thread prober([&] {
    std::mt19937 rng(7);
    auto end = Clock::now() + std::chrono::seconds(flags.fresh_seconds);
    while (Clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200 + rng() % 101));
      auto at = set_marker();
      std::lock_guard<std::mutex> lock(probe_mu);
      committed_at[marker] = at;
    }
    probes_done.store(true);
  });
  std::vector<double> latencies_ms;
  while (true) {
    Clock::time_point seen;
    int64_t seq = lake.Read(&seen);
    {
      std::lock_guard<std::mutex> lock(probe_mu);
      for (auto it = committed_at.begin(); it != committed_at.end() && it->first <= seq;) {
        latencies_ms.push_back(Since(it->second, seen) * 1000);
        it = committed_at.erase(it);
      }
      if (probes_done.load() && committed_at.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  prober.join();
  fresh_writer->Stop();
  auto fresh_wall_end = std::chrono::system_clock::now();
  std::printf("freshness writer: %lld rows in %lld transactions over %.1f s (%.0f rows/s achieved, %d threads)\n",
              (long long)fresh_writer->rows(), (long long)fresh_writer->transactions(), fresh_writer->seconds(),
              fresh_writer->rows() / fresh_writer->seconds(), fresh_writer->threads());
  RecordCpu("freshness (writer + probes)", fresh_mark, meter.Mark());
  std::printf("sync commits, freshness: %s\n",
              CommitSteps(sync->LinesBetween(fresh_mark.at, Clock::now()), "shop.orders").c_str());
  double p50 = Percentile(latencies_ms, 0.5), p90 = Percentile(latencies_ms, 0.9), p99 = Percentile(latencies_ms, 0.99);
  double max_ms = latencies_ms.empty() ? 0 : *std::max_element(latencies_ms.begin(), latencies_ms.end());
  std::printf("freshness over %zu probes: p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms (marker lookup median "
              "%.1f ms)\n",
              latencies_ms.size(), p50, p90, p99, max_ms, lake.MedianLookupMs());
  {
    // Commit cadence during the freshness phase, from the table's own snapshots.
    auto ms = [](std::chrono::system_clock::time_point t) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    };
    auto out = RunCapture({flags.tide, "sql", "--warehouse", warehouse, "--format", "csv",
                           fmt::format("SELECT commit_kind, count(*) AS snapshots FROM shop.\"orders$snapshots\" WHERE "
                                       "epoch_ms(commit_time) BETWEEN {} AND {} GROUP BY ALL ORDER BY ALL",
                                       ms(fresh_wall_start), ms(fresh_wall_end))});
    if (out.ok()) {
      std::string text = *out;
      std::replace(text.begin(), text.end(), '\n', ' ');
      std::printf("orders snapshots during the %.1f s of the freshness phase: %s\n",
                  std::chrono::duration<double>(fresh_wall_end - fresh_wall_start).count(), text.c_str());
    }
  }
  // What one `tide sql` command (process start, open, query) adds for a user who polls with it.
  std::vector<double> tide_sql_ms;
  for (int i = 0; i < 5; ++i) {
    auto t0 = Clock::now();
    Must(RunCapture({flags.tide, "sql", "--warehouse", warehouse, "--format", "csv", "SELECT user_id FROM shop.orders WHERE order_id = 0"}),
         "tide sql");
    tide_sql_ms.push_back(Since(t0, Clock::now()) * 1000);
  }
  std::printf("one `tide sql` command reading the marker: median %.0f ms of 5\n", Percentile(tide_sql_ms, 0.5));
  summary.push_back(fmt::format("freshness (PostgreSQL COMMIT returned → its snapshot visible, Tide reader in-process), {} "
                                "probes at {:.0f} rows/s offered ({:.0f} achieved): p50 {:.0f} ms, p99 {:.0f} ms, max "
                                "{:.0f} ms; goal p50 <= 300 ms: {}, p99 <= 1 s: {}",
                                latencies_ms.size(), flags.fresh_rate, fresh_writer->rows() / fresh_writer->seconds(),
                                p50, p99, max_ms, p50 <= 300 ? "met" : "NOT met", p99 <= 1000 ? "met" : "NOT met"));
  summary.push_back(fmt::format("  (a user polling with the `tide sql` command adds its own run time: median {:.0f} ms)",
                                Percentile(tide_sql_ms, 0.5)));
  lake.WaitFor(marker, std::chrono::seconds(300));  // caught up before the burst

  // ---- 3: streaming throughput over a burst, against pg_recvlogical on the same WAL ------------------
  std::printf("\n== streaming: a burst of %lld changes in transactions of 5-100 rows, the sync paused meanwhile\n",
              (long long)flags.burst);
  rss.SetPhase("burst written (sync paused)");
  sync->Pause();
  bench::MustExec(*server, "SELECT pg_create_logical_replication_slot('bench_ref_1', 'pgoutput')");
  bench::MustExec(*server, "SELECT pg_create_logical_replication_slot('bench_ref_2', 'pgoutput')");
  auto burst_start = Clock::now();
  CpuMark burst_mark = meter.Mark();
  bench::MustExec(*server, fmt::format(
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
      "END LOOP; END $$",
      flags.burst, flags.rows, kStatusArray));
  set_marker();
  std::string end_lsn = *server->QueryValue("SELECT pg_current_wal_insert_lsn()");
  int64_t burst_txns = 0;  // as the DO block counts them
  for (int64_t done = 0, i = 0; done < flags.burst; ++i, ++burst_txns) done += std::min<int64_t>(5 + (i * 7919) % 96, flags.burst - done);
  RecordCpu("burst written (sync paused)", burst_mark, meter.Mark());
  std::printf("burst: %lld changes in %lld transactions written in %.1f s; WAL end %s\n", (long long)flags.burst,
              (long long)burst_txns, bench::Seconds(burst_start), end_lsn.c_str());
  auto recvlogical = [&](const std::string& slot) {
    return bench::TimeCommand(fmt::format(
        "{}/pg_recvlogical -d '{}' --slot {} --start --endpos {} -o proto_version=3 -o publication_names=bench_sync "
        "-o binary=true -o streaming=on -f /dev/null --no-loop",
        pg_bin, conninfo, slot, end_lsn));
  };
  CpuMark ref1_mark = meter.Mark();
  double ref1 = recvlogical("bench_ref_1");
  RecordCpu("pg_recvlogical, round 1", ref1_mark, meter.Mark());
  rss.SetPhase("burst streamed");
  CpuMark resume_mark = meter.Mark();
  sync->Resume();
  auto resumed = Clock::now();
  auto burst_seen = lake.WaitFor(marker, std::chrono::seconds(1800));
  RecordCpu("sync streams the burst", resume_mark, meter.Mark());
  std::printf("sync commits, burst: %s\n", CommitSteps(sync->LinesBetween(resumed, burst_seen), "shop.orders").c_str());
  rss.SetPhase("after the burst");
  CpuMark ref2_mark = meter.Mark();
  double ref2 = recvlogical("bench_ref_2");
  RecordCpu("pg_recvlogical, round 2", ref2_mark, meter.Mark());
  if (ref1 < 0 || ref2 < 0) return 1;
  bench::MustExec(*server, "SELECT pg_drop_replication_slot('bench_ref_1')");
  bench::MustExec(*server, "SELECT pg_drop_replication_slot('bench_ref_2')");
  double tide_stream_s = Since(resumed, burst_seen);
  std::printf("pg_recvlogical: %.2f s (before Tide), %.2f s (after); tide sync: %.2f s from resume to the burst's "
              "last transaction visible in the lake\n",
              ref1, ref2, tide_stream_s);
  std::string pg_sum_burst = PgChecksum(*server);
  std::string lake_sum_burst = LakeChecksum(flags.tide, warehouse);
  std::printf("after the burst: PostgreSQL %s, lake %s: %s\n", pg_sum_burst.c_str(), lake_sum_burst.c_str(),
              pg_sum_burst == lake_sum_burst ? "equal" : "DIFFERENT");
  if (pg_sum_burst != lake_sum_burst) Die("the lake differs from PostgreSQL after the burst");
  double best_recv = std::min(ref1, ref2);
  summary.push_back(fmt::format("streaming into the lake, committed: {:.0f} changes/s ({} changes in {} transactions, "
                                "{:.2f} s); reference pg_recvlogical > /dev/null: {:.0f} changes/s (best of {:.2f}, "
                                "{:.2f} s)",
                                flags.burst / tide_stream_s, flags.burst, burst_txns, tide_stream_s,
                                flags.burst / best_recv, ref1, ref2));
  summary.push_back(fmt::format("ratio streaming tide/pg_recvlogical: {:.2f}x (goal >= 0.9x: {})",
                                best_recv / tide_stream_s, best_recv / tide_stream_s >= 0.9 ? "met" : "NOT met"));

  // ---- 5: memory, then a clean stop -------------------------------------------------------------------
  int64_t hwm_kb = ProcStatusKb(sync->pid(), "VmHWM:");
  std::string rss_phases;
  for (const auto& [phase, mb] : rss.PeakPerPhaseMb()) {
    if (phase != "start" && mb > 0) rss_phases += fmt::format("{}{} {:.0f} MB", rss_phases.empty() ? "" : ", ", phase, mb);
  }
  int exit_code = sync->Stop();
  std::printf("\ntide sync postgres stopped (exit %d): %s\n", exit_code, sync->LastLineContaining("rows copied").c_str());
  summary.push_back(fmt::format("sync peak RSS: VmHWM {} (ru_maxrss {}); VmRSS max per phase ({} samples): {}; goal "
                                "<= 512 MB: {}",
                                Mb(hwm_kb), Mb(sync->max_rss_kb()), rss.samples(), rss_phases,
                                std::max(hwm_kb, sync->max_rss_kb()) <= 512 * 1024 ? "met" : "NOT met"));

  std::string load_end = LoadAverage();
  std::printf("\n== CPU per phase (from /proc: the sync process, the PostgreSQL server, this process (writers, probes,\n"
              "   psql, pg_recvlogical not included); the sync's main thread from its schedstat)\n");
  for (const auto& line : g_cpu_lines) std::printf("%s\n", line.c_str());
  std::printf("\n== figures (sync log: %s)\n", sync_log.c_str());
  for (const auto& line : summary) std::printf("%s\n", line.c_str());
  std::printf("load average: %s at start, %s at end; %.0f s in all\n", load_start.c_str(), load_end.c_str(),
              bench::Seconds(bench_start));
  return exit_code == 0 ? 0 : 1;
}
