// How many replay passes CUPTI's host scheduler needs for a metric list, offline (no GPU: the chip is named).
// Issue 27 used it to find which groups of data/ncu-annotation-metrics.txt cost passes (bench/RESULTS.md §1a⁶).
// The device's count can differ by one (there the counter-availability image of the live GPU is passed).
//   g++ -O1 scripts/offline-passes.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcupti -Wl,-rpath,/usr/local/cuda/lib64 -o /tmp/offline-passes
//   /tmp/offline-passes data/ncu-annotation-metrics.txt [GH100]      (lines after '#' are comments)
// Prints the metrics the chip lacks on stderr, then "<n> metrics, passes <p>".
#include <cupti_profiler_host.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <metric list> [chip, default GH100]\n", argv[0]);
    return 2;
  }
  const char* chip = argc > 2 ? argv[2] : "GH100";
  std::vector<std::string> names;
  std::ifstream in(argv[1]);
  for (std::string line; std::getline(in, line);) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.pop_back();
    if (!line.empty()) names.push_back(line);
  }
  CUpti_Profiler_Host_Initialize_Params init{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip;
  if (cuptiProfilerHostInitialize(&init) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "cuptiProfilerHostInitialize failed for chip %s\n", chip);
    return 1;
  }
  std::vector<const char*> known;
  for (const auto& n : names) {
    CUpti_Profiler_Host_GetMetricProperties_Params props{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    props.pHostObject = init.pHostObject;
    props.pMetricName = n.c_str();
    if (cuptiProfilerHostGetMetricProperties(&props) == CUPTI_SUCCESS) known.push_back(n.c_str());
    else std::fprintf(stderr, "not on %s: %s\n", chip, n.c_str());
  }
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = init.pHostObject;
  add.ppMetricNames = known.data();
  add.numMetrics = known.size();
  if (cuptiProfilerHostConfigAddMetrics(&add) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "cuptiProfilerHostConfigAddMetrics failed\n");
    return 1;
  }
  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = init.pHostObject;
  cuptiProfilerHostGetConfigImageSize(&size);
  std::vector<std::uint8_t> image(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = init.pHostObject;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  cuptiProfilerHostGetConfigImage(&get);
  CUpti_Profiler_Host_GetNumOfPasses_Params passes{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.configImageSize = image.size();
  passes.pConfigImage = image.data();
  const bool ok = cuptiProfilerHostGetNumOfPasses(&passes) == CUPTI_SUCCESS;
  std::printf("%zu metrics, passes %zu%s\n", known.size(), static_cast<std::size_t>(passes.numOfPasses),
              ok ? "" : " (GetNumOfPasses failed)");
  CUpti_Profiler_Host_Deinitialize_Params done{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  done.pHostObject = init.pHostObject;
  cuptiProfilerHostDeinitialize(&done);
  return ok ? 0 : 1;
}
