#include "tide/table/mergetree/compact/merge_tree_compact_rewriter.h"

#include <algorithm>

#include "tide/base/strings.h"
#include "tide/table/io/key_value_file_reader.h"
#include "tide/table/io/key_value_file_writer.h"
#include "tide/table/deletionvectors/bucketed_dv_maintainer.h"
#include "tide/table/mergetree/compact/lookup_levels.h"
#include "tide/table/mergetree/sort_merge_heap.h"

namespace tide {
namespace {

Result<bool> BoolOption(const CoreOptions& options, const std::string& key, bool fallback, const std::string& table) {
  auto v = options.Find(key);
  if (!v || Trim(*v).empty()) return fallback;
  std::string t = ToLower(std::string(Trim(*v)));
  if (t == "true") return true;
  if (t == "false") return false;
  return Status::InvalidArgument("table {}: option '{}' = '{}' must be true or false", table, key, *v);
}

// A record tagged with the level of the file it comes from; deleted positions skipped by the reader.
class LevelCursor final : public KeyValueCursor {
 public:
  LevelCursor(std::unique_ptr<KeyValueCursor> inner, int32_t level) : inner_(std::move(inner)), level_(level) {}
  Result<bool> Advance() override {
    TIDE_ASSIGN_OR_RETURN(bool more, inner_->Advance());
    if (more) current_ = inner_->TakeCurrent(), current_.level = level_;
    return more;
  }
  const KeyValue& current() const override { return current_; }
  KeyValue TakeCurrent() override { return std::move(current_); }

