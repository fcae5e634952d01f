// InterruptWatcher: what Ctrl-C (SIGINT) does in the interactive `tide sql` shell.
//
// Creating it blocks SIGINT in the calling thread, and so in every thread created from it afterwards
// (DuckDB's workers among them, when the database is opened after the watcher), and starts one thread
// that takes SIGINT through a signalfd. No signal handler runs and no system call of the shell or of
// DuckDB is interrupted: the watcher decides, under a mutex, what the Ctrl-C means at that moment:
//
//   starting   (before the first prompt)   the process exits with 130, as an unhandled Ctrl-C would;
//   prompt     (the user is typing)        the prompt's reader is woken through prompt_wake_fd(), and
//                                          the line editor drops the line (line_editor.h);
//   query      (a statement is running)    duckdb_interrupt() on the statement's connection, so DuckDB
//                                          stops it with an INTERRUPT error and the shell goes on (and
//                                          again every 50 ms until the statement ends, since DuckDB
//                                          forgets an interrupt when its next query starts);
//   busy       (printing, anything else)   ignored.
//
// Invariant: at most one watcher exists in the process (SIGINT's disposition is process-wide).
// Thread-safety: the setters may be called from any thread; the watcher thread only reads the state
// under the same mutex.
#pragma once

#include <duckdb.h>
#include <signal.h>

#include <memory>
#include <mutex>
#include <thread>

#include "tide/base/result.h"

namespace tide::cli {

class InterruptWatcher {
 public:
  // Blocks SIGINT in the calling thread and starts the watcher, in the `starting` state.
  static Result<std::unique_ptr<InterruptWatcher>> Start();
  // Stops the watcher thread and restores the calling thread's signal mask.
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

  // Ctrl-C wakes the prompt from now on (a byte on prompt_wake_fd()).
  void EnterPrompt();
  // Ctrl-C is ignored from now on (output being written, dot commands).
  void EnterBusy();

  // While it lives, Ctrl-C interrupts `connection`'s running statement; back to `busy` after.
  class QueryScope {
   public:
    QueryScope(InterruptWatcher* watcher, duckdb_connection connection);
    ~QueryScope();
    QueryScope(const QueryScope&) = delete;
    QueryScope& operator=(const QueryScope&) = delete;
    // True when Ctrl-C interrupted the statement during this scope.
    bool interrupted() const;

   private:
    InterruptWatcher* watcher_;  // may be null: nothing to do
  };

  // Readable after a Ctrl-C at the prompt; the reader drains it with DrainPromptWakeups().
  int prompt_wake_fd() const { return wake_read_fd_; }
  void DrainPromptWakeups();

 private:
  enum class State { kStarting, kPrompt, kQuery, kBusy };
  InterruptWatcher() = default;
  void Loop();

  std::mutex mu_;
  State state_ = State::kStarting;
  duckdb_connection query_connection_ = nullptr;
  bool query_interrupted_ = false;

  int signal_fd_ = -1;
  int wake_read_fd_ = -1, wake_write_fd_ = -1;  // prompt wakeups
  int stop_read_fd_ = -1, stop_write_fd_ = -1;  // ends Loop()
  sigset_t previous_mask_ = {};
  bool restore_mask_ = false;
  std::thread thread_;
};

}  // namespace tide::cli
