#include "tide/codec/avro_schema.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace tide {

namespace {

using Json = nlohmann::ordered_json;

// Deeper nesting than this is not a schema anyone writes; refusing it keeps recursion bounded.
constexpr int kMaxSchemaDepth = 200;

bool IsPrimitiveName(std::string_view name) {
  return name == "null" || name == "boolean" || name == "int" || name == "long" || name == "float" ||
         name == "double" || name == "bytes" || name == "string";
}

AvroType PrimitiveType(std::string_view name) {
  if (name == "null") return AvroType::kNull;
  if (name == "boolean") return AvroType::kBoolean;
  if (name == "int") return AvroType::kInt;
  if (name == "long") return AvroType::kLong;
  if (name == "float") return AvroType::kFloat;
  if (name == "double") return AvroType::kDouble;
  if (name == "bytes") return AvroType::kBytes;
  return AvroType::kString;
}

// Avro names: [A-Za-z_][A-Za-z0-9_]*. Bytes >= 0x80 are let through, as Java accepts Unicode letters.
bool IsValidName(std::string_view name) {
  if (name.empty()) return false;
  auto letter = [](unsigned char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80; };
  if (!letter(static_cast<unsigned char>(name[0]))) return false;
  for (unsigned char c : name.substr(1)) {
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsReservedSchemaKey(std::string_view key, bool is_enum) {
  static const std::unordered_set<std::string_view> kReserved = {"doc",     "fields", "items", "name",
                                                                 "namespace", "size", "symbols", "values",
                                                                 "type",    "aliases"};
  return kReserved.count(key) > 0 || (is_enum && key == "default");
}

bool IsReservedFieldKey(std::string_view key) {
  return key == "default" || key == "doc" || key == "name" || key == "order" || key == "type" ||
         key == "aliases";
}

std::string Quote(std::string_view s) { return Json(std::string(s)).dump(); }

std::string Shorten(const Json& j) {
  std::string s = j.dump();
  if (s.size() > 120) s = s.substr(0, 117) + "...";
  return s;
}

}  // namespace

struct AvroSchema::Tree {
  std::string json;
  std::vector<std::unique_ptr<AvroNode>> nodes;
  const AvroNode* root = nullptr;
};

std::string_view AvroTypeName(AvroType type) {
  switch (type) {
    case AvroType::kNull: return "null";
    case AvroType::kBoolean: return "boolean";
    case AvroType::kInt: return "int";
    case AvroType::kLong: return "long";
    case AvroType::kFloat: return "float";
    case AvroType::kDouble: return "double";
    case AvroType::kBytes: return "bytes";
    case AvroType::kString: return "string";
    case AvroType::kRecord: return "record";
    case AvroType::kEnum: return "enum";
    case AvroType::kArray: return "array";
    case AvroType::kMap: return "map";
    case AvroType::kUnion: return "union";
    case AvroType::kFixed: return "fixed";
  }
  return "unknown";
}

int AvroNode::FieldIndex(std::string_view field_name) const {
  auto it = std::lower_bound(field_index_.begin(), field_index_.end(), field_name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  if (it == field_index_.end() || it->first != field_name) return -1;
  return it->second;
}

int AvroNode::NullBranch() const {
  for (size_t i = 0; i < branches_.size(); ++i) {
    if (branches_[i]->type() == AvroType::kNull) return static_cast<int>(i);
  }
  return -1;
}

bool AvroNode::IsNullable() const { return branches_.size() == 2 && NullBranch() >= 0; }

int AvroNode::NonNullBranch() const {
  if (!IsNullable()) return -1;
  return NullBranch() == 0 ? 1 : 0;
}

// Builds the node tree from parsed JSON, following the resolution rules of the Avro specification
// (and Java's Schema.parse): a named type is registered before its fields are parsed, so it can refer
// to itself; an unqualified name is looked up in the enclosing namespace first, then in the null one.
class AvroSchemaBuilder {
 public:
  explicit AvroSchemaBuilder(AvroSchema::Tree* tree) : tree_(tree) {}

  Result<const AvroNode*> Build(const Json& j, const std::string& space, int depth) {
    if (depth > kMaxSchemaDepth) {
      return Status::InvalidArgument("Avro schema nests deeper than {} levels", kMaxSchemaDepth);
    }
    if (j.is_string()) return Resolve(j.get<std::string>(), space);
    if (j.is_array()) return BuildUnion(j, space, depth);
    if (!j.is_object()) return Status::InvalidArgument("Avro schema is not a name, object or union: {}", Shorten(j));
    auto type_it = j.find("type");
    if (type_it == j.end()) return Status::InvalidArgument("Avro schema object has no \"type\": {}", Shorten(j));
    if (!type_it->is_string()) {
      // {"type": {...}} or {"type": [...]}: the inner schema is the schema (Java 1.12 accepts this).
      return Build(*type_it, space, depth + 1);
    }
    const std::string type = type_it->get<std::string>();
    AvroNode* node = nullptr;
    std::string inner_space = space;
    if (IsPrimitiveName(type)) {
      node = NewNode(PrimitiveType(type));
    } else if (type == "record" || type == "error" || type == "enum" || type == "fixed") {
      AvroType t = type == "enum" ? AvroType::kEnum : type == "fixed" ? AvroType::kFixed : AvroType::kRecord;
      node = NewNode(t);
      node->is_error_ = type == "error";
      TIDE_RETURN_IF_ERROR(SetName(node, j, space));
      inner_space = node->namespace_;
      if (IsPrimitiveName(node->full_name_)) {
        return Status::InvalidArgument("Avro schema names a type after a primitive: \"{}\"", node->full_name_);
      }
      if (!names_.emplace(node->full_name_, node).second) {
        return Status::InvalidArgument("Avro schema defines the name \"{}\" twice", node->full_name_);
      }
      if (auto doc = j.find("doc"); doc != j.end() && doc->is_string()) node->doc_ = doc->get<std::string>();
      TIDE_RETURN_IF_ERROR(ReadAliases(j, &node->aliases_, node->full_name_));
      if (t == AvroType::kRecord) {
        TIDE_RETURN_IF_ERROR(BuildFields(node, j, inner_space, depth));
      } else if (t == AvroType::kEnum) {
        TIDE_RETURN_IF_ERROR(BuildEnum(node, j));
      } else {
        auto size = j.find("size");
        if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
            size->get<int64_t>() > INT32_MAX) {
          return Status::InvalidArgument("Avro fixed \"{}\" has no valid \"size\"", node->full_name_);
        }
        node->fixed_size_ = size->get<int64_t>();
      }
    } else if (type == "array" || type == "map") {
      const char* key = type == "array" ? "items" : "values";
      auto inner = j.find(key);
      if (inner == j.end()) return Status::InvalidArgument("Avro {} has no \"{}\": {}", type, key, Shorten(j));
      node = NewNode(type == "array" ? AvroType::kArray : AvroType::kMap);
      TIDE_ASSIGN_OR_RETURN(node->items_, Build(*inner, space, depth + 1));
    } else {
      // A name used as {"type": "some.Name"} refers to a defined type; Java allows no properties then.
      return Resolve(type, space);
    }
    bool is_enum = node->type_ == AvroType::kEnum;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!IsReservedSchemaKey(it.key(), is_enum)) node->props_.emplace_back(it.key(), it.value().dump());
    }
    ReadLogicalType(node, j);
    return node;
  }

