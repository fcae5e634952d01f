#include "tide/codec/avro_writer.h"

#include <cstring>
#include <random>

#include <fmt/format.h>

#include "tide/base/bytes.h"

namespace tide {

namespace {

void AppendLong(std::string* out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  char buf[10];
  int n = 0;
  while (z >= 0x80) {
    buf[n++] = static_cast<char>((z & 0x7f) | 0x80);
    z >>= 7;
  }
  buf[n++] = static_cast<char>(z);
  out->append(buf, n);
}

void AppendSized(std::string* out, std::string_view bytes) {
  AppendLong(out, static_cast<int64_t>(bytes.size()));
  out->append(bytes);
}

// Encodes values by a schema. On a mismatch it returns InvalidArgument and leaves the dotted field
// path of the offending value in path().
class Encoder {
 public:
  explicit Encoder(std::string* out) : out_(out) {}

  Status Encode(const AvroNode& node, const AvroValue& value) {
    switch (node.type()) {
      case AvroType::kNull:
        if (!value.is_null()) return Mismatch(node, value);
        return Status::OK();
      case AvroType::kBoolean:
        if (value.type() != AvroType::kBoolean) return Mismatch(node, value);
        out_->push_back(value.bool_value() ? 1 : 0);
        return Status::OK();
      case AvroType::kInt:
        if (value.type() != AvroType::kInt) return Mismatch(node, value);
        AppendLong(out_, value.int_value());
        return Status::OK();
      case AvroType::kLong:
        if (value.type() == AvroType::kLong) {
          AppendLong(out_, value.long_value());
        } else if (value.type() == AvroType::kInt) {
          AppendLong(out_, value.int_value());
        } else {
          return Mismatch(node, value);
        }
        return Status::OK();
      case AvroType::kFloat:
        if (value.type() != AvroType::kFloat) return Mismatch(node, value);
        {
          uint32_t bits;
          float f = value.float_value();
          std::memcpy(&bits, &f, 4);
          AppendLE<uint32_t>(out_, bits);
        }
        return Status::OK();
      case AvroType::kDouble:
        if (value.type() != AvroType::kDouble) return Mismatch(node, value);
        {
          uint64_t bits;
          double d = value.double_value();
          std::memcpy(&bits, &d, 8);
          AppendLE<uint64_t>(out_, bits);
        }
        return Status::OK();
      case AvroType::kBytes:
      case AvroType::kString:
        if (value.type() != node.type()) return Mismatch(node, value);
        AppendSized(out_, value.bytes_value());
        return Status::OK();
      case AvroType::kFixed:
        if (value.type() != AvroType::kFixed) return Mismatch(node, value);
        if (static_cast<int64_t>(value.bytes_value().size()) != node.fixed_size()) {
          return Status::InvalidArgument("fixed \"{}\" takes {} bytes, the value has {}", node.full_name(),
                                         node.fixed_size(), value.bytes_value().size());
        }
        out_->append(value.bytes_value());
        return Status::OK();
      case AvroType::kEnum:
        if (value.type() != AvroType::kEnum) return Mismatch(node, value);
        if (value.enum_index() < 0 || static_cast<size_t>(value.enum_index()) >= node.symbols().size()) {
          return Status::InvalidArgument("enum index {} is out of range (enum \"{}\" has {} symbols)",
                                         value.enum_index(), node.full_name(), node.symbols().size());
        }
        AppendLong(out_, value.enum_index());
        return Status::OK();
      case AvroType::kUnion: {
        TIDE_ASSIGN_OR_RETURN(int branch, ChooseBranch(node, value));
        AppendLong(out_, branch);
        return Encode(*node.branches()[branch], value);
      }
      case AvroType::kRecord: {
        if (value.type() != AvroType::kRecord) return Mismatch(node, value);
        const auto& fields = node.fields();
        if (value.field_count() != fields.size()) {
          return Status::InvalidArgument("record \"{}\" has {} fields, the value has {}", node.full_name(),
                                         fields.size(), value.field_count());
        }
        for (size_t i = 0; i < fields.size(); ++i) {
          Status s = Encode(*fields[i].type, value.field(i));
          if (!s.ok()) {
            PrependPath(fields[i].name);
            return s;
          }
        }
        return Status::OK();
      }
      case AvroType::kArray: {
        if (value.type() != AvroType::kArray) return Mismatch(node, value);
        const auto& items = value.items();
        if (!items.empty()) {
          AppendLong(out_, static_cast<int64_t>(items.size()));
          for (size_t i = 0; i < items.size(); ++i) {
            Status s = Encode(*node.items(), items[i]);
            if (!s.ok()) {
              PrependPath(fmt::format("[{}]", i));
              return s;
            }
          }
        }
        AppendLong(out_, 0);
        return Status::OK();
      }
      case AvroType::kMap: {
        if (value.type() != AvroType::kMap) return Mismatch(node, value);
        if (value.map_size() > 0) {
          AppendLong(out_, static_cast<int64_t>(value.map_size()));
          for (size_t i = 0; i < value.map_size(); ++i) {
            AppendSized(out_, value.map_key(i));
            Status s = Encode(*node.values(), value.map_value(i));
            if (!s.ok()) {
              PrependPath(fmt::format("[\"{}\"]", value.map_key(i)));
              return s;
            }
          }
        }
        AppendLong(out_, 0);
        return Status::OK();
      }
    }
    return Status::Internal("unknown Avro schema node");
  }

  const std::string& path() const { return path_; }

