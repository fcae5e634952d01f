#include "tide/table/schema/schema_change.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "testing/temp_dir.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/table.h"

namespace tide {
namespace {

using ::testing::HasSubstr;

DataType T(const std::string& text) {
  Result<DataType> t = DataType::Parse(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().ToString();
  return t.ok() ? *t : DataType();
}

ColumnDefinition C(std::string name, const std::string& type) {
  ColumnDefinition c;
  c.name = std::move(name);
  c.type = T(type);
  return c;
}

std::string FixtureSchemaText(const std::string& table, int id = 0) {
  std::string path = testing::JavaFixtureWarehouse() + "/" + table + ".db/" + table + "/schema/schema-" + std::to_string(id);
  Result<std::string> text = FileSystem::Local()->ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

// pk_09's definition as Java's test created it (PAIMON_FORMAT.md §3 example).
Result<TableSchema> Pk09Like(std::vector<std::pair<std::string, std::string>> options = {
                                 {"bucket", "2"}, {"bucket-key", "f2"}, {"file.format", "parquet"}}) {
  return NewTableSchema({C("f0", "STRING"), C("f1", "INT"), C("f2", "INT"), C("f3", "DOUBLE")}, {"f1"},
                        {"f0", "f1", "f2"}, options, "db.t", 1);
}

std::vector<int32_t> Ids(const TableSchema& s) {
  std::vector<int32_t> ids;
  for (const DataField& f : s.fields) ids.push_back(f.id);
  return ids;
}

Result<TableSchema> Apply(const TableSchema& base, std::vector<SchemaChange> changes, bool has_snapshots = false) {
  return ApplySchemaChanges(base, changes, has_snapshots, "db.t", 2);
}

TEST(SchemaChangeTest, CreatedPkSchemaJsonEqualsJavaPk09) {
  std::string java = FixtureSchemaText("pk_09");
  Result<TableSchema> java_schema = TableSchema::FromJson(java, "pk_09 schema-0");
  ASSERT_TRUE(java_schema.ok());
  // Same definition as Java's: nullable columns, keys and options in the order the test gave them.
  Result<TableSchema> ours = NewTableSchema(
      {C("f0", "STRING"), C("f1", "INT"), C("f2", "INT"), C("f3", "DOUBLE")}, {"f1"}, {"f0", "f1", "f2"},
      {{"bucket", "2"}, {"bucket-key", "f2"}, {"manifest.format", "avro"}, {"file.format", "parquet"},
       {"deletion-vectors.enabled", "true"}, {"commit.force-compact", "true"}},
      "pk_09.pk_09", java_schema->time_millis);
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  EXPECT_EQ(ours->ToJson(), java);
}

TEST(SchemaChangeTest, CreatedAppendSchemaJsonEqualsJavaAppend09) {
  std::string java = FixtureSchemaText("append_09");
  Result<TableSchema> java_schema = TableSchema::FromJson(java, "append_09 schema-0");
  ASSERT_TRUE(java_schema.ok());
  Result<TableSchema> ours = NewTableSchema(
      {C("f0", "STRING"), C("f1", "INT"), C("f2", "INT"), C("f3", "DOUBLE")}, {"f1"}, {},
      {{"bucket", "2"}, {"bucket-key", "f2"}, {"manifest.format", "orc"}, {"file.format", "parquet"}},
      "append_09.append_09", java_schema->time_millis);
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  EXPECT_EQ(ours->ToJson(), java);
}

TEST(SchemaChangeTest, NestedFieldIdsArePreOrderAsJavaAssignsThem) {
  // Java's pk_table_nested_type: a ROW column takes its id before its children.
  Result<TableSchema> s = NewTableSchema(
      {C("a", "INT NOT NULL"), C("r", "ROW<x INT, y ROW<z STRING>, w BIGINT>"), C("b", "ARRAY<ROW<q INT>>")}, {},
      {"a"}, {}, "db.t", 1);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(Ids(*s), (std::vector<int32_t>{0, 1, 6}));
  const auto& r = s->fields[1].type.fields();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].id, 2);
  EXPECT_EQ(r[1].id, 3);
  EXPECT_EQ(r[1].type.fields()[0].id, 4);
  EXPECT_EQ(r[2].id, 5);
  EXPECT_EQ(s->fields[2].type.element().fields()[0].id, 7);
  EXPECT_EQ(s->highest_field_id, 7);
}

TEST(SchemaChangeTest, PrimaryKeyColumnsAreForcedNotNull) {
  Result<TableSchema> s = Pk09Like();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->fields[0].type.nullable());
  EXPECT_FALSE(s->fields[1].type.nullable());
  EXPECT_FALSE(s->fields[2].type.nullable());
  EXPECT_TRUE(s->fields[3].type.nullable());
}

TEST(SchemaChangeTest, CreateRefusesWhatJavaRefuses) {
  auto create = [](std::vector<ColumnDefinition> columns, std::vector<std::string> partitions,
                   std::vector<std::string> pk, std::vector<std::pair<std::string, std::string>> options) {
    return NewTableSchema(columns, partitions, pk, options, "db.t", 1).status();
  };
  std::vector<ColumnDefinition> cols = {C("k", "INT"), C("p", "INT"), C("v", "STRING"), C("a", "ARRAY<INT>")};
  struct Case {
    Status status;
    const char* message;
  };
  std::vector<Case> cases = {
      {create({C("k", "INT"), C("k", "STRING")}, {}, {}, {}), "column names must be unique"},
      {create(cols, {}, {"nope"}, {}), "primary key nope is not a column"},
      {create(cols, {"nope"}, {}, {}), "partition key nope is not a column"},
      {create(cols, {}, {"a"}, {}), "the type ArrayType in primary field a is unsupported"},
      {create(cols, {"p"}, {"p"}, {}), "should not be the same as the partition keys"},
      {create(cols, {}, {"k"}, {{"bucket", "0"}}), "it must be greater than 0"},
      {create(cols, {}, {"k"}, {{"bucket", "-2"}}), "it must be greater than 0"},
      {create(cols, {}, {"k"}, {{"bucket", "x"}}), "is not a number"},
      {create(cols, {}, {"k"}, {{"bucket-key", "k"}}), "cannot define 'bucket-key' in unaware or dynamic bucket mode"},
      {create(cols, {}, {"k"}, {{"bucket", "2"}, {"bucket-key", "v"}}), "should contain all bucket keys"},
      {create(cols, {"p"}, {"k", "p"}, {{"bucket", "2"}, {"bucket-key", "p"}}), "should not be in the partition keys"},
      {create(cols, {"p"}, {"k"}, {{"bucket", "2"}}), "cross-partition update"},
      {create(cols, {}, {}, {{"bucket", "2"}}), "needs a 'bucket-key' option"},
      {create(cols, {}, {"k"}, {{"merge-engine", "newest"}}), "unknown merge-engine 'newest'"},
      {create(cols, {}, {}, {{"changelog-producer", "input"}}), "without primary keys"},
      {create(cols, {}, {"k"}, {{"file.format", "orc"}}), "parquet only"},
      {create(cols, {}, {"k"}, {{"sequence.field", "ts"}}), "sequence field ts"},
      {create(cols, {}, {"k"}, {{"primary-key", "k"}}), "not as an option"},
      {create({C("_KEY_k", "INT")}, {}, {}, {}), "starts with _KEY_"},
      {create({C("_SEQUENCE_NUMBER", "BIGINT")}, {}, {}, {}), "system column"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(c.status.ok()) << c.message;
    EXPECT_THAT(c.status.message(), HasSubstr(c.message));
    EXPECT_THAT(c.status.message(), HasSubstr("db.t"));
  }
  // And what Java accepts: a fixed-bucket PK table whose bucket key is a subset of the trimmed key,
  // and a cross-partition update table in dynamic bucket mode.
  EXPECT_TRUE(create(cols, {"p"}, {"k", "p"}, {{"bucket", "4"}, {"bucket-key", "k"}}).ok());
  EXPECT_TRUE(create(cols, {"p"}, {"k"}, {}).ok());
  EXPECT_TRUE(create(cols, {}, {}, {{"bucket", "3"}, {"bucket-key", "v"}}).ok());
}

TEST(SchemaChangeTest, AddColumnTakesNextIdAndKeepsHighestFieldId) {
  Result<TableSchema> base = Pk09Like();
  ASSERT_TRUE(base.ok());
  Result<TableSchema> next = Apply(*base, {SchemaChange::AddColumn("g", T("BIGINT")),
                                           SchemaChange::AddColumn("h", T("ROW<x INT, y INT>"), ColumnPosition::First()),
                                           SchemaChange::AddColumn("i", T("STRING"), ColumnPosition::After("f0"))});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->id, 1);
  EXPECT_EQ(next->time_millis, 2);
  EXPECT_EQ(next->FieldNames(), (std::vector<std::string>{"h", "f0", "i", "f1", "f2", "f3", "g"}));
  EXPECT_EQ(Ids(*next), (std::vector<int32_t>{5, 0, 8, 1, 2, 3, 4}));
  EXPECT_EQ(next->fields[0].type.fields()[0].id, 6);
  EXPECT_EQ(next->fields[0].type.fields()[1].id, 7);
  EXPECT_EQ(next->highest_field_id, 8);
}

TEST(SchemaChangeTest, AddColumnRefusals) {
  Result<TableSchema> base = Pk09Like();
  ASSERT_TRUE(base.ok());
  EXPECT_THAT(Apply(*base, {SchemaChange::AddColumn("f3", T("INT"))}).status().message(), HasSubstr("already exists"));
  EXPECT_THAT(Apply(*base, {SchemaChange::AddColumn("g", T("INT NOT NULL"))}).status().message(),
              HasSubstr("cannot be NOT NULL"));
  EXPECT_THAT(Apply(*base, {SchemaChange::AddColumn("g", T("INT"), ColumnPosition::After("zz"))}).status().message(),
              HasSubstr("zz (the AFTER reference) does not exist"));
}

TEST(SchemaChangeTest, RenameKeepsIdAndFollowsKeysAndOptions) {
  Result<TableSchema> base = Pk09Like();
  ASSERT_TRUE(base.ok());
  Result<TableSchema> next = Apply(*base, {SchemaChange::RenameColumn("f2", "k2"), SchemaChange::RenameColumn("f3", "v")});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->FieldNames(), (std::vector<std::string>{"f0", "f1", "k2", "v"}));
  EXPECT_EQ(Ids(*next), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(next->primary_keys, (std::vector<std::string>{"f0", "f1", "k2"}));
  EXPECT_EQ(next->Option("bucket-key", ""), "k2");
  EXPECT_EQ(next->highest_field_id, 3);

  EXPECT_THAT(Apply(*base, {SchemaChange::RenameColumn("f1", "p")}).status().message(),
              HasSubstr("cannot rename partition column f1"));
  EXPECT_THAT(Apply(*base, {SchemaChange::RenameColumn("f0", "f3")}).status().message(),
              HasSubstr("column f3 already exists"));
  EXPECT_THAT(Apply(*base, {SchemaChange::RenameColumn("zz", "y")}).status().message(),
              HasSubstr("column zz does not exist"));
}

TEST(SchemaChangeTest, UpdateColumnNullabilityAsJava) {
  Result<TableSchema> base =
      NewTableSchema({C("k", "BIGINT"), C("n", "INT NOT NULL"), C("s", "STRING")}, {}, {"k"}, {}, "db.t", 1);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  Result<TableSchema> relaxed = Apply(*base, {SchemaChange::UpdateColumnNullability("n", true)});
  ASSERT_TRUE(relaxed.ok()) << relaxed.status().ToString();
  EXPECT_TRUE(relaxed->fields[1].type.nullable());
  EXPECT_EQ(relaxed->fields[1].id, 1);
  EXPECT_EQ(relaxed->id, base->id + 1);
  // The schema file says INT where it said INT NOT NULL (the key k is BIGINT NOT NULL), as Java writes it.
  EXPECT_NE(base->ToJson().find("\"type\" : \"INT NOT NULL\""), std::string::npos);
  EXPECT_EQ(relaxed->ToJson().find("\"type\" : \"INT NOT NULL\""), std::string::npos);
  Result<TableSchema> reread = TableSchema::FromJson(relaxed->ToJson(), "relaxed");
  ASSERT_TRUE(reread.ok());
  EXPECT_TRUE(reread->fields[1].type.nullable());

  EXPECT_THAT(Apply(*base, {SchemaChange::UpdateColumnNullability("k", true)}).status().message(),
              HasSubstr("cannot change nullability of primary key column k"));
  EXPECT_THAT(Apply(*base, {SchemaChange::UpdateColumnNullability("s", false)}).status().message(),
              HasSubstr("cannot change column s from nullable to NOT NULL"));
  Result<TableSchema> allowing =
      Apply(*base, {SchemaChange::SetOption("alter-column-null-to-not-null.disabled", "false"),
                    SchemaChange::UpdateColumnNullability("s", false)});
  ASSERT_TRUE(allowing.ok()) << allowing.status().ToString();
  EXPECT_FALSE(allowing->fields[2].type.nullable());
  EXPECT_THAT(Apply(*base, {SchemaChange::UpdateColumnNullability("zz", true)}).status().message(),
              HasSubstr("column zz does not exist"));
}

TEST(SchemaChangeTest, DropNeverReusesTheId) {
  Result<TableSchema> base = Pk09Like();
  ASSERT_TRUE(base.ok());
  Result<TableSchema> dropped = Apply(*base, {SchemaChange::DropColumn("f3")});
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_EQ(Ids(*dropped), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(dropped->highest_field_id, 3);
  Result<TableSchema> readded = Apply(*dropped, {SchemaChange::AddColumn("f3", T("DOUBLE"))});
  ASSERT_TRUE(readded.ok());
  EXPECT_EQ(readded->fields.back().id, 4);
  EXPECT_EQ(readded->id, 2);

  EXPECT_THAT(Apply(*base, {SchemaChange::DropColumn("f1")}).status().message(),
              HasSubstr("cannot drop partition key column f1"));
  EXPECT_THAT(Apply(*base, {SchemaChange::DropColumn("f0")}).status().message(),
              HasSubstr("cannot drop primary key column f0"));
  Result<TableSchema> single = NewTableSchema({C("only", "INT")}, {}, {}, {}, "db.t", 1);
  ASSERT_TRUE(single.ok());
  EXPECT_THAT(Apply(*single, {SchemaChange::DropColumn("only")}).status().message(), HasSubstr("cannot drop all columns"));
}

TEST(SchemaChangeTest, UpdateColumnTypeFollowsJavaCastRules) {
  Result<TableSchema> base = NewTableSchema(
      {C("k", "INT"), C("p", "INT"), C("i", "INT"), C("b", "BIGINT"), C("s", "STRING"),
       C("n", "INT NOT NULL"), C("d", "DECIMAL(10, 2)")},
      {"p"}, {"k", "p"}, {}, "db.t", 1);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  // Widening.
  Result<TableSchema> widened = Apply(*base, {SchemaChange::UpdateColumnType("i", T("BIGINT")),
                                              SchemaChange::UpdateColumnType("d", T("DECIMAL(12, 3)"))});
  ASSERT_TRUE(widened.ok()) << widened.status().ToString();
  EXPECT_EQ(widened->fields[2].type.ToString(), "BIGINT");
  EXPECT_EQ(widened->fields[2].id, 2);
  EXPECT_EQ(widened->fields[6].type.ToString(), "DECIMAL(12, 3)");
  // Explicit (narrowing, to and from strings) allowed by default...
  EXPECT_TRUE(Apply(*base, {SchemaChange::UpdateColumnType("b", T("INT"))}).ok());
  EXPECT_TRUE(Apply(*base, {SchemaChange::UpdateColumnType("i", T("STRING"))}).ok());
  // ...but not when disable-explicit-type-casting is set; widening still is.
  Result<TableSchema> strict = Apply(*base, {SchemaChange::SetOption("disable-explicit-type-casting", "true")});
  ASSERT_TRUE(strict.ok());
  Status narrowing = Apply(*strict, {SchemaChange::UpdateColumnType("b", T("INT"))}).status();
  EXPECT_THAT(narrowing.message(), HasSubstr("column type b[BIGINT] cannot be converted to INT"));
  EXPECT_THAT(narrowing.message(), HasSubstr("disable-explicit-type-casting"));
  EXPECT_TRUE(Apply(*strict, {SchemaChange::UpdateColumnType("i", T("BIGINT"))}).ok());
  // NOT NULL is kept; nullable to NOT NULL is refused.
  Result<TableSchema> kept = Apply(*base, {SchemaChange::UpdateColumnType("n", T("BIGINT"))});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->fields[5].type.ToString(), "BIGINT NOT NULL");
  EXPECT_THAT(Apply(*base, {SchemaChange::UpdateColumnType("i", T("BIGINT NOT NULL"))}).status().message(),
              HasSubstr("from nullable to NOT NULL"));
  // Keys.
  EXPECT_THAT(Apply(*base, {SchemaChange::UpdateColumnType("p", T("BIGINT"))}).status().message(),
              HasSubstr("cannot update the type of partition column p"));
  EXPECT_THAT(Apply(*base, {SchemaChange::UpdateColumnType("k", T("BIGINT"))}).status().message(),
              HasSubstr("primary key column k"));
  // No cast at all.
  EXPECT_THAT(Apply(*base, {SchemaChange::UpdateColumnType("i", T("ARRAY<INT>"))}).status().message(),
              HasSubstr("cannot change the type of nested column"));
}

TEST(SchemaChangeTest, UpdateColumnPositionOnlyMovesFields) {
  Result<TableSchema> base = Pk09Like();
  ASSERT_TRUE(base.ok());
  Result<TableSchema> moved = Apply(*base, {SchemaChange::UpdateColumnPosition("f3", ColumnPosition::First()),
                                            SchemaChange::UpdateColumnPosition("f0", ColumnPosition::After("f2")),
                                            SchemaChange::UpdateColumnPosition("f1", ColumnPosition::Last())});
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(moved->FieldNames(), (std::vector<std::string>{"f3", "f2", "f0", "f1"}));
  EXPECT_EQ(Ids(*moved), (std::vector<int32_t>{3, 2, 0, 1}));
  EXPECT_EQ(moved->highest_field_id, 3);
  EXPECT_THAT(Apply(*base, {SchemaChange::UpdateColumnPosition("f0", ColumnPosition::After("f0"))}).status().message(),
              HasSubstr("after itself"));
}

TEST(SchemaChangeTest, OptionsSetResetAndImmutables) {
  Result<TableSchema> base = Pk09Like();
  ASSERT_TRUE(base.ok());
  Result<TableSchema> next = Apply(*base, {SchemaChange::SetOption("snapshot.num-retained.max", "10"),
                                           SchemaChange::RemoveOption("file.format")});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->Option("snapshot.num-retained.max", ""), "10");
  EXPECT_FALSE(next->FindOption("file.format").has_value());
  EXPECT_EQ(next->option_order, (std::vector<std::string>{"bucket", "bucket-key", "snapshot.num-retained.max"}));

