// The write buffer and file writer of one bucket, row path against columnar path, on the field
// report's `orders` rows (order_id BIGINT key in random order, user_id, amount DECIMAL(10,2), status,
// create_time and update_time TIMESTAMP(3)): what a flush of the initial copy does. Row path:
// WriteBuffer::Put of each Row, then Drain (sort, merge) into KeyValueFileWriter through the rolling
// writer. Columnar path: ColumnarWriteBuffer::Put of the same Rows (they are freed as they go in),
// then Drain into RollingDataFileWriter::WriteColumns. Both write the same files (checked: sizes and
// row counts equal). Prints, per path, the best of 3 wall times and the buffer's memory before the
// drain, and the ratios. The rows are built before either clock starts.
//
//   build/bench/columnar_write_bench [rows (default 1000000)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "orders_bench_util.h"
#include "tide/io/file_system.h"
#include "tide/table/io/data_file_writer.h"
#include "tide/table/io/key_value_file_writer.h"
#include "tide/table/mergetree/columnar_write_buffer.h"
#include "tide/table/mergetree/write_buffer.h"
#include "tide/table/mergetree/write_merge_function.h"
#include "tide/table/schema/core_options.h"

using namespace tide;

namespace {

using bench::Check;
using bench::Seconds;

struct Run {
  double seconds = 0;
  int64_t buffer_bytes = 0;
  std::vector<std::pair<int64_t, int64_t>> files;  // (rows, bytes) per file
};

Run RunPath(bool columnar, const std::string& dir, const TableSchema& schema, std::vector<Row> rows) {
  auto options = CoreOptions::Create(schema, "default.orders");
  Check(options.status(), "options");
  DataFileWriteContext ctx;
  auto layout = DataFileLayout::Create(schema, *options, "default.orders");
  Check(layout.status(), "layout");
  ctx.layout = std::move(layout).value();
  auto db = DuckDB::Open();
  Check(db.status(), "DuckDB");
  ctx.db = std::move(db).value();
  ctx.creation_time_ms = [] { return int64_t{1700000000000}; };
  auto merge = WriteMergeFunction::Create(schema, "default.orders");
  Check(merge.status(), "merge");
  WriteBufferSpec spec;
  spec.primary_key = true;
  spec.key_indices = {0};
  spec.merge = merge->get();
  WriteBufferMemory memory(int64_t{1} << 40);
  Check(FileSystem::Local()->MakeDirs(dir), "mkdir");
  int files = 0;
  RollingDataFileWriter rolling(
      [&]() -> Result<std::unique_ptr<DataFileWriter>> {
        TIDE_ASSIGN_OR_RETURN(auto w, KeyValueFileWriter::Create(&ctx, dir + "/data-" + std::to_string(files++) + ".parquet"));
        return std::unique_ptr<DataFileWriter>(std::move(w));
      },
      options->target_file_size(), FileSystem::Local());
  Run run;
  auto start = std::chrono::steady_clock::now();
  int64_t sequence = 0;
  if (columnar) {
    ColumnarWriteBuffer buffer(&spec, schema.fields, false, &memory);
    for (Row& row : rows) {
      Row taken = std::move(row);
      Check(buffer.Put(taken, sequence++, ValueKind::kInsert), "Put");
    }
    run.buffer_bytes = buffer.memory_bytes();
    Check(buffer.Drain([&](const std::vector<const ColumnVector*>& columns, const ColumnVector& sequences,
                           const ColumnVector& kinds, const uint32_t* order, size_t n) {
      return rolling.WriteColumns(columns, sequences, kinds, order, n);
    }),
          "Drain");
  } else {
    WriteBuffer buffer(&spec, &memory);
    for (Row& row : rows) buffer.Put(std::move(row), sequence++, ValueKind::kInsert);
    run.buffer_bytes = buffer.memory_bytes();
    Check(buffer.Drain([&](KeyValue& kv) { return rolling.Write(kv.row, kv.sequence, kv.kind); }), "Drain");
  }
  auto metas = rolling.Finish();
  Check(metas.status(), "Finish");
  run.seconds = Seconds(start);
  for (const DataFileMeta& m : *metas) run.files.emplace_back(m.row_count, m.file_size);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1000000;
  char root_template[] = "/tmp/tide-columnar-bench-XXXXXX";
  const char* root = mkdtemp(root_template);
  if (root == nullptr) return 1;
  TableSchema schema = bench::OrdersSchema(1);
  std::printf("columnar_write_bench: %lld orders rows (random key order), one bucket, buffer to files\n",
              static_cast<long long>(n));
  std::vector<Row> rows = bench::RandomOrderRows(n);
  double best[2] = {1e300, 1e300};
  int64_t memory[2] = {0, 0};
  std::vector<std::pair<int64_t, int64_t>> files[2];
  for (int round = 0; round < 3; ++round) {
    for (int columnar = 0; columnar < 2; ++columnar) {
      Run run = RunPath(columnar == 1, std::string(root) + "/r" + std::to_string(round) + "-" + std::to_string(columnar),
                        schema, rows);
      std::printf("  %-9s %.2f s  buffer %.1f MB  %zu file(s)\n", columnar ? "columnar" : "rows", run.seconds,
                  run.buffer_bytes / 1e6, run.files.size());
      best[columnar] = std::min(best[columnar], run.seconds);
      memory[columnar] = run.buffer_bytes;
      files[columnar] = run.files;
    }
  }
  if (files[0] != files[1]) {
    std::fprintf(stderr, "the two paths wrote different files\n");
    return 1;
  }
  std::printf("best of 3: rows %.2f s (%.0f rows/s), columnar %.2f s (%.0f rows/s): columnar/rows time %.2f, "
              "buffer memory %.2f (%.0f vs %.0f bytes a row)\n",
              best[0], n / best[0], best[1], n / best[1], best[1] / best[0],
              static_cast<double>(memory[1]) / static_cast<double>(memory[0]), static_cast<double>(memory[0]) / n,
              static_cast<double>(memory[1]) / n);
  FileSystem::Local()->DeleteRecursively(root).IgnoreError();
  return 0;
}
