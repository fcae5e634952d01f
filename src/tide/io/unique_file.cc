#include "tide/io/unique_file.h"

namespace tide {

Status WriteNewFile(FileSystem* fs, const std::string& path, std::string_view data) {
  TIDE_ASSIGN_OR_RETURN(bool exists, fs->Exists(path));
  if (exists) return Status::AlreadyExists("{} already exists; a file with a unique name is never replaced", path);
  auto file = fs->NewWritableFile(path);
  if (!file.ok()) {
    // A create that failed may still have made the file: nothing may be left under a name that is ours.
    if (!file.status().IsAlreadyExists()) fs->DeleteFile(path).IgnoreError();
    return file.status();
  }
  Status s = (*file)->Append(data);
  if (s.ok()) s = (*file)->Close();  // fsyncs the bytes; the folder entry is the committer's to sync
  if (!s.ok()) fs->DeleteFile(path).IgnoreError();
  return s;
}

}  // namespace tide
