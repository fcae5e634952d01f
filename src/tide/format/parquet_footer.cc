#include "tide/format/parquet_footer.h"

#include <fmt/format.h>

#include "tide/base/bytes.h"
#include "tide/format/thrift_compact.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

using Reader = ThriftCompactReader;

Status ReadInt32(Reader& in, uint8_t type, std::optional<int32_t>* out) {
  TIDE_ASSIGN_OR_RETURN(int64_t v, in.Int(type));
  if (v < INT32_MIN || v > INT32_MAX) return in.Error("32-bit field out of range");
  *out = static_cast<int32_t>(v);
  return Status::OK();
}

Status ReadInt32(Reader& in, uint8_t type, int32_t* out) {
  std::optional<int32_t> v;
  TIDE_RETURN_IF_ERROR(ReadInt32(in, type, &v));
  *out = *v;
  return Status::OK();
}

// TimeUnit union: 1 MILLIS, 2 MICROS, 3 NANOS (each an empty struct).
Status ReadTimeUnit(Reader& in, std::string* unit) {
  return in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    if (id == 1) *unit = "MILLIS";
    if (id == 2) *unit = "MICROS";
    if (id == 3) *unit = "NANOS";
    return in.Skip(t);
  });
}

// TIME and TIMESTAMP: 1 isAdjustedToUTC, 2 unit.
Status ReadTimeLike(Reader& in, const char* name, std::string* out) {
  bool utc = false;
  std::string unit = "?";
  TIDE_RETURN_IF_ERROR(in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    if (id == 1) {
      TIDE_ASSIGN_OR_RETURN(utc, in.Bool(t));
      return Status::OK();
    }
    if (id == 2 && t == kThriftStruct) return ReadTimeUnit(in, &unit);
    return in.Skip(t);
  }));
  *out = fmt::format("{}({},UTC={})", name, unit, utc ? "true" : "false");
  return Status::OK();
}

// The LogicalType union, rendered as text.
Status ReadLogicalType(Reader& in, std::string* out) {
  return in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    if (t != kThriftStruct) return in.Skip(t);
    switch (id) {
      case 5: {  // DECIMAL: 1 scale, 2 precision
        int32_t scale = 0, precision = 0;
        TIDE_RETURN_IF_ERROR(in.ReadStruct([&](uint8_t ft, int16_t fid) -> Status {
          if (fid == 1) return ReadInt32(in, ft, &scale);
          if (fid == 2) return ReadInt32(in, ft, &precision);
          return in.Skip(ft);
        }));
        *out = fmt::format("DECIMAL({},{})", precision, scale);
        return Status::OK();
      }
      case 7: return ReadTimeLike(in, "TIME", out);
      case 8: return ReadTimeLike(in, "TIMESTAMP", out);
      case 10: {  // INTEGER: 1 bitWidth, 2 isSigned
        int32_t bits = 0;
        bool is_signed = true;
        TIDE_RETURN_IF_ERROR(in.ReadStruct([&](uint8_t ft, int16_t fid) -> Status {
          if (fid == 1) return ReadInt32(in, ft, &bits);
          if (fid == 2) {
            TIDE_ASSIGN_OR_RETURN(is_signed, in.Bool(ft));
            return Status::OK();
          }
          return in.Skip(ft);
        }));
        *out = fmt::format("INT({},{})", bits, is_signed ? "signed" : "unsigned");
        return Status::OK();
      }
      default: {
        static const char* kNames[] = {"",     "STRING", "MAP",  "LIST", "ENUM",    "DECIMAL", "DATE",
                                       "TIME", "TIMESTAMP", "",  "INT",  "NULL",    "JSON",    "BSON",
                                       "UUID", "FLOAT16", "VARIANT", "GEOMETRY", "GEOGRAPHY"};
        *out = (id > 0 && id < static_cast<int16_t>(std::size(kNames))) ? kNames[id] : fmt::format("LOGICAL#{}", id);
        return in.Skip(t);
      }
    }
  });
}

Status ReadSchemaElement(Reader& in, ParquetSchemaElement* e) {
  return in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    switch (id) {
      case 1: return ReadInt32(in, t, &e->type);
      case 2: return ReadInt32(in, t, &e->type_length);
      case 3: return ReadInt32(in, t, &e->repetition);
      case 4: {
        if (t != kThriftBinary) return in.Error("schema name is not a string");
        TIDE_ASSIGN_OR_RETURN(std::string_view v, in.Binary());
        e->name = std::string(v);
        return Status::OK();
      }
      case 5: {
        TIDE_RETURN_IF_ERROR(ReadInt32(in, t, &e->num_children));
        if (e->num_children < 0) return in.Error("negative child count");
        return Status::OK();
      }
      case 6: return ReadInt32(in, t, &e->converted_type);
      case 7: return ReadInt32(in, t, &e->scale);
      case 8: return ReadInt32(in, t, &e->precision);
      case 9: return ReadInt32(in, t, &e->field_id);
      case 10:
        if (t != kThriftStruct) return in.Skip(t);
        return ReadLogicalType(in, &e->logical_type);
      default: return in.Skip(t);
    }
  });
}