  for (const char* key : {"bucket-key", "merge-engine", "sequence.field", "primary-key", "partition"}) {
    Status s = Apply(*base, {SchemaChange::SetOption(key, "f0")}).status();
    EXPECT_TRUE(s.IsNotSupported()) << key;
    EXPECT_THAT(s.message(), HasSubstr(std::string("change of option '") + key + "' is not supported"));
    EXPECT_TRUE(Apply(*base, {SchemaChange::RemoveOption(key)}).status().IsNotSupported()) << key;
  }
  // bucket: a fixed number may change while the table is empty; never from or to -1; never reset.
  EXPECT_TRUE(Apply(*base, {SchemaChange::SetOption("bucket", "4")}).ok());
  EXPECT_THAT(Apply(*base, {SchemaChange::SetOption("bucket", "4")}, /*has_snapshots=*/true).status().message(),
              HasSubstr("holds data"));
  EXPECT_THAT(Apply(*base, {SchemaChange::SetOption("bucket", "-1")}).status().message(),
              HasSubstr("cannot change bucket to -1"));
  EXPECT_THAT(Apply(*base, {SchemaChange::RemoveOption("bucket")}).status().message(),
              HasSubstr("cannot reset option 'bucket'"));
  Result<TableSchema> dynamic = NewTableSchema({C("k", "INT")}, {}, {"k"}, {}, "db.t", 1);
  ASSERT_TRUE(dynamic.ok());
  EXPECT_THAT(Apply(*dynamic, {SchemaChange::SetOption("bucket", "3")}).status().message(),
              HasSubstr("cannot change bucket when it is -1"));
  // The result is validated as a whole: a change that would break a rule is refused.
  EXPECT_THAT(Apply(*base, {SchemaChange::SetOption("file.format", "orc")}).status().message(),
              HasSubstr("parquet only"));
}

