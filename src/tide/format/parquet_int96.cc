#include "tide/format/parquet_int96.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "tide/base/bytes.h"
#include "tide/format/parquet_footer.h"
#include "tide/format/parquet_page_reader.h"
#include "tide/format/thrift_compact.h"
#include "tide/io/file_system.h"

namespace tide {

TimestampValue Int96ToTimestamp(int64_t nanos_of_day, int32_t julian_day) {
  constexpr int64_t kJulianEpochDay = 2440588;
  constexpr int64_t kMillisPerDay = 86400000;
  constexpr int64_t kNanosPerMilli = 1000000;
  int64_t millis = (static_cast<int64_t>(julian_day) - kJulianEpochDay) * kMillisPerDay;
  int64_t whole = nanos_of_day / kNanosPerMilli;
  int64_t rem = nanos_of_day % kNanosPerMilli;
  if (rem < 0) {
    rem += kNanosPerMilli;
    whole -= 1;
  }
  return TimestampValue{millis + whole, static_cast<int32_t>(rem)};
}

namespace {

// A limit that keeps a damaged page header from making the decoder allocate or loop without end.
constexpr int64_t kMaxListSize = kMaxThriftElements;

struct Int96Raw {
  int64_t nanos_of_day;
  int32_t julian_day;
};

Int96Raw LoadInt96(const char* p) {
  const auto* u = reinterpret_cast<const uint8_t*>(p);
  return Int96Raw{static_cast<int64_t>(LoadLE<uint64_t>(u)), static_cast<int32_t>(LoadLE<uint32_t>(u + 8))};
}

// Decodes the values section of one data page into `out` (`present` non-null values; nulls placed
// according to `defs`).
Status DecodeValues(std::string_view values, int64_t encoding, const std::vector<uint8_t>& defs, int64_t num_values,
                    const std::vector<Int96Raw>* dictionary, Int96Column* out, const std::string& what) {
  int64_t present = 0;
  for (int64_t i = 0; i < num_values; ++i) present += defs[i];
  std::vector<Int96Raw> decoded;
  decoded.reserve(static_cast<size_t>(present));
  if (encoding == 0) {  // PLAIN
    if (static_cast<int64_t>(values.size()) < present * 12) {
      return Status::Corruption("{}: page holds {} bytes for {} INT96 values", what, values.size(), present);
    }
    for (int64_t i = 0; i < present; ++i) decoded.push_back(LoadInt96(values.data() + i * 12));
  } else if (encoding == 2 || encoding == 8) {  // PLAIN_DICTIONARY, RLE_DICTIONARY
    if (dictionary == nullptr) return Status::Corruption("{}: dictionary-encoded page without a dictionary", what);
    if (present > 0) {
      if (values.empty()) return Status::Corruption("{}: dictionary page data is empty", what);
      int width = static_cast<uint8_t>(values[0]);
      if (width > 32) return Status::Corruption("{}: dictionary index width {}", what, width);
      RleBitPackedDecoder decoder(values.substr(1), width);
      std::vector<uint32_t> indices(static_cast<size_t>(present));
      TIDE_RETURN_IF_ERROR(decoder.GetBatch(indices.data(), indices.size(), what));
      for (uint32_t index : indices) {
        if (index >= dictionary->size()) {
          return Status::Corruption("{}: dictionary index {} of {}", what, index, dictionary->size());
        }
        decoded.push_back((*dictionary)[index]);
      }
    }
  } else {
    return Status::NotSupported("{}: Parquet encoding {} is not supported for INT96 columns", what, encoding);
  }
  size_t next = 0;
  for (int64_t i = 0; i < num_values; ++i) {
    if (defs[i]) {
      const Int96Raw& raw = decoded[next++];
      out->values.push_back(Int96ToTimestamp(raw.nanos_of_day, raw.julian_day));
      out->valid.push_back(1);
    } else {
      out->values.push_back(TimestampValue{});
      out->valid.push_back(0);
    }
  }
  return Status::OK();
}

// Reads the definition levels (0 or 1 for a top-level column) of `n` values.
Status DecodeDefs(std::string_view data, int64_t n, std::vector<uint8_t>* defs, const std::string& what) {
  RleBitPackedDecoder levels(data, 1);
  defs->resize(static_cast<size_t>(n));
  TIDE_RETURN_IF_ERROR(levels.GetBatch(defs->data(), defs->size(), what));
  for (uint8_t level : *defs) {
    if (level > 1) return Status::Corruption("{}: definition level {} for a top-level column", what, level);
  }
  return Status::OK();
}

Status ReadChunk(FileSystem* fs, const std::string& path, const ParquetColumnChunk& meta, bool optional,
                 uint64_t file_size, Int96Column* out, const std::string& what) {
  if (meta.type != 3) return Status::Corruption("{}: the column chunk is not INT96 (type {})", what, meta.type);
  int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 && *meta.dictionary_page_offset < start) {
    start = *meta.dictionary_page_offset;
  }
  if (start < 4 || meta.total_compressed_size <= 0 ||
      static_cast<uint64_t>(start) + static_cast<uint64_t>(meta.total_compressed_size) > file_size) {
    return Status::Corruption("{}: column chunk at {} (+{}) lies outside the {}-byte file", what, start,
                              meta.total_compressed_size, file_size);
  }
  TIDE_ASSIGN_OR_RETURN(std::string chunk, fs->ReadRange(path, static_cast<uint64_t>(start),
                                                         static_cast<uint64_t>(meta.total_compressed_size)));
  std::string_view rest(chunk);
  std::optional<std::vector<Int96Raw>> dictionary;
  ParquetPageDecompressor decompressor;
  std::string buffer;
  int64_t values_read = 0;
  while (values_read < meta.num_values) {
    if (rest.empty()) {
      return Status::Corruption("{}: column chunk ends after {} of {} values", what, values_read, meta.num_values);
    }
    ParquetPageHeader h;
    TIDE_RETURN_IF_ERROR(ReadParquetPageHeader(&rest, &h, what));
    if (h.compressed_size < 0 || h.compressed_size > static_cast<int64_t>(rest.size())) {
      return Status::Corruption("{}: page of {} bytes overruns its column chunk", what, h.compressed_size);
    }
    std::string_view body = rest.substr(0, static_cast<size_t>(h.compressed_size));
    rest.remove_prefix(static_cast<size_t>(h.compressed_size));
    if (h.num_values < 0 || h.num_values > kMaxListSize ||
        (h.type != 2 && h.num_values > meta.num_values - values_read)) {
      return Status::Corruption("{}: page declares {} values", what, h.num_values);
    }
    // An INT96 page holds 12 bytes a value plus its levels (a few bytes a value at worst): a page that
    // claims far more is damaged, and must not make the decoder allocate what it claims.
    if (h.uncompressed_size < 0 || h.uncompressed_size > 64 + h.num_values * 32) {
      return Status::Corruption("{}: page of {} values declares {} uncompressed bytes", what, h.num_values,
                                h.uncompressed_size);
    }
    if (h.type == 2) {  // dictionary page: PLAIN INT96 values
      TIDE_ASSIGN_OR_RETURN(std::string_view page,
                            decompressor.Decompress(meta.codec, body, h.uncompressed_size, &buffer, what));
      if (static_cast<int64_t>(page.size()) < h.num_values * 12) {
        return Status::Corruption("{}: dictionary page too short for {} values", what, h.num_values);
      }
      dictionary.emplace();
      for (int64_t i = 0; i < h.num_values; ++i) dictionary->push_back(LoadInt96(page.data() + i * 12));
      continue;
    }
    if (h.type == 1) continue;  // index page: nothing for us
    std::vector<uint8_t> defs;
    std::string_view values;
    if (h.type == 0) {
      TIDE_ASSIGN_OR_RETURN(std::string_view data,
                            decompressor.Decompress(meta.codec, body, h.uncompressed_size, &buffer, what));
      if (optional) {
        if (h.def_level_encoding != 3) {
          return Status::NotSupported("{}: definition level encoding {} is not supported", what, h.def_level_encoding);
        }
        if (data.size() < 4) return Status::Corruption("{}: page too short for its definition levels", what);
        uint32_t len = LoadLE<uint32_t>(reinterpret_cast<const uint8_t*>(data.data()));
        if (len > data.size() - 4) return Status::Corruption("{}: definition levels overrun the page", what);
        TIDE_RETURN_IF_ERROR(DecodeDefs(data.substr(4, len), h.num_values, &defs, what));
        data.remove_prefix(4 + len);
      } else {
        defs.assign(static_cast<size_t>(h.num_values), 1);
      }
      values = data;
    } else if (h.type == 3) {
      if (h.rep_levels_length != 0) return Status::Corruption("{}: repetition levels in a top-level column", what);
      if (h.def_levels_length < 0 || h.def_levels_length > static_cast<int64_t>(body.size())) {
        return Status::Corruption("{}: definition levels overrun the page", what);
      }
      if (optional) {
        TIDE_RETURN_IF_ERROR(DecodeDefs(body.substr(0, static_cast<size_t>(h.def_levels_length)), h.num_values, &defs, what));
      } else {
        defs.assign(static_cast<size_t>(h.num_values), 1);
      }
      std::string_view compressed = body.substr(static_cast<size_t>(h.def_levels_length));
      if (h.v2_compressed) {
        TIDE_ASSIGN_OR_RETURN(values, decompressor.Decompress(meta.codec, compressed,
                                                              h.uncompressed_size - h.def_levels_length, &buffer, what));
      } else {
        values = compressed;
      }
    } else {
      return Status::Corruption("{}: unknown page type {}", what, h.type);
    }
    TIDE_RETURN_IF_ERROR(DecodeValues(values, h.encoding, defs, h.num_values, dictionary ? &*dictionary : nullptr,
                                      out, what));
    values_read += h.num_values;
  }
  return Status::OK();
}

}  // namespace

