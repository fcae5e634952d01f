// Helpers of the interoperability tests with Apache Paimon's Java library (interop/java, built into
// one jar by scripts/build-interop.sh): the canonical row text (docs/interop.md) rendered from Tide's
// values and parsed back into them, a table spec (the JSON the jar's `write` takes) applied with Tide's
// own writer, reads of every snapshot with Tide's reader, and running the jar, several commands per JVM.
// Header-only. Thread-safety: one test at a time.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "testing/read_by_vectors.h"
#include "testing/temp_dir.h"
#include "testing/tide_process.h"
#include "tide/base/uuid.h"
#include "tide/catalog/catalog.h"
#include "tide/codec/binary_row.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table.h"
#include "tide/types/datum.h"

namespace tide::interop {

// ---- canonical row text ---------------------------------------------------------------------------

inline std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

inline std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char n = s[++i];
      out.push_back(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

inline std::string Hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

inline Result<std::string> Canonical(const Datum& v, const DataType& type, const std::string& column) {
  if (v.is_null()) return std::string("\\N");
  switch (type.root()) {
    case TypeRoot::kBoolean: return std::string(v.as_bool() ? "true" : "false");
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: return std::to_string(v.as_int());
    case TypeRoot::kFloat: {
      uint32_t bits;
      float f = v.as_float();
      std::memcpy(&bits, &f, 4);
      return fmt::format("f:{:08x}", bits);
    }
    case TypeRoot::kDouble: {
      uint64_t bits;
      double d = v.as_double();
      std::memcpy(&bits, &d, 8);
      return fmt::format("d:{:016x}", bits);
    }
    case TypeRoot::kDecimal: return DecimalToString(v.as_decimal().unscaled, type.scale());
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return Escape(v.as_string());
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: return "x:" + Hex(v.as_string());
    case TypeRoot::kDate: return FormatDate(v.as_int());
    case TypeRoot::kTime: return FormatTime(v.as_int(), 3);
    case TypeRoot::kTimestamp: return FormatTimestamp(v.as_timestamp(), 9);
    case TypeRoot::kTimestampLtz: return FormatTimestamp(v.as_timestamp(), 9) + "Z";
    case TypeRoot::kArray: {
      std::string out = "[";
      const auto& items = v.as_nested();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ",";
        TIDE_ASSIGN_OR_RETURN(std::string e, Canonical(items[i], type.element(), column));
        out += e;
      }
      return out + "]";
    }
    case TypeRoot::kMap: {
      std::vector<std::pair<std::string, std::string>> entries;
      const auto& items = v.as_nested();
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        TIDE_ASSIGN_OR_RETURN(std::string k, Canonical(items[i], type.key(), column));
        TIDE_ASSIGN_OR_RETURN(std::string x, Canonical(items[i + 1], type.value(), column));
        entries.emplace_back(std::move(k), std::move(x));
      }
      std::sort(entries.begin(), entries.end());
      std::string out = "{";
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) out += ",";
        out += entries[i].first + "=" + entries[i].second;
      }
      return out + "}";
    }
    case TypeRoot::kRow: {
      std::string out = "(";
      const auto& items = v.as_nested();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ",";
        TIDE_ASSIGN_OR_RETURN(std::string e, Canonical(items[i], type.fields()[i].type, column));
        out += e;
      }
      return out + ")";
    }
    default:
      return Status::NotSupported("column {} has type {}, which the canonical row text does not support", column,
                                  type.ToString());
  }
}

inline Result<std::string> CanonicalRow(const Row& row, const std::vector<DataField>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += "\t";
    TIDE_ASSIGN_OR_RETURN(std::string v, Canonical(row[i], fields[i].type, fields[i].name));
    line += v;
  }
  return line;
}

