// JSON text in the exact layout Java Paimon writes (Jackson's default pretty printer): two-space
// indentation, `"key" : value`, arrays inline as `[ a, b ]` and `[ {` ... `}, {` ... `} ]`, empty
// containers as `{ }` and `[ ]`. Paimon's metadata files (snapshots, schemas, tags) use it. Thread-safety:
// pure function.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tide {

std::string JacksonPrettyPrint(const nlohmann::ordered_json& json);

}  // namespace tide
