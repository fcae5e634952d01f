// Helpers of the pypaimon interop tests (tests/interop/pypaimon_*_test.cc): Tide's own reader rendering
// a table's rows in the canonical row text (docs/interop.md), and the pypaimon reader
// (interop/python/paimon_read.py in interop/python/.venv, made by scripts/setup-python-interop.sh) run
// as a child process on the same table, so a test compares the two line for line.
// A missing virtual environment is a test failure, never a skip: the test command makes it.
// Thread-safety: each call is independent (its own reader; fork + exec with temporary files).
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "testing/temp_dir.h"
#include "tide/base/result.h"
#include "tide/catalog/catalog.h"
#include "tide/io/file_system.h"
#include "tide/table/source/table_reader.h"
#include "tide/table/table.h"
#include "tide/types/datum.h"

namespace tide::interop_testing {

inline std::string EscapeCanonicalText(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out;
}

// One value in the canonical row text; an error names a type the form does not cover.
inline Result<std::string> CanonicalValue(const Datum& v, const DataType& type) {
  if (v.is_null()) return std::string("\\N");
  switch (type.root()) {
    case TypeRoot::kBoolean: return std::string(v.as_bool() ? "true" : "false");
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: return std::to_string(v.as_int());
    case TypeRoot::kFloat: {
      float f = v.as_float();
      uint32_t bits = 0;
      std::memcpy(&bits, &f, sizeof bits);
      return fmt::format("f:{:08x}", bits);
    }
    case TypeRoot::kDouble: {
      double d = v.as_double();
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      return fmt::format("d:{:016x}", bits);
    }
    case TypeRoot::kDecimal: return DecimalToString(v.as_decimal().unscaled, type.scale());
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return EscapeCanonicalText(v.as_string());
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: {
      static constexpr char kHex[] = "0123456789abcdef";
      std::string out = "x:";
      for (unsigned char c : v.as_string()) {
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
      return out;
    }
    case TypeRoot::kDate: return FormatDate(v.as_int());
    case TypeRoot::kTime: return FormatTime(v.as_int(), 3);
    case TypeRoot::kTimestamp: return FormatTimestamp(v.as_timestamp(), 9);
    case TypeRoot::kTimestampLtz: return FormatTimestamp(v.as_timestamp(), 9) + "Z";
    case TypeRoot::kArray: {
      std::string out = "[";
      const auto& items = v.as_nested();
      for (size_t i = 0; i < items.size(); ++i) {
        TIDE_ASSIGN_OR_RETURN(std::string e, CanonicalValue(items[i], type.element()));
        out += (i ? "," : "") + e;
      }
      return out + "]";
    }
    case TypeRoot::kMap: {
      std::vector<std::pair<std::string, std::string>> entries;
      const auto& items = v.as_nested();
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        TIDE_ASSIGN_OR_RETURN(std::string k, CanonicalValue(items[i], type.key()));
        TIDE_ASSIGN_OR_RETURN(std::string val, CanonicalValue(items[i + 1], type.value()));
        entries.emplace_back(std::move(k), std::move(val));
      }
      std::sort(entries.begin(), entries.end());  // byte order of the key text
      std::string out = "{";
      for (size_t i = 0; i < entries.size(); ++i) out += (i ? "," : "") + entries[i].first + "=" + entries[i].second;
      return out + "}";
    }
    case TypeRoot::kRow: {
      std::string out = "(";
      const auto& items = v.as_nested();
      for (size_t i = 0; i < items.size(); ++i) {
        TIDE_ASSIGN_OR_RETURN(std::string f, CanonicalValue(items[i], type.fields()[i].type));
        out += (i ? "," : "") + f;
      }
      return out + ")";
    }
    default: return Status::NotSupported("type {} has no canonical text form", type.ToString());
  }
}

// Every row of `table` ("db.t") in the warehouse, at its latest snapshot or `snapshot_id`, read by
// Tide's TableReader and rendered canonically (columns TAB-separated; "+I\t" first with `row_kinds`),
// sorted by byte order.
inline Result<std::vector<std::string>> TideCanonicalRows(const std::string& warehouse, const std::string& table,
                                                          std::optional<int64_t> snapshot_id = std::nullopt,
                                                          bool row_kinds = false) {
  TIDE_ASSIGN_OR_RETURN(auto id, TableIdentifier::Parse(table));
  TIDE_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(FileSystem::Local(), warehouse));
  TIDE_ASSIGN_OR_RETURN(auto opened, catalog->GetTable(id));
  ReadOptions options;
  options.snapshot.snapshot_id = snapshot_id;
  TIDE_ASSIGN_OR_RETURN(auto reader, opened->NewReader(options));
  std::vector<Row> rows;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1024, &rows));
    if (!more) break;
  }
  const std::vector<DataField>& fields = reader->fields();
  std::vector<std::string> lines;
  lines.reserve(rows.size());
  for (const Row& row : rows) {
    // A batch read returns the merged table: every row is an insert.
    std::string line = row_kinds ? "+I\t" : "";
    for (size_t i = 0; i < fields.size(); ++i) {
      auto cell = CanonicalValue(row[i], fields[i].type);
      if (!cell.ok()) return Status::NotSupported("{}: column {}: {}", table, fields[i].name, cell.status().message());
      line += (i ? "\t" : "") + *cell;
    }
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

struct ProcessRun {
  int exit_code = -1;  // -1: did not exit normally
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) with its arguments to completion, capturing standard output and error.
inline ProcessRun RunProcess(const std::vector<std::string>& argv) {
  testing::TempDir scratch;
  const std::string out_path = scratch.path() + "/out", err_path = scratch.path() + "/err";
  std::vector<char*> args;
  std::vector<std::string> copy = argv;
  for (auto& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  ProcessRun run;
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto out = FileSystem::Local()->ReadFile(out_path);
  auto err = FileSystem::Local()->ReadFile(err_path);
  run.out = out.ok() ? *out : "";
  run.err = err.ok() ? *err : "";
  return run;
}

// The virtual environment's interpreter; empty when scripts/setup-python-interop.sh has not run.
inline std::string PypaimonPython() {
  std::string python = testing::SourceDir() + "/interop/python/.venv/bin/python";
  return std::filesystem::exists(python) ? python : "";
}

// pypaimon's read of `table`: exit code, the lines it printed (in its order), and its stderr.
struct PypaimonRead {
  int exit_code = -1;
  std::vector<std::string> lines;
  std::string err;
};

inline PypaimonRead ReadWithPypaimon(const std::string& warehouse, const std::string& table,
                                     std::optional<int64_t> snapshot_id = std::nullopt, bool row_kinds = false) {
  std::vector<std::string> argv = {PypaimonPython(), testing::SourceDir() + "/interop/python/paimon_read.py", "read",
                                   "--warehouse", warehouse, "--table", table};
  if (snapshot_id) {
    argv.push_back("--snapshot");
    argv.push_back(std::to_string(*snapshot_id));
  }
  if (row_kinds) argv.push_back("--row-kinds");
  ProcessRun run = RunProcess(argv);
  PypaimonRead read;
  read.exit_code = run.exit_code;
  read.err = run.err;
  size_t start = 0;
  while (start < run.out.size()) {
    size_t nl = run.out.find('\n', start);
    if (nl == std::string::npos) nl = run.out.size();
    read.lines.push_back(run.out.substr(start, nl - start));
    start = nl + 1;
  }
  return read;
}

}  // namespace tide::interop_testing
