#include "tide/table/snapshot/snapshot.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "tide/types/json_format.h"

namespace tide {

std::string_view CommitKindName(CommitKind kind) {
  switch (kind) {
    case CommitKind::kAppend: return "APPEND";
    case CommitKind::kCompact: return "COMPACT";
    case CommitKind::kOverwrite: return "OVERWRITE";
    case CommitKind::kAnalyze: return "ANALYZE";
  }
  return "APPEND";
}

namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Result<std::optional<T>> Optional(const Json& j, const char* key, const std::string& file) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<T>();
  try {
    return std::optional<T>(it->get<T>());
  } catch (const std::exception&) {
    return Status::Corruption("snapshot file {}: field \"{}\" has the wrong type", file, key);
  }
}

template <typename T>
Result<T> Required(const Json& j, const char* key, const std::string& file) {
  TIDE_ASSIGN_OR_RETURN(auto v, Optional<T>(j, key, file));
  if (!v) return Status::Corruption("snapshot file {}: required field \"{}\" is missing", file, key);
  return *v;
}

// A java.time.LocalDateTime as Jackson reads it: the array [y, mo, d, h, mi(, s(, nanos))] or an ISO
// text "2025-01-01T00:00[:00[.fraction]]"; nullopt if it is neither.
std::optional<std::vector<int64_t>> ParseLocalDateTime(const Json& value) {
  std::vector<int64_t> parts;
  if (value.is_array()) {
    for (const auto& v : value) {
      if (!v.is_number_integer()) return std::nullopt;
      parts.push_back(v.get<int64_t>());
    }
  } else if (value.is_string()) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    const std::string text = value.get<std::string>();
    int n = std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &sec);
    if (n < 5) return std::nullopt;
    parts = {y, mo, d, h, mi};
    if (sec != 0) parts.push_back(sec);
  } else {
    return std::nullopt;
  }
  if (parts.size() < 5 || parts.size() > 7) return std::nullopt;
  return parts;
}

// A java.time.Duration as Jackson reads it, in milliseconds: decimal seconds, or ISO text "PT..H..M..S".
std::optional<int64_t> ParseDuration(const Json& value) {
  if (value.is_number()) return static_cast<int64_t>(std::llround(value.get<double>() * 1000.0));
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  if (text.size() < 3 || text.compare(0, 2, "PT") != 0) return std::nullopt;
  double total_ms = 0, number = 0;
  bool have_number = false;
  for (size_t i = 2; i < text.size();) {
    size_t used = 0;
    try {
      number = std::stod(text.substr(i), &used);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    i += used;
    have_number = true;
    if (i >= text.size()) return std::nullopt;
    char unit = text[i++];
    if (unit == 'H') total_ms += number * 3'600'000;
    else if (unit == 'M') total_ms += number * 60'000;
    else if (unit == 'S') total_ms += number * 1000;
    else return std::nullopt;
  }
  if (!have_number) return std::nullopt;
  return static_cast<int64_t>(std::llround(total_ms));
}

}  // namespace

