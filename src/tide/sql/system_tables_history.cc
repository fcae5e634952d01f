// The system tables of a table's history and settings, as Paimon 2.0 defines them: `$snapshots`
// (SnapshotsTable), `$schemas` (SchemasTable), `$options` (OptionsTable), `$tags` (TagsTable),
// `$branches` (BranchesTable), `$consumers` (ConsumersTable). Column names, types and order are Java's;
// TIMESTAMP(3) columns hold the local wall-clock time of the process's time zone, as Java's
// LocalDateTime.ofInstant(..., ZoneId.systemDefault()) does. Thread-safety: as system_table.h.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "tide/base/strings.h"
#include "tide/sql/system_table.h"
#include "tide/table/snapshot/consumer_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {

namespace {

// Fields of a snapshot file that Tide's Snapshot does not keep (written by Java 2.0 and later).
struct SnapshotExtras {
  std::optional<std::string> operation;
};

SnapshotExtras ReadSnapshotExtras(FileSystem* fs, const SnapshotManager& snapshots, int64_t id) {
  SnapshotExtras extras;
  Result<std::string> text = fs->ReadFile(snapshots.SnapshotPath(id));
  if (!text.ok()) return extras;
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return extras;
  auto it = json.find("operation");
  if (it != json.end() && it->is_string()) extras.operation = it->get<std::string>();
  return extras;
}

SystemTable SnapshotsTable() {
  SystemTable t;
  t.name = "snapshots";
  t.function = "paimon_snapshots";
  t.columns = {SystemColumn(0, "snapshot_id", DataType::BigInt(false)),
               SystemColumn(1, "schema_id", DataType::BigInt(false)),
               SystemColumn(2, "commit_user", DataType::String(false)),
               SystemColumn(3, "commit_identifier", DataType::BigInt(false)),
               SystemColumn(4, "commit_kind", DataType::String(false)),
               SystemColumn(5, "commit_time", DataType::Timestamp(3, false)),
               SystemColumn(6, "base_manifest_list", DataType::String(false)),
               SystemColumn(7, "delta_manifest_list", DataType::String(false)),
               SystemColumn(8, "changelog_manifest_list", DataType::String()),
               SystemColumn(9, "total_record_count", DataType::BigInt()),
               SystemColumn(10, "delta_record_count", DataType::BigInt()),
               SystemColumn(11, "changelog_record_count", DataType::BigInt()),
               SystemColumn(12, "watermark", DataType::BigInt()),
               SystemColumn(13, "next_row_id", DataType::BigInt()),
               SystemColumn(14, "operation", DataType::String())};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::vector<Snapshot> snapshots, source.ListSnapshots(q.id));
    // The files themselves, when the source has them, for the fields Tide's Snapshot does not keep.
    Result<std::unique_ptr<Table>> table = source.OpenTable(q.id);
    std::vector<Row> rows;
    rows.reserve(snapshots.size());
    for (const Snapshot& s : snapshots) {
      SnapshotExtras extras;
      if (table.ok()) {
        extras = ReadSnapshotExtras((*table)->fs(), SnapshotManager((*table)->fs(), (*table)->metadata_path()), s.id);
      }
      rows.push_back(Row{Datum(s.id), Datum(s.schema_id), Datum(s.commit_user), Datum(s.commit_identifier),
                         Datum(std::string(CommitKindName(s.commit_kind))), LocalTimestamp(s.time_millis),
                         Datum(s.base_manifest_list), Datum(s.delta_manifest_list),
                         OptionalString(s.changelog_manifest_list), OptionalInt(s.total_record_count),
                         OptionalInt(s.delta_record_count), OptionalInt(s.changelog_record_count),
                         OptionalInt(s.watermark), OptionalInt(s.next_row_id), OptionalString(extras.operation)});
    }
    return rows;
  };
  return t;
}

