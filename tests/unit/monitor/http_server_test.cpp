// MonitorServer over loopback: a real libmicrohttpd daemon on 127.0.0.1 and
// an ephemeral port, driven by a plain socket client (http_client.hpp). The
// token gates everything but the page's static files; /control queues only
// checked requests; the destructor closes the port.
#include "protocols/monitor/http_server.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/error.hpp"
#include "http_client.hpp"
#include "protocols/monitor/page_assets.hpp"

namespace evb {
namespace {

using test::HttpResponse;

constexpr const char* kToken = "0123456789abcdef0123456789abcdef";

ControlLimits limits() {
  ControlLimits l;
  l.nodes = 4;
  l.credits_allocated = 4;
  l.processing_time_max_s = 0.01;
  l.rate_factor_max = {2, 2, 2, 2};
  l.not_here = {{"credits", "this protocol keeps its credits fixed"}};
  return l;
}

class MonitorServerTest : public ::testing::Test {
 protected:
  MonitorState state{"protocol: pull\n", limits()};
  std::unique_ptr<MonitorServer> server =
      std::make_unique<MonitorServer>(state, "127.0.0.1", 0, kToken);

  uint16_t port() const { return server->port(); }
  HttpResponse get(const std::string& target, const std::string& method = "GET") {
    return test::request(port(), method, target,
                         {{"Authorization", std::string("Bearer ") + kToken}});
  }
  HttpResponse post(const std::string& body, const std::string& type = "application/json") {
    return test::request(port(), "POST", std::string("/control?token=") + kToken,
                         {{"Content-Type", type}}, body);
  }
};

void expect_security_headers(const HttpResponse& r) {
  EXPECT_EQ(r.header("x-content-type-options"), "nosniff");
  EXPECT_EQ(r.header("referrer-policy"), "no-referrer");
  EXPECT_NE(r.header("content-security-policy").find("default-src 'none'"), std::string::npos);
  EXPECT_NE(r.header("content-security-policy").find("script-src 'self'"), std::string::npos);
}

void expect_unauthorized(const HttpResponse& r) {
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.header("www-authenticate"), "Bearer realm=\"evbench\"");
  EXPECT_EQ(r.body, "a valid token is required\n");
  EXPECT_EQ(r.body.find(kToken), std::string::npos);
  expect_security_headers(r);
}

TEST_F(MonitorServerTest, ListensOnAnEphemeralPortAndSaysWhereInItsUrl) {
  EXPECT_NE(port(), 0);
  EXPECT_EQ(server->url(),
            "http://127.0.0.1:" + std::to_string(port()) + "/?token=" + std::string(kToken));
}

TEST_F(MonitorServerTest, WithoutTheTokenEveryRouteIs401WithTheSameAnswer) {
  for (const char* target : {"/", "/metrics", "/api/state", "/nope"})
    expect_unauthorized(test::request(port(), "GET", target));
  expect_unauthorized(
      test::request(port(), "GET", "/metrics", {{"Authorization", "Bearer wrong"}}));
  expect_unauthorized(test::request(port(), "GET", "/metrics?token=wrong"));
  expect_unauthorized(test::request(port(), "GET", "/metrics", {{"Authorization", kToken}}));
  // A prefix of the token is not the token.
  expect_unauthorized(test::request(
      port(), "GET", std::string("/metrics?token=") + std::string(kToken).substr(0, 8)));
}

TEST_F(MonitorServerTest, BearerHeaderAndQueryTokenAreBothAccepted) {
  EXPECT_EQ(get("/metrics").status, 200);
  EXPECT_EQ(test::request(port(), "GET", std::string("/metrics?token=") + kToken).status, 200);
  EXPECT_EQ(
      test::request(port(), "GET", "/metrics", {{"Authorization", std::string("bearer ") + kToken}})
          .status,
      200);
}

TEST_F(MonitorServerTest, MetricsAreTheExpositionOfTheState) {
  const HttpResponse r = get("/metrics");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r.body, state.metrics_text());
  expect_security_headers(r);
}

TEST_F(MonitorServerTest, ApiStateIsTheStatesJsonNeverCached) {
  const HttpResponse r = get("/api/state");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.header("cache-control"), "no-store");
  EXPECT_EQ(r.body, state.state_json());
}

