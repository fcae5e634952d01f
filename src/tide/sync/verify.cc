#include "tide/sync/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/catalog/catalog.h"
#include "tide/format/duckdb_handle.h"
#include "tide/io/file_system.h"
#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/pg_type.h"
#include "tide/postgres/pg_type_mapping.h"
#include "tide/postgres/pg_value_decoder.h"
#include "tide/postgres/replication_slot.h"
#include "tide/sql/lake_connection.h"
#include "tide/sync/canonical_value_sql.h"
#include "tide/sync/metadata_column.h"
#include "tide/sync/table_selection.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/postgres/sql_quote.h"

namespace tide {
namespace {

using Clock = std::chrono::steady_clock;
using Rows = std::vector<std::vector<std::optional<std::string>>>;

constexpr std::string_view kSyncCommitUserPrefix = "tide-sync-";
// Attempts that confirm differing keys (header comment, step 5).
constexpr int kConfirmAttempts = 3;

Result<Rows> PgRows(PgConnection& conn, const std::string& sql) {
  TIDE_ASSIGN_OR_RETURN(PgResult result, conn.Query(sql));
  Rows rows;
  for (int r = 0; r < result.rows(); ++r) {
    auto& row = rows.emplace_back();
    for (int c = 0; c < result.columns(); ++c) {
      if (result.IsNull(r, c)) {
        row.emplace_back(std::nullopt);
      } else {
        row.emplace_back(std::string(result.Value(r, c)));
      }
    }
  }
  return rows;
}

// Every column of `sql` must be VARCHAR.
Result<Rows> DuckRows(DuckConnection& conn, const std::string& sql) {
  TIDE_ASSIGN_OR_RETURN(DuckResult result, conn.Query(sql));
  Rows rows;
  const idx_t columns = result.column_count();
  for (idx_t c = 0; c < columns; ++c) {
    if (result.column_type(c) != DUCKDB_TYPE_VARCHAR) {
      return Status::Internal("verify query column {} is not VARCHAR: {}", c, sql);
    }
  }
  while (true) {
    DuckDataChunk chunk = result.FetchChunk();
    if (!chunk) break;
    const idx_t n = chunk.size();
    if (n == 0) break;
    size_t base = rows.size();
    rows.resize(base + n);
    for (idx_t c = 0; c < columns; ++c) {
      duckdb_vector vector = chunk.column(c);
      auto* strings = static_cast<duckdb_string_t*>(duckdb_vector_get_data(vector));
      uint64_t* validity = duckdb_vector_get_validity(vector);
      for (idx_t r = 0; r < n; ++r) {
        if (validity && !duckdb_validity_row_is_valid(validity, r)) {
          rows[base + r].emplace_back(std::nullopt);
        } else {
          rows[base + r].emplace_back(std::string(duckdb_string_t_data(&strings[r]), duckdb_string_t_length(strings[r])));
        }
      }
    }
  }
  TIDE_RETURN_IF_ERROR(result.error());
  return rows;
}

// One side's SQL over one table: PostgreSQL, or DuckDB over one lake snapshot. Built once per table;
// only the lake's FROM changes between snapshots.
struct SideSql {
  bool postgres = false;
  std::string from;      // a table or table function call
  std::string key_text;  // the key's canonical text (the row's when the table has no key)
  std::string row_text;  // the row's canonical text: every compared column's piece
  std::vector<std::string> column_pieces;
  std::string display;                 // the key as people read it
  std::vector<std::string> order_asc;  // ORDER BY of the smallest key (empty without a key)
  std::vector<std::string> order_desc;

