// The table matrix of the interoperability tests: one spec per kind of table (the JSON the jar's
// `write` takes and TideWriteSpec applies), each with the rows its latest snapshot must hold
// ("expect", canonical text, sorted). Both writers run the same specs: Java reads what Tide wrote
// (java_reads_tide_test.cc) and Tide reads what Java wrote (tide_reads_java_test.cc).
// Header-only. Thread-safety: constants.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tide::interop {

struct MatrixTable {
  nlohmann::json spec;
  bool tide_writes = true;  // Tide's writer takes this table
  bool java_writes = true;  // Java's table API (without Flink) writes this table
};

inline std::vector<MatrixTable> InteropMatrix() {
  std::vector<MatrixTable> m;
  auto add = [&](const char* json, bool tide = true, bool java = true) {
    m.push_back(MatrixTable{nlohmann::json::parse(json), tide, java});
  };
  // Primary key, fixed buckets: inserts, updates, deletes over three commits, then a full compaction
  // and one more commit.
  add(R"json({"table": "m.pk_fixed",
    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}, {"name": "n", "type": "BIGINT"}],
    "primary_keys": ["k"], "options": {"bucket": "2"},
    "steps": [
      {"rows": [["+I","1","one","10"],["+I","2","two","20"],["+I","3","three","30"],["+I","4","four","40"],["+I","5","five","50"]]},
      {"rows": [["-U","2","two","20"],["+U","2","TWO","22"],["-D","3","three","30"],["+I","6","six","\\N"]]},
      {"create_tag": "after_two"},
      {"rows": [["+I","7","seven","70"],["-D","1","one","10"],["+U","4","FOUR","44"]]},
      {"compact": {"full": true}},
      {"rows": [["+I","8","a\\tb\\\\c","80"],["-D","7","seven","70"]]}],
    "expect": ["2\tTWO\t22","4\tFOUR\t44","5\tfive\t50","6\tsix\t\\N","8\ta\\tb\\\\c\t80"]})json");
  // Primary key, dynamic buckets (bucket -1), a small target so keys spread over several buckets.
  add(R"json({"table": "m.pk_dynamic",
    "fields": [{"name": "k", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}],
    "primary_keys": ["k"], "options": {"bucket": "-1", "dynamic-bucket.target-row-num": "2"},
    "steps": [
      {"rows": [["+I","1","a"],["+I","2","b"],["+I","3","c"],["+I","4","d"],["+I","5","e"]]},
      {"rows": [["+U","1","A"],["-D","2","b"],["+I","6","f"],["+I","7","g"]]},
      {"rows": [["+U","6","F"],["+I","8","h"]]}],
    "expect": ["1\tA","3\tc","4\td","5\te","6\tF","7\tg","8\th"]})json");
  // Primary key with a partition, fixed buckets.
  add(R"json({"table": "m.pk_partitioned",
    "fields": [{"name": "dt", "type": "STRING NOT NULL"}, {"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "DOUBLE"}],
    "partition_keys": ["dt"], "primary_keys": ["dt", "k"], "options": {"bucket": "2"},
    "steps": [
      {"rows": [["+I","2024-01-01","1","1.5"],["+I","2024-01-01","2","2.5"],["+I","2024-01-02","1","3.5"],["+I","2024-01-03","9","\\N"]]},
      {"rows": [["+U","2024-01-01","1","-0.0"],["-D","2024-01-02","1","3.5"],["+I","2024-01-02","5","5"]]},
      {"compact": {"full": true}},
      {"rows": [["+I","2024-01-03","10","10"]]}],
    "expect": ["2024-01-01\t1\td:8000000000000000","2024-01-01\t2\td:4004000000000000","2024-01-02\t5\td:4014000000000000","2024-01-03\t10\td:4024000000000000","2024-01-03\t9\t\\N"]})json");
  // Cross-partition update: bucket -1 and a primary key without the partition column; a key moving
  // to another partition leaves its old one.
  add(R"json({"table": "m.pk_cross_partition",
    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "dt", "type": "STRING NOT NULL"}, {"name": "v", "type": "STRING"}],
    "partition_keys": ["dt"], "primary_keys": ["k"], "options": {"bucket": "-1"},
    "steps": [
      {"rows": [["+I","1","a","x"],["+I","2","a","y"],["+I","3","b","z"]]},
      {"rows": [["+I","1","b","x2"],["-D","3","b","z"],["+I","4","c","w"]]},
      {"rows": [["+I","2","c","y2"]]}],
    "expect": ["1\tb\tx2","2\tc\ty2","4\tc\tw"]})json", true, false);
  // Append, bucket-unaware, partitioned.
  add(R"json({"table": "m.append_unaware",
    "fields": [{"name": "dt", "type": "DATE"}, {"name": "id", "type": "INT"}, {"name": "s", "type": "STRING"}],
    "partition_keys": ["dt"], "options": {"bucket": "-1"},
    "steps": [
      {"rows": [["+I","2024-02-29","1","x"],["+I","2024-03-01","2","y"],["+I","\\N","3","null partition"]]},
      {"rows": [["+I","2024-02-29","1","x"],["+I","1999-12-31","4","\\N"]]},
      {"rows": [["+I","2024-03-01","5","z"]]}],
    "expect": ["1999-12-31\t4\t\\N","2024-02-29\t1\tx","2024-02-29\t1\tx","2024-03-01\t2\ty","2024-03-01\t5\tz","\\N\t3\tnull partition"]})json");
  // Append, fixed buckets on a bucket key.
  add(R"json({"table": "m.append_fixed",
    "fields": [{"name": "id", "type": "INT"}, {"name": "s", "type": "STRING"}],
    "options": {"bucket": "3", "bucket-key": "id"},
    "steps": [
      {"rows": [["+I","1","a"],["+I","2","b"],["+I","3","c"],["+I","4","d"]]},
      {"rows": [["+I","1","a2"],["+I","\\N","n"]]}],
    "expect": ["1\ta","1\ta2","2\tb","3\tc","4\td","\\N\tn"]})json");
  // Merge engine partial-update: NULLs do not overwrite.
  add(R"json({"table": "m.partial_update",
    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "a", "type": "STRING"}, {"name": "b", "type": "INT"}, {"name": "c", "type": "DECIMAL(10, 3)"}],
    "primary_keys": ["k"], "options": {"bucket": "1", "merge-engine": "partial-update"},
    "steps": [
      {"rows": [["+I","1","a1","\\N","\\N"],["+I","2","\\N","20","\\N"]]},
      {"rows": [["+I","1","\\N","10","\\N"],["+I","2","b2","\\N","2.500"]]},
      {"rows": [["+I","1","\\N","\\N","-1.125"],["+I","3","c","\\N","\\N"]]},
      {"compact": {"full": true}},
      {"rows": [["+I","3","\\N","30","\\N"]]}],
    "expect": ["1\ta1\t10\t-1.125","2\tb2\t20\t2.500","3\tc\t30\t\\N"]})json");
  // Merge engine aggregation: sum, max, last_non_null_value (the default).
  add(R"json({"table": "m.aggregation",
    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "total", "type": "BIGINT"}, {"name": "top", "type": "INT"}, {"name": "last", "type": "STRING"}],
    "primary_keys": ["k"], "options": {"bucket": "2", "merge-engine": "aggregation",
      "fields.total.aggregate-function": "sum", "fields.top.aggregate-function": "max"},
    "steps": [
      {"rows": [["+I","1","5","3","x"],["+I","2","1","1","y"],["+I","1","7","2","\\N"]]},
      {"rows": [["+I","1","-2","9","z"],["+I","3","100","\\N","w"]]},
      {"compact": {"full": true}},
      {"rows": [["+I","2","1","0","\\N"]]}],
    "expect": ["1\t10\t9\tz","2\t2\t1\ty","3\t100\t\\N\tw"]})json");
  // Deduplicate with changelog-producer=input: the changelog files hold the rows as written.
  add(R"json({"table": "m.changelog_input",
    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
    "primary_keys": ["k"], "options": {"bucket": "1", "changelog-producer": "input"},
    "steps": [
      {"rows": [["+I","2","b"],["+I","1","a"],["+I","3","c"]]},
      {"rows": [["-U","1","a"],["+U","1","A"],["-D","3","c"]]},
      {"rows": [["+I","4","d"],["-U","2","b"],["+U","2","B"]]}],
    "expect": ["1\tA","2\tB","4\td"]})json");
  // Every kind of ALTER between commits on a primary-key table: add, rename, drop, widen.
  add(R"json({"table": "m.alter_pk",
    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "a", "type": "INT"}, {"name": "f", "type": "FLOAT"}, {"name": "d", "type": "DECIMAL(5, 2)"}, {"name": "s", "type": "VARCHAR(5)"}],
    "primary_keys": ["k"], "options": {"bucket": "2"},
    "steps": [
      {"rows": [["+I","1","10","f:3fc00000","1.25","abc"],["+I","2","20","f:c0200000","-3.50","de"]]},
      {"alter": [{"add_column": "extra", "type": "BIGINT"}]},
      {"rows": [["+I","3","30","f:00000000","0.01","x","300"],["+U","1","11","f:3f800000","1.00","abc","100"]]},
      {"alter": [{"rename_column": "a", "to": "a2"}]},
      {"rows": [["+I","4","40","f:7fc00000","9.99","y","\\N"]]},
      {"alter": [{"update_column_type": "a2", "type": "BIGINT"}, {"update_column_type": "f", "type": "DOUBLE"},
                 {"update_column_type": "d", "type": "DECIMAL(10, 3)"}, {"update_column_type": "s", "type": "VARCHAR(20)"}]},
      {"rows": [["+I","5","5000000000","d:3ff8000000000000","1234567.125","twenty chars ok","\\N"]]},
      {"alter": [{"drop_column": "extra"}]},
      {"rows": [["-D","2","20","d:c004000000000000","-3.500","de"]]},
      {"compact": {"full": true}}],
    "expect": ["1\t11\td:3ff0000000000000\t1.000\tabc","3\t30\td:0000000000000000\t0.010\tx","4\t40\td:7ff8000000000000\t9.990\ty","5\t5000000000\td:3ff8000000000000\t1234567.125\ttwenty chars ok"]})json");
  // ALTERs on an append table, with a column added in the middle and one dropped.
  add(R"json({"table": "m.alter_append",
    "fields": [{"name": "id", "type": "INT"}, {"name": "x", "type": "SMALLINT"}, {"name": "gone", "type": "STRING"}],
    "options": {"bucket": "-1"},
    "steps": [
      {"rows": [["+I","1","7","g1"]]},
      {"alter": [{"drop_column": "gone"}, {"add_column": "y", "type": "STRING"}]},
      {"rows": [["+I","2","8","y2"]]},
      {"alter": [{"update_column_type": "x", "type": "INT"}, {"rename_column": "y", "to": "z"}]},
      {"rows": [["+I","3","100000","z3"]]}],
    "expect": ["1\t7\t\\N","2\t8\ty2","3\t100000\tz3"]})json");
  // Every Paimon type Tide writes (docs/postgres-types.md), with edge values.
  add(R"json({"table": "m.types",
    "fields": [{"name": "id", "type": "INT NOT NULL"}, {"name": "b", "type": "BOOLEAN"}, {"name": "ti", "type": "TINYINT"},
      {"name": "si", "type": "SMALLINT"}, {"name": "bi", "type": "BIGINT"}, {"name": "r", "type": "FLOAT"},
      {"name": "dp", "type": "DOUBLE"}, {"name": "d1", "type": "DECIMAL(10, 2)"}, {"name": "d2", "type": "DECIMAL(38, 10)"},
      {"name": "money", "type": "DECIMAL(19, 2)"}, {"name": "s", "type": "STRING"}, {"name": "vc", "type": "VARCHAR(10)"},
      {"name": "ch", "type": "CHAR(5)"}, {"name": "by", "type": "BYTES"}, {"name": "dt", "type": "DATE"},
      {"name": "t3", "type": "TIME(3)"}, {"name": "t6", "type": "TIME(6)"}, {"name": "ts3", "type": "TIMESTAMP(3)"},
      {"name": "ts6", "type": "TIMESTAMP(6)"}, {"name": "ltz", "type": "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
      {"name": "ai", "type": {"type": "ARRAY", "element": "INT"}}, {"name": "as", "type": {"type": "ARRAY", "element": "STRING"}},
      {"name": "mp", "type": {"type": "MAP", "key": "STRING NOT NULL", "value": "BIGINT"}},
      {"name": "rw", "type": {"type": "ROW", "fields": [{"id": 0, "name": "x", "type": "INT"}, {"id": 1, "name": "y", "type": "STRING"}]}}],
    "primary_keys": ["id"], "options": {"bucket": "1"},
    "steps": [
      {"rows": [
        ["+I","1","true","-128","-32768","-9223372036854775808","f:7f800000","d:7ff8000000000000","-99999999.99","1234567890123456789012345678.0123456789","92233720368547758.07","héllo ✓","ten chars!","ab   ","x:00ff10","0001-01-01","00:00:00.000","23:59:59.999","1969-12-31 23:59:59.999000000","0001-01-01 00:00:00.000000000","1970-01-01 00:00:00.000001000Z","[1,\\N,-3]","[a,\\N,]","{a=1,b=\\N}","(5,five)"],
        ["+I","2","false","127","32767","9223372036854775807","f:80000000","d:fff0000000000000","0.01","-0.0000000001","-0.50","","\\N","\\N","x:","9999-12-31","12:34:56.789","01:02:03.004","2024-02-29 12:00:00.123000000","9999-12-31 23:59:59.999999000","2000-01-01 00:00:00.000000000Z","[]","[]","{}","(\\N,\\N)"],
        ["+I","3","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N","\\N"]]},
      {"rows": [["+I","4","true","0","0","0","f:3dcccccd","d:3fb999999999999a","0.00","0.0000000000","0.00","tab\\there\\nnewline","back\\\\slash","xyz  ","x:5c","1970-01-01","00:00:01.000","00:00:00.000","1970-01-01 00:00:00.000000000","1900-01-01 00:00:00.000001000","1969-12-31 23:59:59.999999000Z","[0]","[\\\\]","{k=0}","(0,)"]]}]})json");
  // Nanosecond timestamps (Parquet INT96) within the years 1677..2262 that Tide holds at nanosecond
  // precision (tide_reads_java_test.cc has one beyond; TIMESTAMP_LTZ(9) values whole microseconds, as
  // Tide's SQL path reads that type at microsecond precision, docs/format.md), seconds-only timestamps and times, BINARY(n), nested maps and
  // rows in arrays.
  add(R"json({"table": "m.types_precision",
    "fields": [{"name": "id", "type": "INT NOT NULL"}, {"name": "ts9", "type": "TIMESTAMP(9)"},
      {"name": "ltz9", "type": "TIMESTAMP(9) WITH LOCAL TIME ZONE"}, {"name": "ts0", "type": "TIMESTAMP(0)"},
      {"name": "t0", "type": "TIME(0)"}, {"name": "bin", "type": "BINARY(3)"},
      {"name": "am", "type": {"type": "ARRAY", "element": {"type": "MAP", "key": "INT NOT NULL", "value": "STRING"}}},
      {"name": "ar", "type": {"type": "ARRAY", "element": {"type": "ROW", "fields": [{"id": 0, "name": "a", "type": "BIGINT"}]}}}],
    "options": {"bucket": "-1"},
    "steps": [
      {"rows": [
        ["+I","1","1969-12-31 23:59:59.999999999","2262-04-10 23:59:59.999999000Z","0001-01-01 00:00:00.000000000","23:59:59.000","x:000102","[{1=a,2=\\N},{}]","[(1),(\\N)]"],
        ["+I","2","1677-09-22 00:00:00.000000001","1677-09-22 00:00:00.000001000Z","2024-02-29 12:34:56.000000000","00:00:00.000","x:ffffff","[]","[]"],
        ["+I","3","\\N","\\N","\\N","\\N","\\N","\\N","\\N"]]}]})json");
  return m;
}

}  // namespace tide::interop
