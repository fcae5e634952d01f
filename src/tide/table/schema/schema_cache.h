// SchemaCache: the table's schemas by id, each read from `schema/schema-<id>` once. Readers and
// compaction meet data files written under older schemas and need each file's own schema to map its
// columns by field id. Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/types/table_schema.h"

namespace tide {

class SchemaCache {
 public:
  // `known` (the schema being read or written) is served without a file read.
  SchemaCache(FileSystem* fs, const std::string& metadata_path, const TableSchema& known) : manager_(fs, metadata_path) {
    cache_.emplace(known.id, known);
  }
  Result<const TableSchema*> Get(int64_t id) {
    auto it = cache_.find(id);
    if (it == cache_.end()) {
      TIDE_ASSIGN_OR_RETURN(TableSchema s, manager_.Get(id));
      it = cache_.emplace(id, std::move(s)).first;
    }
    return &it->second;
  }

 private:
  SchemaManager manager_;
  std::map<int64_t, TableSchema> cache_;  // node-based: pointers handed out stay valid
};

}  // namespace tide
