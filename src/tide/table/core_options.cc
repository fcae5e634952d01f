#include "tide/table/core_options.h"

#include "tide/base/strings.h"

namespace tide {

int32_t CoreOptions::bucket() const {
  auto v = schema_.FindOption("bucket");
  if (!v) return -1;
  auto n = ParseInt64(*v, "bucket");
  return n.ok() ? static_cast<int32_t>(*n) : -1;
}

Result<MergeEngine> CoreOptions::merge_engine() const {
  std::string v = ToLower(Trim(schema_.Option("merge-engine", "deduplicate")));
  if (v == "deduplicate") return MergeEngine::kDeduplicate;
  if (v == "partial-update") return MergeEngine::kPartialUpdate;
  if (v == "aggregation") return MergeEngine::kAggregation;
  if (v == "first-row") return MergeEngine::kFirstRow;
  return Status::NotSupported("merge-engine '{}' is not supported (deduplicate, partial-update, aggregation, first-row are)", v);
}

bool CoreOptions::ignore_delete() const {
  // Older names of the same switch, as Java's fallback keys.
  return Bool("ignore-delete", false) || Bool("first-row.ignore-delete", false) ||
         Bool("partial-update.ignore-delete", false) || Bool("deduplicate.ignore-delete", false);
}

std::vector<std::string> CoreOptions::sequence_fields() const {
  std::vector<std::string> out;
  auto v = schema_.FindOption("sequence.field");
  if (!v) return out;
  for (const auto& part : Split(*v, ',')) {
    std::string_view t = Trim(part);
    if (!t.empty()) out.emplace_back(t);
  }
  return out;
}

bool CoreOptions::sequence_field_descending() const {
  return ToLower(schema_.Option("sequence.field.sort-order", "ascending")) == "descending";
}

std::string CoreOptions::aggregate_function(const std::string& field) const {
  auto v = schema_.FindOption("fields." + field + ".aggregate-function");
  if (v) return ToLower(Trim(*v));
  return ToLower(Trim(schema_.Option("fields.default-aggregate-function", "last_non_null_value")));
}

bool CoreOptions::ignore_retract(const std::string& field) const {
  return Bool("fields." + field + ".ignore-retract", false);
}

bool CoreOptions::Bool(const std::string& key, bool fallback) const {
  auto v = schema_.FindOption(key);
  if (!v) return fallback;
  return EqualsIgnoreCase(Trim(*v), "true");
}

}  // namespace tide
