// MetricsServer: the HTTP server of `tide sync postgres --metrics-port`, on its own threads while the
// sync runs. It answers
//   GET /metrics     Prometheus text format (cli/prometheus_text.h)
//   GET /            the status page (cli/status_page_assets.h)
//   GET /api/status  the page's JSON (cli/status_json.h)
// from snapshots of the sync's SyncProgress; a scrape never touches PostgreSQL or the lake. A sampler
// thread records lag and freshness every kSampleInterval for the page's charts (kHistory of them).
//
// Invariant: between Start() and destruction the server listens on address(); the destructor stops
// listening and joins every thread it started (RAII). Nothing secret is served: SyncProgress holds no
// conninfo.
// Thread-safety: the object is created and destroyed by one thread; its handlers run on its own pool.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "tide/base/result.h"
#include "tide/cli/status_history.h"
#include "tide/sync/sync_progress.h"

namespace httplib {
class Server;
}

namespace tide::cli {

class MetricsServer {
 public:
  static constexpr std::chrono::seconds kSampleInterval{2};
  static constexpr size_t kHistory = 300;  // ten minutes of samples

  // Listens on `bind_address`:`port` (port 0: a free port the system picks). InvalidArgument for a port
  // outside 0..65535; Unavailable, naming the address and the fix, when it cannot listen there (the
  // port is in use, or the address is not this machine's).
  static Result<std::unique_ptr<MetricsServer>> Start(const std::string& bind_address, int port,
                                                      std::shared_ptr<const SyncProgress> progress);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }
  // "http://ADDR:PORT" (IPv6 addresses in brackets).
  std::string url() const;

 private:
  MetricsServer() = default;
  void Sample();

  std::string bind_address_;
  int port_ = 0;
  std::shared_ptr<const SyncProgress> progress_;
  StatusHistory history_{kHistory};
  std::unique_ptr<httplib::Server> server_;
  std::thread listener_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread sampler_;
};

}  // namespace tide::cli
