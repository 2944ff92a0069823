// Problem parameters: named integers (b, s, t, h, d, ...) plus a dtype.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include "model/json_support.hpp"

namespace kprof {

struct ProblemParams {
  std::map<std::string, std::int64_t> values;  // ordered by name: the canonical order
  std::string dtype;                           // "bf16", "fp32", ... empty when unknown

  bool empty() const { return values.empty() && dtype.empty(); }
  // Canonical, filesystem-safe directory name: "b32_s16_t4096_bf16"; "default" when empty.
  std::string dir_name() const;
  // Parses "--b=32"-style pairs already split into key/value; throws std::invalid_argument on a bad name/value.
  void set(const std::string& key, const std::string& value);
};
KPROF_JSON(ProblemParams, values, dtype)

}  // namespace kprof
