#include "util/process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/errors.hpp"

extern char** environ;

namespace kprof {

namespace {
volatile std::sig_atomic_t g_interrupted = 0;
void on_signal(int) { g_interrupted = 1; }

int open_out(const std::string& path) {
  if (std::filesystem::path(path).has_parent_path())
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}
}  // namespace

std::string ProcessResult::describe() const {
  if (signaled) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exited with code " + std::to_string(exit_code);
}

std::optional<std::string> find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0) return name;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string p(path);
  std::size_t start = 0;
  while (start <= p.size()) {
    auto end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (!dir.empty()) {
      std::string cand = dir + "/" + name;
      struct stat st{};
      if (::stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(cand.c_str(), X_OK) == 0) return cand;
    }
    start = end + 1;
  }
  return std::nullopt;
}

ProcessResult run_process(const ProcessSpec& spec) {
  if (spec.argv.empty()) throw Error("empty command", kExitUsage);
  auto exe = find_executable(spec.argv[0]);
  if (!exe) throw Error("cannot run '" + spec.argv[0] + "': not found on PATH or not executable", kExitNoTool);

  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto key = kv.substr(0, kv.find('='));
    if (!spec.env_set.count(key)) env_strings.push_back(kv);
  }
  for (const auto& [k, v] : spec.env_set) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out_fd = -1, err_fd = -1;
  if (!spec.stdout_file.empty() && (out_fd = open_out(spec.stdout_file)) < 0)
    throw Error("cannot write " + spec.stdout_file + ": " + std::strerror(errno));
  if (spec.stderr_file == "=stdout") err_fd = out_fd;
  else if (!spec.stderr_file.empty() && (err_fd = open_out(spec.stderr_file)) < 0)
    throw Error("cannot write " + spec.stderr_file + ": " + std::strerror(errno));

  // While the child runs, SIGINT/SIGTERM only mark kprof as interrupted: the child (same process group) gets
  // Ctrl-C itself, exits, and kprof then writes what it has.
  g_interrupted = 0;
  struct sigaction sa{}, old_int{}, old_term{};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (out_fd >= 0) ::dup2(out_fd, 1);
    if (err_fd >= 0) ::dup2(err_fd, 2);
    ::execve(exe->c_str(), argv.data(), envp.data());
    std::fprintf(stderr, "kprof: exec %s failed: %s\n", exe->c_str(), std::strerror(errno));
    _exit(127);
  }
  ProcessResult r;
  int status = 0;
  bool forwarded_term = false;
  while (true) {
    pid_t w = ::waitpid(pid, &status, 0);
    if (w == pid) break;
    if (w < 0 && errno == EINTR) {
      // SIGTERM sent to kprof alone would not reach the child: pass it on once.
      if (g_interrupted && !forwarded_term) { ::kill(pid, SIGTERM); forwarded_term = true; }
      continue;
    }
    break;
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (out_fd >= 0) ::close(out_fd);
  if (err_fd >= 0 && err_fd != out_fd) ::close(err_fd);
  r.interrupted = g_interrupted != 0;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) { r.signaled = true; r.signal = WTERMSIG(status); }
  if (r.signaled && r.signal == SIGINT) r.interrupted = true;
  return r;
}

}  // namespace kprof
