// A stand-in NVTX tool (what NVTX_INJECTION64_PATH names): writes each push/pop it receives to $FAKE_NVTX_LOG.
// python/tests/test_nvtx_deferred.py loads it to see which of libkprof_c's ranges reach a tool.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

namespace {
void log_line(const char* what, const char* name) {
  const char* path = std::getenv("FAKE_NVTX_LOG");
  if (FILE* f = path ? std::fopen(path, "a") : nullptr) {
    std::fprintf(f, "%s%s%s\n", what, name ? " " : "", name ? name : "");
    std::fclose(f);
  }
}
int NVTX_API push(const char* message) {
  log_line("push", message);
  return 0;
}
int NVTX_API pop() {
  log_line("pop", nullptr);
  return 0;
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  NvtxFunctionTable core = nullptr;
  unsigned int size = 0;
  if (!callbacks || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &size) || !core) return 0;
  *core[NVTX_CBID_CORE_RangePushA] = reinterpret_cast<NvtxFunctionPointer>(&push);
  *core[NVTX_CBID_CORE_RangePop] = reinterpret_cast<NvtxFunctionPointer>(&pop);
  return 1;
}
