#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "analyze/device_db.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

#include "datasheet_devices.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {
DeviceDb shipped() { return DeviceDb::parse(read_file(KPROF_SOURCE_DIR + "/data/devices.json"), "devices.json"); }
DeviceDb datasheet() { return datasheet_db(); }
DeviceInfo info(std::string name, std::string cc = "", int sms = 0) {
  DeviceInfo d;
  d.name = std::move(name);
  d.compute_capability = std::move(cc);
  d.sm_count = sms;
  return d;
}
}  // namespace

TEST(DeviceDb, ShippedFileHasSixDevicesWithDensePeaks) {
  auto db = shipped();
  ASSERT_EQ(db.devices().size(), 6u);
  const DeviceSpec* h200 = db.find("h200-sxm");
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->sm_count, 132);
  EXPECT_DOUBLE_EQ(h200->datasheet.at("dram_gbps").value, 4800);
  EXPECT_DOUBLE_EQ(h200->datasheet.at("bf16_tflops").value, 989.5);  // 1979 with sparsity / 2
  EXPECT_NE(h200->datasheet.at("bf16_tflops").source.find("sparsity figure / 2"), std::string::npos);
  EXPECT_DOUBLE_EQ(h200->datasheet.at("fp32_tflops").value, 67);
  // The H200 entry carries the figures kprof-peaks measured on the device machine (examples/h200/peaks.json);
  // they win over the datasheet while the datasheet figures stay in the file.
  EXPECT_EQ(h200->peak_kind("dram_gbps"), "measured");
  EXPECT_NEAR(h200->measured.at("dram_gbps").value, 4397.89, 0.01);  // the fastest run of the best read:write mix
  EXPECT_EQ(h200->measured.at("dram_gbps").source.rfind("kprof-peaks 2026-12-03, fastest of 7", 0), 0u);
  EXPECT_NEAR(h200->measured.at("bf16_tflops").value, 796.19, 0.01);
  EXPECT_DOUBLE_EQ(h200->datasheet.at("dram_gbps").value, 4800);
  EXPECT_FALSE(db.find("a100-sxm-80gb")->peak("fp8_tflops").has_value());  // Ampere has no FP8
  for (const auto& d : db.devices()) {
    EXPECT_FALSE(d.compute_capability.empty()) << d.id;
    for (const auto& [key, p] : d.datasheet) EXPECT_FALSE(p.source.empty()) << d.id << " " << key;
  }
}

TEST(DeviceDb, MatchesProfilerNamesExactlyAndCaseInsensitively) {
  auto db = shipped();
  EXPECT_EQ(db.match(info("NVIDIA H200"))->id, "h200-sxm");
  EXPECT_EQ(db.match(info("nvidia h100 80gb hbm3"))->id, "h100-sxm");
  EXPECT_EQ(db.match(info("NVIDIA A100-SXM4-80GB"))->id, "a100-sxm-80gb");
  EXPECT_EQ(db.match(info("NVIDIA GeForce RTX 4090"))->id, "rtx-4090");
}

TEST(DeviceDb, SubstringMatchButNotAcrossVariants) {
  auto db = shipped();
  EXPECT_EQ(db.match(info("NVIDIA H200 SXM5 141GB HBM3e"))->id, "h200-sxm");
  std::string why;
  EXPECT_EQ(db.match(info("NVIDIA H200 NVL", "9.0", 132), &why), nullptr);
  EXPECT_NE(why.find("NVL variant"), std::string::npos) << why;
  EXPECT_EQ(db.match(info("NVIDIA H100 PCIe", "9.0", 114), &why), nullptr);
}

TEST(DeviceDb, FallsBackToComputeCapabilityAndSmCountWhenUnique) {
  auto db = shipped();
  EXPECT_EQ(db.match(info("", "8.0", 108))->id, "a100-sxm-80gb");
  std::string why;
  EXPECT_EQ(db.match(info("", "9.0", 132), &why), nullptr);  // H100 SXM and H200 share 9.0 / 132 SMs
  EXPECT_NE(why.find("h100-sxm"), std::string::npos);
  EXPECT_NE(why.find("h200-sxm"), std::string::npos);
  EXPECT_EQ(db.match(info("Mystery GPU", "7.5", 40), &why), nullptr);
  EXPECT_NE(why.find("Mystery GPU"), std::string::npos);
}

TEST(DeviceDb, UserEntriesOverrideKeyByKeyAndAddNewIds) {
  auto db = datasheet();
  db.merge(R"({"devices": [
      {"id": "h200-sxm", "measured": {"dram_gbps": {"value": 4300, "source": "kprof peaks --measure"}}},
      {"id": "my-gpu", "name": "My GPU", "aliases": ["Lab GPU"], "compute_capability": "8.6", "sm_count": 84}]})",
           "user.json");
  const DeviceSpec* h200 = db.find("h200-sxm");
  EXPECT_DOUBLE_EQ(h200->peak("dram_gbps")->value, 4300);
  EXPECT_EQ(h200->peak_kind("dram_gbps"), "measured");
  EXPECT_DOUBLE_EQ(h200->peak("bf16_tflops")->value, 989.5);  // untouched keys survive
  EXPECT_EQ(h200->sm_count, 132);
  EXPECT_EQ(db.devices().size(), 7u);
  EXPECT_EQ(db.match(info("Lab GPU"))->id, "my-gpu");
}

TEST(DeviceDb, MalformedFileIsAParseErrorNamingIt) {
  try {
    DeviceDb::parse("{\"devices\": [", "/tmp/broken-devices.json");
    FAIL() << "expected ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "/tmp/broken-devices.json");
    EXPECT_EQ(e.exit_code(), kExitBadInput);
  }
  EXPECT_THROW(DeviceDb::parse(R"({"devices": [{"name": "no id"}]})", "x.json"), ParseError);
  EXPECT_THROW(DeviceDb::parse(R"({"devices": [{"id": "a", "sm_count": "many"}]})", "x.json"), ParseError);
  // nlohmann reports a number too large for a double as out_of_range, not parse_error (fuzz finding, CI stop 17).
  EXPECT_THROW(DeviceDb::parse("9e999", "x.json"), ParseError);
  EXPECT_THROW(DeviceDb::parse(R"({"devices": [{"id": "a", "sm_count": 1e400}]})", "x.json"), ParseError);
}

TEST(DeviceDb, LoadsShippedAndUserFileFromEnvironment) {
  auto dir = std::filesystem::temp_directory_path() / "kprof_test_devdb";
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "devices.json",
                    R"({"devices": [{"id": "l40s", "datasheet": {"dram_gbps": {"value": 1, "source": "t"}}}]})");
  ::setenv("KPROF_DEVICES", (dir / "devices.json").c_str(), 1);
  auto db = DeviceDb::load();
  ::unsetenv("KPROF_DEVICES");
  EXPECT_DOUBLE_EQ(db.find("l40s")->peak("dram_gbps")->value, 1);
  EXPECT_DOUBLE_EQ(db.find("l40s")->peak("fp32_tflops")->value, 91.6);
  EXPECT_THROW(DeviceDb::load(dir / "missing.json"), Error);
}
