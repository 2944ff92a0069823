#include "collect/ncu/ncu_driver.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::ncu {

namespace fs = std::filesystem;

std::vector<std::string> ncu_collect_args(const NcuRunOptions& opt) {
  std::vector<std::string> a{opt.ncu, "--clock-control", opt.clock_control, "--nvtx"};
  std::string name_re = opt.kernel_regex.empty() ? ".*" : opt.kernel_regex;
  if (opt.collection == NcuCollection::metric_list) {
    a.insert(a.end(), {"--metrics", fmt::format("{}", fmt::join(opt.metrics, ","))});
    // An empty section folder: ncu then skips loading and parsing its ~30 section files and rules at start-up
    // (0.3 s of a 4.5 s annotation run on the H200); --metrics needs none of them.
    a.insert(a.end(), {"--section-folder", (fs::path(opt.work_dir) / "no-sections").string()});
    if (!opt.kernel_regex.empty()) a.insert(a.end(), {"-k", "regex:" + opt.kernel_regex});
    a.insert(a.end(), {"--csv", "--page", "raw", "--print-units", "base", "--log-file",
                       (fs::path(opt.work_dir) / "ncu_raw.csv").string()});
  } else {
    a.insert(a.end(), {"--set", "full", "--import-source", "yes", "-f", "-o",
                       (fs::path(opt.work_dir) / "profile").string()});
    // What kprof's diagnosis reads that the full set lacks (the tensor pipe without HFMA2.MMA, ...).
    if (!opt.metrics.empty()) a.insert(a.end(), {"--metrics", fmt::format("{}", fmt::join(opt.metrics, ","))});
    if (!opt.kernel_regex.empty()) a.insert(a.end(), {"-k", "regex:" + opt.kernel_regex});
  }
  // One launch of each kernel and launch configuration (grid, block, shared memory): what a kernel group is.
  // Every launch only with --all-launches, or when the user's own skip/count filters apply.
  // KPROF_NCU_FILTER=kernel-id falls back to the first invocation of each kernel name (ncu's --kernel-id).
  // Kernels are told apart by their mangled names, as the CUPTI counter collector and the tracer do: by its
  // default (the function name), ncu took two instantiations of one template with one launch shape for one
  // kernel and profiled only the first (PyTorch's silu and mul vectorized_elementwise_kernel on the H200). Only
  // without a user's --kernel-regex (searched in base names as documented); kprof's own regex of function names
  // is unanchored and matches inside the mangled name. Names still print demangled.
  if (opt.first_launch_per_kernel && opt.launch_skip == 0 && opt.launch_count == 0) {
    if (opt.mangled_identity) a.insert(a.end(), {"--kernel-name-base", "mangled"});
    const char* f = std::getenv("KPROF_NCU_FILTER");
    if (f && std::string(f) == "kernel-id") {
      std::string re = opt.kernel_regex.empty() ? ".*" : opt.kernel_regex;
      auto k = std::find(a.begin(), a.end(), "-k");
      if (k != a.end()) a.erase(k, k + 2);
      a.insert(a.end(), {"--kernel-id", "::regex:" + re + ":1"});
    } else {
      a.insert(a.end(), {"--launch-count", "1", "--filter-mode", "per-launch-config"});
    }
  }
  if (!opt.nvtx_include.empty()) a.insert(a.end(), {"--nvtx-include", opt.nvtx_include});
  if (opt.launch_skip > 0) a.insert(a.end(), {"-s", std::to_string(opt.launch_skip)});
  if (opt.launch_count > 0) a.insert(a.end(), {"-c", std::to_string(opt.launch_count)});
  a.insert(a.end(), opt.extra_args.begin(), opt.extra_args.end());
  a.insert(a.end(), opt.command.begin(), opt.command.end());
  return a;
}