// Statistics: 1 max, 2 min (deprecated), 3 null_count, 4 distinct_count, 5 max_value, 6 min_value.
Status ReadStatistics(Reader& in, ParquetStatistics* stats) {
  return in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    auto binary = [&](std::optional<std::string>* out) -> Status {
      if (t != kThriftBinary) return in.Skip(t);
      TIDE_ASSIGN_OR_RETURN(std::string_view v, in.Binary());
      *out = std::string(v);
      return Status::OK();
    };
    switch (id) {
      case 1: return binary(&stats->legacy_max);
      case 2: return binary(&stats->legacy_min);
      case 3: {
        TIDE_ASSIGN_OR_RETURN(int64_t v, in.Int(t));
        if (v >= 0) stats->null_count = v;
        return Status::OK();
      }
      case 5: return binary(&stats->max_value);
      case 6: return binary(&stats->min_value);
      default: return in.Skip(t);
    }
  });
}

Status ReadColumnMeta(Reader& in, ParquetColumnChunk* m) {
  return in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    switch (id) {
      case 1: return ReadInt32(in, t, &m->type);
      case 3:
        return in.ReadList(t, kThriftBinary, [&]() -> Status {
          TIDE_ASSIGN_OR_RETURN(std::string_view part, in.Binary());
          m->path.emplace_back(part);
          return Status::OK();
        });
      case 4: return ReadInt32(in, t, &m->codec);
      case 5: { TIDE_ASSIGN_OR_RETURN(m->num_values, in.Int(t)); return Status::OK(); }
      case 7: { TIDE_ASSIGN_OR_RETURN(m->total_compressed_size, in.Int(t)); return Status::OK(); }
      case 9: { TIDE_ASSIGN_OR_RETURN(m->data_page_offset, in.Int(t)); return Status::OK(); }
      case 11: {
        TIDE_ASSIGN_OR_RETURN(int64_t v, in.Int(t));
        m->dictionary_page_offset = v;
        return Status::OK();
      }
      case 12:
        if (t != kThriftStruct) return in.Skip(t);
        return ReadStatistics(in, &m->statistics);
      default: return in.Skip(t);
    }
  });
}

Status ReadColumnChunk(Reader& in, ParquetColumnChunk* m) {
  bool has_meta = false;
  TIDE_RETURN_IF_ERROR(in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    if (id == 3 && t == kThriftStruct) {
      has_meta = true;
      return ReadColumnMeta(in, m);
    }
    return in.Skip(t);
  }));
  if (!has_meta) return in.Error("a column chunk has no metadata (external column files are not supported)");
  return Status::OK();
}

Status ReadRowGroup(Reader& in, ParquetRowGroup* rg) {
  return in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    switch (id) {
      case 1:
        return in.ReadList(t, kThriftStruct, [&]() -> Status {
          rg->columns.emplace_back();
          return ReadColumnChunk(in, &rg->columns.back());
        });
      case 3: { TIDE_ASSIGN_OR_RETURN(rg->num_rows, in.Int(t)); return Status::OK(); }
      default: return in.Skip(t);
    }
  });
}

}  // namespace

Result<ParquetFooter> ParseParquetFooter(std::string_view bytes, const std::string& what) {
  Reader in(bytes, what + " footer");
  ParquetFooter footer;
  TIDE_RETURN_IF_ERROR(in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    switch (id) {
      case 2:
        return in.ReadList(t, kThriftStruct, [&]() -> Status {
          footer.schema.emplace_back();
          return ReadSchemaElement(in, &footer.schema.back());
        });
      case 3: { TIDE_ASSIGN_OR_RETURN(footer.num_rows, in.Int(t)); return Status::OK(); }
      case 4:
        return in.ReadList(t, kThriftStruct, [&]() -> Status {
          footer.row_groups.emplace_back();
          return ReadRowGroup(in, &footer.row_groups.back());
        });
      case 6: {
        if (t != kThriftBinary) return in.Skip(t);
        TIDE_ASSIGN_OR_RETURN(std::string_view v, in.Binary());
        footer.created_by = std::string(v);
        return Status::OK();
      }
      default: return in.Skip(t);
    }
  }));
  if (footer.schema.empty()) return Status::Corruption("{}: the footer has no schema", what);
  if (footer.num_rows < 0) return Status::Corruption("{}: the footer declares {} rows", what, footer.num_rows);
  return footer;
}

