// SchemaChange: one ALTER TABLE operation, and the functions that build and evolve Paimon schemas the
// way Java Paimon's SchemaManager and SchemaValidation do.
//
// Invariants kept by every function here (PAIMON_FORMAT.md §3): field ids are never reused or changed
// (an added column takes ++highestFieldId, then its nested ROW fields take the next ids in pre-order);
// highestFieldId never goes down; partition keys never change; primary-key columns are NOT NULL; a
// schema that fails validation is never written. Each committed change set becomes `schema-<id+1>`,
// created with FileSystem::WriteFileExclusive, so two concurrent ALTERs cannot both win: the loser
// gets Conflict. Thread-safety: pure functions over values, except CommitSchemaChanges, whose only
// shared state is the table folder (safe against concurrent writers as described).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/types/data_type.h"
#include "tide/types/table_schema.h"

namespace tide {

// Where ADD COLUMN or a position change puts a column: at the end (kLast), first, or after another.
struct ColumnPosition {
  enum class Kind { kLast, kFirst, kAfter };
  Kind kind = Kind::kLast;
  std::string after;  // the column to follow, for kAfter

  static ColumnPosition Last() { return {}; }
  static ColumnPosition First() { return {Kind::kFirst, ""}; }
  static ColumnPosition After(std::string column) { return {Kind::kAfter, std::move(column)}; }
};

struct SchemaChange {
  enum class Kind {
    kSetOption,
    kRemoveOption,
    kAddColumn,
    kRenameColumn,
    kDropColumn,
    kUpdateColumnType,
    kUpdateColumnPosition,
    kUpdateColumnNullability,
  };
  Kind kind = Kind::kSetOption;
  std::string name;      // the column, or the option key
  std::string new_name;  // kRenameColumn
  std::string value;     // kSetOption
  DataType type;         // kAddColumn, kUpdateColumnType
  ColumnPosition position;  // kAddColumn, kUpdateColumnPosition
  std::optional<std::string> description;  // kAddColumn
  bool nullable = true;  // kUpdateColumnNullability: the column's new nullability

  static SchemaChange SetOption(std::string key, std::string value);
  static SchemaChange RemoveOption(std::string key);
  static SchemaChange AddColumn(std::string name, DataType type, ColumnPosition position = ColumnPosition::Last(),
                                std::optional<std::string> description = std::nullopt);
  static SchemaChange RenameColumn(std::string name, std::string new_name);
  static SchemaChange DropColumn(std::string name);
  static SchemaChange UpdateColumnType(std::string name, DataType type);
  static SchemaChange UpdateColumnPosition(std::string name, ColumnPosition position);
  // Java's SchemaChange.updateColumnNullability: NOT NULL to nullable always; nullable to NOT NULL only
  // with alter-column-null-to-not-null.disabled = false (Java's default refuses it: rows may hold NULL).
  // A primary-key column cannot become nullable.
  static SchemaChange UpdateColumnNullability(std::string name, bool nullable);
};

// A column of a table being created: its type carries no field ids yet (they are assigned in order).
struct ColumnDefinition {
  std::string name;
  DataType type;
  std::optional<std::string> description;
};

// Gives `type`'s nested ROW fields fresh ids from ++*highest_field_id, in pre-order (a field before
// its children), as Java's ReassignFieldId does.
// A cast that loses no information (Java's DataTypeCasts implicit casts): widening within a family, e.g.
// INT to BIGINT, VARCHAR(10) to VARCHAR(20), DECIMAL(10, 2) to DECIMAL(12, 2).
bool IsImplicitCast(const DataType& from, const DataType& to);

DataType ReassignFieldIds(const DataType& type, int32_t* highest_field_id);

// Checks a schema as Java's Schema constructor and SchemaValidation.validateTableSchema do (the rules
// Tide can honour): unique column names, keys that name columns, primitive key types, PK != partition
// keys, bucket > 0 or -1, bucket-key rules, cross-partition updates only with bucket -1, known merge
// engine, changelog-producer only with a primary key, sequence.field present, parquet files only,
// no system column names. InvalidArgument (NotSupported for what Tide cannot do) naming `table`.
Status ValidateTableSchema(const TableSchema& schema, const std::string& table);

// Builds schema-0 for a new table: ids 0.. in column order (nested fields in pre-order), primary-key
// columns forced NOT NULL, options kept in the order given; then validated.
Result<TableSchema> NewTableSchema(const std::vector<ColumnDefinition>& columns,
                                   const std::vector<std::string>& partition_keys,
                                   const std::vector<std::string>& primary_keys,
                                   const std::vector<std::pair<std::string, std::string>>& options,
                                   const std::string& table, int64_t time_millis);

// Applies `changes` in order to `base` and returns the next schema (id + 1, `time_millis`), validated.
// `table_has_snapshots` refuses option changes Java refuses on a table that holds data (bucket).
Result<TableSchema> ApplySchemaChanges(const TableSchema& base, const std::vector<SchemaChange>& changes,
                                       bool table_has_snapshots, const std::string& table, int64_t time_millis);

// Reads the latest schema of the table at `table_path`, applies `changes` and writes `schema-<id+1>`
// exclusively. Conflict if another writer created that schema first (re-read and retry the ALTER).
Result<TableSchema> CommitSchemaChanges(FileSystem* fs, const std::string& table_path, const std::string& table,
                                        const std::vector<SchemaChange>& changes);

// Milliseconds since the epoch, for schema timeMillis.
int64_t CurrentTimeMillis();

}  // namespace tide
