#include "tide/cli/pipeline_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <set>

#include "tide/base/strings.h"
#include "tide/io/file_system.h"

namespace tide::cli {
namespace {

// Where a node sits, for messages: "FILE:LINE" (yaml-cpp counts lines from 0).
std::string Where(std::string_view file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return std::string(file);
  return fmt::format("{}:{}", file, mark.line + 1);
}

// Reads one section of the file; every method fails naming the file, the line and the key.
class SectionReader {
 public:
  SectionReader(std::string_view file, const EnvLookup& env) : file_(file), env_(env) {}

  // `${NAME}` replaced by the environment's NAME; a `$` not followed by `{` stays as it is.
  Result<std::string> Expand(const YAML::Node& node, const std::string& key) const {
    const std::string raw = node.Scalar();
    std::string out;
    size_t i = 0;
    while (i < raw.size()) {
      if (raw[i] == '$' && i + 1 < raw.size() && raw[i + 1] == '{') {
        size_t close = raw.find('}', i + 2);
        if (close == std::string::npos) {
          return Status::InvalidArgument("{}: {}: '${{' without a closing '}}' (write ${{NAME}} to read NAME from the "
                                         "environment)",
                                         Where(file_, node), key);
        }
        const std::string name = raw.substr(i + 2, close - i - 2);
        if (name.empty()) return Status::InvalidArgument("{}: {}: '${{}}' names no variable", Where(file_, node), key);
        std::optional<std::string> value = env_(name);
        if (!value) {
          return Status::InvalidArgument("{}: {}: environment variable {} is not set (export it, or write the value "
                                         "in the file)",
                                         Where(file_, node), key, name);
        }
        out += *value;
        i = close + 1;
      } else {
        out += raw[i++];
      }
    }
    return out;
  }

  Result<std::string> String(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) return WrongType(node, key, "a string");
    return Expand(node, key);
  }
  // A string, or a list of strings joined with commas (`tables: [public.a, public.b]`).
  Result<std::string> StringOrList(const YAML::Node& node, const std::string& key) const {
    if (node.IsScalar()) return Expand(node, key);
    TIDE_ASSIGN_OR_RETURN(std::vector<std::string> items, List(node, key));
    return Join(items, ",");
  }
  // A list of strings; a single string is a list of one.
  Result<std::vector<std::string>> List(const YAML::Node& node, const std::string& key) const {
    std::vector<std::string> out;
    if (node.IsScalar()) {
      TIDE_ASSIGN_OR_RETURN(std::string value, Expand(node, key));
      out.push_back(std::move(value));
      return out;
    }
    if (!node.IsSequence()) return WrongType(node, key, "a string or a list of strings");
    for (const YAML::Node& item : node) {
      if (!item.IsScalar()) return WrongType(item, key + "[]", "a string");
      TIDE_ASSIGN_OR_RETURN(std::string value, Expand(item, key));
      out.push_back(std::move(value));
    }
    return out;
  }
  Result<int> Int(const YAML::Node& node, const std::string& key, int min, int max) const {
    if (!node.IsScalar()) return WrongType(node, key, "an integer");
    TIDE_ASSIGN_OR_RETURN(std::string text, Expand(node, key));
    auto n = ParseInt64(Trim(text), key);
    if (!n.ok()) return WrongType(node, key, "an integer");
    if (*n < min || *n > max) {
      return Status::InvalidArgument("{}: {} must be between {} and {}", Where(file_, node), key, min, max);
    }
    return static_cast<int>(*n);
  }
  Result<std::string> Duration(const YAML::Node& node, const std::string& key) const {
    TIDE_ASSIGN_OR_RETURN(std::string text, String(node, key));
    auto ms = ParseDurationMillis(text, key);
    if (!ms.ok()) return Status::InvalidArgument("{}: {}", Where(file_, node), ms.status().message());
    return text;
  }
  // A map of option names to values, as KEY=VALUE.
  Result<std::vector<std::string>> Options(const YAML::Node& node, const std::string& key) const {
    if (!node.IsMap()) return WrongType(node, key, "a map of option names to values (bucket: 4)");
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) return WrongType(entry.first, key, "option names as keys");
      const std::string name = entry.first.Scalar();
      if (!seen.insert(name).second) {
        return Status::InvalidArgument("{}: {}.{} appears twice", Where(file_, entry.first), key, name);
      }
      // Table options are stored in the lake's schema files, readable by every reader of the table:
      // nothing read from the environment (a secret, as often as not) may go there.
      if (entry.second.IsScalar() && entry.second.Scalar().find("${") != std::string::npos) {
        return Status::InvalidArgument(
            "{}: {}.{}: ${{...}} is not read from the environment in table options, which the lake's schema files "
            "keep for every reader of the table; write the value itself",
            Where(file_, entry.second), key, name);
      }
      TIDE_ASSIGN_OR_RETURN(std::string value, String(entry.second, key + "." + name));
      out.push_back(name + "=" + value);
    }
    return out;
  }

  // The keys of the map `node` (section `section`), each checked to be one of `known` and seen once.
  Status CheckKeys(const YAML::Node& node, const std::string& section, const std::vector<std::string>& known) const {
    if (!node.IsMap()) return WrongType(node, section, "a map of keys to values");
    std::set<std::string> seen;
    for (const auto& entry : node) {
      const std::string name = entry.first.IsScalar() ? entry.first.Scalar() : "?";
      const std::string key = section.empty() ? name : section + "." + name;
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        return Status::InvalidArgument("{}: unknown key '{}' (the keys of {} are: {})", Where(file_, entry.first), key,
                                       section.empty() ? "the file" : section, Join(known, ", "));
      }
      if (!seen.insert(name).second) {
        return Status::InvalidArgument("{}: key '{}' appears twice", Where(file_, entry.first), key);
      }
      if (entry.second.IsNull()) {
        return Status::InvalidArgument("{}: key '{}' has no value (give one, or remove the key)",
                                       Where(file_, entry.first), key);
      }
    }
    return Status::OK();
  }

  Status WrongType(const YAML::Node& node, const std::string& key, const char* expected) const {
    const char* found = node.IsMap() ? "a map" : node.IsSequence() ? "a list" : node.IsNull() ? "nothing" : "a value";
    return Status::InvalidArgument("{}: {} must be {}, not {}", Where(file_, node), key, expected, found);
  }

 private:
  std::string_view file_;
  const EnvLookup& env_;
};

