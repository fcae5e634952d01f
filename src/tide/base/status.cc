#include "tide/base/status.h"

namespace tide {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "Invalid argument";
    case StatusCode::kNotFound: return "Not found";
    case StatusCode::kAlreadyExists: return "Already exists";
    case StatusCode::kCorruption: return "Corruption";
    case StatusCode::kIOError: return "IO error";
    case StatusCode::kNotSupported: return "Not supported";
    case StatusCode::kConflict: return "Conflict";
    case StatusCode::kUnavailable: return "Unavailable";
    case StatusCode::kInternal: return "Internal error";
    case StatusCode::kAborted: return "Aborted";
  }
  return "Unknown";
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, fmt::format("{}: {}", context, message_));
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return fmt::format("{}: {}", StatusCodeName(code_), message_);
}

}  // namespace tide
