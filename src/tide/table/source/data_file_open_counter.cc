#include "tide/table/source/data_file_open_counter.h"

#include <atomic>
#include <map>
#include <mutex>

namespace tide {

namespace {

std::atomic<int64_t> g_opened{0};
std::atomic<int> g_recorders{0};

struct Recorders {
  std::mutex mu;
  size_t next_id = 0;
  std::map<size_t, std::vector<std::string>> paths;
};

Recorders& TheRecorders() {
  static Recorders* recorders = new Recorders();  // never destroyed: readers may count at exit
  return *recorders;
}

}  // namespace

void CountDataFileOpen(const std::string& path) {
  g_opened.fetch_add(1, std::memory_order_relaxed);
  if (g_recorders.load(std::memory_order_acquire) == 0) return;
  Recorders& r = TheRecorders();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& [id, paths] : r.paths) paths.push_back(path);
}

int64_t DataFilesOpened() { return g_opened.load(std::memory_order_relaxed); }

DataFileOpenRecorder::DataFileOpenRecorder() {
  Recorders& r = TheRecorders();
  std::lock_guard<std::mutex> lock(r.mu);
  id_ = r.next_id++;
  r.paths[id_];
  g_recorders.fetch_add(1, std::memory_order_release);
}

DataFileOpenRecorder::~DataFileOpenRecorder() {
  Recorders& r = TheRecorders();
  std::lock_guard<std::mutex> lock(r.mu);
  r.paths.erase(id_);
  g_recorders.fetch_sub(1, std::memory_order_release);
}

std::vector<std::string> DataFileOpenRecorder::paths() const {
  Recorders& r = TheRecorders();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.paths.at(id_);
}

}  // namespace tide