 private:
  std::unique_ptr<KeyValueCursor> inner_;
  int32_t level_;
  KeyValue current_;
};

// The files a compaction of `sections` read (`before`) and wrote (`after`): `out`'s, or, when nothing
// was rewritten, the inputs themselves moved to `level`.
Status FinishFiles(const std::vector<std::vector<SortedRun>>& sections, std::optional<RollingDataFileWriter>& out,
                   int32_t level, CompactResult* result) {
  for (const auto& section : sections) {
    for (const auto& run : section) {
      for (const auto& f : run.files) result->before.push_back(f.meta);
    }
  }
  if (out) {
    TIDE_ASSIGN_OR_RETURN(result->after, out->Finish());
    return Status::OK();
  }
  for (const auto& f : result->before) {
    DataFileMeta upgraded = f;
    upgraded.level = level;
    result->after.push_back(std::move(upgraded));
  }
  return Status::OK();
}

}  // namespace

Result<LookupOptions> LookupOptionsOf(const CoreOptions& options, const std::string& table_name) {
  LookupOptions o;
  o.first_row = options.merge_engine() == MergeEngine::kFirstRow;
  o.produce_changelog = options.changelog_producer() == ChangelogProducer::kLookup;
  o.full_changelog = options.changelog_producer() == ChangelogProducer::kFullCompaction;
  o.deletion_vectors = options.deletion_vectors_enabled();
  TIDE_ASSIGN_OR_RETURN(bool force, BoolOption(options, "force-lookup", false, table_name));
  o.need_lookup = o.first_row || o.produce_changelog || o.deletion_vectors || force;
  if (o.first_row && o.deletion_vectors) {
    return Status::NotSupported(
        "table {}: the first-row merge engine does not use deletion vectors (it never deletes older rows), as in "
        "Java Paimon; unset 'deletion-vectors.enabled'",
        table_name);
  }
  TIDE_ASSIGN_OR_RETURN(o.bitmap64, BoolOption(options, "deletion-vectors.bitmap64", false, table_name));
  auto wait = options.Find("lookup-wait");
  if (!wait) wait = options.Find("changelog-producer.lookup-wait");
  if (wait && !Trim(*wait).empty()) {
    std::string t = ToLower(std::string(Trim(*wait)));
    if (t != "true" && t != "false") {
      return Status::InvalidArgument("table {}: option 'lookup-wait' = '{}' must be true or false", table_name, *wait);
    }
    o.wait = t == "true";
  }
  if (auto mode = options.Find("lookup-compact"); mode && !Trim(*mode).empty()) {
    std::string m = ToLower(std::string(Trim(*mode)));
    if (m == "gentle") {
      const int32_t trigger = options.num_sorted_run_compaction_trigger();
      int32_t interval = trigger * 2;
      if (auto n = options.Find("lookup-compact.max-interval"); n && !Trim(*n).empty()) {
        auto parsed = ParseInt64(Trim(*n), "lookup-compact.max-interval");
        if (!parsed.ok() || *parsed < 1 || *parsed > INT32_MAX) {
          return Status::InvalidArgument("table {}: option 'lookup-compact.max-interval' = '{}' must be a positive "
                                         "integer",
                                         table_name, *n);
        }
        interval = static_cast<int32_t>(*parsed);
      }
      o.gentle_interval = std::max(trigger, interval);
    } else if (m != "radical") {
      return Status::InvalidArgument("table {}: option 'lookup-compact' = '{}' must be radical or gentle", table_name,
                                     *mode);
    }
  }
  if (auto size = options.Find("lookup.cache-max-memory-size"); size && !Trim(*size).empty()) {
    TIDE_ASSIGN_OR_RETURN(o.cache_bytes, ParseMemorySize(*size, "lookup.cache-max-memory-size"));
  }
  TIDE_ASSIGN_OR_RETURN(o.row_deduplicate, BoolOption(options, "changelog-producer.row-deduplicate", false, table_name));
  if (auto ignore = options.Find("changelog-producer.row-deduplicate-ignore-fields"); ignore && !Trim(*ignore).empty()) {
    for (const std::string& f : SplitTrimmed(*ignore, ',')) {
      if (!f.empty()) o.row_deduplicate_ignore_fields.push_back(f);
    }
  }
  return o;
}

CompactionContext::CompactionContext(CoreOptions options) : options_(std::move(options)) {}
CompactionContext::~CompactionContext() = default;

Result<std::unique_ptr<CompactionContext>> CompactionContext::Create(FileSystem* fs, std::string table_path,
                                                                     std::string table_name, const TableSchema& schema,
                                                                     const CoreOptions& options,
                                                                     std::function<int64_t()> creation_time_ms) {
  std::unique_ptr<CompactionContext> c(new CompactionContext(options));
  c->fs_ = fs;
  c->table_name_ = std::move(table_name);
  c->schema_ = schema;
  TIDE_ASSIGN_OR_RETURN(c->write_context_.layout, DataFileLayout::Create(schema, options, c->table_name_));
  // Opened at the first compaction that needs it (not every writer compacts).
  // Compaction reads each input file once and then the file is deleted: DuckDB's cache of file
  // contents would only grow in a long-running writer.
  c->write_context_.db = DuckDB::OpenLater(":memory:", {{"enable_external_file_cache", "false"}});
  c->write_context_.creation_time_ms = std::move(creation_time_ms);
  TIDE_ASSIGN_OR_RETURN(c->lookup_, LookupOptionsOf(options, c->table_name_));
  if (c->lookup_.need_lookup) c->lookup_cache_ = std::make_unique<LookupFileCache>(c->lookup_.cache_bytes);
  c->dedup_ignored_.assign(schema.fields.size(), false);
  for (const std::string& name : c->lookup_.row_deduplicate_ignore_fields) {
    int idx = schema.FieldIndex(name);
    if (idx < 0) {
      return Status::InvalidArgument("table {}: option 'changelog-producer.row-deduplicate-ignore-fields' names column "
                                     "'{}', which does not exist",
                                     c->table_name_, name);
    }
    c->dedup_ignored_[static_cast<size_t>(idx)] = true;
  }
  c->schemas_ = std::make_unique<SchemaCache>(fs, table_path, schema);
  TIDE_ASSIGN_OR_RETURN(c->merge_, WriteMergeFunction::Create(schema, c->table_name_));
  for (const std::string& key : schema.TrimmedPrimaryKeys()) {
    int idx = schema.FieldIndex(key);
    if (idx < 0) return Status::InvalidArgument("table {}: primary key '{}' is not a column", c->table_name_, key);
    c->key_indices_.push_back(idx);
  }
  for (const std::string& field : options.sequence_fields()) {
    int idx = schema.FieldIndex(field);
    if (idx < 0) {
      return Status::InvalidArgument("table {}: option 'sequence.field' names column '{}', which does not exist",
                                     c->table_name_, field);
    }
    c->sequence_field_indices_.push_back(idx);
  }
  return c;
}

bool CompactionContext::SameForChangelog(const Row& before, const Row& after) const {
  if (!lookup_.row_deduplicate || before.size() != after.size()) return false;
  for (size_t i = 0; i < before.size(); ++i) {
    if (i < dedup_ignored_.size() && dedup_ignored_[i]) continue;
    if (CompareDatum(before[i], after[i]) != 0) return false;
  }
  return true;
}

MergeTreeCompactRewriter::MergeTreeCompactRewriter(CompactionContext* context, std::string bucket_dir,
                                                   int32_t max_level, LookupLevels* lookup, BucketedDvMaintainer* dv)
    : context_(context), bucket_dir_(bucket_dir), paths_(std::move(bucket_dir), context->options()),
      max_level_(max_level), lookup_(lookup), dv_(dv) {}

Result<CompactResult> MergeTreeCompactRewriter::Upgrade(int32_t output_level, const DataFileMeta& file) {
  const LookupOptions& lookup = context_->lookup();
  if (lookup.full_changelog && output_level == max_level_) {
    // A file moving up to the max level holds keys the max level did not: its records are inserts.
    std::vector<std::vector<SortedRun>> single(1, std::vector<SortedRun>(1));
    TIDE_ASSIGN_OR_RETURN(LevelFile level_file, LevelFile::Create(file, context_->write_context()->layout.key_types));
    single[0][0].files.push_back(std::move(level_file));
    return RewriteFullChangelog(/*drop_delete=*/true, /*rewrite=*/false, single);
  }
  if (lookup.need_lookup && file.level == 0) {
    // Java's LookupMergeTreeCompactRewriter.upgradeStrategy: a level-0 file always yields its
    // changelog (and its deletion-vector marks); it is rewritten when it must drop deletes under
    // deletion vectors, or when merging may change its records (not at the max level, and for engines
    // other than deduplicate without a sequence field).
    bool rewrite = true;
    if (lookup.deletion_vectors && (!file.delete_row_count || *file.delete_row_count > 0)) {
      rewrite = true;
    } else if (output_level == max_level_) {
      rewrite = false;
    } else if (context_->options().merge_engine() == MergeEngine::kDeduplicate &&
               context_->sequence_field_indices().empty()) {
      rewrite = false;
    }
    std::vector<std::vector<SortedRun>> single(1, std::vector<SortedRun>(1));
    TIDE_ASSIGN_OR_RETURN(LevelFile level_file, LevelFile::Create(file, context_->write_context()->layout.key_types));
    single[0][0].files.push_back(std::move(level_file));
    return RewriteLookup(output_level, lookup.deletion_vectors, rewrite, single);
  }
  CompactResult result;
  result.before.push_back(file);
  DataFileMeta upgraded = file;
  upgraded.level = output_level;
  result.after.push_back(std::move(upgraded));
  return result;
}

void MergeTreeCompactRewriter::DeleteWritten(const DataFileMeta& file) {
  context_->fs()->DeleteFile(JoinPath(bucket_dir_, file.file_name)).IgnoreError();
}

RollingDataFileWriter::Factory MergeTreeCompactRewriter::FileFactory(int32_t level, bool changelog) {
  CompactionContext* ctx = context_;
  return [this, ctx, level, changelog]() -> Result<std::unique_ptr<DataFileWriter>> {
    std::string path = JoinPath(bucket_dir_, changelog ? paths_.NewChangelogFileName() : paths_.NewDataFileName());
    // Changelog files carry the output level and FileSource APPEND, as Java's
    // createRollingChangelogFileWriter writes them.
    TIDE_ASSIGN_OR_RETURN(auto writer, KeyValueFileWriter::Create(ctx->write_context(), std::move(path), level,
                                                                  changelog ? FileSource::kAppend : FileSource::kCompact));
    return std::unique_ptr<DataFileWriter>(std::move(writer));
  };
}

void MergeTreeCompactRewriter::ForgetVectorsOf(const std::vector<std::vector<SortedRun>>& sections) {
  if (!dv_) return;
  for (const auto& section : sections) {
    for (const auto& run : section) {
      for (const auto& f : run.files) dv_->RemoveDeletionVectorOf(f.meta.file_name);
    }
  }
}

Result<CompactResult> MergeTreeCompactRewriter::Rewrite(int32_t output_level, bool drop_delete,
                                                        const std::vector<std::vector<SortedRun>>& sections) {
  CompactionContext* ctx = context_;
  if (ctx->lookup().full_changelog && output_level == max_level_) {
    return RewriteFullChangelog(drop_delete, /*rewrite=*/true, sections);
  }
  if (ctx->lookup().need_lookup && output_level > 0) {
    // Java's rewriteLookupChangelog: sections with level-0 files merge with lookups.
    for (const auto& section : sections) {
      for (const auto& run : section) {
        for (const auto& f : run.files) {
          if (f.meta.level == 0) return RewriteLookup(output_level, drop_delete, /*rewrite=*/true, sections);
        }
      }
    }
  }
  RollingDataFileWriter out(FileFactory(output_level, false), ctx->options().target_file_size(), ctx->fs());
  for (const auto& section : sections) {
    Status s = RewriteSection(section, drop_delete, &out);
    if (!s.ok()) {
      out.Abort();
      return s.WithContext(fmt::format("table {}: compacting bucket folder {}", ctx->table_name(), bucket_dir_));
    }
  }
  auto written = out.Finish();
  if (!written.ok()) {
    out.Abort();
    return written.status().WithContext(fmt::format("table {}: compacting bucket folder {}", ctx->table_name(), bucket_dir_));
  }
  CompactResult result;
  for (const auto& section : sections) {
    for (const auto& run : section) {
      for (const auto& f : run.files) result.before.push_back(f.meta);
    }
  }
  result.after = std::move(written).value();
  ForgetVectorsOf(sections);
  return result;
}

Result<std::unique_ptr<SortMergeHeap>> MergeTreeCompactRewriter::OpenSection(const std::vector<SortedRun>& section) {
  CompactionContext* ctx = context_;
  const std::vector<DataField>& fields = ctx->schema().fields;
  std::vector<std::unique_ptr<KeyValueCursor>> runs;
  for (const auto& run : section) {
    const std::vector<LevelFile>* files = &run.files;
    runs.push_back(std::make_unique<ConcatKeyValueCursor>(
        files->size(), [this, ctx, files, &fields](size_t i) -> Result<std::unique_ptr<KeyValueCursor>> {
          const DataFileMeta& meta = (*files)[i].meta;
          KeyValueFileReadSpec spec;
          spec.path = JoinPath(bucket_dir_, meta.file_name);
          TIDE_ASSIGN_OR_RETURN(spec.file_schema, ctx->schemas()->Get(meta.schema_id));
          spec.needed = &fields;
          spec.primary_key = true;
          spec.table_name = ctx->table_name();
          spec.database = &ctx->write_context()->db;  // no footer cache (DataFileReadOptions::database)
          if (dv_) {
            // Rows the bucket's deletion vectors mark are gone (Java reads compaction input with them).
            if (const DeletionVector* vector = dv_->VectorOf(meta.file_name)) {
              spec.skip_position = [vector](int64_t position) { return vector->IsDeleted(position); };
            }
          }
          TIDE_ASSIGN_OR_RETURN(auto reader, KeyValueFileReader::Open(std::move(spec)));
          return std::unique_ptr<KeyValueCursor>(std::make_unique<LevelCursor>(std::move(reader), meta.level));
        }));
  }
  auto heap = std::make_unique<SortMergeHeap>(std::move(runs), KeyComparator(ctx->key_indices()));
  TIDE_RETURN_IF_ERROR(heap->Init());
  return heap;
}

Result<std::optional<KeyValue>> MergeTreeCompactRewriter::MergeGroup(std::vector<KeyValue>* group) {
  CompactionContext* ctx = context_;
  if (group->size() == 1) return std::optional<KeyValue>(std::move((*group)[0]));
  const std::vector<int>& sequence_fields = ctx->sequence_field_indices();
  if (!sequence_fields.empty()) {
    // `sequence.field` orders a key's records before _SEQUENCE_NUMBER does, as the write buffer sorts.
    const bool descending = ctx->options().sequence_field_descending();
    std::stable_sort(group->begin(), group->end(), [&](const KeyValue& a, const KeyValue& b) {
      for (int i : sequence_fields) {
        int c = CompareDatum(a.row[static_cast<size_t>(i)], b.row[static_cast<size_t>(i)]);
        if (c != 0) return descending ? c > 0 : c < 0;
      }
      return a.sequence < b.sequence;
    });
  }
  return ctx->merge()->Merge(*group);
}

Result<std::optional<KeyValue>> MergeTreeCompactRewriter::MergeLookupGroup(std::vector<KeyValue>* group) {
  if (context_->lookup().first_row) return MergeGroup(group);
  // The lowest level above 0 holds the key's newest merged state; higher levels hold older ones.
  int32_t high = -1;
  for (const KeyValue& kv : *group) {
    if (kv.level > 0 && (high < 0 || kv.level < high)) high = kv.level;
  }
  if (high > 0) {
    bool kept_high = false;
    std::erase_if(*group, [&](const KeyValue& kv) {
      if (kv.level <= 0) return false;
      if (kv.level == high && !kept_high) return !(kept_high = true);
      return true;
    });
  }
  return MergeGroup(group);
}

Status MergeTreeCompactRewriter::RewriteSection(const std::vector<SortedRun>& section, bool drop_delete,
                                                RollingDataFileWriter* out) {
  TIDE_ASSIGN_OR_RETURN(auto heap, OpenSection(section));
  const bool lookup = context_->lookup().need_lookup;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, heap->NextKey(&group_));
    if (!more) return Status::OK();
    std::optional<KeyValue> merged;
    if (lookup) {
      TIDE_ASSIGN_OR_RETURN(merged, MergeLookupGroup(&group_));
    } else {
      TIDE_ASSIGN_OR_RETURN(merged, MergeGroup(&group_));
    }
    if (!merged) continue;
    if (drop_delete && IsRetract(merged->kind)) continue;
    TIDE_RETURN_IF_ERROR(out->Write(merged->row, merged->sequence, merged->kind));
  }
}

