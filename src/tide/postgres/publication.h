// Publications: the server-side set of tables whose changes a pgoutput slot sends. Tide either creates
// one for the chosen tables (`WITH (publish_via_partition_root = true)`, so a partitioned table's
// changes arrive under the root's name and schema) or uses an existing one by name after checking it
// covers every chosen table.
//
// Also: PgTableName, a schema-qualified table name as a user writes it (`orders`, `shop.orders`,
// `"Mixed Case"."T"`), folded as PostgreSQL folds unquoted identifiers.
// Thread-safety: free functions over a connection the caller uses from one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/pg_connection.h"

namespace tide {

struct PgTableName {
  std::string schema = "public";
  std::string name;

  // `schema.name` with each part quoted only when needed ("public.orders", "\"My\".t").
  std::string ToString() const;
  // Always-quoted SQL form: "schema"."name".
  std::string Quoted() const;
  bool operator==(const PgTableName&) const = default;
  auto operator<=>(const PgTableName&) const = default;
};

// Parses `table`, `schema.table`, with "double quoted" parts kept verbatim and unquoted parts folded to
// lower case; the schema defaults to public.
Result<PgTableName> ParsePgTableName(std::string_view text);
// Parses a comma-separated list of table names (the --tables flag).
Result<std::vector<PgTableName>> ParsePgTableList(std::string_view text);

// NotFound naming every missing table (and how to check the spelling) unless all exist.
Status CheckTablesExist(PgConnection& conn, const std::vector<PgTableName>& tables);

Result<bool> PublicationExists(PgConnection& conn, std::string_view publication);

// The tables a publication publishes as pg_publication_tables lists them (for
// publish_via_partition_root, partitioned roots rather than their partitions).
Result<std::vector<PgTableName>> PublicationTables(PgConnection& conn, std::string_view publication);

// Makes sure `publication` publishes `tables`: creates it (FOR TABLE ... WITH
// (publish_via_partition_root = true)) when it does not exist; otherwise checks that it covers every
// table, failing with InvalidArgument that names the missing tables and gives the ALTER PUBLICATION
// statement to fix it. Missing tables are NotFound. Needs a regular SQL session (or a replication one:
// only simple queries are used).
Status EnsurePublication(PgConnection& conn, std::string_view publication, const std::vector<PgTableName>& tables);

// DROP PUBLICATION IF EXISTS.
Status DropPublication(PgConnection& conn, std::string_view publication);

}  // namespace tide
