#include "tide/sql/result_text.h"

#include <atomic>

#include <fmt/format.h>

#include "tide/sql/duckdb_table_function.h"

namespace tide {

struct ResultRenderer::Feed {
  DuckResult* result = nullptr;  // set only while Render runs
  std::vector<DuckLogicalType> types;
  DuckDataChunk current;  // the chunk the last call handed out (its vectors are referenced)
};

namespace {

using Feed = ResultRenderer::Feed;

// How a column's cells become JSON values.
enum class JsonKind { kBare, kBareIfFinite, kString };

bool IsNested(duckdb_type id) {
  return id == DUCKDB_TYPE_LIST || id == DUCKDB_TYPE_STRUCT || id == DUCKDB_TYPE_MAP || id == DUCKDB_TYPE_ARRAY ||
         id == DUCKDB_TYPE_UNION;
}

bool IsInteger(duckdb_type id) {
  switch (id) {
    case DUCKDB_TYPE_TINYINT: case DUCKDB_TYPE_SMALLINT: case DUCKDB_TYPE_INTEGER: case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT: case DUCKDB_TYPE_USMALLINT: case DUCKDB_TYPE_UINTEGER: case DUCKDB_TYPE_UBIGINT:
    case DUCKDB_TYPE_HUGEINT: case DUCKDB_TYPE_UHUGEINT:
      return true;
    default:
      return false;
  }
}

bool IsJsonAlias(duckdb_logical_type type) {
  char* alias = duckdb_logical_type_get_alias(type);
  bool json = alias != nullptr && std::string_view(alias) == "JSON";
  duckdb_free(alias);
  return json;
}

}  // namespace

static void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  for (unsigned char c : text) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      default:
        if (c < 0x20) {
          out->append(fmt::format("\\u{:04x}", c));
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

std::string JsonQuote(std::string_view text) {
  std::string out;
  AppendJsonString(text, &out);
  return out;
}

namespace {

Feed& FeedOf(void* extra_info) { return **static_cast<std::shared_ptr<Feed>*>(extra_info); }

void Bind(duckdb_bind_info info) {
  GuardCallback(
      [&]() -> Status {
        Feed& feed = FeedOf(duckdb_bind_get_extra_info(info));
        if (feed.result == nullptr) return Status::InvalidArgument("this function only serves Tide's output");
        for (size_t i = 0; i < feed.types.size(); ++i) {
          duckdb_bind_add_result_column(info, fmt::format("c{}", i).c_str(), feed.types[i].raw());
        }
        return Status::OK();
      },
      [&](const char* error) { duckdb_bind_set_error(info, error); });
}

void Init(duckdb_init_info info) { duckdb_init_set_max_threads(info, 1); }

void Scan(duckdb_function_info info, duckdb_data_chunk output) {
  GuardCallback(
      [&]() -> Status {
        Feed& feed = FeedOf(duckdb_function_get_extra_info(info));
        if (feed.result == nullptr) return Status::Internal("the result to render is gone");
        feed.current = feed.result->FetchChunk();
        if (!feed.current || feed.current.size() == 0) {
          duckdb_data_chunk_set_size(output, 0);
          return Status::OK();
        }
        for (idx_t c = 0; c < feed.types.size(); ++c) {
          duckdb_vector_reference_vector(duckdb_data_chunk_get_vector(output, c), feed.current.column(c));
        }
        duckdb_data_chunk_set_size(output, feed.current.size());
        return Status::OK();
      },
      [&](const char* error) { duckdb_function_set_error(info, error); });
}

std::atomic<int> next_renderer_id{0};

}  // namespace

Result<std::unique_ptr<ResultRenderer>> ResultRenderer::Create(DuckConnection* connection) {
  std::unique_ptr<ResultRenderer> renderer(new ResultRenderer(connection));
  renderer->feed_ = std::make_shared<Feed>();
  renderer->function_name_ = fmt::format("tide_result_{}", next_renderer_id.fetch_add(1));
  DuckTableFunction function(renderer->function_name_);
  duckdb_table_function_set_extra_info(function.raw(), new std::shared_ptr<Feed>(renderer->feed_),
                                       [](void* p) { delete static_cast<std::shared_ptr<Feed>*>(p); });
  duckdb_table_function_set_bind(function.raw(), Bind);
  duckdb_table_function_set_init(function.raw(), Init);
  duckdb_table_function_set_function(function.raw(), Scan);
  TIDE_RETURN_IF_ERROR(function.Register(*connection));
  return renderer;
}

ResultRenderer::~ResultRenderer() = default;

Result<TextResult> ResultRenderer::Render(DuckResult& result, CellStyle style) {
  TextResult all;
  TIDE_RETURN_IF_ERROR(RenderBatches(result, style, [&](const TextResult& batch) {
    if (all.columns.empty()) all.columns = batch.columns;
    all.rows.insert(all.rows.end(), batch.rows.begin(), batch.rows.end());
    return Status::OK();
  }));
  return all;
}

Status ResultRenderer::RenderBatches(DuckResult& result, CellStyle style,
                                     const std::function<Status(const TextResult&)>& sink) {
  TextResult text;
  idx_t count = result.column_count();
  // CREATE, INSERT and the like return a count (or nothing), not rows to show.
  if (count == 0 || duckdb_result_return_type(*result.raw()) != DUCKDB_RESULT_TYPE_QUERY_RESULT) return Status::OK();
  std::vector<JsonKind> kinds;
  std::vector<std::string> expressions;
  feed_->types.clear();
  for (idx_t c = 0; c < count; ++c) {
    DuckLogicalType type = result.column_logical_type(c);
    duckdb_type id = type.id();
    TextColumn column;
    column.name = result.column_name(c);
    column.type = type.ToString();
    column.numeric = IsInteger(id) || id == DUCKDB_TYPE_FLOAT || id == DUCKDB_TYPE_DOUBLE || id == DUCKDB_TYPE_DECIMAL;
    text.columns.push_back(std::move(column));
    std::string ref = fmt::format("c{}", c);
    std::string expression = fmt::format("CAST({} AS VARCHAR)", ref);
    JsonKind kind = JsonKind::kString;
    if (IsInteger(id) || id == DUCKDB_TYPE_BOOLEAN) {
      kind = JsonKind::kBare;
    } else if (id == DUCKDB_TYPE_FLOAT || id == DUCKDB_TYPE_DOUBLE) {
      kind = JsonKind::kBareIfFinite;
    } else if (IsNested(id) || IsJsonAlias(type.raw())) {
      kind = JsonKind::kBare;
      if (style == CellStyle::kJson && IsNested(id)) expression = fmt::format("CAST(to_json({}) AS VARCHAR)", ref);
    }
    kinds.push_back(kind);
    expressions.push_back(std::move(expression));
    feed_->types.push_back(std::move(type));
  }

  feed_->result = &result;
  struct Reset {
    Feed* feed;
    ~Reset() {
      feed->result = nullptr;
      feed->current = DuckDataChunk();
      feed->types.clear();
    }
  } reset{feed_.get()};
  // Streaming: the rendered text of one chunk at a time, never the whole result twice.
  std::string sql = fmt::format("SELECT {} FROM {}()", fmt::join(expressions, ", "), function_name_);
  TIDE_ASSIGN_OR_RETURN(DuckResult rendered, connection_->QueryStreaming(sql));

  bool sent = false;
  while (true) {
    DuckDataChunk chunk = rendered.FetchChunk();
    if (!chunk || chunk.size() == 0) break;
    text.rows.assign(chunk.size(), std::vector<std::optional<std::string>>(count));
    for (idx_t c = 0; c < count; ++c) {
      duckdb_vector vector = chunk.column(c);
      auto* strings = static_cast<duckdb_string_t*>(duckdb_vector_get_data(vector));
      uint64_t* validity = duckdb_vector_get_validity(vector);
      for (idx_t r = 0; r < chunk.size(); ++r) {
        if (validity != nullptr && !duckdb_validity_row_is_valid(validity, r)) continue;
        std::string_view value(duckdb_string_t_data(&strings[r]), duckdb_string_t_length(strings[r]));
        std::string& cell = text.rows[r][c].emplace();
        if (style == CellStyle::kText) {
          cell.assign(value);
        } else if (kinds[c] == JsonKind::kBare ||
                   (kinds[c] == JsonKind::kBareIfFinite && value != "nan" && value != "inf" && value != "-inf")) {
          cell.assign(value);
        } else {
          AppendJsonString(value, &cell);
        }
      }
    }
    TIDE_RETURN_IF_ERROR(sink(text));
    sent = true;
  }
  TIDE_RETURN_IF_ERROR(rendered.error());
  if (!sent) {
    text.rows.clear();
    TIDE_RETURN_IF_ERROR(sink(text));
  }
  return Status::OK();
}

}  // namespace tide
