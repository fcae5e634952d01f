#include "tide/format/parquet_file_encoder.h"

#include <cstring>
#include <map>
#include <utility>

#include "tide/format/parquet_schema_builder.h"
#include "tide/format/thrift_compact_writer.h"

namespace tide {
namespace {

constexpr char kMagic[] = "PAR1";

bool HasVariant(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kVariant:
      return true;
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
      return HasVariant(type.element());
    case TypeRoot::kMap:
      return HasVariant(type.key()) || HasVariant(type.value());
    case TypeRoot::kRow:
      for (const DataField& field : type.fields()) {
        if (HasVariant(field.type)) return true;
      }
      return false;
    default:
      return false;
  }
}

const std::vector<Datum>* NestedItems(const Datum& value) {
  const auto* nested = std::get_if<std::shared_ptr<const NestedValue>>(&value.storage());
  return nested != nullptr && *nested != nullptr ? &(*nested)->items : nullptr;
}

// A multiset's distinct elements with their counts, in order of first appearance.
std::vector<std::pair<Datum, int64_t>> CountElements(const std::vector<Datum>& items) {
  std::vector<std::pair<Datum, int64_t>> counts;
  auto less = [](const Datum& a, const Datum& b) { return CompareDatum(a, b) < 0; };
  std::map<Datum, size_t, decltype(less)> index(less);
  for (const Datum& item : items) {
    auto [it, inserted] = index.emplace(item, counts.size());
    if (inserted) {
      counts.emplace_back(item, 1);
    } else {
      ++counts[it->second].second;
    }
  }
  return counts;
}

}  // namespace

ParquetFileEncoder::ParquetFileEncoder(ParquetSchemaPlan plan, ParquetEncoderOptions options)
    : plan_(std::move(plan)),
      options_(options),
      compressor_(std::make_unique<ParquetPageCompressor>(options.codec, options.zstd_level)) {}

bool ParquetFileEncoder::CanEncode(const std::vector<ParquetColumnSpec>& columns) {
  for (const ParquetColumnSpec& column : columns) {
    if (HasVariant(column.type)) return false;
  }
  return true;
}

Result<std::unique_ptr<ParquetFileEncoder>> ParquetFileEncoder::Create(std::vector<ParquetColumnSpec> columns,
                                                                       ParquetEncoderOptions options) {
  if (columns.empty()) return Status::InvalidArgument("a Parquet file needs at least one column");
  if (options.row_group_rows <= 0 || options.row_group_bytes <= 0 || options.page_bytes <= 0 ||
      options.dictionary_bytes < 0) {
    return Status::InvalidArgument("Parquet row-group and page bounds must be positive");
  }
  TIDE_ASSIGN_OR_RETURN(ParquetSchemaPlan plan, BuildParquetSchema(columns, options.write_field_ids));
  std::unique_ptr<ParquetFileEncoder> encoder(new ParquetFileEncoder(std::move(plan), options));
  encoder->leaves_.reserve(encoder->plan_.leaves.size());
  for (const ParquetLeafPlan& leaf : encoder->plan_.leaves) {
    encoder->leaves_.emplace_back(leaf, encoder->compressor_.get(), options.page_bytes, options.dictionary_bytes);
  }
  encoder->file_.append(kMagic, 4);
  return encoder;
}

Status ParquetFileEncoder::Append(const Row& row) {
  if (finished_) return Status::InvalidArgument("append after Finish");
  const std::vector<ParquetValuePlan>& columns = plan_.columns;
  if (row.size() != columns.size()) {
    return Status::InvalidArgument("a row has {} values but the file has {} columns", row.size(), columns.size());
  }
  for (size_t c = 0; c < columns.size(); ++c) TIDE_RETURN_IF_ERROR(CheckValue(columns[c], row[c]));
  for (size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].kind == ParquetValuePlan::kLeaf) {
      leaves_[static_cast<size_t>(columns[c].first_leaf)].Append(row[c]);
    } else {
      Shred(columns[c], row[c], 0, 0);
    }
  }
  int64_t buffered = 0;
  for (ParquetColumnChunkWriter& leaf : leaves_) {
    TIDE_RETURN_IF_ERROR(leaf.MaybeFinishPage());
    buffered += leaf.buffered_bytes();
  }
  ++row_count_;
  ++group_rows_;
  group_buffered_bytes_ = buffered;
  if (group_rows_ >= options_.row_group_rows || buffered >= options_.row_group_bytes) {
    TIDE_RETURN_IF_ERROR(FinishRowGroup());
  }
  return Status::OK();
}

bool ParquetFileEncoder::CanAppendColumns() const {
  for (const ParquetValuePlan& column : plan_.columns) {
    if (column.kind != ParquetValuePlan::kLeaf || !ColumnVector::KindOf(column.type)) return false;
  }
  return true;
}

