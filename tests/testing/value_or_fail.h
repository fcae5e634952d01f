// ValueOrFail: the value of a Result in a test helper, or the end of the running test.
//
// A helper that returns a value cannot ASSERT (that only returns from the helper), and dereferencing a
// failed Result crashes the whole test binary. ValueOrFail instead throws TestAbort carrying the status
// and where it came from; GoogleTest catches exceptions escaping a test body and reports them as a
// failure of that test, so the other tests still run. Thread-safety: call on the test's thread.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "tide/base/result.h"

namespace tide::testing {

struct TestAbort : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename T>
T ValueOrFail(Result<T> result, std::string_view what) {
  if (!result.ok()) throw TestAbort(std::string(what) + ": " + result.status().ToString());
  return std::move(result).value();
}

// Ends the running test with `message` unless `condition` holds.
inline void CheckOrFail(bool condition, std::string_view message) {
  if (!condition) throw TestAbort(std::string(message));
}

}  // namespace tide::testing
