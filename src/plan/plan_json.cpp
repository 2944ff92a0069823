#include "plan/plan_json.hpp"
#include "util/mapped.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

namespace kprof::plan {

std::vector<PackageInfo> packages_from_json(const std::string& text) {
  try {
    auto j = json::parse(text);
    const json& arr = j.is_object() ? j.at("packages") : j;
    if (!arr.is_array()) throw PlanError("package list: expected an array of packages");
    auto pkgs = arr.get<std::vector<PackageInfo>>();
    for (const auto& p : pkgs)
      if (p.name.empty() || p.versions.empty()) throw PlanError("package list: a package without name or versions");
    return pkgs;
  } catch (const json::exception& e) {
    throw PlanError(std::string("package list is not valid JSON: ") + e.what());
  }
}

std::string packages_to_json(const std::vector<PackageInfo>& pkgs) {
  return json{{"schema", "kprof.packages/1"}, {"packages", pkgs}}.dump(2) + "\n";
}

KernelPlan plan_from_json(const std::string& text) {
  KernelPlan p;
  try {
    p = json::parse(text).get<KernelPlan>();
  } catch (const json::exception& e) {
    throw PlanError(std::string("plan is not valid JSON: ") + e.what());
  }
  validate_plan(p);
  return p;
}

const PackageInfo* find_package(const std::vector<PackageInfo>& pkgs, const std::string& name) {
  for (const auto& p : pkgs)
    if (p.name == name) return &p;
  return nullptr;
}

const VersionInfo* find_version(const PackageInfo& pkg, const std::string& name) {
  if (name.empty()) return pkg.versions.empty() ? nullptr : &pkg.versions.back();
  for (const auto& v : pkg.versions)
    if (v.name == name) return &v;
  return nullptr;
}

ProblemParams resolve_params(const PackageInfo& pkg, const ProblemParams& given) {
  ProblemParams out;
  for (const auto& ps : pkg.params) out.values[ps.name] = ps.default_value;
  for (const auto& [k, v] : given.values) {
    if (!out.values.count(k)) {
      const std::string names =
          fmt::format("{}", fmt::join(mapped(pkg.params, &ParamSpec::name), ", "));
      throw PlanError(fmt::format("{} has no parameter --{} (its parameters: {})", pkg.name, k,
                                  names.empty() ? "none" : names));
    }
    if (v <= 0) throw PlanError(fmt::format("--{}={} must be positive", k, v));
    out.values[k] = v;
  }
  if (!given.dtype.empty() && given.dtype != pkg.dtype)
    throw PlanError(fmt::format("{} is built for dtype {} only (got --dtype={})", pkg.name, pkg.dtype, given.dtype));
  out.dtype = pkg.dtype;
  return out;
}

void validate_plan(const KernelPlan& plan) {
  if (plan.stages.empty()) throw PlanError("plan " + plan.package + " " + plan.version + " has no stages");
  if (plan.kind == PlanKind::single && plan.stages.size() != 1)
    throw PlanError(fmt::format("a single-kernel plan has one stage ({} given)", plan.stages.size()));
  std::set<std::string> names;
  for (const auto& s : plan.stages) {
    if (s.name.empty()) throw PlanError("plan " + plan.package + ": a stage without a name");
    if (!names.insert(s.name).second) throw PlanError("plan " + plan.package + ": stage '" + s.name + "' twice");
    if (s.stream < 0) throw PlanError("stage '" + s.name + "': negative stream index");
    if (s.flops < 0 || s.min_bytes < 0) throw PlanError("stage '" + s.name + "': negative FLOPs or bytes");
    for (const auto& c : s.tile_space)
      for (const auto& [k, v] : c)
        if (v <= 0) throw PlanError(fmt::format("stage '{}': tile parameter {}={} must be positive", s.name, k, v));
  }
}

std::string render_package_list(const std::vector<PackageInfo>& pkgs) {
  std::string out = "| package | versions (* = default) | parameters | dtype | description |\n"
                    "| --- | --- | --- | --- | --- |\n";
  for (const auto& p : pkgs) {
    std::string vers;
    for (std::size_t i = 0; i < p.versions.size(); ++i)
      vers += (i ? " " : "") + p.versions[i].name + (i + 1 == p.versions.size() ? "*" : "");
    auto param = [](const ParamSpec& ps) { return fmt::format("{}={}", ps.name, ps.default_value); };
    out += fmt::format("| {} | {} | {} | {} | {} |\n", p.name, vers,
                       fmt::join(mapped(p.params, param), " "), p.dtype, p.description);
  }
  out += "\nVersions:\n";
  for (const auto& p : pkgs)
    for (const auto& v : p.versions) out += fmt::format("  {} {}: {}\n", p.name, v.name, v.description);
  return out;
}

}  // namespace kprof::plan