// The schema's options in the order of its file (JSON keeps it; std::map does not).
std::vector<std::pair<std::string, std::string>> OptionsInFileOrder(const TableSchema& schema) {
  std::vector<std::string> keys = schema.option_order;
  if (keys.size() != schema.options.size()) {
    keys.clear();
    for (const auto& [k, v] : schema.options) keys.push_back(k);
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& k : keys) {
    auto it = schema.options.find(k);
    if (it != schema.options.end()) out.emplace_back(k, it->second);
  }
  return out;
}

SystemTable SchemasTable() {
  SystemTable t;
  t.name = "schemas";
  t.function = "paimon_schemas";
  // Java shows the lists and the options map as flat JSON strings.
  t.columns = {SystemColumn(0, "schema_id", DataType::BigInt(false)),
               SystemColumn(1, "fields", DataType::String(false)),
               SystemColumn(2, "partition_keys", DataType::String(false)),
               SystemColumn(3, "primary_keys", DataType::String(false)),
               SystemColumn(4, "options", DataType::String(false)),
               SystemColumn(5, "comment", DataType::String()),
               SystemColumn(6, "update_time", DataType::Timestamp(3, false))};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::vector<TableSchema> schemas, source.ListSchemas(q.id));
    std::vector<Row> rows;
    rows.reserve(schemas.size());
    for (const TableSchema& s : schemas) {
      nlohmann::ordered_json fields = nlohmann::ordered_json::array();
      for (const DataField& f : s.fields) fields.push_back(f.ToJson());
      nlohmann::ordered_json options = nlohmann::ordered_json::object();
      for (const auto& [k, v] : OptionsInFileOrder(s)) options[k] = v;
      rows.push_back(Row{Datum(s.id), Datum(fields.dump()), Datum(nlohmann::ordered_json(s.partition_keys).dump()),
                         Datum(nlohmann::ordered_json(s.primary_keys).dump()), Datum(options.dump()),
                         OptionalString(s.comment), LocalTimestamp(s.time_millis)});
    }
    return rows;
  };
  return t;
}

SystemTable OptionsTable() {
  SystemTable t;
  t.name = "options";
  t.function = "paimon_options";
  t.columns = {SystemColumn(0, "key", DataType::String(false)), SystemColumn(1, "value", DataType::String(false))};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(TableSchema schema, source.ReadSchema(q.id, SnapshotSelector{}));
    std::vector<Row> rows;
    for (const auto& [k, v] : OptionsInFileOrder(schema)) rows.push_back(Row{Datum(k), Datum(v)});
    return rows;
  };
  return t;
}

// java.time.Duration.toString(): `PT1H`, `PT30M`, `PT1.5S`, `PT48H`, `PT0S`.
std::string JavaDurationText(int64_t millis) {
  if (millis == 0) return "PT0S";
  std::string sign = millis < 0 ? "-" : "";
  int64_t abs = millis < 0 ? -millis : millis;
  int64_t hours = abs / 3600000, minutes = abs / 60000 % 60, seconds = abs / 1000 % 60, ms = abs % 1000;
  std::string text = "PT";
  if (hours != 0) text += sign + std::to_string(hours) + "H";
  if (minutes != 0) text += sign + std::to_string(minutes) + "M";
  if (seconds != 0 || ms != 0) {
    text += sign + std::to_string(seconds);
    if (ms != 0) {
      std::string fraction = fmt::format("{:03}", ms);
      while (fraction.back() == '0') fraction.pop_back();
      text += "." + fraction;
    }
    text += "S";
  }
  return text;
}

// A tag's `tagCreateTime`, Jackson's LocalDateTime array [y, m, d, h, min(, s(, nanos))], as a
// TIMESTAMP(3) value.
Datum TagCreateTime(const std::optional<std::vector<int64_t>>& parts) {
  if (!parts || parts->size() < 5) return Datum();
  const std::vector<int64_t>& p = *parts;
  int64_t days = DaysFromCivil(p[0], static_cast<unsigned>(p[1]), static_cast<unsigned>(p[2]));
  int64_t seconds = p[3] * 3600 + p[4] * 60 + (p.size() > 5 ? p[5] : 0);
  int64_t nanos = p.size() > 6 ? p[6] : 0;
  return Datum(TimestampValue{days * 86400000 + seconds * 1000 + nanos / 1000000, 0});
}