  // Computes min_encoded_size for every node; recursive types are bounded by their first visit.
  void ComputeMinSizes() {
    for (auto& node : tree_->nodes) MinSize(node.get(), 0);
  }

 private:
  AvroNode* NewNode(AvroType type) {
    tree_->nodes.push_back(std::unique_ptr<AvroNode>(new AvroNode(type)));
    return tree_->nodes.back().get();
  }

  Status SetName(AvroNode* node, const Json& j, const std::string& space) {
    auto name_it = j.find("name");
    if (name_it == j.end() || !name_it->is_string()) {
      return Status::InvalidArgument("Avro {} has no \"name\": {}", AvroTypeName(node->type_), Shorten(j));
    }
    std::string name = name_it->get<std::string>();
    std::string ns = space;
    if (auto ns_it = j.find("namespace"); ns_it != j.end()) {
      if (!ns_it->is_string() && !ns_it->is_null()) {
        return Status::InvalidArgument("Avro \"namespace\" of \"{}\" is not a string", name);
      }
      ns = ns_it->is_string() ? ns_it->get<std::string>() : "";
    }
    if (auto dot = name.rfind('.'); dot != std::string::npos) {
      ns = name.substr(0, dot);
      name = name.substr(dot + 1);
    }
    if (!IsValidName(name)) return Status::InvalidArgument("Avro name \"{}\" is not a valid name", name);
    if (!ns.empty()) {
      for (const auto& part : Split(ns)) {
        if (!IsValidName(part)) return Status::InvalidArgument("Avro namespace \"{}\" is not valid", ns);
      }
    }
    node->name_ = name;
    node->namespace_ = ns;
    node->full_name_ = ns.empty() ? name : ns + "." + name;
    return Status::OK();
  }

