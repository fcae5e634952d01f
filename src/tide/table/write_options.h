// WriteOptions: the table options a Paimon table writer acts on, read once from the table's schema with
// Java Paimon 1.x names and defaults (CoreOptions), plus the few defaults Tide chooses itself.
//
// Defaults that follow Java: `target-file-size` 128 MiB for primary-key tables and 256 MiB for append
// tables (CoreOptions.targetFileSize), `file.compression` zstd at level 1, `data-file.prefix` "data-",
// `changelog-file.prefix` "changelog-", `metadata.stats-mode` truncate(16), dense stats store on.
// Tide's own default: `write-buffer-size` 64 MiB (Java: 256 MiB) when the table does not set it, because
// Tide keeps buffered rows as decoded values, and a pipeline holds one writer per table.
//
// Options whose write-side behaviour Tide does not implement are refused here, with the option named,
// rather than written wrongly (see WriteOptions::FromSchema). Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tide/base/result.h"
#include "tide/types/table_schema.h"

namespace tide {

// Tide's default `write-buffer-size` when the table does not set one.
inline constexpr int64_t kTideDefaultWriteBufferSize = 64LL * 1024 * 1024;

enum class ChangelogProducer { kNone, kInput };

struct WriteOptions {
  int64_t write_buffer_size = kTideDefaultWriteBufferSize;
  int64_t target_file_size = 128LL * 1024 * 1024;
  std::string file_compression = "zstd";  // file.compression
  int zstd_level = 1;                     // file.compression.zstd-level
  std::string data_file_prefix = "data-";
  std::string changelog_file_prefix = "changelog-";
  bool file_suffix_include_compression = false;
  ChangelogProducer changelog_producer = ChangelogProducer::kNone;
  bool ignore_delete = false;

  // Reads the options of `schema`; `table_name` names the table in errors. Refuses (NotSupported,
  // naming the option): a `file.format` other than parquet, `changelog-producer` lookup or
  // full-compaction, `data-file.external-paths`, `rowkind.field`, partial-update sequence groups.
  // InvalidArgument for malformed values (sizes, levels, booleans).
  static Result<WriteOptions> FromSchema(const TableSchema& schema, const std::string& table_name);
};

// Parses a memory size as Java's MemorySize.parse does: a non-negative integer and an optional unit
// (b/bytes, k/kb/kibibytes, m/mb/mebibytes, g/gb/gibibytes, t/tb/tebibytes; case-insensitive; units are
// powers of 1024; spaces allowed between number and unit), e.g. "256 mb", "128MB", "1024". `what` names
// the option in errors.
Result<int64_t> ParseMemorySize(std::string_view text, std::string_view what);

}  // namespace tide
