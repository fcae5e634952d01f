// End-to-end test of `tide pg tail`: the real binary against the test server, reading its JSON lines,
// then stopping it with SIGINT.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <thread>

#include "pg_test_util.h"
#include "testing/temp_dir.h"

namespace tide {
namespace {

using namespace pgtest;

class TailProcess {
 public:
  explicit TailProcess(std::vector<std::string> args) {
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    std::vector<std::string> argv = {testing::BuildDir() + "/tide", "pg", "tail"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> ptrs;
    for (auto& a : argv) ptrs.push_back(a.data());
    ptrs.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      ::execv(ptrs[0], ptrs.data());
      _exit(127);
    }
    ::close(out[1]);
    fd_ = out[0];
  }
  ~TailProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) ::close(fd_);
  }
  // The next stdout line, or "" after `timeout_ms`.
  std::string ReadLine(int timeout_ms) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      int left = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
      if (left <= 0) return "";
      pollfd pfd{fd_, POLLIN, 0};
      if (::poll(&pfd, 1, left) <= 0) continue;
      char buf[4096];
      ssize_t n = ::read(fd_, buf, sizeof(buf));
      if (n <= 0) return "";
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }
  // Sends `signal` and returns the exit code (or -1).
  int Stop(int signal) {
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // Waits for the process to exit by itself; its exit code (or -1).
  int Wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buffer_;
};

bool WaitFor(const std::string& sql) {
  for (int i = 0; i < 300; ++i) {
    if (SqlValue(sql) == "t") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST(PgTailTest, PrintsChangesAsJsonAndStopsCleanlyOnSigint) {
  Sql("DROP TABLE IF EXISTS tail_t; CREATE TABLE tail_t(id bigint PRIMARY KEY, amount numeric(10,2), "
      "at timestamptz, data bytea, note text)");
  TailProcess tail({"--postgres", Server().conninfo(), "--tables", "tail_t", "--temporary"});
  std::string slot = "tide_tail_" + std::to_string(tail.pid());
  ASSERT_TRUE(WaitFor("SELECT count(*) = 1 FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active"))
      << "tail did not start streaming";
  Sql("INSERT INTO tail_t VALUES (9007199254740993, 12.30, '2024-01-31 12:00:00+02', '\\x00ff10', 'hello')");
  Sql("UPDATE tail_t SET note = 'changed' WHERE id = 9007199254740993");
  Sql("DELETE FROM tail_t");
  Sql("TRUNCATE tail_t");
  std::vector<nlohmann::json> lines;
  while (lines.size() < 4) {
    std::string line = tail.ReadLine(30000);
    ASSERT_FALSE(line.empty()) << "only " << lines.size() << " lines came";
    lines.push_back(nlohmann::json::parse(line));
  }
  EXPECT_EQ(lines[0]["kind"], "+I");
  EXPECT_EQ(lines[0]["table"], "public.tail_t");
  EXPECT_EQ(lines[0]["row"]["id"], "9007199254740993");
  EXPECT_EQ(lines[0]["row"]["amount"], "12.30");
  EXPECT_EQ(lines[0]["row"]["at"], "2024-01-31T10:00:00.000000Z");
  EXPECT_EQ(lines[0]["row"]["data"], "AP8Q");
  EXPECT_EQ(lines[0]["row"]["note"], "hello");
  EXPECT_EQ(lines[0]["unchanged"], nlohmann::json::array());
  EXPECT_TRUE(lines[0]["lsn"].get<std::string>().find('/') != std::string::npos);
  EXPECT_EQ(lines[1]["kind"], "+U");
  EXPECT_EQ(lines[1]["row"]["note"], "changed");
  EXPECT_EQ(lines[2]["kind"], "-D");
  EXPECT_EQ(lines[2]["row"], nlohmann::json({{"id", "9007199254740993"}}));
  EXPECT_EQ(lines[3]["kind"], "truncate");
  EXPECT_EQ(lines[3]["table"], "public.tail_t");
  EXPECT_EQ(tail.Stop(SIGINT), 0);
  // The temporary slot and the publication made for it are gone.
  EXPECT_EQ(SqlValue("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'"), "0");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM pg_publication WHERE pubname = '" + slot + "'"), "0");
}

TEST(PgTailTest, NamedSlotKeepsItsPositionAcrossRuns) {
  Sql("DROP TABLE IF EXISTS tail_keep; CREATE TABLE tail_keep(id int PRIMARY KEY)");
  {
    TailProcess tail({"--postgres", Server().conninfo(), "--tables", "public.tail_keep", "--slot", "tail_keep_slot"});
    ASSERT_TRUE(WaitFor("SELECT count(*) = 1 FROM pg_replication_slots WHERE slot_name = 'tail_keep_slot' AND active"));
    Sql("INSERT INTO tail_keep VALUES (1)");
    auto line = nlohmann::json::parse(tail.ReadLine(30000));
    EXPECT_EQ(line["row"]["id"], 1);
    EXPECT_EQ(tail.Stop(SIGTERM), 0);
  }
  Sql("INSERT INTO tail_keep VALUES (2)");
  {
    TailProcess tail({"--postgres", Server().conninfo(), "--tables", "public.tail_keep", "--slot", "tail_keep_slot"});
    // Only the row written while it was away: row 1 was printed (and so confirmed) by the first run.
    auto line = nlohmann::json::parse(tail.ReadLine(30000));
    EXPECT_EQ(line["row"]["id"], 2);
    EXPECT_EQ(tail.ReadLine(1500), "");
    EXPECT_EQ(tail.Stop(SIGINT), 0);
  }
  Sql("SELECT pg_drop_replication_slot('tail_keep_slot'); DROP PUBLICATION tail_keep_slot");
}

TEST(PgTailTest, MissingTableFailsWithAClearMessage) {
  TailProcess tail({"--postgres", Server().conninfo(), "--tables", "no_such_tail_table", "--temporary"});
  EXPECT_EQ(tail.ReadLine(20000), "");  // nothing on stdout; it exits
  EXPECT_EQ(tail.Wait(), 1);
}

}  // namespace
}  // namespace tide
