#include "tide/format/parquet_schema_builder.h"

namespace tide {

int32_t DecimalFixedLength(int precision) {
  // 2^(8n-1) >= 10^p, compared exactly in 128-bit integers for p <= 38.
  int32_t n = 1;
  unsigned __int128 pow10 = 1;
  for (int i = 0; i < precision; ++i) pow10 *= 10;
  while (n < 16 && (static_cast<unsigned __int128>(1) << (8 * n - 1)) < pow10) ++n;
  return n;
}

Result<ParquetSchemaNode> ParquetLeafNode(const ParquetColumnSpec& column, bool write_field_id) {
  const DataType& type = column.type;
  ParquetSchemaNode node;
  node.name = column.name;
  node.repetition = type.nullable() ? ParquetRepetition::kOptional : ParquetRepetition::kRequired;
  if (write_field_id) node.field_id = column.field_id;
  using L = ParquetLogicalAnnotation;
  auto timestamp = [&](bool utc) {
    if (type.precision() > 6) {
      node.type = ParquetPhysicalType::kInt96;
      return;
    }
    node.type = ParquetPhysicalType::kInt64;
    const bool millis = type.precision() <= 3;
    node.converted_type = millis ? ParquetConvertedType::kTimestampMillis : ParquetConvertedType::kTimestampMicros;
    node.logical.kind = L::kTimestamp;
    node.logical.adjusted_to_utc = utc;
    node.logical.unit = millis ? L::kMillis : L::kMicros;
  };
  switch (type.root()) {
    case TypeRoot::kBoolean:
      node.type = ParquetPhysicalType::kBoolean;
      break;
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt: {
      const bool tiny = type.root() == TypeRoot::kTinyInt;
      node.type = ParquetPhysicalType::kInt32;
      node.converted_type = tiny ? ParquetConvertedType::kInt8 : ParquetConvertedType::kInt16;
      node.logical.kind = L::kInteger;
      node.logical.bit_width = tiny ? 8 : 16;
      node.logical.is_signed = true;
      break;
    }
    case TypeRoot::kInt:
      node.type = ParquetPhysicalType::kInt32;
      break;
    case TypeRoot::kBigInt:
      node.type = ParquetPhysicalType::kInt64;
      break;
    case TypeRoot::kFloat:
      node.type = ParquetPhysicalType::kFloat;
      break;
    case TypeRoot::kDouble:
      node.type = ParquetPhysicalType::kDouble;
      break;
    case TypeRoot::kDecimal: {
      const int p = type.precision();
      if (p < 1 || p > 38) {
        return Status::InvalidArgument("column {}: {} is not a valid decimal type", column.name, type.ToString());
      }
      if (p <= 9) {
        node.type = ParquetPhysicalType::kInt32;
      } else if (p <= 18) {
        node.type = ParquetPhysicalType::kInt64;
      } else {
        node.type = ParquetPhysicalType::kFixedLenByteArray;
        node.type_length = DecimalFixedLength(p);
      }
      node.converted_type = ParquetConvertedType::kDecimal;
      node.scale = type.scale();
      node.precision = p;
      node.logical.kind = L::kDecimal;
      node.logical.scale = type.scale();
      node.logical.precision = p;
      break;
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      node.type = ParquetPhysicalType::kByteArray;
      node.converted_type = ParquetConvertedType::kUtf8;
      node.logical.kind = L::kString;
      break;
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      node.type = ParquetPhysicalType::kByteArray;
      break;
    case TypeRoot::kDate:
      node.type = ParquetPhysicalType::kInt32;
      node.converted_type = ParquetConvertedType::kDate;
      node.logical.kind = L::kDate;
      break;
    case TypeRoot::kTime:
      node.type = ParquetPhysicalType::kInt32;
      node.converted_type = ParquetConvertedType::kTimeMillis;
      node.logical.kind = L::kTime;
      node.logical.adjusted_to_utc = true;
      node.logical.unit = L::kMillis;
      break;
    case TypeRoot::kTimestamp:
      timestamp(false);
      break;
    case TypeRoot::kTimestampLtz:
      timestamp(true);
      break;
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
      return Status::NotSupported("column {}: Tide's Parquet encoder does not write nested type {}", column.name,
                                  type.ToString());
    case TypeRoot::kVariant:
      return Status::NotSupported("column {}: VARIANT columns cannot be written to Parquet by Tide", column.name);
  }
  return node;
}

Result<std::vector<ParquetSchemaNode>> BuildFlatParquetSchema(const std::vector<ParquetColumnSpec>& columns,
                                                              bool write_field_ids) {
  std::vector<ParquetSchemaNode> nodes;
  nodes.reserve(columns.size() + 1);
  ParquetSchemaNode root;
  root.name = kPaimonParquetRootName;
  root.num_children = static_cast<int32_t>(columns.size());
  nodes.push_back(std::move(root));
  for (const ParquetColumnSpec& column : columns) {
    TIDE_ASSIGN_OR_RETURN(ParquetSchemaNode leaf, ParquetLeafNode(column, write_field_ids));
    nodes.push_back(std::move(leaf));
  }
  return nodes;
}

namespace {

void WriteLogicalType(ThriftCompactWriter& out, const ParquetLogicalAnnotation& logical) {
  using L = ParquetLogicalAnnotation;
  out.BeginStructField(10);
  out.BeginStructField(logical.kind);
  switch (logical.kind) {
    case L::kDecimal:
      out.I32Field(1, logical.scale);
      out.I32Field(2, logical.precision);
      break;
    case L::kTime:
    case L::kTimestamp:
      out.BoolField(1, logical.adjusted_to_utc);
      out.BeginStructField(2);  // TimeUnit union
      out.BeginStructField(logical.unit);
      out.EndStruct();
      out.EndStruct();
      break;
    case L::kInteger:
      out.ByteField(1, logical.bit_width);
      out.BoolField(2, logical.is_signed);
      break;
    default:  // STRING, MAP, LIST, DATE: empty structs
      break;
  }
  out.EndStruct();
  out.EndStruct();
}

}  // namespace

void WriteParquetSchemaNode(ThriftCompactWriter& out, const ParquetSchemaNode& node) {
  out.BeginStruct();
  if (node.type) out.I32Field(1, static_cast<int32_t>(*node.type));
  if (node.type_length) out.I32Field(2, *node.type_length);
  if (node.repetition) out.I32Field(3, static_cast<int32_t>(*node.repetition));
  out.BinaryField(4, node.name);
  if (!node.type) out.I32Field(5, node.num_children);
  if (node.converted_type) out.I32Field(6, static_cast<int32_t>(*node.converted_type));
  if (node.scale) out.I32Field(7, *node.scale);
  if (node.precision) out.I32Field(8, *node.precision);
  if (node.field_id) out.I32Field(9, *node.field_id);
  if (node.logical.kind != ParquetLogicalAnnotation::kNone) WriteLogicalType(out, node.logical);
  out.EndStruct();
}

}  // namespace tide
