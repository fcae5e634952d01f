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

namespace {

class SchemaPlanner {
 public:
  SchemaPlanner(ParquetSchemaPlan* plan, bool write_field_ids) : plan_(plan), write_field_ids_(write_field_ids) {}

  // Plans the node `name` of `type` below a parent whose levels are (def, rep) and whose path is `path`.
  // `own_id` is the element's field id; `field_id` and `depth` the base for ids derived inside it.
  Result<ParquetValuePlan> Plan(const std::string& name, const DataType& type, std::optional<int32_t> own_id,
                                std::optional<int32_t> field_id, int depth, int16_t def, int16_t rep,
                                std::vector<std::string> path, const std::string& dotted) {
    path.push_back(name);
    ParquetValuePlan value;
    value.type = type;
    value.name = dotted;
    value.optional = type.nullable();
    value.def_level = static_cast<int16_t>(def + (value.optional ? 1 : 0));
    value.first_leaf = static_cast<int>(plan_->leaves.size());
    const std::optional<int32_t> id = write_field_ids_ ? own_id : std::nullopt;
    ParquetSchemaNode group;
    group.name = name;
    group.repetition = value.optional ? ParquetRepetition::kOptional : ParquetRepetition::kRequired;
    group.field_id = id;
    using L = ParquetLogicalAnnotation;
    switch (type.root()) {
      case TypeRoot::kRow: {
        value.kind = ParquetValuePlan::kRow;
        group.num_children = static_cast<int32_t>(type.fields().size());
        plan_->nodes.push_back(group);
        for (const DataField& field : type.fields()) {
          TIDE_ASSIGN_OR_RETURN(ParquetValuePlan child, Plan(field.name, field.type, field.id, field.id, 0,
                                                              value.def_level, rep, path, dotted + "." + field.name));
          value.children.push_back(std::move(child));
        }
        break;
      }
      case TypeRoot::kArray: {
        value.kind = ParquetValuePlan::kList;
        value.rep_level = static_cast<int16_t>(rep + 1);
        group.num_children = 1;
        group.converted_type = ParquetConvertedType::kList;
        group.logical.kind = L::kList;
        plan_->nodes.push_back(group);
        ParquetSchemaNode list;
        list.name = "list";
        list.repetition = ParquetRepetition::kRepeated;
        list.num_children = 1;
        plan_->nodes.push_back(list);
        path.push_back("list");
        std::optional<int32_t> element_id;
        if (field_id) element_id = ArrayElementFieldId(*field_id, depth + 1);
        TIDE_ASSIGN_OR_RETURN(ParquetValuePlan element,
                              Plan("element", type.element(), element_id, field_id, depth + 1,
                                   static_cast<int16_t>(value.def_level + 1), value.rep_level, path,
                                   dotted + ".element"));
        value.children.push_back(std::move(element));
        break;
      }
      case TypeRoot::kMap:
      case TypeRoot::kMultiset: {
        const bool map = type.root() == TypeRoot::kMap;
        value.kind = map ? ParquetValuePlan::kMap : ParquetValuePlan::kMultiset;
        value.rep_level = static_cast<int16_t>(rep + 1);
        group.num_children = 1;
        group.converted_type = ParquetConvertedType::kMap;
        group.logical.kind = L::kMap;
        plan_->nodes.push_back(group);
        ParquetSchemaNode key_value;
        key_value.name = "key_value";
        key_value.repetition = ParquetRepetition::kRepeated;
        key_value.num_children = 2;
        key_value.converted_type = ParquetConvertedType::kMapKeyValue;
        plan_->nodes.push_back(key_value);
        path.push_back("key_value");
        const DataType key = (map ? type.key() : type.element()).WithNullable(false);
        const DataType val = map ? type.value() : DataType::Int(false);
        std::optional<int32_t> key_id, value_id;
        if (field_id) {
          key_id = MapKeyFieldId(*field_id, depth + 1);
          value_id = MapValueFieldId(*field_id, depth + 1);
        }
        const int16_t entry_def = static_cast<int16_t>(value.def_level + 1);
        TIDE_ASSIGN_OR_RETURN(ParquetValuePlan key_plan, Plan("key", key, key_id, field_id, depth + 1, entry_def,
                                                               value.rep_level, path, dotted + ".key"));
        TIDE_ASSIGN_OR_RETURN(ParquetValuePlan value_plan, Plan("value", val, value_id, field_id, depth + 1,
                                                                 entry_def, value.rep_level, path, dotted + ".value"));
        value.children.push_back(std::move(key_plan));
        value.children.push_back(std::move(value_plan));
        break;
      }
      default: {
        value.kind = ParquetValuePlan::kLeaf;
        ParquetLeafPlan leaf;
        leaf.column = ParquetColumnSpec{dotted, own_id, type};
        TIDE_ASSIGN_OR_RETURN(leaf.node, ParquetLeafNode(leaf.column, write_field_ids_));
        leaf.node.name = name;
        leaf.path = path;
        leaf.max_def = value.def_level;
        leaf.max_rep = rep;
        plan_->nodes.push_back(leaf.node);
        plan_->leaves.push_back(std::move(leaf));
        break;
      }
    }
    value.leaf_count = static_cast<int>(plan_->leaves.size()) - value.first_leaf;
    return value;
  }

 private:
  ParquetSchemaPlan* plan_;
  bool write_field_ids_;
};

}  // namespace

Result<ParquetSchemaPlan> BuildParquetSchema(const std::vector<ParquetColumnSpec>& columns, bool write_field_ids) {
  ParquetSchemaPlan plan;
  ParquetSchemaNode root;
  root.name = kPaimonParquetRootName;
  root.num_children = static_cast<int32_t>(columns.size());
  plan.nodes.push_back(std::move(root));
  SchemaPlanner planner(&plan, write_field_ids);
  for (const ParquetColumnSpec& column : columns) {
    TIDE_ASSIGN_OR_RETURN(ParquetValuePlan value, planner.Plan(column.name, column.type, column.field_id,
                                                               column.field_id, 0, 0, 0, {}, column.name));
    plan.columns.push_back(std::move(value));
  }
  return plan;
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
