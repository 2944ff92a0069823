#include "render/json_output.hpp"

#include "render/contract_view.hpp"

namespace kprof::render {

namespace {
json contract_json(const ContractView& v) {
  json c;
  c["kernel"] = v.kernel;
  c["version"] = v.version;
  c["mode"] = v.mode;
  json config = json::array();
  for (const auto& [k, val] : v.configuration) config.push_back({{"param", k}, {"value", val}});
  c["configuration"] = config;
  json params = json::object();  // the problem's parameters as an object: {"b": 32, "s": 16, "dtype": "bf16"}
  for (const auto& [k, val] : v.params) {
    if (k == "dtype") params[k] = val;
    else params[k] = std::stoll(val);
  }
  c["params"] = params;

  json stages = json::array();
  for (const auto& r : v.stages) {
    json s;
    s["stage"] = r.stage;
    s["kernel"] = r.kernel_label;
    s["display"] = r.display;
    s["launches"] = r.launches;
    s["duration_us"] = r.duration_ns ? json(*r.duration_ns / 1000.0) : json(nullptr);
    s["tc_pct"] = r.tc_pct;
    s["dram_pct"] = r.dram_pct;
    s["occupancy_pct"] = r.occupancy_pct;
    s["bottleneck"] = r.bottleneck.empty() ? json(nullptr) : json(r.bottleneck);
    s["key_issue"] = r.key_issue.empty() ? json(nullptr) : json(r.key_issue);
    s["scope"] = r.scope;
    stages.push_back(s);
  }
  c["stages"] = stages;

  c["bottleneck"] = {{"kind", v.bottleneck_kind},
                     {"title", v.bottleneck_title},
                     {"root_cause", v.root_cause.empty() ? json(nullptr) : json(v.root_cause)}};

  json top = json::array();
  for (const auto& o : v.top)
    top.push_back({{"name", o.name},
                   {"kernel", o.kernel_label.empty() ? json(nullptr) : json(o.kernel_label)},
                   {"kernels", o.kernels},
                   {"est_gain_pct", o.estimated ? json(o.est_gain_pct) : json(nullptr)},
                   {"run_gain_pct", o.estimated ? json(o.run_gain_pct) : json(nullptr)},
                   {"trigger", o.trigger},
                   {"assumes", o.assumes.empty() ? json(nullptr) : json(o.assumes)},
                   {"scope", o.scope}});
  c["top3"] = top;
  c["implausible"] = v.warnings;

  if (v.has_baseline) {
    json rows = json::array();
    for (const auto& r : v.vs_baseline)
      rows.push_back({{"metric", r.metric},
                      {"previous", r.previous},
                      {"current", r.current},
                      {"change_pct", r.change_pct},
                      {"verdict", r.verdict}});
    c["vs_baseline"] = {{"rows", rows}, {"notes", v.baseline_notes}};
  } else {
    c["vs_baseline"] = nullptr;
  }
  return c;
}
}  // namespace

std::string render_contract_json(const ProfileRun& run, const Comparison* vs_baseline) {
  json j = contract_json(build_contract_view(run, vs_baseline));
  j["schema"] = "kprof.contract/1";
  j["warnings"] = run.warnings;
  if (vs_baseline) j["comparison"] = *vs_baseline;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";  // invalid UTF-8 → U+FFFD
}

std::string render_json(const ProfileRun& run, const Comparison* vs_baseline) {
  json j = run;
  j["contract"] = contract_json(build_contract_view(run, vs_baseline));
  if (vs_baseline) j["comparison"] = *vs_baseline;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";  // invalid UTF-8 → U+FFFD
}

}  // namespace kprof::render
