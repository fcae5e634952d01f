// The progress display as a person sees it: the real `tide sync postgres` runs under a pseudo-terminal
// against a real PostgreSQL, copying a table of a few hundred thousand rows, and what it writes is fed
// through a small VT100 screen (below) whose text the test reads back, as a terminal would show it.
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "sync/sync_test_util.h"

namespace tide {
namespace {

using sync_testing::Server;
using sync_testing::Sql;

// A terminal screen of `rows` x `cols` cells that understands what tide writes: text, CR, LF (scrolling
// at the bottom), backspace, and the CSI sequences cursor up/down (A/B), erase in display (J) and
// line (K); colours (m) and anything else are ignored.
class Screen {
 public:
  Screen(int rows, int cols) : rows_(rows), cols_(cols), grid_(rows, std::string(cols, ' ')) {}

  void Feed(const std::string& bytes) {
    for (char ch : bytes) Put(ch);
  }
  // The screen's lines, trailing blanks cut.
  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    for (const std::string& row : grid_) {
      size_t end = row.find_last_not_of(' ');
      out.push_back(end == std::string::npos ? "" : row.substr(0, end + 1));
    }
    return out;
  }
  std::string Text() const { return Join(Lines(), "\n"); }

 private:
  void Put(char ch) {
    if (state_ == kEscape) {
      state_ = ch == '[' ? kCsi : kText;
      params_.clear();
      return;
    }
    if (state_ == kCsi) {
      if ((ch >= '0' && ch <= '9') || ch == ';' || ch == '?') {
        params_ += ch;
        return;
      }
      Csi(ch);
      state_ = kText;
      return;
    }
    switch (ch) {
      case '\x1b': state_ = kEscape; return;
      case '\r': col_ = 0; return;
      case '\n': LineFeed(); return;
      case '\b': col_ = std::max(0, col_ - 1); return;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) return;
        if (col_ >= cols_) {
          col_ = 0;
          LineFeed();
        }
        grid_[row_][col_++] = ch;
    }
  }
  void LineFeed() {
    if (++row_ == rows_) {
      grid_.erase(grid_.begin());
      grid_.emplace_back(cols_, ' ');
      row_ = rows_ - 1;
    }
  }
  void Csi(char final) {
    const int n = params_.empty() || params_[0] == '?' ? 0 : std::atoi(params_.c_str());
    switch (final) {
      case 'A': row_ = std::max(0, row_ - std::max(1, n)); break;
      case 'B': row_ = std::min(rows_ - 1, row_ + std::max(1, n)); break;
      case 'J':
        if (n == 0) {
          grid_[row_].replace(col_, cols_ - col_, cols_ - col_, ' ');
          for (int r = row_ + 1; r < rows_; ++r) grid_[r].assign(cols_, ' ');
        }
        break;
      case 'K':
        if (n == 2) grid_[row_].assign(cols_, ' ');
        if (n == 0) grid_[row_].replace(col_, cols_ - col_, cols_ - col_, ' ');
        break;
      default: break;
    }
  }

  enum { kText, kEscape, kCsi } state_ = kText;
  std::string params_;
  int rows_, cols_;
  std::vector<std::string> grid_;
  int row_ = 0, col_ = 0;
};

class ProgressTerminalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Server().CreateDatabase(db_).ok());
    Sql("DROP TABLE IF EXISTS big; CREATE TABLE big (id bigint PRIMARY KEY, note text); "
        "INSERT INTO big SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, 300000) g; ANALYZE big",
        db_);
  }
  const std::string db_ = "progress_tty";
  testing::TempDir dir_;
};

TEST_F(ProgressTerminalTest, CopyBarsThenStreamingLineOnTheScreen) {
  const int rows = 40, cols = 160;
  std::vector<std::string> args = {testing::BuildDir() + "/tide", "sync", "postgres", "--warehouse",
                                   dir_.path() + "/wh", "--database", "shop", "--postgres", Server().conninfo(db_),
                                   "--tables", "public.big", "--slot", "tide_progress_tty", "--copy-workers", "1"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  struct winsize ws {};
  ws.ws_row = rows;
  ws.ws_col = cols;
  int master = -1;
  pid_t pid = ::forkpty(&master, nullptr, nullptr, &ws);
  ASSERT_GE(pid, 0) << "forkpty failed";
  if (pid == 0) {
    ::setenv("TERM", "xterm", 1);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  Screen screen(rows, cols);
  std::vector<std::string> frames;  // the screen after each read
  // Reads what tide wrote for up to `ms`; false at end of output.
  auto pump = [&](int ms) {
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, ms) <= 0) return true;
    char buf[4096];
    ssize_t n = ::read(master, buf, sizeof(buf));
    if (n <= 0) return false;
    screen.Feed(std::string(buf, static_cast<size_t>(n)));
    frames.push_back(screen.Text());
    return true;
  };
  // Until the copy is done and the status line shows the stream.
  const std::regex streaming_line(R"((^|\n)streaming  .*changes in .*transactions)");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  bool streaming = false;
  while (!streaming && std::chrono::steady_clock::now() < deadline) {
    if (!pump(200)) break;
    streaming = std::regex_search(screen.Text(), streaming_line);
  }
  const std::string at_streaming = screen.Text();
  if (std::getenv("TIDE_TEST_SHOW_SCREEN") != nullptr) std::cerr << at_streaming << std::endl;
  ::kill(pid, SIGINT);
  while (pump(1000)) {
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  ASSERT_TRUE(streaming) << "no streaming status line on the screen:\n" << screen.Text();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << screen.Text();

  // During the copy: the table's bar with a percent of the estimate, a rate and an ETA.
  const std::regex copying_bar(R"(public\.big  \[[=> ]{24}\] +(\d{1,2})%  [\d,]+ / ~[\d,]+ rows)");
  bool saw_copying = false;
  for (const std::string& frame : frames) {
    std::smatch m;
    if (std::regex_search(frame, m, copying_bar)) saw_copying = true;
  }
  EXPECT_TRUE(saw_copying) << "no bar of the running copy was seen; the last screen:\n" << at_streaming;
  // Once copied: the full bar, the row count, and the status line beneath it.
  EXPECT_NE(at_streaming.find("public.big  [========================] 100%  300,000 rows copied"), std::string::npos)
      << at_streaming;
  // The sync's own lines print above the bars, whole.
  const std::vector<std::string> lines = screen.Lines();
  int copied_line = -1, bar_line = -1;
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    if (lines[i].rfind("tide sync: copied public.big into ", 0) == 0) copied_line = i;
    if (lines[i].rfind("public.big  [", 0) == 0) bar_line = i;
  }
  EXPECT_GE(copied_line, 0) << screen.Text();
  EXPECT_GT(bar_line, copied_line) << "the bars stay below the log lines:\n" << screen.Text();
  // The final summary, after the bars.
  EXPECT_NE(screen.Text().find("tide sync: 300000 rows copied"), std::string::npos) << screen.Text();
  for (const std::string& line : lines) {
    EXPECT_EQ(line.find("\x1b"), std::string::npos) << "an escape sequence leaked onto the screen: " << line;
  }
}

}  // namespace
}  // namespace tide
