#include "tide/cli/pg_tail_command.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/postgres/change_stream.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/publication.h"
#include "tide/postgres/replication_slot.h"

namespace tide::cli {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<ReplicationStream*> g_stream{nullptr};

void OnSignal(int) {
  g_stop.store(true);
  if (ReplicationStream* s = g_stream.load()) s->RequestStop();
}

struct TailFlags {
  std::string postgres;
  std::string tables;
  std::string slot;
  bool temporary = false;
  std::string publication;
  bool text = false;
};

constexpr int64_t kMaxExactJsonInteger = int64_t{1} << 53;

std::string IsoTimestamp(const TimestampValue& ts, int precision, bool utc) {
  std::string s = FormatTimestamp(ts, std::max(precision, 0));
  size_t space = s.find(' ');
  if (space != std::string::npos) s[space] = 'T';
  if (utc) s += 'Z';
  return s;
}

Status Run(const TailFlags& flags) {
  TIDE_ASSIGN_OR_RETURN(auto tables, ParsePgTableList(flags.tables));
  if (!flags.slot.empty() && flags.temporary) {
    return Status::InvalidArgument("give either --slot NAME or --temporary, not both");
  }
  bool temporary = flags.slot.empty();
  std::string slot = flags.slot.empty() ? fmt::format("tide_tail_{}", ::getpid()) : flags.slot;
  TIDE_RETURN_IF_ERROR(ValidateSlotName(slot));
  std::string publication = flags.publication.empty() ? slot : flags.publication;

  TIDE_ASSIGN_OR_RETURN(auto sql, PgConnection::Connect(flags.postgres));
  TIDE_RETURN_IF_ERROR(CheckLogicalReplicationReady(*sql));
  TIDE_ASSIGN_OR_RETURN(bool publication_existed, PublicationExists(*sql, publication));
  TIDE_RETURN_IF_ERROR(EnsurePublication(*sql, publication, tables));
  bool drop_publication = temporary && !publication_existed;

  ChangeStreamOptions options;
  options.replication.conninfo = flags.postgres;
  options.replication.slot = slot;
  options.replication.publications = {publication};
  options.replication.binary = !flags.text;
  options.replication.status_interval = std::chrono::seconds(5);
  options.replication.reconnect.max_attempts = 1000000;  // keep trying until stopped

  Result<std::unique_ptr<ChangeStream>> stream = Status::Internal("not started");
  if (temporary) {
    TIDE_ASSIGN_OR_RETURN(auto conn, PgConnection::Connect(flags.postgres, PgSessionKind::kReplication,
                                                           kPgTextSessionOptions));
    TIDE_RETURN_IF_ERROR(CreateReplicationSlot(*conn, slot, {true, SlotSnapshotAction::kNothing}).status());
    stream = ChangeStream::Adopt(std::move(conn), options);
  } else {
    TIDE_ASSIGN_OR_RETURN(auto existing, FindReplicationSlot(*sql, slot));
    if (!existing) {
      TIDE_ASSIGN_OR_RETURN(auto conn, PgConnection::Connect(flags.postgres, PgSessionKind::kReplication));
      TIDE_RETURN_IF_ERROR(CreateReplicationSlot(*conn, slot, {false, SlotSnapshotAction::kNothing}).status());
    }
    stream = ChangeStream::Start(options);
  }
  if (!stream.ok()) {
    if (drop_publication) DropPublication(*sql, publication).IgnoreError();
    return stream.status();
  }
  g_stream.store(&(*stream)->replication());
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  std::fprintf(stderr, "tide pg tail: streaming %s from slot %s%s (publication %s); Ctrl-C to stop\n",
               Join([&] {
                 std::vector<std::string> names;
                 for (const auto& t : tables) names.push_back(t.ToString());
                 return names;
               }(), ",").c_str(),
               slot.c_str(), temporary ? " (temporary)" : "", publication.c_str());

  Status result;
  TransactionInfo txn;
  std::string out;
  while (!g_stop.load()) {
    auto next = (*stream)->Next(std::chrono::milliseconds(200));
    if (!next.ok()) {
      if (next.status().code() != StatusCode::kAborted || !g_stop.load()) result = next.status();
      break;
    }
    if (!*next) continue;
    ChangeEvent& event = **next;
    if (auto* begin = std::get_if<BeginTransaction>(&event)) {
      txn = begin->txn;
    } else if (auto* change = std::get_if<RowChange>(&event)) {
      for (const auto& line : ChangeToJson(*change, txn)) {
        out += line.dump();
        out += '\n';
      }
    } else if (auto* truncate = std::get_if<TruncateTables>(&event)) {
      for (const auto& rel : truncate->relations) {
        nlohmann::ordered_json line;
        line["lsn"] = FormatLsn(txn.commit_lsn);
        line["commit_time"] = FormatUtcMicros(txn.commit_time_micros);
        line["xid"] = txn.xid;
        line["table"] = rel->table.ToString();
        line["kind"] = "truncate";
        out += line.dump() + "\n";
      }
    } else if (auto* commit = std::get_if<CommitTransaction>(&event)) {
      // Written out is what "durable" means for tail: then the slot may move past it.
      if (!out.empty()) {
        if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) {
          result = Status::IOError("cannot write to stdout");
          break;
        }
        out.clear();
      }
      (*stream)->Acknowledge(commit->txn.end_lsn);
    }
  }
  g_stream.store(nullptr);
  (*stream)->Close().IgnoreError();
  if (drop_publication) DropPublication(*sql, publication).IgnoreError();
  return result;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8) | uint8_t(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string FormatUtcMicros(int64_t unix_micros) {
  return IsoTimestamp(TimestampValue::FromMicros(unix_micros), 6, true);
}

nlohmann::ordered_json DatumToJson(const Datum& value, const DataType& type) {
  if (value.is_null()) return nullptr;
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return value.as_bool();
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: {
      int64_t v = value.as_int();
      if (v > kMaxExactJsonInteger || v < -kMaxExactJsonInteger) return std::to_string(v);
      return v;
    }
    case TypeRoot::kFloat:
    case TypeRoot::kDouble: {
      double v = type.root() == TypeRoot::kFloat ? static_cast<double>(value.as_float()) : value.as_double();
      if (std::isnan(v)) return "NaN";
      if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
      return v;
    }
    case TypeRoot::kDecimal:
      return DecimalToString(value.as_decimal().unscaled, type.scale());
    case TypeRoot::kDate:
      return FormatDate(value.as_int());
    case TypeRoot::kTime:
      return FormatTime(value.as_int(), type.precision());
    case TypeRoot::kTimestamp:
      return IsoTimestamp(value.as_timestamp(), type.precision(), false);
    case TypeRoot::kTimestampLtz:
      return IsoTimestamp(value.as_timestamp(), type.precision(), true);
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return value.as_string();
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return Base64Encode(value.as_string());
    case TypeRoot::kArray:
    case TypeRoot::kMultiset: {
      nlohmann::ordered_json array = nlohmann::ordered_json::array();
      for (const auto& item : value.as_nested()) array.push_back(DatumToJson(item, type.element()));
      return array;
    }
    default:
      return DatumToString(value, type);
  }
}

