#include "tide/cli/progress_display.h"

#include <spdlog/sinks/base_sink.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>

#include "tide/base/strings.h"
#include "tide/base/thread_name.h"
#include "tide/postgres/lsn.h"

namespace tide::cli {
namespace {

// Log and json forms print at least this often, and at every phase change.
constexpr int64_t kLogEveryMs = 10'000;
// Terminal redraws this often.
constexpr int64_t kRedrawEveryMs = 250;
// Rates are measured over about this long (shorter while the display is young).
constexpr int64_t kRateWindowMs = 2'000;
constexpr int kBarWidth = 24;

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
int64_t UnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The facts one table line shows, derived from two snapshots.
struct TableFigures {
  const TableProgress* table = nullptr;
  bool copied = false;         // its copy finished in this run
  bool copied_earlier = false;  // streaming without a copy in this run
  int percent = -1;            // of the estimate; -1: no estimate
  double rows_per_s = -1;      // -1: no rate yet
  double eta_s = -1;           // -1: unknown
};

const TableProgress* FindTable(const SyncProgressSnapshot* s, const std::string& source) {
  if (s == nullptr) return nullptr;
  for (const TableProgress& t : s->tables) {
    if (t.source == source) return &t;
  }
  return nullptr;
}

TableFigures FiguresOf(const TableProgress& t, const SyncProgressSnapshot* before, double seconds) {
  TableFigures f;
  f.table = &t;
  f.copied = t.phase == TablePhase::kStreaming && t.rows_copied > 0;
  f.copied_earlier = t.phase == TablePhase::kStreaming && t.rows_copied == 0;
  if (f.copied) {
    f.percent = 100;
  } else if (t.phase == TablePhase::kCopying && t.rows_estimate > 0) {
    // The estimate may be low: a running copy shows at most 99%.
    f.percent = static_cast<int>(std::min<int64_t>(99, t.rows_copied * 100 / t.rows_estimate));
  } else if (t.phase == TablePhase::kCopying && t.rows_estimate == 0) {
    f.percent = 99;
  }
  if (t.phase == TablePhase::kCopying && seconds > 0) {
    if (const TableProgress* b = FindTable(before, t.source)) {
      f.rows_per_s = static_cast<double>(std::max<int64_t>(0, t.rows_copied - b->rows_copied)) / seconds;
      if (f.rows_per_s > 0 && t.rows_estimate > t.rows_copied) {
        f.eta_s = static_cast<double>(t.rows_estimate - t.rows_copied) / f.rows_per_s;
      }
    }
  }
  return f;
}

std::string NameOf(const TableProgress& t) {
  // The lake name only when it says more than the source's table name.
  const std::string source_table = t.source.substr(t.source.find('.') + 1);
  const std::string target_table = t.target.substr(t.target.find('.') + 1);
  if (t.target.empty() || source_table == target_table) return t.source;
  return t.source + " -> " + t.target;
}

std::string Bar(int percent) {
  const int filled = percent < 0 ? 0 : percent * kBarWidth / 100;
  std::string bar = "[";
  for (int i = 0; i < kBarWidth; ++i) bar += i < filled ? '=' : (i == filled && percent >= 0 ? '>' : ' ');
  return bar + "]";
}

std::string FormatRate(double per_s) {
  if (per_s < 0) return "";
  if (per_s >= 1e6) return fmt::format("{:.1f}M", per_s / 1e6);
  if (per_s >= 1e4) return fmt::format("{:.0f}k", per_s / 1e3);
  if (per_s >= 1e3) return fmt::format("{:.1f}k", per_s / 1e3);
  return fmt::format("{:.0f}", per_s);
}

std::string Fit(std::string line, int width) {
  if (width > 1 && line.size() >= static_cast<size_t>(width)) line.resize(static_cast<size_t>(width - 1));
  return line;
}

std::string TableLine(const TableFigures& f, size_t name_width) {
  const TableProgress& t = *f.table;
  std::string name = NameOf(t);
  if (name.size() < name_width) name.append(name_width - name.size(), ' ');
  switch (t.phase) {
    case TablePhase::kWaiting:
      return fmt::format("{}  waiting", name);
    case TablePhase::kStreaming:
      if (f.copied_earlier) return fmt::format("{}  copied earlier, streaming", name);
      return fmt::format("{}  {} 100%  {} rows copied", name, Bar(100), FormatCount(t.rows_copied));
    case TablePhase::kCopying: {
      std::string line = fmt::format("{}  {} {}  {}", name, Bar(f.percent),
                                     f.percent < 0 ? std::string("  ?%") : fmt::format("{:>3}%", f.percent),
                                     FormatCount(t.rows_copied));
      if (t.rows_estimate > 0) line += " / ~" + FormatCount(t.rows_estimate);
      line += " rows";
      if (f.rows_per_s >= 0) line += "  " + FormatRate(f.rows_per_s) + " rows/s";
      if (f.eta_s >= 0) line += "  ETA " + FormatSeconds(f.eta_s);
      return line;
    }
  }
  return name;
}

double ChangesPerSecond(const SyncProgressSnapshot& now, const SyncProgressSnapshot* before, double seconds) {
  if (before == nullptr || seconds <= 0) return -1;
  return static_cast<double>(std::max<int64_t>(0, now.streamed_changes - before->streamed_changes)) / seconds;
}

// Bytes read from the stream but not yet acknowledged to PostgreSQL (durably committed); -1: unknown.
int64_t PendingBytes(const SyncProgressSnapshot& now) {
  if (now.received_lsn == kInvalidLsn || now.acknowledged_lsn == kInvalidLsn) return -1;
  return now.received_lsn > now.acknowledged_lsn ? static_cast<int64_t>(now.received_lsn - now.acknowledged_lsn) : 0;
}

std::string StatusLine(const SyncProgressSnapshot& now, const SyncProgressSnapshot* before, double seconds,
                       int64_t now_unix_ms) {
  std::string line = "streaming";
  const double rate = ChangesPerSecond(now, before, seconds);
  if (rate >= 0) line += fmt::format("  {} changes/s", FormatRate(rate));
  line += fmt::format("  {} changes in {} transactions", FormatCount(now.streamed_changes),
                      FormatCount(now.transactions));
  const int64_t pending = PendingBytes(now);
  if (pending >= 0) line += "  lag " + FormatBytes(static_cast<double>(pending));
  if (now.last_commit_unix_ms > 0) {
    line += "  last commit " +
            FormatSeconds(static_cast<double>(std::max<int64_t>(0, now_unix_ms - now.last_commit_unix_ms)) / 1000.0) +
            " ago";
  } else {
    line += "  no commit yet";
  }
  if (now.acknowledged_lsn != kInvalidLsn) line += " (acknowledged " + FormatLsn(now.acknowledged_lsn) + ")";
  return line;
}

std::string PhaseKey(const SyncProgressSnapshot& s) {
  std::string key = OverallPhase(s);
  for (const TableProgress& t : s.tables) key += std::string(",") + TablePhaseName(t.phase);
  return key;
}

std::string IsoTime(int64_t unix_ms) {
  std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, static_cast<int>(unix_ms % 1000));
}

}  // namespace

