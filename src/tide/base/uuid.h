// Random (version 4) UUIDs: the unique part of data, manifest and index file names, and commit users.
//
// Drawn from the system's entropy source on every call, so forked processes never repeat one.
// Thread-safety: safe to call from any thread.
#pragma once

#include <string>

namespace tide {

// A random (version 4) UUID in its canonical lower-case text form.
std::string RandomUuidString();

}  // namespace tide
