#include "tide/table/mergetree/levels.h"

#include <algorithm>

#include "tide/codec/binary_row.h"

namespace tide {

Result<LevelFile> LevelFile::Create(DataFileMeta meta, const std::vector<DataType>& key_types) {
  auto min = DeserializeBinaryRow(meta.min_key, key_types);
  auto max = DeserializeBinaryRow(meta.max_key, key_types);
  if (!min.ok() || !max.ok()) {
    return Status::Corruption("data file {}: its key range does not decode with the primary-key types: {}",
                              meta.file_name, (!min.ok() ? min : max).status().ToString());
  }
  LevelFile f;
  f.meta = std::move(meta);
  f.min_key = std::move(min).value();
  f.max_key = std::move(max).value();
  return f;
}

Result<Levels> Levels::Create(std::vector<DataFileMeta> files, int32_t num_levels, std::vector<DataType> key_types,
                              std::string table_name) {
  Levels levels;
  levels.key_types_ = std::move(key_types);
  levels.table_name_ = std::move(table_name);
  int32_t restored = num_levels;
  for (const auto& f : files) restored = std::max(restored, f.level + 1);
  if (restored < 2) return Status::InvalidArgument("table {}: num-levels must be at least 2", levels.table_name_);
  levels.levels_.resize(static_cast<size_t>(restored - 1));
  for (auto& f : files) {
    TIDE_ASSIGN_OR_RETURN(LevelFile lf, LevelFile::Create(std::move(f), levels.key_types_));
    TIDE_RETURN_IF_ERROR(levels.Insert(std::move(lf)));
  }
  levels.SortLevel0();
  return levels;
}

Status Levels::AddLevel0File(DataFileMeta file) {
  if (file.level != 0) {
    return Status::InvalidArgument("table {}: data file {} is of level {}, not 0", table_name_, file.file_name,
                                   file.level);
  }
  TIDE_ASSIGN_OR_RETURN(LevelFile lf, LevelFile::Create(std::move(file), key_types_));
  Hold(lf);
  level0_.push_back(std::move(lf));
  SortLevel0();
  return Status::OK();
}

void Levels::SortLevel0() {
  // Newest first; ties (several writers) by min sequence, creation time, then name, as Java's TreeSet.
  std::sort(level0_.begin(), level0_.end(), [](const LevelFile& a, const LevelFile& b) {
    if (a.meta.max_sequence_number != b.meta.max_sequence_number) {
      return a.meta.max_sequence_number > b.meta.max_sequence_number;
    }
    if (a.meta.min_sequence_number != b.meta.min_sequence_number) {
      return a.meta.min_sequence_number < b.meta.min_sequence_number;
    }
    if (a.meta.creation_time_ms != b.meta.creation_time_ms) return a.meta.creation_time_ms < b.meta.creation_time_ms;
    return a.meta.file_name < b.meta.file_name;
  });
}

Result<bool> Levels::AddAtMaxLevelIfApart(std::vector<DataFileMeta>* files) {
  if (files->empty()) return false;
  std::vector<LevelFile> decoded;
  decoded.reserve(files->size());
  for (const DataFileMeta& f : *files) {
    TIDE_ASSIGN_OR_RETURN(LevelFile lf, LevelFile::Create(f, key_types_));
    decoded.push_back(std::move(lf));
  }
  const Row* low = &decoded.front().min_key;
  const Row* high = &decoded.front().max_key;
  for (const LevelFile& f : decoded) {
    if (CompareRows(f.min_key, *low) < 0) low = &f.min_key;
    if (CompareRows(f.max_key, *high) > 0) high = &f.max_key;
  }
  // The held range, not the gaps between files: a compaction of the files on both sides of a gap may
  // write across it.
  if (held_low_ && !(CompareRows(*high, *held_low_) < 0 || CompareRows(*held_high_, *low) < 0)) return false;
  const int32_t max_level = MaxLevel();
  for (size_t i = 0; i < decoded.size(); ++i) {
    decoded[i].meta.level = max_level;
    (*files)[i].level = max_level;
  }
  for (size_t i = 0; i < decoded.size(); ++i) {
    Status inserted = Insert(std::move(decoded[i]));
    if (!inserted.ok()) {
      // Not for a flush's disjoint files; should it happen, undo what was added: level 0 serves.
      auto added = [&](const LevelFile& lf) {
        return std::any_of(files->begin(), files->begin() + static_cast<std::ptrdiff_t>(i),
                           [&](const DataFileMeta& f) { return f.file_name == lf.meta.file_name; });
      };
      auto& run = levels_[static_cast<size_t>(max_level - 1)].files;
      run.erase(std::remove_if(run.begin(), run.end(), added), run.end());
      for (auto& f : *files) f.level = 0;
      return false;
    }
  }
  return true;
}

void Levels::Hold(const LevelFile& file) {
  if (!held_low_ || CompareRows(file.min_key, *held_low_) < 0) held_low_ = file.min_key;
  if (!held_high_ || CompareRows(file.max_key, *held_high_) > 0) held_high_ = file.max_key;
}

Status Levels::Insert(LevelFile file) {
  Hold(file);
  if (file.meta.level == 0) {
    level0_.push_back(std::move(file));
    return Status::OK();
  }
  if (file.meta.level < 0 || file.meta.level > MaxLevel()) {
    return Status::InvalidArgument("table {}: data file {} has level {}, outside 0..{}", table_name_,
                                   file.meta.file_name, file.meta.level, MaxLevel());
  }
  SortedRun& run = levels_[static_cast<size_t>(file.meta.level - 1)];
  auto pos = std::lower_bound(run.files.begin(), run.files.end(), file, [](const LevelFile& a, const LevelFile& b) {
    return CompareRows(a.min_key, b.min_key) < 0;
  });
  if ((pos != run.files.end() && CompareRows(file.max_key, pos->min_key) >= 0) ||
      (pos != run.files.begin() && CompareRows(std::prev(pos)->max_key, file.min_key) >= 0)) {
    const LevelFile& other = pos != run.files.end() && CompareRows(file.max_key, pos->min_key) >= 0 ? *pos : *std::prev(pos);
    return Status::InvalidArgument("table {}: data files {} and {} overlap in level {}", table_name_,
                                   file.meta.file_name, other.meta.file_name, file.meta.level);
  }
  run.files.insert(pos, std::move(file));
  return Status::OK();
}

Status Levels::Update(const std::vector<DataFileMeta>& before, const std::vector<DataFileMeta>& after) {
  for (const auto& b : before) {
    bool found = false;
    auto remove = [&](std::vector<LevelFile>& files) {
      for (auto it = files.begin(); it != files.end(); ++it) {
        if (it->meta.file_name == b.file_name && it->meta.level == b.level) {
          files.erase(it);
          found = true;
          return;
        }
      }
    };
    if (b.level == 0) {
      remove(level0_);
    } else if (b.level > 0 && b.level <= MaxLevel()) {
      remove(levels_[static_cast<size_t>(b.level - 1)].files);
    }
    if (!found) {
      return Status::InvalidArgument("table {}: compacted data file {} (level {}) is not in the bucket's levels",
                                     table_name_, b.file_name, b.level);
    }
  }
  for (const auto& a : after) {
    TIDE_ASSIGN_OR_RETURN(LevelFile lf, LevelFile::Create(a, key_types_));
    TIDE_RETURN_IF_ERROR(Insert(std::move(lf)));
  }
  SortLevel0();
  return Status::OK();
}

std::vector<LevelSortedRun> Levels::LevelSortedRuns() const {
  std::vector<LevelSortedRun> runs;
  for (const auto& f : level0_) {
    LevelSortedRun r;
    r.level = 0;
    r.run.files.push_back(f);
    runs.push_back(std::move(r));
  }
  for (size_t i = 0; i < levels_.size(); ++i) {
    if (levels_[i].files.empty()) continue;
    runs.push_back(LevelSortedRun{static_cast<int32_t>(i + 1), levels_[i]});
  }
  return runs;
}

int32_t Levels::NumberOfSortedRuns() const {
  int32_t n = static_cast<int32_t>(level0_.size());
  for (const auto& run : levels_) n += run.files.empty() ? 0 : 1;
  return n;
}

int32_t Levels::NonEmptyHighestLevel() const {
  for (size_t i = levels_.size(); i-- > 0;) {
    if (!levels_[i].files.empty()) return static_cast<int32_t>(i + 1);
  }
  return level0_.empty() ? -1 : 0;
}

std::vector<DataFileMeta> Levels::AllFiles() const {
  std::vector<DataFileMeta> files;
  for (const auto& f : level0_) files.push_back(f.meta);
  for (const auto& run : levels_) {
    for (const auto& f : run.files) files.push_back(f.meta);
  }
  return files;
}

size_t Levels::FileCount() const {
  size_t n = level0_.size();
  for (const auto& run : levels_) n += run.files.size();
  return n;
}

int64_t Levels::TotalFileSize() const {
  int64_t total = 0;
  for (const auto& f : level0_) total += f.meta.file_size;
  for (const auto& run : levels_) total += run.TotalSize();
  return total;
}

}  // namespace tide