  std::string Text(const std::string& expr) const {
    return postgres ? "(" + expr + ")::text" : "CAST(" + expr + " AS VARCHAR)";
  }
  std::string RowHash() const { return postgres ? PgRowHash(row_text) : LakeRowHash(row_text); }
  // Rows of (key hash, row hash).
  std::string HashedRows() const {
    return fmt::format("(SELECT md5({}) AS tide_kh, {} AS tide_h FROM {}) AS tide_rows", key_text, RowHash(), from);
  }
  std::string Summary() const {
    return fmt::format("SELECT {}, {}, {} FROM {}", Text("count(*)"), Text("count(DISTINCT tide_kh)"),
                       Text("coalesce(sum(tide_h), 0)"), HashedRows());
  }
  std::string Extreme(bool smallest) const {
    return fmt::format("SELECT {} FROM {} ORDER BY {} LIMIT 1", display, from,
                       Join(smallest ? order_asc : order_desc, ", "));
  }
  std::string Children(const std::vector<std::string>& parents) const {
    size_t depth = parents.empty() ? 1 : parents.front().size() + 1;
    std::string where;
    if (depth > 1) {
      std::vector<std::string> quoted;
      for (const auto& p : parents) quoted.push_back(SqlQuoteLiteral(p));
      where = fmt::format(" WHERE substr(tide_kh, 1, {}) IN ({})", depth - 1, Join(quoted, ", "));
    }
    return fmt::format("SELECT substr(tide_kh, 1, {0}), {1}, {2} FROM {3}{4} GROUP BY 1", depth, Text("count(*)"),
                       Text("coalesce(sum(tide_h), 0)"), HashedRows(), where);
  }
  // Rows of the keys whose hash starts with one of `prefixes`: hash, count, display, column hashes.
  std::string Leaves(const std::vector<std::string>& prefixes) const {
    std::vector<std::string> likes;
    for (const auto& p : prefixes) likes.push_back("tide_kh LIKE " + SqlQuoteLiteral(p + "%"));
    std::vector<std::string> hashes, mins;
    for (size_t i = 0; i < column_pieces.size(); ++i) {
      hashes.push_back(fmt::format("md5({}) AS tide_c{}", column_pieces[i], i));
      mins.push_back(fmt::format("min(tide_c{})", i));
    }
    return fmt::format(
        "SELECT tide_kh, {}, min(tide_display), {} FROM (SELECT md5({}) AS tide_kh, {} AS tide_display, {} FROM {}) "
        "AS tide_rows WHERE {} GROUP BY tide_kh",
        Text("count(*)"), Join(mins, ", "), key_text, display, Join(hashes, ", "), from, Join(likes, " OR "));
  }
};

// A lake snapshot and the source position it holds.
struct LakeVersion {
  int64_t snapshot_id = 0;
  Lsn position = kInvalidLsn;
};

struct LakeVersions {
  std::optional<LakeVersion> before;  // the newest below L
  std::optional<LakeVersion> after;   // the oldest at or beyond L
  std::string commit_user;
};

// Header comment, step 2. `commit_user` empty: any sync's.
Result<LakeVersions> FindLakeVersions(FileSystem* fs, const std::string& path, Lsn l, const std::string& commit_user) {
  SnapshotManager snapshots(fs, path);
  LakeVersions out;
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  if (!latest) return out;
  TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
  std::vector<int64_t> above;  // newer snapshots of other writers: they hold the position found below them
  for (int64_t id = *latest; id >= earliest.value_or(1); --id) {
    auto s = snapshots.Get(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) break;  // expired underneath us
      return s.status();
    }
    bool sync = commit_user.empty() ? StartsWith(s->commit_user, kSyncCommitUserPrefix) : s->commit_user == commit_user;
    if (!sync) {
      above.push_back(id);
      continue;
    }
    if (out.commit_user.empty()) out.commit_user = s->commit_user;
    if (s->commit_user != out.commit_user) continue;  // another sync's snapshot: not this table's position
    Lsn position = static_cast<Lsn>(s->commit_identifier);
    if (position >= l) {
      out.after = LakeVersion{id, position};
      above.clear();
      continue;
    }
    out.before = LakeVersion{above.empty() ? id : above.front(), position};
    break;
  }
  return out;
}

// The compared columns of one table and both sides' SQL.
struct TablePlan {
  PgTableName source;
  std::string lake_name;  // db.table
  std::string lake_path;
  std::vector<std::string> columns;  // compared, in PostgreSQL's order
  bool keyed = false;
  SideSql postgres;
  SideSql lake;  // `from` set per snapshot
  std::string lake_filter;  // a WHERE on the lake rows of this source (a shard of an --into table)
  std::vector<std::string> notes;
  std::optional<VerifyCheck> columns_check;  // PostgreSQL columns the lake lacks
};

// `shard`: the source is one of several in the lake table (--into); its rows there are those whose
// `table_name` metadata column holds its name.
Result<TablePlan> PlanTable(PgConnection& conn, PgTypeRegistry* types, FileSystem* fs, const PgTableName& source,
                            const std::string& lake_name, const std::string& lake_path, bool shard) {
  TablePlan plan;
  plan.source = source;
  plan.lake_name = lake_name;
  plan.lake_path = lake_path;
  TIDE_ASSIGN_OR_RETURN(TableSchema schema, SchemaManager(fs, lake_path).Latest());
  if (shard) {
    auto is_table_name = [](const DataField& f) {
      return f.description && *f.description == "metadata: " + std::string(MetadataColumnName(MetadataColumn::kTableName));
    };
    auto field = std::find_if(schema.fields.begin(), schema.fields.end(), is_table_name);
    if (field == schema.fields.end()) {
      return Status::InvalidArgument(
          "lake table {} has no table_name metadata column, so the rows of {} cannot be told from those of the other "
          "tables merged into it; is --into the sync's?",
          lake_name, source.ToString());
    }
    plan.lake_filter = fmt::format(" WHERE {} = {}", QuoteSqlIdentifier(field->name), QuoteSqlString(source.name));
  }
  const std::string regclass = SqlQuoteLiteral(source.Quoted()) + "::regclass";
  TIDE_ASSIGN_OR_RETURN(
      Rows cols, PgRows(conn, "SELECT a.attname, a.atttypid::text, a.atttypmod::text, "
                              "coalesce((SELECT k.n FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) "
                              "WHERE k.attnum = a.attnum), 0)::text "
                              "FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary "
                              "WHERE a.attrelid = " + regclass +
                              " AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum"));
  PgRelation relation;
  std::map<int, std::string> key_by_position;
  for (const auto& row : cols) {
    PgRelationColumn col;
    col.name = *row[0];
    TIDE_ASSIGN_OR_RETURN(int64_t oid, ParseInt64(*row[1], "pg_attribute.atttypid"));
    TIDE_ASSIGN_OR_RETURN(int64_t typmod, ParseInt64(*row[2], "pg_attribute.atttypmod"));
    TIDE_ASSIGN_OR_RETURN(int64_t key_position, ParseInt64(*row[3], "primary key position"));
    col.type_oid = static_cast<PgOid>(oid);
    col.type_modifier = static_cast<int32_t>(typmod);
    col.is_key = key_position > 0;
    if (col.is_key) key_by_position[static_cast<int>(key_position)] = col.name;
    relation.columns.push_back(std::move(col));
  }
  TIDE_RETURN_IF_ERROR(ResolveRelationTypes(conn, relation, types));

  std::vector<std::string> missing;
  std::map<std::string, std::pair<std::string, std::string>> text_by_column;  // name -> (pg, lake) canonical text
  std::map<std::string, std::string> pg_type_by_column;
  for (const PgRelationColumn& col : relation.columns) {
    int field = schema.FieldIndex(col.name);
    if (field < 0) {
      missing.push_back(col.name);
      continue;
    }
    const DataField& f = schema.fields[static_cast<size_t>(field)];
    TIDE_ASSIGN_OR_RETURN(PgTypeMapping mapping, MapPgType(col.type_oid, col.type_modifier, *types));
    const std::string quoted = SqlQuoteIdentifier(col.name);
    auto lake_text = LakeCanonicalText(f.type, QuoteSqlIdentifier(col.name));
    if (!lake_text.ok()) {
      return lake_text.status().WithContext(fmt::format("table {} column {}", lake_name, col.name));
    }
    plan.columns.push_back(col.name);
    text_by_column[col.name] = {PgCanonicalText(mapping, quoted), *lake_text};
    pg_type_by_column[col.name] = mapping.type.IsString() ? "text" : "";
  }
  if (!missing.empty()) {
    plan.columns_check = VerifyCheck{"columns", Join(missing, ", "), "(missing)"};
  }
  for (const DataField& f : schema.fields) {
    bool derived = f.description && (StartsWith(*f.description, "computed: ") || StartsWith(*f.description, "metadata: "));
    bool in_pg = std::any_of(relation.columns.begin(), relation.columns.end(),
                             [&](const PgRelationColumn& c) { return c.name == f.name; });
    if (!derived && !in_pg) {
      plan.notes.push_back(fmt::format("lake column {} is not in PostgreSQL (dropped there?): not compared", f.name));
    }
  }
  if (plan.columns.empty()) {
    return Status::InvalidArgument("table {} and {} have no column in common to compare", source.ToString(), lake_name);
  }

  std::vector<std::string> keys;
  for (const auto& [position, name] : key_by_position) {
    if (text_by_column.count(name) == 0) {
      return Status::InvalidArgument("table {}: primary-key column {} is not in the lake table {}", source.ToString(),
                                     name, lake_name);
    }
    keys.push_back(name);
  }
  plan.keyed = !keys.empty();

  SideSql& pg = plan.postgres;
  SideSql& lake = plan.lake;
  pg.postgres = true;
  pg.from = source.Quoted();
  std::vector<std::string> pg_row, lake_row, pg_display, lake_display;
  for (const std::string& name : plan.columns) {
    const auto& [pg_text, lake_text] = text_by_column.at(name);
    pg.column_pieces.push_back(PgCanonicalPiece(pg_text));
    lake.column_pieces.push_back(LakeCanonicalPiece(lake_text));
  }
  pg.row_text = Join(pg.column_pieces, " || ");
  lake.row_text = Join(lake.column_pieces, " || ");
  if (plan.keyed) {
    std::vector<std::string> pg_key, lake_key;
    for (const std::string& name : keys) {
      const auto& [pg_text, lake_text] = text_by_column.at(name);
      pg_key.push_back(PgCanonicalPiece(pg_text));
      lake_key.push_back(LakeCanonicalPiece(lake_text));
      const std::string pq = SqlQuoteIdentifier(name), lq = QuoteSqlIdentifier(name);
      pg_display.push_back(fmt::format("{} || '=' || coalesce({}::text, 'NULL')", SqlQuoteLiteral(name), pq));
      lake_display.push_back(fmt::format("{} || '=' || coalesce(CAST({} AS VARCHAR), 'NULL')", SqlQuoteLiteral(name), lq));
      // Both engines must order keys alike: texts by their bytes (DuckDB's only order), the rest natively.
      std::string pg_order = pg_type_by_column.at(name) == "text" ? fmt::format("({}::text) COLLATE \"C\"", pq) : pq;
      pg.order_asc.push_back(pg_order);
      pg.order_desc.push_back(pg_order + " DESC");
      lake.order_asc.push_back(lq);
      lake.order_desc.push_back(lq + " DESC");
    }
    pg.key_text = Join(pg_key, " || ");
    lake.key_text = Join(lake_key, " || ");
    pg.display = Join(pg_display, " || ', ' || ");
    lake.display = Join(lake_display, " || ', ' || ");
  } else {
    pg.key_text = pg.row_text;
    lake.key_text = lake.row_text;
    for (const std::string& name : plan.columns) {
      pg_display.push_back(fmt::format("coalesce({}::text, 'NULL')", SqlQuoteIdentifier(name)));
      lake_display.push_back(fmt::format("coalesce(CAST({} AS VARCHAR), 'NULL')", QuoteSqlIdentifier(name)));
    }
    pg.display = "'(' || " + Join(pg_display, " || ', ' || ") + " || ')'";
    lake.display = "'(' || " + Join(lake_display, " || ', ' || ") + " || ')'";
  }
  return plan;
}

// The PostgreSQL session of one table's comparison.
class PgSide {
 public:
  explicit PgSide(PgConnection* conn) : conn_(conn) {}
  ~PgSide() {
    if (open_) conn_->Execute("ROLLBACK").IgnoreError();
  }
  // Header comment, step 1: a new snapshot and its L.
  Result<Lsn> Begin() {
    if (open_) TIDE_RETURN_IF_ERROR(End());
    TIDE_RETURN_IF_ERROR(conn_->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    open_ = true;
    TIDE_ASSIGN_OR_RETURN(Rows rows, PgRows(*conn_, "SELECT pg_current_wal_insert_lsn()::text"));
    return ParseLsn(rows.at(0).at(0).value_or(""));
  }
  Status End() {
    open_ = false;
    return conn_->Execute("COMMIT");
  }
  Result<Rows> Query(const std::string& sql) { return PgRows(*conn_, sql); }
  PgConnection& conn() { return *conn_; }

 private:
  PgConnection* conn_;
  bool open_ = false;
};

struct Comparison {
  bool match = false;
  RangeChecksum postgres_total;
  std::vector<KeyVerdict> differing;  // missing, extra or differing keys
  std::vector<std::string> in_flight;  // key hashes
};

std::map<std::string, KeyRows> ToKeyRows(const Rows& rows) {
  std::map<std::string, KeyRows> out;
  for (const auto& row : rows) {
    KeyRows k;
    k.count = std::stoll(row.at(1).value_or("0"));
    k.display = row.at(2).value_or("");
    for (size_t c = 3; c < row.size(); ++c) k.column_hashes.push_back(row[c].value_or(""));
    out[row.at(0).value_or("")] = std::move(k);
  }
  return out;
}

std::map<std::string, RangeChecksum> ToChecksums(const Rows& rows) {
  std::map<std::string, RangeChecksum> out;
  for (const auto& row : rows) {
    out[row.at(0).value_or("")] = RangeChecksum{std::stoll(row.at(1).value_or("0")), row.at(2).value_or("0")};
  }
  return out;
}

class TableVerifier {
 public:
  TableVerifier(const VerifyOptions& options, FileSystem* fs, PgConnection* pg, LakeConnection* lake, TablePlan plan)
      : o_(options), fs_(fs), pg_(pg), lake_(lake), plan_(std::move(plan)) {}

