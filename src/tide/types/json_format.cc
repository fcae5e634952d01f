#include "tide/types/json_format.h"

namespace tide {
namespace {

void Print(const nlohmann::ordered_json& j, int level, std::string* out) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::object: {
      if (j.empty()) {
        out->append("{ }");
        return;
      }
      out->append("{\n");
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out->append(",\n");
        first = false;
        out->append(static_cast<size_t>(2 * (level + 1)), ' ');
        out->append(nlohmann::ordered_json(it.key()).dump());
        out->append(" : ");
        Print(it.value(), level + 1, out);
      }
      out->push_back('\n');
      out->append(static_cast<size_t>(2 * level), ' ');
      out->push_back('}');
      return;
    }
    case nlohmann::ordered_json::value_t::array: {
      if (j.empty()) {
        out->append("[ ]");
        return;
      }
      out->append("[ ");
      bool first = true;
      for (const auto& e : j) {
        if (!first) out->append(", ");
        first = false;
        Print(e, level, out);
      }
      out->append(" ]");
      return;
    }
    default:
      out->append(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  }
}

}  // namespace

std::string JacksonPrettyPrint(const nlohmann::ordered_json& json) {
  std::string out;
  Print(json, 0, &out);
  return out;
}

}  // namespace tide
