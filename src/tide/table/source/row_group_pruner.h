// RowGroupPruner: which row groups of a Parquet data file may hold a row matching a ScanPredicate, by the
// statistics the file's footer keeps for each column chunk (min, max, null count), as Java Paimon's
// Parquet reader filters row groups with the read's pushed predicate.
//
// Like every test of scan_predicate.h it is conservative: a row group is left out only when its
// statistics exclude every row of some condition; a statistic Tide cannot read (absent, of another
// physical type, unsigned, INT96, a string statistic written in the deprecated signed order) keeps
// the group. Whether leaving rows out is exact is the caller's business: it is for rows that are final
// (append files, deletion-vector files) or, in a merge of sorted runs, for conditions on the primary key
// only (every version of a key has the key, so a group without a matching key holds no version of a
// matching row).
//
// Thread-safety: plain values; the functions are pure, except the process-wide counters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/format/parquet_footer.h"
#include "tide/table/source/scan_predicate.h"

namespace tide {

// One condition on a column of the file: how the file names the column (its Parquet field id, then
// its name, as the readers match columns) and the condition, whose type is the column's type in the file.
struct RowGroupCondition {
  std::optional<int32_t> field_id;
  std::string column;
  ColumnPredicate predicate;
};

// One entry per row group of `footer`: false when the group's statistics show that no row of it
// satisfies every condition.
std::vector<bool> RowGroupsMayMatch(const ParquetFooter& footer, const std::vector<RowGroupCondition>& conditions);

// A statistic of a column chunk decoded as the Datum of `type` (datum.h); NULL when it cannot be read
// exactly. `element` is the column's schema element.
Datum DecodeParquetStatistic(const std::string& bytes, const ParquetSchemaElement& element, const DataType& type);

// Process-wide counts of the row groups data-file readers read and left out by their statistics, for
// tests and benchmarks (as DataFilesOpened counts files).
void CountRowGroups(int64_t read, int64_t skipped);
int64_t RowGroupsRead();
int64_t RowGroupsSkipped();

}  // namespace tide
