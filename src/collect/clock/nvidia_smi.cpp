#include "collect/clock/nvidia_smi.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/errors.hpp"

namespace kprof {

std::string nvidia_smi_program() {
  const char* env = std::getenv("NVIDIA_SMI");
  return (env && *env) ? env : "nvidia-smi";
}

CommandResult run_command(const std::vector<std::string>& argv) {
  CommandResult r;
  if (argv.empty()) return r;
  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) != 0) return r;
  if (::pipe(err_pipe) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return r;
  }
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    return r;
  }
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  char buf[4096];
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.exit_code = 128 + WTERMSIG(status);
  if (r.exit_code == 127 && r.out.empty() && r.err.empty()) r.exit_code = -1;  // exec failed
  return r;
}

ClockState query_clocks(int gpu) {
  const std::string smi = nvidia_smi_program();
  CommandResult r;
  for (const char* field : {"clocks_event_reasons.active", "clocks_throttle_reasons.active"}) {
    const auto fields = clock_query_fields(field);
    r = run_command({smi, "-i", std::to_string(gpu), fmt::format("--query-gpu={}", fmt::join(fields, ",")),
                     "--format=csv,noheader,nounits"});
    if (r.exit_code == 0) return parse_clock_query(r.out, gpu, smi + " --query-gpu");
    if (r.exit_code == -1) throw Error("cannot run " + smi + ": not found (set NVIDIA_SMI or install the driver)",
                                       kExitNoTool);
    // Older drivers reject the newer field name; try once with the old one.
    if ((r.out + r.err).find("not a valid field") == std::string::npos) break;
  }
  throw Error(smi + " failed for GPU " + std::to_string(gpu) + " (exit " + std::to_string(r.exit_code) +
                  "): " + (r.err.empty() ? r.out : r.err),
              kExitNoGpu);
}

}  // namespace kprof
