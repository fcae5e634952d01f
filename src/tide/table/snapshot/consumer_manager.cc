#include "tide/table/snapshot/consumer_manager.h"

#include <nlohmann/json.hpp>

#include "tide/base/strings.h"
#include "tide/types/json_format.h"

namespace tide {

namespace {
constexpr std::string_view kConsumerPrefix = "consumer-";
}  // namespace

std::string ConsumerManager::ConsumerDir() const { return JoinPath(table_path_, "consumer"); }

std::string ConsumerManager::ConsumerPath(const std::string& consumer_id) const {
  return JoinPath(ConsumerDir(), std::string(kConsumerPrefix) + consumer_id);
}

Result<std::map<std::string, int64_t>> ConsumerManager::Consumers() const {
  std::map<std::string, int64_t> out;
  auto entries = fs_->ListDir(ConsumerDir());
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return out;
    return entries.status();
  }
  for (const auto& e : *entries) {
    if (e.is_directory || !StartsWith(e.name, kConsumerPrefix)) continue;
    std::string path = JoinPath(ConsumerDir(), e.name);
    auto text = fs_->ReadFile(path);
    if (!text.ok()) {
      if (text.status().IsNotFound()) continue;  // expired or reset meanwhile
      return text.status();
    }
    auto json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object() || !json.contains("nextSnapshot") || !json["nextSnapshot"].is_number_integer()) {
      return Status::Corruption("consumer file {} does not hold {{\"nextSnapshot\" : N}}", path);
    }
    out[e.name.substr(kConsumerPrefix.size())] = json["nextSnapshot"].get<int64_t>();
  }
  return out;
}

Result<std::optional<int64_t>> ConsumerManager::MinNextSnapshot() const {
  TIDE_ASSIGN_OR_RETURN(auto consumers, Consumers());
  std::optional<int64_t> min;
  for (const auto& [id, next] : consumers) {
    if (!min || next < *min) min = next;
  }
  return min;
}

Status ConsumerManager::ResetConsumer(const std::string& consumer_id, int64_t next_snapshot) const {
  nlohmann::ordered_json j;
  j["nextSnapshot"] = next_snapshot;
  TIDE_RETURN_IF_ERROR(fs_->MakeDirs(ConsumerDir()));
  return fs_->WriteFileAtomic(ConsumerPath(consumer_id), JacksonPrettyPrint(j));
}

Result<int> ConsumerManager::ExpireBefore(int64_t before_ms) const {
  auto entries = fs_->ListDir(ConsumerDir());
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return 0;
    return entries.status();
  }
  int expired = 0;
  for (const auto& e : *entries) {
    if (e.is_directory || !StartsWith(e.name, kConsumerPrefix)) continue;
    if (e.modification_time_ms < before_ms) {
      TIDE_RETURN_IF_ERROR(fs_->DeleteFile(JoinPath(ConsumerDir(), e.name)));
      ++expired;
    }
  }
  return expired;
}

}  // namespace tide
