#include "plan/bench_sweep.hpp"

#include <toml++/toml.h>

#include <sstream>

#include "plan/plan_json.hpp"
#include "util/toml_text.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::plan {

namespace {

int positive_runs(const toml::node& n, const std::string& origin) {
  auto v = n.value<std::int64_t>();
  if (!v || *v < 1 || *v > 100000) throw ParseError(origin, toml_line(n), "runs must be an integer from 1 to 100000");
  return static_cast<int>(*v);
}

ProblemParams point_from(const toml::node& n, const std::string& package, const std::string& origin) {
  auto* t = n.as_table();
  if (!t) throw ParseError(origin, toml_line(n), "a point of " + package + " must be a table like { m = 1024 }");
  ProblemParams p;
  for (auto&& [k, v] : *t) {
    std::string key(k.str()), value;
    if (auto i = v.value_exact<std::int64_t>()) value = std::to_string(*i);
    else if (auto s = v.value_exact<std::string>()) value = *s;
    else throw ParseError(origin, toml_line(v), package + "." + key + " must be an integer (or a dtype name)");
    try {
      p.set(key, value);
    } catch (const std::invalid_argument& e) {
      throw ParseError(origin, toml_line(v), e.what());
    }
  }
  return p;
}

}  // namespace

Sweep parse_sweep(const std::string& toml_text, const std::string& origin) {
  toml::table doc = parse_toml(toml_text, origin);
  Sweep s;
  s.origin = origin;
  for (auto&& [k, v] : doc) {
    std::string key(k.str());
    if (key == "schema") {
      if (v.value<std::string>() != "kprof.bench.sweeps/1")
        throw ParseError(origin, toml_line(v), "unsupported schema (expected kprof.bench.sweeps/1)");
    } else if (key == "runs") {
      s.runs = positive_runs(v, origin);
    } else if (key == "packages") {
      auto* pkgs = v.as_table();
      if (!pkgs) throw ParseError(origin, toml_line(v), "packages must be a table of [packages.<name>] sections");
      for (auto&& [pk, pv] : *pkgs) {
        std::string name(pk.str());
        auto* pt = pv.as_table();
        if (!pt) throw ParseError(origin, toml_line(pv), "[packages." + name + "] must be a table");
        PackageSweep ps;
        for (auto&& [ek, ev] : *pt) {
          std::string entry(ek.str());
          if (entry == "runs") {
            ps.runs = positive_runs(ev, origin);
          } else if (entry == "points") {
            auto* arr = ev.as_array();
            if (!arr) throw ParseError(origin, toml_line(ev), name + ".points must be an array of tables");
            for (auto& el : *arr) ps.points.push_back(point_from(el, name, origin));
          } else {
            throw ParseError(origin, toml_line(ev), "unknown key \"" + entry + "\" in [packages." + name +
                                                      "] (expected runs, points)");
          }
        }
        s.packages[name] = ps;
      }
    } else {
      throw ParseError(origin, toml_line(v), "unknown top-level key \"" + key + "\" (expected schema, runs, packages)");
    }
  }
  return s;
}

Sweep load_sweep(const std::filesystem::path& file) { return parse_sweep(read_file(file), file.string()); }

ProblemParams parse_point(const std::string& text) {
  std::string spaced = text;
  for (char& c : spaced)
    if (c == ',') c = ' ';
  std::istringstream in(spaced);
  ProblemParams p;
  for (std::string pair; in >> pair;) {
    if (pair.rfind("--", 0) == 0) pair = pair.substr(2);
    auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0)
      throw PlanError("point '" + text + "': write parameters as name=value (e.g. m=1024,n=512)");
    try {
      p.set(pair.substr(0, eq), pair.substr(eq + 1));
    } catch (const std::invalid_argument& e) {
      throw PlanError("point '" + text + "': " + e.what());
    }
  }
  return p;
}

std::string point_label(const ProblemParams& point, const PackageInfo& pkg) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  for (const auto& spec : pkg.params)
    if (auto it = point.values.find(spec.name); it != point.values.end())
      add(spec.name + "=" + std::to_string(it->second));
  for (const auto& [k, v] : point.values) {  // names the package does not declare (resolve_params rejects them)
    bool declared = false;
    for (const auto& spec : pkg.params) declared = declared || spec.name == k;
    if (!declared) add(k + "=" + std::to_string(v));
  }
  if (!point.dtype.empty()) add("dtype=" + point.dtype);
  return out.empty() ? "defaults" : out;
}

}  // namespace kprof::plan