  Result<TableVerifyReport> Run() {
    TableVerifyReport report;
    report.source = plan_.source.ToString();
    report.lake = plan_.lake_name;
    report.notes = plan_.notes;
    deadline_ = Clock::now() + o_.timeout;

    // Attempt 1: the whole table.
    TIDE_ASSIGN_OR_RETURN(Point point, TakePoint(/*wait=*/false));
    TIDE_ASSIGN_OR_RETURN(Comparison cmp, Compare(point, nullptr));
    if (!cmp.match && !point.consistent && point.slot_active) {
      // Step 4: the lake may be behind; wait for it with the same PostgreSQL snapshot.
      Progress(fmt::format("{}: keys differ; waiting for the lake to reach PostgreSQL's position {}", plan_.lake_name,
                           FormatLsn(point.l)));
      TIDE_RETURN_IF_ERROR(WaitForLake(&point));
      if (point.consistent) {
        TIDE_ASSIGN_OR_RETURN(cmp, Compare(point, nullptr));
      }
    }
    report.point = point.Describe();
    report.in_flight = static_cast<int64_t>(cmp.in_flight.size());
    if (cmp.match || (cmp.differing.empty() && point.consistent)) {
      report.consistent = true;
      report.match = !plan_.columns_check;
      if (plan_.columns_check) report.checks.push_back(*plan_.columns_check);
      TIDE_RETURN_IF_ERROR(pg_.End());
      return report;
    }
    if (!point.consistent) {
      // No consistent point: what differs may be the lake's lag, so it is reported as such.
      report.consistent = false;
      report.notes.push_back(fmt::format(
          "no consistent point found within {} ms: the lake did not reach PostgreSQL's position {} (is the sync "
          "keeping up?); the keys below may only be behind",
          o_.timeout.count(), FormatLsn(point.l)));
      TIDE_RETURN_IF_ERROR(SummaryChecks(point, &report));
      Keep(cmp.differing, &report);
      TIDE_RETURN_IF_ERROR(pg_.End());
      return report;
    }
    TIDE_RETURN_IF_ERROR(SummaryChecks(point, &report));
    TIDE_RETURN_IF_ERROR(pg_.End());
    report.consistent = true;

    // Step 5: confirm the differing keys at new points.
    std::vector<std::string> pending;
    for (const KeyVerdict& v : cmp.differing) pending.push_back(v.key_hash);
    for (const std::string& k : cmp.in_flight) pending.push_back(k);
    std::vector<KeyVerdict> confirmed;
    for (int attempt = 0; attempt < kConfirmAttempts && !pending.empty(); ++attempt) {
      TIDE_ASSIGN_OR_RETURN(Point again, TakePoint(/*wait=*/true));
      TIDE_ASSIGN_OR_RETURN(Comparison keys, Compare(again, &pending));
      TIDE_RETURN_IF_ERROR(pg_.End());
      report.point = again.Describe();
      if (!again.consistent) {
        report.consistent = false;
        report.notes.push_back(fmt::format("no consistent point found within {} ms to confirm the differing keys",
                                           o_.timeout.count()));
        for (auto& v : keys.differing) confirmed.push_back(std::move(v));
        pending.clear();
        break;
      }
      for (auto& v : keys.differing) confirmed.push_back(std::move(v));
      pending = keys.in_flight;
    }
    report.in_flight = static_cast<int64_t>(pending.size());
    std::sort(confirmed.begin(), confirmed.end(),
              [](const KeyVerdict& a, const KeyVerdict& b) { return a.display < b.display; });
    Keep(confirmed, &report);
    if (plan_.columns_check) report.checks.push_back(*plan_.columns_check);
    bool checks_ok = std::all_of(report.checks.begin(), report.checks.end(), [](const VerifyCheck& c) { return c.ok(); });
    report.match = confirmed.empty() && checks_ok;
    if (confirmed.empty() && !checks_ok) {
      report.notes.push_back("the whole-table figures differed, but no differing key was confirmed on a second look");
    }
    return report;
  }

