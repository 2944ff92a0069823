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
  // The command line's rule for every front end: a name (and a dtype) is 1-32 letters, digits or '_' starting with
  // a letter, a value an integer >= 0. Each throws std::invalid_argument naming what is wrong.
  // "--b=32"-style pairs already split into key/value ("dtype" sets the dtype):
  void set(const std::string& key, const std::string& value);
  void set(const std::string& key, std::int64_t value);
  // Params read from elsewhere (a C API request, an autotune key) checked by the same rule; an empty dtype is
  // "unknown" and allowed.
  void check() const;
};
KPROF_JSON_DECLARE(ProblemParams)

}  // namespace kprof
