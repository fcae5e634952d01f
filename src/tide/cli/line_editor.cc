#include "tide/cli/line_editor.h"

#include <fcntl.h>
#include <histedit.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cwchar>

namespace tide::cli {

struct LineEditor::Handles {
  EditLine* el = nullptr;
  History* history = nullptr;
  std::string prompt;
  int wake_fd = -1;
  bool interrupted = false;

  ~Handles() {
    if (el != nullptr) el_end(el);
    if (history != nullptr) history_end(history);
  }
};

namespace {

constexpr int kHistorySize = 2000;

LineEditor::Handles* HandlesOf(EditLine* el) {
  void* data = nullptr;
  el_get(el, EL_CLIENTDATA, &data);
  return static_cast<LineEditor::Handles*>(data);
}

char* Prompt(EditLine* el) { return HandlesOf(el)->prompt.data(); }

// libedit's character reader, replaced so that a Ctrl-C (the watcher's wakeup byte) ends the read: waits
// for the terminal or the wakeup, then decodes one character of the terminal's multibyte encoding.
// Returns 1 with a character, 0 at end of input, -1 on a Ctrl-C or an error.
int ReadChar(EditLine* el, wchar_t* out) {
  LineEditor::Handles* handles = HandlesOf(el);
  std::mbstate_t state = {};
  while (true) {
    struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {handles->wake_fd, POLLIN, 0}};
    int nfds = handles->wake_fd >= 0 ? 2 : 1;
    if (::poll(fds, nfds, -1) < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (nfds == 2 && fds[1].revents != 0) {
      handles->interrupted = true;
      return -1;
    }
    if (fds[0].revents == 0) continue;
    char byte;
    ssize_t n = ::read(STDIN_FILENO, &byte, 1);
    if (n == 0) return 0;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return -1;
    }
    size_t decoded = std::mbrtowc(out, &byte, 1, &state);
    if (decoded == static_cast<size_t>(-2)) continue;  // more bytes of this character to come
    if (decoded == static_cast<size_t>(-1)) {          // not valid in the encoding: pass the byte on
      *out = static_cast<wchar_t>(static_cast<unsigned char>(byte));
    }
    return 1;
  }
}

}  // namespace

std::optional<std::string> HistoryPathFromEnvironment() {
  if (const char* path = std::getenv("TIDE_HISTORY"); path != nullptr) {
    if (*path == '\0') return std::nullopt;
    return std::string(path);
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.tide_history";
  }
  return std::nullopt;
}

Result<std::unique_ptr<LineEditor>> LineEditor::Open(int wake_fd, std::optional<std::string> history_path,
                                                     std::string* warning) {
  // libedit decodes and displays in the terminal's encoding (UTF-8 for most): take it from the environment.
  std::setlocale(LC_CTYPE, "");
  std::unique_ptr<LineEditor> editor(new LineEditor());
  editor->handles_ = std::make_unique<Handles>();
  Handles& h = *editor->handles_;
  h.wake_fd = wake_fd;
  h.history = history_init();
  if (h.history == nullptr) return Status::Internal("libedit: cannot create the history");
  HistEvent event;
  history(h.history, &event, H_SETSIZE, kHistorySize);
  history(h.history, &event, H_SETUNIQUE, 1);
  h.el = el_init("tide", stdin, stdout, stderr);
  if (h.el == nullptr) return Status::Internal("libedit: cannot open the terminal for editing");
  el_set(h.el, EL_CLIENTDATA, &h);
  el_set(h.el, EL_EDITOR, "emacs");
  el_set(h.el, EL_PROMPT, &Prompt);
  el_set(h.el, EL_HIST, history, h.history);
  el_set(h.el, EL_GETCFN, &ReadChar);
  el_set(h.el, EL_BIND, "^R", "em-inc-search-prev", nullptr);
  el_source(h.el, nullptr);  // the user's ~/.editrc, if any
  editor->history_path_ = std::move(history_path);
  if (editor->history_path_ && ::access(editor->history_path_->c_str(), F_OK) == 0 &&
      history(h.history, &event, H_LOAD, editor->history_path_->c_str()) < 0) {
    *warning = "cannot read the history file " + *editor->history_path_ + "; starting with an empty history";
  }
  return editor;
}

LineEditor::~LineEditor() = default;

LineEditor::ReadResult LineEditor::ReadLine(const std::string& prompt) {
  Handles& h = *handles_;
  h.prompt = prompt;
  h.interrupted = false;
  // Raw mode before the prompt shows (libedit would set it at the first key): in cooked mode the terminal
  // itself would echo keys typed right after the prompt, and libedit echo them again.
  el_set(h.el, EL_PREP_TERM, 1);
  int count = 0;
  const char* line = el_gets(h.el, &count);
  ReadResult result;
  if (h.interrupted) {
    el_reset(h.el);
    std::fputs("^C\n", stdout);
    std::fflush(stdout);
    result.kind = ReadKind::kInterrupted;
    return result;
  }
  if (line == nullptr || count <= 0) {
    result.kind = ReadKind::kEnd;
    return result;
  }
  result.kind = ReadKind::kLine;
  result.line.assign(line, static_cast<size_t>(count));
  if (!result.line.empty() && result.line.back() == '\n') result.line.pop_back();
  return result;
}

std::optional<std::string> LineEditor::AddHistory(const std::string& entry) {
  HistEvent event;
  history(handles_->history, &event, H_ENTER, entry.c_str());
  if (!history_path_) return std::nullopt;
  // Written whole to a private file beside it, then renamed over it: never half a file, never readable
  // by others (statements may name what others should not see).
  std::string temp = *history_path_ + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bool ok = false;
  if (fd >= 0) {
    if (FILE* file = ::fdopen(fd, "w"); file != nullptr) {
      ok = history(handles_->history, &event, H_SAVE_FP, file) >= 0;
      ok = (std::fclose(file) == 0) && ok;
    } else {
      ::close(fd);
    }
    ok = ok && std::rename(temp.c_str(), history_path_->c_str()) == 0;
    if (!ok) ::unlink(temp.c_str());
  }
  if (ok || history_save_failed_) return std::nullopt;
  history_save_failed_ = true;
  return "cannot write the history file " + *history_path_ + ": " + std::strerror(errno);
}

}  // namespace tide::cli
