// kprof's C++ API on a bundled package (docs/api.md): the plan of MLA v2 at the typical decode size, profiled in
// event mode as v2 and, through the version override, as v3 with the same parameters.
//   build/release/profile_plan_example [out_root]      (needs a GPU; see docs/api.md for where it finds its tools)
#include <iostream>
#include <string>

#include "api/profile_plan.hpp"
#include "util/errors.hpp"

int main(int argc, char** argv) {
  const std::filesystem::path out_root = argc > 1 ? argv[1] : "out/profiles";
  try {
    kprof::plan::KernelPlan plan = kprof::api::describe_plan("mla", "v2", {{"b", 32}, {"s", 16}, {"t", 4096}});
    kprof::api::ProfilePlanSettings settings;
    for (const std::string version : {"", "v3"}) {  // "" = the plan's own version (v2)
      auto r = kprof::api::event_profile_plan(plan, out_root, version, 20, settings);
      std::cout << r.package << " " << r.version << " (" << r.params.dir_name() << "): exit " << r.exit_code << ", "
                << r.artifact_dir.string() << "\n";
      if (!r.run) continue;
      for (const auto& stage : r.run->stages)
        for (const auto& k : stage.kernels)
          std::cout << "  " << stage.name << " · " << k.label << ": median " << k.duration_ns.median / 1e3
                    << " us over " << k.duration_ns.count << " launches\n";
    }
  } catch (const kprof::Error& e) {
    std::cerr << "profile_plan_example: " << e.what() << "\n";
    return e.exit_code();
  }
  return 0;
}
