#include "tide/table/operation/partition_expire.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <random>
#include <set>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/base/uuid.h"
#include "tide/codec/binary_row.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/types/datum.h"

namespace tide {

namespace {

constexpr int64_t kDayMs = 86'400'000;

int64_t LocalNowMillis(int64_t epoch_ms) {
  std::time_t seconds = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  return epoch_ms + static_cast<int64_t>(tm.tm_gmtoff) * 1000;
}

struct DateTimeFields {
  std::optional<int64_t> year, month, day, hour, minute, second, nanos;
};

// Reads `min`..`max` digits at `*pos`.
std::optional<int64_t> ReadNumber(const std::string& s, size_t* pos, size_t min, size_t max) {
  size_t n = 0;
  int64_t v = 0;
  while (n < max && *pos + n < s.size() && s[*pos + n] >= '0' && s[*pos + n] <= '9') {
    v = v * 10 + (s[*pos + n] - '0');
    ++n;
  }
  if (n < min) return std::nullopt;
  *pos += n;
  return v;
}

std::optional<int64_t> Resolve(const DateTimeFields& f) {
  if (!f.year || !f.month || !f.day) return std::nullopt;
  if (*f.month < 1 || *f.month > 12 || *f.day < 1 || *f.day > 31) return std::nullopt;
  int64_t h = f.hour.value_or(0), mi = f.minute.value_or(0), s = f.second.value_or(0);
  if (h > 23 || mi > 59 || s > 59) return std::nullopt;
  const int64_t days = DaysFromCivil(*f.year, static_cast<unsigned>(*f.month), static_cast<unsigned>(*f.day));
  return days * kDayMs + h * 3'600'000 + mi * 60'000 + s * 1000 + f.nanos.value_or(0) / 1'000'000;
}

// Java's PartitionTimeExtractor default: yyyy-M-d, optionally followed by " H:m:s[.fraction]".
std::optional<int64_t> ParseDefault(const std::string& text) {
  DateTimeFields f;
  size_t pos = 0;
  f.year = ReadNumber(text, &pos, 1, 10);
  if (!f.year || pos >= text.size() || text[pos++] != '-') return std::nullopt;
  f.month = ReadNumber(text, &pos, 1, 2);
  if (!f.month || pos >= text.size() || text[pos++] != '-') return std::nullopt;
  f.day = ReadNumber(text, &pos, 1, 2);
  if (!f.day) return std::nullopt;
  if (pos < text.size()) {
    if (text[pos++] != ' ') return std::nullopt;
    f.hour = ReadNumber(text, &pos, 1, 2);
    if (!f.hour || pos >= text.size() || text[pos++] != ':') return std::nullopt;
    f.minute = ReadNumber(text, &pos, 1, 2);
    if (!f.minute || pos >= text.size() || text[pos++] != ':') return std::nullopt;
    f.second = ReadNumber(text, &pos, 1, 2);
    if (!f.second) return std::nullopt;
    if (pos < text.size()) {
      if (text[pos++] != '.') return std::nullopt;
      size_t start = pos;
      auto fraction = ReadNumber(text, &pos, 1, 9);
      if (!fraction) return std::nullopt;
      int64_t nanos = *fraction;
      for (size_t i = pos - start; i < 9; ++i) nanos *= 10;
      f.nanos = nanos;
    }
    if (pos != text.size()) return std::nullopt;
  }
  return Resolve(f);
}

// A java.time DateTimeFormatter.ofPattern subset: letter runs y, M, d, H, m, s, S; 'quoted' text; any
// other character is literal. `yyyy` takes 4 or more digits, other runs of two exactly two, single
// letters one or two, as java.time parses them.
std::optional<int64_t> ParsePattern(const std::string& text, const std::string& pattern) {
  DateTimeFields f;
  size_t pos = 0;
  for (size_t i = 0; i < pattern.size();) {
    char c = pattern[i];
    if (c == '\'') {
      size_t end = pattern.find('\'', i + 1);
      if (end == std::string::npos) return std::nullopt;
      std::string literal = end == i + 1 ? "'" : pattern.substr(i + 1, end - i - 1);
      if (text.compare(pos, literal.size(), literal) != 0) return std::nullopt;
      pos += literal.size();
      i = end + 1;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      if (pos >= text.size() || text[pos] != c) return std::nullopt;
      ++pos;
      ++i;
      continue;
    }
    size_t run = 1;
    while (i + run < pattern.size() && pattern[i + run] == c) ++run;
    i += run;
    size_t min = run == 1 ? 1 : run, max = run == 1 ? 2 : run;
    if (c == 'y' || c == 'u') {
      if (run == 2) {
        auto v = ReadNumber(text, &pos, 2, 2);
        if (!v) return std::nullopt;
        f.year = 2000 + *v;
        continue;
      }
      // Java's adjacent value parsing: a year directly followed by another field takes its width only.
      min = run;
      max = i < pattern.size() && std::isalpha(static_cast<unsigned char>(pattern[i])) ? run : 10;
    }
    if (c == 'S') max = run;
    auto v = ReadNumber(text, &pos, min, max);
    if (!v) return std::nullopt;
    switch (c) {
      case 'y': case 'u': f.year = v; break;
      case 'M': f.month = v; break;
      case 'd': f.day = v; break;
      case 'H': f.hour = v; break;
      case 'm': f.minute = v; break;
      case 's': f.second = v; break;
      case 'S': {
        int64_t nanos = *v;
        for (size_t k = run; k < 9; ++k) nanos *= 10;
        f.nanos = nanos;
        break;
      }
      default: return std::nullopt;  // a pattern letter Tide does not read
    }
  }
  if (pos != text.size()) return std::nullopt;
  return Resolve(f);
}

// Java's replacePattern: `$key` replaced by the key's value, longer keys first.
std::string ReplacePattern(const std::string& pattern, const std::vector<std::string>& keys,
                           const std::vector<std::string>& values) {
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a].size() > keys[b].size(); });
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern[i] == '$' && i + 1 < pattern.size()) {
      bool matched = false;
      for (size_t k : order) {
        if (pattern.compare(i + 1, keys[k].size(), keys[k]) == 0) {
          out += values[k];
          i += 1 + keys[k].size();
          matched = true;
          break;
        }
      }
      if (matched) continue;
    }
    out += pattern[i++];
  }
  return out;
}

}  // namespace

