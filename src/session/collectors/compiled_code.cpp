// Compiled code (ncu mode): cuobjdump's PTX, SASS and resource usage of the program's own kernels into compiled/
// (CUDA executables only; a Python program's kernels are JIT-compiled and not in the binary). The files are kept
// for the reader of the artifact; nothing reads them back.
#include <fstream>

#include "session/collectors/collectors.hpp"
#include "util/fs.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

namespace {

class CompiledCodeDump : public Collector {
 public:
  CollectorKind kind() const override { return CollectorKind::CompiledCode; }
  std::vector<std::string> describe(const CollectorContext&) const override {
    return {"compiled-code: cuobjdump -ptx, -sass, -res-usage of the program (CUDA executables) → compiled/"};
  }
  void run(CollectorContext& ctx, Collected& c) override {
    PassRecord p{kind()};
    dump(ctx.spec.command[0], ctx.dir, p.warnings);
    c.passes.push_back(std::move(p));
  }

 private:
  static bool holds_no_device_code(const std::string& stderr_file) {
    std::ifstream in(stderr_file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.find("does not contain device code") != std::string::npos;
  }
  static std::string program_name(const std::string& path) { return fs::path(path).filename().string(); }
  static void dump(const std::string& program, const fs::path& dir, std::vector<std::string>& warnings) {
    auto exe = find_executable(program);
    if (!exe) return;
    std::string head;
    {
      std::ifstream in(*exe, std::ios::binary);
      head.resize(4);
      if (!in.read(head.data(), 4) || head != "\x7f" "ELF") return;
    }
    auto cuobjdump = find_executable("cuobjdump");
    if (!cuobjdump) {
      if (auto cuda = find_executable("/usr/local/cuda/bin/cuobjdump")) cuobjdump = cuda;
      else {
        warnings.push_back("cuobjdump not found: no PTX/SASS dump in compiled/");
        return;
      }
    }
    for (auto [flag, file] : {std::pair{"-ptx", "ptx.txt"}, {"-sass", "sass.txt"}, {"-res-usage", "resource-usage.txt"}}) {
      ProcessSpec spec;
      spec.argv = {*cuobjdump, flag, *exe};
      spec.stdout_file = (dir / "compiled" / file).string();
      spec.stderr_file = (dir / "compiled" / (std::string(file) + ".err")).string();
      auto r = run_process(spec);
      std::error_code ec;
      if (r.exit_code != 0 && holds_no_device_code(spec.stderr_file)) {
        // An interpreter (python3): its kernels are compiled at run time (Triton, PyTorch JIT) and not in it.
        for (auto f : {"ptx.txt", "sass.txt", "resource-usage.txt"}) {
          fs::remove(dir / "compiled" / f, ec);
          fs::remove(dir / "compiled" / (std::string(f) + ".err"), ec);
        }
        fs::remove(dir / "compiled", ec);  // only when empty
        warnings.push_back(program_name(*exe) + " holds no device code (kernels compiled at run time, as Triton's "
                           "and PyTorch's, are not in it): no PTX/SASS dump in compiled/; ncu's source pages "
                           "hold the SASS of what ran");
        return;
      }
      if (r.exit_code != 0) warnings.push_back(std::string("cuobjdump ") + flag + " " + r.describe());
      if (fs::file_size(spec.stderr_file, ec) == 0) fs::remove(spec.stderr_file, ec);
    }
  }
};

}  // namespace

CollectorRow compiled_code_row() {
  return {.kind = CollectorKind::CompiledCode,
          .name = "compiled-code",
          .planned = [](const ModeEntry&, const RunSpec&) { return true; },
          .make = []() -> std::unique_ptr<Collector> { return std::make_unique<CompiledCodeDump>(); }};
}

}  // namespace kprof::session
