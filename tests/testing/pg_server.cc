#include "testing/pg_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

namespace tide::testing {
namespace {

namespace fs = std::filesystem;

std::string FindBinDir() {
  if (const char* env = std::getenv("TIDE_PG_BIN"); env && *env) return env;
  if (fs::exists("/usr/lib/postgresql/15/bin/initdb")) return "/usr/lib/postgresql/15/bin";
  // Any other installed major version, newest first.
  std::string best;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    std::string bin = entry.path().string() + "/bin";
    if (fs::exists(bin + "/initdb") && bin > best) best = bin;
  }
  return best;
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    socklen_t len = sizeof(addr);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

std::string Tail(const std::string& path, size_t max_bytes = 3000) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
  return s;
}

// argv as the char* array execv wants; built before fork so the child only calls async-signal-safe
// functions.
struct Argv {
  explicit Argv(const std::vector<std::string>& args) : storage(args) {
    for (auto& s : storage) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
  }
  std::vector<std::string> storage;
  std::vector<char*> ptrs;
};

// In a forked child: drops to the server user, redirects output, and runs argv. Never returns.
[[noreturn]] void ExecAs(const Argv& argv, bool drop, uid_t uid, gid_t gid, int log_fd, const char* cwd) {
  if (log_fd >= 0) {
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
  }
  int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, 0);
  if (cwd) (void)!::chdir(cwd);
  if (drop) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) _exit(126);
  }
  ::execv(argv.ptrs[0], argv.ptrs.data());
  _exit(127);
}

Result<std::vector<std::vector<std::optional<std::string>>>> RunQuery(PGconn* conn, const std::string& sql) {
  PGresult* res = PQexec(conn, sql.c_str());
  ExecStatusType st = PQresultStatus(res);
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    std::string why = res ? PQresultErrorMessage(res) : PQerrorMessage(conn);
    PQclear(res);
    return Status::IOError("test server query failed: {}\n  SQL: {}", why, sql.substr(0, 500));
  }
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (int r = 0; r < PQntuples(res); ++r) {
    std::vector<std::optional<std::string>> row;
    for (int c = 0; c < PQnfields(res); ++c) {
      if (PQgetisnull(res, r, c)) row.push_back(std::nullopt);
      else row.emplace_back(std::string(PQgetvalue(res, r, c), PQgetlength(res, r, c)));
    }
    rows.push_back(std::move(row));
  }
  PQclear(res);
  return rows;
}

}  // namespace

Result<std::unique_ptr<PgServer>> PgServer::Start(const Options& options) {
  std::unique_ptr<PgServer> server(new PgServer());
  server->bin_dir_ = FindBinDir();
  if (server->bin_dir_.empty()) {
    return Status::NotFound("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: install postgresql-15");
  }
  if (::geteuid() == 0) {
    // initdb and postgres refuse to run as root: use the Debian package's user, or make one.
    const char* user = "postgres";
    if (::getpwnam(user) == nullptr) {
      user = "tide-pg";
      if (::getpwnam(user) == nullptr &&
          std::system("useradd --system --no-create-home --shell /usr/sbin/nologin tide-pg >/dev/null 2>&1") != 0 &&
          ::getpwnam(user) == nullptr) {
        return Status::IOError("cannot create the unprivileged user tide-pg to run PostgreSQL (useradd failed)");
      }
    }
    struct passwd* pw = ::getpwnam(user);
    if (pw == nullptr) return Status::IOError("user {} vanished", user);
    server->as_other_user_ = true;
    server->uid_ = pw->pw_uid;
    server->gid_ = pw->pw_gid;
  }
  // Always under /tmp: the server user must be able to reach the folder (TMPDIR may sit under /root),
  // and Unix socket paths must stay short.
  std::string tmpl = "/tmp/tide-pg-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return Status::IOError("mkdtemp {} failed", tmpl);
  server->folder_ = tmpl;
  server->data_dir_ = tmpl + "/data";
  if (server->as_other_user_) {
    if (::chown(tmpl.c_str(), server->uid_, server->gid_) != 0) {
      return Status::IOError("cannot chown {} to the PostgreSQL user", tmpl);
    }
  }
  ::chmod(tmpl.c_str(), 0700);
  TIDE_RETURN_IF_ERROR(server->StartWatchdog());

  TIDE_RETURN_IF_ERROR(server->InitDataDir());
  {
    std::ofstream conf(server->data_dir_ + "/postgresql.conf", std::ios::app);
    conf << "\n# tide test harness\n"
         << "listen_addresses = '127.0.0.1'\n"
         << "unix_socket_directories = '" << server->folder_ << "'\n"
         << "wal_level = logical\n"
         << "max_replication_slots = 64\n"
         << "max_wal_senders = 64\n"
         << "max_connections = 150\n"
         << "fsync = off\n"
         << "synchronous_commit = off\n"
         << "full_page_writes = off\n"
         << "shared_buffers = '128MB'\n"
         << "max_wal_size = '2GB'\n"
         << "wal_sender_timeout = '60s'\n"
         << "log_min_messages = warning\n"
         << "timezone = 'UTC'\n";
    for (const auto& line : options.config) conf << line << "\n";
    if (!conf) return Status::IOError("cannot append to {}/postgresql.conf", server->data_dir_);
  }
  if (!options.hba.empty()) {
    std::ofstream hba(server->data_dir_ + "/pg_hba.conf", std::ios::trunc);
    for (const auto& line : options.hba) hba << line << "\n";
    if (!hba) return Status::IOError("cannot write {}/pg_hba.conf", server->data_dir_);
  }
  TIDE_RETURN_IF_ERROR(server->PgCtlStart());
  return server;
}