  static std::vector<std::string> Split(const std::string& s) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t dot = s.find('.', start);
      parts.push_back(s.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return parts;
  }

  static Status ReadAliases(const Json& j, std::vector<std::string>* out, const std::string& owner) {
    auto it = j.find("aliases");
    if (it == j.end()) return Status::OK();
    if (!it->is_array()) return Status::InvalidArgument("Avro \"aliases\" of \"{}\" is not an array", owner);
    for (const auto& a : *it) {
      if (!a.is_string()) return Status::InvalidArgument("Avro alias of \"{}\" is not a string", owner);
      out->push_back(a.get<std::string>());
    }
    return Status::OK();
  }

  Result<const AvroNode*> Resolve(const std::string& name, const std::string& space) {
    if (IsPrimitiveName(name)) {
      // Each primitive use gets its own node; they are tiny and carry no properties.
      return static_cast<const AvroNode*>(NewNode(PrimitiveType(name)));
    }
    if (name.find('.') == std::string::npos && !space.empty()) {
      if (auto it = names_.find(space + "." + name); it != names_.end()) return it->second;
    }
    if (auto it = names_.find(name); it != names_.end()) return it->second;
    return Status::InvalidArgument("Avro schema refers to the undefined type \"{}\"", name);
  }

  Result<const AvroNode*> BuildUnion(const Json& j, const std::string& space, int depth) {
    AvroNode* node = NewNode(AvroType::kUnion);
    std::unordered_set<std::string> seen;
    for (const auto& branch_json : j) {
      TIDE_ASSIGN_OR_RETURN(const AvroNode* branch, Build(branch_json, space, depth + 1));
      if (branch->type() == AvroType::kUnion) {
        return Status::InvalidArgument("Avro union directly contains another union: {}", Shorten(j));
      }
      std::string key = branch->is_named() ? branch->full_name() : std::string(AvroTypeName(branch->type()));
      if (!seen.insert(key).second) {
        return Status::InvalidArgument("Avro union has two branches of type \"{}\": {}", key, Shorten(j));
      }
      node->branches_.push_back(branch);
    }
    if (node->branches_.empty()) return Status::InvalidArgument("Avro union has no branches");
    return static_cast<const AvroNode*>(node);
  }

