// The thresholds file exactly as shipped (no user overrides from the environment or ~/.config).
#pragma once
#include "analyze/thresholds.hpp"

inline kprof::analyze::Thresholds shipped() {
  kprof::analyze::Thresholds t;
  t.apply_file(KPROF_SOURCE_DIR + "/data/thresholds.toml");
  return t;
}
