// The environment that configures libkprof_inject.so as an activity tracer (collect/cupti/cupti_tracer.cpp reads
// it; the session layer sets it per mode, session/mode_table). Record kinds are switched on with "1" and off with
// "0" (also "false", "off"); an unset or empty variable keeps the library's default, given after each name. No
// dependencies: the injected library includes it too.
#pragma once

namespace kprof::tracer_env {

inline constexpr char kFile[] = "KPROF_TRACE_FILE";        // output (default kprof_trace.<pid>.kptrace in the cwd)
inline constexpr char kFileName[] = "trace.kptrace";       // its name in the artifact directory
// Record kinds.
inline constexpr char kApi[] = "KPROF_TRACE_API";          // 1: RUNTIME API records (launch correlation, overhead)
inline constexpr char kDriver[] = "KPROF_TRACE_DRIVER";    // 0: DRIVER API records too (with KPROF_TRACE_API)
inline constexpr char kCopies[] = "KPROF_TRACE_COPIES";    // 1: MEMCPY and MEMSET
inline constexpr char kSync[] = "KPROF_TRACE_SYNC";        // 1: SYNCHRONIZATION
inline constexpr char kNvtx[] = "KPROF_TRACE_NVTX";        // 1: MARKER (NVTX ranges; needs NVTX_INJECTION64_PATH)
inline constexpr char kGraph[] = "KPROF_TRACE_GRAPH";      // 0: GRAPH_TRACE, one record per graph launch instead of
                                                           //    one kernel record per node
inline constexpr char kOverhead[] = "KPROF_TRACE_OVERHEAD";  // 0: OVERHEAD (CUPTI's and the driver's own time)
// CUPTI buffer settings and experiments (bench/RESULTS.md §2); kprof leaves them to the environment.
inline constexpr char kBufferMb[] = "KPROF_TRACE_BUFFER_MB";            // 8: size of each activity buffer
inline constexpr char kZeroed[] = "KPROF_TRACE_ZEROED";                // 0: hand CUPTI zeroed buffers
// 0: 1 = CUPTI's floor: enable the record kinds, hand buffers back unread, write an empty trace (overhead studies)
inline constexpr char kDiscard[] = "KPROF_TRACE_DISCARD";
inline constexpr char kPinned[] = "KPROF_TRACE_PINNED";                // unset: CUPTI's default
inline constexpr char kDeviceBufferMb[] = "KPROF_TRACE_DEVBUF_MB";     // 0: CUPTI's per-context device buffer
inline constexpr char kPreallocate[] = "KPROF_TRACE_PREALLOC";         // 0: device buffers pre-allocated
inline constexpr char kSerialKernels[] = "KPROF_TRACE_SERIAL_KERNELS"; // 0: KERNEL instead of CONCURRENT_KERNEL
inline constexpr char kHwTrace[] = "KPROF_TRACE_HWTRACE";              // 0: ask for hardware kernel timestamps

}  // namespace kprof::tracer_env
