#include "tide/types/table_schema.h"

#include <algorithm>

#include "tide/base/strings.h"
#include "tide/types/json_format.h"

namespace tide {

namespace {
Result<std::vector<std::string>> StringList(const nlohmann::ordered_json& j, const char* key, const std::string& file) {
  std::vector<std::string> out;
  if (!j.contains(key) || j[key].is_null()) return out;
  if (!j[key].is_array()) return Status::Corruption("schema file {}: \"{}\" is not an array", file, key);
  for (const auto& e : j[key]) {
    if (!e.is_string()) return Status::Corruption("schema file {}: \"{}\" holds a non-string", file, key);
    out.push_back(e.get<std::string>());
  }
  return out;
}
}  // namespace

Result<TableSchema> TableSchema::FromJson(const std::string& text, const std::string& file) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Corruption("schema file {} is not valid JSON ({} bytes)", file, text.size());
  }
  TableSchema s;
  s.version = j.value("version", 1);
  if (!j.contains("id") || !j["id"].is_number_integer()) {
    return Status::Corruption("schema file {} has no integer \"id\"", file);
  }
  s.id = j["id"].get<int64_t>();
  if (!j.contains("fields") || !j["fields"].is_array()) {
    return Status::Corruption("schema file {} has no \"fields\" array", file);
  }
  for (const auto& f : j["fields"]) {
    auto field = DataField::FromJson(f);
    if (!field.ok()) {
      StatusCode code = field.status().IsNotSupported() ? StatusCode::kNotSupported : StatusCode::kCorruption;
      return Status(code, fmt::format("schema file {}: {}", file, field.status().message()));
    }
    s.fields.push_back(std::move(field).value());
  }
  int32_t max_id = -1;
  for (const auto& f : s.fields) max_id = MaxNestedFieldId(f.type, std::max(max_id, f.id));
  s.highest_field_id = j.contains("highestFieldId") ? j["highestFieldId"].get<int32_t>() : max_id;
  TIDE_ASSIGN_OR_RETURN(s.partition_keys, StringList(j, "partitionKeys", file));
  TIDE_ASSIGN_OR_RETURN(s.primary_keys, StringList(j, "primaryKeys", file));
  if (j.contains("options") && j["options"].is_object()) {
    for (auto it = j["options"].begin(); it != j["options"].end(); ++it) {
      std::string value = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
      s.SetOption(it.key(), value);
    }
  }
  if (s.version <= 1 && !s.FindOption("bucket")) s.SetOption("bucket", "1");
  if (s.version <= 2 && !s.FindOption("file.format")) s.SetOption("file.format", "orc");
  if (j.contains("comment") && j["comment"].is_string()) s.comment = j["comment"].get<std::string>();
  s.time_millis = j.value("timeMillis", int64_t{0});
  for (const auto& k : s.partition_keys) {
    if (s.FieldIndex(k) < 0) return Status::Corruption("schema file {}: partition key '{}' is not a field", file, k);
  }
  for (const auto& k : s.primary_keys) {
    if (s.FieldIndex(k) < 0) return Status::Corruption("schema file {}: primary key '{}' is not a field", file, k);
  }
  return s;
}

std::string TableSchema::ToJson() const {
  nlohmann::ordered_json j;
  j["version"] = version;
  j["id"] = id;
  nlohmann::ordered_json fs = nlohmann::ordered_json::array();
  for (const auto& f : fields) fs.push_back(f.ToJson());
  j["fields"] = std::move(fs);
  j["highestFieldId"] = highest_field_id;
  j["partitionKeys"] = partition_keys;
  j["primaryKeys"] = primary_keys;
  nlohmann::ordered_json opts = nlohmann::ordered_json::object();
  for (const auto& k : option_order) opts[k] = options.at(k);
  j["options"] = std::move(opts);
  if (comment) j["comment"] = *comment;
  j["timeMillis"] = time_millis;
  return JacksonPrettyPrint(j);
}

int TableSchema::FieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int TableSchema::FieldIndexById(int32_t id) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> TableSchema::FieldNames() const {
  std::vector<std::string> out;
  for (const auto& f : fields) out.push_back(f.name);
  return out;
}

std::vector<std::string> TableSchema::TrimmedPrimaryKeys() const {
  std::vector<std::string> out;
  for (const auto& k : primary_keys) {
    if (std::find(partition_keys.begin(), partition_keys.end(), k) == partition_keys.end()) out.push_back(k);
  }
  return out;
}

std::vector<std::string> TableSchema::BucketKeys() const {
  auto bk = FindOption("bucket-key");
  if (bk && !Trim(*bk).empty()) {
    std::vector<std::string> out;
    for (auto& k : Split(*bk, ',')) out.emplace_back(Trim(k));
    return out;
  }
  return TrimmedPrimaryKeys();
}

std::string TableSchema::Option(const std::string& key, const std::string& fallback) const {
  auto it = options.find(key);
  return it == options.end() ? fallback : it->second;
}

std::optional<std::string> TableSchema::FindOption(const std::string& key) const {
  auto it = options.find(key);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

void TableSchema::SetOption(const std::string& key, const std::string& value) {
  if (options.find(key) == options.end()) option_order.push_back(key);
  options[key] = value;
}

void TableSchema::RemoveOption(const std::string& key) {
  options.erase(key);
  option_order.erase(std::remove(option_order.begin(), option_order.end(), key), option_order.end());
}

}  // namespace tide