// Forwards to the local file system, but lets a rival writer create `schema-1` just before this
// writer renames its own file into place: the race two ALTERs can run.
class RacingFileSystem final : public FileSystem {
 public:
  explicit RacingFileSystem(FileSystem* base) : base_(base) {}
  Result<std::string> ReadFile(const std::string& path) override { return base_->ReadFile(path); }
  Result<std::string> ReadRange(const std::string& path, uint64_t offset, uint64_t length) override {
    return base_->ReadRange(path, offset, length);
  }
  Result<bool> Exists(const std::string& path) override { return base_->Exists(path); }
  Result<FileInfo> Stat(const std::string& path) override { return base_->Stat(path); }
  Result<std::vector<FileInfo>> ListDir(const std::string& path) override { return base_->ListDir(path); }
  Status MakeDirs(const std::string& path) override { return base_->MakeDirs(path); }
  Status DeleteFile(const std::string& path) override { return base_->DeleteFile(path); }
  Status DeleteRecursively(const std::string& path) override { return base_->DeleteRecursively(path); }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    return base_->NewWritableFile(path);
  }
  Status RenameNoReplace(const std::string& from, const std::string& to) override {
    if (!raced_ && EndsWithSchema1(to)) {
      raced_ = true;
      TIDE_RETURN_IF_ERROR(base_->WriteFileExclusive(to, "{\"rival\": true}"));
    }
    return base_->RenameNoReplace(from, to);
  }
  Status WriteFileAtomic(const std::string& path, std::string_view data) override {
    return base_->WriteFileAtomic(path, data);
  }

 private:
  static bool EndsWithSchema1(const std::string& path) {
    return path.size() >= 9 && path.compare(path.size() - 9, 9, "/schema-1") == 0;
  }
  FileSystem* base_;
  bool raced_ = false;
};