Status ParquetFileEncoder::AppendColumns(const std::vector<const ColumnVector*>& columns, const uint32_t* rows,
                                         size_t n) {
  if (finished_) return Status::InvalidArgument("append after Finish");
  const std::vector<ParquetValuePlan>& plans = plan_.columns;
  if (columns.size() != plans.size()) {
    return Status::InvalidArgument("{} column vectors for a file of {} columns", columns.size(), plans.size());
  }
  if (!CanAppendColumns()) {
    return Status::NotSupported("the file has a column without a column vector form; append its rows one by one");
  }
  for (size_t c = 0; c < plans.size(); ++c) {
    TIDE_RETURN_IF_ERROR(leaves_[static_cast<size_t>(plans[c].first_leaf)].CheckColumn(*columns[c], rows, n));
  }
  size_t done = 0;
  while (done < n) {
    const int64_t group_room = options_.row_group_rows - group_rows_;
    size_t step = std::min({n - done, kColumnAppendRows, static_cast<size_t>(std::max<int64_t>(1, group_room))});
    // Append checks the byte bound after every row. Far from it, this checks every step; nearer, the
    // steps shrink to half the rows still likely to fit (at the bytes per row seen so far), and within
    // kByteBoundRows rows of it they are single rows, so the group ends where Append ends it. The file's
    // first row goes alone: it gives the rate.
    constexpr double kByteBoundRows = 64;
    const double rows_left =
        static_cast<double>(options_.row_group_bytes - group_buffered_bytes_) / bytes_per_row_ - kByteBoundRows;
    if (row_count_ == 0 || rows_left < 2) {
      step = 1;
    } else if (rows_left < static_cast<double>(2 * step)) {
      step = std::min(step, static_cast<size_t>(rows_left / 2));
    }
    int64_t buffered = 0;
    for (size_t c = 0; c < plans.size(); ++c) {
      ParquetColumnChunkWriter& leaf = leaves_[static_cast<size_t>(plans[c].first_leaf)];
      TIDE_RETURN_IF_ERROR(leaf.AppendColumn(*columns[c], rows + done, step));
      buffered += leaf.buffered_bytes();
    }
    done += step;
    row_count_ += static_cast<int64_t>(step);
    group_rows_ += static_cast<int64_t>(step);
    group_buffered_bytes_ = buffered;
    bytes_per_row_ = std::max(1.0, static_cast<double>(buffered) / static_cast<double>(group_rows_));
    if (group_rows_ >= options_.row_group_rows || buffered >= options_.row_group_bytes) {
      TIDE_RETURN_IF_ERROR(FinishRowGroup());
    }
  }
  return Status::OK();
}

Status ParquetFileEncoder::CheckValue(const ParquetValuePlan& plan, const Datum& value) const {
  if (plan.kind == ParquetValuePlan::kLeaf) return leaves_[static_cast<size_t>(plan.first_leaf)].Check(value);
  auto wrong = [&](std::string_view detail) {
    return Status::InvalidArgument("column {} ({}): {}", plan.name, plan.type.ToString(), detail);
  };
  if (value.is_null()) {
    return plan.optional ? Status::OK() : wrong("NULL in a NOT NULL column; give it a value or make it nullable");
  }
  const std::vector<Datum>* items = NestedItems(value);
  if (items == nullptr) return wrong("the value is not a nested value");
  switch (plan.kind) {
    case ParquetValuePlan::kRow:
      if (items->size() != plan.children.size()) {
        return wrong(fmt::format("a row of {} fields has {} values", plan.children.size(), items->size()));
      }
      for (size_t i = 0; i < items->size(); ++i) TIDE_RETURN_IF_ERROR(CheckValue(plan.children[i], (*items)[i]));
      return Status::OK();
    case ParquetValuePlan::kList:
      for (const Datum& item : *items) TIDE_RETURN_IF_ERROR(CheckValue(plan.children[0], item));
      return Status::OK();
    case ParquetValuePlan::kMultiset:
      for (const Datum& item : *items) {
        if (item.is_null()) return wrong("a NULL element; a multiset's elements are a map's keys, never NULL");
        TIDE_RETURN_IF_ERROR(CheckValue(plan.children[0], item));
      }
      return Status::OK();
    case ParquetValuePlan::kMap:
      if (items->size() % 2 != 0) return wrong("a map value needs key, value pairs");
      for (size_t i = 0; i < items->size(); i += 2) {
        if ((*items)[i].is_null()) return wrong("a NULL map key; Parquet map keys are never NULL");
        TIDE_RETURN_IF_ERROR(CheckValue(plan.children[0], (*items)[i]));
        TIDE_RETURN_IF_ERROR(CheckValue(plan.children[1], (*items)[i + 1]));
      }
      return Status::OK();
    case ParquetValuePlan::kLeaf:
      break;
  }
  return Status::Internal("column {}: unknown value plan", plan.name);
}

