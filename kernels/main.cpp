// kprof-kernels: the bundled kernel packages behind `kprof <package> [<version>]`.
//   kprof-kernels list                                    JSON: packages, versions, params
//   kprof-kernels describe <pkg> [<ver>] [--m=..]         JSON: the plan (stages, FLOPs, min bytes, tile space)
//   kprof-kernels run <pkg> [<ver>] [--m=..] [--runs N] [--tune|--retune|--no-tune] [--no-check]
//                     [--cache-dir D] [--out DIR] [--seed S] [--tune-samples N] [--configs A:B]
// list and describe need no GPU. Exit codes: 0 ok, 1 CUDA/internal failure, 2 usage, 3 wrong result.
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "util/cuda_check.hpp"
#include "core/runner.hpp"
#include "plan/plan_json.hpp"

using namespace kprof;
using namespace kprof::kernels;

namespace {

constexpr const char* kUsage =
    "usage: kprof-kernels list\n"
    "       kprof-kernels describe <package> [<version>] [--param=value ...]\n"
    "       kprof-kernels run <package> [<version>] [--param=value ...] [--runs N] [--tune|--retune|--no-tune]\n"
    "                         [--no-check] [--cache-dir DIR] [--out DIR] [--seed S] [--tune-samples N]\n"
    "                         [--configs A:B]   (tune only configs A..B-1 of each tile space)\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

long to_long(const std::string& opt, const std::string& v) {
  try {
    std::size_t used = 0;
    long x = std::stol(v, &used);
    if (used == v.size() && x >= 0) return x;
  } catch (...) {
  }
  throw UsageError(opt + " needs a non-negative integer (got '" + v + "')");
}

RunSettings parse(const std::vector<std::string>& args) {  // args after the subcommand
  RunSettings s;
  std::vector<std::string> positional;
  static const std::set<std::string> valued{"--runs", "--cache-dir", "--out", "--seed", "--tune-samples", "--configs"};
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a.rfind("--", 0) != 0) {
      positional.push_back(a);
      continue;
    }
    std::string key = a, value;
    bool has_value = false;
    if (auto eq = a.find('='); eq != std::string::npos) key = a.substr(0, eq), value = a.substr(eq + 1), has_value = true;
    if (valued.count(key)) {
      if (!has_value) {
        if (i + 1 >= args.size()) throw UsageError(key + " needs a value");
        value = args[++i];
      }
      if (key == "--runs") s.runs = static_cast<int>(to_long(key, value));
      else if (key == "--cache-dir") s.cache_dir = value;
      else if (key == "--out") s.out_dir = value;
      else if (key == "--seed") s.seed = static_cast<std::uint64_t>(to_long(key, value));
      else if (key == "--tune-samples") s.tune_samples = std::max(1, static_cast<int>(to_long(key, value)));
      else if (key == "--configs") {
        auto colon = value.find(':');
        if (colon == std::string::npos) throw UsageError("--configs needs A:B (config indices, B excluded)");
        long a = to_long(key, value.substr(0, colon)), b = to_long(key, value.substr(colon + 1));
        if (b <= a) throw UsageError("--configs " + value + ": B must be greater than A");
        s.configs = std::make_pair(static_cast<int>(a), static_cast<int>(b));
      }
    } else if (key == "--tune" && !has_value) s.tune = true;
    else if (key == "--retune" && !has_value) s.tune = s.retune = true;
    else if (key == "--no-tune" && !has_value) s.tune = false;
    else if (key == "--no-check" && !has_value) s.check = false;
    else if (has_value) {
      try {
        s.params.set(key.substr(2), value);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    } else {
      throw UsageError("unknown option " + a);
    }
  }
  if (positional.empty()) throw UsageError("missing package name");
  if (positional.size() > 2) throw UsageError("unexpected argument '" + positional[2] + "'");
  s.package = positional[0];
  if (positional.size() == 2) s.version = positional[1];
  if (const char* env = std::getenv("KPROF_AUTOTUNE_CACHE"); env && s.cache_dir == RunSettings{}.cache_dir) s.cache_dir = env;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::cerr << kUsage;
    return args.empty() ? 2 : 0;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "list") {
      std::vector<plan::PackageInfo> infos;
      for (const auto& p : Registry::all()) infos.push_back(p.info);
      std::cout << plan::packages_to_json(infos);
      return 0;
    }
    if (cmd == "describe") {
      auto s = parse(args);
      std::cout << json(describe(s.package, s.version, s.params)).dump(2) << "\n";
      return 0;
    }
    if (cmd == "run") return run_version(parse(args));
    throw UsageError("unknown command '" + cmd + "'");
  } catch (const UsageError& e) {
    std::cerr << "kprof-kernels: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const plan::PlanError& e) {
    std::cerr << "kprof-kernels: " << e.what() << "\n";
    return 2;
  } catch (const CudaError& e) {
    std::cerr << "kprof-kernels: CUDA error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "kprof-kernels: error: " << e.what() << "\n";
    return 1;
  }
}
