// Values the parsers must not analyse silently (issue 12): decimal commas, NaN/inf, negative times, percentages
// outside 0..100, short rows, empty kernel names — in ncu CSV pages, counters.json and traces. Each either becomes
// a warning that names the file, line and field (and the value is left out), or a ParseError naming them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "analyze/thresholds.hpp"
#include "collect/counters/counters_import.hpp"
#include "collect/ncu/csv_stream.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "collect/ncu/raw_page.hpp"
#include "collect/ncu/units.hpp"
#include "collect/ncu/value_checks.hpp"
#include "collect/merge_counters.hpp"
#include "collect/stage_grouping.hpp"
#include "collect/trace/trace_launches.hpp"
#include "collect/trace/trace_reader.hpp"
#include "collect/trace/trace_writer.hpp"
#include "ncu_test_support.hpp"
#include "plan/bench_sweep.hpp"

using namespace kprof;
using namespace kprof::ncu;
using kprof::test::expect_parse_error;

namespace {

const char* kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"gpu__time_duration.sum\","
    "\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"dram__bytes.sum\","
    "\"smsp__issue_active.max.pct_of_peak_sustained_active\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"%\",\"byte\",\"%\"\n";

std::string row(int id, const std::string& duration, const std::string& occupancy = "50.5",
                const std::string& bytes = "1,024", const std::string& max_pct = "150") {
  return "\"" + std::to_string(id) + "\",\"1\",\"app\",\"k(float *)\",\"(256, 1, 1)\",\"(64, 1, 1)\",\"" + duration +
         "\",\"" + occupancy + "\",\"" + bytes + "\",\"" + max_pct + "\"\n";
}

std::string write_temp(const std::string& name, const std::string& content) {
  auto dir = std::filesystem::temp_directory_path() / "kprof_test_value_validation";
  std::filesystem::create_directories(dir);
  auto p = dir / name;
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

bool has(const std::vector<std::string>& lines, const std::string& fragment) {
  for (const auto& l : lines)
    if (l.find(fragment) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// A run's warnings as their sentences.
std::vector<std::string> texts(const std::vector<Warning>& warnings) {
  std::vector<std::string> out;
  for (const auto& w : warnings) out.push_back(w.text);
  return out;
}

LaunchPage raw(const std::string& text) { return parse_raw_page(split_csv_stream(text, "page.csv")); }

}  // namespace

TEST(ValueValidation, NumbersWithCommasMustBeThousandsSeparators) {
  EXPECT_EQ(parse_number("1,046,904,576"), 1046904576.0);
  EXPECT_EQ(parse_number("63,612.12"), 63612.12);
  EXPECT_EQ(parse_number("-5,000"), -5000.0);
  EXPECT_FALSE(parse_number("0,416320"));  // a decimal comma, not 416320
  EXPECT_FALSE(parse_number("12,3,4"));
  EXPECT_FALSE(parse_number("1.234,5"));
  EXPECT_FALSE(parse_number("1,23"));
  EXPECT_FALSE(parse_number("1234,567"));
  EXPECT_EQ(parse_cell("0,416320").kind, CellKind::decimal_comma);
  EXPECT_EQ(parse_cell("nan").kind, CellKind::not_finite);
  EXPECT_EQ(parse_cell("-inf").kind, CellKind::not_finite);
  EXPECT_EQ(parse_cell("1e999").kind, CellKind::not_finite);
  EXPECT_EQ(parse_cell("1e-999").kind, CellKind::number);
  EXPECT_EQ(parse_cell("n/a").kind, CellKind::missing);
  EXPECT_EQ(parse_cell("PolicySpread").kind, CellKind::text);
}

TEST(ValueValidation, PlausibleRawPageHasNoWarnings) {
  LaunchPage p = raw(std::string(kHeader) + row(0, "5,000"));
  EXPECT_TRUE(p.warnings.empty()) << joined(p.warnings);
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_DOUBLE_EQ(*p.launches[0].duration_ns, 5000);
  // ncu's .max shares exceed 100% on real runs: not bounded
  EXPECT_DOUBLE_EQ(p.launches[0].metrics.at("smsp__issue_active.max.pct_of_peak_sustained_active").value, 150);
}

TEST(ValueValidation, NegativeTimeIsAWarningAndLeftOut) {
  LaunchPage p = raw(std::string(kHeader) + row(0, "-5,000"));
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("page.csv:3"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("gpu__time_duration.sum"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("negative time"), std::string::npos) << p.warnings[0];
  EXPECT_FALSE(p.launches[0].duration_ns);
  EXPECT_EQ(p.launches[0].metrics.count("gpu__time_duration.sum"), 0u);
}

TEST(ValueValidation, OccupancyOutsideZeroToHundredIsAWarning) {
  LaunchPage p = raw(std::string(kHeader) + row(0, "5,000", "1,234,567.5") + row(1, "5,000", "100.4") +
                     row(2, "5,000", "-3"));
  EXPECT_EQ(p.warnings.size(), 1u) << joined(p.warnings);  // one line per field and problem
  EXPECT_TRUE(has(p.warnings, "page.csv:3: \"sm__warps_active.avg.pct_of_peak_sustained_active\""))
      << joined(p.warnings);
  EXPECT_TRUE(has(p.warnings, "percentage outside 0..100")) << joined(p.warnings);
  EXPECT_TRUE(has(p.warnings, "(2 cells like it)")) << joined(p.warnings);
  EXPECT_EQ(p.launches[0].metrics.count("sm__warps_active.avg.pct_of_peak_sustained_active"), 0u);
  EXPECT_DOUBLE_EQ(p.launches[1].metrics.at("sm__warps_active.avg.pct_of_peak_sustained_active").value, 100.4);
  EXPECT_EQ(p.launches[2].metrics.count("sm__warps_active.avg.pct_of_peak_sustained_active"), 0u);
}

TEST(ValueValidation, DecimalCommaIsAWarningNotAHugeNumber) {
  LaunchPage p = raw(std::string(kHeader) + row(0, "5,000", "50", "0,416320"));
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("\"dram__bytes.sum\" = \"0,416320\""), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("decimal comma"), std::string::npos) << p.warnings[0];
  EXPECT_EQ(p.launches[0].metrics.count("dram__bytes.sum"), 0u);
}

TEST(ValueValidation, NanAndInfDurationsReachTheRunsWarnings) {
  std::string path = write_temp("nan.csv", std::string(kHeader) + row(0, "nan") + row(1, "inf") + row(2, "5,000"));
  ProfileRun r = import_ncu_files({path});
  const auto w = texts(r.warnings);
  EXPECT_TRUE(has(w, "nan.csv:3: \"gpu__time_duration.sum\" = \"nan\": not a finite number")) << joined(w);
  EXPECT_TRUE(has(w, "(2 cells like it)")) << joined(w);
}

// A launch ncu could not measure (a kernel that faulted, on the H200: 1 733 fields of `--set full`) prints nan in
// every field: the first few fields are named, the rest summed up in one line naming the launch; not one warning
// per field.
TEST(ValueValidation, ALaunchOfNanValuesIsOneSummaryNotAWarningPerField) {
  std::string header = "\"ID\",\"Process ID\",\"Process Name\",\"Kernel Name\",\"Block Size\",\"Grid Size\"";
  std::string units = "\"\",\"\",\"\",\"\",\"\",\"\"";
  std::string good = "\"0\",\"1\",\"app\",\"k(float *)\",\"(256, 1, 1)\",\"(64, 1, 1)\"";
  std::string faulted = "\"1\",\"1\",\"app\",\"wild_store(float *, int)\",\"(256, 1, 1)\",\"(64, 1, 1)\"";
  for (int m = 0; m < 12; ++m) {
    header += ",\"metric_" + std::string(1, static_cast<char>('a' + m)) + "__x.sum\"";
    units += ",\"byte\"";
    good += ",\"" + std::to_string(m + 1) + "\"";
    faulted += ",\"nan\"";
  }
  LaunchPage p = raw(header + "\n" + units + "\n" + good + "\n" + faulted + "\n");
  ASSERT_EQ(p.warnings.size(), ValueWarnings::kListedFields + 1) << joined(p.warnings);
  EXPECT_TRUE(has(p.warnings, "page.csv:4: \"metric_a__x.sum\" = \"nan\": not a finite number")) << joined(p.warnings);
  const std::string& summary = p.warnings.back();
  EXPECT_NE(summary.find("9 more fields (9 cells, the first at line 4) are not finite numbers"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("; in launch 1 (wild_store). "), std::string::npos) << summary;
  EXPECT_NE(summary.find("could not measure"), std::string::npos) << summary;
  EXPECT_EQ(p.launches[1].metrics.count("metric_a__x.sum"), 0u);
  EXPECT_EQ(p.launches[0].metrics.count("metric_a__x.sum"), 1u);
  // Four fields or fewer: each named, no summary.
  ValueWarnings few;
  for (const char* f : {"a", "b", "c", "d"}) few.note(ValueProblem::not_finite, "x.csv", 2, f, "nan", "0 (k)");
  EXPECT_EQ(few.messages().size(), 4u);
  // Five: three named, "2 more fields"; ten launches: three named, "and 7 more".
  ValueWarnings many;
  for (int launch = 0; launch < 10; ++launch)
    for (const char* f : {"a", "b", "c", "d", "e"})
      many.note(ValueProblem::not_finite, "x.csv", 2 + launch, f, "nan", std::to_string(launch) + " (k)");
  const auto m = many.messages();
  ASSERT_EQ(m.size(), 4u) << joined(m);
  EXPECT_NE(m[3].find("x.csv: 2 more fields (20 cells, the first at line 2) are not finite numbers"), std::string::npos)
      << m[3];
  EXPECT_NE(m[3].find("; in launch 0 (k), launch 1 (k), launch 2 (k) and 7 more."), std::string::npos) << m[3];
}

// The same on the H200 (tests/fixtures/h200-misbehave): `kprof run --prof-type=ncu -- misbehave fault`, whose
// `wild_store` faults. ncu prints nan in every field of that launch (1 680 on the raw page, 54 on the details page)
// and gave 1 733 warnings before; now a handful, naming the launch. Its launch has no shape ((0, 0, 0)), so the
// traced group says the launch had no values instead of "another launch shape".
TEST(ValueValidation, H200FaultedLaunchIsSummedUpAndNamedNotAnotherShape) {
  const std::string dir = std::string(KPROF_FIXTURES) + "/h200-misbehave/fault_ncu/";
  NcuImport imported = import_ncu({dir + "ncu_raw.csv", dir + "ncu_details.csv", dir + "ncu_session.csv"});
  const auto w = texts(imported.run.warnings);
  EXPECT_LE(w.size(), 2 * (ValueWarnings::kListedFields + 1)) << joined(w);
  EXPECT_TRUE(has(w, "ncu_raw.csv: 1677 more fields (1677 cells, the first at line 4) are not finite numbers"))
      << joined(w);
  EXPECT_TRUE(has(w, "; in launch 1 (wild_store). ")) << joined(w);
  std::vector<KernelLaunch> ncu_launches;
  for (auto& st : imported.run.stages)
    for (auto& g : st.kernels)
      for (auto& l : g.launches) ncu_launches.push_back(l);
  auto stages = group_into_stages(kernel_launches(read_trace(dir + "trace.kptrace")));
  auto attach = attach_counters(stages, ncu_launches);
  ASSERT_EQ(attach.size(), 1u) << joined(texts(attach));
  EXPECT_NE(attach[0].text.find("no counters for wild_store: the counter run reached it but reported no values"),
            std::string::npos)
      << attach[0].text;
  EXPECT_EQ(attach[0].code, WarningCode::Counters);
  int with_counters = 0;
  for (const auto& st : stages)
    for (const auto& g : st.kernels)
      if (g.kernel == "scale") with_counters += g.metrics.dram_bytes.has_value();
  EXPECT_EQ(with_counters, 1);  // the kernel that ran before the fault keeps its counters
  // The annotation metric list's raw page of the same fault: 222 nan fields, four warnings.
  NcuImport annot = import_ncu({std::string(KPROF_FIXTURES) + "/h200-misbehave/fault_annot_ncu/ncu_raw.csv"});
  const auto annot_warnings = texts(annot.run.warnings);
  const auto nan_lines = std::count_if(annot_warnings.begin(), annot_warnings.end(), [](const std::string& l) {
    return l.find("not a finite number") != std::string::npos || l.find("are not finite numbers") != std::string::npos;
  });
  EXPECT_EQ(nan_lines, static_cast<long>(ValueWarnings::kListedFields + 1)) << joined(annot_warnings);
  // What ncu left when SIGTERM stopped it during the counter pass: no table, a ParseError (assemble() makes it a
  // warning in a live run: SessionAssemble.MissingOrBrokenRawFilesBecomeWarningsNotCrashes).
  EXPECT_THROW(import_ncu({std::string(KPROF_FIXTURES) + "/h200-misbehave/term_ncu_metrics/ncu_raw.csv"}), ParseError);
}

TEST(ValueValidation, ShortRowsAndBadIdsAreParseErrors) {
  // The issue's page: a row of one field whose value reads 12,3,4 used to become a stage with an empty name.
  expect_parse_error([&] { raw(std::string(kHeader) + "\"12,3,4\"\n"); }, 3, "row has 1 field but the header");
  expect_parse_error([&] { raw(std::string(kHeader) + row(0, "5,000").replace(1, 1, "12,3,4")); }, 3,
                     "launch ID \"12,3,4\" is not a non-negative integer");
  expect_parse_error([&] { raw(std::string(kHeader) + row(0, "1").replace(1, 1, "1e300")); }, 3, "launch ID");
  std::string empty_name = row(0, "5,000");
  empty_name.replace(empty_name.find("k(float *)"), 10, "");
  expect_parse_error([&] { raw(std::string(kHeader) + empty_name); }, 3, "\"Kernel Name\" is empty");
}

TEST(ValueValidation, CountersJsonValuesAreChecked) {
  auto s = counters::parse_counters(
      R"({"schema":"kprof.counters/1","chip":"GH100","units":{"gpu__time_duration.sum":"nanosecond",
          "sm__warps_active.avg.pct_of_peak_sustained_active":"percent"},
          "kernels":[{"mangled":"_Z1fv","grid":[1,1,1],"block":[32,1,1],"registers":16,
                      "theoretical_occupancy_pct":250.0,
                      "values":{"gpu__time_duration.sum":-5000,"sm__warps_active.avg.pct_of_peak_sustained_active":1e6,
                                "dram__bytes.sum":1024}}]})",
      "counters.json");
  ASSERT_EQ(s.launches.size(), 1u);
  const auto& l = s.launches[0];
  EXPECT_FALSE(l.duration_ns);
  EXPECT_EQ(l.metrics.count("gpu__time_duration.sum"), 0u);
  EXPECT_EQ(l.metrics.count("sm__warps_active.avg.pct_of_peak_sustained_active"), 0u);
  EXPECT_EQ(l.metrics.count("sm__maximum_warps_per_active_cycle_pct"), 0u);
  EXPECT_EQ(l.metrics.at("dram__bytes.sum").value, 1024);
  EXPECT_TRUE(has(s.warnings, "counters.json: \"f: gpu__time_duration.sum\" = \"-5000\": negative time"))
      << joined(s.warnings);
  EXPECT_TRUE(has(s.warnings, "percentage outside 0..100")) << joined(s.warnings);
  EXPECT_TRUE(has(s.warnings, "theoretical_occupancy_pct")) << joined(s.warnings);
  EXPECT_THROW(counters::parse_counters(
                   R"({"schema":"kprof.counters/1","kernels":[{"mangled":"_Z1fv","registers":1e300,"values":{}}]})",
                   "counters.json"),
               ParseError);
  // A schema that is not a string (fuzz_counters_json, run H): a ParseError, not nlohmann's type_error escaping.
  for (const char* doc : {R"({"schema": 741.517425})", R"({"schema": null})", R"({"schema": ["kprof.counters/1"]})"})
    EXPECT_THROW(counters::parse_counters(doc, "counters.json"), ParseError) << doc;
}

TEST(ValueValidation, TraceJsonlRejectsNegativeAndFractionalTimestamps) {
  expect_parse_error([] { parse_trace("{\"kind\":\"kernel\",\"name\":\"_Z1fv\",\"start\":-5,\"end\":10}\n", "t.jsonl"); },
                     1, "field \"start\": -5 is negative");
  expect_parse_error(
      [] { parse_trace("\n{\"kind\":\"kernel\",\"name\":\"_Z1fv\",\"start\":1e30,\"end\":2e30}\n", "t.jsonl"); }, 2,
      "field \"start\"");
  expect_parse_error(
      [] { parse_trace("{\"kind\":\"kernel\",\"name\":\"_Z1fv\",\"start\":1,\"end\":2,\"regs\":1.5}\n", "t.jsonl"); }, 1,
      "field \"regs\": 1.5 is not an integer");
}

TEST(ValueValidation, KptraceKernelsEndingBeforeTheyStartAreLeftOutWithAWarning) {
  using namespace kprof::trace_format;
  TraceBuffer b;
  auto name = b.intern("_Z1fv");
  for (int i = 0; i < 3; ++i) {
    RawKernel k{};
    k.start = 1'000'000 + i * 10'000;
    k.end = i == 1 ? k.start - 5000 : k.start + 5000;  // the second one runs backwards
    k.name = name;
    k.correlation = i + 1;
    b.kernels.push(k);
  }
  Trace t = parse_trace(b.serialize(TraceFileInfo{}), "t.kptrace");
  EXPECT_EQ(t.kernels.size(), 2u);
  EXPECT_TRUE(has(t.info.warnings, "1 kernel record(s) end before they start")) << joined(t.info.warnings);
  for (const auto& k : t.kernels) EXPECT_GE(k.end_ns, k.start_ns);
}

// The streamed import keeps raw-page metrics compact and expands only the launches the groups keep: what they hold
// must be exactly what the in-memory parser reads.
TEST(ValueValidation, StreamedImportKeepsTheSameMetricsAsTheInMemoryParser) {
  std::string file = kprof::test::probe_fixture("full_raw.csv");
  LaunchPage page = parse_raw_page(read_csv_stream(file));
  ProfileRun r = import_ncu_files({file});
  std::size_t checked = 0;
  for (const auto& st : r.stages)
    for (const auto& g : st.kernels)
      for (const auto& l : g.launches) {
        const KernelLaunch* ref = nullptr;
        for (const auto& p : page.launches)
          if (p.id == l.id) ref = &p;
        ASSERT_NE(ref, nullptr);
        ASSERT_EQ(l.metrics.size(), ref->metrics.size()) << l.name;
        for (const auto& [n, v] : ref->metrics) {
          const auto& got = l.metrics.at(n);
          EXPECT_EQ(got.unit, v.unit) << n;
          EXPECT_EQ(got.text, v.text) << n;
          EXPECT_EQ(got.numeric, v.numeric) << n;
          EXPECT_EQ(got.value, v.value) << n;
        }
        ++checked;
      }
  EXPECT_EQ(checked, page.launches.size());
}

TEST(ValueValidation, StreamedImportOfManyLaunchesKeepsTheMedianRepresentative) {
  std::string text = kHeader;
  for (int i = 0; i < 21; ++i) text += row(i, std::to_string(1000 + 100 * ((i * 5) % 21)));  // 1000..3000 in a shuffled order
  ProfileRun r = import_ncu_files({write_temp("many.csv", text)});
  ASSERT_EQ(r.stages.size(), 1u);
  const KernelGroup& g = r.stages[0].kernels[0];
  EXPECT_EQ(g.duration_ns.count, 21u);
  EXPECT_DOUBLE_EQ(g.duration_ns.median, 2000);
  EXPECT_EQ(g.launches.size(), 8u);
  const KernelLaunch& rep = g.launches[g.representative];
  EXPECT_DOUBLE_EQ(rep.metrics.at("gpu__time_duration.sum").value, 2000);
  EXPECT_DOUBLE_EQ(rep.metrics.at("dram__bytes.sum").value, 1024);  // expanded from the compact store
  ASSERT_TRUE(g.metrics.duration_ns);
  EXPECT_DOUBLE_EQ(*g.metrics.duration_ns, 2000);
  for (const auto& l : g.launches) EXPECT_EQ(l.metrics.count("dram__bytes.sum"), 1u) << l.id;
}

TEST(ValueValidation, StreamedCsvEqualsInMemorySplit) {
  for (const char* name : {"full_raw.csv", "full_details.csv", "source_wmma.csv", "quick.csv", "session.csv"}) {
    std::string file = kprof::test::probe_fixture(name);
    CsvStream a = read_csv_stream(file);
    std::ifstream in(file, std::ios::binary);
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CsvStream b = split_csv_stream(content, file);
    ASSERT_EQ(a.items.size(), b.items.size()) << name;
    for (std::size_t i = 0; i < a.items.size(); ++i) {
      EXPECT_EQ(a.items[i].line, b.items[i].line);
      EXPECT_EQ(a.items[i].fields, b.items[i].fields);
      EXPECT_EQ(a.items[i].text, b.items[i].text);
    }
    EXPECT_EQ(a.recovered_lines, b.recovered_lines) << name;
  }
}

// Found by fuzz_sweep: toml++ 3.3.0 reaches TOML_UNREACHABLE on "Ѕ" (U+0405) and other non-ASCII characters, also
// inside a quoted string on a line it then rejects. Both TOML readers now reject non-ASCII and control bytes first.
TEST(ValueValidation, NonAsciiOutsideTomlStringsIsAParseErrorNotUndefinedBehaviour) {
  expect_parse_error([] { kprof::plan::parse_sweep("runs = 3\n\xd0\x85m = 1\n", "sweeps.toml"); }, 2,
                     "non-ASCII character");
  expect_parse_error([] { kprof::analyze::Thresholds t; t.apply("# ok\n\xd0\x85\n", "thresholds.toml"); }, 2,
                     "non-ASCII");
  expect_parse_error([] { kprof::plan::parse_sweep("m=126=61\"\xef\xbb\xbe" "27=64", "s.toml"); }, 1, "non-ASCII");
  EXPECT_NO_THROW(kprof::plan::parse_sweep("# comment\nruns = 3 # ascii\n", "sweeps.toml"));
  // The second finding: a control character (here BEL and NUL, which TOML forbids) before a quoted non-ASCII byte.
  expect_parse_error([] { kprof::plan::parse_sweep(std::string("mm=10\nk=h\x07L\0\"6\xcb\x90s64", 19), "s.toml"); },
                     2, "control character (byte 7)");
}

// Issue 24, item 8: imported data is never dropped without a word.
TEST(ValueValidation, DurationsThatAreNotNumbersAreWarnedNotDroppedSilently) {
  LaunchPage p = raw(std::string(kHeader) + row(0, "0x10") + row(1, std::string(400, '9')) + row(2, "5,000"));
  EXPECT_TRUE(has(p.warnings, "\"gpu__time_duration.sum\" = \"0x10\": not a number")) << joined(p.warnings);
  EXPECT_TRUE(has(p.warnings, "(2 cells like it)")) << joined(p.warnings);
  EXPECT_FALSE(p.launches[0].duration_ns);
  EXPECT_FALSE(p.launches[1].duration_ns);
  EXPECT_DOUBLE_EQ(*p.launches[2].duration_ns, 5000);
}

TEST(ValueValidation, AUnitOfTheWrongKindIsNotReadAsNanoseconds) {
  std::string header = kHeader;
  header.replace(header.find("\"nsecond\""), 9, "\"furlong\"");
  LaunchPage p = raw(header + row(0, "50") + row(1, "7"));
  EXPECT_TRUE(has(p.warnings, "\"gpu__time_duration.sum\" = \"50\": a unit of the wrong kind")) << joined(p.warnings);
  EXPECT_FALSE(p.launches[0].duration_ns);
  EXPECT_FALSE(p.launches[1].duration_ns);
  // A share in bytes is not a share either; a time in usecond is a time.
  EXPECT_TRUE(unit_fits("gpu__time_duration.sum", "ns"));
  EXPECT_FALSE(unit_fits("sm__throughput.avg.pct_of_peak_sustained_elapsed", "byte"));
  EXPECT_TRUE(unit_fits("dram__bytes.sum", "byte"));
  EXPECT_TRUE(unit_fits("gpu__time_duration.sum", ""));  // a page without its units row
  EXPECT_EQ(unit_scale("usecond").base_unit, "ns");
}

TEST(ValueValidation, ATimeLongerThanADayIsImplausible) {
  LaunchPage p = raw(std::string(kHeader) + row(0, "1e308") + row(1, "5,000"));
  EXPECT_TRUE(has(p.warnings, "a time longer than a day")) << joined(p.warnings);
  EXPECT_FALSE(p.launches[0].duration_ns);
  EXPECT_DOUBLE_EQ(*p.launches[1].duration_ns, 5000);
}

TEST(ValueValidation, ALaunchIdListedTwiceWithOtherValuesIsAParseError) {
  // Every ID 0 (IDs rewritten): 3 launches used to become 1.
  expect_parse_error([&] { raw(std::string(kHeader) + row(0, "5,000") + row(0, "6,000") + row(0, "7,000")); }, 4,
                     "launch ID 0 of process 1 was already listed, with other values, on line 3");
  // Two exports of one process concatenated, the second's IDs colliding with the first's.
  expect_parse_error(
      [&] { raw(std::string(kHeader) + row(0, "5,000") + row(1, "5,500") + kHeader + row(0, "6,000")); }, 7,
      "launch ID 0 of process 1 was already listed");
}

TEST(ValueValidation, TheSameExportTwiceIsKeptOnceWithAWarning) {
  const std::string page = std::string(kHeader) + row(0, "5,000") + row(1, "5,500");
  LaunchPage p = raw(page + page);
  ASSERT_EQ(p.launches.size(), 2u);
  EXPECT_TRUE(has(p.warnings, "page.csv:7: 2 rows repeat earlier rows exactly (the first repeats line 3)"))
      << joined(p.warnings);
}

TEST(ValueValidation, ConcatenatedExportsOfTwoProcessesKeepEveryLaunch) {
  std::string second = std::string(kHeader) + row(0, "6,000") + row(1, "6,500") + row(2, "7,000");
  for (std::size_t at = 0; (at = second.find("\"1\",\"app\"", at)) != std::string::npos;) second.replace(at, 3, "\"2\"");
  LaunchPage p = raw(std::string(kHeader) + row(0, "5,000") + row(1, "5,500") + second);
  EXPECT_EQ(p.launches.size(), 5u);
  EXPECT_TRUE(p.warnings.empty()) << joined(p.warnings);
}

TEST(ValueValidation, TwoRawExportsOfDifferentRunsAreRefusedAndOneGivenTwiceIsKeptOnce) {
  std::string a = write_temp("run_a.csv", std::string(kHeader) + row(0, "5,000") + row(1, "5,500"));
  std::string b = write_temp("run_b.csv", std::string(kHeader) + row(0, "5,100") + row(1, "5,600"));
  expect_parse_error([&] { import_ncu_files({a, b}); }, 3, "also on the raw page of " + a);
  ProfileRun twice = import_ncu_files({a, a});
  std::size_t launches = 0;
  for (const auto& s : twice.stages)
    for (const auto& k : s.kernels) launches += k.samples_ns.size();
  EXPECT_EQ(launches, 2u);
  EXPECT_TRUE(has(texts(twice.warnings), "2 launches given twice, kept once")) << joined(texts(twice.warnings));
}

TEST(ValueValidation, EndlessOrBinaryInputEndsWithAParseError) {
  // /dev/zero: no newline, NUL bytes; refused once a block is read, not when memory runs out.
  std::string zeros = write_temp("zeros.csv", std::string(std::size_t{9} << 20, '\0'));
  expect_parse_error([&] { read_csv_stream(zeros); }, 1, "binary data (byte 0x00)");
  // `yes`: lines of text with no table; bounded by the text limit.
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "y\n";
  EXPECT_NO_THROW(split_csv_stream(text + kHeader + row(0, "5,000"), "t.csv"));
}

// Issue 25: the raw page of one program beside the details page of another is two runs, not one.
TEST(ValueValidation, PagesOfDifferentRunsAreRefused) {
  std::string raw_a = write_temp("a_raw.csv", std::string(kHeader) + row(0, "5,000"));
  std::string other = std::string(kHeader) + row(0, "5,000");
  for (std::size_t at = 0; (at = other.find("\"1\",\"app\"", at)) != std::string::npos;) other.replace(at, 3, "\"7\"");
  std::string raw_b = write_temp("b_raw.csv", other);
  expect_parse_error([&] { import_ncu_files({raw_a, raw_b}); }, 0,
                     "its launches come from process 7, those of " + raw_a + " from 1: the pages come from different runs");
}
