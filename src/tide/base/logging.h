// Logging: spdlog, configured once per process. Messages go to stderr so that stdout stays clean for
// query results and `tide pg tail` output. Thread-safety: spdlog's default logger is thread-safe.
#pragma once

#include <spdlog/spdlog.h>

namespace tide {

enum class LogLevel { kDebug, kInfo, kWarn, kError, kOff };

// Sets the level of the process-wide logger (stderr). Call once at start-up.
void InitLogging(LogLevel level);

}  // namespace tide

#define TIDE_LOG_DEBUG(...) ::spdlog::debug(__VA_ARGS__)
#define TIDE_LOG_INFO(...) ::spdlog::info(__VA_ARGS__)
#define TIDE_LOG_WARN(...) ::spdlog::warn(__VA_ARGS__)
#define TIDE_LOG_ERROR(...) ::spdlog::error(__VA_ARGS__)
