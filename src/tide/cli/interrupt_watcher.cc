#include "tide/cli/interrupt_watcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tide/base/thread_name.h"

namespace tide::cli {

namespace {

constexpr int kReinterruptMs = 50;

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

Status MakePipe(int* read_fd, int* write_fd) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return Status::IOError("cannot create a pipe for Ctrl-C handling: {}", std::strerror(errno));
  }
  *read_fd = fds[0];
  *write_fd = fds[1];
  return Status::OK();
}

void WriteByte(int fd) {
  char byte = 1;
  ssize_t ignored = ::write(fd, &byte, 1);  // a full pipe already holds a wakeup
  (void)ignored;
}

}  // namespace

Result<std::unique_ptr<InterruptWatcher>> InterruptWatcher::Start() {
  std::unique_ptr<InterruptWatcher> watcher(new InterruptWatcher());
  sigset_t interrupt;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  if (int rc = ::pthread_sigmask(SIG_BLOCK, &interrupt, &watcher->previous_mask_); rc != 0) {
    return Status::IOError("cannot block SIGINT for Ctrl-C handling: {}", std::strerror(rc));
  }
  watcher->restore_mask_ = true;
  watcher->signal_fd_ = ::signalfd(-1, &interrupt, SFD_CLOEXEC);
  if (watcher->signal_fd_ < 0) {
    return Status::IOError("cannot open a signalfd for Ctrl-C handling: {}", std::strerror(errno));
  }
  TIDE_RETURN_IF_ERROR(MakePipe(&watcher->wake_read_fd_, &watcher->wake_write_fd_));
  TIDE_RETURN_IF_ERROR(MakePipe(&watcher->stop_read_fd_, &watcher->stop_write_fd_));
  watcher->thread_ = std::thread([w = watcher.get()] { w->Loop(); });
  return watcher;
}

InterruptWatcher::~InterruptWatcher() {
  if (thread_.joinable()) {
    WriteByte(stop_write_fd_);
    thread_.join();
  }
  CloseFd(&signal_fd_);
  CloseFd(&wake_read_fd_);
  CloseFd(&wake_write_fd_);
  CloseFd(&stop_read_fd_);
  CloseFd(&stop_write_fd_);
  if (restore_mask_) {
    // A Ctrl-C still pending would act on unblocking: take it first.
    sigset_t interrupt;
    sigemptyset(&interrupt);
    sigaddset(&interrupt, SIGINT);
    struct timespec no_wait = {};
    while (::sigtimedwait(&interrupt, nullptr, &no_wait) == SIGINT) {
    }
    ::pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  }
}

void InterruptWatcher::Loop() {
  SetCurrentThreadName("tide-signals");
  while (true) {
    struct pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {stop_read_fd_, POLLIN, 0}};
    int timeout_ms = -1;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (state_ == State::kQuery && query_interrupted_) timeout_ms = kReinterruptMs;
    }
    int ready = ::poll(fds, 2, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (ready == 0) {
      // DuckDB clears a connection's interrupt when its next query starts: a statement that runs
      // several queries (the rendering of its result is one) is interrupted again until it ends.
      std::lock_guard<std::mutex> lock(mu_);
      if (state_ == State::kQuery && query_interrupted_) duckdb_interrupt(query_connection_);
      continue;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    struct signalfd_siginfo info;
    if (::read(signal_fd_, &info, sizeof(info)) != static_cast<ssize_t>(sizeof(info))) continue;
    std::lock_guard<std::mutex> lock(mu_);
    switch (state_) {
      case State::kStarting:
        std::_Exit(130);  // the shell has not touched the terminal yet: end as Ctrl-C would
      case State::kPrompt:
        WriteByte(wake_write_fd_);
        break;
      case State::kQuery:
        duckdb_interrupt(query_connection_);
        query_interrupted_ = true;
        break;
      case State::kBusy:
        break;
    }
  }
}

void InterruptWatcher::EnterPrompt() {
  std::lock_guard<std::mutex> lock(mu_);
  state_ = State::kPrompt;
}

void InterruptWatcher::EnterBusy() {
  std::lock_guard<std::mutex> lock(mu_);
  state_ = State::kBusy;
}

void InterruptWatcher::DrainPromptWakeups() {
  char buffer[64];
  while (::read(wake_read_fd_, buffer, sizeof(buffer)) > 0) {
  }
}

InterruptWatcher::QueryScope::QueryScope(InterruptWatcher* watcher, duckdb_connection connection) : watcher_(watcher) {
  if (watcher_ == nullptr) return;
  std::lock_guard<std::mutex> lock(watcher_->mu_);
  watcher_->state_ = State::kQuery;
  watcher_->query_connection_ = connection;
  watcher_->query_interrupted_ = false;
}

InterruptWatcher::QueryScope::~QueryScope() {
  if (watcher_ == nullptr) return;
  std::lock_guard<std::mutex> lock(watcher_->mu_);
  watcher_->state_ = State::kBusy;
  watcher_->query_connection_ = nullptr;
}

bool InterruptWatcher::QueryScope::interrupted() const {
  if (watcher_ == nullptr) return false;
  std::lock_guard<std::mutex> lock(watcher_->mu_);
  return watcher_->query_interrupted_;
}

}  // namespace tide::cli
