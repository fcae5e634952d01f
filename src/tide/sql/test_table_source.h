// TestTableSource: an in-memory TableSource for the bridge's tests (not used by Tide itself).
//
// Tables are rows the test writes by hand, per snapshot. The source records every ReadOptions it gets,
// so tests can see what DuckDB's projection pushdown asked for, and can make readers fail mid-scan.
// Thread-safety: guarded by a mutex (DuckDB calls in from its worker threads).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tide/sql/table_source.h"

namespace tide {

struct TestTable {
  TableSchema schema;     // the latest schema
  std::vector<Row> rows;  // the latest snapshot's rows
  // Older snapshots by id: their schema and rows.
  std::map<int64_t, std::pair<TableSchema, std::vector<Row>>> snapshots;
  std::map<std::string, int64_t> tags;
  std::vector<Snapshot> snapshot_files;  // what ListSnapshots returns
  size_t batch_rows = 1000;              // at most this many rows per NextBatch
  int fail_after_batches = -1;           // >= 0: NextBatch fails after that many batches
  bool empty_batches = false;            // interleave empty (but not final) batches
};

class TestTableSource final : public TableSource {
 public:
  void Add(const std::string& database, const std::string& table, TestTable t) {
    std::lock_guard<std::mutex> lock(mu_);
    tables_[{database, table}] = std::move(t);
  }

  std::vector<ReadOptions> reads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reads_;
  }

  Result<std::vector<std::string>> ListDatabases() const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& [key, t] : tables_) {
      if (out.empty() || out.back() != key.first) out.push_back(key.first);
    }
    return out;
  }

  Result<std::vector<std::string>> ListTables(const std::string& database) const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& [key, t] : tables_) {
      if (key.first == database) out.push_back(key.second);
    }
    return out;
  }

  Result<TableSchema> ReadSchema(const TableIdentifier& id, const SnapshotSelector& selector) const override {
    std::lock_guard<std::mutex> lock(mu_);
    TIDE_ASSIGN_OR_RETURN(const TestTable* t, Find(id));
    TIDE_ASSIGN_OR_RETURN(auto picked, Pick(*t, id, selector));
    return picked.first;
  }

  Result<std::unique_ptr<TableReader>> NewReader(const TableIdentifier& id, const ReadOptions& options) const override {
    std::lock_guard<std::mutex> lock(mu_);
    reads_.push_back(options);
    TIDE_ASSIGN_OR_RETURN(const TestTable* t, Find(id));
    TIDE_ASSIGN_OR_RETURN(auto picked, Pick(*t, id, options.snapshot));
    const auto& [schema, rows] = picked;
    std::vector<int> columns = options.projection;
    if (columns.empty() && options.all_columns) {
      for (size_t i = 0; i < schema.fields.size(); ++i) columns.push_back(static_cast<int>(i));
    }
    auto reader = std::make_unique<Reader>();
    for (int c : columns) reader->fields_.push_back(schema.fields.at(c));
    for (const Row& row : rows) {
      Row projected;
      for (int c : columns) projected.push_back(row.at(c));
      reader->rows_.push_back(std::move(projected));
    }
    reader->batch_rows_ = t->batch_rows;
    reader->fail_after_batches_ = t->fail_after_batches;
    reader->empty_batches_ = t->empty_batches;
    return std::unique_ptr<TableReader>(std::move(reader));
  }

  Result<std::vector<Snapshot>> ListSnapshots(const TableIdentifier& id) const override {
    std::lock_guard<std::mutex> lock(mu_);
    TIDE_ASSIGN_OR_RETURN(const TestTable* t, Find(id));
    return t->snapshot_files;
  }

  Result<std::vector<TableSchema>> ListSchemas(const TableIdentifier& id) const override {
    std::lock_guard<std::mutex> lock(mu_);
    TIDE_ASSIGN_OR_RETURN(const TestTable* t, Find(id));
    return std::vector<TableSchema>{t->schema};
  }

 private:
  class Reader final : public TableReader {
   public:
    const std::vector<DataField>& fields() const override { return fields_; }
    Result<bool> NextBatch(size_t max_rows, std::vector<Row>* out) override {
      if (fail_after_batches_ >= 0 && batches_ >= fail_after_batches_) {
        return Status::IOError("data file bucket-0/data-1.parquet: read failed (injected)");
      }
      ++batches_;
      if (empty_batches_ && batches_ % 2 == 1 && next_ < rows_.size()) return true;
      if (next_ >= rows_.size()) return false;
      size_t n = std::min({max_rows, batch_rows_, rows_.size() - next_});
      out->insert(out->end(), rows_.begin() + next_, rows_.begin() + next_ + n);
      next_ += n;
      return true;
    }
    std::vector<DataField> fields_;
    std::vector<Row> rows_;
    size_t next_ = 0;
    size_t batch_rows_ = 1000;
    int fail_after_batches_ = -1;
    int batches_ = 0;
    bool empty_batches_ = false;
  };

  Result<const TestTable*> Find(const TableIdentifier& id) const {
    auto it = tables_.find({id.database, id.table});
    if (it == tables_.end()) return Status::NotFound("table {} does not exist in the test warehouse", id.ToString());
    return &it->second;
  }

  Result<std::pair<TableSchema, std::vector<Row>>> Pick(const TestTable& t, const TableIdentifier& id,
                                                        const SnapshotSelector& selector) const {
    std::optional<int64_t> snapshot = selector.snapshot_id;
    if (selector.tag) {
      auto tag = t.tags.find(*selector.tag);
      if (tag == t.tags.end()) return Status::NotFound("table {} has no tag '{}'", id.ToString(), *selector.tag);
      snapshot = tag->second;
    }
    if (selector.timestamp_ms) snapshot = *selector.timestamp_ms / 1000;  // test convention: id = seconds
    if (!snapshot) return std::make_pair(t.schema, t.rows);
    auto it = t.snapshots.find(*snapshot);
    if (it == t.snapshots.end()) return Status::NotFound("table {} has no snapshot {}", id.ToString(), *snapshot);
    return it->second;
  }

  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, TestTable> tables_;
  mutable std::vector<ReadOptions> reads_;
};

}  // namespace tide
