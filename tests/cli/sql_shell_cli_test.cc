// The interactive `tide sql` shell as a user meets it: the built binary on a pseudo-terminal (forkpty),
// keys typed into it and the answers read back from what it writes to the terminal, with the
// terminal's control sequences taken out. Runs on the Java-written fixture warehouse (pk_09.pk_09:
// see tests/cli/sql_cli_test.cc for where its rows come from).

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace tide {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

constexpr auto kPatience = std::chrono::seconds(30);  // for answers that come at once on an idle machine

// What a terminal shows of `raw`: escape sequences (cursor movement, colours, titles) and carriage
// returns taken out, the text kept.
std::string ScreenText(const std::string& raw) {
  std::string text;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\x1b' && i + 1 < raw.size()) {
      char kind = raw[++i];
      if (kind == '[') {  // CSI: parameters, then one final byte in @..~
        while (i + 1 < raw.size() && !(raw[i + 1] >= '@' && raw[i + 1] <= '~')) ++i;
        ++i;
      } else if (kind == ']') {  // OSC: up to BEL or ESC backslash
        while (i + 1 < raw.size() && raw[i + 1] != '\a' && raw[i + 1] != '\x1b') ++i;
        ++i;
        if (i < raw.size() && raw[i] == '\x1b') ++i;
      }
      continue;
    }
    if (c == '\r' || c == '\a') continue;
    text += c;
  }
  return text;
}

