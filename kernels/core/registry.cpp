#include <algorithm>

#include "core/package.hpp"

namespace kprof::kernels {

namespace {
std::vector<PackageEntry>& storage() {
  static std::vector<PackageEntry> packages;  // function-local: safe from static-initialisation order
  return packages;
}
}  // namespace

void Registry::add(PackageEntry p) {
  p.info.versions.clear();
  for (const auto& v : p.versions) p.info.versions.push_back(v.info);
  auto& all = storage();
  all.push_back(std::move(p));
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.info.name < b.info.name; });
}

const std::vector<PackageEntry>& Registry::all() { return storage(); }

const PackageEntry* Registry::find(const std::string& name) {
  for (const auto& p : storage())
    if (p.info.name == name) return &p;
  return nullptr;
}

const char* build_hash() { return KPROF_KERNELS_BUILD_HASH; }
const char* build_flags() { return KPROF_KERNELS_BUILD_FLAGS; }

}  // namespace kprof::kernels