// The items of `text` = open ... close, split at commas outside nested brackets.
inline std::vector<std::string> SplitNested(const std::string& text) {
  std::vector<std::string> out;
  std::string inner = text.substr(1, text.size() - 2);
  if (inner.empty()) return out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < inner.size(); ++i) {
    char c = inner[i];
    if (c == '\\') {
      ++i;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if (c == ']' || c == '}' || c == ')') {
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(inner.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(inner.substr(start));
  return out;
}

// Parses the canonical text of a value of `type`.
inline Result<Datum> ParseCanonical(const std::string& text, const DataType& type) {
  if (text == "\\N") return Datum();
  switch (type.root()) {
    case TypeRoot::kBoolean: return Datum(text == "true");
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: return Datum(static_cast<int64_t>(std::stoll(text)));
    case TypeRoot::kFloat: {
      if (text.rfind("f:", 0) != 0) return Datum(std::stof(text));
      uint32_t bits = static_cast<uint32_t>(std::stoul(text.substr(2), nullptr, 16));
      float f;
      std::memcpy(&f, &bits, 4);
      return Datum(f);
    }
    case TypeRoot::kDouble: {
      if (text.rfind("d:", 0) != 0) return Datum(std::stod(text));
      uint64_t bits = std::stoull(text.substr(2), nullptr, 16);
      double d;
      std::memcpy(&d, &bits, 8);
      return Datum(d);
    }
    case TypeRoot::kDecimal: {
      TIDE_ASSIGN_OR_RETURN(int128_t u, ParseDecimal(text, type.precision(), type.scale()));
      return Datum(DecimalValue{u});
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return Datum(Unescape(text));
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: {
      std::string h = text.rfind("x:", 0) == 0 ? text.substr(2) : text;
      std::string bytes;
      for (size_t i = 0; i + 1 < h.size(); i += 2) bytes.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
      return Datum(bytes);
    }
    case TypeRoot::kDate: {
      TIDE_ASSIGN_OR_RETURN(int64_t d, ParseDate(text));
      return Datum(d);
    }
    case TypeRoot::kTime: {
      TIDE_ASSIGN_OR_RETURN(int64_t t, ParseTime(text));
      return Datum(t);
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      std::string t = !text.empty() && text.back() == 'Z' ? text.substr(0, text.size() - 1) : text;
      TIDE_ASSIGN_OR_RETURN(TimestampValue ts, ParseTimestamp(t));
      return Datum(ts);
    }
    case TypeRoot::kArray: {
      std::vector<Datum> items;
      for (const std::string& e : SplitNested(text)) {
        TIDE_ASSIGN_OR_RETURN(Datum d, ParseCanonical(e, type.element()));
        items.push_back(std::move(d));
      }
      return Datum::Nested(std::move(items));
    }
    case TypeRoot::kMap: {
      std::vector<Datum> items;
      for (const std::string& e : SplitNested(text)) {
        size_t eq = e.find('=');
        TIDE_ASSIGN_OR_RETURN(Datum k, ParseCanonical(e.substr(0, eq), type.key()));
        TIDE_ASSIGN_OR_RETURN(Datum x, ParseCanonical(e.substr(eq + 1), type.value()));
        items.push_back(std::move(k));
        items.push_back(std::move(x));
      }
      return Datum::Nested(std::move(items));
    }
    case TypeRoot::kRow: {
      std::vector<Datum> items;
      std::vector<std::string> parts = SplitNested(text);
      for (size_t i = 0; i < parts.size(); ++i) {
        TIDE_ASSIGN_OR_RETURN(Datum d, ParseCanonical(parts[i], type.fields()[i].type));
        items.push_back(std::move(d));
      }
      return Datum::Nested(std::move(items));
    }
    default: return Status::NotSupported("type {} in a spec", type.ToString());
  }
}

inline Result<RowKind> ParseRowKind(const std::string& s) {
  if (s == "+I") return RowKind::kInsert;
  if (s == "-U") return RowKind::kUpdateBefore;
  if (s == "+U") return RowKind::kUpdateAfter;
  if (s == "-D") return RowKind::kDelete;
  return Status::InvalidArgument("row kind {}", s);
}

// ---- the Java jar ----------------------------------------------------------------------------------

inline std::string JarPath() {
  return tide::testing::SourceDir() + "/interop/java/target/tide-interop.jar";
}

struct ProcessRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs argv[0] (searched on PATH) with its arguments; waits for it.
inline ProcessRun RunProcess(std::vector<std::string> args) {
  tide::testing::TempDir dir;
  std::string out_path = dir.path() + "/out", err_path = dir.path() + "/err";
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ProcessRun run;
  pid_t pid = ::fork();
  if (pid == 0) {
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  run.out = ReadFile(out_path);
  run.err = ReadFile(err_path);
  return run;
}

// JVM flags for short runs: the client compiler and the serial collector start fastest on a small machine.
inline std::vector<std::string> JavaCommand() {
  return {"java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx1g", "-jar", JarPath()};
}

// Runs one command of the jar (read, write, compact, ...).
inline ProcessRun RunJava(const std::vector<std::string>& args) {
  std::vector<std::string> argv = JavaCommand();
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv);
}

struct JavaResult {
  bool ok = false;
  std::string error;               // when !ok
  std::vector<std::string> lines;  // what the command printed
};

// Runs several commands of the jar in one JVM (`batch`); one result per command, in order.
inline std::vector<JavaResult> RunJavaBatch(const std::vector<std::vector<std::string>>& commands) {
  tide::testing::TempDir dir;
  std::string file = dir.path() + "/commands";
  {
    std::ofstream out(file, std::ios::binary);
    for (const auto& c : commands) {
      for (size_t i = 0; i < c.size(); ++i) out << (i ? "\t" : "") << c[i];
      out << "\n";
    }
  }
  ProcessRun run = RunJava({"batch", "--file", file});
  std::vector<JavaResult> results;
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::istringstream in(run.out);
  std::string line;
  JavaResult* current = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind("#### BEGIN ", 0) == 0) {
      current = &results.emplace_back();
    } else if (line.rfind("#### END ", 0) == 0) {
      size_t sp = line.find(' ', 9);
      std::string status = line.substr(sp + 1);
      current->ok = status == "OK";
      if (!current->ok) current->error = status;
      current = nullptr;
    } else if (current != nullptr) {
      current->lines.push_back(line);
    }
  }
  EXPECT_EQ(results.size(), commands.size()) << run.out << run.err;
  results.resize(commands.size());
  return results;
}

// ---- Tide's side -----------------------------------------------------------------------------------

// Every row of one snapshot (the latest when `snapshot` is empty; or a tag) by Tide's reader, in
// canonical text, sorted by bytes. Reads the table twice, by rows and by vectors (the SQL path), and
// fails the test when the two differ.
inline Result<std::vector<std::string>> TideRead(const std::string& warehouse, const std::string& name,
                                                 std::optional<int64_t> snapshot = std::nullopt,
                                                 std::optional<std::string> tag = std::nullopt) {
  TIDE_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(FileSystem::Local(), warehouse));
  TIDE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(name));
  TIDE_ASSIGN_OR_RETURN(auto table, catalog->GetTable(id));
  ReadOptions options;
  options.snapshot.snapshot_id = snapshot;
  options.snapshot.tag = tag;
  if (!snapshot && !tag) {
    // Both reads below read one snapshot, also while a writer commits.
    TIDE_ASSIGN_OR_RETURN(options.snapshot.snapshot_id,
                          SnapshotManager(FileSystem::Local(), catalog->TablePath(id)).LatestId());
  }
  TIDE_ASSIGN_OR_RETURN(auto reader, table->NewReader(options));
  std::vector<DataField> fields = reader->fields();
  std::vector<Row> rows;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1024, &rows));
    if (!more) break;
  }
  std::vector<std::string> lines;
  for (const Row& r : rows) {
    TIDE_ASSIGN_OR_RETURN(std::string line, CanonicalRow(r, fields));
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  TIDE_ASSIGN_OR_RETURN(auto vector_reader, table->NewReader(options));
  TIDE_ASSIGN_OR_RETURN(std::vector<Row> by_vectors, tide::testing::ReadByVectors(std::move(vector_reader)));
  std::vector<std::string> vector_lines;
  for (const Row& r : by_vectors) {
    TIDE_ASSIGN_OR_RETURN(std::string line, CanonicalRow(r, fields));
    vector_lines.push_back(std::move(line));
  }
  std::sort(vector_lines.begin(), vector_lines.end());
  EXPECT_EQ(lines, vector_lines) << name << ": Tide's row and vector reads differ";
  return lines;
}

