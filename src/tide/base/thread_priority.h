// Background threads' CPU priority: work that may wait (compaction, expiry) yields the CPU to the work a
// user waits for (the sync's stream and its commits, PostgreSQL beside it on the same cores), as
// RocksDB lowers its compaction threads' priority.
//
// On Linux the nice value is a thread's own (setpriority on a thread id), so only the calling thread
// changes. A background thread still gets its share when the machine is busy (nice 10 weighs about a
// tenth of nice 0), and all the CPU when it is idle; a writer that waits for its compaction (the stop
// trigger) blocks, which leaves the CPU to it.
// Thread-safety: affects the calling thread only.
#pragma once

namespace tide {

// The nice increment of background threads.
inline constexpr int kBackgroundNiceIncrement = 10;

// Raises the calling thread's nice value by `increment` (lowers its priority). Best effort: a failure
// (a sandbox without setpriority) leaves the priority as it was.
void LowerCurrentThreadPriority(int increment = kBackgroundNiceIncrement);

}  // namespace tide
