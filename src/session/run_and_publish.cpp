#include "session/run_and_publish.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kprof::session {

namespace {

RunOutcome publish_result(ProfileResult& r, const OutputSpec& output) {
  RunOutcome o;
  if (r.dry_run) {
    o.dry_run = true;
    o.dry_run_lines = r.dry_run_lines;
    return o;
  }
  o.published = publish(r, output);
  o.ending = r.outcome();
  o.exit_code = r.exit_code;
  return o;
}

}  // namespace

RunOutcome run_and_publish(const RunSpec& spec) {
  auto r = profile(spec);
  return publish_result(r, spec.output);
}

PackageOutcome package_and_publish(const PackageSpec& spec) {
  auto done = profile_package(spec);
  PackageOutcome p;
  p.package = done.package;
  p.version = done.version;
  p.params = done.params;
  p.artifact_dir = done.artifact_dir;
  p.outcome.exit_code = done.exit_code;
  if (!done.profiled) return p;  // the check/tune run was interrupted
  p.outcome = publish_result(*done.profiled, spec.run.output);
  if (p.outcome.dry_run)
    p.outcome.dry_run_lines.insert(p.outcome.dry_run_lines.begin(),
                                   fmt::format("check and tune: {}", fmt::join(done.check_and_tune, " ")));
  else
    p.outcome.exit_code = done.exit_code;
  if (!p.outcome.dir().empty()) p.artifact_dir = p.outcome.dir();  // where the staged artifact went
  return p;
}

}  // namespace kprof::session