Result<Int96Column> ReadInt96Column(const std::string& path, const std::string& column) {
  FileSystem* fs = FileSystem::Local();
  const std::string what = "Parquet file " + path + ", column " + column;
  TIDE_ASSIGN_OR_RETURN(ParquetFooter meta, ReadParquetFooter(path));
  // Find the column among the root's children, and its index among the leaf columns.
  const ParquetSchemaElement& root = meta.schema[0];
  size_t element = 1;
  size_t leaf = 0;
  std::optional<size_t> found_leaf;
  bool optional = false;
  for (int64_t child = 0; child < root.num_children; ++child) {
    if (element >= meta.schema.size()) return Status::Corruption("{}: schema shorter than its root says", what);
    const ParquetSchemaElement& e = meta.schema[element];
    // Count the leaves of this subtree (pre-order: walk num_children).
    size_t leaves = 0;
    int64_t pending = 1;
    size_t walk = element;
    while (pending > 0) {
      if (walk >= meta.schema.size()) return Status::Corruption("{}: schema shorter than its groups say", what);
      const ParquetSchemaElement& w = meta.schema[walk++];
      --pending;
      if (w.num_children < 0 || w.num_children > kMaxListSize) return Status::Corruption("{}: bad schema", what);
      if (w.num_children > 0) {
        pending += w.num_children;
      } else {
        ++leaves;
      }
    }
    if (e.name == column) {
      if (e.num_children != 0 || !e.type) return Status::InvalidArgument("{}: not a primitive column", what);
      if (*e.type != 3) return Status::InvalidArgument("{}: the column is not INT96", what);
      if (e.repetition && *e.repetition == 2) return Status::InvalidArgument("{}: the column is repeated", what);
      optional = e.repetition && *e.repetition == 1;
      found_leaf = leaf;
      break;
    }
    leaf += leaves;
    element = walk;
  }
  if (!found_leaf) return Status::NotFound("{}: no such top-level column", what);

  Int96Column out;
  if (meta.num_rows < 0 || meta.num_rows > (int64_t{1} << 31)) {
    return Status::Corruption("{}: footer declares {} rows", what, meta.num_rows);
  }
  int64_t group_rows = 0;
  for (const ParquetRowGroup& rg : meta.row_groups) {
    if (rg.num_rows < 0 || rg.num_rows > meta.num_rows - group_rows) {
      return Status::Corruption("{}: row groups hold more rows than the footer's {}", what, meta.num_rows);
    }
    group_rows += rg.num_rows;
  }
  // Reserve no more than a modest amount up front: the footer's counts are not trusted until decoded.
  const size_t reserve = static_cast<size_t>(std::min<int64_t>(meta.num_rows, int64_t{1} << 22));
  out.values.reserve(reserve);
  out.valid.reserve(reserve);
  for (const ParquetRowGroup& rg : meta.row_groups) {
    if (*found_leaf >= rg.columns.size()) return Status::Corruption("{}: a row group lacks the column", what);
    // A top-level, non-repeated column has exactly one value (or NULL) per row.
    if (rg.columns[*found_leaf].num_values != rg.num_rows) {
      return Status::Corruption("{}: a row group of {} rows declares {} values", what, rg.num_rows,
                                rg.columns[*found_leaf].num_values);
    }
    size_t before = out.size();
    TIDE_RETURN_IF_ERROR(ReadChunk(fs, path, rg.columns[*found_leaf], optional, meta.file_size, &out, what));
    if (static_cast<int64_t>(out.size() - before) != rg.num_rows) {
      return Status::Corruption("{}: a row group of {} rows holds {} values", what, rg.num_rows, out.size() - before);
    }
  }
  return out;
}

}  // namespace tide
