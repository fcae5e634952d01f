#include "tide/cli/version.h"

#include <duckdb.h>
#include <fmt/format.h>
#include <libpq-fe.h>

#include "tide/table/snapshot/snapshot.h"
#include "tide/types/table_schema.h"

#ifndef TIDE_VERSION
#define TIDE_VERSION "unknown"
#endif

namespace tide::cli {

std::string VersionText() {
  // PQlibVersion: major * 10000 + minor since PostgreSQL 10 (150018 is 15.18).
  const int libpq = PQlibVersion();
  return fmt::format(
      "tide {}\n"
      "DuckDB {}\n"
      "libpq {}.{}\n"
      "Paimon format: snapshot version {}, schema version {} (as Java Paimon 1.x writes them), Avro manifests, "
      "Parquet data files",
      TIDE_VERSION, duckdb_library_version(), libpq / 10000, libpq % 10000, Snapshot{}.version, TableSchema{}.version);
}

}  // namespace tide::cli