  Status BuildFields(AvroNode* node, const Json& j, const std::string& space, int depth) {
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) {
      return Status::InvalidArgument("Avro record \"{}\" has no \"fields\" array", node->full_name_);
    }
    for (const auto& fj : *fields) {
      if (!fj.is_object()) return Status::InvalidArgument("Avro record \"{}\" has a field that is not an object", node->full_name_);
      AvroField field;
      auto name_it = fj.find("name");
      if (name_it == fj.end() || !name_it->is_string()) {
        return Status::InvalidArgument("Avro record \"{}\" has a field without a name", node->full_name_);
      }
      field.name = name_it->get<std::string>();
      if (!IsValidName(field.name)) {
        return Status::InvalidArgument("Avro record \"{}\": field name \"{}\" is not valid", node->full_name_, field.name);
      }
      auto type_it = fj.find("type");
      if (type_it == fj.end()) {
        return Status::InvalidArgument("Avro field \"{}.{}\" has no type", node->full_name_, field.name);
      }
      auto type = Build(*type_it, space, depth + 1);
      if (!type.ok()) return type.status().WithContext(fmt::format("field \"{}.{}\"", node->full_name_, field.name));
      field.type = *type;
      if (auto doc = fj.find("doc"); doc != fj.end() && doc->is_string()) field.doc = doc->get<std::string>();
      if (auto def = fj.find("default"); def != fj.end()) {
        field.has_default = true;
        field.default_json = def->dump();
      }
      if (auto order = fj.find("order"); order != fj.end()) {
        std::string o = order->is_string() ? order->get<std::string>() : "";
        if (o != "ascending" && o != "descending" && o != "ignore") {
          return Status::InvalidArgument("Avro field \"{}.{}\" has an invalid order {}", node->full_name_, field.name,
                                         order->dump());
        }
        if (o != "ascending") field.order = o;
      }
      TIDE_RETURN_IF_ERROR(ReadAliases(fj, &field.aliases, field.name));
      for (auto it = fj.begin(); it != fj.end(); ++it) {
        if (!IsReservedFieldKey(it.key())) field.props.emplace_back(it.key(), it.value().dump());
      }
      for (const auto& existing : node->fields_) {
        if (existing.name == field.name) {
          return Status::InvalidArgument("Avro record \"{}\" has two fields named \"{}\"", node->full_name_, field.name);
        }
      }
      node->fields_.push_back(std::move(field));
    }
    for (size_t i = 0; i < node->fields_.size(); ++i) {
      node->field_index_.emplace_back(node->fields_[i].name, static_cast<int>(i));
    }
    std::sort(node->field_index_.begin(), node->field_index_.end());
    return Status::OK();
  }

  Status BuildEnum(AvroNode* node, const Json& j) {
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) {
      return Status::InvalidArgument("Avro enum \"{}\" has no \"symbols\" array", node->full_name_);
    }
    std::unordered_set<std::string> seen;
    for (const auto& s : *symbols) {
      if (!s.is_string() || !IsValidName(s.get<std::string>())) {
        return Status::InvalidArgument("Avro enum \"{}\" has an invalid symbol {}", node->full_name_, s.dump());
      }
      if (!seen.insert(s.get<std::string>()).second) {
        return Status::InvalidArgument("Avro enum \"{}\" repeats the symbol {}", node->full_name_, s.dump());
      }
      node->symbols_.push_back(s.get<std::string>());
    }
    if (auto def = j.find("default"); def != j.end()) {
      if (!def->is_string() || !seen.count(def->get<std::string>())) {
        return Status::InvalidArgument("Avro enum \"{}\" has a default {} that is not one of its symbols",
                                       node->full_name_, def->dump());
      }
      node->enum_default_ = def->get<std::string>();
    }
    return Status::OK();
  }

  // Logical types are annotations only; an invalid one is ignored, as Java does.
  static void ReadLogicalType(AvroNode* node, const Json& j) {
    auto lt = j.find("logicalType");
    if (lt == j.end() || !lt->is_string()) return;
    node->logical_type_ = lt->get<std::string>();
    if (node->logical_type_ == "decimal") {
      auto p = j.find("precision");
      auto s = j.find("scale");
      if (p != j.end() && p->is_number_integer()) node->precision_ = p->get<int>();
      if (s != j.end() && s->is_number_integer()) node->scale_ = s->get<int>();
    }
  }

  int64_t MinSize(AvroNode* node, int depth) {
    if (depth > kMaxSchemaDepth) return 0;
    switch (node->type_) {
      case AvroType::kNull: return node->min_encoded_size_ = 0;
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kLong:
      case AvroType::kBytes:
      case AvroType::kString:
      case AvroType::kEnum:
      case AvroType::kArray:
      case AvroType::kMap:
      case AvroType::kUnion: return node->min_encoded_size_ = 1;
      case AvroType::kFloat: return node->min_encoded_size_ = 4;
      case AvroType::kDouble: return node->min_encoded_size_ = 8;
      case AvroType::kFixed: return node->min_encoded_size_ = node->fixed_size_;
      case AvroType::kRecord: {
        if (visiting_.count(node)) return 0;  // a recursive reference: count it as free
        visiting_.insert(node);
        int64_t sum = 0;
        for (const auto& f : node->fields_) sum += MinSize(const_cast<AvroNode*>(f.type), depth + 1);
        visiting_.erase(node);
        return node->min_encoded_size_ = std::min<int64_t>(sum, INT32_MAX);
      }
    }
    return 0;
  }

  AvroSchema::Tree* tree_;
  std::map<std::string, const AvroNode*> names_;
  std::unordered_set<const AvroNode*> visiting_;
};

