#include "tide/table/write_options.h"

#include <cctype>
#include <limits>

#include "tide/base/strings.h"
#include "tide/table/core_options.h"

namespace tide {

Result<int64_t> ParseMemorySize(std::string_view text, std::string_view what) {
  std::string_view t = Trim(text);
  size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0) {
    return Status::InvalidArgument("{} = '{}' is not a memory size (write a number and a unit, e.g. '256 mb')", what,
                                   text);
  }
  auto number = ParseInt64(t.substr(0, digits), what);
  if (!number.ok()) return number.status();
  std::string unit = ToLower(Trim(t.substr(digits)));
  int shift = 0;
  if (unit.empty() || unit == "b" || unit == "bytes") {
    shift = 0;
  } else if (unit == "k" || unit == "kb" || unit == "kibibytes") {
    shift = 10;
  } else if (unit == "m" || unit == "mb" || unit == "mebibytes") {
    shift = 20;
  } else if (unit == "g" || unit == "gb" || unit == "gibibytes") {
    shift = 30;
  } else if (unit == "t" || unit == "tb" || unit == "tebibytes") {
    shift = 40;
  } else {
    return Status::InvalidArgument("{} = '{}': unknown memory unit '{}' (use b, kb, mb, gb or tb)", what, text, unit);
  }
  if (*number > (std::numeric_limits<int64_t>::max() >> shift)) {
    return Status::InvalidArgument("{} = '{}' is too large", what, text);
  }
  return *number << shift;
}

namespace {

Result<bool> ParseBoolOption(const TableSchema& schema, const std::string& key, bool fallback,
                             const std::string& table_name) {
  auto v = schema.FindOption(key);
  if (!v) return fallback;
  std::string_view t = Trim(*v);
  if (EqualsIgnoreCase(t, "true")) return true;
  if (EqualsIgnoreCase(t, "false")) return false;
  return Status::InvalidArgument("table {}: option '{}' = '{}' is not a boolean (true or false)", table_name, key, *v);
}

}  // namespace

Result<WriteOptions> WriteOptions::FromSchema(const TableSchema& schema, const std::string& table_name) {
  WriteOptions out;
  CoreOptions core(schema);
  std::string format = ToLower(Trim(core.file_format()));
  if (format != "parquet") {
    return Status::NotSupported(
        "table {}: file.format '{}' is not supported for writing; Tide writes Parquet data files only (set "
        "'file.format' = 'parquet')",
        table_name, format);
  }
  auto size_option = [&](const std::string& key, int64_t fallback) -> Result<int64_t> {
    auto v = schema.FindOption(key);
    if (!v) return fallback;
    auto parsed = ParseMemorySize(*v, key);
    if (!parsed.ok()) return parsed.status().WithContext("table " + table_name);
    if (*parsed <= 0) return Status::InvalidArgument("table {}: option '{}' must be positive", table_name, key);
    return *parsed;
  };
  TIDE_ASSIGN_OR_RETURN(out.write_buffer_size, size_option("write-buffer-size", kTideDefaultWriteBufferSize));
  const int64_t default_target = schema.HasPrimaryKey() ? 128LL * 1024 * 1024 : 256LL * 1024 * 1024;
  TIDE_ASSIGN_OR_RETURN(out.target_file_size, size_option("target-file-size", default_target));

  out.file_compression = ToLower(Trim(schema.Option("file.compression", "zstd")));
  static const char* kCodecs[] = {"zstd", "snappy", "gzip", "lz4", "brotli", "uncompressed"};
  bool known = false;
  for (const char* c : kCodecs) known = known || out.file_compression == c;
  if (out.file_compression == "none") {
    out.file_compression = "uncompressed";
    known = true;
  }
  if (!known) {
    return Status::NotSupported("table {}: file.compression '{}' is not supported (zstd, snappy, gzip, lz4, "
                                "brotli, uncompressed are)",
                                table_name, out.file_compression);
  }
  if (auto level = schema.FindOption("file.compression.zstd-level")) {
    auto parsed = ParseInt64(Trim(*level), "file.compression.zstd-level");
    if (!parsed.ok() || *parsed < 1 || *parsed > 22) {
      return Status::InvalidArgument("table {}: file.compression.zstd-level '{}' must be an integer from 1 to 22",
                                     table_name, *level);
    }
    out.zstd_level = static_cast<int>(*parsed);
  }
  out.data_file_prefix = schema.Option("data-file.prefix", "data-");
  out.changelog_file_prefix = schema.Option("changelog-file.prefix", "changelog-");
  TIDE_ASSIGN_OR_RETURN(out.file_suffix_include_compression,
                        ParseBoolOption(schema, "file.suffix.include.compression", false, table_name));
  out.ignore_delete = core.ignore_delete();

  std::string producer = ToLower(Trim(schema.Option("changelog-producer", "none")));
  if (producer == "none") {
    out.changelog_producer = ChangelogProducer::kNone;
  } else if (producer == "input") {
    out.changelog_producer = ChangelogProducer::kInput;
  } else {
    return Status::NotSupported(
        "table {}: changelog-producer '{}' needs compaction-time lookups, which Tide's writer does not do yet "
        "(use 'none' or 'input')",
        table_name, producer);
  }
  if (auto ext = schema.FindOption("data-file.external-paths"); ext && !Trim(*ext).empty()) {
    return Status::NotSupported("table {}: option 'data-file.external-paths' is not supported for writing yet",
                                table_name);
  }
  if (auto rk = schema.FindOption("rowkind.field"); rk && !Trim(*rk).empty()) {
    return Status::NotSupported("table {}: option 'rowkind.field' is not supported for writing yet; pass the row "
                                "kind to TableWrite::Write instead",
                                table_name);
  }
  for (const auto& [key, value] : schema.options) {
    if (StartsWith(key, "fields.") && EndsWith(key, ".sequence-group")) {
      return Status::NotSupported("table {}: option '{}' (partial-update sequence groups) is not supported yet",
                                  table_name, key);
    }
  }
  return out;
}

}  // namespace tide