void ParquetFileEncoder::Shred(const ParquetValuePlan& plan, const Datum& value, int16_t rep, int16_t parent_def) {
  auto absent = [&](int16_t def) {
    for (int l = plan.first_leaf; l < plan.first_leaf + plan.leaf_count; ++l) {
      leaves_[static_cast<size_t>(l)].AppendNull(rep, def);
    }
  };
  if (value.is_null()) {
    absent(parent_def);
    return;
  }
  if (plan.kind == ParquetValuePlan::kLeaf) {
    leaves_[static_cast<size_t>(plan.first_leaf)].AppendValue(rep, value);
    return;
  }
  const std::vector<Datum>& items = *NestedItems(value);
  const int16_t entry_def = static_cast<int16_t>(plan.def_level + 1);  // the repeated group holds an entry
  switch (plan.kind) {
    case ParquetValuePlan::kRow:
      for (size_t i = 0; i < items.size(); ++i) Shred(plan.children[i], items[i], rep, plan.def_level);
      return;
    case ParquetValuePlan::kList:
      if (items.empty()) return absent(plan.def_level);
      for (size_t i = 0; i < items.size(); ++i) {
        Shred(plan.children[0], items[i], i == 0 ? rep : plan.rep_level, entry_def);
      }
      return;
    case ParquetValuePlan::kMap:
      if (items.empty()) return absent(plan.def_level);
      for (size_t i = 0; i < items.size(); i += 2) {
        const int16_t r = i == 0 ? rep : plan.rep_level;
        Shred(plan.children[0], items[i], r, entry_def);
        Shred(plan.children[1], items[i + 1], r, entry_def);
      }
      return;
    case ParquetValuePlan::kMultiset: {
      if (items.empty()) return absent(plan.def_level);
      const std::vector<std::pair<Datum, int64_t>> counts = CountElements(items);
      for (size_t i = 0; i < counts.size(); ++i) {
        const int16_t r = i == 0 ? rep : plan.rep_level;
        Shred(plan.children[0], counts[i].first, r, entry_def);
        Shred(plan.children[1], Datum(counts[i].second), r, entry_def);
      }
      return;
    }
    case ParquetValuePlan::kLeaf:
      return;
  }
}

Status ParquetFileEncoder::FinishRowGroup() {
  if (group_rows_ == 0) return Status::OK();
  RowGroupMeta group;
  group.num_rows = group_rows_;
  group.chunks.reserve(leaves_.size());
  for (ParquetColumnChunkWriter& leaf : leaves_) {
    TIDE_ASSIGN_OR_RETURN(ParquetChunkMeta meta, leaf.FinishChunk(&file_));
    group.chunks.push_back(std::move(meta));
  }
  row_groups_.push_back(std::move(group));
  group_rows_ = 0;
  group_buffered_bytes_ = 0;
  return Status::OK();
}

void ParquetFileEncoder::WriteFooter(std::string* bytes) const {
  ThriftCompactWriter out(bytes);
  out.BeginStruct();  // FileMetaData
  out.I32Field(1, 1);  // version
  out.ListField(2, kThriftStruct, static_cast<int64_t>(plan_.nodes.size()));
  for (const ParquetSchemaNode& node : plan_.nodes) WriteParquetSchemaNode(out, node);
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
      const int64_t chunk_start = chunk.dictionary_page_offset.value_or(chunk.data_page_offset);
      out.BeginStruct();  // ColumnChunk
      out.I64Field(2, chunk_start);  // file_offset (deprecated): where the chunk starts
      out.BeginStructField(3);  // ColumnMetaData
      out.I32Field(1, static_cast<int32_t>(chunk.type));
      std::vector<int32_t> encodings;  // PLAIN_DICTIONARY, PLAIN, RLE (levels)
      if (chunk.dictionary_pages) encodings.push_back(2);
      if (chunk.plain_pages || !chunk.dictionary_pages) encodings.push_back(0);
      encodings.push_back(3);
      out.ListField(2, kThriftI32, static_cast<int64_t>(encodings.size()));
      for (int32_t e : encodings) out.ZigZag(e);
      out.ListField(3, kThriftBinary, static_cast<int64_t>(chunk.path.size()));  // path_in_schema
      for (const std::string& part : chunk.path) out.Binary(part);
      out.I32Field(4, static_cast<int32_t>(options_.codec));
      out.I64Field(5, chunk.num_values);
      out.I64Field(6, chunk.total_uncompressed_size);
      out.I64Field(7, chunk.total_compressed_size);
      out.I64Field(9, chunk.data_page_offset);
      if (chunk.dictionary_page_offset) out.I64Field(11, *chunk.dictionary_page_offset);
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
    if (!group.chunks.empty()) {  // file_offset: where the first chunk starts
      const ParquetChunkMeta& first = group.chunks.front();
      out.I64Field(5, first.dictionary_page_offset.value_or(first.data_page_offset));
    }
    out.I64Field(6, compressed);  // total_compressed_size
    out.I16Field(7, static_cast<int16_t>(g));  // ordinal
    out.EndStruct();
  }
  out.BinaryField(6, kTideParquetCreatedBy);
  out.ListField(7, kThriftStruct, static_cast<int64_t>(leaves_.size()));  // column_orders, one per leaf
  for (size_t c = 0; c < leaves_.size(); ++c) {
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