 private:
  // The branch a value goes to: the one it names, else the first of its own type (a record value with
  // a schema picks the branch of the same name), else a long branch for an int.
  Result<int> ChooseBranch(const AvroNode& node, const AvroValue& value) {
    const auto& branches = node.branches();
    if (value.branch() >= 0) {
      if (static_cast<size_t>(value.branch()) >= branches.size()) {
        return Status::InvalidArgument("the value names union branch {}, but the union has {} branches",
                                       value.branch(), branches.size());
      }
      return value.branch();
    }
    int first_of_type = -1;
    for (size_t i = 0; i < branches.size(); ++i) {
      if (branches[i]->type() != value.type()) continue;
      if (first_of_type < 0) first_of_type = static_cast<int>(i);
      if (value.type() == AvroType::kRecord && value.record_schema() != nullptr &&
          value.record_schema()->full_name() == branches[i]->full_name()) {
        return static_cast<int>(i);
      }
    }
    if (first_of_type >= 0) return first_of_type;
    if (value.type() == AvroType::kInt) {
      for (size_t i = 0; i < branches.size(); ++i) {
        if (branches[i]->type() == AvroType::kLong) return static_cast<int>(i);
      }
    }
    std::string names;
    for (const AvroNode* b : branches) {
      if (!names.empty()) names += ", ";
      names += b->is_named() ? b->full_name() : std::string(AvroTypeName(b->type()));
    }
    return Status::InvalidArgument("a {} value fits no branch of the union [{}]", AvroTypeName(value.type()), names);
  }

  static Status Mismatch(const AvroNode& node, const AvroValue& value) {
    std::string expected = std::string(AvroTypeName(node.type()));
    if (node.is_named()) expected += fmt::format(" \"{}\"", node.full_name());
    return Status::InvalidArgument("expected {}, the value is {}", expected, AvroTypeName(value.type()));
  }

  void PrependPath(std::string_view segment) {
    if (path_.empty()) {
      path_ = std::string(segment);
    } else if (path_[0] == '[') {
      path_.insert(0, segment);
    } else {
      path_.insert(0, std::string(segment) + ".");
    }
  }

  std::string* out_;
  std::string path_;
};

std::string RandomSyncMarker() {
  std::random_device device;
  std::string sync(16, '\0');
  for (size_t i = 0; i < 16; i += 4) {
    uint32_t r = device();
    std::memcpy(sync.data() + i, &r, 4);
  }
  return sync;
}

}  // namespace

Status EncodeAvroDatum(const AvroNode& node, const AvroValue& value, std::string* out) {
  Encoder encoder(out);
  Status s = encoder.Encode(node, value);
  if (!s.ok() && !encoder.path().empty()) return s.WithContext(fmt::format("field {}", encoder.path()));
  return s;
}

AvroWriter::AvroWriter(AvroSchema schema, AvroWriterOptions options)
    : schema_(std::move(schema)), options_(std::move(options)) {}

Result<std::unique_ptr<AvroWriter>> AvroWriter::Create(std::string_view schema_json, AvroWriterOptions options) {
  TIDE_ASSIGN_OR_RETURN(AvroSchema schema, AvroSchema::Parse(schema_json));
  return Create(std::move(schema), std::move(options));
}

Result<std::unique_ptr<AvroWriter>> AvroWriter::Create(AvroSchema schema, AvroWriterOptions options) {
  if (!schema.valid()) return Status::InvalidArgument("Avro writer needs a parsed schema");
  if (options.sync_marker && options.sync_marker->size() != 16) {
    return Status::InvalidArgument("Avro sync marker must be 16 bytes, got {}", options.sync_marker->size());
  }
  // Check the level now rather than at the first block.
  std::string probe;
  TIDE_RETURN_IF_ERROR(CompressAvroBlock(options.codec, options.level, "", &probe));
  std::unique_ptr<AvroWriter> writer(new AvroWriter(std::move(schema), std::move(options)));
  writer->sync_ = writer->options_.sync_marker ? *writer->options_.sync_marker : RandomSyncMarker();
  std::string& out = writer->out_;
  out.append("Obj\x01", 4);
  AppendLong(&out, 2);  // one map block of two entries, in the order Java writes them
  AppendSized(&out, "avro.schema");
  AppendSized(&out, writer->schema_.json());
  AppendSized(&out, "avro.codec");
  AppendSized(&out, AvroCodecName(writer->options_.codec));
  AppendLong(&out, 0);
  out.append(writer->sync_);
  return writer;
}

Status AvroWriter::Append(const AvroValue& value) {
  if (finished_) return Status::InvalidArgument("Avro writer is finished; no value can be appended");
  size_t mark = block_.size();
  Encoder encoder(&block_);
  Status s = encoder.Encode(schema_.root(), value);
  if (!s.ok()) {
    block_.resize(mark);
    std::string where = fmt::format("Avro value {} does not fit the schema", records_);
    if (!encoder.path().empty()) where += fmt::format(" at field {}", encoder.path());
    return s.WithContext(where);
  }
  ++block_records_;
  ++records_;
  if (block_.size() >= options_.block_max_bytes ||
      (options_.block_max_records > 0 && block_records_ >= options_.block_max_records)) {
    return FlushBlock();
  }
  return Status::OK();
}

Status AvroWriter::FlushBlock() {
  if (block_records_ == 0) return Status::OK();
  TIDE_RETURN_IF_ERROR(CompressAvroBlock(options_.codec, options_.level, block_, &compressed_));
  AppendLong(&out_, static_cast<int64_t>(block_records_));
  AppendSized(&out_, compressed_);
  out_.append(sync_);
  block_.clear();
  block_records_ = 0;
  return Status::OK();
}

Result<std::string> AvroWriter::Finish() {
  if (finished_) return Status::InvalidArgument("Avro writer is already finished");
  TIDE_RETURN_IF_ERROR(FlushBlock());
  finished_ = true;
  return std::move(out_);
}

}  // namespace tide
