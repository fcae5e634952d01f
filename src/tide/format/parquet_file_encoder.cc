#include "tide/format/parquet_file_encoder.h"

#include <cstring>
#include <utility>

#include "tide/format/parquet_schema_builder.h"
#include "tide/format/thrift_compact_writer.h"

namespace tide {
namespace {

constexpr char kMagic[] = "PAR1";

}  // namespace

ParquetFileEncoder::ParquetFileEncoder(std::vector<ParquetSchemaNode> schema, ParquetEncoderOptions options)
    : schema_(std::move(schema)),
      options_(options),
      compressor_(std::make_unique<ParquetPageCompressor>(options.codec, options.zstd_level)) {}

bool ParquetFileEncoder::CanEncode(const std::vector<ParquetColumnSpec>& columns) {
  for (const ParquetColumnSpec& column : columns) {
    if (column.type.IsNested() || column.type.root() == TypeRoot::kVariant) return false;
  }
  return true;
}

Result<std::unique_ptr<ParquetFileEncoder>> ParquetFileEncoder::Create(std::vector<ParquetColumnSpec> columns,
                                                                       ParquetEncoderOptions options) {
  if (columns.empty()) return Status::InvalidArgument("a Parquet file needs at least one column");
  if (options.row_group_rows <= 0 || options.row_group_bytes <= 0 || options.page_bytes <= 0) {
    return Status::InvalidArgument("Parquet row-group and page bounds must be positive");
  }
  TIDE_ASSIGN_OR_RETURN(std::vector<ParquetSchemaNode> schema,
                        BuildFlatParquetSchema(columns, options.write_field_ids));
  std::unique_ptr<ParquetFileEncoder> encoder(new ParquetFileEncoder(schema, options));
  encoder->columns_.reserve(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    encoder->columns_.emplace_back(std::move(columns[i]), schema[i + 1], encoder->compressor_.get(),
                                   options.page_bytes);
  }
  encoder->file_.append(kMagic, 4);
  return encoder;
}

Status ParquetFileEncoder::Append(const Row& row) {
  if (finished_) return Status::InvalidArgument("append after Finish");
  if (row.size() != columns_.size()) {
    return Status::InvalidArgument("a row has {} values but the file has {} columns", row.size(), columns_.size());
  }
  for (size_t c = 0; c < columns_.size(); ++c) TIDE_RETURN_IF_ERROR(columns_[c].Check(row[c]));
  int64_t buffered = 0;
  for (size_t c = 0; c < columns_.size(); ++c) {
    columns_[c].Append(row[c]);
    buffered += columns_[c].buffered_bytes();
  }
  ++row_count_;
  ++group_rows_;
  if (group_rows_ >= options_.row_group_rows || buffered >= options_.row_group_bytes) {
    TIDE_RETURN_IF_ERROR(FinishRowGroup());
  }
  return Status::OK();
}

Status ParquetFileEncoder::FinishRowGroup() {
  if (group_rows_ == 0) return Status::OK();
  RowGroupMeta group;
  group.num_rows = group_rows_;
  group.chunks.reserve(columns_.size());
  for (ParquetColumnChunkWriter& column : columns_) {
    TIDE_ASSIGN_OR_RETURN(ParquetChunkMeta meta, column.FinishChunk(&file_));
    group.chunks.push_back(std::move(meta));
  }
  row_groups_.push_back(std::move(group));
  group_rows_ = 0;
  return Status::OK();
}

void ParquetFileEncoder::WriteFooter(std::string* bytes) const {
  ThriftCompactWriter out(bytes);
  out.BeginStruct();  // FileMetaData
  out.I32Field(1, 1);  // version
  out.ListField(2, kThriftStruct, static_cast<int64_t>(schema_.size()));
  for (const ParquetSchemaNode& node : schema_) WriteParquetSchemaNode(out, node);
  out.I64Field(3, row_count_);
  out.ListField(4, kThriftStruct, static_cast<int64_t>(row_groups_.size()));
  for (size_t g = 0; g < row_groups_.size(); ++g) {
    const RowGroupMeta& group = row_groups_[g];
    int64_t uncompressed = 0, compressed = 0;
    out.BeginStruct();  // RowGroup
    out.ListField(1, kThriftStruct, static_cast<int64_t>(group.chunks.size()));
    for (const ParquetChunkMeta& chunk : group.chunks) {
      uncompressed += chunk.total_uncompressed_size;
      compressed += chunk.total_compressed_size;
      out.BeginStruct();  // ColumnChunk
      out.I64Field(2, chunk.data_page_offset);  // file_offset (deprecated): where the chunk starts
      out.BeginStructField(3);  // ColumnMetaData
      out.I32Field(1, static_cast<int32_t>(chunk.type));
      out.ListField(2, kThriftI32, 2);  // encodings: PLAIN, RLE
      out.ZigZag(0);
      out.ZigZag(3);
      out.ListField(3, kThriftBinary, 1);  // path_in_schema
      out.Binary(chunk.path);
      out.I32Field(4, static_cast<int32_t>(options_.codec));
      out.I64Field(5, chunk.num_values);
      out.I64Field(6, chunk.total_uncompressed_size);
      out.I64Field(7, chunk.total_compressed_size);
      out.I64Field(9, chunk.data_page_offset);
      out.BeginStructField(12);  // Statistics
      out.I64Field(3, chunk.null_count);
      if (chunk.max_value) out.BinaryField(5, *chunk.max_value);
      if (chunk.min_value) out.BinaryField(6, *chunk.min_value);
      out.EndStruct();
      out.EndStruct();  // ColumnMetaData
      out.EndStruct();  // ColumnChunk
    }
    out.I64Field(2, uncompressed);  // total_byte_size
    out.I64Field(3, group.num_rows);
    if (!group.chunks.empty()) out.I64Field(5, group.chunks.front().data_page_offset);  // file_offset
    out.I64Field(6, compressed);  // total_compressed_size
    out.I16Field(7, static_cast<int16_t>(g));  // ordinal
    out.EndStruct();
  }
  out.BinaryField(6, kTideParquetCreatedBy);
  out.ListField(7, kThriftStruct, static_cast<int64_t>(columns_.size()));  // column_orders
  for (size_t c = 0; c < columns_.size(); ++c) {
    out.BeginStruct();
    out.BeginStructField(1);  // TYPE_ORDER
    out.EndStruct();
    out.EndStruct();
  }
  out.EndStruct();
}

Result<std::string> ParquetFileEncoder::Finish() {
  if (finished_) return Status::InvalidArgument("Finish called twice");
  finished_ = true;
  TIDE_RETURN_IF_ERROR(FinishRowGroup());
  const size_t footer_start = file_.size();
  WriteFooter(&file_);
  const uint32_t footer_length = static_cast<uint32_t>(file_.size() - footer_start);
  char length[4];
  std::memcpy(length, &footer_length, 4);
  file_.append(length, 4);
  file_.append(kMagic, 4);
  return std::move(file_);
}

}  // namespace tide
