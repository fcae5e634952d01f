#include "tide/table/operation/tag_operations.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/table/operation/file_deletion.h"
#include "tide/table/snapshot/changelog_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/snapshot/tag_manager.h"
#include "tide/types/datum.h"

namespace tide {

namespace {

constexpr int64_t kDayMs = 86'400'000;
constexpr int64_t kHourMs = 3'600'000;

// Days since 1970-01-01 of a proleptic Gregorian date, and back (types/datum.h), in int64 fields.
int64_t DaysOf(int64_t y, int64_t m, int64_t d) {
  return DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

void DateOf(int64_t days, int64_t* y, int64_t* m, int64_t* d) {
  unsigned month = 0, day = 0;
  CivilFromDays(days, y, &month, &day);
  *m = month;
  *d = day;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Local-time millis of a LocalDateTime array [y, mo, d, h, mi(, s(, nanos))].
int64_t LocalMillisOf(const std::vector<int64_t>& t) {
  auto at = [&](size_t i) { return i < t.size() ? t[i] : 0; };
  return DaysOf(at(0), at(1), at(2)) * kDayMs + at(3) * kHourMs + at(4) * 60'000 + at(5) * 1000 +
         at(6) / 1'000'000;
}

// Local-time millis of an instant: a fixed offset, or the process's zone.
int64_t ToLocalMillis(int64_t epoch_ms, const std::optional<int64_t>& offset_ms) {
  if (offset_ms) return epoch_ms + *offset_ms;
  std::time_t seconds = static_cast<std::time_t>(FloorDiv(epoch_ms, 1000));
  std::tm tm{};
  localtime_r(&seconds, &tm);
  return epoch_ms + static_cast<int64_t>(tm.tm_gmtoff) * 1000;
}

// Exactly `n` digits at `*pos`.
std::optional<int64_t> Digits(const std::string& s, size_t* pos, size_t n) {
  if (*pos + n > s.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  return v;
}

bool Literal(const std::string& s, size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

bool ValidDate(int64_t y, int64_t m, int64_t d) {
  if (m < 1 || m > 12 || d < 1) return false;
  int64_t y2, m2, d2;
  DateOf(DaysOf(y, m, d), &y2, &m2, &d2);
  return y2 == y && m2 == m && d2 == d;
}

}  // namespace

Result<std::optional<int64_t>> ParseZoneOffset(const std::optional<std::string>& zone, const std::string& option) {
  if (!zone) return std::optional<int64_t>();
  std::string z(Trim(*zone));
  if (z == "Z" || z == "UTC" || z == "GMT" || z == "UT") return std::optional<int64_t>(0);
  std::string rest = z;
  for (const char* prefix : {"UTC", "GMT", "UT"}) {
    if (StartsWith(z, prefix)) {
      rest = z.substr(std::string_view(prefix).size());
      break;
    }
  }
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
    int h = 0, m = 0;
    if (std::sscanf(rest.c_str() + 1, "%d:%d", &h, &m) >= 1 && h <= 18 && m < 60) {
      int64_t offset = (static_cast<int64_t>(h) * 60 + m) * 60'000;
      return std::optional<int64_t>(rest[0] == '-' ? -offset : offset);
    }
  }
  return Status::NotSupported("{} = '{}': Tide takes UTC, GMT or a fixed offset such as GMT+08:00 (or the option "
                              "unset for the local zone), not region names",
                              option, *zone);
}

Result<TagPeriod> TagPeriod::FromOptions(const CoreOptions& options, const std::string& table_name) {
  if (auto duration = options.tag_creation_period_duration_ms()) {
    if (*duration <= 0) {
      return Status::InvalidArgument("table {}: tag.creation-period-duration must be positive", table_name);
    }
    return TagPeriod(*duration, Format::kMinute);
  }
  const TagPeriodFormatter f = options.tag_period_formatter();
  switch (options.tag_creation_period()) {
    case TagCreationPeriod::kDaily:
      return TagPeriod(kDayMs, f == TagPeriodFormatter::kWithDashes ? Format::kDay : Format::kDayNoDashes);
    case TagCreationPeriod::kHourly:
      return TagPeriod(kHourMs, f == TagPeriodFormatter::kWithDashes      ? Format::kHour
                                : f == TagPeriodFormatter::kWithoutDashes ? Format::kHourNoDashes
                                                                          : Format::kHourNoDashesNoSpaces);
    case TagCreationPeriod::kTwoHours:
      return TagPeriod(2 * kHourMs, Format::kHour);
  }
  return Status::Internal("unknown tag.creation-period");
}

std::optional<int64_t> TagPeriod::TagToTime(const std::string& input) const {
  std::string name = input;
  if (format_ == Format::kDay || format_ == Format::kDayNoDashes) {
    name = name.substr(0, name.find(' '));  // Java reads only the date of a daily tag
  }
  size_t pos = 0;
  bool dashes = format_ == Format::kDay || format_ == Format::kHour;
  auto y = Digits(name, &pos, 4);
  if (!y || (dashes && !Literal(name, &pos, '-'))) return std::nullopt;
  auto m = Digits(name, &pos, 2);
  if (!m || (dashes && !Literal(name, &pos, '-'))) return std::nullopt;
  auto d = Digits(name, &pos, 2);
  if (!d || !ValidDate(*y, *m, *d)) return std::nullopt;
  int64_t hour = 0, minute = 0;
  if (format_ == Format::kHour || format_ == Format::kHourNoDashes || format_ == Format::kHourNoDashesNoSpaces ||
      format_ == Format::kMinute) {
    if (format_ == Format::kHour || format_ == Format::kHourNoDashes) {
      if (!Literal(name, &pos, ' ')) return std::nullopt;
    }
    auto h = Digits(name, &pos, 2);
    if (!h || *h > 23) return std::nullopt;
    hour = *h;
    if (format_ == Format::kMinute) {
      auto mi = Digits(name, &pos, 2);
      if (!mi || *mi > 59) return std::nullopt;
      minute = *mi;
    }
  }
  if (pos != name.size()) return std::nullopt;
  return DaysOf(*y, *m, *d) * kDayMs + hour * kHourMs + minute * 60'000;
}

std::string TagPeriod::TimeToTag(int64_t local_ms) const {
  int64_t days = FloorDiv(local_ms, kDayMs);
  int64_t in_day = local_ms - days * kDayMs;
  int64_t y, m, d;
  DateOf(days, &y, &m, &d);
  int64_t h = in_day / kHourMs, mi = (in_day % kHourMs) / 60'000;
  switch (format_) {
    case Format::kDay: return fmt::format("{:04}-{:02}-{:02}", y, m, d);
    case Format::kDayNoDashes: return fmt::format("{:04}{:02}{:02}", y, m, d);
    case Format::kHour: return fmt::format("{:04}-{:02}-{:02} {:02}", y, m, d, h);
    case Format::kHourNoDashes: return fmt::format("{:04}{:02}{:02} {:02}", y, m, d, h);
    case Format::kHourNoDashesNoSpaces: return fmt::format("{:04}{:02}{:02}{:02}", y, m, d, h);
    case Format::kMinute: return fmt::format("{:04}{:02}{:02}{:02}{:02}", y, m, d, h, mi);
  }
  return "";
}

int64_t TagPeriod::NormalizeToPreviousTag(int64_t local_ms) const {
  return FloorDiv(local_ms, period_ms_) * period_ms_ - period_ms_;
}

Result<Snapshot> CreateTag(FileSystem* fs, const std::string& table_path, const std::string& table_name,
                           const std::string& name, std::optional<int64_t> snapshot_id,
                           std::optional<int64_t> time_retained_ms, int64_t now_ms) {
  SnapshotManager snapshots(fs, table_path);
  if (!snapshot_id) {
    TIDE_ASSIGN_OR_RETURN(snapshot_id, snapshots.LatestId());
    if (!snapshot_id) {
      return Status::InvalidArgument("table {} has no snapshot yet; commit data before creating tag '{}'", table_name,
                                     name);
    }
  }
  auto snapshot = snapshots.Get(*snapshot_id);
  if (!snapshot.ok()) return snapshot.status().WithContext(fmt::format("table {}: creating tag '{}'", table_name, name));
  if (!time_retained_ms) {
    TIDE_ASSIGN_OR_RETURN(auto deletion, FileDeletion::Create(fs, table_path, table_name));
    time_retained_ms = deletion->options().tag_default_time_retained_ms();
  }
  auto created = TagManager(fs, table_path).Create(*snapshot, name, time_retained_ms, now_ms);
  if (!created.ok()) return created.status().WithContext(fmt::format("table {}", table_name));
  return TagManager(fs, table_path).Get(name);
}

Result<TagDeletionResult> DeleteTag(FileSystem* fs, const std::string& table_path, const std::string& table_name,
                                    const std::string& name) {
  TagManager tags(fs, table_path);
  SnapshotManager snapshots(fs, table_path);
  TagDeletionResult result;
  auto tag = tags.Get(name);
  if (!tag.ok()) return tag.status().WithContext(fmt::format("table {}", table_name));
  result.tag_existed = true;
  TIDE_ASSIGN_OR_RETURN(bool snapshot_exists, fs->Exists(snapshots.SnapshotPath(tag->id)));
  // A long-lived changelog of the same id (changelog kept longer than snapshots) is the snapshot's JSON:
  // it names the same lists, and streams read them, so they stay as with the snapshot.
  TIDE_ASSIGN_OR_RETURN(bool changelog_exists, ChangelogManager(fs, table_path).Exists(tag->id));
  if (snapshot_exists || changelog_exists) {
    // The snapshot (or its changelog) still holds every file the tag names.
    TIDE_RETURN_IF_ERROR(tags.DeleteFile(name));
    return result;
  }
  // Tags are found by their files, so list them all before this one goes.
  TIDE_ASSIGN_OR_RETURN(auto tagged, tags.ListTagged());
  TIDE_RETURN_IF_ERROR(tags.DeleteFile(name));
  auto self = std::find_if(tagged.begin(), tagged.end(), [&](const TaggedSnapshot& t) { return t.snapshot.id == tag->id; });
  if (self == tagged.end() || self->names.size() > 1) return result;  // another tag keeps the files

  // The neighbours: the previous tag and the nearer of the next tag and the earliest snapshot.
  std::vector<Snapshot> neighbours;
  if (self != tagged.begin()) neighbours.push_back(std::prev(self)->snapshot);
  std::optional<Snapshot> right;
  TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
  if (earliest) {
    auto s = snapshots.Get(*earliest);
    if (s.ok()) right = std::move(s).value();
  }
  if (std::next(self) != tagged.end() && (!right || std::next(self)->snapshot.id < right->id)) {
    right = std::next(self)->snapshot;
  }
  if (right) neighbours.push_back(*right);

  TIDE_ASSIGN_OR_RETURN(auto deletion, FileDeletion::Create(fs, table_path, table_name));
  DataFileSet keep;
  bool data_ok = true;
  for (const auto& n : neighbours) {
    auto live = deletion->LiveDataFiles(n);
    if (!live.ok()) {
      TIDE_LOG_WARN("table {}: the files of snapshot {} cannot be read ({}); the data files of tag '{}' are left for "
                    "orphan removal",
                    table_name, n.id, live.status().ToString(), name);
      data_ok = false;
      break;
    }
    keep.insert(live->begin(), live->end());
  }
  if (data_ok) {
    TIDE_ASSIGN_OR_RETURN(result.data_files_deleted, deletion->DeleteFiles(deletion->PlanLiveDataFiles(*tag, keep)));
    deletion->CleanEmptyDirectories();
  }
  auto skipping = deletion->ManifestSkippingSet(neighbours);
  if (!skipping.ok()) {
    TIDE_LOG_WARN("table {}: the manifests next to tag '{}' cannot be read ({}); its manifests are left for orphan "
                  "removal",
                  table_name, name, skipping.status().ToString());
    return result;
  }
  MetadataDeletionPlan plan = deletion->PlanMetadata(*tag, &*skipping, /*data_lists=*/true, /*changelog=*/false);
  TIDE_ASSIGN_OR_RETURN(result.manifest_files_deleted, deletion->DeleteFiles(plan.All()));
  return result;
}

Result<std::vector<std::string>> ExpireTagsByTime(FileSystem* fs, const std::string& table_path,
                                                  const std::string& table_name, int64_t now_ms) {
  TagManager tags(fs, table_path);
  TIDE_ASSIGN_OR_RETURN(auto names, tags.ListNames());
  const int64_t now_local = ToLocalMillis(now_ms, std::nullopt);
  std::vector<std::string> expired;
  for (const auto& name : names) {
    auto tag = tags.Get(name);
    if (!tag.ok()) {
      if (tag.status().IsNotFound()) continue;
      return tag.status();
    }
    if (!tag->tag_create_time || !tag->tag_time_retained_ms) continue;
    if (now_local > LocalMillisOf(*tag->tag_create_time) + *tag->tag_time_retained_ms) {
      TIDE_LOG_INFO("table {}: deleting tag '{}', its retention time is over", table_name, name);
      TIDE_RETURN_IF_ERROR(DeleteTag(fs, table_path, table_name, name).status());
      expired.push_back(name);
    }
  }
  return expired;
}

TagAutoCreation::TagAutoCreation(FileSystem* fs, std::string table_path, std::string table_name, TagPeriod period,
                                 TagCreationMode mode, std::optional<int64_t> zone_offset_ms, int64_t delay_ms,
                                 std::optional<int32_t> num_retained_max,
                                 std::optional<int64_t> default_time_retained_ms, bool automatic_completion)
    : fs_(fs),
      table_path_(std::move(table_path)),
      table_name_(std::move(table_name)),
      period_(period),
      mode_(mode),
      zone_offset_ms_(zone_offset_ms),
      delay_ms_(delay_ms),
      num_retained_max_(num_retained_max),
      default_time_retained_ms_(default_time_retained_ms),
      automatic_completion_(automatic_completion) {}

Result<std::unique_ptr<TagAutoCreation>> TagAutoCreation::Create(FileSystem* fs, std::string table_path,
                                                                 std::string table_name, const CoreOptions& options) {
  const TagCreationMode mode = options.tag_automatic_creation();
  if (mode == TagCreationMode::kNone || mode == TagCreationMode::kBatch) return std::unique_ptr<TagAutoCreation>();
  TIDE_ASSIGN_OR_RETURN(TagPeriod period, TagPeriod::FromOptions(options, table_name));
  if (options.tag_creation_delay_ms() >= period.period_ms()) {
    return Status::InvalidArgument("table {}: tag.creation-delay ({} ms) must be shorter than one tag period ({} ms)",
                                   table_name, options.tag_creation_delay_ms(), period.period_ms());
  }
  std::optional<int64_t> zone;
  if (mode == TagCreationMode::kProcessTime) {
    auto z = ParseZoneOffset(options.sink_process_time_zone(), "sink.process-time-zone");
    if (!z.ok()) return z.status().WithContext(fmt::format("table {}", table_name));
    zone = *z;
  } else {
    auto z = ParseZoneOffset(options.sink_watermark_time_zone(), "sink.watermark-time-zone");
    if (!z.ok()) return z.status().WithContext(fmt::format("table {}", table_name));
    zone = *z;
  }
  std::unique_ptr<TagAutoCreation> creation(new TagAutoCreation(
      fs, std::move(table_path), std::move(table_name), period, mode, zone, options.tag_creation_delay_ms(),
      options.tag_num_retained_max(), options.tag_default_time_retained_ms(), options.tag_automatic_completion()));
  TIDE_RETURN_IF_ERROR(creation->Restore());
  return creation;
}

Status TagAutoCreation::Restore() {
  TagManager tags(fs_, table_path_);
  TIDE_ASSIGN_OR_RETURN(auto names, tags.ListNames());
  std::optional<std::pair<int64_t, std::string>> newest;
  for (const auto& name : names) {
    auto time = period_.TagToTime(name);
    if (time && (!newest || *time > newest->first)) newest = std::make_pair(*time, name);
  }
  if (!newest) {
    TIDE_ASSIGN_OR_RETURN(auto earliest, SnapshotManager(fs_, table_path_).EarliestId());
    next_snapshot_ = earliest.value_or(1);
    return Status::OK();
  }
  TIDE_ASSIGN_OR_RETURN(Snapshot tag, tags.Get(newest->second));
  next_snapshot_ = tag.id + 1;
  next_tag_ = newest->first + period_.period_ms();
  return Status::OK();
}

std::optional<int64_t> TagAutoCreation::TimeOf(const Snapshot& snapshot) const {
  if (mode_ == TagCreationMode::kWatermark) {
    if (!snapshot.watermark || *snapshot.watermark == INT64_MIN) return std::nullopt;
    return ToLocalMillis(*snapshot.watermark, zone_offset_ms_);
  }
  return ToLocalMillis(snapshot.time_millis, zone_offset_ms_);
}

Result<std::vector<std::string>> TagAutoCreation::Run(int64_t now_ms) {
  SnapshotManager snapshots(fs_, table_path_);
  TagManager tags(fs_, table_path_);
  std::vector<std::string> created;
  while (true) {
    auto snapshot = snapshots.Get(next_snapshot_);
    if (!snapshot.ok()) {
      if (!snapshot.status().IsNotFound()) return snapshot.status();
      TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
      if (earliest && *earliest > next_snapshot_) {
        next_snapshot_ = *earliest;  // expired before it was looked at
        continue;
      }
      break;
    }
    auto time = TimeOf(*snapshot);
    if (time && (!next_tag_ || *time - delay_ms_ >= *next_tag_ + period_.period_ms())) {
      int64_t this_tag = period_.NormalizeToPreviousTag(*time);
      if (automatic_completion_ && next_tag_) this_tag = *next_tag_;
      std::string name = period_.TimeToTag(this_tag);
      TIDE_ASSIGN_OR_RETURN(bool made, tags.Create(*snapshot, name, default_time_retained_ms_, now_ms,
                                                   /*ignore_if_exists=*/true));
      if (made) created.push_back(name);
      next_tag_ = this_tag + period_.period_ms();
      if (num_retained_max_) {
        TIDE_ASSIGN_OR_RETURN(auto tagged, tags.ListTagged());
        std::vector<std::string> automatic;  // oldest snapshot first
        for (const auto& t : tagged) {
          for (const auto& n : t.names) {
            if (period_.TagToTime(n)) automatic.push_back(n);
          }
        }
        for (size_t i = 0; automatic.size() > static_cast<size_t>(*num_retained_max_) + i; ++i) {
          TIDE_LOG_INFO("table {}: deleting tag '{}', more than tag.num-retained-max = {} automatic tags", table_name_,
                        automatic[i], *num_retained_max_);
          TIDE_RETURN_IF_ERROR(DeleteTag(fs_, table_path_, table_name_, automatic[i]).status());
        }
      }
    }
    ++next_snapshot_;
  }
  return created;
}

}  // namespace tide
