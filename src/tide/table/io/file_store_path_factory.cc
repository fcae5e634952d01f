#include "tide/table/io/file_store_path_factory.h"

#include "tide/base/strings.h"
#include "tide/io/file_system.h"
#include "tide/table/schema/core_options.h"
#include "tide/types/datum.h"

namespace tide {

std::string LocalPathOf(std::string_view uri) {
  // `file:/x`, `file:///x` and Java's `FILE:/x` all name the local path /x.
  if (uri.size() >= 5 && EqualsIgnoreCase(uri.substr(0, 5), "file:")) {
    uri.remove_prefix(5);
    while (uri.size() >= 2 && uri[0] == '/' && uri[1] == '/') uri.remove_prefix(1);
  }
  return std::string(uri);
}

std::string EscapePartitionPathSegment(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    bool escape = c < 0x20 || c == 0x7F || c == '"' || c == '#' || c == '%' || c == '\'' || c == '*' || c == '/' ||
                  c == ':' || c == '=' || c == '?' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']' ||
                  c == '^';
    if (escape) {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

namespace {

// Java's toString of a partition value's internal representation (partition.legacy-name=true).
std::string LegacyPartitionText(const Datum& v, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kDate:  // the day number, a known quirk of legacy names
    case TypeRoot::kTime:
      return std::to_string(v.as_int());
    case TypeRoot::kDecimal:
      return DecimalToString(v.as_decimal().unscaled, type.scale());
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      // Timestamp.toString(): LocalDateTime's ISO form, e.g. 2024-01-01T12:30 or 2024-01-01T12:30:05.123
      std::string s = FormatTimestamp(v.as_timestamp(), 9);
      s[10] = 'T';
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
      if (s.size() == 19 && EndsWith(s, ":00")) s.resize(16);
      return s;
    }
    default:
      return DatumToString(v, type);
  }
}

// The folder text of a partition value (not NULL). Both namings give a FLOAT or DOUBLE as Java's
// toString (legacy: the value's toString; else a cast to STRING, which is String.valueOf).
std::string PartitionText(const Datum& v, const DataType& type, bool legacy_name) {
  if (type.root() == TypeRoot::kDouble) return JavaFloatingText(v.as_double());
  if (type.root() == TypeRoot::kFloat) return JavaFloatingText(v.as_float());
  return legacy_name ? LegacyPartitionText(v, type) : DatumToString(v, type);
}

}  // namespace

Result<std::string> FileStorePathFactory::PartitionPath(const Row& values) const {
  const CoreOptions& options = options_;
  std::string path = table_path_;
  std::string dir = options.data_file_path_directory();
  if (!dir.empty()) path = JoinPath(path, dir);
  for (size_t i = 0; i < schema_.partition_keys.size(); ++i) {
    const std::string& key = schema_.partition_keys[i];
    const DataType& type = schema_.fields[schema_.FieldIndex(key)].type;
    std::string text;
    if (i >= values.size() || values[i].is_null()) {
      text = options.partition_default_name();
    } else {
      text = PartitionText(values[i], type, options.partition_legacy_name());
      if (Trim(text).empty()) text = options.partition_default_name();
    }
    path = JoinPath(path, EscapePartitionPathSegment(key) + "=" + EscapePartitionPathSegment(text));
  }
  return path;
}

std::string FileStorePathFactory::BucketPath(const std::string& partition_path, int32_t bucket) {
  return JoinPath(partition_path, "bucket-" + std::to_string(bucket));
}

}  // namespace tide
