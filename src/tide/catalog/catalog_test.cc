#include "tide/catalog/catalog.h"

#include <gtest/gtest.h>

#include "tide/table/schema/schema_manager.h"
#include "testing/temp_dir.h"

namespace tide {
namespace {

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = Catalog::Open(FileSystem::Local(), dir_.path());
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
    ASSERT_TRUE(catalog_->CreateDatabase("shop", false).ok());
  }

  Result<TableSchema> CreateOrders() const {
    return catalog_->CreateTable(id_, {{"id", DataType::BigInt(false), std::nullopt}, {"note", DataType::String(), std::nullopt}}, {},
                                 {"id"}, {{"bucket", "1"}});
  }

  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
  TableIdentifier id_{"shop", "orders"};
};

TEST_F(CatalogTest, CreatedTableIsListedAndOpens) {
  ASSERT_TRUE(CreateOrders().ok());
  EXPECT_EQ(catalog_->ListTables("shop").ValueOr({}), std::vector<std::string>{"orders"});
  EXPECT_TRUE(catalog_->GetTable(id_).ok());
  EXPECT_TRUE(CreateOrders().status().IsAlreadyExists());
}

// A create killed between making schema/ and writing schema-0 leaves an empty folder (perhaps with a
// temporary file): that is no table, so it is not listed, does not open, and can be created again.
TEST_F(CatalogTest, SchemaFolderWithoutSchemaFileIsNoTable) {
  const std::string path = catalog_->TablePath(id_);
  ASSERT_TRUE(FileSystem::Local()->MakeDirs(path + "/schema").ok());
  ASSERT_TRUE(FileSystem::Local()->WriteFileAtomic(path + "/schema/.schema-0.tmp", "{\"half\":").ok());
  EXPECT_FALSE(SchemaManager(FileSystem::Local(), path).Exists().ValueOr(true));
  EXPECT_TRUE(catalog_->ListTables("shop").ValueOr({"error"}).empty());
  auto opened = catalog_->GetTable(id_);
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(opened.status().IsNotFound()) << opened.status().ToString();
  EXPECT_TRUE(catalog_->DropTable(id_).IsNotFound());
  auto created = CreateOrders();
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(SchemaManager(FileSystem::Local(), path).Exists().ValueOr(false));
  EXPECT_EQ(catalog_->ListTables("shop").ValueOr({}), std::vector<std::string>{"orders"});
}

}  // namespace
}  // namespace tide