Result<AvroSchema> AvroSchema::Parse(std::string_view json) {
  auto tree = std::make_shared<Tree>();
  tree->json = std::string(json);
  try {
    Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Status::InvalidArgument("Avro schema is not valid JSON: {}", json.substr(0, 120));
    AvroSchemaBuilder builder(tree.get());
    TIDE_ASSIGN_OR_RETURN(tree->root, builder.Build(j, "", 0));
    builder.ComputeMinSizes();
  } catch (const std::exception& e) {
    return Status::InvalidArgument("Avro schema could not be parsed: {}", e.what());
  }
  return AvroSchema(std::move(tree));
}

Result<AvroSchema> AvroSchema::ParseCached(std::string_view json) {
  // A handful of texts in practice (a manifest's, a manifest list's, an index manifest's per table
  // version); the cache starts over when a process reads many more.
  static constexpr size_t kMaxEntries = 64;
  static std::mutex mu;
  static std::unordered_map<std::string, AvroSchema>* cache = new std::unordered_map<std::string, AvroSchema>();
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(std::string(json));
    if (it != cache->end()) return it->second;
  }
  TIDE_ASSIGN_OR_RETURN(AvroSchema schema, Parse(json));
  std::lock_guard<std::mutex> lock(mu);
  if (cache->size() >= kMaxEntries) cache->clear();
  cache->emplace(std::string(json), schema);
  return schema;
}

const AvroNode& AvroSchema::root() const { return *tree_->root; }

const std::string& AvroSchema::json() const {
  static const std::string kEmpty;
  return tree_ ? tree_->json : kEmpty;
}

std::shared_ptr<const AvroNode> AvroSchema::Share(const AvroNode& node) const {
  return std::shared_ptr<const AvroNode>(tree_, &node);
}

