// Test helpers: a temporary directory removed at scope exit, and paths to the source tree's fixtures.
// Thread-safety: a TempDir belongs to one test.
#pragma once

#include <string>

namespace tide::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The repository root (TIDE_SOURCE_DIR, set by CTest; falls back to the compiled-in source dir).
std::string SourceDir();
// The build directory (TIDE_BUILD_DIR), where the `tide` binary is.
std::string BuildDir();
// `tests/fixtures/paimon-java/parquet`: the warehouse of Java-written tables kept in the repository.
std::string JavaFixtureWarehouse();

}  // namespace tide::testing