inline Result<std::vector<int64_t>> SnapshotIds(const std::string& warehouse, const std::string& name) {
  TIDE_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(FileSystem::Local(), warehouse));
  TIDE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(name));
  SnapshotManager snapshots(FileSystem::Local(), catalog->TablePath(id));
  TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  std::vector<int64_t> ids;
  if (earliest && latest) {
    for (int64_t s = *earliest; s <= *latest; ++s) ids.push_back(s);
  }
  return ids;
}

// Applies a table spec (the JSON of the jar's `write`, docs/interop.md) with Tide: the table made by
// the catalog (unless "create" is false: then the steps go on an existing table), each rows step written by one TableWrite and committed as one snapshot (plus the COMPACT
// snapshot the writer's own compaction may add), compactions by `tide compact`, ALTERs by the catalog,
// tags by `tide tag create`, expiry by `tide expire-snapshots`.
inline Status TideWriteSpec(const std::string& warehouse, const nlohmann::json& spec) {
  FileSystem* fs = FileSystem::Local();
  std::filesystem::create_directories(warehouse);
  TIDE_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(fs, warehouse));
  std::string name = spec.at("table").get<std::string>();
  TIDE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(name));
  TIDE_RETURN_IF_ERROR(catalog->CreateDatabase(id.database, true));
  std::vector<ColumnDefinition> columns;
  for (const auto& f : spec.value("fields", nlohmann::json::array())) {
    TIDE_ASSIGN_OR_RETURN(DataType type, DataType::FromJson(f.at("type")));
    columns.push_back(ColumnDefinition{f.at("name").get<std::string>(), type, std::nullopt});
  }
  auto strings = [&](const char* key) {
    std::vector<std::string> out;
    if (spec.contains(key)) {
      for (const auto& s : spec.at(key)) out.push_back(s.get<std::string>());
    }
    return out;
  };
  std::vector<std::pair<std::string, std::string>> options;
  if (spec.contains("options")) {
    for (const auto& [k, v] : spec.at("options").items()) options.emplace_back(k, v.get<std::string>());
  }
  if (spec.value("create", true)) {
    TIDE_RETURN_IF_ERROR(
        catalog->CreateTable(id, columns, strings("partition_keys"), strings("primary_keys"), options).status());
  }
  if (!spec.contains("steps")) return Status::OK();
  int64_t identifier = 0;
  for (const auto& step : spec.at("steps")) {
    TIDE_ASSIGN_OR_RETURN(auto table, catalog->GetTable(id));
    if (step.contains("rows")) {
      const TableSchema& schema = table->latest_schema();
      std::string user = RandomUuidString();  // a writer of its own per step
      ++identifier;
      TableWriteConfig config;
      config.table_name = name;
      TIDE_ASSIGN_OR_RETURN(auto writer, TableWrite::Create(fs, table->path(), schema, user, config));
      for (const auto& r : step.at("rows")) {
        if (r.size() != schema.fields.size() + 1) {
          return Status::InvalidArgument("{}: a row of {} values for {} fields", name, r.size() - 1,
                                         schema.fields.size());
        }
        TIDE_ASSIGN_OR_RETURN(RowKind kind, ParseRowKind(r[0].get<std::string>()));
        Row row;
        for (size_t i = 0; i < schema.fields.size(); ++i) {
          TIDE_ASSIGN_OR_RETURN(Datum d, ParseCanonical(r[i + 1].get<std::string>(), schema.fields[i].type));
          row.push_back(std::move(d));
        }
        TIDE_RETURN_IF_ERROR(writer->Write(kind, std::move(row)));
      }
      TIDE_ASSIGN_OR_RETURN(auto messages, writer->PrepareCommit());
      TIDE_ASSIGN_OR_RETURN(auto committer, FileStoreCommit::Create(fs, table->path(), name));
      CommitOptions commit;
      commit.commit_user = user;
      commit.commit_identifier = identifier;
      TIDE_RETURN_IF_ERROR(committer->Commit(messages, commit).status());
    } else if (step.contains("compact")) {
      std::vector<std::string> args = {"compact", "--warehouse", warehouse, "--table", name};
      if (step.at("compact").value("full", true)) args.push_back("--full");
      tide::testing::TideRun run = tide::testing::RunTide(args);
      if (run.exit_code != 0) return Status::Internal("tide compact {}: {}", name, run.err);
    } else if (step.contains("alter")) {
      std::vector<SchemaChange> changes;
      for (const auto& c : step.at("alter")) {
        if (c.contains("add_column")) {
          TIDE_ASSIGN_OR_RETURN(DataType t, DataType::FromJson(c.at("type")));
          changes.push_back(SchemaChange::AddColumn(c.at("add_column").get<std::string>(), t));
        } else if (c.contains("drop_column")) {
          changes.push_back(SchemaChange::DropColumn(c.at("drop_column").get<std::string>()));
        } else if (c.contains("rename_column")) {
          changes.push_back(
              SchemaChange::RenameColumn(c.at("rename_column").get<std::string>(), c.at("to").get<std::string>()));
        } else if (c.contains("update_column_type")) {
          TIDE_ASSIGN_OR_RETURN(DataType t, DataType::FromJson(c.at("type")));
          changes.push_back(SchemaChange::UpdateColumnType(c.at("update_column_type").get<std::string>(), t));
        } else if (c.contains("set_option")) {
          changes.push_back(
              SchemaChange::SetOption(c.at("set_option").get<std::string>(), c.at("value").get<std::string>()));
        } else {
          return Status::InvalidArgument("unknown alter {}", c.dump());
        }
      }
      TIDE_RETURN_IF_ERROR(catalog->AlterTable(id, changes).status());
    } else if (step.contains("create_tag")) {
      tide::testing::TideRun run = tide::testing::RunTide(
          {"tag", "create", "--warehouse", warehouse, "--table", name, "--tag", step.at("create_tag").get<std::string>()});
      if (run.exit_code != 0) return Status::Internal("tide tag create {}: {}", name, run.err);
    } else if (step.contains("expire_snapshots")) {
      tide::testing::TideRun run = tide::testing::RunTide(
          {"expire-snapshots", "--warehouse", warehouse, "--table", name, "--retain-max",
           std::to_string(step.at("expire_snapshots").at("retain_max").get<int>()), "--retain-min", "1",
           "--older-than", "2999-01-01 00:00:00"});
      if (run.exit_code != 0) return Status::Internal("tide expire-snapshots {}: {}", name, run.err);
    } else {
      return Status::InvalidArgument("unknown step {}", step.dump());
    }
  }
  return Status::OK();
}

inline std::string WriteSpecFile(const std::string& dir, const nlohmann::json& spec) {
  std::string path = dir + "/" + spec.at("table").get<std::string>() + ".json";
  std::ofstream(path, std::ios::binary) << spec.dump(1);
  return path;
}

inline std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace tide::interop
