#include "tide/format/parquet_column.h"

#include <strings.h>

namespace tide {

std::vector<ParquetColumnSpec> ParquetColumnsFor(const std::vector<DataField>& fields) {
  std::vector<ParquetColumnSpec> columns;
  columns.reserve(fields.size());
  for (const DataField& field : fields) columns.push_back({field.name, field.id, field.type});
  return columns;
}

const ParquetFileColumn* ParquetFileColumn::FindChild(const std::string& child_name,
                                                      std::optional<int32_t> child_field_id) const {
  if (child_field_id) {
    for (const ParquetFileColumn& child : children) {
      if (child.field_id == child_field_id) return &child;
    }
  }
  for (const ParquetFileColumn& child : children) {
    if (child.name == child_name) return &child;
  }
  for (const ParquetFileColumn& child : children) {
    if (strcasecmp(child.name.c_str(), child_name.c_str()) == 0) return &child;
  }
  return nullptr;
}

// Java computes these in int arithmetic; ids of real tables stay far below the overflow point.
int32_t ArrayElementFieldId(int32_t field_id, int depth) {
  return kStructuredTypeFieldIdBase + field_id * kStructuredTypeDepthLimit + depth;
}

int32_t MapKeyFieldId(int32_t field_id, int depth) {
  return kStructuredTypeFieldIdBase - field_id * kStructuredTypeDepthLimit - depth;
}

int32_t MapValueFieldId(int32_t field_id, int depth) {
  return kStructuredTypeFieldIdBase + field_id * kStructuredTypeDepthLimit + depth;
}

}  // namespace tide
