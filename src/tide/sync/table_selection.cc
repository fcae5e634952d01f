#include "tide/sync/table_selection.h"

#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "tide/base/strings.h"

namespace tide {
namespace {

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// True when `text` is written as a table name: identifier characters (plus `$` when `allow_dollar`,
// which in --tables is a regular-expression anchor), at most one dot, and double-quoted parts.
bool LooksLikeTableName(std::string_view text, bool allow_dollar) {
  bool in_quotes = false;
  int dots = 0;
  for (char c : text) {
    if (c == '"') {
      in_quotes = !in_quotes;
      continue;
    }
    if (in_quotes) continue;
    if (c == '.') {
      ++dots;
    } else if (!IsIdentifierChar(c) && !(allow_dollar && c == '$')) {
      return false;
    }
  }
  return !text.empty() && dots <= 1 && !in_quotes;
}

// True when the regular expression has a dot that separates schema and table: `\.`, or `.` not followed
// by a quantifier (outside character classes).
bool HasSchemaSeparator(std::string_view p) {
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      if (!in_class && i + 1 < p.size() && p[i + 1] == '.') return true;
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      continue;
    }
    if (c == '[') {
      in_class = true;
    } else if (c == '.') {
      char next = i + 1 < p.size() ? p[i + 1] : '\0';
      if (next != '*' && next != '+' && next != '?' && next != '{') return true;
    }
  }
  return false;
}

// Java regular-expression syntax that std::regex's ECMAScript grammar accepts but reads differently:
// possessive quantifiers (`a*+`: one more repetition there) and the escapes \Q \E \A \z \Z \G \h \H
// \R \X \p \P (plain letters there). Returns what was found, or "" if none.
std::string JavaOnlySyntax(std::string_view p) {
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      if (i + 1 < p.size() && std::string_view("QEAzZGhHRXpP").find(p[i + 1]) != std::string_view::npos) {
        return fmt::format("the escape \\{}", p[i + 1]);
      }
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      continue;
    }
    if (c == '[') {
      in_class = true;
    } else if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < p.size() && p[i + 1] == '+') {
      return fmt::format("the possessive quantifier '{}+'", c);
    }
  }
  return "";
}

bool RegexMatches(const std::regex& re, const std::string& text) {
  try {
    return std::regex_match(text, re);
  } catch (const std::regex_error&) {
    return false;  // error_complexity / error_stack: table names are at most 63 bytes, so not expected
  }
}

// A lake table (or database) name Paimon's filesystem catalog can hold.
Status CheckLakeName(std::string_view name, std::string_view what) {
  if (name.empty()) return Status::InvalidArgument("{} is empty", what);
  for (char c : name) {
    if (c == '.' || c == '/' || c == '\\' || c == '$' || static_cast<unsigned char>(c) < 0x20) {
      return Status::InvalidArgument(
          "{} '{}' cannot be a Paimon name: it holds '{}' ('.' separates database and table, '$' names system "
          "tables); rename the table, exclude it with --excluding-tables, or map it with --into",
          what, name, c == '\t' ? std::string("\\t") : std::string(1, c));
    }
  }
  return Status::OK();
}

// Splits at commas outside double quotes, (), [] and {}, and not after a backslash; items trimmed,
// empty items dropped.
std::vector<std::string> SplitList(std::string_view list) {
  std::vector<std::string> items;
  std::string current;
  bool in_quotes = false, in_class = false;
  int depth = 0;
  auto flush = [&]() {
    std::string_view t = Trim(current);
    if (!t.empty()) items.emplace_back(t);
    current.clear();
  };
  for (size_t i = 0; i < list.size(); ++i) {
    char c = list[i];
    if (in_quotes) {
      if (c == '"') in_quotes = false;
    } else if (c == '\\') {
      current += c;
      if (i + 1 < list.size()) current += list[++i];
      continue;
    } else if (in_class) {
      if (c == ']') in_class = false;
    } else if (c == '"') {
      in_quotes = true;
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      flush();
      continue;
    }
    current += c;
  }
  flush();
  return items;
}

std::string ScopeText(const ScopedValue& v) {
  PgTableName name;
  name.schema = v.schema.value_or("public");
  name.name = v.table.value_or("");
  std::string text = name.ToString();
  if (!v.schema) text = text.substr(text.find('.') + 1);
  return text;
}

}  // namespace

