// The tracing modes' reports, as strings: timeline.md and the CSV files next to it (nsys mode), timing.md (event
// mode: the kernel and NVTX statistics alone, for a trace that holds kernels, launch calls and NVTX ranges only).
#pragma once
#include <cstddef>
#include <string>
#include "model/trace.hpp"
#include "model/trace_analysis.hpp"

namespace kprof::render {

struct TimelineReportOptions {
  std::size_t top_kernels = 15;
};

// Sections: Trace, GPU utilisation and overlap, Streams, Top kernels by total time, Memory copies,
// Launch overhead, Gaps between kernels, NVTX ranges. Times in ms / µs as labelled.
std::string render_timeline_report(const Trace& trace, const TimelineSummary& timeline, const EventStats& stats,
                                   const TimelineReportOptions& options = {});

// Sections: Trace, Top kernels by total time, NVTX ranges (the same tables as in the timeline report).
std::string render_timing_report(const Trace& trace, const EventStats& stats, const TimelineReportOptions& options = {});

// The timeline's headline for the contract and report.md (nsys mode): a "### Timeline" section with GPU busy,
// overlap, concurrency, streams, launch overhead, gaps and the launch order of the first kernels.
std::string render_timeline_headline(const Trace& trace, const TimelineSummary& timeline, std::size_t order_shown = 8);

// kernels.csv: index,name,function,start_ns,end_ns,duration_ns,device,stream,correlation,grid_x,grid_y,grid_z,
//              block_x,block_y,block_z,registers,smem_static,smem_dynamic,graph_id,nvtx_range
std::string render_kernels_csv(const Trace& trace);
// memcpy.csv: kind,bytes,start_ns,end_ns,duration_ns,gb_per_s,device,stream,correlation  (memsets: kind "Memset")
std::string render_memcpy_csv(const Trace& trace);
// api.csv: domain,name,cbid,start_ns,end_ns,duration_ns,process,thread,correlation,return_value
std::string render_api_csv(const Trace& trace);
// overlap.csv: t_ns,kernels,copies,running — the running-activity counts after each change
std::string render_overlap_csv(const TimelineSummary& timeline);

}  // namespace kprof::render
