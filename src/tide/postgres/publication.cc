#include "tide/postgres/publication.h"

#include <algorithm>
#include <set>

#include "tide/base/strings.h"
#include "tide/postgres/sql_quote.h"

namespace tide {
namespace {

bool NeedsQuotes(std::string_view ident) {
  if (ident.empty()) return true;
  if (!(std::islower(static_cast<unsigned char>(ident[0])) || ident[0] == '_')) return true;
  for (char c : ident) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' ||
          c == '$')) {
      return true;
    }
  }
  return false;
}

// Splits `text` into identifier parts at dots outside double quotes; quoted parts keep their case.
Result<std::vector<std::string>> SplitIdentifiers(std::string_view text) {
  std::vector<std::string> parts;
  std::string current;
  bool quoted_part = false;
  size_t i = 0;
  bool expect_part = true;
  while (i < text.size()) {
    char c = text[i];
    if (expect_part) {
      if (c == '"') {
        ++i;
        bool closed = false;
        while (i < text.size()) {
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              current += '"';
              i += 2;
              continue;
            }
            closed = true;
            ++i;
            break;
          }
          current += text[i++];
        }
        if (!closed) return Status::InvalidArgument("table name '{}' has an unclosed double quote", text);
        quoted_part = true;
      } else {
        while (i < text.size() && text[i] != '.') current += text[i++];
        std::string_view trimmed = Trim(current);
        current = ToLower(trimmed);
        quoted_part = false;
      }
      expect_part = false;
    } else if (c == '.') {
      if (current.empty() && !quoted_part) return Status::InvalidArgument("table name '{}' has an empty part", text);
      parts.push_back(std::move(current));
      current.clear();
      expect_part = true;
      ++i;
    } else if (c == ' ') {
      ++i;
    } else {
      return Status::InvalidArgument("table name '{}': unexpected '{}' after a quoted part", text, c);
    }
  }
  if (expect_part || (current.empty() && !quoted_part)) {
    return Status::InvalidArgument("table name '{}' is empty or ends with a dot", text);
  }
  parts.push_back(std::move(current));
  return parts;
}

}  // namespace

std::string PgTableName::ToString() const {
  return (NeedsQuotes(schema) ? SqlQuoteIdentifier(schema) : schema) + "." + (NeedsQuotes(name) ? SqlQuoteIdentifier(name) : name);
}

std::string PgTableName::Quoted() const { return SqlQuoteIdentifier(schema) + "." + SqlQuoteIdentifier(name); }

Result<PgTableName> ParsePgTableName(std::string_view text) {
  TIDE_ASSIGN_OR_RETURN(auto parts, SplitIdentifiers(Trim(text)));
  if (parts.size() == 1) return PgTableName{"public", parts[0]};
  if (parts.size() == 2) return PgTableName{parts[0], parts[1]};
  return Status::InvalidArgument("table name '{}' has {} parts: give `table` or `schema.table`", text, parts.size());
}

Result<std::vector<PgTableName>> ParsePgTableList(std::string_view text) {
  std::vector<PgTableName> tables;
  // Commas inside quotes belong to the name.
  std::string current;
  bool in_quotes = false;
  auto flush = [&]() -> Status {
    if (Trim(current).empty()) return Status::OK();
    TIDE_ASSIGN_OR_RETURN(PgTableName t, ParsePgTableName(current));
    if (std::find(tables.begin(), tables.end(), t) == tables.end()) tables.push_back(std::move(t));
    current.clear();
    return Status::OK();
  };
  for (char c : text) {
    if (c == '"') in_quotes = !in_quotes;
    if (c == ',' && !in_quotes) {
      TIDE_RETURN_IF_ERROR(flush());
      current.clear();
    } else {
      current += c;
    }
  }
  TIDE_RETURN_IF_ERROR(flush());
  if (tables.empty()) return Status::InvalidArgument("no table given: list them as schema.table[,schema.table...]");
  return tables;
}

