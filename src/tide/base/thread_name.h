// Thread names: each of Tide's threads names itself ("tide-compact", "tide-copy-2", ...), so `top -H`,
// `ps -L`, perf and /proc/<pid>/task/<tid>/comm tell which part of the sync uses the CPU.
//
// Linux keeps at most 15 bytes of a thread's name; longer names are cut there.
// Thread-safety: affects the calling thread only.
#pragma once

#include <string_view>

namespace tide {

// Names the calling thread. Best effort: a failure leaves the name as it was.
void SetCurrentThreadName(std::string_view name);

}  // namespace tide