 private:
  struct Point {
    Lsn l = kInvalidLsn;
    LakeVersions versions;
    bool consistent = false;
    bool slot_active = false;
    std::string slot;
    Lsn confirmed_flush = kInvalidLsn;

    std::string Describe() const {
      std::string text = fmt::format("PostgreSQL at {}", FormatLsn(l));
      if (versions.before) {
        text += fmt::format(", lake snapshot {} (position {})", versions.before->snapshot_id,
                            FormatLsn(versions.before->position));
      }
      if (versions.after) {
        text += fmt::format(" and {} (position {})", versions.after->snapshot_id, FormatLsn(versions.after->position));
      }
      return text;
    }
  };

  void Progress(const std::string& line) {
    TIDE_LOG_INFO("{}", line);
    if (o_.on_progress) o_.on_progress(line);
  }

  Status ReadVersions(Point* p) {
    TIDE_ASSIGN_OR_RETURN(p->versions, FindLakeVersions(fs_, plan_.lake_path, p->l, commit_user_));
    if (p->versions.commit_user.empty()) {
      return Status::NotFound(
          "lake table {} holds no commit of a sync{}; is it the table `tide sync postgres` writes for {}?",
          plan_.lake_name, o_.slot.empty() ? "" : " on slot " + o_.slot, plan_.source.ToString());
    }
    if (commit_user_.empty()) commit_user_ = p->versions.commit_user;
    if (!p->versions.before && p->versions.after) {
      // Snapshots below L expired: the oldest one kept is the only version there is.
      p->versions.before = p->versions.after;
      p->versions.after.reset();
    }
    p->slot = commit_user_.substr(kSyncCommitUserPrefix.size());
    TIDE_ASSIGN_OR_RETURN(auto slot, FindReplicationSlot(pg_.conn(), p->slot));
    p->slot_active = slot && slot->active;
    p->confirmed_flush = slot ? slot->confirmed_flush_lsn : kInvalidLsn;
    // The lake holds every transaction of S when it committed beyond L, or when the sync acknowledged
    // past L (it acknowledges only what every table committed), or when no sync runs to add any.
    p->consistent = p->versions.after.has_value() || p->confirmed_flush >= p->l || !p->slot_active;
    return Status::OK();
  }

