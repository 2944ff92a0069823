// to_json and from_json of the types profile.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/profile.hpp"

namespace kprof {
KPROF_JSON_DEFINE(LaunchConfig, grid, block, registers_per_thread, shared_mem_static_bytes, shared_mem_dynamic_bytes)
KPROF_JSON_DEFINE(SectionMetric, section, name, unit, value, text)
KPROF_JSON_DEFINE(RuleResult, section, name, type, description, speedup_type, speedup_pct)
KPROF_JSON_DEFINE(KernelLaunch, id, name, function, mangled, nvtx_range, nvtx_stack, stream, context, device, launch,
           duration_ns, start_ns, graph_id, metrics, sections, rules)
KPROF_JSON_DEFINE(SampleStats, count, median, min, max, mean, p10, p90, stdev)
KPROF_JSON_DEFINE(DeclaredWork, flops, min_bytes, precision)
KPROF_JSON_DEFINE(KernelGroup, kernel, signature, label, launch, launches, duration_ns, samples_ns, metrics, representative,
           declared, span_ns, gpu_idle_ns, alone_min_ns, graph_node_launches, counters_status, counters_note, analysis)
KPROF_JSON_DEFINE(RangeTime, instances, span_ns, idle_ns, host_work_ns, host_blocked_ns, launch_gaps_ns, paced_gaps_ns,
           wait_gaps_ns,
           graph_node_gaps_ns, poll_wait_ns, launches, host_waits, waits_between, link_copy_ns, device_fill_ns,
           link_copies, link_copy_bytes)
KPROF_JSON_DEFINE(Stage, name, kernels, declared, range, bound, time_bound)
KPROF_JSON_DEFINE(ProfileRun, schema, mode, kernel, version, params, device, device_spec, timestamp, command, nvtx_include,
           sources, clock_control, clocks, stages, warnings, overall, program_opportunities)
}  // namespace kprof