Status PgServer::InitDataDir() {
  // initdb takes seconds on a busy machine; each test process starts a server, so one initdb'd
  // cluster is kept per PostgreSQL version and user, and copied. A lock file serializes its creation.
  std::string version = fs::path(bin_dir_).parent_path().filename().string();
  std::string tmpl = fmt::format("/tmp/tide-pg-template-v1-{}-{}", version, as_other_user_ ? uid_ : ::geteuid());
  int lock_fd = ::open((tmpl + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0) return Status::IOError("cannot open {}.lock", tmpl);
  ::flock(lock_fd, LOCK_EX);
  Status st;
  if (!fs::exists(tmpl + ".ready")) {
    std::error_code ec;
    fs::remove_all(tmpl, ec);
    ::mkdir(tmpl.c_str(), 0700);
    if (as_other_user_ && ::chown(tmpl.c_str(), uid_, gid_) != 0) st = Status::IOError("cannot chown {}", tmpl);
    if (st.ok()) {
      st = RunAsServerUser({bin_dir_ + "/initdb", "-D", tmpl, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                            "--locale=C", "--no-sync"},
                           "initdb");
    }
    if (st.ok()) std::ofstream(tmpl + ".ready") << "initdb done\n";
  }
  if (st.ok()) st = RunAsServerUser({"/bin/cp", "-a", tmpl, data_dir_}, "copying the initdb template");
  ::flock(lock_fd, LOCK_UN);
  ::close(lock_fd);
  return st;
}

Status PgServer::PgCtlStart() {
  Status last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = FreePort();
    if (port_ == 0) return Status::IOError("no free TCP port on 127.0.0.1");
    last = RunAsServerUser({bin_dir_ + "/pg_ctl", "-D", data_dir_, "-l", folder_ + "/server.log", "-w", "-t",
                            "60", "-o", fmt::format("-p {}", port_), "start"},
                           "pg_ctl start");
    if (last.ok()) {
      running_ = true;
      return Status::OK();
    }
    // Another process may have taken the port between our probe and the bind: try another.
    if (Tail(folder_ + "/server.log").find("could not bind") == std::string::npos) break;
  }
  return Status::IOError("{}\nserver log:\n{}", last.message(), Tail(folder_ + "/server.log"));
}

Status PgServer::RunAsServerUser(const std::vector<std::string>& args, const std::string& what) {
  Argv argv(args);
  std::string log_path = folder_ + "/commands.log";
  int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (log_fd >= 0 && as_other_user_) (void)!::fchown(log_fd, uid_, gid_);
  off_t start = log_fd >= 0 ? ::lseek(log_fd, 0, SEEK_END) : 0;
  std::string cwd = folder_;
  pid_t pid = ::fork();
  if (pid < 0) return Status::IOError("fork failed for {}", what);
  if (pid == 0) ExecAs(argv, as_other_user_, uid_, gid_, log_fd, cwd.c_str());
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (log_fd >= 0) ::close(log_fd);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::OK();
  std::string output = Tail(log_path, 1u << 20);
  if (start > 0 && static_cast<size_t>(start) < output.size()) output = output.substr(static_cast<size_t>(start));
  return Status::IOError("{} failed (exit status {}): {}", what, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                         output.size() > 3000 ? output.substr(output.size() - 3000) : output);
}

Status PgServer::StartWatchdog() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Status::IOError("pipe failed");
  // Everything the watchdog needs is prepared before fork.
  Argv stop({bin_dir_ + "/pg_ctl", "-D", data_dir_, "-m", "immediate", "-w", "stop"});
  Argv remove({"/bin/rm", "-rf", folder_});
  bool drop = as_other_user_;
  uid_t uid = uid_;
  gid_t gid = gid_;
  pid_t pid = ::fork();
  if (pid < 0) return Status::IOError("fork failed for the watchdog");
  if (pid == 0) {
    // Its own session, so that a Ctrl-C aimed at the tests does not end it before it cleans up.
    ::setsid();
    ::close(fds[1]);
    char c = 0;
    ssize_t n;
    do {
      n = ::read(fds[0], &c, 1);
    } while (n < 0 && errno == EINTR);
    if (n == 1 && c == 'q') _exit(0);  // clean shutdown: nothing to do
    int devnull = ::open("/dev/null", O_WRONLY);
    pid_t child = ::fork();
    if (child == 0) ExecAs(stop, drop, uid, gid, devnull, "/");
    int st;
    if (child > 0) ::waitpid(child, &st, 0);
    child = ::fork();
    if (child == 0) ExecAs(remove, false, 0, 0, devnull, "/");
    if (child > 0) ::waitpid(child, &st, 0);
    _exit(0);
  }
  ::close(fds[0]);
  watchdog_fd_ = fds[1];
  watchdog_pid_ = pid;
  return Status::OK();
}

