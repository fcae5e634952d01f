// Secrets stay secret: the real `tide sync postgres` runs against a PostgreSQL that requires a password
// (scram-sha-256 over TCP, replication included), with the password given each way a user may give it:
// in the --postgres conninfo, through ${VAR} in a pipeline file, in PGPASSWORD, in ~/.pgpass; and with
// errors provoked (a missing table after a start, a wrong password). Then everything Tide wrote and
// printed (stdout, stderr, every file under the warehouse) is searched for the password; none may hold
// it. The pipeline and .pgpass files live apart and are not searched (they hold it by design).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "sync/sync_test_util.h"

namespace tide {
namespace {

constexpr const char* kPassword = "Tide-S3cret-q7Zx9";
constexpr const char* kRole = "tide_secret";

struct TideProcess {
  pid_t pid = -1;
  std::string out_path, err_path;
};

class SecretsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing::PgServer::Options options;
    options.hba = {"local all all trust", "host all postgres 127.0.0.1/32 trust",
                   std::string("host all ") + kRole + " 127.0.0.1/32 scram-sha-256",
                   std::string("host replication ") + kRole + " 127.0.0.1/32 scram-sha-256"};
    auto started = testing::PgServer::Start(options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    server_ = std::move(started).value().release();
    ASSERT_TRUE(server_
                    ->Exec(std::string("SET password_encryption = 'scram-sha-256'; CREATE ROLE ") + kRole +
                           " LOGIN SUPERUSER REPLICATION PASSWORD '" + kPassword +
                           "'; CREATE TABLE t (id int PRIMARY KEY, note text); "
                           "INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 1000) g")
                    .ok());
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  // host=127.0.0.1 port=N dbname=postgres user=tide_secret, plus `extra`.
  std::string ConnInfo(const std::string& extra = "") const {
    return server_->conninfo("postgres", kRole) + (extra.empty() ? "" : " " + extra);
  }

  // Starts `tide args...` with `env` added to the environment; stdout and stderr to files of run `name`.
  TideProcess Spawn(const std::string& name, std::vector<std::string> args, const std::map<std::string, std::string>& env) {
    TideProcess p;
    p.out_path = out_dir_ + "/" + name + ".stdout";
    p.err_path = out_dir_ + "/" + name + ".stderr";
    args.insert(args.begin(), testing::BuildDir() + "/tide");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    p.pid = ::fork();
    if (p.pid == 0) {
      ::unsetenv("PGPASSWORD");
      ::unsetenv("PGPASSFILE");
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      int out = ::open(p.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = ::open(p.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out, 1);
      ::dup2(err, 2);
      ::execv(argv[0], argv.data());
      _exit(127);
    }
    return p;
  }
  static int Wait(const TideProcess& p) {
    int status = 0;
    ::waitpid(p.pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  static std::string Slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  // Runs a sync until the lake holds `rows` rows of t (a change made while it runs included), then
  // stops it with SIGINT; expects exit 0.
  void SyncOnce(const std::string& name, std::vector<std::string> args, const std::map<std::string, std::string>& env,
                int update_id) {
    std::vector<std::string> all = {"--verbose", "sync", "postgres", "--warehouse", warehouse_, "--database", "shop",
                                    "--slot", "tide_secrets", "--commit-interval", "100ms"};
    all.insert(all.end(), args.begin(), args.end());
    TideProcess p = Spawn(name, all, env);
    const std::string table = warehouse_ + "/shop.db/t";
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool updated = false, seen = false;
    while (std::chrono::steady_clock::now() < deadline) {
      auto lake = sync_testing::ReadLakeRows(table, {"id", "note"});
      if (lake.ok() && lake->size() == 1000) {
        if (!updated) {
          ASSERT_TRUE(server_->Exec("UPDATE t SET note = '" + name + "' WHERE id = " + std::to_string(update_id)).ok());
          updated = true;
        } else if (std::find(lake->begin(), lake->end(), std::to_string(update_id) + "|" + name) != lake->end()) {
          seen = true;
          break;
        }
      }
      int status = 0;
      if (::waitpid(p.pid, &status, WNOHANG) == p.pid) {
        FAIL() << name << ": tide stopped early: " << Slurp(p.err_path);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(p.pid, SIGINT);
    EXPECT_EQ(Wait(p), 0) << name << ": " << Slurp(p.err_path);
    EXPECT_TRUE(seen) << name << ": the lake did not catch up: " << Slurp(p.err_path);
  }

  static testing::PgServer* server_;
  testing::TempDir dir_;
  const std::string warehouse_ = dir_.path() + "/warehouse";
  const std::string out_dir_ = dir_.path() + "/printed";    // what tide printed, searched
  const std::string secret_dir_ = dir_.path() + "/secret";  // the pipeline file and .pgpass, not searched
};
testing::PgServer* SecretsTest::server_ = nullptr;

TEST_F(SecretsTest, PasswordAppearsNowhereTideWritesOrPrints) {
  std::filesystem::create_directories(out_dir_);
  std::filesystem::create_directories(secret_dir_);
  // 1. In the conninfo on the command line.
  SyncOnce("conninfo", {"--postgres", ConnInfo(std::string("password=") + kPassword), "--tables", "public.t"}, {}, 1);
  // 2. Through ${VAR} in a pipeline file.
  const std::string pipeline = secret_dir_ + "/pipeline.yaml";
  {
    std::ofstream f(pipeline);
    f << "source:\n  conninfo: \"" << ConnInfo("password=${TIDE_SECRETS_TEST_PASSWORD}") << "\"\n"
      << "  tables: [public.t]\npipeline:\n  copy-workers: 2\n";
  }
  SyncOnce("pipeline", {"--config", pipeline}, {{"TIDE_SECRETS_TEST_PASSWORD", kPassword}}, 2);
  // 3. PGPASSWORD.
  SyncOnce("pgpassword", {"--postgres", ConnInfo(), "--tables", "public.t"}, {{"PGPASSWORD", kPassword}}, 3);
  // 4. ~/.pgpass (HOME points at the secret folder).
  {
    std::ofstream f(secret_dir_ + "/.pgpass");
    f << "127.0.0.1:" << server_->port() << ":*:" << kRole << ":" << kPassword << "\n";
  }
  ::chmod((secret_dir_ + "/.pgpass").c_str(), 0600);
  SyncOnce("pgpass", {"--postgres", ConnInfo(), "--tables", "public.t"}, {{"HOME", secret_dir_}}, 4);
  // 5. An error after a start: a table that does not exist, the password in the conninfo; and in JSON.
  for (const std::string format : {"text", "json"}) {
    TideProcess p = Spawn("missing-" + format,
                          {"--verbose", "sync", "postgres", "--warehouse", warehouse_, "--database", "shop", "--slot",
                           "tide_secrets",
                           "--postgres", ConnInfo(std::string("password=") + kPassword), "--tables",
                           "public.t,public.missing", "--log-format", format},
                          {});
    // Either refused at once or running without it; stop it if it runs.
    std::this_thread::sleep_for(std::chrono::seconds(3));
    ::kill(p.pid, SIGINT);
    Wait(p);
  }
  // 6. A wrong password (the right one with a suffix): the connection error shows the conninfo, redacted.
  {
    TideProcess p = Spawn("wrong-password",
                          {"sync", "postgres", "--warehouse", warehouse_, "--database", "shop", "--postgres",
                           ConnInfo(std::string("password=") + kPassword + "-wrong"), "--tables", "public.t"},
                          {});
    EXPECT_EQ(Wait(p), 1);
    const std::string err = Slurp(p.err_path);
    EXPECT_NE(err.find("password authentication failed"), std::string::npos) << err;
  }
  // 7. A dropped table while the sync streams.
  {
    TideProcess p = Spawn("dropped", {"--verbose", "sync", "postgres", "--warehouse", warehouse_, "--database", "shop",
                                      "--slot", "tide_secrets", "--postgres", ConnInfo(), "--tables", "public.t"},
                          {{"PGPASSWORD", kPassword}});
    std::this_thread::sleep_for(std::chrono::seconds(3));
    ASSERT_TRUE(server_->Exec("DROP TABLE t").ok());
    std::this_thread::sleep_for(std::chrono::seconds(2));
    ::kill(p.pid, SIGINT);
    Wait(p);
  }

  // Every byte tide printed and wrote.
  size_t files = 0, bytes = 0;
  std::string printed;
  for (const auto& root : {out_dir_, warehouse_}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      const std::string content = Slurp(entry.path().string());
      ++files;
      bytes += content.size();
      EXPECT_EQ(content.find(kPassword), std::string::npos) << "the password is in " << entry.path();
      if (root == out_dir_) printed += "== " + entry.path().filename().string() + "\n" + content;
    }
  }
  EXPECT_GT(files, 20u);
  // The runs did what they should: synced, failed with their reasons (the redacted conninfo shown).
  EXPECT_NE(printed.find("password=********"), std::string::npos) << printed;
  EXPECT_NE(printed.find("public.missing"), std::string::npos) << printed;
  std::cerr << "searched " << files << " files, " << bytes << " bytes" << std::endl;
}

}  // namespace
}  // namespace tide