Result<CompactResult> MergeTreeCompactRewriter::RewriteLookup(int32_t output_level, bool drop_delete, bool rewrite,
                                                              const std::vector<std::vector<SortedRun>>& sections) {
  CompactionContext* ctx = context_;
  if (!lookup_) return Status::Internal("table {}: lookup compaction without lookup levels", ctx->table_name());
  std::optional<RollingDataFileWriter> out, changelog;
  if (rewrite) out.emplace(FileFactory(output_level, false), ctx->options().target_file_size(), ctx->fs());
  if (ctx->lookup().produce_changelog) {
    changelog.emplace(FileFactory(output_level, true), ctx->options().target_file_size(), ctx->fs());
  }
  auto fail = [&](Status s) {
    if (out) out->Abort();
    if (changelog) changelog->Abort();
    return s.WithContext(fmt::format("table {}: lookup compaction of bucket folder {}", ctx->table_name(), bucket_dir_));
  };
  for (const auto& section : sections) {
    Status s = LookupSection(section, output_level, drop_delete, out ? &*out : nullptr, changelog ? &*changelog : nullptr);
    if (!s.ok()) return fail(s);
  }
  CompactResult result;
  if (Status s = FinishFiles(sections, out, output_level, &result); !s.ok()) return fail(s);
  if (changelog) {
    auto written = changelog->Finish();
    if (!written.ok()) {
      if (out) {
        for (const auto& f : result.after) DeleteWritten(f);
      }
      return fail(written.status());
    }
    result.changelog = std::move(written).value();
  }
  if (rewrite) ForgetVectorsOf(sections);
  return result;
}

