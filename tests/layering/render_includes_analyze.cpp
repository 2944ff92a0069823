// Compiled with kprof_render's include roots by LayerCompile.UpwardIncludeDoesNotCompile: the render layer may not
// use the analysis layer (results live in the model), so its headers are not on render's include path.
#include "render/timeline_report.hpp"
#include "analyze/timeline.hpp"

int render_runs_an_analysis(const kprof::Trace& t) { return static_cast<int>(kprof::analyze::analyze_timeline(t).streams.size()); }
