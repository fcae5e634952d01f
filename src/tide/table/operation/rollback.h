// Rollback of one table to an earlier snapshot or tag, as Java's RollbackHelper does, plus the deletion
// of the files only the removed snapshots and tags referenced.
//
// Steps: the LATEST hint is set to the retained snapshot; every newer snapshot file is deleted, newest
// first; every tag of a newer snapshot is deleted; for a tag older than the earliest snapshot the tag is
// written back as snapshot-<id> and EARLIEST points at it; long-lived changelogs newer than the
// retained snapshot are deleted and changelog/LATEST set to the last one kept (-1 when none is). Then
// the files the removed snapshots and tags referenced that no remaining snapshot, tag or changelog
// references are deleted (Java leaves them to orphan removal). Stop every writer of the table first: a commit in flight on top of a removed snapshot
// would reference deleted manifests (Java has the same rule for rollback).
//
// Thread-safety: one caller at a time per table, with no writer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tide/base/result.h"
#include "tide/io/file_system.h"

namespace tide {

struct RollbackResult {
  int64_t retained_snapshot = 0;
  int64_t snapshots_deleted = 0;
  int64_t tags_deleted = 0;
  int64_t files_deleted = 0;  // data, changelog, manifest, index and statistics files
};

// Exactly one of `snapshot_id` and `tag`. NotFound (naming the snapshots or tags there are) if it does
// not exist.
Result<RollbackResult> RollbackTo(FileSystem* fs, const std::string& table_path, const std::string& table_name,
                                  std::optional<int64_t> snapshot_id, std::optional<std::string> tag);

}  // namespace tide
