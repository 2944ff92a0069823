#include "model/device_spec.hpp"

namespace kprof {

std::optional<Peak> DeviceSpec::peak(const std::string& key) const {
  if (auto it = measured.find(key); it != measured.end()) return it->second;
  if (auto it = datasheet.find(key); it != datasheet.end()) return it->second;
  return std::nullopt;
}

std::string DeviceSpec::peak_kind(const std::string& key) const {
  if (measured.count(key)) return "measured";
  if (datasheet.count(key)) return "datasheet";
  return "";
}

std::optional<double> DeviceSpec::ridge(const std::string& precision) const {
  auto flops = peak(precision + "_tflops");
  auto bw = peak("dram_gbps");
  if (!flops || !bw || bw->value <= 0) return std::nullopt;
  return flops->value * 1e12 / (bw->value * 1e9);
}

}  // namespace kprof
