// The bad-input matrix (issue 12): every bad input, unwritable output and artifact collision gets its documented
// exit code (docs/cli.md) and a message naming what is wrong, and leaves no temporary file and no visible partial
// directory behind. Each case drives the real kprof binary on a fresh folder of its own, built from the fixtures in
// tests/fixtures and the committed H200 artifacts in examples/h200 (the autotune cache, which only kprof-kernels
// reads, is checked through the library).
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "model/json_support.hpp"
#include "plan/autotune_cache.hpp"
#include "support/fake_kernels.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"
#include "util/utf8.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = KPROF_FIXTURES;
const fs::path kExamples = fs::path(KPROF_SOURCE_DIR) / "examples/h200/profiles";
const std::string kBin = KPROF_BINARY;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

void put(const fs::path& p, const std::string& content) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}
std::string get(const fs::path& p) { return kprof::read_file(p); }

// A copy of a committed artifact (or a fixture folder) under `dir`.
fs::path copy_of(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy(from, to, fs::copy_options::recursive);
  return to;
}

// ncu's --csv page of one launch (launch 0 of the quick export: one metric per row), with the ID and
// "Kernel Name" cells of every row replaced.
std::string raw_csv(const std::string& id, const std::string& kernel) {
  std::string csv = get(kFixtures / "h200-probe/quick.csv");
  auto cells = [](const std::string& l) {
    std::vector<std::string> out;
    std::string cur;
    bool in = false;
    for (char c : l) {
      if (c == '"') in = !in;
      else if (c == ',' && !in) out.push_back(cur), cur.clear();
      else cur += c;
    }
    out.push_back(cur);
    return out;
  };
  std::vector<std::string> header;
  std::string out;
  std::size_t start = 0;
  while (start < csv.size()) {
    std::size_t end = csv.find('\n', start);
    if (end == std::string::npos) end = csv.size();
    std::string line = csv.substr(start, end - start);
    start = end + 1;
    if (line.rfind("\"ID\",", 0) == 0) {
      header = cells(line);
      out += line + "\n";
    } else if (!header.empty() && line.rfind("\"0\",", 0) == 0) {
      auto r = cells(line);
      for (std::size_t i = 0; i < r.size() && i < header.size(); ++i) {
        std::string v = header[i] == "ID" ? id : header[i] == "Kernel Name" ? kernel : r[i];
        std::string esc;
        for (char c : v) esc += c == '"' ? std::string("\"\"") : std::string(1, c);
        out += (i ? ",\"" : "\"") + esc + "\"";
      }
      out += "\n";
    }
  }
  return out;
}

// No temporary file and no partial directory anywhere under `root` (hidden staging or marked interrupted).
void expect_clean(const fs::path& root) {
  if (!fs::exists(root)) return;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string n = e.path().filename().string();
    EXPECT_EQ(n.find(".tmp."), std::string::npos) << "temporary file left: " << e.path();
    EXPECT_EQ(n.find(".partial-"), std::string::npos) << "staging directory left: " << e.path();
    EXPECT_EQ(n.find(".old-"), std::string::npos) << "replaced artifact left: " << e.path();
    const std::string parent = e.path().parent_path().filename().string();
    const bool marked = parent.size() > 12 && parent.substr(parent.size() - 12) == ".interrupted";
    if (!marked) {
      EXPECT_NE(n, ".kprof-partial") << "partial artifact not marked as such: " << e.path();
    }
  }
}

// The artifact directories (those holding report.md) under `root`.
std::vector<fs::path> artifacts_under(const fs::path& root) {
  std::vector<fs::path> out;
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().filename() == "report.md") out.push_back(e.path().parent_path());
  std::sort(out.begin(), out.end());
  return out;
}

// HTML that a Markdown viewer would render: "<" then a letter or "/", outside code spans, not backslash-escaped.
std::string raw_html(const std::string& md) {
  for (std::size_t i = 0; i < md.size(); ++i) {
    if (md[i] == '`') {  // skip a code span: a run of n backticks up to the next run of exactly n
      std::size_t n = 0;
      while (i + n < md.size() && md[i + n] == '`') ++n;
      std::size_t j = i + n, close = std::string::npos;
      while (j < md.size()) {
        std::size_t m = 0;
        while (j + m < md.size() && md[j + m] == '`') ++m;
        if (m == n) {
          close = j;
          break;
        }
        j += m ? m : 1;
      }
      if (close != std::string::npos && (i == 0 || md[i - 1] != '\\')) {
        i = close + n - 1;
        continue;
      }
      i += n - 1;
      continue;
    }
    if (md[i] == '<' && (i == 0 || md[i - 1] != '\\') && i + 1 < md.size() &&
        (std::isalpha(static_cast<unsigned char>(md[i + 1])) || md[i + 1] == '/'))
      return md.substr(i, 40);
  }
  return "";
}

struct Case {
  std::string name;
  // Writes the case's inputs into `dir` and returns the shell command (kprof and its arguments; `kprof` stands
  // for the binary of this build).
  std::function<std::string(const fs::path& dir)> setup;
  int code;
  std::string message;  // expected in stderr
  // Further checks of the outcome: the artifact tree, the files written.
  std::function<void(const fs::path& dir, const kprof::test::ShellResult& r)> check = nullptr;
};

std::string kprof_cmd(const std::string& args) { return kBin + " " + args; }

// An artifact of `kprof analyze` on the quick export, written into dir/name.
fs::path analysed(const fs::path& dir, const std::string& name) {
  fs::path out = dir / name;
  std::string cmd = kprof_cmd("analyze -q " + q(kFixtures / "h200-probe/quick.csv") + " --out " + q(out)) +
                    " >/dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return out;
}

// A machine without a GPU: the device-node test kprof makes (collect/gpu_presence.cpp).
bool machine_has_gpu() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev", ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind("nvidia", 0) == 0 && n.size() > 6 && std::isdigit(static_cast<unsigned char>(n[6]))) return true;
  }
  return false;
}

