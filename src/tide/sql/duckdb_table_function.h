// DuckTableFunction: owns a duckdb_table_function while it is being described and registered, and the
// small helpers every Tide table function uses in its callbacks.
//
// DuckDB copies the function into its catalog on registration, so the handle is destroyed right after.
// Callbacks are C functions called by DuckDB; GuardCallback keeps C++ exceptions (allocation failures)
// from unwinding into DuckDB by turning them into the callback's error. Thread-safety: a DuckTableFunction
// belongs to the thread building it.
#pragma once

#include <duckdb.h>

#include <optional>
#include <string>
#include <utility>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"

namespace tide {

class DuckTableFunction {
 public:
  explicit DuckTableFunction(const std::string& name);
  ~DuckTableFunction();
  DuckTableFunction(const DuckTableFunction&) = delete;
  DuckTableFunction& operator=(const DuckTableFunction&) = delete;

  duckdb_table_function raw() const { return function_; }
  void AddParameter(duckdb_type type);
  void AddNamedParameter(const std::string& name, duckdb_type type);
  // Registers the function on `connection` (it then exists for the whole database).
  Status Register(const DuckConnection& connection);

 private:
  std::string name_;
  duckdb_table_function function_;
};

// The VARCHAR positional parameter `index`; InvalidArgument (naming `function`) when it is NULL.
Result<std::string> BindStringParameter(duckdb_bind_info info, idx_t index, std::string_view function);
// A named parameter: nullopt when it is absent or NULL.
std::optional<int64_t> BindNamedInt64(duckdb_bind_info info, const char* name);
std::optional<std::string> BindNamedString(duckdb_bind_info info, const char* name);
std::optional<bool> BindNamedBool(duckdb_bind_info info, const char* name);

// Runs `body` (returning Status) and hands a failure, or an exception, to `set_error`.
template <typename Body, typename SetError>
void GuardCallback(Body&& body, SetError&& set_error) {
  try {
    Status st = body();
    if (!st.ok()) set_error(st.message().c_str());
  } catch (const std::exception& e) {
    set_error((std::string("unexpected failure: ") + e.what()).c_str());
  } catch (...) {
    set_error("unexpected failure");
  }
}

}  // namespace tide
