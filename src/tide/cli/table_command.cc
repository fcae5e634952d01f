#include "tide/cli/table_command.h"

#include <time.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "tide/base/strings.h"
#include "tide/catalog/catalog.h"
#include "tide/io/file_system.h"

namespace tide::cli {

namespace {

int Fail(std::ostream& err, const Status& status) {
  err << "Error: " << status.message() << std::endl;
  return 1;
}

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& part : Split(text, ',')) {
    std::string_view t = Trim(part);
    if (!t.empty()) out.emplace_back(t);
  }
  return out;
}

std::string JoinComma(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

Result<std::pair<std::string, std::string>> SplitAssignment(const std::string& text, const char* what) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::InvalidArgument("{} '{}' is not of the form KEY=VALUE", what, text);
  }
  return std::make_pair(std::string(Trim(std::string_view(text).substr(0, eq))),
                        std::string(Trim(std::string_view(text).substr(eq + 1))));
}

Result<std::unique_ptr<Catalog>> OpenCatalog(const std::string& warehouse) {
  return Catalog::Open(FileSystem::Local(), warehouse);
}

// The columns of a schema as an aligned table: id, name, type (and comment when any column has one).
void PrintColumns(const TableSchema& schema, std::ostream& out) {
  size_t id_w = 2, name_w = 4, type_w = 4;
  bool any_comment = false;
  for (const DataField& f : schema.fields) {
    id_w = std::max(id_w, std::to_string(f.id).size());
    name_w = std::max(name_w, f.name.size());
    type_w = std::max(type_w, f.type.ToString().size());
    any_comment |= f.description.has_value();
  }
  auto row = [&](const std::string& id, const std::string& name, const std::string& type, const std::string& comment) {
    std::string line = fmt::format("  {:<{}}  {:<{}}  {}", id, id_w, name, name_w, type);
    if (any_comment) line = fmt::format("  {:<{}}  {:<{}}  {:<{}}  {}", id, id_w, name, name_w, type, type_w, comment);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  row("id", "name", "type", "comment");
  for (const DataField& f : schema.fields) row(std::to_string(f.id), f.name, f.type.ToString(), f.description.value_or(""));
}

void PrintSummary(const TableIdentifier& id, const Catalog::TableSummary& s, std::ostream& out) {
  const TableSchema& schema = s.schema;
  out << "Table: " << id.ToString() << '\n';
  out << "Schema id: " << schema.id << " (highest field id " << schema.highest_field_id << ")\n";
  out << "Columns:\n";
  PrintColumns(schema, out);
  out << "Primary keys: " << (schema.primary_keys.empty() ? "(none)" : JoinComma(schema.primary_keys)) << '\n';
  out << "Partition keys: " << (schema.partition_keys.empty() ? "(none)" : JoinComma(schema.partition_keys)) << '\n';
  if (schema.HasPrimaryKey() || schema.FindOption("bucket-key")) {
    out << "Bucket keys: " << JoinComma(schema.BucketKeys()) << '\n';
  }
  out << "Options:" << (schema.option_order.empty() ? " (none)" : "") << '\n';
  for (const std::string& key : schema.option_order) out << "  " << key << " = " << schema.options.at(key) << '\n';
  if (schema.comment) out << "Comment: " << *schema.comment << '\n';
  if (s.snapshot_id) {
    out << "Latest snapshot: " << *s.snapshot_id << " at " << FormatMillisUtc(s.snapshot_time_millis.value_or(0));
    if (s.record_count) out << ", " << *s.record_count << " records";
    out << '\n';
  } else {
    out << "Latest snapshot: (none)\n";
  }
}

}  // namespace

Result<ColumnDefinition> ParseColumnDefinition(std::string_view text) {
  std::string_view t = Trim(text);
  if (t.empty()) return Status::InvalidArgument("empty column definition: write `name TYPE`");
  ColumnDefinition column;
  size_t pos = 0;
  if (t[0] == '`' || t[0] == '"') {
    size_t end = t.find(t[0], 1);
    if (end == std::string_view::npos) return Status::InvalidArgument("column definition '{}': unterminated quoted name", t);
    column.name = std::string(t.substr(1, end - 1));
    pos = end + 1;
  } else {
    while (pos < t.size() && t[pos] != ' ' && t[pos] != '\t' && t[pos] != '\n') ++pos;
    column.name = std::string(t.substr(0, pos));
  }
  std::string_view type_text = Trim(t.substr(pos));
  if (column.name.empty() || type_text.empty()) {
    return Status::InvalidArgument("column definition '{}' needs a name and a type: write `name TYPE`", t);
  }
  // A trailing COMMENT 'text' (outside any nested type) becomes the column's description.
  std::string upper(type_text);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  size_t comment = upper.rfind(" COMMENT ");
  if (comment != std::string::npos && type_text.back() == '\'') {
    std::string_view quoted = Trim(type_text.substr(comment + 9));
    if (quoted.size() >= 2 && quoted.front() == '\'') {
      column.description = std::string(quoted.substr(1, quoted.size() - 2));
      type_text = Trim(type_text.substr(0, comment));
    }
  }
  Result<DataType> type = DataType::Parse(type_text);
  if (!type.ok()) {
    return Status::InvalidArgument("column {}: {}", column.name, type.status().message());
  }
  column.type = std::move(*type);
  return column;
}

