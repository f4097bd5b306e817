// MonitorServer (http_server.hpp): one libmicrohttpd daemon with its own
// polling thread, bounded connections and timeouts, and the routes of the
// run monitor. The token is checked before anything else of a request is
// looked at (its route, its body); nothing thrown crosses into the C library.
#include "protocols/monitor/http_server.hpp"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "protocols/monitor/control.hpp"
#include "protocols/monitor/http_reply.hpp"
#include "protocols/monitor/page_assets.hpp"

namespace evb {
namespace {

constexpr unsigned kConnectionLimit = 32;
constexpr unsigned kConnectionTimeoutS = 10;
constexpr size_t kConnectionMemory = 16 * 1024;
// A chunked body (no Content-Length) over kControlBodyMax is dropped as it
// arrives and refused at its end; past this much the connection is closed.
constexpr size_t kDiscardMax = 16 * kControlBodyMax;

constexpr const char* kUnauthorized = "a valid token is required\n";

// One POST /control in progress: its body so far (never over kControlBodyMax).
struct Upload {
  std::string body;
  size_t received = 0;
};

// The listening address: IPv4 or IPv6 literal, else an error naming it.
struct ListenAddress {
  sockaddr_storage storage{};
  bool ipv6 = false;
};

ListenAddress listen_address(const std::string& bind, uint16_t port) {
  ListenAddress a;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&a.storage);
  if (inet_pton(AF_INET, bind.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    return a;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&a.storage);
  if (inet_pton(AF_INET6, bind.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    a.ipv6 = true;
    return a;
  }
  throw Error("monitor.bind: '" + bind +
              "' is not an IP address (write an IPv4 or IPv6 literal such as 127.0.0.1)");
}

// {"accepted": {...the keys...}, "applies": "at the next event boundary"}
std::string accepted_json(const ControlRequest& r) {
  JsonWriter w;
  w.begin_object().begin_object("accepted");
  if (r.parallel) w.value("parallel", *r.parallel);
  if (r.credits) w.value("credits", *r.credits);
  if (r.processing_time_s) w.value("fu.processing_time", *r.processing_time_s);
  if (r.ru_rate_factors) {
    w.begin_array("ru_rate_factors");
    for (double f : *r.ru_rate_factors) w.value("", f);
    w.end_array();
  }
  if (r.pause) w.value(*r.pause ? "pause" : "resume", true);
  for (const auto& [entry, on] : r.background)
    w.value("background." + std::to_string(entry + 1) + ".active", on);
  w.end_object().value("applies", "at the next event boundary").end_object();
  return w.str() + "\n";
}

bool is_get(std::string_view method) {
  return method == MHD_HTTP_METHOD_GET || method == MHD_HTTP_METHOD_HEAD;
}

}  // namespace

// The request handler: libmicrohttpd calls `access` once when a request's
// headers are in, then (POST /control only) once per piece of body and once
// at its end; `completed` frees what a request kept between the calls.
struct MonitorRoutes {
  static MHD_Result access(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char* /*version*/, const char* upload_data,
                           size_t* upload_data_size, void** request) noexcept {
    auto* server = static_cast<MonitorServer*>(cls);
    try {
      if (*request != nullptr)
        return body(*server, connection, static_cast<Upload*>(*request), upload_data,
                    upload_data_size);
      return first(*server, connection, url, method, request);
    } catch (...) {
      try {
        return http::queue(connection, http::text(500, "internal error\n"));
      } catch (...) {
        return MHD_NO;
      }
    }
  }

  static void completed(void* /*cls*/, MHD_Connection* /*connection*/, void** request,
                        MHD_RequestTerminationCode /*code*/) noexcept {
    delete static_cast<Upload*>(*request);
    *request = nullptr;
  }

