/* kprof's C API: what the Python package (python/kprof, ctypes) and other languages call. Every function takes one
 * JSON request (UTF-8, may be NULL for "{}") and returns a JSON reply the caller frees with kprof_free():
 *   {"ok": true, ...}                                           success
 *   {"ok": false, "error": "...", "exit_code": N, "kind": "..."}  failure; exit_code is the command line's
 *                                                              (docs/cli.md), kind names the error class
 * No function prints, exits or throws across this boundary. The requests and replies are documented in
 * docs/python.md ("The C API"). Built as libkprof_c.so with every third-party library static. */
#ifndef KPROF_C_H
#define KPROF_C_H

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0": the kprof version this library was built from (static string, not freed). */
const char* kprof_version(void);
/* Frees a reply. NULL is allowed. */
void kprof_free(char* reply);
/* What this library offers, for bindings to read rather than copy: {"version", "modes": [{"name", "purpose",
 * "in_process"}], "exit_codes": [{"code", "kind", "meaning"}], "run_options": [{"name", "alias", "key", "help", "flag",
 * "run", "package", "default"}]}. The options are `kprof run`'s and `kprof <package>`'s; a profiling window's
 * request takes them by "key". */
char* kprof_interface(void);

/* `kprof analyze`: {"inputs": [...], "out_dir", "out_root", "write", "kernel", "version", "params", "baseline",
 * "devices", "thresholds"} → {"dir", "profile", "contract_markdown", "contract", "roofline_svg", "warnings",
 * "comparison"}. */
char* kprof_analyze(const char* request_json);
/* `kprof compare`: {"baseline", "current", "devices", "thresholds"} → {"comparison", "markdown"}. */
char* kprof_compare(const char* request_json);

/* Whether a CUDA GPU is usable in this process: → {"gpus": N, "reason": "..."} (gpus 0 with the reason). */
char* kprof_gpu_status(void);
/* In-process profiling window. begin: {"mode": "event"|"nsys"|"annotation", "out_dir", "out_root", "kernel",
 * "version", "params", "declared_stages": {name: {"flops", "min_bytes", "precision"}}, "devices", "thresholds",
 * "baseline"} starts the CUPTI collector inside this process (libkprof_inject.so) → {"dir", "collector"}.
 * end: {} writes what the window collected, assembles and publishes it → kprof_analyze's reply. */
char* kprof_profile_begin(const char* request_json);
char* kprof_profile_end(const char* request_json);

/* A kprof-kernels package plan: {"package", "version", "params", "kernels"} → {"plan"}; and
 * `kprof <package> --prof-type=<mode>`: {"mode", "plan", "out_dir", "version", "bench_runs", "settings"} →
 * {"exit_code", "dir", "profile", "version"}. */
char* kprof_describe_plan(const char* request_json);
char* kprof_profile_plan(const char* request_json);

/* The autotune cache shared with C++ (plan/autotune_cache.hpp): load {"root", "key"} → {"path", "file",
 * "best", "warnings"}; record {"root", "key", "entry"} → the same after recording. */
char* kprof_autotune_load(const char* request_json);
char* kprof_autotune_record(const char* request_json);

/* NVTX ranges (the stage names kprof groups kernels by). No-ops when the library was built without NVTX headers. */
void kprof_nvtx_push(const char* name);
void kprof_nvtx_pop(void);

#ifdef __cplusplus
}
#endif

#endif /* KPROF_C_H */
