// ProgressDisplay: how `tide sync postgres` shows a running sync on stderr, from SyncProgress
// (sync/sync_progress.h). Three forms:
//  - terminal (stderr is a tty): one live bar per table during the copy (rows, percent of PostgreSQL's
//    estimate, rate, ETA), then a status line while streaming (changes/s, lag, last commit), redrawn in
//    place every 250 ms with ANSI cursor-up and clear; log lines are printed above the bars;
//  - log: plain lines with the same facts every 10 s and at each phase change;
//  - json: the same, one JSON object per line (log lines too), for machines.
//
// The Render* functions are pure (a snapshot, the one `seconds` earlier for rates, the wall clock) and
// unit-tested; ProgressDisplay owns the thread that draws them.
//
// Invariant: in terminal form, the screen below the last line printed through Print (or the logger
// sink) is the bars' alone; every write to stderr while the display runs goes through it, under its
// mutex, as one write(2), so bars and log lines never interleave.
// Thread-safety: Print, the logger sink and Stop may be called from any thread.
#pragma once

#include <spdlog/sinks/sink.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tide/sync/sync_progress.h"

namespace tide::cli {

enum class ProgressForm { kTerminal, kLog, kJson };

// What the sync as a whole is doing: "starting" (nothing published yet, or tables waiting), "copying"
// (some table's copy runs), "streaming" (every table copied and following the stream).
std::string OverallPhase(const SyncProgressSnapshot& now);

// The terminal lines for `now`: a bar per table (at most `max_tables`; the rest summed up in a line),
// then, once streaming, the status line. `before` is the snapshot `seconds` earlier (rates; nullptr:
// none yet). Every line fits in `width` columns (so that cursor-up counts stay right).
std::vector<std::string> RenderProgressBars(const SyncProgressSnapshot& now, const SyncProgressSnapshot* before,
                                            double seconds, int64_t now_unix_ms, int width, size_t max_tables = 10);
// One plain log line with the same facts.
std::string RenderProgressLog(const SyncProgressSnapshot& now, const SyncProgressSnapshot* before, double seconds,
                              int64_t now_unix_ms);
// One JSON object (no newline) with the same facts: {"event":"progress","phase":...,"tables":[...],...}.
std::string RenderProgressJson(const SyncProgressSnapshot& now, const SyncProgressSnapshot* before, double seconds,
                               int64_t now_unix_ms);
// A log message as one JSON object: {"time":...,"level":...,"message":...}.
std::string RenderLogJson(const std::string& level, const std::string& message, int64_t now_unix_ms);
// The bytes that replace `previous_lines` lines of bars just above the cursor with `lines`, printing
// `above` (complete lines, each ending in '\n') before them.
std::string RedrawSequence(size_t previous_lines, const std::string& above, const std::vector<std::string>& lines);

// "1,234,567".
std::string FormatCount(int64_t n);
// "950 B", "12.3 kB", "4.5 MB", "1.2 GB".
std::string FormatBytes(double bytes);
// "45s", "3m05s", "2h04m".
std::string FormatSeconds(double seconds);

class ProgressDisplay {
 public:
  // Draws `progress` on file descriptor `fd` (stderr) in `form`; starts its thread.
  ProgressDisplay(std::shared_ptr<SyncProgress> progress, ProgressForm form, int fd = 2);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  // The form for stderr: terminal when it is a tty (and TERM is not "dumb"), else log; json when asked.
  static ProgressForm FormFor(bool json, int fd = 2);

  // Prints a message: above the bars (terminal), as is (log), as a JSON object (json).
  void Print(const std::string& level, const std::string& message);
  // A spdlog sink that prints through Print (install it while the display runs).
  std::shared_ptr<spdlog::sinks::sink> LogSink();
  // Draws the final state once and ends the thread (idempotent; the destructor calls it).
  void Stop();

 private:
  struct Sample {
    int64_t steady_ms;
    SyncProgressSnapshot snapshot;
  };
  void Loop();
  void Draw(bool final_draw);  // REQUIRES: mu_ held
  void WriteAll(const std::string& bytes);
  // The sample about 2 s older than the newest (for smooth rates), or nullptr.
  const Sample* RateBase(int64_t now_steady_ms) const;

  std::shared_ptr<SyncProgress> progress_;
  const ProgressForm form_;
  const int fd_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool stopped_ = false;
  size_t drawn_lines_ = 0;     // terminal: bar lines currently on screen below the cursor's line start
  std::string last_phase_key_;  // log/json: the phases last printed
  int64_t last_print_steady_ms_ = 0;
  std::vector<Sample> samples_;  // the last few seconds of snapshots, oldest first
  std::thread thread_;
};

}  // namespace tide::cli