Result<TablePattern> TablePattern::Parse(std::string_view item_text) {
  std::string_view item = Trim(item_text);
  TablePattern p;
  p.text_ = std::string(item);
  if (item.empty()) return Status::InvalidArgument("an empty table name or pattern");
  if (LooksLikeTableName(item, /*allow_dollar=*/false)) {
    auto name = ParsePgTableName(item);
    if (!name.ok()) return Status::InvalidArgument("'{}' is not a table name: {}", item, name.status().message());
    p.name_ = *name;
    return p;
  }
  if (item.find('"') != std::string_view::npos) {
    return Status::InvalidArgument(
        "'{}' mixes double quotes with a regular expression: quotes belong to table names; a pattern matches "
        "the names as they are (case-sensitive), so write it without quotes",
        item);
  }
  std::string java_only = JavaOnlySyntax(item);
  if (!java_only.empty()) {
    return Status::InvalidArgument(
        "'{}' uses {}, which Java's regular expressions have and Tide's (ECMAScript) read differently; write "
        "the pattern without it",
        item, java_only);
  }
  try {
    p.regex_ = std::make_shared<const std::regex>(std::string(item), std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return Status::InvalidArgument(
        "'{}' is not a table name, nor a regular expression Tide can compile ({}); Tide's patterns are "
        "ECMAScript, without Java's possessive quantifiers, atomic groups, lookbehind, inline flags, \\p{{...}} "
        "and \\Q...\\E",
        item, e.what());
  }
  p.whole_name_ = HasSchemaSeparator(item);
  return p;
}

bool TablePattern::Matches(const PgTableName& table) const {
  if (name_) return *name_ == table;
  if (whole_name_) return RegexMatches(*regex_, table.schema + "." + table.name);
  return table.schema == "public" && RegexMatches(*regex_, table.name);
}

Result<std::vector<TablePattern>> ParseTablePatterns(std::string_view list, std::string_view flag) {
  std::vector<TablePattern> out;
  for (const std::string& item : SplitList(list)) {
    auto p = TablePattern::Parse(item);
    if (!p.ok()) return p.status().WithContext(std::string(flag));
    out.push_back(std::move(*p));
  }
  return out;
}

Result<TableSelection> TableSelection::Parse(std::string_view tables, std::string_view excluding,
                                             std::string_view prefix, std::string_view suffix,
                                             std::string_view into) {
  TableSelection s;
  TIDE_ASSIGN_OR_RETURN(s.including_, ParseTablePatterns(tables, "--tables"));
  if (s.including_.empty()) {
    return Status::InvalidArgument(
        "--tables lists no table: name the tables to sync, e.g. --tables 'public.orders,public.users' or "
        "--tables 'public\\..*' for every table of public");
  }
  TIDE_ASSIGN_OR_RETURN(s.excluding_, ParseTablePatterns(excluding, "--excluding-tables"));
  s.prefix_ = std::string(prefix);
  s.suffix_ = std::string(suffix);
  std::string_view into_text = Trim(into);
  if (!into_text.empty()) {
    if (!prefix.empty() || !suffix.empty()) {
      return Status::InvalidArgument(
          "--into '{}' names the one lake table of every selected table, so --table-prefix and --table-suffix "
          "have nothing to apply to; drop them",
          into_text);
    }
    std::string lower = ToLower(into_text);
    size_t dot = lower.find('.');
    if (dot != std::string::npos) {
      s.into_database_ = lower.substr(0, dot);
      s.into_table_ = lower.substr(dot + 1);
      TIDE_RETURN_IF_ERROR(CheckLakeName(*s.into_database_, "the database of --into")
                               .WithContext(fmt::format("--into '{}' (write DB.TABLE or TABLE)", into_text)));
    } else {
      s.into_table_ = lower;
    }
    TIDE_RETURN_IF_ERROR(CheckLakeName(*s.into_table_, "the table of --into")
                             .WithContext(fmt::format("--into '{}' (write DB.TABLE or TABLE)", into_text)));
  }
  return s;
}

bool TableSelection::Selects(const PgTableName& table) const {
  bool included = false;
  for (const TablePattern& p : including_) {
    if (p.Matches(table)) {
      included = true;
      break;
    }
  }
  if (!included) return false;
  for (const TablePattern& p : excluding_) {
    if (p.Matches(table)) return false;
  }
  return true;
}

std::string TableSelection::TargetName(const PgTableName& table) const {
  if (into_table_) return *into_table_;
  return ToLower(prefix_ + table.name + suffix_);
}

Result<std::vector<PgTableName>> TableSelection::Select(const std::vector<PgTableName>& candidates) const {
  std::set<PgTableName> all(candidates.begin(), candidates.end());
  std::vector<std::string> missing;
  for (const TablePattern& p : including_) {
    if (p.is_name() && !all.count(p.name())) missing.push_back(p.name().ToString());
  }
  if (!missing.empty()) {
    return Status::NotFound(
        "--tables names {} {}, which the server does not have (or the sync's user cannot see); check the "
        "spelling, and double-quote names with capitals as PostgreSQL does: '\"MyTable\"'",
        missing.size() == 1 ? "the table" : "the tables", Join(missing, ", "));
  }
  std::vector<PgTableName> selected;
  for (const PgTableName& t : all) {
    if (Selects(t)) selected.push_back(t);
  }
  auto texts = [](const std::vector<TablePattern>& ps) {
    std::vector<std::string> out;
    for (const TablePattern& p : ps) out.push_back(p.text());
    return Join(out, ",");
  };
  if (selected.empty()) {
    return Status::InvalidArgument("no table of the server's {} matches --tables '{}'{}: nothing to sync",
                                   all.size(), texts(including_),
                                   excluding_.empty() ? "" : fmt::format(" but not --excluding-tables '{}'", texts(excluding_)));
  }
  if (into_table_) return selected;
  std::map<std::string, PgTableName> by_target;
  for (const PgTableName& t : selected) {
    std::string target = TargetName(t);
    TIDE_RETURN_IF_ERROR(CheckLakeName(target, fmt::format("the lake name of {}", t.ToString())));
    auto [it, inserted] = by_target.emplace(target, t);
    if (!inserted) {
      return Status::InvalidArgument(
          "{} and {} would both be the lake table '{}'; exclude one with --excluding-tables, or sync them into "
          "one lake table with --into",
          it->second.ToString(), t.ToString(), target);
    }
  }
  return selected;
}

Result<ScopedValue> ScopedValue::Parse(std::string_view text_in) {
  std::string_view text = Trim(text_in);
  size_t colon = std::string_view::npos;
  bool in_quotes = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') in_quotes = !in_quotes;
    if (text[i] == ':' && !in_quotes) {
      colon = i;
      break;
    }
  }
  ScopedValue v;
  std::string_view value = text;
  if (colon != std::string_view::npos) {
    std::string_view scope = Trim(text.substr(0, colon));
    if (LooksLikeTableName(scope, /*allow_dollar=*/true)) {
      auto name = ParsePgTableName(scope);
      if (name.ok()) {
        bool has_schema = false;
        bool q = false;
        for (char c : scope) {
          if (c == '"') q = !q;
          if (c == '.' && !q) has_schema = true;
        }
        if (has_schema) v.schema = name->schema;
        v.table = name->name;
        value = Trim(text.substr(colon + 1));
      }
    }
  }
  if (value.empty()) {
    return Status::InvalidArgument("'{}' has no value{}; write VALUE or TABLE:VALUE", text,
                                   v.table ? " after the table" : "");
  }
  v.value = std::string(value);
  return v;
}