std::optional<int64_t> ParsePartitionTime(const std::string& text, const std::optional<std::string>& formatter) {
  if (!formatter) return ParseDefault(text);
  return ParsePattern(text, *formatter);
}

Result<std::optional<PartitionExpireConfig>> PartitionExpireConfig::FromOptions(
    const CoreOptions& options, const std::string& table_name, std::optional<int64_t> expiration_time_ms) {
  if (!expiration_time_ms) expiration_time_ms = options.partition_expiration_time_ms();
  if (!expiration_time_ms) return std::optional<PartitionExpireConfig>();
  if (options.partition_expiration_strategy() != "values-time") {
    return Status::NotSupported(
        "table {}: partition.expiration-strategy = {}; Tide expires partitions by their values (values-time) only",
        table_name, options.partition_expiration_strategy());
  }
  PartitionExpireConfig c;
  c.expiration_time_ms = *expiration_time_ms;
  c.check_interval_ms = options.partition_expiration_check_interval_ms();
  c.max_num = options.partition_expiration_max_num();
  c.batch_size = options.partition_expiration_batch_size();
  c.timestamp_formatter = options.partition_timestamp_formatter();
  c.timestamp_pattern = options.partition_timestamp_pattern();
  return std::optional<PartitionExpireConfig>(std::move(c));
}

PartitionExpire::PartitionExpire(FileSystem* fs, std::string table_path, std::string table_name,
                                 PartitionExpireConfig config, int64_t now_ms)
    : fs_(fs), table_path_(std::move(table_path)), table_name_(std::move(table_name)), config_(std::move(config)) {
  // As Java: writers that start together do not all check at once.
  int64_t spread = 0;
  if (config_.check_interval_ms >= 1000) {
    std::mt19937_64 rng(std::random_device{}());
    spread = static_cast<int64_t>(rng() % static_cast<uint64_t>(config_.check_interval_ms / 1000)) * 1000;
  }
  last_check_ms_ = now_ms - spread;
}

