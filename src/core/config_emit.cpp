// The resolved configuration as YAML (reads back to the same Config) and as a
// JSON object (embedded in results documents). Both walk the key table, so
// every key appears, nested by its dotted path, in documentation order.
#include <cctype>
#include <cstdio>

#include "core/config_detail.hpp"
#include "core/config_loader.hpp"
#include "core/json_writer.hpp"

namespace evb {
namespace config_detail {
namespace {

// Keys nested by path: "fragment.size" -> fragment { size }.
struct Node {
  std::string name;
  const CoreKey* key = nullptr;  // leaf
  std::vector<Node> children;    // group
};

const std::vector<Node>& key_tree() {
  static const std::vector<Node> tree = [] {
    Node root;
    for (const auto& k : core_key_table()) {
      Node* at = &root;
      std::string rest = k.spec.path;
      for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
        const std::string group = rest.substr(0, dot);
        rest = rest.substr(dot + 1);
        Node* next = nullptr;
        for (auto& c : at->children)
          if (c.name == group && !c.key) next = &c;
        if (!next) {
          at->children.push_back(Node{group, nullptr, {}});
          next = &at->children.back();
        }
        at = next;
      }
      at->children.push_back(Node{rest, &k, {}});
    }
    return root.children;
  }();
  return tree;
}

bool plain_safe(const std::string& s) {
  static const char* const kReserved[] = {"null",  "Null",  "NULL",  "~",   "true", "True", "TRUE",
                                          "false", "False", "FALSE", "yes", "no",   "on",   "off"};
  if (s.empty()) return false;
  for (const char* r : kReserved)
    if (s == r) return false;
  const char first = s.front();
  if (!(std::isalnum(static_cast<unsigned char>(first)) || first == '_' || first == '.' ||
        first == '/'))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
          c == '-' || c == '+'))
      return false;
  return true;
}

std::string escaped(const std::string& s) {
  return JsonWriter::escape(s);
}

std::string yaml_string(const std::string& s) {
  return plain_safe(s) ? s : escaped(s);
}

void emit_yaml(std::string& out, const std::vector<Node>& nodes, const Config& c, int depth) {
  const std::string indent(2 * depth, ' ');
  for (const auto& n : nodes) {
    if (!n.key) {
      out += indent + n.name + ":\n";
      emit_yaml(out, n.children, c, depth + 1);
      continue;
    }
    const KeySpec& spec = n.key->spec;
    const Value v = n.key->get(c);
    out += indent + n.name + ":";
    switch (spec.type) {
      case KeyType::string:
      case KeyType::choice:
        out += " " + yaml_string(v.text) + "\n";
        break;
      case KeyType::size:
      case KeyType::duration: {
        // A comment in friendlier units when it says more than the number.
        const std::string human =
            spec.type == KeyType::size ? format_size(v.bytes) : format_duration(v.real);
        const bool plain = human.ends_with(" B") || human.ends_with(" s");
        out += " " + canonical_scalar(spec, v) + (plain ? "" : "  # " + human) + "\n";
        break;
      }
      case KeyType::string_map:
        if (v.map.empty()) out += " {}";
        out += "\n";
        // Driver option values are canonical text: a boolean option's
        // "true" is written as the YAML boolean it reads back as.
        for (const auto& [k, val] : v.map)
          out += indent + "  " + yaml_string(k) + ": " +
                 (val == "true" || val == "false" ? val : yaml_string(val)) + "\n";
        break;
      default:
        out += " " + canonical_scalar(spec, v) + "\n";
        break;
    }
  }
}

void emit_json(std::string& out, const std::vector<Node>& nodes, const Config& c) {
  out += "{";
  bool first = true;
  for (const auto& n : nodes) {
    out += (first ? "" : ",") + escaped(n.name) + ":";
    first = false;
    if (!n.key) {
      emit_json(out, n.children, c);
      continue;
    }
    out += json_value(n.key->spec, n.key->get(c));
  }
  out += "}";
}

}  // namespace

std::string json_value(const KeySpec& spec, const Value& v) {
  switch (spec.type) {
    case KeyType::integer:
      return v.text.empty() ? std::to_string(v.integer) : escaped(v.text);
    case KeyType::real:
    case KeyType::duration:
      return format_real(v.real);
    case KeyType::boolean:
      return v.boolean ? "true" : "false";
    case KeyType::size:
      return std::to_string(v.bytes);
    case KeyType::string:
    case KeyType::choice:
      return escaped(v.text);
    case KeyType::real_list: {
      std::string out = "[";
      for (size_t i = 0; i < v.reals.size(); ++i) out += (i ? "," : "") + format_real(v.reals[i]);
      return out + "]";
    }
    case KeyType::string_map: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, val] : v.map) {
        out += (first ? "" : ",") + escaped(k) + ":" + escaped(val);
        first = false;
      }
      return out + "}";
    }
    case KeyType::fault_list:
      return faults_json(v.faults);
    case KeyType::control_list:
      return controls_json(v.controls);
    case KeyType::background_list:
      return background_json(v.background);
  }
  return "null";
}

}  // namespace config_detail

std::string to_yaml(const Config& config) {
  std::string out =
      "# evbench configuration, fully resolved (sizes in bytes, durations in seconds)\n";
  config_detail::emit_yaml(out, config_detail::key_tree(), config, 0);
  return out;
}

std::string to_json(const Config& config) {
  std::string out;
  config_detail::emit_json(out, config_detail::key_tree(), config);
  return out;
}

}  // namespace evb