  Status WaitForLake(Point* p) {
    while (!p->consistent && Clock::now() < deadline_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      TIDE_RETURN_IF_ERROR(ReadVersions(p));
    }
    return Status::OK();
  }

  Result<Point> TakePoint(bool wait) {
    Point p;
    TIDE_ASSIGN_OR_RETURN(p.l, pg_.Begin());
    TIDE_RETURN_IF_ERROR(ReadVersions(&p));
    if (wait) TIDE_RETURN_IF_ERROR(WaitForLake(&p));
    return p;
  }

  std::string LakeFrom(const LakeVersion& v) const {
    const std::string scan =
        fmt::format("paimon_scan({}, snapshot_id => {})", QuoteSqlString(plan_.lake_name), v.snapshot_id);
    if (plan_.lake_filter.empty()) return scan;
    return fmt::format("(SELECT * FROM {}{}) AS tide_shard", scan, plan_.lake_filter);
  }

  Result<Rows> LakeQuery(const LakeVersion& v, const std::function<std::string(const SideSql&)>& make) {
    SideSql side = plan_.lake;
    side.from = LakeFrom(v);
    auto rows = DuckRows(lake_->connection(), make(side));
    if (!rows.ok()) return rows.status().WithContext(fmt::format("lake table {}", plan_.lake_name));
    return rows;
  }
  Result<Rows> PgQuery(const std::function<std::string(const SideSql&)>& make) {
    auto rows = pg_.Query(make(plan_.postgres));
    if (!rows.ok()) return rows.status().WithContext(fmt::format("PostgreSQL table {}", plan_.source.ToString()));
    return rows;
  }

