// RecentRows: the newest row a sink wrote for each primary key since its last commit, so that an
// UPDATE whose unchanged TOASTed values PostgreSQL did not send (`u` in pgoutput) can take them from
// the row's current value: the newest row here, else the committed row in the lake (DESIGN.md §2.6).
//
// Memory is bounded by `budget_bytes`: past it the rows are dropped and the set is marked incomplete
// (a key it lacks may then have been written since the last commit); the sink commits its whole
// transactions first and then reads the lake, which is exact again. Keys are the BinaryRow bytes of
// the target primary key; a deleted key is remembered as deleted.
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tide/types/datum.h"

namespace tide {

class RecentRows {
 public:
  explicit RecentRows(int64_t budget_bytes) : budget_bytes_(budget_bytes) {}

  enum class Found { kRow, kDeleted, kUnknown };
  // What the set knows of `key`: its newest row (in *row), that it was deleted, or nothing.
  Found Find(const std::string& key, Row* row) const;

  // The newest rows (not deleted ones) for which `pred` holds.
  template <typename Pred>
  std::vector<Row> RowsWhere(Pred pred) const {
    std::vector<Row> out;
    for (const auto& [key, row] : rows_) {
      if (row && pred(*row)) out.push_back(*row);
    }
    return out;
  }

  void Put(const std::string& key, const Row& row);
  void PutDeleted(const std::string& key);
  // After a commit the lake holds everything: start empty and complete. After a TRUNCATE too (the
  // caller then must not read the lake until the overwrite commits: `lake_empty`).
  void Reset(bool lake_empty = false);
  // Drops every row and marks the set incomplete (rows are being written that it does not keep).
  void Forget() {
    rows_.clear();
    bytes_ = 0;
    complete_ = false;
  }

  // Whether every key written since the last commit is here (no row was dropped for the budget).
  bool complete() const { return complete_; }
  // Whether the table was truncated since the last commit: the lake's rows are gone.
  bool lake_empty() const { return lake_empty_; }
  int64_t bytes() const { return bytes_; }

 private:
  void Store(const std::string& key, std::optional<Row> row);

  int64_t budget_bytes_;
  int64_t bytes_ = 0;
  bool complete_ = true;
  bool lake_empty_ = false;
  std::unordered_map<std::string, std::optional<Row>> rows_;  // nullopt: deleted
};

}  // namespace tide
