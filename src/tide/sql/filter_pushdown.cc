#include "tide/sql/filter_pushdown.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <vector>

#include "tide/base/strings.h"
#include "tide/format/duckdb_type_mapping.h"
#include "tide/format/duckdb_vector_decoder.h"
#include "tide/sql/sql_table_name.h"

namespace tide {

namespace {

using Json = nlohmann::json;

// At most this many constants are converted for one statement (long IN lists are left to DuckDB).
constexpr size_t kMaxConstants = 1024;

std::string ViewKey(std::string_view schema, std::string_view view) {
  return ToLower(schema) + '\x1f' + ToLower(view);
}

std::string StringOf(const Json& node, const char* key) {
  auto it = node.find(key);
  if (it == node.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

bool Is(const Json& node, const char* key, std::string_view value) {
  auto it = node.find(key);
  return it != node.end() && it->is_string() && it->get_ref<const std::string&>() == value;
}

// A constant of the statement, as SQL text DuckDB reads back the same way, and its kind.
enum class ConstantKind { kString, kNumber, kTyped };
struct Constant {
  std::string sql;
  ConstantKind kind = ConstantKind::kNumber;
  std::string cast_type;  // kTyped: DuckDB's type name of the literal (DATE, TIMESTAMP, ...)
};

std::optional<Constant> ConstantOf(const Json& e) {
  if (Is(e, "type", "VALUE_CONSTANT")) {
    const Json& value = e["value"];
    if (!value.is_object() || value.value("is_null", true)) return std::nullopt;
    std::string type = value["type"].value("id", "");
    const Json& v = value["value"];
    if (type == "VARCHAR" && v.is_string()) return Constant{QuoteSqlString(v.get<std::string>()), ConstantKind::kString, ""};
    if ((type == "INTEGER" || type == "BIGINT" || type == "SMALLINT" || type == "TINYINT") && v.is_number_integer()) {
      return Constant{v.is_number_unsigned() ? std::to_string(v.get<uint64_t>()) : std::to_string(v.get<int64_t>()),
                      ConstantKind::kNumber, ""};
    }
    if (type == "DECIMAL" && v.is_number_integer() && !v.is_number_unsigned()) {
      const Json& info = value["type"]["type_info"];
      if (!info.is_object()) return std::nullopt;
      int scale = info.value("scale", 0);
      int64_t unscaled = v.get<int64_t>();
      if (unscaled == INT64_MIN) return std::nullopt;
      bool negative = unscaled < 0;
      std::string digits = std::to_string(negative ? -unscaled : unscaled);
      while (static_cast<int>(digits.size()) <= scale) digits.insert(digits.begin(), '0');
      if (scale > 0) digits.insert(digits.end() - scale, '.');
      return Constant{(negative ? "-" : "") + digits, ConstantKind::kNumber, ""};
    }
    return std::nullopt;
  }
  if (Is(e, "type", "OPERATOR_CAST") && !e.value("try_cast", true)) {
    std::optional<Constant> child = ConstantOf(e["child"]);
    std::string type = e["cast_type"].value("id", "");
    if (!child || child->kind != ConstantKind::kString || !e["cast_type"]["type_info"].is_null()) return std::nullopt;
    if (type == "DATE" || type == "TIMESTAMP" || type == "TIMESTAMP WITH TIME ZONE") {
      return Constant{fmt::format("CAST({} AS {})", child->sql, type), ConstantKind::kTyped, type};
    }
  }
  return std::nullopt;
}

// Whether a constant of `c`'s kind compares with a column of `type` the way its converted value does.
bool Compatible(const DataType& type, const Constant& c) {
  switch (type.root()) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return c.kind == ConstantKind::kString;
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kDecimal: return c.kind == ConstantKind::kString || c.kind == ConstantKind::kNumber;
    case TypeRoot::kDate: return c.kind == ConstantKind::kString || (c.kind == ConstantKind::kTyped && c.cast_type == "DATE");
    case TypeRoot::kTimestamp:
      return type.precision() <= 6 &&
             (c.kind == ConstantKind::kString ||
              (c.kind == ConstantKind::kTyped && (c.cast_type == "TIMESTAMP" || c.cast_type == "DATE")));
    case TypeRoot::kTimestampLtz:
      return type.precision() <= 6 && (c.kind == ConstantKind::kString ||
                                       (c.kind == ConstantKind::kTyped && c.cast_type == "TIMESTAMP WITH TIME ZONE"));
    default: return false;
  }
}

// One reference of a lake table in the statement.
struct Reference {
  TableIdentifier id;
  SnapshotSelector selector;
  bool read_optimized = false;
  std::string binding;                   // lower-case: the alias, else the table's (or function's) name
  std::string schema_name, table_name;   // lower-case, for `schema.table.column` (base tables only)
  const Json* node = nullptr;
};

// A condition found for a reference, before its constants are converted.
struct RawCondition {
  size_t reference = 0;
  std::string column;  // as written
  PredicateOp op = PredicateOp::kEqual;
  std::vector<Constant> constants;
};

struct TableUse {
  int count = 0;  // references (2 for one that cannot be used: it disables the table)
};

PredicateOp Flip(PredicateOp op) {
  switch (op) {
    case PredicateOp::kLess: return PredicateOp::kGreater;
    case PredicateOp::kLessOrEqual: return PredicateOp::kGreaterOrEqual;
    case PredicateOp::kGreater: return PredicateOp::kLess;
    case PredicateOp::kGreaterOrEqual: return PredicateOp::kLessOrEqual;
    default: return op;
  }
}

std::optional<PredicateOp> ComparisonOp(const std::string& type) {
  if (type == "COMPARE_EQUAL") return PredicateOp::kEqual;
  if (type == "COMPARE_LESSTHAN") return PredicateOp::kLess;
  if (type == "COMPARE_LESSTHANOREQUALTO") return PredicateOp::kLessOrEqual;
  if (type == "COMPARE_GREATERTHAN") return PredicateOp::kGreater;
  if (type == "COMPARE_GREATERTHANOREQUALTO") return PredicateOp::kGreaterOrEqual;
  return std::nullopt;
}

class StatementAnalysis {
 public:
  StatementAnalysis(const std::map<std::string, std::pair<TableIdentifier, LakeViewKind>>& views) : views_(views) {}

  // Pass 1: every table reference of the statement.
  void CollectReferences(const Json& node) {
    if (node.is_object()) {
      if (Is(node, "type", "BASE_TABLE")) {
        BaseTable(node);
      } else if (Is(node, "type", "TABLE_FUNCTION")) {
        TableFunction(node);
      }
      for (const auto& [key, child] : node.items()) CollectReferences(child);
    } else if (node.is_array()) {
      for (const Json& child : node) CollectReferences(child);
    }
  }

  // Pass 2: the conditions of every SELECT on the references its FROM reads directly.
  void CollectConditions(const Json& node) {
    if (node.is_object()) {
      if (Is(node, "type", "SELECT_NODE")) SelectNode(node);
      for (const auto& [key, child] : node.items()) CollectConditions(child);
    } else if (node.is_array()) {
      for (const Json& child : node) CollectConditions(child);
    }
  }

  bool disabled() const { return disabled_; }
  const std::vector<Reference>& references() const { return references_; }
  const std::vector<RawCondition>& conditions() const { return conditions_; }
  // Whether the reference is its table's only one.
  bool Single(const Reference& ref) const {
    auto it = uses_.find(Key(ref.id));
    return it != uses_.end() && it->second.count == 1;
  }

 private:
  static std::string Key(const TableIdentifier& id) { return ViewKey(id.database, id.table); }

  void Unusable(const TableIdentifier& id) { uses_[Key(id)].count += 2; }

  // `FROM t AS a(x, y)` renames the table's columns: names in the WHERE then mean other columns.
  static bool RenamesNothing(const Json& node) {
    auto it = node.find("column_name_alias");
    return it == node.end() || !it->is_array() || it->empty();
  }

  void BaseTable(const Json& node) {
    std::string catalog = ToLower(StringOf(node, "catalog_name"));
    std::string schema = StringOf(node, "schema_name");
    std::string table = StringOf(node, "table_name");
    if (schema.empty()) {
      // An unqualified name may reach a lake view through the search path: every table of that name is
      // then unusable.
      for (const auto& [key, view] : views_) {
        if (key.substr(key.find('\x1f') + 1) == ToLower(table)) Unusable(view.first);
      }
      return;
    }
    auto it = views_.find(ViewKey(schema, table));
    if (it == views_.end()) return;
    const auto& [id, kind] = it->second;
    if ((!catalog.empty() && catalog != "memory") || kind == LakeViewKind::kOther || !node["sample"].is_null() ||
        !RenamesNothing(node)) {
      Unusable(id);
      return;
    }
    Reference ref;
    ref.id = id;
    ref.read_optimized = kind == LakeViewKind::kReadOptimized;
    std::string alias = StringOf(node, "alias");
    ref.binding = ToLower(alias.empty() ? table : alias);
    if (alias.empty()) {
      ref.schema_name = ToLower(schema);
      ref.table_name = ToLower(table);
    }
    ref.node = &node;
    Add(std::move(ref));
  }

  void TableFunction(const Json& node) {
    const Json& function = node["function"];
    if (ToLower(StringOf(function, "function_name")) != "paimon_scan") return;
    const Json& children = function["children"];
    if (!children.is_array() || children.empty()) {
      disabled_ = true;
      return;
    }
    std::optional<Constant> name = ConstantOf(children[0]);
    const Json& first = children[0];
    if (!name || name->kind != ConstantKind::kString || !StringOf(first, "alias").empty()) {
      disabled_ = true;  // a table named by an expression: which one is read cannot be known here
      return;
    }
    auto id = ParseSqlTableName(first["value"]["value"].get<std::string>());
    if (!id.ok()) return;  // the bind fails the statement anyway
    Reference ref;
    ref.id = *id;
    bool usable = node["sample"].is_null() && RenamesNothing(node);
    for (size_t i = 1; i < children.size(); ++i) {
      const Json& arg = children[i];
      std::string param = ToLower(StringOf(arg, "alias"));
      std::optional<Constant> value = ConstantOf(arg);
      if ((param == "snapshot_id" || param == "timestamp_ms") && value && value->kind == ConstantKind::kNumber &&
          arg["value"]["value"].is_number_integer()) {
        (param == "snapshot_id" ? ref.selector.snapshot_id : ref.selector.timestamp_ms) =
            arg["value"]["value"].get<int64_t>();
      } else if (param == "tag" && value && value->kind == ConstantKind::kString) {
        ref.selector.tag = arg["value"]["value"].get<std::string>();
      } else if (param == "read_optimized" && Is(arg, "type", "OPERATOR_CAST") &&
                 arg["cast_type"].value("id", "") == "BOOLEAN" && Is(arg["child"], "type", "VALUE_CONSTANT") &&
                 arg["child"]["value"]["value"].is_string()) {
        std::string text = arg["child"]["value"]["value"].get<std::string>();
        if (text == "t") {
          ref.read_optimized = true;
        } else if (text != "f") {
          usable = false;
        }
      } else {
        usable = false;  // a change read, NULL, or an expression
      }
    }
    if (!usable) {
      Unusable(ref.id);
      return;
    }
    std::string alias = StringOf(node, "alias");
    ref.binding = ToLower(alias.empty() ? "paimon_scan" : alias);
    ref.node = &node;
    Add(std::move(ref));
  }

  void Add(Reference ref) {
    uses_[Key(ref.id)].count += 1;
    by_node_[ref.node] = references_.size();
    references_.push_back(std::move(ref));
  }

  // The references of a FROM whose rows the WHERE filters (see the header); `single` tells whether the
  // FROM is one table alone.
  void Reach(const Json& from, bool preserved, std::vector<size_t>* out) {
    if (!from.is_object()) return;
    if (Is(from, "type", "BASE_TABLE") || Is(from, "type", "TABLE_FUNCTION")) {
      auto it = by_node_.find(&from);
      if (preserved && it != by_node_.end()) out->push_back(it->second);
      return;
    }
    if (!Is(from, "type", "JOIN")) return;
    std::string ref_type = StringOf(from, "ref_type");
    std::string join_type = StringOf(from, "join_type");
    bool left = false, right = false;
    if (ref_type == "REGULAR" || ref_type == "NATURAL" || ref_type == "CROSS") {
      if (join_type == "INNER") left = right = true;
      if (join_type == "LEFT" || join_type == "SEMI" || join_type == "ANTI") left = true;
      if (join_type == "RIGHT") right = true;
    }
    Reach(from["left"], preserved && left, out);
    Reach(from["right"], preserved && right, out);
  }

  static void Conjuncts(const Json& e, std::vector<const Json*>* out) {
    if (Is(e, "type", "CONJUNCTION_AND") && e["children"].is_array()) {
      for (const Json& child : e["children"]) Conjuncts(child, out);
    } else if (e.is_object()) {
      out->push_back(&e);
    }
  }

  void SelectNode(const Json& node) {
    if (!node["sample"].is_null()) return;
    const Json& where = node["where_clause"];
    if (!where.is_object()) return;
    const Json& from = node["from_table"];
    std::vector<size_t> reached;
    Reach(from, true, &reached);
    if (reached.empty()) return;
    bool single = Is(from, "type", "BASE_TABLE") || Is(from, "type", "TABLE_FUNCTION");
    std::vector<const Json*> conjuncts;
    Conjuncts(where, &conjuncts);
    for (const Json* c : conjuncts) Condition(*c, reached, single);
  }

  // The reference a column reference names, if exactly one of `reached` (else nullopt); `column` gets
  // the column's name.
  std::optional<size_t> Resolve(const Json& e, const std::vector<size_t>& reached, bool single, std::string* column) {
    if (!Is(e, "type", "COLUMN_REF") || !e["column_names"].is_array()) return std::nullopt;
    std::vector<std::string> names;
    for (const Json& n : e["column_names"]) {
      if (!n.is_string()) return std::nullopt;
      names.push_back(n.get<std::string>());
    }
    std::optional<size_t> found;
    int matches = 0;
    for (size_t r : reached) {
      const Reference& ref = references_[r];
      bool match = false;
      if (names.size() == 1) {
        match = single;
      } else if (names.size() == 2) {
        match = ToLower(names[0]) == ref.binding;
      } else if (names.size() == 3) {
        match = !ref.schema_name.empty() && ToLower(names[0]) == ref.schema_name && ToLower(names[1]) == ref.table_name;
      }
      if (match) {
        found = r;
        ++matches;
      }
    }
    if (matches != 1) return std::nullopt;
    *column = names.back();
    return found;
  }

  void Condition(const Json& e, const std::vector<size_t>& reached, bool single) {
    std::string type = StringOf(e, "type");
    RawCondition condition;
    std::optional<size_t> ref;
    if (auto op = ComparisonOp(type); op && Is(e, "class", "COMPARISON")) {
      std::optional<Constant> right = ConstantOf(e["right"]);
      std::optional<Constant> left = ConstantOf(e["left"]);
      if (right && (ref = Resolve(e["left"], reached, single, &condition.column))) {
        condition.op = *op;
        condition.constants.push_back(*right);
      } else if (left && (ref = Resolve(e["right"], reached, single, &condition.column))) {
        condition.op = Flip(*op);
        condition.constants.push_back(*left);
      } else {
        return;
      }
    } else if (type == "COMPARE_IN" && e["children"].is_array() && e["children"].size() >= 2) {
      const Json& children = e["children"];
      if (!(ref = Resolve(children[0], reached, single, &condition.column))) return;
      condition.op = PredicateOp::kIn;
      for (size_t i = 1; i < children.size(); ++i) {
        std::optional<Constant> c = ConstantOf(children[i]);
        if (!c) return;
        condition.constants.push_back(*c);
      }
    } else if (type == "COMPARE_BETWEEN") {
      std::optional<Constant> lower = ConstantOf(e["lower"]);
      std::optional<Constant> upper = ConstantOf(e["upper"]);
      if (!lower || !upper || !(ref = Resolve(e["input"], reached, single, &condition.column))) return;
      RawCondition low = condition;
      low.reference = *ref;
      low.op = PredicateOp::kGreaterOrEqual;
      low.constants.push_back(*lower);
      conditions_.push_back(std::move(low));
      condition.op = PredicateOp::kLessOrEqual;
      condition.constants.push_back(*upper);
    } else if ((type == "OPERATOR_IS_NULL" || type == "OPERATOR_IS_NOT_NULL") && e["children"].is_array() &&
               e["children"].size() == 1) {
      if (!(ref = Resolve(e["children"][0], reached, single, &condition.column))) return;
      condition.op = type == "OPERATOR_IS_NULL" ? PredicateOp::kIsNull : PredicateOp::kIsNotNull;
    } else {
      return;
    }
    condition.reference = *ref;
    conditions_.push_back(std::move(condition));
  }

  const std::map<std::string, std::pair<TableIdentifier, LakeViewKind>>& views_;
  std::vector<Reference> references_;
  std::map<const Json*, size_t> by_node_;
  std::map<std::string, TableUse> uses_;
  std::vector<RawCondition> conditions_;
  bool disabled_ = false;
};

// The field of `schema` a column name written in SQL names: the same spelling, else the only one equal
// without regard to case (DuckDB's rule).
const DataField* FindField(const TableSchema& schema, const std::string& name) {
  const DataField* folded = nullptr;
  int matches = 0;
  for (const DataField& f : schema.fields) {
    if (f.name == name) return &f;
    if (ToLower(f.name) == ToLower(name)) {
      folded = &f;
      ++matches;
    }
  }
  return matches == 1 ? folded : nullptr;
}

}  // namespace

void FilterPushdown::AddView(const std::string& schema, const std::string& view, const TableIdentifier& id,
                             LakeViewKind kind) {
  View v;
  v.id = id;
  v.kind = kind;
  views_[ViewKey(schema, view)] = std::move(v);
}

Status FilterPushdown::SnapshotViewDefinitions(DuckConnection& connection) {
  TIDE_ASSIGN_OR_RETURN(DuckResult result,
                        connection.Query("SELECT schema_name, view_name, sql FROM duckdb_views() WHERE NOT internal "
                                         "AND database_name = current_database()"));
  idx_t rows = duckdb_row_count(result.raw());
  for (idx_t r = 0; r < rows; ++r) {
    char* schema = duckdb_value_varchar(result.raw(), 0, r);
    char* view = duckdb_value_varchar(result.raw(), 1, r);
    char* sql = duckdb_value_varchar(result.raw(), 2, r);
    auto it = views_.find(ViewKey(schema ? schema : "", view ? view : ""));
    if (it != views_.end()) it->second.definition = sql ? sql : "";
    duckdb_free(schema);
    duckdb_free(view);
    duckdb_free(sql);
  }
  return Status::OK();
}

Status FilterPushdown::CheckViews(DuckConnection& connection) {
  TIDE_ASSIGN_OR_RETURN(DuckResult result,
                        connection.Query("SELECT schema_name, view_name, sql FROM duckdb_views() WHERE NOT internal "
                                         "AND database_name = current_database()"));
  std::map<std::string, std::string> now;
  idx_t rows = duckdb_row_count(result.raw());
  for (idx_t r = 0; r < rows; ++r) {
    char* schema = duckdb_value_varchar(result.raw(), 0, r);
    char* view = duckdb_value_varchar(result.raw(), 1, r);
    char* sql = duckdb_value_varchar(result.raw(), 2, r);
    now[ViewKey(schema ? schema : "", view ? view : "")] = sql ? sql : "";
    duckdb_free(schema);
    duckdb_free(view);
    duckdb_free(sql);
  }
  // A view replaced or dropped (even if recreated the same way later) is not the lake's any more.
  std::erase_if(views_, [&](const auto& entry) {
    auto it = now.find(entry.first);
    return it == now.end() || it->second != entry.second.definition;
  });
  views_checked_ = true;
  return Status::OK();
}

namespace {

// Whether `statement` is one plain query (its first word SELECT or FROM, no `;` but a final one): such a
// statement cannot create or replace a view.
bool IsPlainQuery(const std::string& statement) {
  std::string lower = ToLower(statement);
  size_t start = lower.find_first_not_of(" \t\r\n(");
  if (start == std::string::npos) return false;
  size_t semicolon = lower.find(';');
  if (semicolon != std::string::npos && lower.find_first_not_of(" \t\r\n;", semicolon) != std::string::npos) {
    return false;
  }
  return lower.compare(start, 6, "select") == 0 || lower.compare(start, 4, "from") == 0;
}

}  // namespace

std::shared_ptr<const StatementFilters> FilterPushdown::Analyze(DuckConnection& connection,
                                                                const std::string& statement) {
  // Off, or without a WHERE (nothing to push; the parse, a few milliseconds, is saved): a statement that
  // may have changed views has them checked before the next analysis.
  if (!enabled_ || ToLower(statement).find("where") == std::string::npos) {
    if (!IsPlainQuery(statement)) views_checked_ = false;
    return nullptr;
  }
  Result<std::shared_ptr<const StatementFilters>> filters = AnalyzeOrFail(connection, statement);
  if (!filters.ok()) return nullptr;
  return std::move(filters).value();
}

Result<std::shared_ptr<const StatementFilters>> FilterPushdown::AnalyzeOrFail(DuckConnection& connection,
                                                                              const std::string& statement) {
  if (!views_checked_) TIDE_RETURN_IF_ERROR(CheckViews(connection));
  TIDE_ASSIGN_OR_RETURN(DuckResult parsed, connection.Query("SELECT json_serialize_sql(" + QuoteSqlString(statement) + ")"));
  char* text = duckdb_value_varchar(parsed.raw(), 0, 0);
  if (text == nullptr) return std::shared_ptr<const StatementFilters>();
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  duckdb_free(text);
  if (json.is_discarded() || json.value("error", true) || !json["statements"].is_array() ||
      json["statements"].size() != 1) {
    // Not a SELECT: it may have created, replaced or dropped views; check them before the next one.
    views_checked_ = false;
    return std::shared_ptr<const StatementFilters>();
  }
  std::map<std::string, std::pair<TableIdentifier, LakeViewKind>> views;
  for (const auto& [key, view] : views_) views.emplace(key, std::make_pair(view.id, view.kind));
  StatementAnalysis analysis(views);
  analysis.CollectReferences(json["statements"]);
  if (analysis.disabled()) return std::shared_ptr<const StatementFilters>();
  analysis.CollectConditions(json["statements"]);
  if (analysis.conditions().empty()) return std::shared_ptr<const StatementFilters>();

  // The conditions of single references, with their columns' fields.
  struct Pending {
    size_t reference;
    const RawCondition* condition;
    DataField field;
    size_t first_column;  // of its constants in the conversion query
  };
  std::vector<Pending> pending;
  std::map<size_t, TableSchema> schemas;
  std::vector<std::string> columns;
  for (const RawCondition& condition : analysis.conditions()) {
    const Reference& ref = analysis.references()[condition.reference];
    if (!analysis.Single(ref)) continue;
    auto schema = schemas.find(condition.reference);
    if (schema == schemas.end()) {
      Result<TableSchema> read = source_->ReadSchema(ref.id, ref.selector);
      if (!read.ok()) continue;
      schema = schemas.emplace(condition.reference, std::move(read).value()).first;
    }
    const DataField* field = FindField(schema->second, condition.column);
    if (field == nullptr) continue;
    bool null_test = condition.op == PredicateOp::kIsNull || condition.op == PredicateOp::kIsNotNull;
    if (!null_test && !PrunableType(field->type)) continue;
    bool compatible = true;
    for (const Constant& c : condition.constants) compatible = compatible && Compatible(field->type, c);
    if (!compatible || columns.size() + 2 * condition.constants.size() > 2 * kMaxConstants) continue;
    Pending p{condition.reference, &condition, *field, columns.size()};
    std::string type = DuckTypeSqlName(field->type);
    for (const Constant& c : condition.constants) {
      columns.push_back(fmt::format("TRY_CAST(({0}) AS {1})", c.sql, type));
      columns.push_back(fmt::format("TRY_CAST(({0}) AS {1}) = ({0})", c.sql, type));
    }
    pending.push_back(std::move(p));
  }
  if (pending.empty()) return std::shared_ptr<const StatementFilters>();

  // The constants in the columns' types, converted by DuckDB; and whether strings compare as bytes.
  columns.push_back("current_setting('default_collation')");
  TIDE_ASSIGN_OR_RETURN(DuckResult converted, connection.Query("SELECT " + Join(columns, ", ")));
  DuckDataChunk chunk = converted.FetchChunk();
  if (!chunk || chunk.size() != 1) return std::shared_ptr<const StatementFilters>();
  auto decode = [&](size_t column, const DataType& type) -> std::optional<Datum> {
    DuckLogicalType logical = converted.column_logical_type(column);
    auto decoder = VectorDecoder::Create(logical.raw(), type, nullptr, "constant");
    if (!decoder.ok()) return std::nullopt;
    (*decoder)->Bind(duckdb_data_chunk_get_vector(chunk.raw(), column));
    return (*decoder)->Get(0);
  };
  std::optional<Datum> collation = decode(columns.size() - 1, DataType::String());
  bool binary_strings = collation && !collation->is_null() && collation->as_string().empty();

  std::map<size_t, std::shared_ptr<ScanPredicate>> predicates;
  for (const Pending& p : pending) {
    if (p.field.type.IsString() && !binary_strings) continue;
    ColumnPredicate predicate;
    predicate.field_id = p.field.id;
    predicate.column = p.field.name;
    predicate.type = p.field.type;
    predicate.op = p.condition->op;
    bool exact = true;
    for (size_t i = 0; i < p.condition->constants.size() && exact; ++i) {
      size_t at = p.first_column + 2 * i;
      std::optional<Datum> value = decode(at, p.field.type);
      std::optional<Datum> same = decode(at + 1, DataType::Boolean());
      exact = value && !value->is_null() && same && !same->is_null() && same->as_bool();
      if (exact && p.field.type.IsTimestamp() && p.field.type.precision() < 6) {
        // DuckDB's TIMESTAMP holds microseconds; the column fewer digits: a finer constant is not exact.
        DataType micros = p.field.type.root() == TypeRoot::kTimestamp ? DataType::Timestamp(6) : DataType::TimestampLtz(6);
        std::optional<Datum> fine = decode(at, micros);
        exact = fine && *fine == *value;
      }
      if (exact) predicate.values.push_back(std::move(*value));
    }
    if (!exact) continue;
    auto& target = predicates[p.reference];
    if (!target) target = std::make_shared<ScanPredicate>();
    target->conjuncts.push_back(std::move(predicate));
  }
  if (predicates.empty()) return std::shared_ptr<const StatementFilters>();
  auto filters = std::make_shared<StatementFilters>();
  for (auto& [reference, predicate] : predicates) {
    const Reference& ref = analysis.references()[reference];
    auto filter = std::make_shared<PushedFilter>();
    filter->id = ref.id;
    filter->selector = ref.selector;
    filter->read_optimized = ref.read_optimized;
    filter->predicate = std::move(predicate);
    filters->filters.push_back(std::move(filter));
  }
  return std::shared_ptr<const StatementFilters>(std::move(filters));
}

}  // namespace tide