std::string OverallPhase(const SyncProgressSnapshot& now) {
  if (now.tables.empty()) return "starting";
  bool all_streaming = true;
  for (const TableProgress& t : now.tables) {
    if (t.phase == TablePhase::kCopying) return "copying";
    if (t.phase != TablePhase::kStreaming) all_streaming = false;
  }
  return all_streaming ? "streaming" : "starting";
}

std::string FormatCount(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string FormatBytes(double bytes) {
  if (bytes < 1000) return fmt::format("{:.0f} B", bytes);
  if (bytes < 1e6) return fmt::format("{:.1f} kB", bytes / 1e3);
  if (bytes < 1e9) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.1f} GB", bytes / 1e9);
}

std::string FormatSeconds(double seconds) {
  if (seconds < 10) return fmt::format("{:.1f}s", std::max(0.0, seconds));
  const int64_t s = static_cast<int64_t>(std::llround(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02d}s", s / 60, static_cast<int>(s % 60));
  return fmt::format("{}h{:02d}m", s / 3600, static_cast<int>((s % 3600) / 60));
}

std::vector<std::string> RenderProgressBars(const SyncProgressSnapshot& now, const SyncProgressSnapshot* before,
                                            double seconds, int64_t now_unix_ms, int width, size_t max_tables) {
  std::vector<std::string> lines;
  const std::string phase = OverallPhase(now);
  if (now.tables.empty()) {
    lines.push_back(Fit("starting: selecting tables", width));
    return lines;
  }
  std::vector<TableFigures> figures;
  for (const TableProgress& t : now.tables) figures.push_back(FiguresOf(t, before, seconds));
  // Too many tables for the screen: the copying ones first, the rest summed up.
  std::vector<const TableFigures*> shown;
  size_t hidden_copied = 0, hidden_waiting = 0, hidden_copying = 0;
  for (const TableFigures& f : figures) {
    if (f.table->phase == TablePhase::kCopying && shown.size() < max_tables) shown.push_back(&f);
  }
  for (const TableFigures& f : figures) {
    if (f.table->phase == TablePhase::kCopying) {
      if (std::find(shown.begin(), shown.end(), &f) == shown.end()) ++hidden_copying;
      continue;
    }
    if (shown.size() < max_tables && figures.size() <= max_tables) {
      shown.push_back(&f);
    } else if (f.table->phase == TablePhase::kWaiting) {
      ++hidden_waiting;
    } else {
      ++hidden_copied;
    }
  }
  // Selection order on screen.
  std::sort(shown.begin(), shown.end());
  size_t name_width = 0;
  for (const TableFigures* f : shown) name_width = std::max(name_width, NameOf(*f->table).size());
  name_width = std::min<size_t>(name_width, 48);
  for (const TableFigures* f : shown) lines.push_back(Fit(TableLine(*f, name_width), width));
  if (hidden_copied + hidden_waiting + hidden_copying > 0) {
    lines.push_back(Fit(fmt::format("... and {} more tables: {} copying, {} copied or streaming, {} waiting",
                                    hidden_copied + hidden_waiting + hidden_copying, hidden_copying, hidden_copied,
                                    hidden_waiting),
                        width));
  }
  if (phase == "streaming") lines.push_back(Fit(StatusLine(now, before, seconds, now_unix_ms), width));
  return lines;
}

std::string RenderProgressLog(const SyncProgressSnapshot& now, const SyncProgressSnapshot* before, double seconds,
                              int64_t now_unix_ms) {
  const std::string phase = OverallPhase(now);
  if (phase == "streaming") return StatusLine(now, before, seconds, now_unix_ms);
  std::vector<std::string> parts;
  size_t copied = 0, waiting = 0;
  for (const TableProgress& t : now.tables) {
    if (t.phase == TablePhase::kWaiting) ++waiting;
    if (t.phase == TablePhase::kStreaming) ++copied;
    if (t.phase != TablePhase::kCopying) continue;
    TableFigures f = FiguresOf(t, before, seconds);
    std::string part = fmt::format("{} {}", t.source, FormatCount(t.rows_copied));
    if (t.rows_estimate > 0) part += " of ~" + FormatCount(t.rows_estimate);
    part += " rows";
    if (f.percent >= 0) part += fmt::format(" ({}%)", f.percent);
    if (f.rows_per_s >= 0) part += ", " + FormatRate(f.rows_per_s) + " rows/s";
    if (f.eta_s >= 0) part += ", ETA " + FormatSeconds(f.eta_s);
    parts.push_back(part);
  }
  std::string line = fmt::format("{}: {} tables ({} copied, {} waiting)", phase, now.tables.size(), copied, waiting);
  if (!parts.empty()) line += "; " + Join(parts, "; ");
  return line;
}

std::string RenderProgressJson(const SyncProgressSnapshot& now, const SyncProgressSnapshot* before, double seconds,
                               int64_t now_unix_ms) {
  nlohmann::ordered_json j;
  j["time"] = IsoTime(now_unix_ms);
  j["event"] = "progress";
  j["phase"] = OverallPhase(now);
  j["slot"] = now.slot;
  nlohmann::ordered_json tables = nlohmann::ordered_json::array();
  for (const TableProgress& t : now.tables) {
    TableFigures f = FiguresOf(t, before, seconds);
    nlohmann::ordered_json tj;
    tj["source"] = t.source;
    tj["target"] = t.target;
    tj["phase"] = TablePhaseName(t.phase);
    tj["rows_copied"] = t.rows_copied;
    tj["rows_estimate"] = t.rows_estimate;
    tj["percent"] = f.percent >= 0 ? nlohmann::ordered_json(f.percent) : nlohmann::ordered_json(nullptr);
    tj["rows_per_second"] = f.rows_per_s >= 0 ? nlohmann::ordered_json(std::round(f.rows_per_s))
                                              : nlohmann::ordered_json(nullptr);
    tj["eta_seconds"] = f.eta_s >= 0 ? nlohmann::ordered_json(std::round(f.eta_s)) : nlohmann::ordered_json(nullptr);
    tj["changes_streamed"] = t.changes_streamed;
    tj["commits"] = t.commits;
    tj["committed_lsn"] = t.committed_lsn == kInvalidLsn ? "" : FormatLsn(t.committed_lsn);
    tables.push_back(std::move(tj));
  }
  j["tables"] = std::move(tables);
  j["transactions"] = now.transactions;
  j["streamed_changes"] = now.streamed_changes;
  const double rate = ChangesPerSecond(now, before, seconds);
  j["changes_per_second"] = rate >= 0 ? nlohmann::ordered_json(std::round(rate)) : nlohmann::ordered_json(nullptr);
  j["received_lsn"] = now.received_lsn == kInvalidLsn ? "" : FormatLsn(now.received_lsn);
  j["acknowledged_lsn"] = now.acknowledged_lsn == kInvalidLsn ? "" : FormatLsn(now.acknowledged_lsn);
  const int64_t pending = PendingBytes(now);
  j["lag_bytes"] = pending >= 0 ? nlohmann::ordered_json(pending) : nlohmann::ordered_json(nullptr);
  j["last_commit"] = now.last_commit_unix_ms > 0 ? nlohmann::ordered_json(IsoTime(now.last_commit_unix_ms))
                                                 : nlohmann::ordered_json(nullptr);
  if (!now.last_error.empty()) j["error"] = now.last_error;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string RenderLogJson(const std::string& level, const std::string& message, int64_t now_unix_ms) {
  nlohmann::ordered_json j;
  j["time"] = IsoTime(now_unix_ms);
  j["level"] = level;
  j["message"] = message;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string RedrawSequence(size_t previous_lines, const std::string& above, const std::vector<std::string>& lines) {
  std::string out;
  // Back to the first bar line, and clear from there to the end of the screen.
  if (previous_lines > 0) out += fmt::format("\x1b[{}A", previous_lines);
  out += "\r\x1b[J";
  out += above;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

namespace {

// Forwards spdlog messages to the display, which prints them above the bars.
class DisplaySink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit DisplaySink(ProgressDisplay* display) : display_(display) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const auto level = spdlog::level::to_string_view(msg.level);
    display_->Print(std::string(level.data(), level.size()), std::string(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  ProgressDisplay* display_;
};

}  // namespace

ProgressForm ProgressDisplay::FormFor(bool json, int fd) {
  if (json) return ProgressForm::kJson;
  const char* term = std::getenv("TERM");
  if (::isatty(fd) == 1 && !(term != nullptr && std::string(term) == "dumb")) return ProgressForm::kTerminal;
  return ProgressForm::kLog;
}

ProgressDisplay::ProgressDisplay(std::shared_ptr<SyncProgress> progress, ProgressForm form, int fd)
    : progress_(std::move(progress)), form_(form), fd_(fd) {
  thread_ = std::thread([this] { Loop(); });
}

ProgressDisplay::~ProgressDisplay() { Stop(); }

std::shared_ptr<spdlog::sinks::sink> ProgressDisplay::LogSink() { return std::make_shared<DisplaySink>(this); }

void ProgressDisplay::WriteAll(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // stderr is gone: nothing to show progress on
    done += static_cast<size_t>(n);
  }
}

void ProgressDisplay::Print(const std::string& level, const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  switch (form_) {
    case ProgressForm::kJson:
      WriteAll(RenderLogJson(level, message, UnixMs()) + "\n");
      return;
    case ProgressForm::kLog:
      WriteAll("tide sync: " + (level == "info" ? std::string() : level + ": ") + message + "\n");
      return;
    case ProgressForm::kTerminal: {
      // Above the bars: clear them, print, draw them again.
      const std::string line = "tide sync: " + (level == "info" ? std::string() : level + ": ") + message + "\n";
      if (stopped_ || samples_.empty()) {
        WriteAll(RedrawSequence(drawn_lines_, line, {}));
        drawn_lines_ = 0;
        return;
      }
      const Sample& newest = samples_.back();
      const Sample* base = RateBase(newest.steady_ms);
      struct winsize ws {};
      const int width = ::ioctl(fd_, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 100;
      std::vector<std::string> lines = RenderProgressBars(
          newest.snapshot, base ? &base->snapshot : nullptr,
          base ? static_cast<double>(newest.steady_ms - base->steady_ms) / 1000.0 : 0, UnixMs(), width);
      WriteAll(RedrawSequence(drawn_lines_, line, lines));
      drawn_lines_ = lines.size();
      return;
    }
  }
}

const ProgressDisplay::Sample* ProgressDisplay::RateBase(int64_t now_steady_ms) const {
  // The oldest sample within the window, at least 200 ms old (younger ones give jumpy rates).
  for (const Sample& s : samples_) {
    const int64_t age = now_steady_ms - s.steady_ms;
    if (age <= kRateWindowMs && age >= 200) return &s;
  }
  return nullptr;
}

void ProgressDisplay::Draw(bool final_draw) {
  const int64_t now_steady = SteadyMs();
  samples_.push_back(Sample{now_steady, progress_->Snapshot()});
  while (samples_.size() > 2 && now_steady - samples_[1].steady_ms > kRateWindowMs) samples_.erase(samples_.begin());
  const Sample& newest = samples_.back();
  const Sample* base = RateBase(now_steady);
  const SyncProgressSnapshot* before = base ? &base->snapshot : nullptr;
  const double seconds = base ? static_cast<double>(now_steady - base->steady_ms) / 1000.0 : 0;
  const int64_t now_unix = UnixMs();
  if (form_ == ProgressForm::kTerminal) {
    struct winsize ws {};
    const int width = ::ioctl(fd_, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 100;
    std::vector<std::string> lines = RenderProgressBars(newest.snapshot, before, seconds, now_unix, width);
    WriteAll(RedrawSequence(drawn_lines_, "", lines));
    drawn_lines_ = lines.size();
    return;
  }
  const std::string key = PhaseKey(newest.snapshot);
  if (!final_draw && key == last_phase_key_ && now_steady - last_print_steady_ms_ < kLogEveryMs) return;
  if (newest.snapshot.tables.empty() && !final_draw) return;  // nothing to say yet
  last_phase_key_ = key;
  last_print_steady_ms_ = now_steady;
  if (form_ == ProgressForm::kJson) {
    WriteAll(RenderProgressJson(newest.snapshot, before, seconds, now_unix) + "\n");
  } else {
    WriteAll("tide sync: " + RenderProgressLog(newest.snapshot, before, seconds, now_unix) + "\n");
  }
}

void ProgressDisplay::Loop() {
  SetCurrentThreadName("tide-progress");
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    Draw(false);
    wake_.wait_for(lock, std::chrono::milliseconds(kRedrawEveryMs), [this] { return stop_; });
  }
}

void ProgressDisplay::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  Draw(true);
  // The bars stay on screen as the last state; later output goes below them.
  drawn_lines_ = 0;
  stopped_ = true;
}

}  // namespace tide::cli
