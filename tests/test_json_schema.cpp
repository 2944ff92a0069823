// Issue 25: every JSON document a kprof command prints is documented in one schema file (docs/kprof-json.schema.json)
// and each command's output here is validated against its definition, so an agent reading the JSON can rely on the
// documented keys, and a key added without documenting it fails this test.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "model/profile.hpp"
#include "render/contract_markdown.hpp"
#include "render/json_output.hpp"
#include "support/json_schema.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using kprof::test::JsonSchema;

namespace {

const fs::path kSource = KPROF_SOURCE_DIR;
const std::string kBin = KPROF_BINARY;

const JsonSchema& schema() {
  static const JsonSchema s(nlohmann::json::parse(kprof::read_file(kSource / "docs/kprof-json.schema.json")));
  return s;
}

// Runs `kprof <args>` in the source tree and validates its stdout against $defs/<def>.
void expect_valid(const std::string& args, const std::string& def, int code = 0, const std::string& env = "") {
  SCOPED_TRACE(args);
  auto r = kprof::test::run_shell("cd '" + kSource.string() + "' && " + env + " '" + kBin + "' " + args,
                                  kprof::test::scratch_dir("json_schema"));
  ASSERT_EQ(r.code, code) << r.err;
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(r.out)) << r.out.substr(0, 400);
  EXPECT_EQ(schema().check(doc, def), "") << r.out.substr(0, 400);
}

}  // namespace

TEST(JsonSchema, TheSchemaFileParsesAndDefinesEveryOutput) {
  for (const char* def : {"contract", "comparison", "regression", "dry_run", "clock_status", "packages", "devices", "devlog"})
    EXPECT_NO_THROW(schema().check(nlohmann::json::object(), def)) << def;
  // The checker is not vacuous: a contract without its keys, or with an undocumented one, fails.
  EXPECT_NE(schema().check(nlohmann::json::object(), "contract"), "");
  EXPECT_NE(schema().check(nlohmann::json{{"schema", "kprof.dry-run/1"}, {"dry_run", true}, {"dir", nullptr},
                                          {"lines", nlohmann::json::array()}, {"extra", 1}},
                           "dry_run"),
            "");
  EXPECT_EQ(schema().check(nlohmann::json{{"schema", "kprof.dry-run/1"}, {"dry_run", true}, {"dir", nullptr},
                                          {"lines", nlohmann::json::array()}},
                           "dry_run"),
            "");
}

TEST(JsonSchema, EveryCommandsJsonFitsItsDefinition) {
  const std::string scratch = kprof::test::scratch_dir("json_schema_out").string();
  // The contract: analyze of ncu exports (with and without writing), of an artifact, with a baseline.
  expect_valid("analyze tests/fixtures/h200-probe/full_raw.csv tests/fixtures/h200-probe/full_details.csv --json -q "
               "--no-write --b=32 --dtype=bf16",
               "contract");
  expect_valid("analyze examples/h200/profiles/annotation_probe --json -q --out-root '" + scratch + "'", "contract");
  expect_valid("analyze examples/h200/packages/mla_v1_annotation --json -q --no-write --baseline "
               "examples/h200/packages/mla_v1_annotation",
               "contract");
  expect_valid("analyze examples/h200/profiles/nsys_streams --json -q --no-write", "contract");
  // compare, and compare as a CI gate.
  expect_valid("compare examples/h200/profiles/event_elementwise_1 examples/h200/profiles/event_elementwise_2 --json",
               "comparison");
  expect_valid("compare examples/h200/profiles/event_probe examples/h200/profiles/event_probe --json "
               "--fail-on-regression=5%",
               "regression");
  // A dry run, the clock status (through the fake nvidia-smi), the packages and the devices.
  expect_valid("run --prof-type=annotation --dry-run --json -- /bin/true", "dry_run");
  expect_valid("clock status --json", "clock_status", 0,
               "NVIDIA_SMI='" + (kSource / "tests/fixtures/fake-nvidia-smi/nvidia-smi").string() + "'");
  if (fs::exists(fs::path(kBin).parent_path() / "kprof-kernels")) expect_valid("list --json", "packages");
  expect_valid("devices --json", "devices");
  expect_valid("devlog examples/h200/profiles/event_probe --json --docs '" + scratch + "/docs'", "devlog");
}

// Items the example artifacts' top 3 do not hold: one without a figure (null gains) and one of a stage's range.
TEST(JsonSchema, TheContractsItemsWithoutAFigureAndOfAStageFitTheSchema) {
  kprof::ProfileRun run;
  run.kernel = "k";
  for (const char* name : {"stream", "step"}) {
    kprof::Stage s;
    s.name = name;
    kprof::KernelGroup g;
    g.kernel = std::string(name) + "_kernel";
    g.duration_ns.count = 1;
    g.duration_ns.median = 1000;
    kprof::KernelAnalysis a;
    kprof::Opportunity o;
    o.name = "Move fewer DRAM bytes";
    o.remedy = "dram_traffic";
    o.estimated = false;
    a.opportunities.push_back(o);
    g.analysis = a;
    s.kernels.push_back(g);
    run.stages.push_back(s);
  }
  kprof::Opportunity host;
  host.name = "Take the host's work out of the GPU's path";
  host.remedy = "host_work";
  host.scope = "stage";
  host.kernels = {"step"};
  host.est_gain_pct = host.run_gain_pct = 40;
  run.program_opportunities.push_back(host);
  auto doc = nlohmann::json::parse(kprof::render::render_contract_json(run, nullptr));
  doc["dir"] = nullptr;  // the CLI adds where it wrote the artifact
  EXPECT_EQ(schema().check(doc, "contract"), "") << doc.dump(1);
  ASSERT_GE(doc["top3"].size(), 2u);
  EXPECT_EQ(doc["top3"][0]["scope"], "stage");
  EXPECT_TRUE(doc["top3"][1]["est_gain_pct"].is_null());
  // In text the figure is a dash, never 0%.
  const std::string md = kprof::render::render_contract(run, nullptr);
  EXPECT_NE(md.find("Move fewer DRAM bytes (stream_kernel: — of its time) — est. — gain"), std::string::npos) << md;
  // A stage bound outside its kernels leads its rows with the range's own, scope "range", no kernel label.
  run.stages[0].range = kprof::RangeTime{.instances = 3, .span_ns = 2e6, .idle_ns = 1.6e6};
  kprof::Bottleneck bound;
  bound.kind = kprof::BottleneckKind::latency;
  bound.cause = "launch_overhead";
  bound.key_issue = "GPU idle 80% of the range (launch gaps)";
  run.stages[0].bound = bound;
  doc = nlohmann::json::parse(kprof::render::render_contract_json(run, nullptr));
  doc["dir"] = nullptr;
  EXPECT_EQ(schema().check(doc, "contract"), "") << doc.dump(1);
  EXPECT_EQ(doc["stages"][0]["scope"], "range");
  EXPECT_EQ(doc["stages"][0]["kernel"], "");
  EXPECT_EQ(doc["stages"][0]["launches"], 3);
  EXPECT_EQ(doc["stages"][1]["scope"], "kernel");
  doc["stages"][0]["scope"] = "program";
  EXPECT_NE(schema().check(doc, "contract"), "");
  EXPECT_NE(kprof::render::render_contract(run, nullptr).find("(range) | 2000.0 ×3 |"), std::string::npos)
      << kprof::render::render_contract(run, nullptr);
}
