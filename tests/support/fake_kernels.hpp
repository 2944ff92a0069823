// A stand-in for kprof-kernels: a shell script that answers `list`, `describe` and `run` from files the test
// writes, and logs every call's arguments, so the CLI, bench and API tests need neither a GPU nor a CUDA build.
//   list                         → the packages given to set_packages()
//   describe <pkg> <ver> ...     → the plan given to set_plan() for that version (else for "any" version of the
//                                  package); exit 2 with a message when there is none
//   run <pkg> <ver> ... --out D  → exit code set_run() gave (default 0; $FAKE_RUN_RC overrides); on exit 0 copies
//                                  the canned timings.json into D; exit 3 prints a WRONG RESULT line as the real
//                                  binary does; $FAKE_RUN_SLEEP (seconds): first a file partial.txt in D, then
//                                  that long a sleep (a run to interrupt, or to kill its worker during)
#pragma once
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "model/json_support.hpp"
#include "plan/plan_json.hpp"
#include "util/fs.hpp"

namespace kprof::testing {

class FakeKernels {
 public:
  explicit FakeKernels(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    const std::string d = dir_.string();
    std::string script = R"(#!/bin/sh
D=')" + d + R"('
echo "$*" >> "$D/calls.log"
cmd=$1; pkg=$2; ver=$3
case "$cmd" in
  list) cat "$D/list.json" ;;
  describe)
    if [ -f "$D/plans/$pkg/$ver.json" ]; then cat "$D/plans/$pkg/$ver.json"
    elif [ -f "$D/plans/$pkg/any.json" ]; then cat "$D/plans/$pkg/any.json"
    else echo "kprof-kernels: unknown version '$ver' of $pkg" >&2; exit 2; fi ;;
  run)
    out=""; prev=""
    for a in "$@"; do [ "$prev" = "--out" ] && out=$a; prev=$a; done
    rc=0
    [ -f "$D/runs/$pkg/$ver.rc" ] && rc=$(cat "$D/runs/$pkg/$ver.rc")
    [ -n "$FAKE_RUN_RC" ] && rc=$FAKE_RUN_RC
    echo "[kprof-kernels] $pkg $ver: fake run" >&2
    if [ -n "$FAKE_RUN_SLEEP" ] && [ -n "$out" ]; then mkdir -p "$out" && echo partial > "$out/partial.txt"; sleep "$FAKE_RUN_SLEEP"; fi
    if [ "$rc" = 0 ] && [ -n "$out" ] && [ -f "$D/runs/$pkg/$ver.timings.json" ]; then
      mkdir -p "$out" && cp "$D/runs/$pkg/$ver.timings.json" "$out/timings.json"
    fi
    [ "$rc" = 3 ] && echo "kprof-kernels: WRONG RESULT: stage $pkg: max error 0.5 > bound 6.1e-05" >&2
    exit "$rc" ;;
  *) echo "kprof-kernels: unknown command '$cmd'" >&2; exit 2 ;;
esac
)";
    write_file_atomic(path(), script);
    std::filesystem::permissions(path(), std::filesystem::perms::owner_all);
    write_file_atomic(dir_ / "calls.log", "");
  }

  std::string path() const { return (dir_ / "kprof-kernels").string(); }

  void set_packages(const std::vector<plan::PackageInfo>& pkgs) {
    write_file_atomic(dir_ / "list.json", plan::packages_to_json(pkgs));
  }
  // The plan `describe <plan.package> <plan.version>` prints; `any_version` makes it the package's answer for
  // every version without a plan of its own.
  void set_plan(const plan::KernelPlan& p, bool any_version = false) {
    write_file_atomic(dir_ / "plans" / p.package / ((any_version ? "any" : p.version) + ".json"), json(p).dump() + "\n");
  }
  void set_run(const std::string& package, const std::string& version, int exit_code,
               const std::string& timings_json = "") {
    write_file_atomic(dir_ / "runs" / package / (version + ".rc"), std::to_string(exit_code) + "\n");
    if (!timings_json.empty()) write_file_atomic(dir_ / "runs" / package / (version + ".timings.json"), timings_json);
  }

  // Every call's arguments, one per line, in order.
  std::vector<std::string> calls() const {
    std::vector<std::string> out;
    std::istringstream in(read_file(dir_ / "calls.log"));
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  // The calls whose arguments start with `prefix` ("run gemm v2").
  std::vector<std::string> calls_starting(const std::string& prefix) const {
    std::vector<std::string> out;
    for (const auto& c : calls())
      if (c.rfind(prefix, 0) == 0) out.push_back(c);
    return out;
  }

  // A kprof.kernels.timings/1 document as `kprof-kernels run --out` writes it, with the given per-run plan times.
  static std::string timings(const plan::KernelPlan& p, const std::vector<double>& samples_ms,
                             const std::string& device_name = "NVIDIA H200", int sm_count = 132) {
    json stats{{"count", samples_ms.size()}};
    return json{{"schema", "kprof.kernels.timings/1"},
                {"package", p.package},
                {"version", p.version},
                {"params", p.params},
                {"device", {{"name", device_name}, {"compute_capability", "9.0"}, {"sm_count", sm_count}}},
                {"runs", samples_ms.size()},
                {"plan", {{"gpu_ms", stats}, {"samples_ms", samples_ms}}},
                {"stages", json::array()}}
               .dump(2) + "\n";
  }

 private:
  std::filesystem::path dir_;
};

// What the bench and sweep tests share: timings spread evenly over [lo, hi], and a gemm package of three versions
// with one plan of one stage.
inline std::vector<double> spread(double lo, double hi, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * i / (n - 1));
  return v;
}

inline const plan::PackageInfo kGemm{"gemm", "C = A B", {{"v1", "naive"}, {"v2", "tiled"}, {"v3", "wmma"}},
                                     {{"m", 4096, ""}, {"n", 4096, ""}, {"k", 4096, ""}}, "bf16"};

inline plan::KernelPlan gemm_plan() {
  plan::KernelPlan p;
  p.package = "gemm";
  p.version = "v1";
  p.params = {{"m", 1024}, {"n", 1024}, {"k", 1024}};
  p.dtype = "bf16";
  p.stages = {{"gemm", 2.0 * 1024 * 1024 * 1024, 2.0 * 2 * 1024 * 1024 + 4.0 * 1024 * 1024, "bf16", 0, {}}};
  return p;
}

}  // namespace kprof::testing