std::string CopyFixtureTable(const std::string& table, const std::string& warehouse) {
  std::string from = testing::JavaFixtureWarehouse() + "/" + table + ".db/" + table;
  std::string to = warehouse + "/" + table + ".db/" + table;
  std::filesystem::create_directories(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
  return to;
}

TEST(SchemaChangeTest, CommitWritesNextSchemaAndReportsAConcurrentAlterAsConflict) {
  testing::TempDir dir;
  std::string path = CopyFixtureTable("append_09", dir.path());
  Result<TableSchema> written =
      CommitSchemaChanges(FileSystem::Local(), path, "append_09.append_09", {SchemaChange::AddColumn("f4", T("INT"))});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->id, 1);
  Result<TableSchema> reread = SchemaManager(FileSystem::Local(), path).Latest();
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ(reread->ToJson(), written->ToJson());
  EXPECT_EQ(reread->fields.back().id, 4);
  EXPECT_EQ(reread->highest_field_id, 4);

  testing::TempDir dir2;
  std::string raced_path = CopyFixtureTable("append_09", dir2.path());
  RacingFileSystem racing(FileSystem::Local());
  Result<TableSchema> lost =
      CommitSchemaChanges(&racing, raced_path, "append_09.append_09", {SchemaChange::AddColumn("f4", T("INT"))});
  ASSERT_FALSE(lost.ok());
  EXPECT_TRUE(lost.status().IsConflict()) << lost.status().ToString();
  EXPECT_THAT(lost.status().message(), HasSubstr("run the ALTER again"));
  // The rival's file stands, untouched.
  Result<std::string> rival = FileSystem::Local()->ReadFile(raced_path + "/schema/schema-1");
  ASSERT_TRUE(rival.ok());
  EXPECT_EQ(*rival, "{\"rival\": true}");
}

