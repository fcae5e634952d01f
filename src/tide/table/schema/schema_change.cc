#include "tide/table/schema/schema_change.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "tide/base/strings.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/types/cast.h"

namespace tide {

namespace {

// Options Java marks @Immutable: ALTER TABLE may not set or reset them once the table exists.
const std::set<std::string>& ImmutableOptions() {
  static const std::set<std::string> kImmutable = {
      "primary-key", "partition", "bucket-key", "merge-engine", "sequence.field", "row-tracking.enabled",
      "data-evolution.enabled"};
  return kImmutable;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out + "]";
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> SplitList(const std::string& text) { return SplitTrimmed(text, ','); }

bool IsKeyType(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
      return false;
    default:
      return true;
  }
}

const char* JavaTypeClassName(TypeRoot root) {
  switch (root) {
    case TypeRoot::kArray: return "ArrayType";
    case TypeRoot::kMultiset: return "MultisetType";
    case TypeRoot::kMap: return "MapType";
    case TypeRoot::kRow: return "RowType";
    default: return "DataType";
  }
}

// Rank in Java's numeric precedence (TINYINT < SMALLINT < INT < BIGINT < DECIMAL < FLOAT < DOUBLE), or -1.
int NumericRank(TypeRoot root) {
  switch (root) {
    case TypeRoot::kTinyInt: return 0;
    case TypeRoot::kSmallInt: return 1;
    case TypeRoot::kInt: return 2;
    case TypeRoot::kBigInt: return 3;
    case TypeRoot::kDecimal: return 4;
    case TypeRoot::kFloat: return 5;
    case TypeRoot::kDouble: return 6;
    default: return -1;
  }
}

int FindField(const std::vector<DataField>& fields, const std::string& name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// Moves fields[from] to where `position` says (within the list without it).
Status MoveField(std::vector<DataField>* fields, size_t from, const ColumnPosition& position, const std::string& table) {
  DataField field = std::move((*fields)[from]);
  fields->erase(fields->begin() + static_cast<std::ptrdiff_t>(from));
  size_t at = fields->size();
  if (position.kind == ColumnPosition::Kind::kFirst) {
    at = 0;
  } else if (position.kind == ColumnPosition::Kind::kAfter) {
    if (position.after == field.name) {
      return Status::InvalidArgument("table {}: column {} cannot be placed after itself", table, field.name);
    }
    int ref = FindField(*fields, position.after);
    if (ref < 0) {
      return Status::InvalidArgument("table {}: column {} (the AFTER reference) does not exist", table, position.after);
    }
    at = static_cast<size_t>(ref) + 1;
  }
  fields->insert(fields->begin() + static_cast<std::ptrdiff_t>(at), std::move(field));
  return Status::OK();
}

std::vector<std::string> RenameIn(const std::vector<std::string>& names, const std::string& from, const std::string& to) {
  std::vector<std::string> out = names;
  for (std::string& n : out) {
    if (n == from) n = to;
  }
  return out;
}

// The index of the column an ALTER names. InvalidArgument when there is none, or, when
// `partition_refusal` says what cannot be done to a partition column ("drop partition key column"),
// when the column is one.
Result<size_t> ChangedColumn(const TableSchema& schema, const std::string& name, const char* partition_refusal,
                             const std::string& table) {
  int index = schema.FieldIndex(name);
  if (index < 0) return Status::InvalidArgument("table {}: column {} does not exist", table, name);
  if (partition_refusal != nullptr && Contains(schema.partition_keys, name)) {
    return Status::InvalidArgument("table {}: cannot {} {}", table, partition_refusal, name);
  }
  return static_cast<size_t>(index);
}

Status CheckAlterOption(const TableSchema& schema, const std::string& key, const std::optional<std::string>& new_value,
                        bool table_has_snapshots, const std::string& table) {
  if (ImmutableOptions().count(key) > 0) {
    return Status::NotSupported("table {}: change of option '{}' is not supported (Java Paimon refuses it too); "
                                "create a new table instead",
                                table, key);
  }
  if (key == "bucket") {
    if (!new_value) {
      return Status::NotSupported("table {}: cannot reset option 'bucket'; set it to a number instead", table);
    }
    TableSchema changed = schema;
    changed.SetOption("bucket", *new_value);
    TIDE_ASSIGN_OR_RETURN(CoreOptions before, CoreOptions::Create(schema, table));
    TIDE_ASSIGN_OR_RETURN(CoreOptions after, CoreOptions::Create(changed, table));
    const int32_t old_bucket = before.bucket(), new_bucket = after.bucket();
    if (old_bucket == new_bucket) return Status::OK();
    if (old_bucket == -1) return Status::NotSupported("table {}: cannot change bucket when it is -1", table);
    if (new_bucket == -1) return Status::NotSupported("table {}: cannot change bucket to -1", table);
    if (table_has_snapshots) {
      return Status::NotSupported(
          "table {}: cannot change bucket from {} to {} on a table that holds data: its files would have to be "
          "rewritten (Java rescales with INSERT OVERWRITE); create a new table instead",
          table, old_bucket, new_bucket);
    }
  }
  return Status::OK();
}

}  // namespace

bool IsImplicitCast(const DataType& from, const DataType& to) {
  if (from.EqualsIgnoreNullable(to)) return true;
  int rf = NumericRank(from.root()), rt = NumericRank(to.root());
  if (rf >= 0 && rt >= 0) {
    if (from.root() == TypeRoot::kDecimal && to.root() == TypeRoot::kDecimal) {
      return to.scale() >= from.scale() && to.precision() - to.scale() >= from.precision() - from.scale();
    }
    if (to.root() == TypeRoot::kDecimal) {
      // An integer fits a decimal with enough integer digits.
      static const int kDigits[] = {3, 5, 10, 19};
      return rf < 4 && to.precision() - to.scale() >= kDigits[rf];
    }
    return rf < rt;
  }
  if (from.IsString() && to.IsString()) {
    return to.root() == TypeRoot::kVarChar && to.length() >= from.length();
  }
  if (from.IsBinary() && to.IsBinary()) {
    return to.root() == TypeRoot::kVarBinary && to.length() >= from.length();
  }
  if (from.root() == to.root() &&
      (from.root() == TypeRoot::kTimestamp || from.root() == TypeRoot::kTimestampLtz || from.root() == TypeRoot::kTime)) {
    return to.precision() >= from.precision();
  }
  if (from.root() == TypeRoot::kDate && to.IsTimestamp()) return true;
  return false;
}


SchemaChange SchemaChange::SetOption(std::string key, std::string value) {
  SchemaChange c;
  c.kind = Kind::kSetOption;
  c.name = std::move(key);
  c.value = std::move(value);
  return c;
}

SchemaChange SchemaChange::RemoveOption(std::string key) {
  SchemaChange c;
  c.kind = Kind::kRemoveOption;
  c.name = std::move(key);
  return c;
}

SchemaChange SchemaChange::AddColumn(std::string name, DataType type, ColumnPosition position,
                                     std::optional<std::string> description) {
  SchemaChange c;
  c.kind = Kind::kAddColumn;
  c.name = std::move(name);
  c.type = std::move(type);
  c.position = std::move(position);
  c.description = std::move(description);
  return c;
}

SchemaChange SchemaChange::RenameColumn(std::string name, std::string new_name) {
  SchemaChange c;
  c.kind = Kind::kRenameColumn;
  c.name = std::move(name);
  c.new_name = std::move(new_name);
  return c;
}

SchemaChange SchemaChange::DropColumn(std::string name) {
  SchemaChange c;
  c.kind = Kind::kDropColumn;
  c.name = std::move(name);
  return c;
}

SchemaChange SchemaChange::UpdateColumnType(std::string name, DataType type) {
  SchemaChange c;
  c.kind = Kind::kUpdateColumnType;
  c.name = std::move(name);
  c.type = std::move(type);
  return c;
}

SchemaChange SchemaChange::UpdateColumnNullability(std::string name, bool nullable) {
  SchemaChange c;
  c.kind = Kind::kUpdateColumnNullability;
  c.name = std::move(name);
  c.nullable = nullable;
  return c;
}

SchemaChange SchemaChange::UpdateColumnPosition(std::string name, ColumnPosition position) {
  SchemaChange c;
  c.kind = Kind::kUpdateColumnPosition;
  c.name = std::move(name);
  c.position = std::move(position);
  return c;
}

DataType ReassignFieldIds(const DataType& type, int32_t* highest_field_id) {
  switch (type.root()) {
    case TypeRoot::kArray:
      return DataType::Array(ReassignFieldIds(type.element(), highest_field_id), type.nullable());
    case TypeRoot::kMultiset:
      return DataType::Multiset(ReassignFieldIds(type.element(), highest_field_id), type.nullable());
    case TypeRoot::kMap: {
      DataType key = ReassignFieldIds(type.key(), highest_field_id);
      DataType value = ReassignFieldIds(type.value(), highest_field_id);
      return DataType::Map(std::move(key), std::move(value), type.nullable());
    }
    case TypeRoot::kRow: {
      std::vector<DataField> fields;
      for (const DataField& f : type.fields()) {
        DataField copy = f;
        copy.id = ++*highest_field_id;
        copy.type = ReassignFieldIds(f.type, highest_field_id);
        fields.push_back(std::move(copy));
      }
      return DataType::Row(std::move(fields), type.nullable());
    }
    default:
      return type;
  }
}

Status ValidateTableSchema(const TableSchema& schema, const std::string& table) {
  std::set<std::string> seen;
  std::vector<std::string> duplicates;
  for (const DataField& f : schema.fields) {
    if (!seen.insert(f.name).second) duplicates.push_back(f.name);
    if (f.name == "_SEQUENCE_NUMBER" || f.name == "_VALUE_KIND" || f.name == "_LEVEL" || f.name == "_ROW_ID") {
      return Status::InvalidArgument("table {}: column name {} is a Paimon system column name; rename the column",
                                     table, f.name);
    }
    if (StartsWith(f.name, "_KEY_")) {
      return Status::InvalidArgument("table {}: column name {} starts with _KEY_, which Paimon reserves; rename the column",
                                     table, f.name);
    }
  }
  if (schema.fields.empty()) return Status::InvalidArgument("table {}: a table needs at least one column", table);
  if (!duplicates.empty()) {
    return Status::InvalidArgument("table {}: column names must be unique; duplicated: {}", table, JoinNames(duplicates));
  }
  auto check_keys = [&](const std::vector<std::string>& keys, const char* what) -> Status {
    std::set<std::string> unique;
    for (const std::string& k : keys) {
      int index = schema.FieldIndex(k);
      if (index < 0) {
        return Status::InvalidArgument("table {}: {} key {} is not a column (columns: {})", table, what, k,
                                       JoinNames(schema.FieldNames()));
      }
      if (!unique.insert(k).second) return Status::InvalidArgument("table {}: {} key {} is listed twice", table, what, k);
      const DataType& type = schema.fields[static_cast<size_t>(index)].type;
      if (!IsKeyType(type)) {
        return Status::NotSupported("table {}: the type {} in {} field {} is unsupported ({}); keys must be of "
                                    "atomic types",
                                    table, JavaTypeClassName(type.root()), what, k, type.ToString());
      }
    }
    return Status::OK();
  };
  TIDE_RETURN_IF_ERROR(check_keys(schema.primary_keys, "primary"));
  TIDE_RETURN_IF_ERROR(check_keys(schema.partition_keys, "partition"));
  for (const std::string& k : schema.primary_keys) {
    if (schema.fields[static_cast<size_t>(schema.FieldIndex(k))].type.nullable()) {
      return Status::InvalidArgument("table {}: primary key column {} must be NOT NULL", table, k);
    }
  }
  if (schema.HasPrimaryKey() && !schema.partition_keys.empty()) {
    std::set<std::string> pk(schema.primary_keys.begin(), schema.primary_keys.end());
    std::set<std::string> part(schema.partition_keys.begin(), schema.partition_keys.end());
    if (pk == part) {
      return Status::InvalidArgument(
          "table {}: primary key {} should not be the same as the partition keys {}: a partition would hold only "
          "one row; add a column to the primary key",
          table, JoinNames(schema.primary_keys), JoinNames(schema.partition_keys));
    }
  }

  // Every option Tide reads must parse (a bad value is refused here, naming the option).
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(schema, table));
  if (options.file_format() != "parquet") {
    return Status::NotSupported("table {}: file.format '{}' is not supported; Tide writes and reads parquet only", table,
                                options.file_format());
  }
  const int32_t bucket = options.bucket();
  if (bucket == 0 || bucket < -1) {
    return Status::InvalidArgument(
        "table {}: bucket is {}; it must be greater than 0 (fixed buckets) or -1 (dynamic or unaware buckets)", table,
        bucket);
  }
  std::optional<std::string> bucket_key_option = schema.FindOption("bucket-key");
  if (bucket == -1 && bucket_key_option) {
    return Status::InvalidArgument(
        "table {}: cannot define 'bucket-key' in unaware or dynamic bucket mode (bucket = -1); remove bucket-key or "
        "set a bucket number",
        table);
  }
  std::vector<std::string> bucket_keys = schema.BucketKeys();
  for (const std::string& k : bucket_keys) {
    if (schema.FieldIndex(k) < 0) {
      return Status::InvalidArgument("table {}: bucket key {} is not a column (columns: {})", table, k,
                                     JoinNames(schema.FieldNames()));
    }
    if (Contains(schema.partition_keys, k)) {
      return Status::InvalidArgument("table {}: bucket keys {} should not be in the partition keys {}", table,
                                     JoinNames(bucket_keys), JoinNames(schema.partition_keys));
    }
    if (schema.HasPrimaryKey() && !Contains(schema.primary_keys, k)) {
      return Status::InvalidArgument("table {}: primary keys {} should contain all bucket keys {}", table,
                                     JoinNames(schema.primary_keys), JoinNames(bucket_keys));
    }
  }
  if (!schema.HasPrimaryKey() && bucket > 0 && bucket_keys.empty()) {
    return Status::InvalidArgument("table {}: a bucketed append table (bucket = {}) needs a 'bucket-key' option", table,
                                   bucket);
  }
  if (schema.HasPrimaryKey()) {
    for (const std::string& p : schema.partition_keys) {
      if (!Contains(schema.primary_keys, p) && bucket != -1) {
        return Status::InvalidArgument(
            "table {}: primary key {} does not include all partition fields {} (a cross-partition update); that "
            "needs dynamic bucket mode (bucket = -1, the default: leave 'bucket' unset), or add the partition "
            "columns to the primary key",
            table, JoinNames(schema.primary_keys), JoinNames(schema.partition_keys));
      }
    }
  }
  if (!schema.HasPrimaryKey() && options.changelog_producer() != ChangelogProducer::kNone) {
    return Status::InvalidArgument(
        "table {}: cannot set changelog-producer on a table without primary keys; define primary keys", table);
  }
  for (const std::string& f : options.sequence_fields()) {
    if (schema.FieldIndex(f) < 0) {
      return Status::InvalidArgument("table {}: sequence field {} (option sequence.field) is not a column", table, f);
    }
  }
  if (schema.FindOption("partition.expiration-time") && schema.partition_keys.empty()) {
    return Status::InvalidArgument("table {}: cannot set 'partition.expiration-time' on a table without partitions",
                                   table);
  }
  return Status::OK();
}

Result<TableSchema> NewTableSchema(const std::vector<ColumnDefinition>& columns,
                                   const std::vector<std::string>& partition_keys,
                                   const std::vector<std::string>& primary_keys,
                                   const std::vector<std::pair<std::string, std::string>>& options,
                                   const std::string& table, int64_t time_millis) {
  TableSchema schema;
  schema.version = 3;
  schema.id = 0;
  int32_t highest = -1;
  for (const ColumnDefinition& c : columns) {
    DataField f;
    f.id = ++highest;
    f.name = c.name;
    f.type = ReassignFieldIds(c.type, &highest);
    f.description = c.description;
    schema.fields.push_back(std::move(f));
  }
  schema.highest_field_id = highest;
  schema.partition_keys = partition_keys;
  schema.primary_keys = primary_keys;
  for (const auto& [key, value] : options) {
    if (key == "primary-key" || key == "partition") {
      return Status::InvalidArgument("table {}: give '{}' as a key list of the table, not as an option", table, key);
    }
    schema.SetOption(key, value);
  }
  // Java's Schema forces primary-key columns NOT NULL.
  for (const std::string& k : primary_keys) {
    int index = schema.FieldIndex(k);
    if (index >= 0) {
      DataField& f = schema.fields[static_cast<size_t>(index)];
      f.type = f.type.WithNullable(false);
    }
  }
  schema.time_millis = time_millis;
  TIDE_RETURN_IF_ERROR(ValidateTableSchema(schema, table));
  return schema;
}

Result<TableSchema> ApplySchemaChanges(const TableSchema& base, const std::vector<SchemaChange>& changes,
                                       bool table_has_snapshots, const std::string& table, int64_t time_millis) {
  TableSchema next = base;
  next.id = base.id + 1;
  next.time_millis = time_millis;
  for (const SchemaChange& change : changes) {
    switch (change.kind) {
      case SchemaChange::Kind::kSetOption:
        TIDE_RETURN_IF_ERROR(CheckAlterOption(next, change.name, change.value, table_has_snapshots, table));
        next.SetOption(change.name, change.value);
        break;
      case SchemaChange::Kind::kRemoveOption:
        TIDE_RETURN_IF_ERROR(CheckAlterOption(next, change.name, std::nullopt, table_has_snapshots, table));
        next.RemoveOption(change.name);
        break;
      case SchemaChange::Kind::kAddColumn: {
        if (next.FieldIndex(change.name) >= 0) {
          return Status::InvalidArgument("table {}: column {} already exists", table, change.name);
        }
        if (!change.type.nullable()) {
          return Status::InvalidArgument(
              "table {}: added column {} cannot be NOT NULL: rows written before it have no value; add it nullable",
              table, change.name);
        }
        DataField f;
        f.id = ++next.highest_field_id;
        f.name = change.name;
        f.type = ReassignFieldIds(change.type, &next.highest_field_id);
        f.description = change.description;
        next.fields.push_back(std::move(f));
        TIDE_RETURN_IF_ERROR(MoveField(&next.fields, next.fields.size() - 1, change.position, table));
        break;
      }
      case SchemaChange::Kind::kRenameColumn: {
        TIDE_ASSIGN_OR_RETURN(size_t index, ChangedColumn(next, change.name, "rename partition column", table));
        if (change.new_name.empty()) return Status::InvalidArgument("table {}: the new column name is empty", table);
        if (next.FieldIndex(change.new_name) >= 0) {
          return Status::InvalidArgument("table {}: column {} already exists", table, change.new_name);
        }
        next.fields[index].name = change.new_name;
        next.primary_keys = RenameIn(next.primary_keys, change.name, change.new_name);
        // Options that name columns follow the rename, as Java's applyRenameColumnsToOptions does.
        for (const char* key : {"bucket-key", "sequence.field"}) {
          if (std::optional<std::string> v = next.FindOption(key)) {
            std::vector<std::string> names = RenameIn(SplitList(*v), change.name, change.new_name);
            std::string joined;
            for (size_t i = 0; i < names.size(); ++i) joined += (i ? "," : "") + names[i];
            next.SetOption(key, joined);
          }
        }
        break;
      }
      case SchemaChange::Kind::kDropColumn: {
        TIDE_ASSIGN_OR_RETURN(size_t index, ChangedColumn(next, change.name, "drop partition key column", table));
        if (Contains(next.primary_keys, change.name)) {
          return Status::InvalidArgument("table {}: cannot drop primary key column {}", table, change.name);
        }
        if (next.fields.size() == 1) return Status::InvalidArgument("table {}: cannot drop all columns", table);
        next.fields.erase(next.fields.begin() + static_cast<std::ptrdiff_t>(index));
        break;
      }
      case SchemaChange::Kind::kUpdateColumnType: {
        TIDE_ASSIGN_OR_RETURN(size_t index,
                              ChangedColumn(next, change.name, "update the type of partition column", table));
        DataField& f = next.fields[index];
        if (Contains(next.primary_keys, change.name) && !f.type.EqualsIgnoreNullable(change.type)) {
          return Status::NotSupported(
              "table {}: cannot change the type of primary key column {}: keys in existing files and buckets "
              "depend on it",
              table, change.name);
        }
        if (f.type.nullable() && !change.type.nullable()) {
          return Status::InvalidArgument(
              "table {}: cannot change column {} from nullable to NOT NULL: existing rows may hold NULL", table,
              change.name);
        }
        // The column keeps its nullability (Java's keepNullability): NOT NULL stays NOT NULL.
        DataType target = change.type.WithNullable(f.type.nullable());
        if (f.type.IsNested() || target.IsNested()) {
          if (!f.type.EqualsIgnoreNullable(target)) {
            return Status::NotSupported("table {}: cannot change the type of nested column {} from {} to {}", table,
                                        change.name, f.type.ToString(), target.ToString());
          }
        } else if (!IsImplicitCast(f.type, target)) {
          TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(next, table));
          bool explicit_allowed = !options.disable_explicit_type_casting();
          if (!explicit_allowed || !CanCast(f.type, target)) {
            return Status::InvalidArgument(
                "table {}: column type {}[{}] cannot be converted to {} without losing information{}", table,
                change.name, f.type.ToString(), target.ToString(),
                explicit_allowed ? "" : " (explicit casts are disabled by disable-explicit-type-casting=true)");
          }
        }
        f.type = target;
        break;
      }
      case SchemaChange::Kind::kUpdateColumnPosition: {
        TIDE_ASSIGN_OR_RETURN(size_t index, ChangedColumn(next, change.name, nullptr, table));
        TIDE_RETURN_IF_ERROR(MoveField(&next.fields, index, change.position, table));
        break;
      }
      case SchemaChange::Kind::kUpdateColumnNullability: {
        // As Java's SchemaManager: a primary-key column stays NOT NULL; nullable to NOT NULL only when
        // alter-column-null-to-not-null.disabled is false (existing rows may hold NULL).
        TIDE_ASSIGN_OR_RETURN(size_t index, ChangedColumn(next, change.name, nullptr, table));
        DataField& f = next.fields[index];
        if (change.nullable && Contains(next.primary_keys, change.name)) {
          return Status::NotSupported("table {}: cannot change nullability of primary key column {}", table,
                                      change.name);
        }
        if (f.type.nullable() && !change.nullable &&
            next.Option("alter-column-null-to-not-null.disabled", "true") != "false") {
          return Status::InvalidArgument(
              "table {}: cannot change column {} from nullable to NOT NULL: existing rows may hold NULL (set "
              "'alter-column-null-to-not-null.disabled' = 'false' to allow it)",
              table, change.name);
        }
        f.type = f.type.WithNullable(change.nullable);
        break;
      }
    }
  }
  TIDE_RETURN_IF_ERROR(ValidateTableSchema(next, table));
  return next;
}

Result<TableSchema> CommitSchemaChanges(FileSystem* fs, const std::string& table_path, const std::string& table,
                                        const std::vector<SchemaChange>& changes) {
  SchemaManager schemas(fs, table_path);
  TIDE_ASSIGN_OR_RETURN(TableSchema base, schemas.Latest());
  SnapshotManager snapshots(fs, table_path);
  TIDE_ASSIGN_OR_RETURN(std::optional<int64_t> latest_snapshot, snapshots.LatestId());
  TIDE_ASSIGN_OR_RETURN(TableSchema next,
                        ApplySchemaChanges(base, changes, latest_snapshot.has_value(), table, CurrentTimeMillis()));
  std::string path = schemas.SchemaPath(next.id);
  Status written = fs->WriteFileExclusive(path, next.ToJson());
  if (written.IsAlreadyExists()) {
    return Status::Conflict("table {}: another writer changed the schema at the same time ({} exists); run the "
                            "ALTER again on the new schema",
                            table, path);
  }
  TIDE_RETURN_IF_ERROR(written);
  return next;
}

int64_t CurrentTimeMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tide
