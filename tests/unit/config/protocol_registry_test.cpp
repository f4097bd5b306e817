// The protocol plug-ins: every folder registers its protocols under their
// YAML names, in documentation order, with the traits validation and the
// tools ask instead of names, and the config loader learns them.
#include "protocols/api/protocol_registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

const ProtocolFactory& factory(const std::string& name) {
  const ProtocolFactory* f = test::real_protocols().find(name);
  if (!f) throw std::runtime_error("protocol " + name + " not registered");
  return *f;
}

TEST(ProtocolRegistry, EveryProtocolUnderItsYamlNameInDocumentationOrder) {
  std::vector<std::string> names;
  for (const ProtocolFactory& f : test::real_protocols().all()) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pull", "push", "pull-noevm", "one-to-one",
                                             "many-to-one", "gather", "gather-cmd",
                                             "gather-cmd-meta", "alltoall", "evm-rate"}));
  for (const ProtocolFactory& f : test::real_protocols().all()) {
    EXPECT_FALSE(f.summary.empty()) << f.name;
    EXPECT_TRUE(f.create && f.resolve && f.memory_needs && f.steps) << f.name;
  }
}

TEST(ProtocolRegistry, TraitsSayWhatTheNamesUsedTo) {
  EXPECT_TRUE(factory("pull").uses_evm && factory("push").uses_evm);
  EXPECT_FALSE(factory("pull-noevm").uses_evm || factory("gather").uses_evm);
  EXPECT_TRUE(factory("pull-noevm").builds_events);
  EXPECT_FALSE(factory("one-to-one").builds_events || factory("alltoall").builds_events);
  Config scan;
  scan.nodes = 5;
  scan.shift_scan = true;
  EXPECT_EQ(factory("one-to-one").steps(scan), 5);
  EXPECT_EQ(factory("gather").steps(scan), 1);
}

TEST(ProtocolRegistry, UnknownProtocolIsAConfigError) {
  Config c;
  c.protocol = "pul";
  EXPECT_EQ(test::real_protocols().find("pul"), nullptr);
  EXPECT_THROW(test::real_protocols().of(c), ConfigError);
}

TEST(ProtocolRegistry, TheLoaderTakesTheEvmFromTheProtocol) {
  const PluginKeys& keys = test::real_plugins();
  EXPECT_TRUE(load_config_text("protocol: pull\n", "t.yaml", {}, keys).with_evm);
  EXPECT_FALSE(load_config_text("protocol: pull-noevm\n", "t.yaml", {}, keys).with_evm);
  EXPECT_FALSE(load_config_text("protocol: gather\n", "t.yaml", {}, keys).with_evm);
}

TEST(ProtocolRegistry, AProtocolsOwnRulesRunOnlyWhenItIsSelected) {
  const PluginKeys& keys = test::real_plugins();
  // one-to-one's shift rule: not checked for gather, which does not read shift.
  EXPECT_THROW(load_config_text("protocol: one-to-one\nnodes: 3\nshift: 3\n", "t.yaml", {}, keys),
               ConfigError);
  EXPECT_NO_THROW(load_config_text("protocol: gather\nnodes: 3\nshift: 3\n", "t.yaml", {}, keys));
  // push's own: a desync needs two nodes; pull's BU knows its event.
  const std::string desync = "nodes: 1\nparallel: 1\nfaults: [{at: 1s, desync: ru0, by: 1}]\n";
  EXPECT_THROW(load_config_text("protocol: push\n" + desync, "t.yaml", {}, keys), ConfigError);
  EXPECT_NO_THROW(load_config_text("protocol: pull\n" + desync, "t.yaml", {}, keys));
}

TEST(ProtocolRegistry, UnknownProtocolNameIsRefusedWithTheBuiltOnes) {
  try {
    load_config_text("protocol: pul\n", "t.yaml", {}, test::real_plugins());
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("t.yaml:1"), std::string::npos) << what;
    EXPECT_NE(what.find("pull-noevm"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace evb