// Assigns the parsed value of `node` to `*out`, or returns the error.
#define TIDE_PIPELINE_SET(out, expr) \
  do {                               \
    auto _v = (expr);                \
    if (!_v.ok()) return _v.status(); \
    (out) = std::move(_v).value();   \
  } while (0)

Result<PipelineConfig> Parse(const YAML::Node& root, std::string_view file, const EnvLookup& env) {
  SectionReader r(file, env);
  PipelineConfig c;
  if (!root.IsDefined() || root.IsNull()) return c;
  TIDE_RETURN_IF_ERROR(r.CheckKeys(root, "", {"source", "sink", "pipeline", "metrics"}));
  if (const YAML::Node source = root["source"]) {
    TIDE_RETURN_IF_ERROR(r.CheckKeys(source, "source", {"type", "conninfo", "tables", "excluding-tables", "slot",
                                                        "publication"}));
    for (const auto& e : source) {
      const std::string k = e.first.Scalar(), key = "source." + k;
      const YAML::Node& v = e.second;
      if (k == "type") {
        TIDE_ASSIGN_OR_RETURN(std::string type, r.String(v, key));
        if (type != "postgres") {
          return Status::InvalidArgument("{}: source.type '{}' is not supported (use postgres)", Where(file, v), type);
        }
      } else if (k == "conninfo") {
        TIDE_PIPELINE_SET(c.postgres, r.String(v, key));
      } else if (k == "tables") {
        TIDE_PIPELINE_SET(c.tables, r.StringOrList(v, key));
      } else if (k == "excluding-tables") {
        TIDE_PIPELINE_SET(c.excluding_tables, r.StringOrList(v, key));
      } else if (k == "slot") {
        TIDE_PIPELINE_SET(c.slot, r.String(v, key));
      } else if (k == "publication") {
        TIDE_PIPELINE_SET(c.publication, r.String(v, key));
      }
    }
  }
  if (const YAML::Node sink = root["sink"]) {
    TIDE_RETURN_IF_ERROR(r.CheckKeys(sink, "sink", {"type", "warehouse", "database", "into", "table-prefix",
                                                    "table-suffix", "primary-keys", "partition-keys",
                                                    "computed-columns", "metadata-columns", "table-conf"}));
    for (const auto& e : sink) {
      const std::string k = e.first.Scalar(), key = "sink." + k;
      const YAML::Node& v = e.second;
      if (k == "type") {
        TIDE_ASSIGN_OR_RETURN(std::string type, r.String(v, key));
        if (type != "paimon") {
          return Status::InvalidArgument("{}: sink.type '{}' is not supported (use paimon)", Where(file, v), type);
        }
      } else if (k == "warehouse") {
        TIDE_PIPELINE_SET(c.warehouse, r.String(v, key));
      } else if (k == "database") {
        TIDE_PIPELINE_SET(c.database, r.String(v, key));
      } else if (k == "into") {
        TIDE_PIPELINE_SET(c.into, r.String(v, key));
      } else if (k == "table-prefix") {
        TIDE_PIPELINE_SET(c.table_prefix, r.String(v, key));
      } else if (k == "table-suffix") {
        TIDE_PIPELINE_SET(c.table_suffix, r.String(v, key));
      } else if (k == "primary-keys") {
        TIDE_PIPELINE_SET(c.primary_keys, r.List(v, key));
      } else if (k == "partition-keys") {
        TIDE_PIPELINE_SET(c.partition_keys, r.List(v, key));
      } else if (k == "computed-columns") {
        TIDE_PIPELINE_SET(c.computed_columns, r.List(v, key));
      } else if (k == "metadata-columns") {
        TIDE_PIPELINE_SET(c.metadata_columns, r.List(v, key));
      } else if (k == "table-conf") {
        TIDE_PIPELINE_SET(c.table_conf, r.Options(v, key));
      }
    }
  }
  if (const YAML::Node pipeline = root["pipeline"]) {
    TIDE_RETURN_IF_ERROR(r.CheckKeys(pipeline, "pipeline", {"commit-interval", "copy-workers", "log-format"}));
    for (const auto& e : pipeline) {
      const std::string k = e.first.Scalar(), key = "pipeline." + k;
      const YAML::Node& v = e.second;
      if (k == "commit-interval") {
        TIDE_PIPELINE_SET(c.commit_interval, r.Duration(v, key));
      } else if (k == "copy-workers") {
        TIDE_PIPELINE_SET(c.copy_workers, r.Int(v, key, 1, 1024));
      } else if (k == "log-format") {
        TIDE_ASSIGN_OR_RETURN(std::string format, r.String(v, key));
        if (format != "text" && format != "json") {
          return Status::InvalidArgument("{}: pipeline.log-format '{}' is not text or json", Where(file, v), format);
        }
        c.log_format = format;
      }
    }
  }
  if (const YAML::Node metrics = root["metrics"]) {
    TIDE_RETURN_IF_ERROR(r.CheckKeys(metrics, "metrics", {"port", "bind"}));
    for (const auto& e : metrics) {
      const std::string k = e.first.Scalar(), key = "metrics." + k;
      if (k == "port") {
        TIDE_PIPELINE_SET(c.metrics_port, r.Int(e.second, key, 0, 65535));
      } else if (k == "bind") {
        TIDE_PIPELINE_SET(c.metrics_bind, r.String(e.second, key));
      }
    }
  }
  return c;
}

#undef TIDE_PIPELINE_SET

}  // namespace

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

Result<PipelineConfig> ParsePipelineConfig(std::string_view text, std::string_view file_name, const EnvLookup& env) {
  // yaml-cpp reports errors by exception; none leaves this function.
  try {
    YAML::Node root = YAML::Load(std::string(text));
    return Parse(root, file_name, env);
  } catch (const YAML::Exception& e) {
    // e.msg is the parser's reason without the value; the mark gives the place.
    return Status::InvalidArgument("{}:{}:{}: not valid YAML: {}", file_name, e.mark.line + 1, e.mark.column + 1,
                                   e.msg);
  } catch (const std::exception& e) {
    return Status::InvalidArgument("{}: cannot be read as a pipeline file: {}", file_name, e.what());
  }
}

Result<PipelineConfig> LoadPipelineConfig(const std::string& path) {
  auto text = FileSystem::Local()->ReadFile(path);
  if (!text.ok()) {
    return Status::InvalidArgument("cannot read the pipeline file {}: {}", path, text.status().message());
  }
  return ParsePipelineConfig(*text, path, ProcessEnvironment());
}

}  // namespace tide::cli
