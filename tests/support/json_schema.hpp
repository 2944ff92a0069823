// A small JSON Schema checker for the tests: the keywords docs/kprof-json.schema.json uses (type, enum, const,
// required, properties, additionalProperties, items, maxItems, minimum, oneOf, local $ref) and no others. Returns
// the first violation as "<path>: <why>", or "" when the document fits.
#pragma once
#include "model/json_support.hpp"

#include <string>

namespace kprof::test {

class JsonSchema {
 public:
  explicit JsonSchema(nlohmann::json root) : root_(std::move(root)) {}

  // Validates `doc` against the root's $defs/<def>.
  std::string check(const nlohmann::json& doc, const std::string& def) const {
    return check_node(doc, root_.at("$defs").at(def), "$");
  }

 private:
  static bool has_type(const nlohmann::json& v, const std::string& t) {
    if (t == "null") return v.is_null();
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "boolean") return v.is_boolean();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    return false;
  }

  std::string check_node(const nlohmann::json& v, const nlohmann::json& s, const std::string& at) const {
    if (s.contains("$ref")) {
      const std::string ref = s.at("$ref").get<std::string>();
      const std::string prefix = "#/$defs/";
      if (ref.rfind(prefix, 0) != 0) return at + ": unsupported $ref " + ref;
      if (auto e = check_node(v, root_.at("$defs").at(ref.substr(prefix.size())), at); !e.empty()) return e;
    }
    if (s.contains("type")) {
      const auto& t = s.at("type");
      bool ok = false;
      if (t.is_string()) ok = has_type(v, t.get<std::string>());
      else
        for (const auto& one : t) ok = ok || has_type(v, one.get<std::string>());
      if (!ok) return at + ": " + v.type_name() + " where the schema says " + t.dump();
    }
    if (s.contains("const") && v != s.at("const")) return at + ": " + v.dump() + " is not " + s.at("const").dump();
    if (s.contains("enum")) {
      bool found = false;
      for (const auto& e : s.at("enum")) found = found || e == v;
      if (!found) return at + ": " + v.dump() + " is not one of " + s.at("enum").dump();
    }
    if (s.contains("minimum") && v.is_number() && v.get<double>() < s.at("minimum").get<double>())
      return at + ": below the minimum";
    if (s.contains("oneOf")) {
      int matches = 0;
      std::string last;
      for (const auto& alt : s.at("oneOf")) {
        auto e = check_node(v, alt, at);
        if (e.empty()) ++matches;
        else last = e;
      }
      if (matches != 1) return at + ": matches " + std::to_string(matches) + " of oneOf (" + last + ")";
    }
    if (v.is_object()) {
      if (s.contains("required"))
        for (const auto& r : s.at("required"))
          if (!v.contains(r.get<std::string>())) return at + ": missing \"" + r.get<std::string>() + "\"";
      const nlohmann::json props = s.value("properties", nlohmann::json::object());
      for (const auto& [k, val] : v.items()) {
        if (props.contains(k)) {
          if (auto e = check_node(val, props.at(k), at + "." + k); !e.empty()) return e;
        } else if (s.contains("additionalProperties")) {
          const auto& extra = s.at("additionalProperties");
          if (extra.is_boolean() && !extra.get<bool>()) return at + ": \"" + k + "\" is not in the schema";
          if (extra.is_object())
            if (auto e = check_node(val, extra, at + "." + k); !e.empty()) return e;
        }
      }
    }
    if (v.is_array()) {
      if (s.contains("maxItems") && v.size() > s.at("maxItems").get<std::size_t>()) return at + ": too many items";
      if (s.contains("items"))
        for (std::size_t i = 0; i < v.size(); ++i)
          if (auto e = check_node(v[i], s.at("items"), at + "[" + std::to_string(i) + "]"); !e.empty()) return e;
    }
    return "";
  }

  nlohmann::json root_;
};

}  // namespace kprof::test