Result<std::vector<std::pair<Row, std::vector<DataField>>>> ReadAll(const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(auto table, Table::Open(FileSystem::Local(), path, "db.t"));
  TIDE_ASSIGN_OR_RETURN(auto reader, table->NewReader(ReadOptions{}));
  std::vector<std::pair<Row, std::vector<DataField>>> out;
  std::vector<Row> rows;
  while (true) {
    rows.clear();
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1000, &rows));
    if (!more) break;
    for (Row& r : rows) out.emplace_back(std::move(r), reader->fields());
  }
  return out;
}

TEST(SchemaChangeTest, JavaTableReadsThroughTheAlteredSchema) {
  testing::TempDir dir;
  // pk_09: Avro manifests (append_09's are ORC, which Tide does not read), deletion vectors.
  std::string path = CopyFixtureTable("pk_09", dir.path());
  auto before = ReadAll(path);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_FALSE(before->empty());
  Result<TableSchema> altered = CommitSchemaChanges(
      FileSystem::Local(), path, "pk_09.pk_09",
      {SchemaChange::RenameColumn("f3", "score"), SchemaChange::AddColumn("note", T("STRING"), ColumnPosition::After("f0"))});
  ASSERT_TRUE(altered.ok()) << altered.status().ToString();
  auto after = ReadAll(path);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_EQ(after->size(), before->size());
  const std::vector<DataField>& fields = after->front().second;
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[1].name, "note");
  EXPECT_EQ(fields[4].id, 3);
  EXPECT_EQ(fields[4].name, "score");

  // Each old row, seen through the new schema: the same values by field id, NULL for the new column.
  std::vector<std::string> expected, actual;
  for (const auto& [row, old_fields] : *before) {
    expected.push_back("(" + DatumToString(row[0], old_fields[0].type) + ", " + DatumToString(Datum(), DataType::String()) +
                       ", " + DatumToString(row[1], old_fields[1].type) + ", " + DatumToString(row[2], old_fields[2].type) +
                       ", " + DatumToString(row[3], old_fields[3].type) + ")");
  }
  for (const auto& [row, new_fields] : *after) actual.push_back(RowToString(row, new_fields));
  std::sort(expected.begin(), expected.end());
  std::sort(actual.begin(), actual.end());
  EXPECT_EQ(actual, expected);
}

}  // namespace
}  // namespace tide