Result<std::vector<ColumnDefinition>> ParseColumnList(std::string_view text) {
  std::vector<ColumnDefinition> columns;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  auto flush = [&](size_t end) -> Status {
    TIDE_ASSIGN_OR_RETURN(ColumnDefinition c, ParseColumnDefinition(text.substr(start, end - start)));
    columns.push_back(std::move(c));
    return Status::OK();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '`' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '<') {
      ++depth;
    } else if (c == ')' || c == '>') {
      if (--depth < 0) return Status::InvalidArgument("column list '{}': unbalanced '{}'", text, c);
    } else if (c == ',' && depth == 0) {
      TIDE_RETURN_IF_ERROR(flush(i));
      start = i + 1;
    }
  }
  if (quote != 0) return Status::InvalidArgument("column list '{}': unterminated quote", text);
  if (depth != 0) return Status::InvalidArgument("column list '{}': unbalanced brackets", text);
  TIDE_RETURN_IF_ERROR(flush(text.size()));
  return columns;
}

int RunTableCreate(const TableCreateOptions& options, std::ostream& out, std::ostream& err) {
  Result<TableIdentifier> id = TableIdentifier::Parse(options.table);
  if (!id.ok()) return Fail(err, id.status());
  Result<std::vector<ColumnDefinition>> columns = ParseColumnList(options.columns);
  if (!columns.ok()) return Fail(err, columns.status());
  std::vector<std::pair<std::string, std::string>> table_options;
  for (const std::string& o : options.options) {
    Result<std::pair<std::string, std::string>> kv = SplitAssignment(o, "--option");
    if (!kv.ok()) return Fail(err, kv.status());
    table_options.push_back(std::move(*kv));
  }
  // Creating a table creates its warehouse folder too, as Paimon's filesystem catalog does; the other
  // commands refuse a missing warehouse (most likely a mistyped path).
  Status made = FileSystem::Local()->MakeDirs(options.warehouse);
  if (!made.ok()) return Fail(err, made.WithContext(fmt::format("creating warehouse {}", options.warehouse)));
  Result<std::unique_ptr<Catalog>> catalog = OpenCatalog(options.warehouse);
  if (!catalog.ok()) return Fail(err, catalog.status());
  Status db = (*catalog)->CreateDatabase(id->database, /*ignore_if_exists=*/true);
  if (!db.ok()) return Fail(err, db);
  Result<TableSchema> schema = (*catalog)->CreateTable(*id, *columns, SplitNames(options.partition_keys),
                                                       SplitNames(options.primary_keys), table_options);
  if (!schema.ok()) return Fail(err, schema.status());
  out << "Created table " << id->ToString() << " (schema 0, " << schema->fields.size() << " columns) at "
      << (*catalog)->TablePath(*id) << '\n';
  return 0;
}

int RunTableDescribe(const TableDescribeOptions& options, std::ostream& out, std::ostream& err) {
  Result<TableIdentifier> id = TableIdentifier::Parse(options.table);
  if (!id.ok()) return Fail(err, id.status());
  Result<std::unique_ptr<Catalog>> catalog = OpenCatalog(options.warehouse);
  if (!catalog.ok()) return Fail(err, catalog.status());
  Result<Catalog::TableSummary> summary = (*catalog)->DescribeTable(*id);
  if (!summary.ok()) return Fail(err, summary.status());
  PrintSummary(*id, *summary, out);
  return 0;
}