SystemTable TagsTable() {
  SystemTable t;
  t.name = "tags";
  t.function = "paimon_tags";
  t.columns = {SystemColumn(0, "tag_name", DataType::String(false)),
               SystemColumn(1, "snapshot_id", DataType::BigInt(false)),
               SystemColumn(2, "schema_id", DataType::BigInt(false)),
               SystemColumn(3, "commit_time", DataType::Timestamp(3, false)),
               SystemColumn(4, "record_count", DataType::BigInt()),
               SystemColumn(5, "create_time", DataType::Timestamp(3)),
               SystemColumn(6, "time_retained", DataType::String())};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, source.OpenTable(q.id));
    TagManager tags(table->fs(), table->metadata_path());
    TIDE_ASSIGN_OR_RETURN(std::vector<std::string> names, tags.ListNames());
    std::vector<Row> rows;
    for (const std::string& name : names) {
      Result<Snapshot> tag = tags.Get(name);
      if (!tag.ok() && tag.status().IsNotFound()) continue;  // deleted while listing
      TIDE_RETURN_IF_ERROR(tag.status());
      const Snapshot& s = *tag;
      Datum retained = s.tag_time_retained_ms ? Datum(JavaDurationText(*s.tag_time_retained_ms)) : Datum();
      rows.push_back(Row{Datum(name), Datum(s.id), Datum(s.schema_id), LocalTimestamp(s.time_millis),
                         OptionalInt(s.total_record_count), TagCreateTime(s.tag_create_time), retained});
    }
    return rows;
  };
  return t;
}

SystemTable BranchesTable() {
  SystemTable t;
  t.name = "branches";
  t.function = "paimon_branches";
  t.columns = {SystemColumn(0, "branch_name", DataType::String(false)),
               SystemColumn(1, "create_time", DataType::Timestamp(3, false))};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, source.OpenTable(q.id));
    std::string dir = table->path() + "/branch";
    TIDE_ASSIGN_OR_RETURN(bool exists, table->fs()->Exists(dir));
    std::vector<Row> rows;
    if (!exists) return rows;
    TIDE_ASSIGN_OR_RETURN(std::vector<FileInfo> entries, table->fs()->ListDir(dir));
    std::sort(entries.begin(), entries.end(), [](const FileInfo& a, const FileInfo& b) { return a.name < b.name; });
    constexpr std::string_view kPrefix = "branch-";
    for (const FileInfo& entry : entries) {
      if (!entry.is_directory || !entry.name.starts_with(kPrefix) || entry.name.size() == kPrefix.size()) continue;
      // Java takes the branch's creation time from its folder's modification time.
      rows.push_back(Row{Datum(entry.name.substr(kPrefix.size())), LocalTimestamp(entry.modification_time_ms)});
    }
    return rows;
  };
  return t;
}

SystemTable ConsumersTable() {
  SystemTable t;
  t.name = "consumers";
  t.function = "paimon_consumers";
  t.columns = {SystemColumn(0, "consumer_id", DataType::String(false)),
               SystemColumn(1, "next_snapshot_id", DataType::BigInt(false))};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, source.OpenTable(q.id));
    ConsumerManager consumers(table->fs(), table->metadata_path());
    TIDE_ASSIGN_OR_RETURN(auto by_id, consumers.Consumers());
    std::vector<Row> rows;
    for (const auto& [id, next] : by_id) rows.push_back(Row{Datum(id), Datum(next)});
    return rows;
  };
  return t;
}

}  // namespace

std::vector<SystemTable> HistorySystemTables() {
  return {SnapshotsTable(), SchemasTable(), OptionsTable(), TagsTable(), BranchesTable(), ConsumersTable()};
}

}  // namespace tide
