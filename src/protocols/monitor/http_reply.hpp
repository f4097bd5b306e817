#pragma once
// The pieces of an HTTP answer the monitor's handler shares (http_server.cpp):
// a reply (status, type, body, extra headers) queued on a libmicrohttpd
// connection with the security headers every response carries, and the
// readers of what a request says about itself (its token, its body's type).
// Internal to src/protocols/monitor.
#include <microhttpd.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace evb::http {

struct Reply {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // The body points at storage that outlives the daemon (an embedded page
  // file) and is not copied.
  std::string_view static_body;
  bool is_static = false;
};

// Queues `reply` with X-Content-Type-Options, Content-Security-Policy,
// Referrer-Policy and Cache-Control added; MHD_NO if libmicrohttpd refused.
MHD_Result queue(MHD_Connection* connection, const Reply& reply);

// Shorthands: text and JSON ({"error": message}) replies.
Reply text(unsigned status, std::string body);
Reply json_error(unsigned status, const std::string& message);

// Whether the request carries `token` (Authorization: Bearer, or ?token=),
// compared in constant time.
bool has_token(MHD_Connection* connection, const std::string& token);

// The media type of the request body, lower case, without parameters
// ("" when the request has no Content-Type).
std::string media_type(MHD_Connection* connection);

// The declared body length, or -1 when the request does not declare one
// (chunked) or declares something unreadable.
long long content_length(MHD_Connection* connection);

// `text` with everything but unreserved URL characters percent-encoded.
std::string url_encode(std::string_view text);

}  // namespace evb::http