bool ScopedValue::AppliesTo(const PgTableName& source) const {
  if (!table) return true;
  return *table == source.name && (!schema || *schema == source.schema);
}

std::vector<std::string> ValuesFor(const std::vector<ScopedValue>& values, const PgTableName& source) {
  std::vector<std::string> out;
  for (const ScopedValue& v : values) {
    if (v.AppliesTo(source)) out.push_back(v.value);
  }
  return out;
}

Result<std::optional<std::string>> ValueFor(const std::vector<ScopedValue>& values, const PgTableName& source,
                                            std::string_view flag) {
  const ScopedValue* scoped = nullptr;
  const ScopedValue* unscoped = nullptr;
  for (const ScopedValue& v : values) {
    if (!v.AppliesTo(source)) continue;
    const ScopedValue*& slot = v.scoped() ? scoped : unscoped;
    if (slot != nullptr) {
      return Status::InvalidArgument("{} is given twice for {}: '{}' and '{}'; give it once{}", flag, source.ToString(),
                                     slot->value, v.value, v.scoped() ? " per table" : " without a table");
    }
    slot = &v;
  }
  if (scoped) return std::optional<std::string>(scoped->value);
  if (unscoped) return std::optional<std::string>(unscoped->value);
  return std::optional<std::string>();
}

Status CheckScopes(const std::vector<ScopedValue>& values, const std::vector<PgTableName>& selected,
                   std::string_view flag) {
  for (const ScopedValue& v : values) {
    if (!v.scoped()) continue;
    std::vector<std::string> matches;
    std::set<std::string> schemas;
    for (const PgTableName& t : selected) {
      if (v.AppliesTo(t)) {
        matches.push_back(t.ToString());
        schemas.insert(t.schema);
      }
    }
    if (matches.empty()) {
      std::vector<std::string> names;
      for (const PgTableName& t : selected) names.push_back(t.ToString());
      return Status::InvalidArgument("{} '{}:{}': '{}' is not a selected table (the selected tables: {})", flag,
                                     ScopeText(v), v.value, ScopeText(v), Join(names, ", "));
    }
    if (!v.schema && schemas.size() > 1) {
      return Status::InvalidArgument("{} '{}:{}': '{}' matches {}; write schema.table to say which", flag,
                                     ScopeText(v), v.value, ScopeText(v), Join(matches, " and "));
    }
  }
  return Status::OK();
}

}  // namespace tide