TEST_F(MonitorServerTest, ServesThePageAndItsStaticFilesWithoutTheToken) {
  const HttpResponse page = get("/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.body, page_asset("/")->body);
  EXPECT_NE(page.header("content-type").find("text/html"), std::string::npos);
  expect_security_headers(page);
  // The page loads these without the token (a <script src> carries none).
  for (const char* file : {"/live.js", "/live.css"}) {
    const HttpResponse r = test::request(port(), "GET", file);
    EXPECT_EQ(r.status, 200) << file;
    EXPECT_EQ(r.body, page_asset(file)->body) << file;
    expect_security_headers(r);
  }
}

TEST_F(MonitorServerTest, HeadAnswersLikeGetWithoutABody) {
  const HttpResponse r = get("/metrics", "HEAD");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
}

TEST_F(MonitorServerTest, UnknownPathIs404AndWrongMethodIs405WithAllow) {
  const HttpResponse missing = get("/etc/passwd");
  EXPECT_EQ(missing.status, 404);
  expect_security_headers(missing);
  const HttpResponse post_metrics =
      test::request(port(), "POST", std::string("/metrics?token=") + kToken, {}, "x");
  EXPECT_EQ(post_metrics.status, 405);
  EXPECT_EQ(post_metrics.header("allow"), "GET, HEAD");
  const HttpResponse get_control = get("/control");
  EXPECT_EQ(get_control.status, 405);
  EXPECT_EQ(get_control.header("allow"), "POST");
  EXPECT_FALSE(state.has_requests());
}

TEST_F(MonitorServerTest, AGoodControlRequestIsAcceptedAndQueued) {
  const HttpResponse r = post(R"({"parallel": 2, "fu.processing_time": "2ms"})");
  ASSERT_EQ(r.status, 202) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_NE(r.body.find("\"accepted\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("\"parallel\": 2"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("\"fu.processing_time\": 0.002"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("at the next event boundary"), std::string::npos) << r.body;
  ASSERT_TRUE(state.has_requests());
  const std::vector<ControlRequest> taken = state.take_requests();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].parallel, 2);
  EXPECT_DOUBLE_EQ(taken[0].processing_time_s.value_or(-1), 0.002);
  EXPECT_FALSE(state.has_requests());
}

TEST_F(MonitorServerTest, YamlTextAndUntypedBodiesAreAccepted) {
  EXPECT_EQ(post("pause: true", "application/yaml").status, 202);
  EXPECT_EQ(post("{\"resume\": true}", "text/plain; charset=utf-8").status, 202);
  const HttpResponse untyped = test::request(
      port(), "POST", std::string("/control?token=") + kToken, {}, R"({"parallel": 1})");
  EXPECT_EQ(untyped.status, 202) << untyped.body;
  EXPECT_EQ(state.take_requests().size(), 3u);
}

TEST_F(MonitorServerTest, ABadControlRequestIs4xxNamingTheKeyAndQueuesNothing) {
  HttpResponse r = post(R"({"parallel": 9})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_NE(r.body.find("\"error\": \"parallel: 9 exceeds the 4 nodes"), std::string::npos)
      << r.body;
  r = post(R"({"credits": 2})");
  EXPECT_EQ(r.status, 409);
  EXPECT_NE(r.body.find("keeps its credits fixed"), std::string::npos) << r.body;
  r = post("not: [valid");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("body must be a mapping"), std::string::npos) << r.body;
  r = post(R"({"parallel": 2})", "application/x-www-form-urlencoded");
  EXPECT_EQ(r.status, 415);
  EXPECT_NE(r.body.find("application/json"), std::string::npos) << r.body;
  EXPECT_FALSE(state.has_requests());
}

TEST_F(MonitorServerTest, AnOversizedBodyIs413AndQueuesNothing) {
  // Declared length over the limit: refused from the headers.
  const std::string big = R"({"parallel": 2, "pad": ")" + std::string(kControlBodyMax, 'x') + "\"}";
  HttpResponse r = post(big);
  EXPECT_EQ(r.status, 413);
  EXPECT_NE(r.body.find(std::to_string(kControlBodyMax)), std::string::npos) << r.body;
  // Chunked (no declared length): dropped as it arrives, refused at its end.
  std::string raw =
      std::string("POST /control?token=") + kToken +
      " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 3; ++i) raw += "800\r\n" + std::string(0x800, ' ') + "\r\n";
  raw += "10\r\n{\"parallel\": 2} \r\n0\r\n\r\n";
  r = test::send_raw(port(), raw);
  EXPECT_EQ(r.status, 413);
  EXPECT_FALSE(state.has_requests());
}

TEST_F(MonitorServerTest, AnUnauthenticatedPostIs401AndQueuesNothing) {
  expect_unauthorized(test::request(port(), "POST", "/control",
                                    {{"Content-Type", "application/json"}}, R"({"pause": true})"));
  expect_unauthorized(test::request(port(), "POST", "/control?token=nope",
                                    {{"Content-Type", "application/json"}}, R"({"pause": true})"));
  EXPECT_FALSE(state.has_requests());
  // The server still answers afterwards.
  EXPECT_EQ(get("/metrics").status, 200);
}

TEST_F(MonitorServerTest, TheDestructorStopsTheServerAndClosesThePort) {
  const uint16_t p = port();
  ASSERT_TRUE(test::can_connect(p));
  server.reset();
  EXPECT_FALSE(test::can_connect(p));
}

TEST(MonitorServer, ABindAddressThatIsNotAnIpIsAnErrorNamingIt) {
  MonitorState state{"", limits()};
  for (const char* bind : {"localhost", "not-an-ip", "127.0.0.256", ""}) {
    try {
      MonitorServer s(state, bind, 0, kToken);
      ADD_FAILURE() << "'" << bind << "' was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bind + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(MonitorServer, TheUrlCarriesATokenOfAnyPrintableCharactersIntact) {
  MonitorState state{"", limits()};
  const std::string token = "a+b/c=d&e%f";  // e.g. from monitor.token_file
  MonitorServer s(state, "127.0.0.1", 0, token);
  const std::string url = s.url();
  EXPECT_EQ(url.find(token), std::string::npos) << url;
  const std::string target = url.substr(url.find('/', std::string("http://").size()));
  EXPECT_EQ(test::request(s.port(), "GET", target).status, 200) << target;
  EXPECT_EQ(
      test::request(s.port(), "GET", "/metrics", {{"Authorization", "Bearer " + token}}).status,
      200);
}

TEST(MonitorServer, AnEmptyTokenIsRefused) {
  MonitorState state{"", limits()};
  EXPECT_THROW(MonitorServer(state, "127.0.0.1", 0, ""), Error);
}

TEST(MonitorServer, AnIpv6LiteralIsBracketedInTheUrl) {
  MonitorState state{"", limits()};
  std::unique_ptr<MonitorServer> s;
  try {
    s = std::make_unique<MonitorServer>(state, "::1", 0, kToken);
  } catch (const Error& e) {
    GTEST_SKIP() << "no IPv6 loopback here: " << e.what();
  }
  EXPECT_EQ(s->url(), "http://[::1]:" + std::to_string(s->port()) + "/?token=" + kToken);
}

}  // namespace
}  // namespace evb
