// The session layer's mode parser and mode table: one parser for the names, and a table in which event and nsys
// are different sets of collectors and outputs (what `kprof run --dry-run` prints, checked end to end too).
#include <gtest/gtest.h>

#include "session/mode.hpp"
#include "session/mode_table.hpp"
#include "support/shell.hpp"
#include "util/errors.hpp"

using namespace kprof;
using namespace kprof::session;

TEST(SessionMode, EveryNameParsesBackToItsMode) {
  for (Mode m : kModes) EXPECT_EQ(parse_mode(mode_name(m)), m);
  EXPECT_EQ(mode_names(), "annotation, event, ncu, nsys");
}

TEST(SessionMode, AnUnknownNameIsAUsageErrorListingTheValidOnes) {
  try {
    parse_mode("Event", "--prof-type");
    ADD_FAILURE() << "a mode name is case-sensitive";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    EXPECT_EQ(std::string(e.what()), "--prof-type must be one of annotation, event, ncu, nsys (got 'Event')");
  }
  EXPECT_THROW(parse_mode(""), Error);
  EXPECT_EQ(parse_counter_source("cupti"), CounterSource::Cupti);
  EXPECT_THROW(parse_counter_source("nsight"), Error);
  EXPECT_EQ(parse_timing_source("ncu"), TimingSource::Counters);  // the seed's spelling of counters
  EXPECT_THROW(parse_timing_source("events"), Error);
}

TEST(SessionModeTable, EventRecordsOnlyWhatTimingNeedsAndNsysTheWholeTimeline) {
  RunSpec spec;
  spec.command = {"./app"};
  spec.mode = Mode::Event;
  const ModePlan event = plan_run(spec);
  spec.mode = Mode::Nsys;
  const ModePlan nsys = plan_run(spec);
  ASSERT_TRUE(event.has(CollectorKind::Tracer));
  ASSERT_TRUE(nsys.has(CollectorKind::Tracer));
  // Both keep kernels, NVTX and the launch calls that tie kernels to their NVTX ranges.
  for (const auto* p : {&event, &nsys}) {
    EXPECT_TRUE(p->records.nvtx);
    EXPECT_TRUE(p->records.runtime_api);
  }
  EXPECT_FALSE(event.records.copies);
  // The first passes record copies (program advice needs the GPU's copies), not synchronisation.
  for (Mode first : {Mode::Annotation, Mode::Ncu}) {
    spec.mode = first;
    const ModePlan p = plan_run(spec);
    EXPECT_TRUE(p.records.copies) << static_cast<int>(first);
    EXPECT_FALSE(p.records.sync) << static_cast<int>(first);
  }
  EXPECT_FALSE(event.records.sync);
  EXPECT_TRUE(nsys.records.copies);
  EXPECT_TRUE(nsys.records.sync);
  EXPECT_NE(event.records.env(), nsys.records.env());
  EXPECT_EQ(event.records.env().at("KPROF_TRACE_COPIES"), "0");
  EXPECT_EQ(nsys.records.env().at("KPROF_TRACE_COPIES"), "1");
  EXPECT_EQ(event.records.env().size(), 7u);  // every record kind is set, none left to the environment
  EXPECT_TRUE(event.outputs.timing_report);
  EXPECT_FALSE(event.outputs.timeline || event.outputs.chrome_trace);
  EXPECT_TRUE(nsys.outputs.timeline && nsys.outputs.chrome_trace);
  EXPECT_FALSE(nsys.outputs.timing_report);
}

TEST(SessionModeTable, AnnotationAndNcuCollectorsFollowTheCounterAndTimingChoices) {
  RunSpec spec;
  spec.command = {"python3", "x.py"};
  spec.counters = CounterSource::Ncu;
  auto a = plan_run(spec);
  EXPECT_EQ(a.collectors, (std::vector<CollectorKind>{CollectorKind::Clocks, CollectorKind::Tracer,
                                                      CollectorKind::NcuMetrics}));
  EXPECT_TRUE(a.records.driver_api);  // Python launches through the driver API
  spec.counters = CounterSource::Cupti;
  spec.timing = TimingSource::Counters;
  EXPECT_EQ(plan_run(spec).collectors, (std::vector<CollectorKind>{CollectorKind::Clocks, CollectorKind::CuptiCounters}));
  EXPECT_EQ(plan_run(spec).clock_control, "none (CUPTI range profiler; clocks left as found)");
  spec.mode = Mode::Ncu;
  auto n = plan_run(spec);
  // ncu mode times every launch with the tracer too (launch gaps, stages); ncu replays one launch per group.
  EXPECT_EQ(n.collectors, (std::vector<CollectorKind>{CollectorKind::Clocks, CollectorKind::Tracer,
                                                      CollectorKind::NcuFull, CollectorKind::CompiledCode}));
  EXPECT_EQ(n.clock_control, "none");
}

TEST(SessionModeTable, DryRunPrintsDifferentCollectorSetsForEventAndNsys) {
  auto dry = [](const std::string& mode) {
    return test::run_shell(std::string(KPROF_BINARY) + " run --prof-type=" + mode + " --dry-run --out dry -- ./app 3",
                           test::scratch_dir("session_mode"));
  };
  auto event = dry("event"), nsys = dry("nsys");
  ASSERT_EQ(event.code, 0) << event.err;
  ASSERT_EQ(nsys.code, 0) << nsys.err;
  EXPECT_NE(event.out.find("tracer: CUPTI activity records (kernels, NVTX ranges, runtime API) →"), std::string::npos)
      << event.out;
  EXPECT_NE(event.out.find("KPROF_TRACE_COPIES=0"), std::string::npos) << event.out;
  EXPECT_NE(event.out.find("timing.md"), std::string::npos) << event.out;
  EXPECT_EQ(event.out.find("timeline.md"), std::string::npos) << event.out;
  EXPECT_NE(nsys.out.find("(kernels, NVTX ranges, runtime API, memcpy/memset, synchronisation)"), std::string::npos)
      << nsys.out;
  EXPECT_NE(nsys.out.find("KPROF_TRACE_SYNC=1"), std::string::npos) << nsys.out;
  EXPECT_NE(nsys.out.find("trace.json"), std::string::npos) << nsys.out;
  // The seed's spelling of the flag is still accepted.
  auto seed = test::run_shell(std::string(KPROF_BINARY) + " run --prof_type=nsys --dry-run --out dry -- ./app 3",
                              test::scratch_dir("session_mode"));
  EXPECT_EQ(seed.out, nsys.out);
}
