#include "tide/types/column_vector.h"

#include <limits>

namespace tide {

std::optional<ColumnVector::Kind> ColumnVector::KindOf(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime: return Kind::kInt64;
    case TypeRoot::kDecimal:
      if (type.precision() <= 18) return Kind::kInt64;
      return std::nullopt;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      if (type.precision() <= 6) return Kind::kInt64;
      return std::nullopt;
    case TypeRoot::kFloat: return Kind::kFloat;
    case TypeRoot::kDouble: return Kind::kDouble;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: return Kind::kBytes;
    default: return std::nullopt;
  }
}

ColumnVector::ColumnVector(DataType type) : type_(std::move(type)), kind_(KindOf(type_).value_or(Kind::kInt64)) {
  if (kind_ == Kind::kBytes) offsets_.push_back(0);
}

void ColumnVector::AppendNull() {
  if (nulls_.empty()) nulls_.assign(size_, 0);
  switch (kind_) {
    case Kind::kInt64:
    case Kind::kFloat: ints_.push_back(0); break;
    case Kind::kDouble: reals_.push_back(0); break;
    case Kind::kBytes: offsets_.push_back(bytes_.size()); break;
  }
  nulls_.push_back(1);
  ++size_;
}

Status ColumnVector::AppendDatum(const Datum& value, std::string_view column) {
  if (value.is_null()) {
    AppendNull();
    return Status::OK();
  }
  auto wrong = [&](std::string_view what) {
    return Status::InvalidArgument("column {} ({}): {}", column, type_.ToString(), what);
  };
  const Datum::Storage& s = value.storage();
  switch (type_.root()) {
    case TypeRoot::kBoolean:
      if (const bool* b = std::get_if<bool>(&s)) {
        AppendInt64(*b ? 1 : 0);
        return Status::OK();
      }
      return wrong("the value is not a boolean");
    case TypeRoot::kDecimal:
      if (const DecimalValue* d = std::get_if<DecimalValue>(&s)) {
        if (d->unscaled > std::numeric_limits<int64_t>::max() || d->unscaled < std::numeric_limits<int64_t>::min()) {
          return wrong("the unscaled value does not fit 64 bits");
        }
        AppendInt64(static_cast<int64_t>(d->unscaled));
        return Status::OK();
      }
      return wrong("the value is not a decimal");
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      if (const TimestampValue* t = std::get_if<TimestampValue>(&s)) {
        if (type_.precision() <= 3) {
          if (t->nanos_of_milli != 0) return wrong("the value has digits below milliseconds");
          AppendInt64(t->millis);
          return Status::OK();
        }
        if (t->nanos_of_milli % 1000 != 0 || t->nanos_of_milli < 0) return wrong("the value has digits below microseconds");
        const __int128 micros = static_cast<__int128>(t->millis) * 1000 + t->nanos_of_milli / 1000;
        if (micros > std::numeric_limits<int64_t>::max() || micros < std::numeric_limits<int64_t>::min()) {
          return wrong("the value is out of range");
        }
        AppendInt64(static_cast<int64_t>(micros));
        return Status::OK();
      }
      return wrong("the value is not a timestamp");
    case TypeRoot::kFloat:
      if (const float* f = std::get_if<float>(&s)) {
        AppendFloat(*f);
        return Status::OK();
      }
      return wrong("the value is not a float");
    case TypeRoot::kDouble:
      if (const double* d = std::get_if<double>(&s)) {
        AppendDouble(*d);
        return Status::OK();
      }
      return wrong("the value is not a double");
    default:
      break;
  }
  if (kind_ == Kind::kBytes) {
    if (const std::string* str = std::get_if<std::string>(&s)) {
      AppendBytes(*str);
      return Status::OK();
    }
    return wrong("the value is not a string");
  }
  if (const int64_t* i = std::get_if<int64_t>(&s)) {
    AppendInt64(*i);
    return Status::OK();
  }
  return wrong("the value is not an integer");
}

Datum ColumnVector::GetDatum(size_t i) const {
  if (IsNull(i)) return Datum();
  switch (type_.root()) {
    case TypeRoot::kBoolean: return Datum(ints_[i] != 0);
    case TypeRoot::kDecimal: return Datum(DecimalValue{ints_[i]});
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      if (type_.precision() <= 3) return Datum(TimestampValue{ints_[i], 0});
      return Datum(TimestampValue::FromMicros(ints_[i]));
    case TypeRoot::kFloat: return Datum(Float(i));
    case TypeRoot::kDouble: return Datum(reals_[i]);
    default: break;
  }
  if (kind_ == Kind::kBytes) return Datum(std::string(Bytes(i)));
  return Datum(ints_[i]);
}

void ColumnVector::Truncate(size_t size) {
  if (size >= size_) return;
  size_ = size;
  switch (kind_) {
    case Kind::kInt64:
    case Kind::kFloat: ints_.resize(size); break;
    case Kind::kDouble: reals_.resize(size); break;
    case Kind::kBytes:
      offsets_.resize(size + 1);
      bytes_.resize(offsets_.back());
      break;
  }
  if (size == 0) {
    nulls_.clear();
  } else if (!nulls_.empty()) {
    nulls_.resize(size);
  }
}

}  // namespace tide
