// The end-to-end reference of sql_pushdown_bench: the least a process answering one SQL statement with
// DuckDB must do. It opens an in-memory DuckDB through the C API (as `tide sql` does), runs the statement
// given as its argument and prints the result's values, comma-separated, one row per line; nothing else
// (no catalog, no views, no statement analysis). Exit code 1 with DuckDB's message on stderr when the
// statement fails.
//
//   duckdb_query_once "SELECT * FROM read_parquet('f.parquet') WHERE id = 7"
#include <duckdb.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: duckdb_query_once SQL\n");
    return 2;
  }
  duckdb_database db = nullptr;
  duckdb_connection conn = nullptr;
  if (duckdb_open(nullptr, &db) != DuckDBSuccess || duckdb_connect(db, &conn) != DuckDBSuccess) {
    std::fprintf(stderr, "cannot open DuckDB\n");
    return 1;
  }
  duckdb_result result;
  int code = 0;
  if (duckdb_query(conn, argv[1], &result) != DuckDBSuccess) {
    std::fprintf(stderr, "%s\n", duckdb_result_error(&result));
    code = 1;
  } else {
    const idx_t columns = duckdb_column_count(&result);
    const idx_t rows = duckdb_row_count(&result);
    for (idx_t r = 0; r < rows; ++r) {
      for (idx_t c = 0; c < columns; ++c) {
        char* text = duckdb_value_varchar(&result, c, r);
        std::fputs(c == 0 ? "" : ",", stdout);
        std::fputs(text != nullptr ? text : "", stdout);
        duckdb_free(text);
      }
      std::fputc('\n', stdout);
    }
  }
  duckdb_destroy_result(&result);
  duckdb_disconnect(&conn);
  duckdb_close(&db);
  return code;
}
