#include "tide/base/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace tide {

void InitLogging(LogLevel level) {
  // Commands set logging up inside their callbacks and Main again after parsing: reuse the logger.
  auto logger = spdlog::get("tide");
  if (!logger) logger = spdlog::stderr_color_mt("tide");
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
  spdlog::set_default_logger(logger);
  switch (level) {
    case LogLevel::kDebug: spdlog::set_level(spdlog::level::debug); break;
    case LogLevel::kInfo: spdlog::set_level(spdlog::level::info); break;
    case LogLevel::kWarn: spdlog::set_level(spdlog::level::warn); break;
    case LogLevel::kError: spdlog::set_level(spdlog::level::err); break;
    case LogLevel::kOff: spdlog::set_level(spdlog::level::off); break;
  }
}

}  // namespace tide
