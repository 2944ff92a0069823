// Healthy thresholds and classification cut-offs, read from data/thresholds.toml (no figures in code).
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof::analyze {

// One healthy threshold: `metric op value` is healthy ("tensor_pipe_pct > 60").
struct MetricThreshold {
  std::string metric;   // CanonicalMetrics field name
  std::string label;    // "TC util"
  std::string op;       // ">", ">=", "<", "<=", "=="
  double value = 0;
  std::string unit;     // "%", "B", ""
  std::string meaning;  // what an unhealthy value means

  bool healthy(double v) const;
  std::string healthy_text() const;  // "> 60%", "== 0 B", "> 1"
};

struct Thresholds {
  std::vector<MetricThreshold> metrics;            // in file order
  std::map<std::string, double> params;            // "classify.busy_pct" → 60
  std::map<std::string, std::string> texts;        // string values of the scalar tables ("diagnosis.matmul_names")
  std::map<std::string, std::string> ncu_categories;  // NCU rule name → opportunity category
  std::vector<std::string> sources;                // files applied, in order

  const MetricThreshold* find(const std::string& metric) const;
  // Threshold value of a metric / a scalar parameter; throws Error when the data file lacks it.
  double metric_value(const std::string& metric) const;
  double param(const std::string& key) const;
  const std::string& text(const std::string& key) const;

  // Shipped thresholds.toml, then the user file: `user_file`, else $KPROF_THRESHOLDS, else
  // ~/.config/kprof/thresholds.toml when present.
  static Thresholds load(const std::optional<std::filesystem::path>& user_file = std::nullopt);
  // Applies a TOML document on top of this one (any value may be overridden); ParseError names `origin`.
  void apply(const std::string& toml_text, const std::string& origin);
  void apply_file(const std::filesystem::path& path);
};

}  // namespace kprof::analyze