Result<std::optional<std::vector<std::string>>> PartitionExpire::Expire(int64_t now_ms) {
  if (config_.check_interval_ms > 0 && now_ms <= last_check_ms_ + config_.check_interval_ms) {
    return std::optional<std::vector<std::string>>();
  }
  last_check_ms_ = now_ms;
  std::vector<std::string> dropped;
  TIDE_ASSIGN_OR_RETURN(TableSchema schema, SchemaManager(fs_, table_path_).Latest());
  if (schema.partition_keys.empty()) {
    return Status::InvalidArgument("table {} is not partitioned; there are no partitions to expire", table_name_);
  }
  SnapshotManager snapshots(fs_, table_path_);
  TIDE_ASSIGN_OR_RETURN(auto latest_id, snapshots.LatestId());
  if (!latest_id) return std::optional<std::vector<std::string>>(dropped);
  TIDE_ASSIGN_OR_RETURN(Snapshot latest, snapshots.Get(*latest_id));
  FileStoreScan scan(fs_, table_path_, table_name_, schema);
  TIDE_ASSIGN_OR_RETURN(auto entries, scan.ReadLiveEntries(latest));

  std::vector<DataType> types;
  for (const auto& key : schema.partition_keys) types.push_back(schema.fields[static_cast<size_t>(schema.FieldIndex(key))].type);
  const int64_t expire_before = LocalNowMillis(now_ms) - config_.expiration_time_ms;
  std::map<std::string, std::string> expired;  // joined values -> serialized partition (sorted as Java)
  std::map<std::string, std::string> names;    // serialized partition -> k=v/...
  std::set<std::string> seen;
  for (const auto& e : entries) {
    if (!seen.insert(e.partition).second) continue;
    TIDE_ASSIGN_OR_RETURN(Row row, DeserializeBinaryRow(e.partition, types));
    std::vector<std::string> values;
    bool has_null = false;
    for (size_t i = 0; i < row.size(); ++i) {
      if (row[i].is_null()) has_null = true;
      values.push_back(row[i].is_null() ? "" : DatumToString(row[i], types[i]));
    }
    if (has_null) continue;  // as Java: a NULL partition value never expires by value
    std::string text = config_.timestamp_pattern ? ReplacePattern(*config_.timestamp_pattern, schema.partition_keys, values)
                                                 : values.front();
    auto time = ParsePartitionTime(text, config_.timestamp_formatter);
    if (!time) {
      TIDE_LOG_WARN("table {}: cannot read a time from partition value '{}'; it is not expired (check "
                    "partition.timestamp-pattern and partition.timestamp-formatter)",
                    table_name_, text);
      continue;
    }
    if (expire_before > *time) {
      std::vector<std::string> parts;
      for (size_t i = 0; i < values.size(); ++i) parts.push_back(schema.partition_keys[i] + "=" + values[i]);
      expired[Join(values, "\x01")] = e.partition;
      names[e.partition] = Join(parts, "/");
    }
  }
  std::vector<std::string> selected;
  for (const auto& [joined, partition] : expired) {
    if (static_cast<int32_t>(selected.size()) >= config_.max_num) break;
    selected.push_back(partition);
  }
  if (selected.empty()) return std::optional<std::vector<std::string>>(dropped);

  TIDE_ASSIGN_OR_RETURN(auto commit, FileStoreCommit::Create(fs_, table_path_, table_name_));
  const size_t batch = config_.batch_size && *config_.batch_size > 0 ? static_cast<size_t>(*config_.batch_size)
                                                                      : selected.size();
  CommitOptions options;
  options.commit_user = "partition-expire-" + RandomUuidString();
  for (size_t start = 0; start < selected.size(); start += batch) {
    std::vector<std::string> part(selected.begin() + static_cast<std::ptrdiff_t>(start),
                                  selected.begin() + static_cast<std::ptrdiff_t>(std::min(selected.size(), start + batch)));
    options.commit_identifier = static_cast<int64_t>(start / batch) + 1;
    auto result = commit->Overwrite(OverwriteScope::Partitions(part), {}, options);
    if (!result.ok()) return result.status().WithContext(fmt::format("table {}: expiring partitions", table_name_));
    for (const auto& p : part) dropped.push_back(names[p]);
  }
  TIDE_LOG_INFO("table {}: expired {} partitions: {}", table_name_, dropped.size(), Join(dropped, ", "));
  return std::optional<std::vector<std::string>>(dropped);
}

}  // namespace tide