Result<CompactResult> MergeTreeCompactRewriter::RewriteFullChangelog(
    bool drop_delete, bool rewrite, const std::vector<std::vector<SortedRun>>& sections) {
  CompactionContext* ctx = context_;
  std::optional<RollingDataFileWriter> out;
  if (rewrite) out.emplace(FileFactory(max_level_, false), ctx->options().target_file_size(), ctx->fs());
  RollingDataFileWriter changelog(FileFactory(max_level_, true), ctx->options().target_file_size(), ctx->fs());
  auto fail = [&](Status s) {
    if (out) out->Abort();
    changelog.Abort();
    return s.WithContext(fmt::format("table {}: full compaction of bucket folder {}", ctx->table_name(), bucket_dir_));
  };
  auto write_changelog = [&changelog](const KeyValue& kv, ValueKind kind) -> Status {
    Row row = kv.row;
    return changelog.Write(row, kv.sequence, kind);
  };
  for (const auto& section : sections) {
    auto heap = OpenSection(section);
    if (!heap.ok()) return fail(heap.status());
    while (true) {
      auto more = (*heap)->NextKey(&group_);
      if (!more.ok()) return fail(more.status());
      if (!*more) break;
      std::optional<KeyValue> top;
      for (const KeyValue& kv : group_) {
        if (kv.level == max_level_) top = kv;
      }
      auto merged = MergeGroup(&group_);
      if (!merged.ok()) return fail(merged.status());
      const bool merged_live = *merged && !IsRetract((*merged)->kind);
      Status s;
      if (!top || IsRetract(top->kind)) {
        if (merged_live) s = write_changelog(**merged, ValueKind::kInsert);
      } else if (!merged_live) {
        s = write_changelog(*top, ValueKind::kDelete);
      } else if (group_.size() > 1 && !ctx->SameForChangelog(top->row, (*merged)->row)) {
        s = write_changelog(*top, ValueKind::kUpdateBefore);
        if (s.ok()) s = write_changelog(**merged, ValueKind::kUpdateAfter);
      }
      if (s.ok() && out && *merged && !(drop_delete && IsRetract((*merged)->kind))) {
        s = out->Write((*merged)->row, (*merged)->sequence, (*merged)->kind);
      }
      if (!s.ok()) return fail(s);
    }
  }
  CompactResult result;
  if (Status s = FinishFiles(sections, out, max_level_, &result); !s.ok()) return fail(s);
  auto written = changelog.Finish();
  if (!written.ok()) {
    if (out) {
      for (const auto& f : result.after) DeleteWritten(f);
    }
    return fail(written.status());
  }
  result.changelog = std::move(written).value();
  return result;
}