std::vector<nlohmann::ordered_json> ChangeToJson(const RowChange& change, const TransactionInfo& txn) {
  const SourceRelation& rel = *change.relation;
  auto line = [&](std::string_view kind, const Row& row, const std::vector<int>& missing) {
    nlohmann::ordered_json j;
    j["lsn"] = FormatLsn(txn.commit_lsn);
    j["commit_time"] = FormatUtcMicros(txn.commit_time_micros);
    j["xid"] = txn.xid;
    j["table"] = rel.table.ToString();
    j["kind"] = kind;
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    for (size_t i = 0; i < row.size() && i < rel.fields.size(); ++i) {
      if (std::find(missing.begin(), missing.end(), static_cast<int>(i)) != missing.end()) continue;
      values[rel.fields[i].name] = DatumToJson(row[i], rel.fields[i].type);
    }
    j["row"] = std::move(values);
    nlohmann::ordered_json unchanged = nlohmann::ordered_json::array();
    if (kind == "+U") {
      for (int i : change.unchanged_columns) unchanged.push_back(rel.fields[static_cast<size_t>(i)].name);
    }
    j["unchanged"] = std::move(unchanged);
    return j;
  };
  std::vector<nlohmann::ordered_json> out;
  switch (change.kind) {
    case ChangeKind::kInsert:
      out.push_back(line("+I", change.new_row, {}));
      break;
    case ChangeKind::kUpdate:
      if (change.old_kind != PgOldTupleKind::kNone) out.push_back(line("-U", change.old_row, change.old_absent));
      out.push_back(line("+U", change.new_row, change.unchanged_columns));
      break;
    case ChangeKind::kDelete:
      out.push_back(line("-D", change.old_row, change.old_absent));
      break;
  }
  return out;
}

void RegisterPgTail(CLI::App& app) {
  CLI::App* pg = app.add_subcommand("pg", "PostgreSQL source tools");
  pg->require_subcommand(1);
  auto flags = std::make_shared<TailFlags>();
  CLI::App* tail = pg->add_subcommand("tail", "Print the changes of PostgreSQL tables as JSON lines until Ctrl-C");
  tail->add_option("--postgres", flags->postgres, "libpq connection string or postgresql:// URI")->required();
  tail->add_option("--tables", flags->tables, "comma-separated tables: schema.table[,...]")->required();
  tail->add_option("--slot", flags->slot, "replication slot to use (created if missing; kept)");
  tail->add_flag("--temporary", flags->temporary, "use a temporary slot (the default without --slot)");
  tail->add_option("--publication", flags->publication,
                   "publication to use (created for the tables if missing; default: named after the slot)");
  tail->add_flag("--text", flags->text, "ask PostgreSQL for text values instead of binary");
  tail->callback([flags, &app] {
    InitLogging(app.count("--verbose") > 0 ? LogLevel::kDebug : LogLevel::kWarn);
    Status st = Run(*flags);
    if (!st.ok()) {
      std::cerr << "tide pg tail: " << st.ToString() << std::endl;
      throw CLI::RuntimeError(1);
    }
    throw CLI::RuntimeError(0);
  });
}

}  // namespace tide::cli