Result<ParquetFooter> ReadParquetFooter(const std::string& path) {
  FileSystem* fs = FileSystem::Local();
  TIDE_ASSIGN_OR_RETURN(FileInfo info, fs->Stat(path));
  if (info.is_directory) return Status::InvalidArgument("{} is a directory, not a Parquet file", path);
  // Smallest possible file: "PAR1", a footer of at least one byte, its 4-byte length, "PAR1".
  if (info.size < 12) {
    return Status::Corruption("Parquet file {} is truncated: {} bytes, too short for a Parquet file", path, info.size);
  }
  TIDE_ASSIGN_OR_RETURN(std::string head, fs->ReadRange(path, 0, 4));
  if (head != "PAR1") return Status::Corruption("Parquet file {} is corrupt: it does not start with PAR1", path);
  // One read usually brings the whole footer: most are a few kilobytes.
  const uint64_t guess = std::min<uint64_t>(info.size - 4, 64 * 1024);
  TIDE_ASSIGN_OR_RETURN(std::string tail, fs->ReadRange(path, info.size - guess, guess));
  if (tail.compare(tail.size() - 4, 4, "PAR1") != 0) {
    return Status::Corruption(
        "Parquet file {} is corrupt or truncated: it does not end with PAR1 (was it copied whole?)", path);
  }
  uint32_t footer_length = LoadLE<uint32_t>(reinterpret_cast<const uint8_t*>(tail.data() + tail.size() - 8));
  if (footer_length == 0 || footer_length > info.size - 12) {
    return Status::Corruption("Parquet file {} is corrupt: footer length {} does not fit a {}-byte file", path,
                              footer_length, info.size);
  }
  std::string footer_bytes;
  if (footer_length + 8 <= tail.size()) {
    footer_bytes = tail.substr(tail.size() - 8 - footer_length, footer_length);
  } else {
    TIDE_ASSIGN_OR_RETURN(footer_bytes, fs->ReadRange(path, info.size - 8 - footer_length, footer_length));
  }
  TIDE_ASSIGN_OR_RETURN(ParquetFooter footer, ParseParquetFooter(footer_bytes, "Parquet file " + path));
  footer.file_size = info.size;
  return footer;
}

std::string ParquetPhysicalTypeName(int32_t type) {
  static const char* kNames[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                 "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  if (type >= 0 && type < static_cast<int32_t>(std::size(kNames))) return kNames[type];
  return fmt::format("TYPE#{}", type);
}

std::string ParquetRepetitionName(int32_t repetition) {
  static const char* kNames[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
  if (repetition >= 0 && repetition < 3) return kNames[repetition];
  return fmt::format("REPETITION#{}", repetition);
}

std::string ParquetConvertedTypeName(int32_t converted_type) {
  static const char* kNames[] = {"UTF8",   "MAP",        "MAP_KEY_VALUE", "LIST",     "ENUM",
                                 "DECIMAL", "DATE",      "TIME_MILLIS",   "TIME_MICROS", "TIMESTAMP_MILLIS",
                                 "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32", "UINT_64",
                                 "INT_8",  "INT_16",     "INT_32",        "INT_64",   "JSON",
                                 "BSON",   "INTERVAL"};
  if (converted_type >= 0 && converted_type < static_cast<int32_t>(std::size(kNames))) return kNames[converted_type];
  return fmt::format("CONVERTED#{}", converted_type);
}

Result<std::vector<ParquetTopColumn>> ParquetTopColumns(const ParquetFooter& footer, const std::string& what) {
  std::vector<ParquetTopColumn> out;
  if (footer.schema.empty()) return Status::Corruption("{}: the schema has no root", what);
  const ParquetSchemaElement& root = footer.schema[0];
  size_t element = 1;
  size_t leaf = 0;
  for (int32_t child = 0; child < root.num_children; ++child) {
    if (element >= footer.schema.size()) return Status::Corruption("{}: schema shorter than its root says", what);
    out.push_back(ParquetTopColumn{element, leaf});
    int64_t pending = 1;
    while (pending > 0) {
      if (element >= footer.schema.size()) return Status::Corruption("{}: schema shorter than its groups say", what);
      const ParquetSchemaElement& w = footer.schema[element++];
      --pending;
      if (w.num_children > 0) {
        pending += w.num_children;
      } else {
        ++leaf;
      }
    }
  }
  return out;
}

const ParquetTopColumn* FindParquetTopColumn(const ParquetFooter& footer, const std::vector<ParquetTopColumn>& top,
                                             std::optional<int32_t> field_id, const std::string& name) {
  if (field_id) {
    for (const ParquetTopColumn& t : top) {
      if (footer.schema[t.element].field_id == field_id) return &t;
    }
  }
  for (const ParquetTopColumn& t : top) {
    if (footer.schema[t.element].name == name) return &t;
  }
  return nullptr;
}

}  // namespace tide
