#include "tide/sync/sync_progress.h"

namespace tide {

const char* TablePhaseName(TablePhase phase) {
  switch (phase) {
    case TablePhase::kWaiting: return "waiting";
    case TablePhase::kCopying: return "copying";
    case TablePhase::kStreaming: return "streaming";
  }
  return "unknown";
}

void DurationHistogram::Observe(double seconds) {
  size_t i = 0;
  while (i < kBoundsSeconds.size() && seconds > kBoundsSeconds[i]) ++i;
  ++counts[i];
  ++count;
  sum_seconds += seconds;
}

TableProgress& SyncProgress::TableOf(SyncProgressSnapshot& state, const std::string& source,
                                     const std::string& target) {
  for (TableProgress& t : state.tables) {
    if (t.source == source) {
      if (!target.empty()) t.target = target;
      return t;
    }
  }
  state.tables.push_back(TableProgress{source, target});
  return state.tables.back();
}

}  // namespace tide