Result<Snapshot> Snapshot::FromJson(const std::string& text, const std::string& file) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Corruption("snapshot file {} is not valid JSON ({} bytes)", file, text.size());
  }
  Snapshot s;
  TIDE_ASSIGN_OR_RETURN(auto version, Optional<int32_t>(j, "version", file));
  s.version = version.value_or(1);
  TIDE_ASSIGN_OR_RETURN(s.id, Required<int64_t>(j, "id", file));
  TIDE_ASSIGN_OR_RETURN(s.schema_id, Required<int64_t>(j, "schemaId", file));
  TIDE_ASSIGN_OR_RETURN(s.base_manifest_list, Required<std::string>(j, "baseManifestList", file));
  TIDE_ASSIGN_OR_RETURN(s.base_manifest_list_size, Optional<int64_t>(j, "baseManifestListSize", file));
  TIDE_ASSIGN_OR_RETURN(s.delta_manifest_list, Required<std::string>(j, "deltaManifestList", file));
  TIDE_ASSIGN_OR_RETURN(s.delta_manifest_list_size, Optional<int64_t>(j, "deltaManifestListSize", file));
  TIDE_ASSIGN_OR_RETURN(s.changelog_manifest_list, Optional<std::string>(j, "changelogManifestList", file));
  TIDE_ASSIGN_OR_RETURN(s.changelog_manifest_list_size, Optional<int64_t>(j, "changelogManifestListSize", file));
  TIDE_ASSIGN_OR_RETURN(s.index_manifest, Optional<std::string>(j, "indexManifest", file));
  TIDE_ASSIGN_OR_RETURN(s.commit_user, Required<std::string>(j, "commitUser", file));
  TIDE_ASSIGN_OR_RETURN(s.commit_identifier, Required<int64_t>(j, "commitIdentifier", file));
  TIDE_ASSIGN_OR_RETURN(std::string kind, Required<std::string>(j, "commitKind", file));
  if (kind == "APPEND") {
    s.commit_kind = CommitKind::kAppend;
  } else if (kind == "COMPACT") {
    s.commit_kind = CommitKind::kCompact;
  } else if (kind == "OVERWRITE") {
    s.commit_kind = CommitKind::kOverwrite;
  } else if (kind == "ANALYZE") {
    s.commit_kind = CommitKind::kAnalyze;
  } else {
    return Status::Corruption("snapshot file {}: unknown commitKind \"{}\"", file, kind);
  }
  TIDE_ASSIGN_OR_RETURN(s.time_millis, Required<int64_t>(j, "timeMillis", file));
  if (auto it = j.find("logOffsets"); it != j.end() && it->is_object()) {
    std::map<int32_t, int64_t> offsets;
    for (auto o = it->begin(); o != it->end(); ++o) {
      try {
        offsets[std::stoi(o.key())] = o.value().get<int64_t>();
      } catch (const std::exception&) {
        return Status::Corruption("snapshot file {}: bad logOffsets entry", file);
      }
    }
    s.log_offsets = std::move(offsets);
  }
  TIDE_ASSIGN_OR_RETURN(s.total_record_count, Optional<int64_t>(j, "totalRecordCount", file));
  TIDE_ASSIGN_OR_RETURN(s.delta_record_count, Optional<int64_t>(j, "deltaRecordCount", file));
  TIDE_ASSIGN_OR_RETURN(s.changelog_record_count, Optional<int64_t>(j, "changelogRecordCount", file));
  TIDE_ASSIGN_OR_RETURN(s.watermark, Optional<int64_t>(j, "watermark", file));
  TIDE_ASSIGN_OR_RETURN(s.statistics, Optional<std::string>(j, "statistics", file));
  if (auto it = j.find("properties"); it != j.end() && it->is_object()) {
    std::map<std::string, std::string> props;
    for (auto p = it->begin(); p != it->end(); ++p) {
      props[p.key()] = p.value().is_string() ? p.value().get<std::string>() : p.value().dump();
    }
    s.properties = std::move(props);
  }
  TIDE_ASSIGN_OR_RETURN(s.next_row_id, Optional<int64_t>(j, "nextRowId", file));
  if (auto it = j.find("tagCreateTime"); it != j.end() && !it->is_null()) {
    auto time = ParseLocalDateTime(*it);
    if (!time) return Status::Corruption("snapshot file {}: field \"tagCreateTime\" is not a date-time", file);
    s.tag_create_time = std::move(time);
  }
  if (auto it = j.find("tagTimeRetained"); it != j.end() && !it->is_null()) {
    auto millis = ParseDuration(*it);
    if (!millis) return Status::Corruption("snapshot file {}: field \"tagTimeRetained\" is not a duration", file);
    s.tag_time_retained_ms = *millis;
  }
  return s;
}

std::string Snapshot::ToJson() const {
  Json j;
  j["version"] = version;
  j["id"] = id;
  j["schemaId"] = schema_id;
  j["baseManifestList"] = base_manifest_list;
  if (base_manifest_list_size) j["baseManifestListSize"] = *base_manifest_list_size;
  j["deltaManifestList"] = delta_manifest_list;
  if (delta_manifest_list_size) j["deltaManifestListSize"] = *delta_manifest_list_size;
  j["changelogManifestList"] = changelog_manifest_list ? Json(*changelog_manifest_list) : Json(nullptr);
  if (changelog_manifest_list_size) j["changelogManifestListSize"] = *changelog_manifest_list_size;
  if (index_manifest) j["indexManifest"] = *index_manifest;
  j["commitUser"] = commit_user;
  j["commitIdentifier"] = commit_identifier;
  j["commitKind"] = std::string(CommitKindName(commit_kind));
  j["timeMillis"] = time_millis;
  if (log_offsets) {
    Json o = Json::object();
    for (const auto& [k, v] : *log_offsets) o[std::to_string(k)] = v;
    j["logOffsets"] = std::move(o);
  }
  j["totalRecordCount"] = total_record_count ? Json(*total_record_count) : Json(nullptr);
  j["deltaRecordCount"] = delta_record_count ? Json(*delta_record_count) : Json(nullptr);
  if (changelog_record_count) j["changelogRecordCount"] = *changelog_record_count;
  if (watermark) j["watermark"] = *watermark;
  if (statistics) j["statistics"] = *statistics;
  if (properties) {
    Json p = Json::object();
    for (const auto& [k, v] : *properties) p[k] = v;
    j["properties"] = std::move(p);
  }
  if (next_row_id) j["nextRowId"] = *next_row_id;
  if (tag_create_time) j["tagCreateTime"] = *tag_create_time;
  std::string text = JacksonPrettyPrint(j);
  if (tag_time_retained_ms) {
    // Jackson writes a Duration as a BigDecimal of seconds with nine decimals ("3600.000000000"; zero is
    // "0.0"), which a JSON library's double cannot spell; the field is the last one, so it is appended.
    int64_t ms = *tag_time_retained_ms;
    std::string seconds = ms == 0 ? "0.0" : fmt::format("{}.{:03}000000", ms / 1000, ms % 1000);
    text.insert(text.size() - 2, fmt::format(",\n  \"tagTimeRetained\" : {}", seconds));
  }
  return text;
}

}  // namespace tide
