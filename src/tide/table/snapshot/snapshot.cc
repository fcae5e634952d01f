#include "tide/table/snapshot/snapshot.h"

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
  TIDE_ASSIGN_OR_RETURN(s.tag_create_time, Optional<std::string>(j, "tagCreateTime", file));
  if (auto it = j.find("tagCreateTime"); it != j.end() && it->is_array()) s.tag_create_time = it->dump();
  TIDE_ASSIGN_OR_RETURN(s.tag_time_retained, Optional<std::string>(j, "tagTimeRetained", file));
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
  if (tag_time_retained) j["tagTimeRetained"] = *tag_time_retained;
  return JacksonPrettyPrint(j);
}

}  // namespace tide