// `tide sql --warehouse DIR` on a pseudo-terminal of 200 columns, with its own home folder and history
// file. Kills the shell if a test leaves it running.
class ShellOnPty {
 public:
  ShellOnPty(const std::string& warehouse, const std::string& home) {
    struct winsize size = {};
    size.ws_row = 50;
    size.ws_col = 200;
    std::string binary = tide::testing::BuildDir() + "/tide";
    std::string history = home + "/history";
    pid_ = ::forkpty(&master_, nullptr, nullptr, &size);
    if (pid_ == 0) {
      ::setenv("TERM", "xterm", 1);
      ::setenv("HOME", home.c_str(), 1);
      ::setenv("TIDE_HISTORY", history.c_str(), 1);
      ::setenv("LANG", "C.UTF-8", 1);
      ::execl(binary.c_str(), binary.c_str(), "sql", "--warehouse", warehouse.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~ShellOnPty() {
    if (pid_ > 0 && exit_code_ == kRunning) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) ::close(master_);
  }

  bool started() const { return pid_ > 0 && master_ >= 0; }

  void Type(const std::string& keys) {
    size_t done = 0;
    while (done < keys.size()) {
      ssize_t n = ::write(master_, keys.data() + done, keys.size() - done);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }

  // Reads the terminal until its text after what earlier calls consumed holds `needle`; returns that
  // text up to and including the needle, or "" (with a failure naming what was seen) on timeout.
  std::string Expect(const std::string& needle, Clock::duration timeout = kPatience) {
    Clock::time_point deadline = Clock::now() + timeout;
    while (true) {
      std::string text = ScreenText(raw_).substr(consumed_);
      if (size_t at = text.find(needle); at != std::string::npos) {
        consumed_ += at + needle.size();
        return text.substr(0, at + needle.size());
      }
      if (Clock::now() >= deadline || !ReadSome(deadline)) {
        ADD_FAILURE() << "the shell did not show \"" << needle << "\"; it showed after the last answer:\n" << text;
        return "";
      }
    }
  }

  // Everything the terminal has shown so far.
  std::string Screen() const { return ScreenText(raw_); }

  // Waits for the shell to exit; its exit code, or -1 if it did not exit normally in time.
  int WaitExit(Clock::duration timeout = kPatience) {
    Clock::time_point deadline = Clock::now() + timeout;
    while (exit_code_ == kRunning) {
      int status = 0;
      pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        break;
      }
      if (Clock::now() >= deadline) return -1;
      ReadSome(Clock::now() + std::chrono::milliseconds(50));  // keep the terminal drained
    }
    return exit_code_;
  }

 private:
  static constexpr int kRunning = -2;

  // Reads what the shell wrote, waiting until `deadline`; false once the terminal is closed.
  bool ReadSome(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    struct pollfd fd = {master_, POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(std::max<int64_t>(left, 0))) <= 0) return true;
    char buffer[4096];
    ssize_t n = ::read(master_, buffer, sizeof(buffer));
    if (n <= 0) return false;  // EIO: the shell closed the terminal
    raw_.append(buffer, static_cast<size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int master_ = -1;
  int exit_code_ = kRunning;
  std::string raw_;
  size_t consumed_ = 0;
};

class SqlShellTest : public ::testing::Test {
 protected:
  void SetUp() override {
    shell_ = std::make_unique<ShellOnPty>(tide::testing::JavaFixtureWarehouse(), home_.path());
    ASSERT_TRUE(shell_->started());
    ASSERT_NE(shell_->Expect("tide> "), "");
  }

  // Types `line` and Enter, and returns what the shell showed up to its next main prompt (the echo
  // of the line included).
  std::string Enter(const std::string& line) {
    shell_->Type(line + "\r");
    return shell_->Expect("tide> ");
  }

  // Ctrl-D at the prompt: the shell must end with exit code 0.
  void Leave() {
    shell_->Type("\x04");
    EXPECT_EQ(shell_->WaitExit(), 0);
  }

  tide::testing::TempDir home_;
  std::unique_ptr<ShellOnPty> shell_;
};

TEST_F(SqlShellTest, RunsAMultiLineQueryAndShowsItsTable) {
  shell_->Type("SELECT f0, f3\r");
  // Not complete yet: the continuation prompt, and nothing run.
  EXPECT_EQ(shell_->Expect("  ...> "), "SELECT f0, f3\n  ...> ");
  shell_->Type("FROM pk_09.pk_09\r");
  EXPECT_EQ(shell_->Expect("  ...> "), "FROM pk_09.pk_09\n  ...> ");
  std::string shown = Enter("WHERE f0 IN ('Alice', 'Bob') ORDER BY f0;");
  EXPECT_EQ(shown,
            "WHERE f0 IN ('Alice', 'Bob') ORDER BY f0;\n"
            "┌─────────┬────────┐\n"
            "│   f0    │   f3   │\n"
            "│ varchar │ double │\n"
            "├─────────┼────────┤\n"
            "│ Alice   │   21.1 │\n"
            "│ Bob     │   12.1 │\n"
            "└─────────┴────────┘\n"
            "tide> ");
  Leave();
}

TEST_F(SqlShellTest, SwitchesToCsvAndListsTablesAndSchemas) {
  EXPECT_EQ(Enter(".mode csv"), ".mode csv\ntide> ");
  EXPECT_EQ(Enter("SELECT 1 AS a, 'x,y' AS b;"), "SELECT 1 AS a, 'x,y' AS b;\na,b\n1,\"x,y\"\ntide> ");

  std::string tables = Enter(".tables");
  EXPECT_THAT(tables, HasSubstr("\ndatabase,name\n"));
  EXPECT_THAT(tables, HasSubstr("\npk_09,pk_09\n"));
  EXPECT_THAT(tables, HasSubstr("\nappend_09,append_09\n"));
  EXPECT_THAT(tables, Not(HasSubstr("$snapshots")));  // system tables are not listed

  EXPECT_EQ(Enter(".schema pk_09.pk_09"),
            ".schema pk_09.pk_09\n"
            "column,type,paimon_type,key\n"
            "f0,VARCHAR,STRING NOT NULL,primary key\n"
            "f1,INTEGER,INT NOT NULL,\"primary key, partition key\"\n"
            "f2,INTEGER,INT NOT NULL,\"primary key, bucket key\"\n"
            "f3,DOUBLE,DOUBLE,\"\"\n"
            "tide> ");
  // Names match without regard to case, as in SQL.
  EXPECT_THAT(Enter(".schema PK_09.Pk_09"), HasSubstr("f0,VARCHAR,STRING NOT NULL,primary key\n"));

  std::string snapshots = Enter(".snapshots pk_09.pk_09");
  EXPECT_THAT(snapshots, HasSubstr("snapshot_id,schema_id,commit_kind,commit_time,total_record_count,"
                                   "delta_record_count,changelog_record_count\n"
                                   "1,0,APPEND,2025-08-21 06:43:45.076,9,9,0\n"));
  EXPECT_THAT(snapshots, HasSubstr("\n8,0,COMPACT,2025-08-21 06:43:45.645,10,-3,0\ntide> "));

  EXPECT_EQ(Enter(".mode json"), ".mode json\ntide> ");
  EXPECT_EQ(Enter("SELECT 2 AS two;"), "SELECT 2 AS two;\n{\"two\":2}\ntide> ");
  Leave();
}

TEST_F(SqlShellTest, TimerShowsEachStatementsTime) {
  EXPECT_EQ(Enter("SELECT 1 AS one;").find("Run Time"), std::string::npos);
  EXPECT_EQ(Enter(".timer on"), ".timer on\ntide> ");
  std::string timed = Enter("SELECT 1 AS one;");
  EXPECT_TRUE(std::regex_search(timed, std::regex("└─────────┘\nRun Time: [0-9]+\\.[0-9]{3} s\ntide> $"))) << timed;
  EXPECT_EQ(Enter(".timer off"), ".timer off\ntide> ");
  EXPECT_EQ(Enter("SELECT 1 AS one;").find("Run Time"), std::string::npos);
  Leave();
}

TEST_F(SqlShellTest, AnErrorIsShownAndTheShellGoesOn) {
  std::string failed = Enter("SELECT * FROM pk_09.no_such_table;");
  EXPECT_THAT(failed, HasSubstr("Error: "));
  EXPECT_THAT(failed, HasSubstr("no_such_table"));
  EXPECT_THAT(Enter(".schema pk_09.no_such_table"), HasSubstr("Error: no table pk_09.no_such_table"));
  EXPECT_THAT(Enter(".nonsense"), HasSubstr("Error: unknown command .nonsense: try .help"));
  EXPECT_THAT(Enter(".help"), HasSubstr(".snapshots DB.T"));
  // Still answering.
  EXPECT_THAT(Enter("SELECT 40 + 2 AS answer;"), HasSubstr("│      42 │"));
  Leave();
}

TEST_F(SqlShellTest, CtrlCStopsARunningQueryAndTheShellGoesOn) {
  // Hours of work: a cross join of two million-row ranges that no row satisfies.
  shell_->Type("SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range < 0;\r");
  shell_->Expect("< 0;\n");
  // It is running: no answer and no prompt for a second.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_THAT(shell_->Screen(), Not(HasSubstr("< 0;\ntide> ")));
  Clock::time_point pressed = Clock::now();
  shell_->Type("\x03");
  std::string stopped = shell_->Expect("tide> ");
  double seconds = std::chrono::duration<double>(Clock::now() - pressed).count();
  EXPECT_THAT(stopped, HasSubstr("Error: interrupted (Ctrl-C)\n"));
  EXPECT_LT(seconds, 2.0) << "the query took that long to stop";
  // The next query runs on the same connection.
  EXPECT_THAT(Enter("SELECT 'still here' AS s;"), HasSubstr("│ still here │"));
  // Ctrl-C twice more on two long queries, to be sure the first one left nothing behind.
  for (int i = 0; i < 2; ++i) {
    shell_->Type("SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range * b.range < 0;\r");
    shell_->Expect("< 0;\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    shell_->Type("\x03");
    EXPECT_THAT(shell_->Expect("tide> ", std::chrono::seconds(5)), HasSubstr("interrupted"));
  }
  EXPECT_THAT(Enter("SELECT count(*) AS n FROM pk_09.pk_09;"), HasSubstr("│      9 │"));
  Leave();
}

TEST_F(SqlShellTest, CtrlCAtThePromptDropsWhatWasTyped) {
  shell_->Type("SELECT 99 AS dropped");
  shell_->Expect("AS dropped");
  shell_->Type("\x03");
  EXPECT_EQ(shell_->Expect("tide> "), "^C\ntide> ");
  // Inside an unfinished statement, Ctrl-C drops all of it: back to the main prompt.
  shell_->Type("SELECT 98 AS also_dropped,\r");
  shell_->Expect("  ...> ");
  shell_->Type("\x03");
  EXPECT_EQ(shell_->Expect("tide> "), "^C\ntide> ");
  std::string kept = Enter("SELECT 2 AS kept;");
  EXPECT_THAT(kept, HasSubstr("│  kept   │"));
  EXPECT_THAT(kept, Not(HasSubstr("dropped")));
  Leave();
  EXPECT_THAT(shell_->Screen(), Not(HasSubstr("│ dropped")));
}

TEST_F(SqlShellTest, KeepsAHistoryAcrossSessionsWithoutSecrets) {
  EXPECT_THAT(Enter("SELECT 31 AS first_one;"), HasSubstr("│ first_one │"));
  // The Up arrow brings the statement back; Enter runs it again.
  EXPECT_THAT(Enter("\x1b[A"), HasSubstr("│ first_one │"));
  Enter("SELECT 'x' AS password;");  // names a password: kept out of the file
  Enter(" SELECT 'y' AS unrecorded;");  // a leading space keeps a statement out, as in shells
  Enter("SELECT 1 AS a,\r2 AS b;");
  Leave();

  std::string path = home_.path() + "/history";
  std::ifstream in(path);
  std::stringstream file;
  file << in.rdbuf();
  EXPECT_THAT(file.str(), HasSubstr("first_one"));
  EXPECT_THAT(file.str(), HasSubstr("SELECT\\0401\\040AS\\040a,\\0402\\040AS\\040b;"));  // one entry
  EXPECT_THAT(file.str(), Not(HasSubstr("password")));
  EXPECT_THAT(file.str(), Not(HasSubstr("unrecorded")));
  struct stat st = {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // A new shell starts with that history: Up brings back the last statement, Up again the one before.
  shell_ = std::make_unique<ShellOnPty>(tide::testing::JavaFixtureWarehouse(), home_.path());
  ASSERT_NE(shell_->Expect("tide> "), "");
  EXPECT_THAT(Enter("\x1b[A"), HasSubstr("│       1 │       2 │"));
  EXPECT_THAT(Enter("\x1b[A\x1b[A"), HasSubstr("│ first_one │"));
  Leave();
}

TEST_F(SqlShellTest, QuitEndsTheShellWithExitCodeZero) {
  Enter("SELECT nope;");  // an error earlier does not change the exit code of a shell
  shell_->Type(".quit\r");
  EXPECT_EQ(shell_->WaitExit(), 0);
}

}  // namespace
}  // namespace tide
