// Reads an artifact through the installed C++ layers (session::load_artifact, analyze::compare_runs) and through
// the installed C API (kprof_analyze), and prints what both say, so that the test can check they agree.
#include <cstdio>
#include <iostream>
#include <string>

#include "analyze/compare.hpp"
#include "capi/kprof_c.h"
#include "session/artifact.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: kprof_consumer <artifact-dir>\n";
    return 2;
  }
  kprof::ProfileRun run = kprof::session::load_artifact(argv[1]);
  kprof::Comparison self = kprof::analyze::compare_runs(run, run);
  std::size_t groups = 0;
  for (const auto& s : run.stages) groups += s.kernels.size();
  std::cout << "c++: kernel=" << run.kernel << " stages=" << run.stages.size() << " groups=" << groups
            << " self-comparison rows=" << self.summary.size() << "\n";

  std::string request = std::string("{\"inputs\": [\"") + argv[1] + "\"], \"write\": false}";
  char* reply = kprof_analyze(request.c_str());
  std::string text = reply ? reply : "";
  kprof_free(reply);
  bool ok = text.find("\"ok\":true") != std::string::npos;
  std::cout << "c api: version=" << kprof_version() << " ok=" << (ok ? "yes" : "no") << "\n";
  if (!ok) std::cout << text.substr(0, 400) << "\n";
  return ok ? 0 : 1;
}
