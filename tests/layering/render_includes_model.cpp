// Compiled with kprof_render's include roots by LayerCompile.AllowedIncludeCompiles: the render layer reads the
// model, so this compiles (the control for LayerCompile.UpwardIncludeDoesNotCompile).
#include "model/trace_analysis.hpp"
#include "render/timeline_report.hpp"

int render_reads_the_model(const kprof::TimelineSummary& t) { return static_cast<int>(t.streams.size()); }
