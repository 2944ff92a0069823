// scripts/: every script is listed in scripts/README.md (the one place that says what each is for) and parses.
// The device scripts run only on the GPU machine; `bash -n` is what can be checked here.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;

TEST(Scripts, EveryScriptIsListedInTheReadmeAndParses) {
  const fs::path dir = fs::path(KPROF_SOURCE_DIR) / "scripts";
  const std::string readme = kprof::read_file(dir / "README.md");
  int scripts = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".sh" && ext != ".py")) continue;
    ++scripts;
    const std::string rel = fs::relative(e.path(), dir).string();
    EXPECT_NE(readme.find("| `" + rel + "` |"), std::string::npos) << rel << " is not in scripts/README.md";
    if (ext == ".sh") {
      auto r = kprof::test::run_shell("bash -n " + e.path().string(), kprof::test::scratch_dir("scripts"));
      EXPECT_EQ(r.code, 0) << rel << ": " << r.err;
    }
  }
  EXPECT_GE(scripts, 17);
}

TEST(Scripts, DeviceScriptsShareOneStepHelperAndOneOutputDefault) {
  const fs::path dir = fs::path(KPROF_SOURCE_DIR) / "scripts";
  for (const auto& e : fs::directory_iterator(dir / "device")) {
    if (e.path().extension() != ".sh" || e.path().filename() == "steps.sh" || e.path().filename() == "pack.sh")
      continue;
    const std::string text = kprof::read_file(e.path());
    SCOPED_TRACE(e.path().filename().string());
    EXPECT_NE(text.find(". \"$(dirname \"$0\")/steps.sh\""), std::string::npos);
    EXPECT_EQ(text.find("step() {"), std::string::npos);      // no private step helper
    EXPECT_EQ(text.find("traced() {"), std::string::npos);    // no private tracer helper
    EXPECT_EQ(text.find("OUT=${OUT:-"), std::string::npos);   // the output default is steps.sh's
  }
  const std::string check = kprof::read_file(dir / "device-check.sh");
  EXPECT_NE(check.find("/device/steps.sh\""), std::string::npos);
  EXPECT_EQ(check.find("traced() {"), std::string::npos);
}
