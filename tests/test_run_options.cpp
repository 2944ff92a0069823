// The profiling options' one table (session/run_options.hpp), the modes' enum (model/mode.hpp), the exit codes'
// table (util/errors.hpp) and the in-process policy (session/in_process.hpp): each complete, and the command line
// bound from them.
#include <gtest/gtest.h>

#include <set>

#include "model/profile.hpp"
#include "session/in_process.hpp"
#include "session/run_options.hpp"
#include "support/shell.hpp"
#include "util/errors.hpp"

using namespace kprof;

namespace {
test::ShellResult run_kprof(const std::string& args) {
  return test::run_shell(KPROF_BINARY + " " + args, test::scratch_dir("options"));
}
int usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.exit_code();
  }
  return 0;
}
}  // namespace

TEST(RunOptions, EveryRowIsCompleteAndItsNamesAreUnique) {
  std::set<std::string> names;
  for (const auto& o : session::run_options()) {
    EXPECT_FALSE(o.name.empty());
    EXPECT_FALSE(o.key.empty()) << o.name;
    EXPECT_FALSE(o.help.empty()) << o.name;
    EXPECT_NE(o.set, nullptr) << o.name;
    EXPECT_TRUE(names.insert(std::string(o.name)).second) << o.name;
    if (!o.alias.empty()) EXPECT_TRUE(names.insert(std::string(o.alias)).second) << o.alias;
    if (o.key != o.name && o.key != o.alias) EXPECT_TRUE(names.insert(std::string(o.key)).second) << o.key;
    EXPECT_EQ(session::find_run_option(o.name), &o);
    EXPECT_EQ(session::find_run_option(o.key), &o);
  }
}

TEST(RunOptions, DefaultsAreTheSpecsOwn) {
  const session::PackageSpec fresh;
  const auto* root = session::find_run_option("out-root");
  ASSERT_TRUE(root && root->default_of);
  EXPECT_EQ(root->default_of(fresh), fresh.run.output.out_root);
  EXPECT_EQ(session::find_run_option("prof-type")->default_of(fresh), "annotation");
  EXPECT_EQ(session::find_run_option("counters-min-share")->default_of(fresh), "1");
}

TEST(RunOptions, EachSetterParsesItsValueOrRefusesItAsUsage) {
  session::PackageSpec s;
  session::find_run_option("prof_type")->set(s, "nsys");
  EXPECT_EQ(s.run.mode, Mode::Nsys);
  session::find_run_option("launch-count")->set(s, "7");
  EXPECT_EQ(s.run.filters.launch_count, 7);
  session::find_run_option("counters_min_share")->set(s, "2.5");
  EXPECT_DOUBLE_EQ(s.run.counters_min_share_pct, 2.5);
  session::find_run_option("no-wait")->set(s, "");
  EXPECT_TRUE(s.run.no_wait);
  EXPECT_EQ(usage_error([&] { session::find_run_option("launch-count")->set(s, "7x"); }), kExitUsage);
  EXPECT_EQ(usage_error([&] { session::find_run_option("counters-min-share")->set(s, "150"); }), kExitUsage);
  EXPECT_EQ(usage_error([&] { session::find_run_option("prof-type")->set(s, "import"); }), kExitUsage);
  EXPECT_EQ(usage_error([&] { session::find_run_option("counters")->set(s, "nsight"); }), kExitUsage);
}

TEST(RunOptions, KprofRunOffersEveryRunOptionAndNoOther) {
  auto r = run_kprof("run --help");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& o : session::run_options()) {
    const bool listed = r.out.find("--" + std::string(o.name) + " ") != std::string::npos ||
                        r.out.find("--" + std::string(o.name) + ",") != std::string::npos ||
                        r.out.find("--" + std::string(o.name) + "\n") != std::string::npos;
    EXPECT_EQ(listed, o.on_run) << o.name << "\n" << r.out;
  }
  // A bad value is the option's own usage error.
  auto bad = run_kprof("run --counters-min-share=abc --dry-run -- /bin/true");
  EXPECT_EQ(bad.code, kExitUsage) << bad.err;
  EXPECT_NE(bad.err.find("--counters-min-share"), std::string::npos) << bad.err;
}

TEST(Modes, EveryModeHasOneNameThatReadsBackAndOnlyProfilingModesParseFromACommandLine) {
  for (Mode m : {Mode::Annotation, Mode::Event, Mode::Ncu, Mode::Nsys, Mode::Import, Mode::Analyze}) {
    EXPECT_EQ(mode_from_name(mode_name(m)), m);
    EXPECT_EQ(json(m).get<Mode>(), m);
  }
  EXPECT_TRUE(is_profiling_mode(Mode::Nsys));
  EXPECT_FALSE(is_profiling_mode(Mode::Import));
  EXPECT_EQ(usage_error([] { session::parse_mode("analyze"); }), kExitUsage);
  // profile.json from before the enum recorded `kprof analyze` as ""; an unknown name is refused.
  EXPECT_EQ(json("").get<Mode>(), Mode::Analyze);
  EXPECT_THROW(json("profiled").get<Mode>(), json::exception);
  EXPECT_THROW(json(3).get<Mode>(), json::exception);
}

TEST(ExitCodes, EveryCodeHasAKindAndTheHelpListsThem) {
  std::set<int> codes;
  std::set<std::string_view> kinds;
  for (const auto& e : kExitCodes) {
    EXPECT_TRUE(codes.insert(e.code).second) << e.code;
    EXPECT_TRUE(kinds.insert(e.kind).second) << e.kind;
    EXPECT_EQ(exit_kind(e.code), e.kind);
  }
  for (int c : {kExitBusy, kExitNoPermission, kExitInterrupted, kExitTerminated, kExitRegression})
    EXPECT_NE(exit_kind(c), "error") << c;
  auto r = run_kprof("--help");
  for (const auto& e : kExitCodes)
    EXPECT_NE(r.out.find(std::to_string(e.code) + " " + std::string(e.meaning)), std::string::npos) << e.code;
}

TEST(InProcess, NcuIsRefusedAndAnnotationUsesTheRangeProfilersOwnTiming) {
  EXPECT_FALSE(session::runs_in_process(Mode::Ncu));
  EXPECT_TRUE(session::runs_in_process(Mode::Event));
  session::RunSpec s;
  s.mode = Mode::Annotation;
  auto w = session::in_process_spec(s);
  EXPECT_EQ(w.counters, session::CounterSource::Cupti);
  EXPECT_EQ(w.timing, session::TimingSource::Counters);
  EXPECT_EQ(w.counters_min_share_pct, 0);
  s.mode = Mode::Ncu;
  EXPECT_EQ(usage_error([&] { session::in_process_spec(s); }), kExitUsage);
}
