// Replies and request readers of the monitor's HTTP handler (http_reply.hpp).
#include "protocols/monitor/http_reply.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>

#include "core/json_writer.hpp"
#include "core/secret.hpp"

namespace evb::http {
namespace {

// The page is self-contained: its script and style come from this server,
// its data from /api/state; nothing inline, nothing from elsewhere, never framed.
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

const char* header(MHD_Connection* connection, const char* name) {
  return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

}  // namespace

MHD_Result queue(MHD_Connection* connection, const Reply& reply) {
  MHD_Response* response =
      reply.is_static
          ? MHD_create_response_from_buffer(reply.static_body.size(),
                                            const_cast<char*>(reply.static_body.data()),
                                            MHD_RESPMEM_PERSISTENT)
          : MHD_create_response_from_buffer(reply.body.size(), const_cast<char*>(reply.body.data()),
                                            MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  bool ok = MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
                                    reply.content_type.c_str()) == MHD_YES;
  ok = ok && MHD_add_response_header(response, "X-Content-Type-Options", "nosniff") == MHD_YES;
  ok = ok && MHD_add_response_header(response, "Content-Security-Policy", kContentSecurityPolicy) ==
                 MHD_YES;
  ok = ok && MHD_add_response_header(response, "Referrer-Policy", "no-referrer") == MHD_YES;
  if (!reply.is_static)
    ok = ok && MHD_add_response_header(response, "Cache-Control", "no-store") == MHD_YES;
  for (const auto& [name, value] : reply.headers)
    ok = ok && MHD_add_response_header(response, name.c_str(), value.c_str()) == MHD_YES;
  const MHD_Result queued = ok ? MHD_queue_response(connection, reply.status, response) : MHD_NO;
  MHD_destroy_response(response);
  return queued;
}

Reply text(unsigned status, std::string body) {
  Reply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Reply json_error(unsigned status, const std::string& message) {
  Reply r;
  r.status = status;
  r.content_type = "application/json";
  r.body = "{\"error\": " + JsonWriter::escape(message) + "}\n";
  return r;
}

bool has_token(MHD_Connection* connection, const std::string& token) {
  bool found = false;
  if (const char* auth = header(connection, MHD_HTTP_HEADER_AUTHORIZATION)) {
    const std::string_view value = trim(auth);
    constexpr std::string_view kScheme = "bearer ";
    if (value.size() > kScheme.size() && lower(value.substr(0, kScheme.size())) == kScheme)
      found = secret_equal(std::string(trim(value.substr(kScheme.size()))), token);
  }
  if (const char* query = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "token"))
    found = secret_equal(query, token) || found;
  return found;
}

std::string media_type(MHD_Connection* connection) {
  const char* type = header(connection, MHD_HTTP_HEADER_CONTENT_TYPE);
  if (type == nullptr) return "";
  std::string_view v = type;
  v = v.substr(0, v.find(';'));
  return lower(trim(v));
}

long long content_length(MHD_Connection* connection) {
  const char* length = header(connection, MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (length == nullptr) return -1;
  const std::string_view v = trim(length);
  long long n = -1;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || ptr != v.data() + v.size() || n < 0) return -1;
  return n;
}

std::string url_encode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace evb::http