Status MergeTreeCompactRewriter::LookupSection(const std::vector<SortedRun>& section, int32_t output_level,
                                               bool drop_delete, RollingDataFileWriter* out,
                                               RollingDataFileWriter* changelog) {
  CompactionContext* ctx = context_;
  const LookupOptions& lookup = ctx->lookup();
  TIDE_ASSIGN_OR_RETURN(auto heap, OpenSection(section));
  auto write_changelog = [changelog](const KeyValue& kv, ValueKind kind) -> Status {
    Row row = kv.row;
    return changelog->Write(row, kv.sequence, kind);
  };
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, heap->NextKey(&group_));
    if (!more) return Status::OK();
    bool contains_level0 = false, contains_high = false;
    for (const KeyValue& kv : group_) {
      contains_level0 = contains_level0 || kv.level == 0;
      contains_high = contains_high || kv.level > 0;
    }
    if (lookup.first_row) {
      // Java's FirstRowMergeFunctionWrapper: a key some level already holds keeps that row.
      TIDE_ASSIGN_OR_RETURN(std::optional<KeyValue> first, MergeGroup(&group_));
      if (!first) continue;
      if (!contains_high) {
        TIDE_ASSIGN_OR_RETURN(auto hit, lookup_->Lookup(first->row, output_level + 1));
        if (hit) continue;
        if (changelog) TIDE_RETURN_IF_ERROR(write_changelog(*first, first->kind));
      }
      if (out && !(drop_delete && IsRetract(first->kind))) {
        TIDE_RETURN_IF_ERROR(out->Write(first->row, first->sequence, first->kind));
      }
      continue;
    }
    // Java's LookupChangelogMergeFunctionWrapper: the key's newest state above level 0 is the section's
    // lowest-level record, else the first found in the levels above the output.
    std::optional<KeyValue> before;
    int32_t high = -1;
    for (const KeyValue& kv : group_) {
      if (kv.level > 0 && (high < 0 || kv.level < high)) high = kv.level, before = kv;
    }
    if (!before) {
      TIDE_ASSIGN_OR_RETURN(auto hit, lookup_->Lookup(group_.front().row, output_level + 1));
      if (hit) {
        if (lookup.deletion_vectors) dv_->NotifyNewDeletion(hit->file_name, hit->position);
        before = hit->record;
        // Oldest first: by sequence field, then sequence number (MergeGroup sorts the former).
        auto at = std::find_if(group_.begin(), group_.end(),
                               [&](const KeyValue& kv) { return kv.sequence > before->sequence; });
        group_.insert(at, *before);
      }
    }
    TIDE_ASSIGN_OR_RETURN(std::optional<KeyValue> merged, MergeLookupGroup(&group_));
    if (changelog && contains_level0) {
      const bool before_live = before && !IsRetract(before->kind);
      const bool after_live = merged && !IsRetract(merged->kind);
      if (!before_live) {
        if (after_live) TIDE_RETURN_IF_ERROR(write_changelog(*merged, ValueKind::kInsert));
      } else if (!after_live) {
        TIDE_RETURN_IF_ERROR(write_changelog(*before, ValueKind::kDelete));
      } else if (!context_->SameForChangelog(before->row, merged->row)) {
        TIDE_RETURN_IF_ERROR(write_changelog(*before, ValueKind::kUpdateBefore));
        TIDE_RETURN_IF_ERROR(write_changelog(*merged, ValueKind::kUpdateAfter));
      }
    }
    if (!merged || !out) continue;
    if (drop_delete && IsRetract(merged->kind)) continue;
    TIDE_RETURN_IF_ERROR(out->Write(merged->row, merged->sequence, merged->kind));
  }
}

}  // namespace tide
