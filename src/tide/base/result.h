// Result<T>: either a value of type T or a non-OK Status.
//
// The return type of every fallible function that produces a value. Construction that can fail goes
// through a static `Create()` returning `Result<std::unique_ptr<T>>`. Thread-safety: a value type, like
// the T it holds.
#pragma once

#include <cassert>
#include <optional>
#include <utility>
#include <variant>

#include "tide/base/status.h"

namespace tide {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "Result constructed from an OK Status without a value");
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK Status");
  }
  template <typename U>
    requires std::is_constructible_v<T, U&&> && (!std::is_same_v<std::decay_t<U>, T>) &&
             (!std::is_same_v<std::decay_t<U>, Status>)
  Result(U&& value) : value_(T(std::forward<U>(value))) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T ValueOr(T fallback) const& { return ok() ? *value_ : std::move(fallback); }

 private:
  Status status_;  // OK when value_ is set
  std::optional<T> value_;
};

}  // namespace tide

#define TIDE_CONCAT_INNER(a, b) a##b
#define TIDE_CONCAT(a, b) TIDE_CONCAT_INNER(a, b)

// `TIDE_ASSIGN_OR_RETURN(auto x, Foo());` declares x from Foo()'s value, or returns its error.
//
// One statement (a GNU statement expression, which GCC and Clang both support), so it is safe as the
// body of an unbraced `if`, `else` or loop: `if (c) TIDE_ASSIGN_OR_RETURN(x, Foo());` assigns x or
// returns, exactly as the braced form does.
#define TIDE_ASSIGN_OR_RETURN(lhs, rexpr) \
  TIDE_ASSIGN_OR_RETURN_IMPL(TIDE_CONCAT(_tide_result_, __LINE__), lhs, rexpr)
#define TIDE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  lhs = ({                                          \
    auto tmp = (rexpr);                             \
    if (!tmp.ok()) return tmp.status();             \
    std::move(tmp).value();                         \
  })
