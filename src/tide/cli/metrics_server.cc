#include "tide/cli/metrics_server.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include <httplib.h>

#include "tide/base/thread_name.h"
#include "tide/cli/prometheus_text.h"
#include "tide/cli/status_json.h"
#include "tide/cli/status_page_assets.h"

namespace tide::cli {
namespace {

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& bind_address, int port,
                                                            std::shared_ptr<const SyncProgress> progress) {
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("--metrics-port {} is not a TCP port (0..65535; 0 picks a free one)", port);
  }
  std::unique_ptr<MetricsServer> s(new MetricsServer());
  s->bind_address_ = bind_address;
  s->progress_ = std::move(progress);
  s->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *s->server_;
  // A scrape and a page or two at a time.
  server.new_task_queue = [] { return new httplib::ThreadPool(4); };
  // An idle keep-alive connection (a page left open) holds a pool thread: let it go after a second.
  server.set_keep_alive_timeout(1);
  // httplib's default sets SO_REUSEPORT, which would let a second sync share the port unnoticed.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  MetricsServer* self = s.get();
  server.Get("/metrics", [self](const httplib::Request&, httplib::Response& res) {
    res.set_content(RenderPrometheusText(self->progress_->Snapshot(), NowUnixMs()),
                    std::string(kPrometheusTextContentType));
  });
  server.Get("/api/status", [self](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(RenderStatusJson(self->progress_->Snapshot(), self->history_.Samples(), NowUnixMs()),
                    "application/json");
  });
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(kStatusPageHtml), "text/html; charset=utf-8");
  });

  errno = 0;
  if (port == 0) {
    s->port_ = server.bind_to_any_port(bind_address);
  } else {
    s->port_ = server.bind_to_port(bind_address, port) ? port : -1;
  }
  if (s->port_ < 0) {
    const int error = errno;
    const std::string address = bind_address + ":" + std::to_string(port);
    if (error == EADDRINUSE) {
      return Status::Unavailable(
          "cannot serve metrics on {}: the port is in use; choose another --metrics-port (0 picks a free one)", address);
    }
    return Status::Unavailable(
        "cannot serve metrics on {}{}: --metrics-bind must be an address of this machine (default 127.0.0.1) and "
        "--metrics-port a free port (0 picks one)",
        address, error != 0 ? std::string(" (") + std::strerror(error) + ")" : std::string());
  }
  s->listener_ = std::thread([self] {
    SetCurrentThreadName("tide-metrics");
    self->server_->listen_after_bind();
  });
  // stop() is a no-op until the listener runs: wait for it, so the destructor always ends it.
  for (int i = 0; i < 5000 && !server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s->sampler_ = std::thread([self] { self->Sample(); });
  return s;
}

void MetricsServer::Sample() {
  SetCurrentThreadName("tide-sampler");
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    history_.Record(progress_->Snapshot(), NowUnixMs());
    lock.lock();
    wake_.wait_for(lock, kSampleInterval, [this] { return stopping_; });
  }
}

MetricsServer::~MetricsServer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (sampler_.joinable()) sampler_.join();
  if (server_) server_->stop();
  if (listener_.joinable()) listener_.join();
}

std::string MetricsServer::url() const {
  const bool v6 = bind_address_.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + bind_address_ + "]" : bind_address_) + ":" + std::to_string(port_);
}

}  // namespace tide::cli
