#pragma once
// MonitorServer: the run's HTTP endpoint (libmicrohttpd, its own thread).
//   GET  /            the live page (page_assets.hpp) and its files (/live*.js, /live.css)
//   GET  /metrics     Prometheus text exposition
//   GET  /api/state   the page's JSON
//   POST /control     run-time changes (control.hpp): 202, or 4xx naming the key
// Every request must carry the run's token, as `Authorization: Bearer <token>`
// or `?token=<token>`; without it: 401 and nothing else happens. The page's
// static files (/live.js, /live_units.js, /live_background.js, /live.css: the
// same in every run, no run data) are the exception: a browser loads them
// from the page without the token. Bodies over
// kControlBodyMax are refused unread (413); connections are limited and time
// out, so no client can hold the run's rank.
#include <cstdint>
#include <string>

#include "protocols/monitor/monitor_state.hpp"

struct MHD_Daemon;

namespace evb {

class MonitorServer {
 public:
  // Listens on `bind`:`port` (port 0: any free port; port() says which).
  // Throws evb::Error naming the address when it cannot.
  MonitorServer(MonitorState& state, const std::string& bind, uint16_t port, std::string token);
  ~MonitorServer();
  MonitorServer(const MonitorServer&) = delete;
  MonitorServer& operator=(const MonitorServer&) = delete;

  uint16_t port() const { return port_; }
  // "http://127.0.0.1:PORT/?token=..." (what the run prints at start).
  std::string url() const;

 private:
  MonitorState& state_;
  std::string bind_;
  std::string token_;
  uint16_t port_ = 0;
  MHD_Daemon* daemon_ = nullptr;
  friend struct MonitorRoutes;  // http_server.cpp: the request handler
};

}  // namespace evb