namespace {

// Prints like Java's Schema.toJson: a named type is written in full the first time and by name after;
// "namespace" is written only where it differs from the enclosing one.
class JsonPrinter {
 public:
  void Print(const AvroNode& node, std::string* out) {
    switch (node.type()) {
      case AvroType::kNull:
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kLong:
      case AvroType::kFloat:
      case AvroType::kDouble:
      case AvroType::kBytes:
      case AvroType::kString:
        if (node.props().empty()) {
          out->append(Quote(AvroTypeName(node.type())));
        } else {
          out->append("{\"type\":").append(Quote(AvroTypeName(node.type())));
          PrintProps(node.props(), out);
          out->push_back('}');
        }
        return;
      case AvroType::kArray:
      case AvroType::kMap:
        out->append(node.type() == AvroType::kArray ? "{\"type\":\"array\",\"items\":" : "{\"type\":\"map\",\"values\":");
        Print(*node.items(), out);
        PrintProps(node.props(), out);
        out->push_back('}');
        return;
      case AvroType::kUnion: {
        out->push_back('[');
        for (size_t i = 0; i < node.branches().size(); ++i) {
          if (i > 0) out->push_back(',');
          Print(*node.branches()[i], out);
        }
        out->push_back(']');
        return;
      }
      case AvroType::kRecord:
      case AvroType::kEnum:
      case AvroType::kFixed:
        PrintNamed(node, out);
        return;
    }
  }

 private:
  void PrintNamed(const AvroNode& node, std::string* out) {
    if (!printed_.insert(&node).second) {
      bool same_space = node.name_space().empty() || node.name_space() == space_;
      out->append(Quote(same_space ? node.name() : node.full_name()));
      return;
    }
    std::string saved_space = space_;
    std::string_view type = node.type() == AvroType::kEnum    ? "enum"
                            : node.type() == AvroType::kFixed ? "fixed"
                            : node.is_error()                 ? "error"
                                                              : "record";
    out->append("{\"type\":").append(Quote(type));
    out->append(",\"name\":").append(Quote(node.name()));
    if (!node.name_space().empty()) {
      if (node.name_space() != space_) out->append(",\"namespace\":").append(Quote(node.name_space()));
    } else if (!space_.empty()) {
      out->append(",\"namespace\":\"\"");
    }
    if (node.type() == AvroType::kRecord) space_ = node.name_space();
    if (!node.doc().empty()) out->append(",\"doc\":").append(Quote(node.doc()));
    if (node.type() == AvroType::kRecord) {
      out->append(",\"fields\":[");
      for (size_t i = 0; i < node.fields().size(); ++i) {
        const AvroField& f = node.fields()[i];
        if (i > 0) out->push_back(',');
        out->append("{\"name\":").append(Quote(f.name)).append(",\"type\":");
        Print(*f.type, out);
        if (!f.doc.empty()) out->append(",\"doc\":").append(Quote(f.doc));
        if (f.has_default) out->append(",\"default\":").append(f.default_json);
        if (!f.order.empty()) out->append(",\"order\":").append(Quote(f.order));
        if (!f.aliases.empty()) PrintStrings("aliases", f.aliases, out);
        PrintProps(f.props, out);
        out->push_back('}');
      }
      out->push_back(']');
    } else if (node.type() == AvroType::kEnum) {
      PrintStrings("symbols", node.symbols(), out);
      if (!node.enum_default().empty()) out->append(",\"default\":").append(Quote(node.enum_default()));
    } else {
      out->append(",\"size\":").append(std::to_string(node.fixed_size()));
    }
    PrintProps(node.props(), out);
    if (!node.aliases().empty()) PrintStrings("aliases", node.aliases(), out);
    out->push_back('}');
    space_ = saved_space;
  }

  static void PrintProps(const std::vector<std::pair<std::string, std::string>>& props, std::string* out) {
    for (const auto& [key, value] : props) out->append(",").append(Quote(key)).append(":").append(value);
  }

  static void PrintStrings(std::string_view key, const std::vector<std::string>& values, std::string* out) {
    out->append(",").append(Quote(key)).append(":[");
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out->push_back(',');
      out->append(Quote(values[i]));
    }
    out->push_back(']');
  }

  std::unordered_set<const AvroNode*> printed_;
  std::string space_;
};

}  // namespace

std::string AvroNodeToJson(const AvroNode& node) {
  std::string out;
  JsonPrinter().Print(node, &out);
  return out;
}

std::string AvroSchema::ToJson() const { return tree_ ? AvroNodeToJson(*tree_->root) : std::string(); }

}  // namespace tide