  // Compares S with the lake versions of `p`: the whole table (`keys` null) or only the keys with these hashes.
  Result<Comparison> Compare(const Point& p, const std::vector<std::string>* keys) {
    Comparison cmp;
    const LakeVersion before = p.versions.before.value_or(LakeVersion{});
    const std::optional<LakeVersion> after = p.versions.after;
    std::vector<std::string> leaves;
    if (keys == nullptr) {
      auto root = [](const SideSql& s) { return s.Children({}); };
      auto total = [](const Rows& rows) {
        RangeChecksum sum;
        __int128 total = 0;
        for (const auto& [prefix, c] : ToChecksums(rows)) {
          sum.rows += c.rows;
          __int128 v = 0;
          bool negative = !c.sum.empty() && c.sum[0] == '-';
          for (char ch : c.sum) {
            if (ch >= '0' && ch <= '9') v = v * 10 + (ch - '0');
          }
          total += negative ? -v : v;
        }
        // Row hashes are non-negative 60-bit values, so the total fits an unsigned 128-bit text.
        std::string digits;
        unsigned __int128 u = static_cast<unsigned __int128>(total);
        do {
          digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
          u /= 10;
        } while (u != 0);
        sum.sum = digits;
        return sum;
      };
      // The first level answers the whole-table checksums too.
      TIDE_ASSIGN_OR_RETURN(Rows pg_level, PgQuery(root));
      TIDE_ASSIGN_OR_RETURN(Rows before_level, LakeQuery(before, root));
      Rows after_level;
      if (after) TIDE_ASSIGN_OR_RETURN(after_level, LakeQuery(*after, root));
      cmp.postgres_total = total(pg_level);
      if (cmp.postgres_total == total(before_level) || (after && cmp.postgres_total == total(after_level))) {
        cmp.match = true;
        return cmp;
      }
      std::map<std::string, std::map<std::string, RangeChecksum>> cached = {
          {"pg", ToChecksums(pg_level)}, {"before", ToChecksums(before_level)}, {"after", ToChecksums(after_level)}};
      auto side = [&](const std::string& name, bool is_pg, std::optional<LakeVersion> v) -> ChildChecksums {
        return [this, name, is_pg, v, &cached](const std::vector<std::string>& parents)
                   -> Result<std::map<std::string, RangeChecksum>> {
          if (parents.size() == 1 && parents[0].empty()) return cached.at(name);
          auto make = [&parents](const SideSql& s) { return s.Children(parents); };
          Result<Rows> rows = is_pg ? PgQuery(make) : LakeQuery(*v, make);
          if (!rows.ok()) return rows.status();
          return ToChecksums(*rows);
        };
      };
      BisectionSides sides{side("pg", true, std::nullopt), side("before", false, before),
                           after ? side("after", false, after) : ChildChecksums{}};
      BisectionLimits limits;
      limits.max_leaves = std::max<size_t>(4, o_.max_keys);
      TIDE_ASSIGN_OR_RETURN(leaves, FindDifferingRanges(sides, limits));
    } else {
      leaves = *keys;
    }
    if (leaves.empty()) return cmp;
    auto make = [&leaves](const SideSql& s) { return s.Leaves(leaves); };
    TIDE_ASSIGN_OR_RETURN(Rows pg_rows, PgQuery(make));
    TIDE_ASSIGN_OR_RETURN(Rows before_rows, LakeQuery(before, make));
    Rows after_rows;
    if (after) TIDE_ASSIGN_OR_RETURN(after_rows, LakeQuery(*after, make));
    auto pg_keys = ToKeyRows(pg_rows), before_keys = ToKeyRows(before_rows), after_keys = ToKeyRows(after_rows);
    std::set<std::string> all;
    for (const auto* m : {&pg_keys, &before_keys, &after_keys}) {
      for (const auto& [k, rows] : *m) all.insert(k);
    }
    auto find = [](const std::map<std::string, KeyRows>& m, const std::string& k) -> std::optional<KeyRows> {
      auto it = m.find(k);
      return it == m.end() ? std::nullopt : std::optional<KeyRows>(it->second);
    };
    for (const std::string& k : all) {
      std::optional<std::optional<KeyRows>> a;
      if (after) a = find(after_keys, k);
      KeyVerdict v = ClassifyKey(k, find(pg_keys, k), find(before_keys, k), a, plan_.columns);
      if (v.difference == KeyDifference::kEqual) continue;
      if (v.difference == KeyDifference::kInFlight) {
        cmp.in_flight.push_back(k);
      } else {
        cmp.differing.push_back(std::move(v));
      }
    }
    return cmp;
  }

