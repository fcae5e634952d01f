#include "testing/temp_dir.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace tide::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/tide-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + tmpl);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string SourceDir() {
  const char* dir = std::getenv("TIDE_SOURCE_DIR");
  if (dir && *dir) return dir;
  return TIDE_SOURCE_DIR_FALLBACK;
}

std::string BuildDir() {
  const char* dir = std::getenv("TIDE_BUILD_DIR");
  if (dir && *dir) return dir;
  return TIDE_BUILD_DIR_FALLBACK;
}

std::string JavaFixtureWarehouse() { return SourceDir() + "/tests/fixtures/paimon-java/parquet"; }

}  // namespace tide::testing
