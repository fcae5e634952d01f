// WriteNewFile: a file with a unique name, written under that name and fsynced, as Java Paimon writes
// its data and manifest files: no temporary file, no rename, so a commit round costs one fsync per file
// instead of two. Its folder is not synced: a commit must sync the folder (SyncLocalDirectory) before
// any snapshot lists the file. A crash may leave a partial file, an orphan that nothing lists.
//
// Thread-safety: as the FileSystem given.
#pragma once

#include <string>
#include <string_view>

#include "tide/base/status.h"
#include "tide/io/file_system.h"

namespace tide {

// AlreadyExists if `path` exists (a file with a unique name is never replaced). Creates a missing
// folder. On failure nothing is left at `path`.
Status WriteNewFile(FileSystem* fs, const std::string& path, std::string_view data);


}  // namespace tide
