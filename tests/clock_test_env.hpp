// Test helpers for the clock tests: a scratch directory and the fake nvidia-smi wired in through the environment.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "util/fs.hpp"

namespace kprof::clocktest {

class FakeSmiEnv {
 public:
  FakeSmiEnv() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kprof-clock-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
    set("NVIDIA_SMI", KPROF_FIXTURES + "/fake-nvidia-smi/nvidia-smi");
    set("XDG_STATE_HOME", (dir_ / "state").string());
    set("FAKE_SMI_LOG", log().string());
    set("KPROF_LOCK_DIR", dir_.string());
    ::unsetenv("KPROF_ALLOW_CLOCK_CHANGE");
    ::unsetenv("FAKE_SMI_DENY");
  }
  ~FakeSmiEnv() {
    for (const char* v : {"NVIDIA_SMI", "XDG_STATE_HOME", "FAKE_SMI_LOG", "KPROF_LOCK_DIR", "KPROF_ALLOW_CLOCK_CHANGE",
                          "FAKE_SMI_DENY", "FAKE_SMI_OLD_DRIVER", "FAKE_SMI_SET_clocks_default_applications_memory"})
      ::unsetenv(v);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  static void set(const char* k, const std::string& v) { ::setenv(k, v.c_str(), 1); }
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path log() const { return dir_ / "smi.log"; }
  std::string calls() const { return std::filesystem::exists(log()) ? read_file(log()) : ""; }
  // Calls that changed something: everything but queries.
  std::string changes() const {
    std::string out, all = calls();
    size_t pos = 0;
    while (pos < all.size()) {
      size_t nl = all.find('\n', pos);
      std::string line = all.substr(pos, nl - pos);
      if (line.find("--query-gpu") == std::string::npos) out += line + "\n";
      pos = nl == std::string::npos ? all.size() : nl + 1;
    }
    return out;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace kprof::clocktest