  // Row count, distinct keys, smallest and largest key, checksum: PostgreSQL's S against the lake's
  // version before L (the one that holds S's transactions when the point is consistent without `after`).
  Status SummaryChecks(const Point& p, TableVerifyReport* report) {
    const LakeVersion lake = p.versions.after.value_or(p.versions.before.value_or(LakeVersion{}));
    auto summary = [](const SideSql& s) { return s.Summary(); };
    TIDE_ASSIGN_OR_RETURN(Rows pg, PgQuery(summary));
    TIDE_ASSIGN_OR_RETURN(Rows lk, LakeQuery(lake, summary));
    auto cell = [](const Rows& rows, size_t c) { return rows.empty() ? std::string() : rows[0].at(c).value_or("NULL"); };
    report->checks.push_back(VerifyCheck{"row count", cell(pg, 0), cell(lk, 0)});
    if (plan_.keyed) {
      report->checks.push_back(VerifyCheck{"distinct keys", cell(pg, 1), cell(lk, 1)});
      for (bool smallest : {true, false}) {
        auto make = [smallest](const SideSql& s) { return s.Extreme(smallest); };
        TIDE_ASSIGN_OR_RETURN(Rows pe, PgQuery(make));
        TIDE_ASSIGN_OR_RETURN(Rows le, LakeQuery(lake, make));
        report->checks.push_back(VerifyCheck{smallest ? "min key" : "max key", cell(pe, 0), cell(le, 0)});
      }
    }
    report->checks.push_back(VerifyCheck{"checksum", cell(pg, 2), cell(lk, 2)});
    return Status::OK();
  }

  void Keep(std::vector<KeyVerdict> verdicts, TableVerifyReport* report) const {
    if (verdicts.size() > o_.max_keys) {
      report->more_keys = true;
      verdicts.resize(o_.max_keys);
    }
    report->keys = std::move(verdicts);
  }