// In a case's shell command: wait (up to 30 s) until the profiled program has written its pid to ./started, so
// that the signal reaches kprof while the program runs, however loaded the machine is.
const std::string kWaitForStart = "for i in $(seq 300); do [ -s started ] && break; sleep 0.1; done; ";

std::vector<Case> cases() {
  std::vector<Case> c;
  auto analyze_file = [](const std::string& file, const std::string& content) {
    return [=](const fs::path& d) {
      put(d / file, content);
      return kprof_cmd("analyze " + q(d / file) + " --out-root " + q(d / "out"));
    };
  };
  auto no_artifact = [](const fs::path& d, const kprof::test::ShellResult&) {
    EXPECT_TRUE(artifacts_under(d / "out").empty());
  };

  // --- ncu CSV exports given to kprof analyze -------------------------------------------------------------------
  c.push_back({"CsvEmpty", analyze_file("empty.csv", ""), 3, "empty.csv", no_artifact});
  c.push_back({"CsvBinary", analyze_file("binary.csv", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\x03\0\xff\xfe", 14) +
                                                            std::string(200, '\0')),
               3, "binary.csv", no_artifact});
  c.push_back({"CsvWrongHeader", analyze_file("header.csv", "\"Name\",\"Value\"\n\"a\",\"1\"\n"), 3, "header.csv",
               no_artifact});
  c.push_back({"CsvTruncatedInAQuotedCell",
               [](const fs::path& d) {
                 std::string csv = get(kFixtures / "h200-probe/quick.csv");
                 std::string cut = csv.substr(0, csv.find('\n', csv.find('\n') + 1) + 40);
                 cut += "\"unterminated";
                 put(d / "cut.csv", cut);
                 return kprof_cmd("analyze " + q(d / "cut.csv") + " --out-root " + q(d / "out"));
               },
               3, "cut.csv", no_artifact});
  c.push_back({"CsvLaunchIdAboveIntMax", analyze_file("id.csv", raw_csv("2147483648", "k(float *)")), 3,
               "out of range", no_artifact});
  c.push_back({"CsvLaunchIdNegative", analyze_file("neg.csv", raw_csv("-1", "k(float *)")), 3,
               "not a non-negative integer", no_artifact});
  // Issue 24: the error quoted the cell's raw bytes (not UTF-8, a terminal escape) on stderr.
  c.push_back({"CsvCellNotUtf8IsQuotedSafely", analyze_file("x.csv", raw_csv("\xff\x1b[2J0", "k(float *)")), 3,
               "x.csv",
               [](const fs::path& d, const kprof::test::ShellResult& r) {
                 EXPECT_TRUE(artifacts_under(d / "out").empty());
                 EXPECT_TRUE(kprof::is_valid_utf8(r.err)) << r.err;
                 EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
                 EXPECT_NE(r.err.find("\\x1b[2J0"), std::string::npos) << r.err;
               }});
  c.push_back({"CsvHugeKernelName",
               [](const fs::path& d) {
                 put(d / "huge.csv", raw_csv("0", std::string(4 << 20, 'k') + "(float *)"));
                 return kprof_cmd("analyze -q " + q(d / "huge.csv") + " --out " + q(d / "out/a"));
               },
               0, "", [](const fs::path& d, const auto&) { EXPECT_TRUE(fs::exists(d / "out/a/report.md")); }});
  c.push_back({"CsvMissingFile",
               [](const fs::path& d) { return kprof_cmd("analyze " + q(d / "no-such.csv")); }, 3, "no-such.csv"});
  // Issue 24: a name longer than PATH_MAX was "cannot write" (exit 9) for an input, internal error in the C API.
  auto too_long = [](const fs::path& d) {
    std::string p = d.string();
    while (p.size() <= PATH_MAX) p += "/" + std::string(200, 'x');
    return fs::path(p + ".csv");
  };
  c.push_back({"InputPathLongerThanPathMax",
               [=](const fs::path& d) { return kprof_cmd("analyze " + q(too_long(d)) + " --out-root " + q(d / "out")); },
               3, "File name too long", no_artifact});
  c.push_back({"CompareWithAPathLongerThanPathMax",
               [=](const fs::path& d) { return kprof_cmd("compare " + q(analysed(d, "a")) + " " + q(too_long(d))); },
               3, "File name too long"});
  for (std::string option : {"baseline", "devices", "thresholds"})
    c.push_back({std::string(1, static_cast<char>(std::toupper(option[0]))) + option.substr(1) + "PathLongerThanPathMax",
                 [=](const fs::path& d) {
                   return kprof_cmd("analyze -q " + q(kFixtures / "h200-probe/quick.csv") + " --out-root " +
                                    q(d / "out") + " --" + option + " " + q(too_long(d)));
                 },
                 3, "File name too long", no_artifact});
  c.push_back({"CsvDirectoryWithoutCsv",
               [](const fs::path& d) {
                 put(d / "empty-dir/readme.txt", "x");
                 return kprof_cmd("analyze " + q(d / "empty-dir"));
               },
               3, "no profile.json and no .csv files"});
  // Issue 24, item 8: imported data is never dropped or merged silently; endless input ends.
  c.push_back({"CsvTwoExportsConcatenated",
               [](const fs::path& d) {
                 std::string a = get(kFixtures / "h200-probe/full_raw.csv"), b = a;
                 for (std::size_t at = 0; (at = b.find("\"kernels\"", at)) != std::string::npos; at += 9)
                   b.replace(at, 9, "\"kernelz\"");  // another run's rows under the same process and IDs
                 put(d / "both.csv", a + b);
                 return kprof_cmd("analyze " + q(d / "both.csv") + " --out-root " + q(d / "out"));
               },
               3, "launch ID 0 of process 756 was already listed, with other values", no_artifact});
  c.push_back({"CsvSameNameFromTwoFolders",
               [](const fs::path& d) {
                 put(d / "a/raw.csv", get(kFixtures / "h200-probe/full_raw.csv"));
                 put(d / "b/raw.csv", get(kFixtures / "h200-probe/full_raw.csv"));
                 return kprof_cmd("analyze -q " + q(d / "a/raw.csv") + " " + q(d / "b/raw.csv") + " --out " +
                                  q(d / "out/a"));
               },
               0, "",
               [](const fs::path& d, const auto&) {
                 EXPECT_EQ(get(d / "out/a/inputs/raw.csv"), get(kFixtures / "h200-probe/full_raw.csv"));
                 EXPECT_EQ(get(d / "out/a/inputs/raw-2.csv"), get(kFixtures / "h200-probe/full_raw.csv"));
                 EXPECT_NE(get(d / "out/a/report.md").find("12 launches given twice, kept once"), std::string::npos);
               }});
  c.push_back({"CsvIsADevice", [](const fs::path&) { return kprof_cmd("analyze /dev/zero"); }, 3,
               "/dev/zero: not a file"});
  c.push_back({"CsvEndlessPipe",
               [](const fs::path& d) {
                 return "yes | " + kprof_cmd("analyze /dev/stdin --out-root " + q(d / "out"));
               },
               3, "more than 256 MiB of lines outside any CSV table", no_artifact});

  // --- hostile names in a profile: the run succeeds, nothing of the name becomes markup ----------------------
  c.push_back({"NameWithNewlineBacktickAndScript",
               [](const fs::path& d) {
                 put(d / "hostile.csv", raw_csv("0", "evil`k\n# injected<script>alert(1)</script>(float *)"));
                 return kprof_cmd("analyze -q " + q(d / "hostile.csv") + " --out " + q(d / "out/a"));
               },
               0, "",
               [](const fs::path& d, const auto& r) {
                 for (auto f : {"report.md", "contract.md"}) {
                   std::string md = get(d / "out/a" / f);
                   EXPECT_EQ(raw_html(md), "") << f << ":\n" << md;
                   EXPECT_EQ(md.find("\n# injected"), std::string::npos) << md;  // no line break from the name
                 }
                 EXPECT_NE(get(d / "out/a/report.md").find("\\<script\\>"), std::string::npos);
                 EXPECT_EQ(raw_html(r.out), "") << r.out;
                 std::string svg = fs::exists(d / "out/a/roofline.svg") ? get(d / "out/a/roofline.svg") : "";
                 EXPECT_EQ(svg.find("<script>"), std::string::npos);
               }});
  c.push_back({"NameNotUtf8",
               [](const fs::path& d) {
                 put(d / "latin1.csv", raw_csv("0", "caf\xe9_kernel\xff(float *)"));
                 return kprof_cmd("analyze -q " + q(d / "latin1.csv") + " --out " + q(d / "out/a"));
               },
               0, "",
               [](const fs::path& d, const auto&) {
                 std::string profile = get(d / "out/a/profile.json");
                 EXPECT_TRUE(kprof::is_valid_utf8(profile));
                 EXPECT_NE(profile.find("caf\xef\xbf\xbd_kernel"), std::string::npos);
                 EXPECT_TRUE(kprof::is_valid_utf8(get(d / "out/a/report.md")));
               }});
  c.push_back({"KernelOptionIsHostile",
               [](const fs::path& d) {
                 return kprof_cmd("analyze -q " + q(kFixtures / "h200-probe/quick.csv") +
                                  " --kernel '<img src=x onerror=alert(1)>`x' --out-root " + q(d / "out"));
               },
               0, "",
               [](const fs::path& d, const auto&) {
                 auto a = artifacts_under(d / "out");
                 ASSERT_EQ(a.size(), 1u);
                 EXPECT_EQ(raw_html(get(a[0] / "report.md")), "");
                 EXPECT_NE(get(a[0] / "report.md").find("\\<img"), std::string::npos);
                 EXPECT_EQ(a[0].string().find('<'), std::string::npos);  // the directory name is made safe
               }});
  // Issue 24, item 9: a kernel name longer than a file name may be (255 bytes) still gives an artifact and a devlog.
  c.push_back({"KernelOptionLongerThanAFileName",
               [](const fs::path& d) {
                 return kprof_cmd("analyze -q " + q(kFixtures / "h200-probe/quick.csv") + " --kernel " +
                                  std::string(300, 'k') + " --out-root " + q(d / "out") + " --devlog --docs " +
                                  q(d / "docs"));
               },
               0, "",
               [](const fs::path& d, const auto&) {
                 EXPECT_EQ(artifacts_under(d / "out").size(), 1u);
                 ASSERT_TRUE(fs::exists(d / "docs"));
                 std::size_t entries = 0;
                 for (const auto& e : fs::directory_iterator(d / "docs")) {
                   EXPECT_LE(e.path().filename().string().size(), 255u);
                   entries += e.path().extension() == ".md";
                 }
                 EXPECT_EQ(entries, 1u);
               }});
  c.push_back({"InputPathWithSpacesAndUnicode",
               [](const fs::path& d) {
                 fs::path in = d / "my exports ü" / "quick copy.csv";
                 put(in, get(kFixtures / "h200-probe/quick.csv"));
                 return kprof_cmd("analyze -q " + q(in) + " --out " + q(d / "out/ä b"));
               },
               0, "", [](const fs::path& d, const auto&) { EXPECT_TRUE(fs::exists(d / "out/ä b/inputs/quick copy.csv")); }});

  // --- profile.json of an artifact (analyze DIR, compare, devlog) -------------------------------------------------
  auto bad_profile = [](const std::string& content) {
    return [=](const fs::path& d) {
      fs::path a = analysed(d, "art");
      put(a / "profile.json", content);
      return kprof_cmd("analyze " + q(a) + " --out-root " + q(d / "out"));
    };
  };
  c.push_back({"ProfileJsonEmpty", bad_profile(""), 3, "profile.json", no_artifact});
  c.push_back({"ProfileJsonBinary", bad_profile(std::string("\0\x01\x02\xff\xfe", 5)), 3, "profile.json", no_artifact});
  c.push_back({"ProfileJsonTruncated",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 std::string text = get(a / "profile.json");
                 put(a / "profile.json", text.substr(0, text.size() / 2));
                 return kprof_cmd("analyze " + q(a) + " --out-root " + q(d / "out"));
               },
               3, "profile.json", no_artifact});
  c.push_back({"ProfileJsonWrongSchema", bad_profile("{\"schema\": \"something.else/1\", \"stages\": []}"), 3,
               "not a kprof profile", no_artifact});
  c.push_back({"ProfileJsonSchemaIsANumber", bad_profile("{\"schema\": 741.5, \"stages\": []}"), 3,
               "not a kprof profile", no_artifact});
  // Issue 24, item 9: only the schema this kprof writes is read; a newer one is named as such; each command that
  // reads an artifact holds to that.
  for (const auto& schema_case : std::vector<std::pair<std::string, std::string>>{
           {"99", "written by a newer kprof"}, {"2", "written by a newer kprof"}, {"0", "not a kprof profile"},
           {"", "not a kprof profile"}, {"1x", "not a kprof profile"}, {"01", "not a kprof profile"}})
    for (const std::string cmd : {"analyze", "compare", "devlog"}) {
      const std::string suffix = schema_case.first, why = schema_case.second;  // clang 14 captures no binding
      std::string name = "ProfileJsonSchema" + (suffix.empty() ? std::string("Empty") : suffix) + "In" + cmd;
      std::erase_if(name, [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); });
      c.push_back({name,
                   [suffix, cmd](const fs::path& d) {
                     fs::path a = analysed(d, "art");
                     fs::path ok = analysed(d, "ok");
                     auto j = nlohmann::json::parse(get(a / "profile.json"));
                     j["schema"] = "kprof.profile/" + suffix;
                     put(a / "profile.json", j.dump());
                     if (cmd == "analyze") return kprof_cmd("analyze " + q(a) + " --out-root " + q(d / "out"));
                     if (cmd == "compare") return kprof_cmd("compare " + q(ok) + " " + q(a));
                     return kprof_cmd("devlog " + q(a) + " --docs " + q(d / "docs"));
                   },
                   3, why,
                   [](const fs::path& d, const auto&) {
                     EXPECT_TRUE(artifacts_under(d / "out").empty());
                     EXPECT_FALSE(fs::exists(d / "docs")) << "a devlog entry was written from an unread profile";
                   }});
    }
  c.push_back({"IncompleteArtifactNamedByItsProfileJson",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 fs::path ok = analysed(d, "ok");
                 fs::remove(a / "report.md");
                 return kprof_cmd("compare " + q(ok / "profile.json") + " " + q(a / "profile.json"));
               },
               3, "an incomplete artifact", no_artifact});
  c.push_back({"ProfileJsonStagesNotAnArray", bad_profile("{\"schema\": \"kprof.profile/1\", \"stages\": 5}"), 3,
               "malformed profile.json", no_artifact});
  c.push_back({"ProfileJsonDurationIsText",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 auto j = nlohmann::json::parse(get(a / "profile.json"));
                 j["stages"][0]["kernels"][0]["launches"][0]["duration_ns"] = "fast";
                 put(a / "profile.json", j.dump());
                 return kprof_cmd("analyze " + q(a) + " --out-root " + q(d / "out"));
               },
               3, "at field stages[0].kernels[0].launches[0].duration_ns", no_artifact});
  c.push_back({"ProfileJsonIntegerFieldOutOfRange",  // UB in nlohmann's cast before json_support.hpp checked it
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 auto j = nlohmann::json::parse(get(a / "profile.json"));
                 j["stages"][0]["kernels"][0]["launches"][0]["device"] = 1e69;
                 put(a / "profile.json", j.dump());
                 return kprof_cmd("analyze " + q(a) + " --out-root " + q(d / "out"));
               },
               3, "at field stages[0].kernels[0].launches[0].device: [json.exception.out_of_range.406] number 1e+69",
               no_artifact});
  c.push_back({"CompareWithGarbageBaseline",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 put(d / "base/profile.json", "not json at all");
                 put(d / "base/report.md", "x");
                 return kprof_cmd("compare " + q(d / "base") + " " + q(a));
               },
               3, "base/profile.json"});
  c.push_back({"DevlogOfNotAnArtifact",
               [](const fs::path& d) {
                 fs::create_directories(d / "nothing");
                 return kprof_cmd("devlog " + q(d / "nothing") + " --docs " + q(d / "docs"));
               },
               3, "not a kprof artifact",
               [](const fs::path& d, const auto&) { EXPECT_FALSE(fs::exists(d / "docs")); }});

  // --- partial and incomplete artifacts are refused ----------------------------------------------------------------
  c.push_back({"PartialArtifactRefusedByAnalyze",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 put(a / ".kprof-partial", "kprof: partial artifact: interrupted by SIGINT\n");
                 return kprof_cmd("analyze " + q(a) + " --out-root " + q(d / "out"));
               },
               3, "a partial artifact, not read",
               [](const fs::path& d, const auto&) {
                 EXPECT_TRUE(artifacts_under(d / "out").empty());
                 fs::remove(d / "art/.kprof-partial");  // the test's own marker: left as it was
               }});
  c.push_back({"PartialArtifactRefusedAsBaseline",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 fs::path b = analysed(d, "base");
                 put(b / ".kprof-partial", "kprof: partial artifact (pid 1)\n");
                 return kprof_cmd("compare " + q(b) + " " + q(a));
               },
               3, "partial artifact", [](const fs::path& d, const auto&) { fs::remove(d / "base/.kprof-partial"); }});
  c.push_back({"IncompleteArtifactRefusedByDevlog",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 fs::remove(a / "report.md");
                 return kprof_cmd("devlog " + q(a) + " --docs " + q(d / "docs"));
               },
               3, "incomplete artifact",
               [](const fs::path& d, const auto&) { EXPECT_FALSE(fs::exists(d / "docs")); }});

  // --- counters.json of a --counters cupti artifact ----------------------------------------------------------------
  auto bad_counters = [](const std::string& content) {
    return [=](const fs::path& d) {
      fs::path a = copy_of(kExamples / "annotation_probe_cupti_counters", d / "art");
      put(a / "counters.json", content);
      return kprof_cmd("analyze " + q(a) + " --out-root " + q(d / "out"));
    };
  };
  c.push_back({"CountersJsonEmpty", bad_counters(""), 3, "counters.json: not JSON", no_artifact});
  c.push_back({"CountersJsonWrongSchema", bad_counters("{\"schema\": \"kprof.other/9\"}"), 3,
               "counters.json: not a kprof counters file",
               no_artifact});
  c.push_back({"CountersJsonLaunchesNotAnArray",
               [](const fs::path& d) {
                 fs::path a = copy_of(kExamples / "annotation_probe_cupti_counters", d / "art");
                 auto j = nlohmann::json::parse(get(a / "counters.json"));
                 for (auto& [k, v] : j.items())
                   if (v.is_array()) v = "oops";
                 put(a / "counters.json", j.dump());
                 return kprof_cmd("analyze " + q(a) + " --out-root " + q(d / "out"));
               },
               3, "counters.json", no_artifact});

  // --- the tracer's trace.kptrace ----------------------------------------------------------------------------------
  auto bad_trace = [](const std::function<std::string(const std::string&)>& edit) {
    return [=](const fs::path& d) {
      fs::path a = copy_of(kExamples / "event_probe", d / "art");
      put(a / "trace.kptrace", edit(get(a / "trace.kptrace")));
      return kprof_cmd("analyze " + q(a) + " --out-root " + q(d / "out"));
    };
  };
  c.push_back({"TraceEmpty", bad_trace([](const std::string&) { return std::string(); }), 3, "trace.kptrace",
               no_artifact});
  c.push_back({"TraceWrongMagic", bad_trace([](const std::string&) { return std::string("hello, not a trace\n"); }), 3,
               "trace.kptrace", no_artifact});
  c.push_back({"TraceTruncatedHeader", bad_trace([](const std::string& t) { return t.substr(0, 10); }), 3,
               "trace.kptrace", no_artifact});

  // --- data files: devices, thresholds, sweeps -------------------------------------------------------------------
  auto with_data = [](const std::string& flag, const std::string& file, const std::string& content) {
    return [=](const fs::path& d) {
      put(d / file, content);
      return kprof_cmd("devices " + flag + " " + q(d / file));
    };
  };
  c.push_back({"DevicesEmpty", with_data("--devices", "devices.json", ""), 3, "devices.json"});
  c.push_back({"DevicesNotJson", with_data("--devices", "devices.json", "{devices: [}"), 3, "devices.json"});
  c.push_back({"DevicesWrongSchema", with_data("--devices", "devices.json", "{\"schema\": \"kprof.devices/99\"}"), 3,
               "unsupported schema"});
  c.push_back({"DevicesPeakIsText",
               with_data("--devices", "devices.json",
                         "{\"schema\": \"kprof.devices/1\", \"devices\": [{\"id\": \"x\", \"name\": \"X\", "
                         "\"sm_count\": \"many\"}]}"),
               3, "devices.json"});
  c.push_back({"ThresholdsNotToml", with_data("--thresholds", "t.toml", "[[metric]\nmetric = "), 3, "t.toml"});
  c.push_back({"ThresholdsValueIsText",
               with_data("--thresholds", "t.toml",
                         "schema = \"kprof.thresholds/1\"\n[[metric]]\nmetric = \"tensor_pipe_pct\"\nvalue = \"high\"\n"),
               3, "t.toml"});
  c.push_back({"ThresholdsBinary", with_data("--thresholds", "t.toml", std::string("\0\xff\x01", 3)), 3, "t.toml"});
  auto bad_sweep = [](const std::string& content) {
    return [=](const fs::path& d) {
      kprof::testing::FakeKernels fake(d / "fake");
      kprof::plan::PackageInfo gemm;
      gemm.name = "gemm";
      gemm.versions = {kprof::plan::VersionInfo{"v1", "naive"}};
      fake.set_packages({gemm});
      put(d / "sweeps.toml", content);
      return "KPROF_KERNELS=" + fake.path() + " " +
             kprof_cmd("bench --dry-run --sweep " + q(d / "sweeps.toml") + " --out " + q(d / "out"));
    };
  };
  c.push_back({"SweepNotToml", bad_sweep("runs = = 3\n"), 3, "sweeps.toml"});
  c.push_back({"SweepRunsNegative", bad_sweep("schema = \"kprof.bench.sweeps/1\"\nruns = -4\n"), 3,
               "runs must be an integer from 1 to 100000"});
  c.push_back({"SweepUnknownKey", bad_sweep("schema = \"kprof.bench.sweeps/1\"\nrnus = 4\n"), 3, "unknown top-level key"});

  // --- outputs that cannot be written ------------------------------------------------------------------------------
  c.push_back({"OutUnderARegularFile",
               [](const fs::path& d) {
                 put(d / "file", "x");
                 return kprof_cmd("analyze " + q(kFixtures / "h200-probe/quick.csv") + " --out " + q(d / "file/sub/a"));
               },
               9, "is a file, not a directory"});
  c.push_back({"OutIsARegularFile",
               [](const fs::path& d) {
                 put(d / "file", "x");
                 return kprof_cmd("analyze " + q(kFixtures / "h200-probe/quick.csv") + " --out " + q(d / "file"));
               },
               9, "not a directory",
               [](const fs::path& d, const auto&) { EXPECT_EQ(get(d / "file"), "x"); }});
  c.push_back({"OutRootUnderARegularFile",
               [](const fs::path& d) {
                 put(d / "file", "x");
                 return kprof_cmd("analyze " + q(kFixtures / "h200-probe/quick.csv") + " --out-root " + q(d / "file/r"));
               },
               9, "cannot write"});
  c.push_back({"DocsUnderARegularFile",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 put(d / "file", "x");
                 return kprof_cmd("devlog " + q(a) + " --docs " + q(d / "file/docs"));
               },
               9, "is a file, not a directory"});
  c.push_back({"DevicesToDevFull", [](const fs::path&) { return kprof_cmd("devices >/dev/full"); }, 9,
               "cannot write standard output"});
  c.push_back({"HelpToDevFull", [](const fs::path&) { return kprof_cmd("--help >/dev/full"); }, 9,
               "cannot write standard output"});
  c.push_back({"VersionToDevFull", [](const fs::path&) { return kprof_cmd("--version >/dev/full"); }, 9,
               "cannot write standard output"});
  c.push_back({"AnalyzeJsonToDevFull",
               [](const fs::path&) {
                 return kprof_cmd("analyze --no-write --json " + q(kFixtures / "h200-probe/quick.csv") + " >/dev/full");
               },
               9, "cannot write standard output"});

  // --- collisions, replacing, devlog twice -------------------------------------------------------------------------
  c.push_back({"TwoAnalysesInOneSecond",
               [](const fs::path& d) {
                 std::string one = kprof_cmd("analyze -q " + q(kFixtures / "h200-probe/quick.csv") + " --out-root " +
                                             q(d / "out")) + " >/dev/null";
                 return one + " & " + one + " & wait; " + one;  // three runs, two at the same time
               },
               0, "",
               [](const fs::path& d, const auto&) {
                 auto a = artifacts_under(d / "out");
                 ASSERT_EQ(a.size(), 3u);
                 for (const auto& dir : a) {
                   EXPECT_TRUE(fs::exists(dir / "profile.json")) << dir;
                   EXPECT_EQ(std::distance(fs::directory_iterator(dir / "inputs"), fs::directory_iterator()), 1);
                 }
               }});
  c.push_back({"OutIntoExistingArtifactRefused",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 return kprof_cmd("analyze " + q(kFixtures / "h200-probe/full_raw.csv") + " --out " + q(a));
               },
               2, "--replace",
               [](const fs::path& d, const auto&) {
                 EXPECT_TRUE(fs::exists(d / "art/inputs/quick.csv"));  // the old artifact untouched
                 EXPECT_FALSE(fs::exists(d / "art/inputs/full_raw.csv"));
               }});
  c.push_back({"ReplaceLeavesNoStaleFile",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 put(a / "report-verbose.md", "stale");
                 return kprof_cmd("analyze -q " + q(kFixtures / "h200-probe/full_raw.csv") + " --out " + q(a) +
                                  " --replace");
               },
               0, "",
               [](const fs::path& d, const auto&) {
                 EXPECT_FALSE(fs::exists(d / "art/inputs/quick.csv"));
                 EXPECT_EQ(get(d / "art/inputs/full_raw.csv"), get(kFixtures / "h200-probe/full_raw.csv"));
                 EXPECT_TRUE(!fs::exists(d / "art/report-verbose.md") || get(d / "art/report-verbose.md") != "stale");
               }});
  c.push_back({"ReanalysisInPlaceKeepsItsInputs",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 put(a / "report-verbose.md", "stale");
                 return kprof_cmd("analyze -q " + q(a) + " --out " + q(a) + " --replace");
               },
               0, "",
               [](const fs::path& d, const auto&) {
                 // raw inputs carried over, byte for byte
                 EXPECT_EQ(get(d / "art/inputs/quick.csv"), get(kFixtures / "h200-probe/quick.csv"));
                 EXPECT_TRUE(fs::exists(d / "art/report.md"));
                 EXPECT_FALSE(fs::exists(d / "art/report-verbose.md") && get(d / "art/report-verbose.md") == "stale");
               }});
  // Issue 24: links in an artifact were followed, and their copies named by the resolved path ("../../x"), which
  // wrote outside the new artifact. The old artifact lies six folders deep, one more than the new one below `out`:
  // the old names climbed out of the case's folder.
  c.push_back({"ReanalysisCopiesNeverLeaveTheArtifact",
               [](const fs::path& d) {
                 fs::path a = copy_of(analysed(d, "art"), d / "a/b/c/e/f/art");
                 for (auto n : {"x-reanalysis-escape", "secret-reanalysis-escape.txt"}) fs::remove(d.parent_path() / n);
                 put(d / "x-reanalysis-escape", "linked secret x");
                 put(d / "secret-reanalysis-escape.txt", "linked secret abs");
                 fs::create_symlink("../../../../../../../x-reanalysis-escape", a / "inputs/extra.csv");
                 fs::create_symlink(d / "secret-reanalysis-escape.txt", a / "inputs/abs.csv");
                 fs::create_symlink(d, a / "inputs/whole");
                 return kprof_cmd("analyze -q " + q(a) + " --out-root " + q(d / "out"));
               },
               0, "",
               [](const fs::path& d, const auto&) {
                 auto outs = artifacts_under(d / "out");
                 ASSERT_EQ(outs.size(), 1u);
                 EXPECT_TRUE(fs::exists(outs[0] / "inputs/quick.csv"));
                 for (const auto& e : fs::recursive_directory_iterator(d / "out")) {
                   EXPECT_FALSE(e.is_symlink()) << e.path();
                   if (e.is_regular_file())
                     EXPECT_EQ(get(e.path()).find("linked secret"), std::string::npos) << "linked content copied: " << e.path();
                 }
                 // Nothing written outside `out`.
                 for (auto n : {"x-reanalysis-escape", "secret-reanalysis-escape.txt"})
                   EXPECT_FALSE(fs::exists(d.parent_path() / n)) << "written outside: " << d.parent_path() / n;
                 EXPECT_EQ(get(d / "x-reanalysis-escape"), "linked secret x");
                 EXPECT_EQ(get(d / "secret-reanalysis-escape.txt"), "linked secret abs");
               }});
  c.push_back({"ReplaceRefusesADirectoryThatIsNoArtifact",
               [](const fs::path& d) {
                 put(d / "home/notes.txt", "precious");
                 return kprof_cmd("analyze " + q(kFixtures / "h200-probe/quick.csv") + " --out " + q(d / "home") +
                                  " --replace");
               },
               2, "not a kprof artifact",
               [](const fs::path& d, const auto&) { EXPECT_EQ(get(d / "home/notes.txt"), "precious"); }});
  c.push_back({"DevlogTwiceAddsOneEntry",
               [](const fs::path& d) {
                 fs::path a = analysed(d, "art");
                 std::string one = kprof_cmd("devlog " + q(a) + " --docs " + q(d / "docs"));
                 return one + " 2>/dev/null && " + one;
               },
               0, "already has",
               [](const fs::path& d, const auto&) {
                 ASSERT_EQ(artifacts_under(d).size(), 1u);
                 std::string log;
                 for (const auto& e : fs::directory_iterator(d / "docs")) log = get(e.path());
                 std::size_t n = 0;
                 for (std::size_t p = log.find("\n## "); p != std::string::npos; p = log.find("\n## ", p + 1)) ++n;
                 EXPECT_EQ(n, 1u) << log;
               }});
  c.push_back({"ReanalysisGetsANewDirectoryAndKeepsTheTimeline",
               [](const fs::path& d) {
                 fs::path root = d / "out";
                 copy_of(kExamples / "nsys_streams", root / "nsys/streams/default/20261130-120000");
                 std::string one = kprof_cmd("analyze -q " + q(root / "nsys/streams/default/20261130-120000") +
                                             " --out-root " + q(root)) + " >/dev/null";
                 return one + " && " + one;
               },
               0, "",
               [](const fs::path& d, const auto&) {
                 auto a = artifacts_under(d / "out");
                 ASSERT_EQ(a.size(), 3u);  // the original and two re-analyses
                 for (const auto& dir : a)
                   for (auto f : {"timeline.md", "kernels.csv", "api.csv", "trace.json", "trace.kptrace"})
                     EXPECT_TRUE(fs::exists(dir / f)) << dir / f;
               }});

  // --- no GPU: refused first, before any program starts --------------------------------------------------------------
  auto no_gpu = [](const std::string& args) {
    return [=](const fs::path&) { return "KPROF_ASSUME_GPU= " + kprof_cmd(args); };
  };
  auto nothing_started = [](const fs::path& d, const auto&) {
    EXPECT_FALSE(fs::exists(d / "started"));
    EXPECT_TRUE(artifacts_under(d / "out").empty());
  };
  c.push_back({"NoGpuRun", no_gpu("run --prof-type=event --out-root OUT -- /usr/bin/touch STARTED"), 4,
               "needs an NVIDIA GPU", nothing_started});
  c.push_back({"NoGpuAnnotationRunWithMissingNcu",
               no_gpu("run --prof-type=annotation --counters ncu --ncu /no/such/ncu --out-root OUT -- /bin/true"), 4,
               "needs an NVIDIA GPU", nothing_started});
  c.push_back({"NoGpuPeaksMeasure", no_gpu("peaks --measure"), 4, "needs an NVIDIA GPU"});
  // --- kprof peaks --import: the devices file it updates is the user's, and may be broken ---------------------------
  auto peaks_into = [](const std::string& devices) {
    return [=](const fs::path& d) {
      put(d / "devices.json", devices);
      return kprof_cmd("peaks --import " + q(kFixtures / "peaks/h200-sample.json") + " --device h200-sxm --write-devices " +
                       q(d / "devices.json") + " --docs " + q(d / "docs"));
    };
  };
  auto devices_untouched = [](const std::string& devices) {
    return [=](const fs::path& d, const auto&) {
      EXPECT_EQ(get(d / "devices.json"), devices);
      EXPECT_FALSE(fs::exists(d / "docs"));
    };
  };
  c.push_back({"PeaksIntoMalformedDevicesFile", peaks_into("{\"devices\": ["), 3, "devices.json",
               devices_untouched("{\"devices\": [")});
  c.push_back({"PeaksIntoDevicesFileWithOverflowingNumber", peaks_into("{\"devices\": [{\"id\": \"h200-sxm\", \"x\": 9e999}]}"),
               3, "devices.json", devices_untouched("{\"devices\": [{\"id\": \"h200-sxm\", \"x\": 9e999}]}")});
  c.push_back({"PeaksIntoDevicesFileWithoutDevices", peaks_into("[1, 2]"), 3, "devices.json",
               devices_untouched("[1, 2]")});
  c.push_back({"NoGpuPackage",
               [](const fs::path& d) {
                 kprof::testing::FakeKernels fake(d / "fake");
                 kprof::plan::PackageInfo gemm{"gemm", "C = A B", {{"v1", "naive"}}, {{"m", 64, ""}}, "bf16"};
                 kprof::plan::KernelPlan kp;
                 kp.package = "gemm";
                 kp.version = "v1";
                 kp.params = {{"m", 64}};
                 kp.dtype = "bf16";
                 kp.stages = {{"gemm", 2.0 * 64 * 64 * 64, 1e4, "bf16", 0, {}}};
                 fake.set_packages({gemm});
                 fake.set_plan(kp, true);
                 return "KPROF_ASSUME_GPU= KPROF_KERNELS=" + fake.path() + " " +
                        kprof_cmd("gemm v1 --prof-type=event --out-root OUT");
               },
               4, "needs an NVIDIA GPU",
               [](const fs::path& d, const auto&) {
                 EXPECT_EQ(get(d / "fake/calls.log").find("run "), std::string::npos);  // kprof-kernels never ran
               }});
  // --- SIGTERM during a run: the program's group is stopped, what was measured is kept, marked; exit 143 ----------
  c.push_back({"SigtermDuringRunKeepsAMarkedPartialArtifact",
               [](const fs::path&) {
                 return "KPROF_ASSUME_GPU=1 KPROF_INJECT_LIB=/bin/true " +
                        kprof_cmd("run --prof-type=event --kernel slow --out-root OUT -- /bin/sh -c 'sleep 30 & "
                                  "echo $! > started; wait'") +
                        " & k=$!; " + kWaitForStart + "kill -TERM $k; wait $k";
               },
               143, "terminated; what was measured is in",
               [](const fs::path& d, const auto&) {
                 std::vector<fs::path> partial;
                 for (const auto& e : fs::recursive_directory_iterator(d / "out"))
                   if (e.path().extension() == ".interrupted") partial.push_back(e.path());
                 ASSERT_EQ(partial.size(), 1u);
                 EXPECT_NE(get(partial[0] / ".kprof-partial").find("SIGTERM"), std::string::npos);
                 EXPECT_TRUE(fs::exists(partial[0] / "report.md"));
                 // The sleep the program started in the background was stopped with its process group.
                 std::string pid = get(d / "started");
                 while (!pid.empty() && pid.back() == '\n') pid.pop_back();
                 EXPECT_FALSE(pid.empty());
                 // Alive unless gone or a zombie (in a container nobody may reap it).
                 fs::path stat = "/proc/" + pid + "/stat";
                 std::string st = fs::exists(stat) ? get(stat) : "";
                 auto paren = st.rfind(')');
                 bool alive = paren != std::string::npos && paren + 2 < st.size() && st[paren + 2] != 'Z';
                 EXPECT_FALSE(alive) << "still running: " << st;
                 // ... and kprof refuses to read the partial artifact.
                 auto r = kprof::test::run_shell(kprof_cmd("devlog " + q(partial[0]) + " --docs " + q(d / "docs")),
                                                 kprof::test::scratch_dir("badin_io"));
                 EXPECT_EQ(r.code, 3) << r.err;
                 EXPECT_NE(r.err.find("partial artifact"), std::string::npos) << r.err;
               }});
  c.push_back({"SigintDuringRunExits130",
               [](const fs::path&) {
                 return "KPROF_ASSUME_GPU=1 KPROF_INJECT_LIB=/bin/true " +
                        kprof_cmd("run --prof-type=event --kernel slow --out-root OUT -- /bin/sh -c 'echo $$ > "
                                  "started; exec sleep 30'") +
                        " & k=$!; " + kWaitForStart + "kill -INT $k; wait $k";
               },
               130, "interrupted; what was measured is in",
               [](const fs::path& d, const auto&) {
                 std::size_t partial = 0;
                 for (const auto& e : fs::recursive_directory_iterator(d / "out"))
                   partial += e.path().extension() == ".interrupted";
                 EXPECT_EQ(partial, 1u);
                 EXPECT_TRUE(artifacts_under(d / "out").size() == 1u);  // only the marked partial one
               }});
  return c;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<Case> {};

