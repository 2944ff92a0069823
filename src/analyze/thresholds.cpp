#include "analyze/thresholds.hpp"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <toml++/toml.h>

#include "analyze/data_files.hpp"
#include "util/toml_text.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::analyze {

bool MetricThreshold::healthy(double v) const {
  // A percentage at the limit as printed (to 0.1) is not an issue: an occupancy of exactly 25.0% against "> 25%" read as
  // one, though no reader can tell it from the limit and nothing about the kernel would change across it.
  if ((op == ">" || op == "<") && unit == "%" && std::abs(v - value) < 0.05) return true;
  if (op == ">") return v > value;
  if (op == ">=") return v >= value;
  if (op == "<") return v < value;
  if (op == "<=") return v <= value;
  return v == value;  // "=="
}

std::string MetricThreshold::healthy_text() const {
  std::string u = unit == "%" ? "%" : unit.empty() ? "" : " " + unit;
  return fmt::format("{} {:g}{}", op, value, u);
}

const MetricThreshold* Thresholds::find(const std::string& metric) const {
  for (const auto& m : metrics)
    if (m.metric == metric) return &m;
  return nullptr;
}

double Thresholds::metric_value(const std::string& metric) const {
  if (auto* m = find(metric)) return m->value;
  throw Error("thresholds: no threshold for metric " + metric, kExitBadInput);
}

double Thresholds::param(const std::string& key) const {
  if (auto it = params.find(key); it != params.end()) return it->second;
  throw Error("thresholds: missing value " + key, kExitBadInput);
}

const std::string& Thresholds::text(const std::string& key) const {
  if (auto it = texts.find(key); it != texts.end()) return it->second;
  throw Error("thresholds: missing value " + key, kExitBadInput);
}

namespace {

const std::vector<std::string> kOps = {">", ">=", "<", "<=", "=="};

double number(const toml::node& n, const std::string& what, const std::string& origin) {
  if (auto v = n.value<double>()) return *v;
  throw ParseError(origin, toml_line(n), what + " must be a number");
}

std::string text_of(const toml::node& n, const std::string& what, const std::string& origin) {
  if (auto v = n.value<std::string>()) return *v;
  throw ParseError(origin, toml_line(n), what + " must be a string");
}

}  // namespace

void Thresholds::apply(const std::string& toml_text, const std::string& origin) {
  toml::table doc = parse_toml(toml_text, origin);
  if (auto* schema = doc.get("schema"); schema && schema->value<std::string>() != "kprof.thresholds/1")
    throw ParseError(origin, toml_line(*schema), "unsupported schema (expected kprof.thresholds/1)");

  if (auto* arr_node = doc.get("metric")) {
    auto* arr = arr_node->as_array();
    if (!arr) throw ParseError(origin, toml_line(*arr_node), "[[metric]] must be an array of tables");
    for (auto& el : *arr) {
      auto* t = el.as_table();
      if (!t || !t->get("metric")) throw ParseError(origin, toml_line(el), "[[metric]] entry needs a \"metric\" name");
      auto name = text_of(*t->get("metric"), "metric", origin);
      MetricThreshold* m = nullptr;
      for (auto& existing : metrics)
        if (existing.metric == name) m = &existing;
      if (!m) {
        metrics.push_back(MetricThreshold{name, name, ">", 0, "", ""});
        m = &metrics.back();
      }
      // Key by key: a user file may change only the value and keep the shipped label and meaning.
      for (auto&& [k, v] : *t) {
        std::string key(k.str());
        if (key == "metric") continue;
        else if (key == "label") m->label = text_of(v, "label", origin);
        else if (key == "op") {
          m->op = text_of(v, "op", origin);
          if (std::find(kOps.begin(), kOps.end(), m->op) == kOps.end())
            throw ParseError(origin, toml_line(v), "op must be one of > >= < <= ==");
        } else if (key == "value") m->value = number(v, name + ".value", origin);
        else if (key == "unit") m->unit = text_of(v, "unit", origin);
        else if (key == "meaning") m->meaning = text_of(v, "meaning", origin);
        else throw ParseError(origin, toml_line(v), "unknown key \"" + key + "\" in [[metric]] " + name);
      }
    }
  }

  for (auto&& [section_key, section] : doc) {
    std::string sec(section_key.str());
    if (sec == "schema" || sec == "metric") continue;
    auto* t = section.as_table();
    if (!t) throw ParseError(origin, toml_line(section), "unexpected top-level key \"" + sec + "\"");
    for (auto&& [k, v] : *t) {
      std::string key(k.str());
      if (sec == "opportunities" && key == "ncu_categories") {
        auto* cats = v.as_table();
        if (!cats) throw ParseError(origin, toml_line(v), "ncu_categories must be a table");
        for (auto&& [rule, cat] : *cats) ncu_categories[std::string(rule.str())] = text_of(cat, "category", origin);
        continue;
      }
      // Keys named "*_names" hold text (a regular expression of kernel names); every other value is a number.
      if (key.size() > 6 && key.compare(key.size() - 6, 6, "_names") == 0) texts[sec + "." + key] = text_of(v, sec + "." + key, origin);
      else params[sec + "." + key] = number(v, sec + "." + key, origin);
    }
  }
  sources.push_back(origin);
}

void Thresholds::apply_file(const std::filesystem::path& path) { apply(read_file(path), path.string()); }

Thresholds Thresholds::load(const std::optional<std::filesystem::path>& user_file) {
  Thresholds t;
  t.apply_file(find_data_file("thresholds.toml"));
  if (auto user = find_user_file(user_file, "KPROF_THRESHOLDS", "thresholds.toml")) t.apply_file(*user);
  return t;
}

}  // namespace kprof::analyze
