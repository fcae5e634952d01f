// PgServer: a real PostgreSQL 15 for integration tests, made with initdb in a temporary folder.
//
// The server runs with wal_level=logical, room for many replication slots and walsenders, fsync off,
// listening on 127.0.0.1 at a free port and on a Unix socket inside its folder. When the tests run as
// root (CI does), the server runs as an unprivileged user (`postgres`, created as `tide-pg` if missing),
// because initdb and postgres refuse root. Stop() / the destructor stop it (pg_ctl stop -m fast) and
// remove the folder; a watchdog process does the same if the test binary dies without cleaning up.
// The superuser is `postgres`, authentication is trust. The initdb'd cluster is made once per
// PostgreSQL version and user (/tmp/tide-pg-template-v1-*) and copied for each server.
//
// One server per test binary: Shared() starts it lazily on first use and stops it at exit.
// Thread-safety: Query/Exec/Restart/Stop are serialized by an internal mutex; conninfo() and port()
// may be called from any thread.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "tide/base/result.h"

namespace tide::testing {

class PgServer {
 public:
  struct Options {
    // Extra postgresql.conf lines, e.g. "logical_decoding_work_mem = '64kB'".
    std::vector<std::string> config;
    // When not empty, pg_hba.conf holds these lines instead of initdb's (which trust every local and
    // 127.0.0.1 connection, replication included).
    std::vector<std::string> hba;
  };

  // Starts a fresh server (initdb + pg_ctl start).
  static Result<std::unique_ptr<PgServer>> Start(const Options& options);
  // The test binary's server, started on first call; the process exits with an error message if it
  // cannot start (the tests cannot run without it).
  static PgServer& Shared();

  ~PgServer();
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  // "host=127.0.0.1 port=N dbname=<db> user=<user>".
  std::string conninfo(const std::string& dbname = "postgres", const std::string& user = "postgres") const;
  // The same over the Unix socket in the server's folder.
  std::string socket_conninfo(const std::string& dbname = "postgres") const;
  int port() const { return port_; }
  const std::string& folder() const { return folder_; }
  // The cluster's data folder (postgresql.conf, pg_hba.conf).
  const std::string& data_dir() const { return data_dir_; }

  // A fresh superuser connection (caller owns it; PQfinish when done).
  PGconn* ConnectSuperuser(const std::string& dbname = "postgres") const;
  // Runs SQL as superuser on the `postgres` database (or `dbname`); fails the calling test via the
  // Status if the server reports an error.
  Status Exec(const std::string& sql, const std::string& dbname = "postgres");
  // Runs a query; rows of text values (nullopt = NULL).
  Result<std::vector<std::vector<std::optional<std::string>>>> Query(const std::string& sql,
                                                                     const std::string& dbname = "postgres");
  // The first column of the first row, "" when no row or NULL.
  Result<std::string> QueryValue(const std::string& sql, const std::string& dbname = "postgres");

  // Creates a database (if absent) for one test to use on its own.
  Status CreateDatabase(const std::string& name);
  // pg_terminate_backend on every walsender (of `slot` only when given); returns how many were ended.
  Result<int> KillWalSenders(const std::string& slot = "");
  // pg_ctl restart -m <mode> (connections are cut; slots and data survive). "fast" waits for logical
  // walsenders to have their clients confirm all WAL; "immediate" is a crash and recovery.
  Status Restart(const std::string& mode = "fast");
  // pg_ctl stop -m fast; Start again with StartAgain().
  Status Stop();
  Status StartAgain();

 private:
  PgServer() = default;
  Status RunAsServerUser(const std::vector<std::string>& argv, const std::string& what);
  Status StartWatchdog();
  Status PgCtlStart();
  Status InitDataDir();

  std::mutex mu_;
  std::string folder_;      // the temporary folder: data/, the socket, logs
  std::string data_dir_;
  std::string bin_dir_;
  int port_ = 0;
  bool running_ = false;
  bool as_other_user_ = false;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  int watchdog_fd_ = -1;    // write end of the pipe the watchdog waits on
  pid_t watchdog_pid_ = -1;
};

}  // namespace tide::testing
