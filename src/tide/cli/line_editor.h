// LineEditor: reads the lines of the interactive `tide sql` shell from a terminal with editing and
// history, through libedit (BSD editline: Emacs keys by default, `bind -v` in ~/.editrc for vi keys,
// Ctrl-R to search the history).
//
// History is kept in a file (HistoryPathFromEnvironment) that is read when the editor opens and
// rewritten, owner-readable only, after every entry added, so a shell that is killed keeps what was
// typed. A Ctrl-C while a line is being typed (the InterruptWatcher's prompt wakeup) drops the line:
// ReadLine returns kInterrupted and the caller prompts again.
//
// Thread-safety: one thread uses a LineEditor. Invariant: libedit's handles live as long as the
// editor and are freed with it (the terminal is restored after every ReadLine).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "tide/base/result.h"

namespace tide::cli {

// The history file: $TIDE_HISTORY when set (empty: keep no history file), else $HOME/.tide_history,
// else none.
std::optional<std::string> HistoryPathFromEnvironment();

class LineEditor {
 public:
  // Opens on stdin/stdout (which must be a terminal); `wake_fd` (the InterruptWatcher's prompt wakeup,
  // or -1) ends a ReadLine as kInterrupted when it becomes readable. `history_path`: see above; an
  // unreadable history file is reported in `*warning` and the editor starts with an empty history.
  static Result<std::unique_ptr<LineEditor>> Open(int wake_fd, std::optional<std::string> history_path,
                                                  std::string* warning);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  enum class ReadKind { kLine, kInterrupted, kEnd };
  struct ReadResult {
    ReadKind kind = ReadKind::kEnd;
    std::string line;  // kLine: the line without its newline
  };
  // Shows `prompt` and reads one line. kEnd: Ctrl-D on an empty line, or the terminal went away.
  ReadResult ReadLine(const std::string& prompt);

  // Adds `entry` (one line, or a statement of several) to the history and saves the history file.
  // Returns a message when the file could not be written (the entry is still in memory).
  std::optional<std::string> AddHistory(const std::string& entry);

  struct Handles;  // libedit's EditLine and History (public for the C callbacks)

 private:
  LineEditor() = default;

  std::unique_ptr<Handles> handles_;
  std::optional<std::string> history_path_;
  bool history_save_failed_ = false;  // say so once
};

}  // namespace tide::cli