  const VerifyOptions& o_;
  FileSystem* fs_;
  PgSide pg_;
  LakeConnection* lake_;
  TablePlan plan_;
  std::string commit_user_ = o_.slot.empty() ? std::string() : std::string(kSyncCommitUserPrefix) + o_.slot;
  Clock::time_point deadline_;
};

}  // namespace

bool VerifyReport::all_match() const {
  return std::all_of(tables.begin(), tables.end(), [](const TableVerifyReport& t) { return t.match; });
}

std::string VerifyReport::ToString() const {
  std::string out;
  for (const TableVerifyReport& t : tables) {
    out += fmt::format("{} {} -> {}: {}\n", t.match ? "OK  " : "FAIL", t.source, t.lake,
                       t.match ? "match" : "differs");
    out += fmt::format("  at: {}{}\n", t.point, t.consistent ? "" : " (not a consistent point)");
    for (const VerifyCheck& c : t.checks) {
      out += fmt::format("  {} {}: PostgreSQL {}, lake {}\n", c.ok() ? "ok  " : "FAIL", c.name, c.postgres, c.lake);
    }
    for (const KeyVerdict& k : t.keys) {
      out += fmt::format("  key {}: {}", k.display, KeyDifferenceName(k.difference));
      if (k.difference == KeyDifference::kDiffers) out += " in " + Join(k.columns, ", ");
      if (k.postgres_count > 1 || k.lake_count > 1) {
        out += fmt::format(" (rows: PostgreSQL {}, lake {})", k.postgres_count, k.lake_count);
      }
      out += "\n";
    }
    if (t.more_keys) out += "  (more keys differ)\n";
    if (t.in_flight > 0) out += fmt::format("  {} keys changed while verifying were not compared\n", t.in_flight);
    for (const std::string& n : t.notes) out += "  note: " + n + "\n";
  }
  return out;
}

Result<VerifyReport> Verify(const VerifyOptions& options) {
  TIDE_ASSIGN_OR_RETURN(TableSelection selection,
                        TableSelection::Parse(options.tables, options.excluding_tables, options.table_prefix,
                                              options.table_suffix, options.into));
  TIDE_ASSIGN_OR_RETURN(auto conn, PgConnection::Connect(options.conninfo, PgSessionKind::kSql, kPgTextSessionOptions));
  TIDE_ASSIGN_OR_RETURN(
      Rows candidates_rows,
      PgRows(*conn, "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname NOT IN "
                    "('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%' ORDER BY 1, 2"));
  std::vector<PgTableName> candidates;
  for (const auto& row : candidates_rows) candidates.push_back(PgTableName{*row[0], *row[1]});
  TIDE_ASSIGN_OR_RETURN(std::vector<PgTableName> selected, selection.Select(candidates));

  FileSystem* fs = FileSystem::Local();
  TIDE_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(fs, options.warehouse));
  TIDE_ASSIGN_OR_RETURN(auto lake, LakeConnection::OpenWarehouse(fs, options.warehouse));
  PgTypeRegistry types;
  VerifyReport report;
  const std::string database = ToLower(selection.into_database().value_or(options.database));
  for (const PgTableName& source : selected) {
    TableIdentifier id{database, selection.TargetName(source)};
    const std::string path = catalog->TablePath(id);
    TIDE_ASSIGN_OR_RETURN(bool exists, SchemaManager(fs, path).Exists());
    if (!exists) {
      return Status::NotFound("lake table {} (of {}) does not exist in {}; is --database, --table-prefix or "
                              "--table-suffix the sync's?",
                              id.ToString(), source.ToString(), options.warehouse);
    }
    if (options.on_progress) options.on_progress(fmt::format("verifying {} against {}", source.ToString(), id.ToString()));
    // A table that cannot be compared fails alone: the others are still compared and reported.
    Result<TableVerifyReport> table = [&]() -> Result<TableVerifyReport> {
      TIDE_ASSIGN_OR_RETURN(TablePlan plan,
                            PlanTable(*conn, &types, fs, source, id.ToString(), path, selection.has_into()));
      TableVerifier verifier(options, fs, conn.get(), lake.get(), std::move(plan));
      return verifier.Run();
    }();
    if (!table.ok()) {
      if (!conn->ok()) return table.status();  // the connection is gone: nothing else can be compared
      conn->Execute("ROLLBACK").IgnoreError();
      TableVerifyReport failed;
      failed.source = source.ToString();
      failed.lake = id.ToString();
      failed.point = "(not compared)";
      failed.notes.push_back("could not compare: " + table.status().ToString());
      table = std::move(failed);
    }
    report.tables.push_back(std::move(table).value());
  }
  return report;
}

}  // namespace tide