Status CheckTablesExist(PgConnection& conn, const std::vector<PgTableName>& tables) {
  std::vector<std::string> missing;
  for (const auto& t : tables) {
    TIDE_ASSIGN_OR_RETURN(PgResult r, conn.Query("SELECT to_regclass(" + SqlQuoteLiteral(t.Quoted()) + ") IS NOT NULL"));
    if (r.rows() != 1 || r.Value(0, 0) != "t") missing.push_back(t.ToString());
  }
  if (!missing.empty()) {
    return Status::NotFound(
        "table{} {} do{} not exist in the database: check the spelling (unquoted names are folded to lower "
        "case; quote mixed-case names like \"MyTable\") and the schema",
        missing.size() > 1 ? "s" : "", Join(missing, ", "), missing.size() > 1 ? "" : "es");
  }
  return Status::OK();
}

Result<bool> PublicationExists(PgConnection& conn, std::string_view publication) {
  TIDE_ASSIGN_OR_RETURN(PgResult r,
                        conn.Query("SELECT 1 FROM pg_publication WHERE pubname = " + SqlQuoteLiteral(publication)));
  return r.rows() > 0;
}

Result<std::vector<PgTableName>> PublicationTables(PgConnection& conn, std::string_view publication) {
  TIDE_ASSIGN_OR_RETURN(PgResult r, conn.Query("SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = " +
                                               SqlQuoteLiteral(publication)));
  std::vector<PgTableName> tables;
  for (int i = 0; i < r.rows(); ++i) tables.push_back({std::string(r.Value(i, 0)), std::string(r.Value(i, 1))});
  return tables;
}

Status EnsurePublication(PgConnection& conn, std::string_view publication, const std::vector<PgTableName>& tables) {
  if (publication.empty()) return Status::InvalidArgument("the publication name is empty");
  TIDE_RETURN_IF_ERROR(CheckTablesExist(conn, tables));
  TIDE_ASSIGN_OR_RETURN(bool exists, PublicationExists(conn, publication));
  if (!exists) {
    std::vector<std::string> quoted;
    for (const auto& t : tables) quoted.push_back(t.Quoted());
    Status st = conn.Execute("CREATE PUBLICATION " + SqlQuoteIdentifier(publication) + " FOR TABLE " + Join(quoted, ", ") +
                             " WITH (publish_via_partition_root = true)");
    if (!st.ok()) {
      // Another process may have created it between the check and the create: then verify it instead.
      if (conn.last_sqlstate() != "42710") return st.WithContext(fmt::format("creating publication {}", publication));
    } else {
      return Status::OK();
    }
  }
  TIDE_ASSIGN_OR_RETURN(auto published, PublicationTables(conn, publication));
  // A partition is covered when its root is published via the root, and vice versa through
  // pg_publication_tables' own expansion; compare against both the table and its ancestors.
  std::vector<std::string> missing;
  std::set<PgTableName> have(published.begin(), published.end());
  for (const auto& t : tables) {
    if (have.count(t)) continue;
    TIDE_ASSIGN_OR_RETURN(PgResult anc,
                          conn.Query("SELECT n.nspname, c.relname FROM pg_partition_ancestors(" +
                                     SqlQuoteLiteral(t.Quoted()) +
                                     "::regclass) a JOIN pg_class c ON c.oid = a.relid JOIN pg_namespace n ON "
                                     "n.oid = c.relnamespace"));
    bool covered = false;
    for (int i = 0; i < anc.rows() && !covered; ++i) {
      covered = have.count(PgTableName{std::string(anc.Value(i, 0)), std::string(anc.Value(i, 1))}) > 0;
    }
    if (!covered) missing.push_back(t.Quoted());
  }
  if (!missing.empty()) {
    return Status::InvalidArgument(
        "publication {} does not publish {}: add {} with ALTER PUBLICATION {} ADD TABLE {}, or name another "
        "publication",
        publication, Join(missing, ", "), missing.size() > 1 ? "them" : "it", SqlQuoteIdentifier(publication),
        Join(missing, ", "));
  }
  return Status::OK();
}

Status DropPublication(PgConnection& conn, std::string_view publication) {
  return conn.Execute("DROP PUBLICATION IF EXISTS " + SqlQuoteIdentifier(publication));
}

}  // namespace tide
