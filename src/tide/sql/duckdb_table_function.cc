#include "tide/sql/duckdb_table_function.h"

namespace tide {

DuckTableFunction::DuckTableFunction(const std::string& name)
    : name_(name), function_(duckdb_create_table_function()) {
  duckdb_table_function_set_name(function_, name.c_str());
}

DuckTableFunction::~DuckTableFunction() { duckdb_destroy_table_function(&function_); }

void DuckTableFunction::AddParameter(duckdb_type type) {
  DuckLogicalType t(duckdb_create_logical_type(type));
  duckdb_table_function_add_parameter(function_, t.raw());
}

void DuckTableFunction::AddNamedParameter(const std::string& name, duckdb_type type) {
  DuckLogicalType t(duckdb_create_logical_type(type));
  duckdb_table_function_add_named_parameter(function_, name.c_str(), t.raw());
}

Status DuckTableFunction::Register(const DuckConnection& connection) {
  if (duckdb_register_table_function(connection.raw(), function_) != DuckDBSuccess) {
    return Status::Internal("cannot register the DuckDB table function {} (is it registered twice?)", name_);
  }
  return Status::OK();
}

namespace {

std::optional<std::string> ValueString(duckdb_value value) {
  if (value == nullptr || duckdb_is_null_value(value)) return std::nullopt;
  char* text = duckdb_get_varchar(value);
  if (text == nullptr) return std::nullopt;
  std::string out(text);
  duckdb_free(text);
  return out;
}

}  // namespace

Result<std::string> BindStringParameter(duckdb_bind_info info, idx_t index, std::string_view function) {
  DuckValue value(duckdb_bind_get_parameter(info, index));
  std::optional<std::string> text = ValueString(value.raw());
  if (!text) return Status::InvalidArgument("{}: the table name must not be NULL", function);
  return *text;
}

std::optional<int64_t> BindNamedInt64(duckdb_bind_info info, const char* name) {
  DuckValue value(duckdb_bind_get_named_parameter(info, name));
  if (!value || duckdb_is_null_value(value.raw())) return std::nullopt;
  return duckdb_get_int64(value.raw());
}

std::optional<bool> BindNamedBool(duckdb_bind_info info, const char* name) {
  DuckValue value(duckdb_bind_get_named_parameter(info, name));
  if (!value || duckdb_is_null_value(value.raw())) return std::nullopt;
  return duckdb_get_bool(value.raw());
}

std::optional<std::string> BindNamedString(duckdb_bind_info info, const char* name) {
  DuckValue value(duckdb_bind_get_named_parameter(info, name));
  return ValueString(value.raw());
}

}  // namespace tide
