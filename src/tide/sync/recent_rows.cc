#include "tide/sync/recent_rows.h"

namespace tide {
namespace {

// A rough size of a row in memory: the values plus what their strings hold.
int64_t ApproximateBytes(const std::string& key, const std::optional<Row>& row) {
  int64_t bytes = static_cast<int64_t>(key.size()) + 64;
  if (!row) return bytes;
  for (const Datum& v : *row) {
    bytes += static_cast<int64_t>(sizeof(Datum));
    if (v.storage().index() == 7) bytes += static_cast<int64_t>(v.as_string().size());
  }
  return bytes;
}

}  // namespace

RecentRows::Found RecentRows::Find(const std::string& key, Row* row) const {
  auto it = rows_.find(key);
  if (it == rows_.end()) return Found::kUnknown;
  if (!it->second) return Found::kDeleted;
  *row = *it->second;
  return Found::kRow;
}

void RecentRows::Store(const std::string& key, std::optional<Row> row) {
  if (!complete_) return;  // dropped already: nothing is trusted until the next commit
  const int64_t added = ApproximateBytes(key, row);
  auto [it, inserted] = rows_.try_emplace(key);
  if (!inserted) bytes_ -= ApproximateBytes(key, it->second);
  it->second = std::move(row);
  bytes_ += added;
  if (bytes_ > budget_bytes_) {
    rows_.clear();
    bytes_ = 0;
    complete_ = false;
  }
}

void RecentRows::Put(const std::string& key, const Row& row) { Store(key, row); }

void RecentRows::PutDeleted(const std::string& key) { Store(key, std::nullopt); }

void RecentRows::Reset(bool lake_empty) {
  rows_.clear();
  bytes_ = 0;
  complete_ = true;
  lake_empty_ = lake_empty;
}

}  // namespace tide
