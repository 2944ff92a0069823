// The registry of collectors: one row per collector, each implemented in its own file under collectors/ (how it
// runs, how its raw files are read back and found again, what it feeds). Adding a collector is that file and its
// row here (README.md: "How to add a collector").
#include <algorithm>
#include <cctype>
#include <sstream>

#include "analyze/data_files.hpp"
#include "session/collector.hpp"
#include "session/collectors/collectors.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::session {

const std::vector<CollectorRow>& collector_rows() {
  static const std::vector<CollectorRow> rows{clock_recorder_row(), tracer_row(),   cupti_counters_row(),
                                              ncu_metrics_row(),    ncu_full_row(), compiled_code_row()};
  return rows;
}

const CollectorRow& collector_row(CollectorKind kind) {
  for (const auto& row : collector_rows())
    if (row.kind == kind) return row;
  throw Error("no collector of kind " + std::to_string(static_cast<int>(kind)) + " is registered", kExitFailure);
}

std::string_view collector_name(CollectorKind kind) { return collector_row(kind).name; }

std::vector<std::unique_ptr<Collector>> make_collectors(const ModePlan& plan) {
  std::vector<std::unique_ptr<Collector>> out;
  for (CollectorKind k : plan.collectors) out.push_back(collector_row(k).make());
  return out;
}

bool Collected::interrupted() const {
  return std::any_of(passes.begin(), passes.end(),
                     [](const PassRecord& p) { return p.process && p.process->interrupted; });
}

const ProcessResult* Collected::program() const {
  for (const auto& p : passes)
    if (p.process) return &*p.process;
  return nullptr;
}

std::vector<std::string> annotation_metrics() {
  std::vector<std::string> metrics;
  std::istringstream in(read_file(analyze::find_data_file("ncu-annotation-metrics.txt")));
  for (std::string line; std::getline(in, line);) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (!line.empty()) metrics.push_back(line);
  }
  return metrics;
}

std::vector<std::string> cupti_metrics(const std::vector<std::string>& annotation) {
  // Thread-level instruction counts by opcode (the FP32/FP64/FP16 FLOPs) come from Nsight Compute's SASS
  // patching; the range profiler has no such counters (it returns zeros or unrelated values for them).
  std::vector<std::string> out;
  for (const auto& m : annotation)
    if (m.rfind("smsp__sass_", 0) != 0) out.push_back(m);
  return out;
}

}  // namespace kprof::session
