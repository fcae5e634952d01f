// IndexBootstrap: fills a GlobalIndexAssigner with every live primary key of a cross-partition update
// table, with the partition and bucket that hold it, as Java Paimon's crosspartition.IndexBootstrap
// does before the first row: a merged read of the latest snapshot, projected to the primary key, split
// by split (so each key's partition and bucket are its split's). Deleted keys are not loaded. Ends the
// assigner's bootstrap. A large table takes a while: `tick`, when given, is called after every batch of
// keys (a sync keeps its replication connection alive with it).
// Thread-safety: runs on the caller's thread; the table may be read meanwhile.
#pragma once

#include <functional>
#include <string>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/crosspartition/global_index_assigner.h"
#include "tide/types/table_schema.h"

namespace tide {

// `schema`: the table's latest schema (files of older schemas are read through it by field id).
Status BootstrapGlobalIndex(FileSystem* fs, const std::string& table_path, const std::string& table_name,
                            const TableSchema& schema, GlobalIndexAssigner* assigner,
                            const std::function<void()>& tick = {});

}  // namespace tide
