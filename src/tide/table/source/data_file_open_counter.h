// DataFileOpenCounter: counts the data files table readers open, process-wide, so that tests and
// benchmarks can prove what a read skipped (a point lookup opens one bucket's files, a partition filter
// one partition's). Every file SnapshotTableReader hands to a Parquet reader (columnar or row path,
// including a lookup's probes) counts once per opening.
//
// Thread-safety: all functions may be called from any thread. A DataFileOpenRecorder sees the files
// opened by every thread while it lives; two recorders at once each see all of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tide {

// Called by readers when they open a data file.
void CountDataFileOpen(const std::string& path);
// The data files opened since the process started.
int64_t DataFilesOpened();

// Records the paths of the data files opened while it lives.
class DataFileOpenRecorder {
 public:
  DataFileOpenRecorder();
  ~DataFileOpenRecorder();
  DataFileOpenRecorder(const DataFileOpenRecorder&) = delete;
  DataFileOpenRecorder& operator=(const DataFileOpenRecorder&) = delete;

  // The paths opened so far, in the order opened.
  std::vector<std::string> paths() const;

 private:
  size_t id_;
};

}  // namespace tide