PgServer::~PgServer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_) {
      RunAsServerUser({bin_dir_ + "/pg_ctl", "-D", data_dir_, "-m", "fast", "-w", "stop"}, "pg_ctl stop")
          .IgnoreError();
      running_ = false;
    }
  }
  if (!folder_.empty()) {
    std::error_code ec;
    fs::remove_all(folder_, ec);
  }
  if (watchdog_fd_ >= 0) {
    char q = 'q';
    (void)!::write(watchdog_fd_, &q, 1);
    ::close(watchdog_fd_);
    int st;
    ::waitpid(watchdog_pid_, &st, 0);
  }
}

PgServer& PgServer::Shared() {
  static std::unique_ptr<PgServer> server;
  static std::once_flag once;
  std::call_once(once, [] {
    Options options;
    // Small enough that a few thousand changes in one transaction are streamed (proto 2+ streaming).
    options.config.push_back("logical_decoding_work_mem = '64kB'");
    auto started = Start(options);
    if (!started.ok()) {
      std::cerr << "cannot start the test PostgreSQL server: " << started.status().ToString() << std::endl;
      std::exit(1);
    }
    server = std::move(started).value();
  });
  return *server;
}

std::string PgServer::conninfo(const std::string& dbname, const std::string& user) const {
  return fmt::format("host=127.0.0.1 port={} dbname={} user={}", port_, dbname, user);
}

std::string PgServer::socket_conninfo(const std::string& dbname) const {
  return fmt::format("host={} port={} dbname={} user=postgres", folder_, port_, dbname);
}

PGconn* PgServer::ConnectSuperuser(const std::string& dbname) const {
  return PQconnectdb(conninfo(dbname).c_str());
}

Result<std::vector<std::vector<std::optional<std::string>>>> PgServer::Query(const std::string& sql,
                                                                             const std::string& dbname) {
  std::lock_guard<std::mutex> lock(mu_);
  PGconn* conn = PQconnectdb(conninfo(dbname).c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string why = PQerrorMessage(conn);
    PQfinish(conn);
    return Status::Unavailable("cannot connect to the test server: {}", why);
  }
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);  // keep test output quiet
  auto rows = RunQuery(conn, sql);
  PQfinish(conn);
  return rows;
}

Status PgServer::Exec(const std::string& sql, const std::string& dbname) { return Query(sql, dbname).status(); }

Result<std::string> PgServer::QueryValue(const std::string& sql, const std::string& dbname) {
  TIDE_ASSIGN_OR_RETURN(auto rows, Query(sql, dbname));
  if (rows.empty() || rows[0].empty() || !rows[0][0]) return std::string();
  return *rows[0][0];
}

Status PgServer::CreateDatabase(const std::string& name) {
  TIDE_ASSIGN_OR_RETURN(std::string exists,
                        QueryValue("SELECT 1 FROM pg_database WHERE datname = '" + name + "'"));
  if (!exists.empty()) return Status::OK();
  return Exec("CREATE DATABASE \"" + name + "\"");
}

Result<int> PgServer::KillWalSenders(const std::string& slot) {
  std::string sql =
      slot.empty()
          ? "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM pg_stat_replication"
          : "SELECT count(*) FILTER (WHERE pg_terminate_backend(active_pid, 10000)) FROM pg_replication_slots "
            "WHERE active_pid IS NOT NULL AND slot_name = '" + slot + "'";
  TIDE_ASSIGN_OR_RETURN(std::string n, QueryValue(sql));
  return std::atoi(n.c_str());
}

Status PgServer::Restart(const std::string& mode) {
  std::lock_guard<std::mutex> lock(mu_);
  Status st = RunAsServerUser({bin_dir_ + "/pg_ctl", "-D", data_dir_, "-l", folder_ + "/server.log", "-m",
                               mode, "-w", "-t", "60", "restart"},
                              "pg_ctl restart");
  running_ = st.ok();
  return st;
}

Status PgServer::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!running_) return Status::OK();
  Status st = RunAsServerUser({bin_dir_ + "/pg_ctl", "-D", data_dir_, "-m", "fast", "-w", "stop"}, "pg_ctl stop");
  if (st.ok()) running_ = false;
  return st;
}

Status PgServer::StartAgain() {
  std::lock_guard<std::mutex> lock(mu_);
  if (running_) return Status::OK();
  Status st = RunAsServerUser({bin_dir_ + "/pg_ctl", "-D", data_dir_, "-l", folder_ + "/server.log", "-w", "-t",
                               "60", "-o", fmt::format("-p {}", port_), "start"},
                              "pg_ctl start");
  running_ = st.ok();
  return st;
}

}  // namespace tide::testing