void classify_ncu_log(const std::string& log, NcuRunResult& r) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("==ERROR==", 0) == 0 || line.rfind("==WARNING==", 0) == 0) r.messages.push_back(line);
    if (line.find("ERR_NVGPUCTRPERM") != std::string::npos)
      throw Error(
          "Nsight Compute has no permission to read the GPU performance counters (ERR_NVGPUCTRPERM).\n"
          "  Fix: run as root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0\n"
          "  (e.g. `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d, then reboot);\n"
          "  in a container add --cap-add=SYS_ADMIN. `kprof run --prof-type=event` needs no counters.",
          kExitNoPermission);
    if (line.find("no CUDA-capable device") != std::string::npos || line.find("CUDA_ERROR_NO_DEVICE") != std::string::npos)
      throw Error("no CUDA GPU is visible to the profiled program (ncu: " + line + ")", kExitNoGpu);
    if (line.find("The application returned an error code") != std::string::npos ||
        line.find("application terminated") != std::string::npos) {
      r.program_failed = true;
      r.failure = line;
    }
    if (line.find("No kernels were profiled") != std::string::npos && r.failure.empty())
      r.failure = "ncu profiled no kernels (check the kernel/NVTX filters and that the program launches kernels)";
  }
}

namespace {
// Whether ncu wrote a CSV row (a line opening with a quote), not only ==WARNING== lines.
bool has_csv_row(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] == '"') return true;
  return false;
}
}  // namespace

std::vector<std::string> export_report_pages(const std::string& ncu_exe, const std::string& report,
                                             const std::string& out_dir, std::vector<std::string>& messages) {
  // Base units so no auto-scaling guesswork.
  struct Page { const char* name; std::vector<std::string> args; };
  const std::vector<Page> pages = {
      {"raw", {"--page", "raw", "--print-units", "base"}},
      {"details", {"--page", "details", "--print-units", "base"}},
      {"source", {"--page", "source", "--print-source", "sass,cuda"}},
      {"session", {"--page", "session"}},
  };
  std::vector<std::string> files;
  for (const auto& p : pages) {
    ProcessSpec ex;
    ex.argv = {ncu_exe, "--import", report, "--csv"};
    ex.argv.insert(ex.argv.end(), p.args.begin(), p.args.end());
    auto out = (fs::path(out_dir) / (std::string("ncu_") + p.name + ".csv")).string();
    ex.stdout_file = out;
    ex.stderr_file = (fs::path(out_dir) / (std::string("ncu_") + p.name + ".err")).string();
    auto res = run_process(ex);
    // `sass,cuda` prints nothing but a warning per kernel when no kernel was built with -lineinfo (PyTorch's,
    // cuBLAS's, cuDNN's on the H200): then the SASS alone.
    if (res.exit_code == 0 && std::string(p.name) == "source" && !has_csv_row(out)) {
      ex.argv.back() = "sass";
      res = run_process(ex);
    }
    if (res.exit_code == 0 && fs::file_size(out) > 0) files.push_back(out);
    else messages.push_back(std::string("export of the ") + p.name + " page failed: " + res.describe());
  }
  return files;
}

NcuRunResult run_ncu(const NcuRunOptions& opt) {
  auto ncu_exe = find_executable(opt.ncu);
  if (!ncu_exe)
    throw Error("Nsight Compute (`" + opt.ncu + "`) is not on PATH. Install Nsight Compute or pass --ncu PATH; "
                "`--prof-type=event` and `--prof-type=nsys` work without it.", kExitNoTool);
  fs::create_directories(opt.work_dir);
  if (opt.collection == NcuCollection::metric_list) fs::create_directories(fs::path(opt.work_dir) / "no-sections");
  NcuRunResult r;
  r.log_file = (fs::path(opt.work_dir) / "ncu_console.log").string();
  ProcessSpec spec;
  spec.argv = ncu_collect_args(opt);
  spec.argv[0] = *ncu_exe;
  spec.stdout_file = r.log_file;
  spec.stderr_file = "=stdout";
  r.process = run_process(spec);
  classify_ncu_log(read_file(r.log_file), r);
  if (r.process.interrupted && r.failure.empty()) r.failure = "interrupted (Ctrl-C)";
  if (!r.process.interrupted && (r.process.signaled || r.process.exit_code != 0) && r.failure.empty())
    r.failure = "ncu " + r.process.describe();

  if (opt.collection == NcuCollection::metric_list) {
    auto raw = (fs::path(opt.work_dir) / "ncu_raw.csv").string();
    if (fs::exists(raw) && fs::file_size(raw) > 0) r.csv_files.push_back(raw);
    return r;
  }
  r.report_file = (fs::path(opt.work_dir) / "profile.ncu-rep").string();
  if (!fs::exists(r.report_file)) return r;
  r.csv_files = export_report_pages(*ncu_exe, r.report_file, opt.work_dir, r.messages);
  return r;
}

}  // namespace kprof::ncu