TEST_P(BadInput, ExitCodeMessageAndCleanTree) {
  const Case& k = GetParam();
  if (k.code == 4 && machine_has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  fs::path dir = kprof::test::scratch_dir("badin") / k.name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string cmd = k.setup(dir);
  // OUT and STARTED in a command stand for paths in the case's folder.
  for (auto [word, path] : {std::pair{"OUT", dir / "out"}, std::pair{"STARTED", dir / "started"}})
    for (auto p = cmd.find(word); p != std::string::npos; p = cmd.find(word, p + 1))
      if ((p == 0 || cmd[p - 1] == ' ') && (p + std::strlen(word) == cmd.size() || cmd[p + std::strlen(word)] == ' '))
        cmd.replace(p, std::strlen(word), q(path));
  auto r = kprof::test::run_shell("cd " + q(dir) + " && { " + cmd + "; }", kprof::test::scratch_dir("badin_io"));
  EXPECT_EQ(r.code, k.code) << cmd << "\nstderr: " << r.err;
  if (!k.message.empty()) {
    EXPECT_NE(r.err.find(k.message), std::string::npos) << "stderr: " << r.err;
  }
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  if (k.check) k.check(dir, r);
  expect_clean(dir);
}

INSTANTIATE_TEST_SUITE_P(Matrix, BadInput, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// The autotune cache is read by kprof-kernels only (no kprof command reads it): through the library. A corrupt
// or semantically bad file is never fatal: the cache starts empty and a warning names the file and the reason.
struct CacheCase {
  std::string name, content, why;
};
void PrintTo(const CacheCase& c, std::ostream* os) { *os << c.name; }

class BadAutotuneCache : public ::testing::TestWithParam<CacheCase> {};

TEST_P(BadAutotuneCache, StartsEmptyWithAWarningNamingTheFile) {
  const auto& k = GetParam();
  fs::path root = kprof::test::scratch_dir("badin") / ("cache_" + k.name);
  fs::remove_all(root);
  kprof::plan::CacheKey key{"gemm", "v2", "gemm", "NVIDIA_H200_sm90", {}, "abc"};
  kprof::plan::AutotuneCache cache(root, key);
  put(cache.path(), k.content);
  cache.load();
  EXPECT_TRUE(cache.entries().empty());
  EXPECT_FALSE(cache.best());
  ASSERT_EQ(cache.warnings().size(), 1u);
  EXPECT_NE(cache.warnings()[0].find(cache.path().string()), std::string::npos) << cache.warnings()[0];
  EXPECT_NE(cache.warnings()[0].find(k.why), std::string::npos) << cache.warnings()[0];
}

std::string cache_with_entry(const std::string& entry) {
  return R"({"schema": "kprof.autotune/1", "key": {"kernel": "gemm", "version": "v2", "stage": "gemm",
    "device": "NVIDIA_H200_sm90", "params": {}, "source_hash": "abc"}, "entries": [)" +
         entry + R"(], "updated": "2026-12-01T00:00:00Z"})";
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, BadAutotuneCache,
    ::testing::Values(CacheCase{"Empty", "", "is unreadable"}, CacheCase{"Binary", std::string("\0\xff\x10", 3), "is unreadable"},
                      CacheCase{"Truncated", cache_with_entry("").substr(0, 60), "is unreadable"},
                      CacheCase{"WrongSchema", R"({"schema": "kprof.autotune/0"})", "has schema"},
                      CacheCase{"NegativeMedian",
                                cache_with_entry(R"({"config": {}, "status": "ok", "median_ms": -1.0})"),
                                "without a positive median_ms"},
                      CacheCase{"OkWithoutMedian", cache_with_entry(R"({"config": {}, "status": "ok"})"),
                                "without a positive median_ms"},
                      CacheCase{"UnknownStatus", cache_with_entry(R"({"config": {}, "status": "great"})"),
                                "with an unknown status"}),
    [](const ::testing::TestParamInfo<CacheCase>& i) { return i.param.name; });

}  // namespace
