// Status: the outcome of an operation that returns no value; an error code and a message.
//
// Errors are values in Tide: no exception crosses a module boundary. A message names what failed (the
// file, table or column) and, where it helps, what to do about it. Status is a small value type:
// copyable, movable, and safe to use from any thread (it holds no shared state).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace tide {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,  // the caller asked for something malformed or impossible
  kNotFound = 2,         // a file, table, snapshot or key does not exist
  kAlreadyExists = 3,    // an exclusive create found the target present
  kCorruption = 4,       // stored data does not decode as its format says
  kIOError = 5,          // the operating system refused a read, write or rename
  kNotSupported = 6,     // valid input that uses a feature Tide does not implement
  kConflict = 7,         // a concurrent writer changed what this operation depended on
  kUnavailable = 8,      // a remote service (PostgreSQL) cannot be reached right now
  kInternal = 9,         // a broken invariant inside Tide: a bug
  kAborted = 10,         // the operation was cancelled
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  template <typename... Args>
  static Status InvalidArgument(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kInvalidArgument, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status NotFound(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kNotFound, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status AlreadyExists(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kAlreadyExists, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Corruption(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kCorruption, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status IOError(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kIOError, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status NotSupported(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kNotSupported, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Conflict(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kConflict, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Unavailable(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kUnavailable, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Internal(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kInternal, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Aborted(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kAborted, fmt::format(f, std::forward<Args>(args)...));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  bool IsNotFound() const { return code_ == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code_ == StatusCode::kAlreadyExists; }
  bool IsCorruption() const { return code_ == StatusCode::kCorruption; }
  bool IsNotSupported() const { return code_ == StatusCode::kNotSupported; }
  bool IsConflict() const { return code_ == StatusCode::kConflict; }
  bool IsIOError() const { return code_ == StatusCode::kIOError; }
  bool IsInvalidArgument() const { return code_ == StatusCode::kInvalidArgument; }
  bool IsUnavailable() const { return code_ == StatusCode::kUnavailable; }

  // Returns a copy whose message is "<context>: <message>", keeping the code. Used to add the file or
  // table name as an error travels up.
  Status WithContext(std::string_view context) const;

  // Marks a deliberately ignored outcome (best-effort cleanup after another error).
  void IgnoreError() const {}

  // "Corruption: <message>", or "OK".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace tide

// Returns the Status of `expr` from the enclosing function if it is not OK.
#define TIDE_RETURN_IF_ERROR(expr)                 \
  do {                                             \
    ::tide::Status _tide_status = (expr);          \
    if (!_tide_status.ok()) return _tide_status;   \
  } while (false)