int RunTableList(const TableListOptions& options, std::ostream& out, std::ostream& err) {
  Result<std::unique_ptr<Catalog>> catalog = OpenCatalog(options.warehouse);
  if (!catalog.ok()) return Fail(err, catalog.status());
  std::vector<std::string> databases;
  if (options.database.empty()) {
    Result<std::vector<std::string>> all = (*catalog)->ListDatabases();
    if (!all.ok()) return Fail(err, all.status());
    databases = std::move(*all);
    std::sort(databases.begin(), databases.end());
  } else {
    databases.push_back(options.database);
  }
  struct Line {
    std::string table, pk, partitions, schema, snapshot, records;
  };
  std::vector<Line> lines = {{"table", "primary keys", "partition keys", "schema", "snapshot", "records"}};
  for (const std::string& database : databases) {
    Result<std::vector<Catalog::TableSummary>> tables = (*catalog)->ListTableSummaries(database);
    if (!tables.ok()) return Fail(err, tables.status());
    std::sort(tables->begin(), tables->end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (const Catalog::TableSummary& t : *tables) {
      lines.push_back({database + "." + t.name, JoinComma(t.schema.primary_keys), JoinComma(t.schema.partition_keys),
                       std::to_string(t.schema.id), t.snapshot_id ? std::to_string(*t.snapshot_id) : "-",
                       t.record_count ? std::to_string(*t.record_count) : "-"});
    }
  }
  size_t w[5] = {0, 0, 0, 0, 0};
  for (const Line& l : lines) {
    w[0] = std::max(w[0], l.table.size());
    w[1] = std::max(w[1], l.pk.size());
    w[2] = std::max(w[2], l.partitions.size());
    w[3] = std::max(w[3], l.schema.size());
    w[4] = std::max(w[4], l.snapshot.size());
  }
  for (const Line& l : lines) {
    out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", l.table, w[0], l.pk, w[1], l.partitions, w[2],
                       l.schema, w[3], l.snapshot, w[4], l.records);
  }
  return 0;
}

int RunTableDrop(const TableDropOptions& options, std::ostream& out, std::ostream& err) {
  Result<TableIdentifier> id = TableIdentifier::Parse(options.table);
  if (!id.ok()) return Fail(err, id.status());
  Result<std::unique_ptr<Catalog>> catalog = OpenCatalog(options.warehouse);
  if (!catalog.ok()) return Fail(err, catalog.status());
  Status dropped = (*catalog)->DropTable(*id);
  if (!dropped.ok()) return Fail(err, dropped);
  out << "Dropped table " << id->ToString() << '\n';
  return 0;
}

int RunTableAlter(const TableAlterOptions& options, std::ostream& out, std::ostream& err) {
  Result<TableIdentifier> id = TableIdentifier::Parse(options.table);
  if (!id.ok()) return Fail(err, id.status());
  if (options.first && !options.after.empty()) {
    return Fail(err, Status::InvalidArgument("give either --first or --after, not both"));
  }
  bool positioned = options.first || !options.after.empty();
  if (positioned && options.add_column.empty() && options.move_column.empty()) {
    return Fail(err, Status::InvalidArgument("--first and --after go with --add-column or --move-column"));
  }
  if (positioned && !options.add_column.empty() && !options.move_column.empty()) {
    return Fail(err, Status::InvalidArgument("--first/--after is ambiguous with both --add-column and --move-column"));
  }
  ColumnPosition position = options.first              ? ColumnPosition::First()
                            : !options.after.empty()   ? ColumnPosition::After(options.after)
                                                       : ColumnPosition::Last();
  std::vector<SchemaChange> changes;
  std::vector<std::string> done;
  if (!options.add_column.empty()) {
    Result<ColumnDefinition> column = ParseColumnDefinition(options.add_column);
    if (!column.ok()) return Fail(err, column.status());
    changes.push_back(SchemaChange::AddColumn(column->name, column->type, position, column->description));
    done.push_back("added column " + column->name);
  }
  if (!options.move_column.empty()) {
    if (!positioned) return Fail(err, Status::InvalidArgument("--move-column needs --first or --after COLUMN"));
    changes.push_back(SchemaChange::UpdateColumnPosition(options.move_column, position));
    done.push_back("moved column " + options.move_column);
  }
  if (!options.rename_column.empty()) {
    Result<std::pair<std::string, std::string>> names = SplitAssignment(options.rename_column, "--rename-column");
    if (!names.ok()) return Fail(err, names.status());
    changes.push_back(SchemaChange::RenameColumn(names->first, names->second));
    done.push_back("renamed column " + names->first + " to " + names->second);
  }
  if (!options.drop_column.empty()) {
    changes.push_back(SchemaChange::DropColumn(options.drop_column));
    done.push_back("dropped column " + options.drop_column);
  }
  if (!options.alter_column_type.empty()) {
    Result<ColumnDefinition> column = ParseColumnDefinition(options.alter_column_type);
    if (!column.ok()) return Fail(err, column.status());
    changes.push_back(SchemaChange::UpdateColumnType(column->name, column->type));
    done.push_back("changed the type of column " + column->name + " to " + column->type.ToString());
  }
  for (const std::string& o : options.set_options) {
    Result<std::pair<std::string, std::string>> kv = SplitAssignment(o, "--set-option");
    if (!kv.ok()) return Fail(err, kv.status());
    changes.push_back(SchemaChange::SetOption(kv->first, kv->second));
    done.push_back("set option " + kv->first + " = " + kv->second);
  }
  for (const std::string& key : options.reset_options) {
    changes.push_back(SchemaChange::RemoveOption(key));
    done.push_back("reset option " + key);
  }
  if (changes.empty()) {
    return Fail(err, Status::InvalidArgument(
                         "nothing to alter: give --add-column, --rename-column, --drop-column, --alter-column-type, "
                         "--move-column, --set-option or --reset-option"));
  }
  Result<std::unique_ptr<Catalog>> catalog = OpenCatalog(options.warehouse);
  if (!catalog.ok()) return Fail(err, catalog.status());
  Result<TableSchema> schema = (*catalog)->AlterTable(*id, changes);
  if (!schema.ok()) return Fail(err, schema.status());
  out << "Altered table " << id->ToString() << " (schema " << schema->id << "): " << JoinComma(done) << '\n';
  return 0;
}