 private:
  // The headers are in: token, route, method, and for POST /control the
  // body's type and declared size; everything but an accepted upload is
  // answered here, before any body is read.
  static MHD_Result first(MonitorServer& server, MHD_Connection* connection, std::string_view url,
                          std::string_view method, void** request) {
    const auto asset = page_asset(url);
    const bool public_file = asset && url != "/";
    if (!public_file && !http::has_token(connection, server.token_)) {
      http::Reply r = http::text(401, kUnauthorized);
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"evbench\"");
      return http::queue(connection, r);
    }
    if (asset || url == "/metrics" || url == "/api/state") {
      if (!is_get(method)) return not_allowed(connection, "GET, HEAD");
      return get(server, connection, url, asset);
    }
    if (url != "/control") return http::queue(connection, http::text(404, "no such page\n"));
    if (method != MHD_HTTP_METHOD_POST) return not_allowed(connection, "POST");
    const std::string type = http::media_type(connection);
    if (!type.empty() && type != "application/json" && type != "application/yaml" &&
        type != "text/plain")
      return http::queue(connection,
                         http::json_error(415, "Content-Type '" + type.substr(0, 60) +
                                                   "' is not accepted: send application/json "
                                                   "(curl -H 'Content-Type: application/json')"));
    const long long length = http::content_length(connection);
    if (length > static_cast<long long>(kControlBodyMax)) return too_large(connection);
    *request = new Upload;
    return MHD_YES;
  }

  static MHD_Result get(MonitorServer& server, MHD_Connection* connection, std::string_view url,
                        const std::optional<PageAsset>& asset) {
    http::Reply r;
    if (asset) {
      r.content_type = std::string(asset->content_type);
      r.static_body = asset->body;
      r.is_static = true;
    } else if (url == "/metrics") {
      r.content_type = "text/plain; version=0.0.4; charset=utf-8";
      r.body = server.state_.metrics_text();
    } else {
      r.content_type = "application/json";
      r.body = server.state_.state_json();
    }
    return http::queue(connection, r);
  }

  // A piece of the body (kept while under the limit, dropped after), or its
  // end (*size == 0): parse, queue, answer.
  static MHD_Result body(MonitorServer& server, MHD_Connection* connection, Upload* upload,
                         const char* data, size_t* size) {
    if (*size != 0) {
      upload->received += *size;
      if (upload->received <= kControlBodyMax) upload->body.append(data, *size);
      *size = 0;
      return upload->received > kDiscardMax ? MHD_NO : MHD_YES;
    }
    if (upload->received > kControlBodyMax) return too_large(connection);
    const ControlParse parsed = parse_control(upload->body, server.state_.limits());
    if (parsed.status != 202)
      return http::queue(connection, http::json_error(parsed.status, parsed.message));
    http::Reply r;
    r.status = 202;
    r.content_type = "application/json";
    r.body = accepted_json(parsed.request);
    server.state_.submit(parsed.request);
    return http::queue(connection, r);
  }

  static MHD_Result not_allowed(MHD_Connection* connection, const char* allow) {
    http::Reply r =
        http::text(405, std::string("method not allowed here; allowed: ") + allow + "\n");
    r.headers.emplace_back("Allow", allow);
    return http::queue(connection, r);
  }

  static MHD_Result too_large(MHD_Connection* connection) {
    return http::queue(connection,
                       http::json_error(413, "body over " + std::to_string(kControlBodyMax) +
                                                 " bytes: send only the keys to change"));
  }
};

MonitorServer::MonitorServer(MonitorState& state, const std::string& bind, uint16_t port,
                             std::string token)
    : state_(state), bind_(bind), token_(std::move(token)) {
  if (token_.empty()) throw Error("monitor: the token must not be empty");
  for (char c : token_)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      throw Error("monitor: the token must not contain spaces or control characters");
  ListenAddress address = listen_address(bind, port);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
  if (address.ipv6) flags |= MHD_USE_IPv6;
  daemon_ = MHD_start_daemon(
      flags, port, nullptr, nullptr, &MonitorRoutes::access, this, MHD_OPTION_SOCK_ADDR,
      reinterpret_cast<sockaddr*>(&address.storage), MHD_OPTION_CONNECTION_LIMIT, kConnectionLimit,
      MHD_OPTION_CONNECTION_TIMEOUT, kConnectionTimeoutS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
      kConnectionMemory, MHD_OPTION_NOTIFY_COMPLETED, &MonitorRoutes::completed, nullptr,
      MHD_OPTION_END);
  if (daemon_ == nullptr)
    throw Error("monitor: cannot listen on " + bind + ":" + std::to_string(port) +
                " (port in use, or not an address of this host)");
  const MHD_DaemonInfo* info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
  port_ = info != nullptr ? info->port : port;
}

MonitorServer::~MonitorServer() {
  if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
}

std::string MonitorServer::url() const {
  const std::string host = bind_.find(':') != std::string::npos ? "[" + bind_ + "]" : bind_;
  return "http://" + host + ":" + std::to_string(port_) + "/?token=" + http::url_encode(token_);
}

}  // namespace evb