void RegisterTable(CLI::App& app) {
  CLI::App* table = app.add_subcommand("table", "Create, describe, list, alter and drop tables");
  table->require_subcommand(1);
  const char* kWarehouseHelp = "Warehouse folder (holds <database>.db/<table>/)";

  auto create = std::make_shared<TableCreateOptions>();
  CLI::App* c = table->add_subcommand("create", "Create a table (and its database if missing)");
  c->add_option("--warehouse", create->warehouse, kWarehouseHelp)->required();
  c->add_option("table", create->table, "The table, <database>.<table>")->required();
  c->add_option("--columns", create->columns, "Columns: 'name TYPE [NOT NULL], ...'")->required();
  c->add_option("--primary-keys", create->primary_keys, "Primary-key columns, comma separated");
  c->add_option("--partition-keys", create->partition_keys, "Partition columns, comma separated");
  c->add_option("--option", create->options, "A table option KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  c->callback([create]() {
    int code = RunTableCreate(*create, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });

  auto describe = std::make_shared<TableDescribeOptions>();
  CLI::App* d = table->add_subcommand("describe", "Show a table's columns, keys, options and latest snapshot");
  d->add_option("--warehouse", describe->warehouse, kWarehouseHelp)->required();
  d->add_option("table", describe->table, "The table, <database>.<table>")->required();
  d->callback([describe]() {
    int code = RunTableDescribe(*describe, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });

  auto list = std::make_shared<TableListOptions>();
  CLI::App* l = table->add_subcommand("list", "List the tables of a warehouse or of one database");
  l->add_option("--warehouse", list->warehouse, kWarehouseHelp)->required();
  l->add_option("database", list->database, "Only this database");
  l->callback([list]() {
    int code = RunTableList(*list, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });

  auto drop = std::make_shared<TableDropOptions>();
  CLI::App* r = table->add_subcommand("drop", "Delete a table with all its files");
  r->add_option("--warehouse", drop->warehouse, kWarehouseHelp)->required();
  r->add_option("table", drop->table, "The table, <database>.<table>")->required();
  r->callback([drop]() {
    int code = RunTableDrop(*drop, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });

  auto alter = std::make_shared<TableAlterOptions>();
  CLI::App* a = table->add_subcommand("alter", "Change a table's columns or options (a new schema version)");
  a->add_option("--warehouse", alter->warehouse, kWarehouseHelp)->required();
  a->add_option("table", alter->table, "The table, <database>.<table>")->required();
  a->add_option("--add-column", alter->add_column, "Add a nullable column: 'name TYPE'");
  a->add_option("--move-column", alter->move_column, "Move a column (with --first or --after)");
  a->add_flag("--first", alter->first, "Put the added or moved column first");
  a->add_option("--after", alter->after, "Put the added or moved column after this one");
  a->add_option("--rename-column", alter->rename_column, "Rename a column: OLD=NEW");
  a->add_option("--drop-column", alter->drop_column, "Drop a column");
  a->add_option("--alter-column-type", alter->alter_column_type, "Change a column's type: 'name TYPE'");
  a->add_option("--set-option", alter->set_options, "Set a table option KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  a->add_option("--reset-option", alter->reset_options, "Remove a table option KEY (repeatable)")
      ->allow_extra_args(false);
  a->callback([alter]() {
    int code = RunTableAlter(*alter, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace tide::cli
