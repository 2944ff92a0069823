#include "util/process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/interrupt.hpp"

extern char** environ;

namespace kprof {

namespace {

// An output file of the program (its stdout or stderr), opened for writing: never through a symbolic link. Some of
// these names are predictable in a shared folder (the kprof-kernels reply in /tmp): a link planted there had its
// target truncated and overwritten by the program. A link at `path` is an error naming it, not followed and not
// removed (it is not kprof's). Throws CannotWrite.
int open_out(const std::string& path) {
  if (std::filesystem::path(path).has_parent_path())
    ensure_dir(std::filesystem::path(path).parent_path());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd >= 0) return fd;
  const int err = errno;
  struct stat st {};
  if (err == ELOOP && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw CannotWrite(path, "it is a symbolic link, and kprof does not write through links");
  throw CannotWrite(path, std::strerror(err));
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

namespace {
// What execve needs for `spec`, prepared before fork (no allocation between fork and exec).
struct Exec {
  std::string exe;
  std::vector<std::string> env_strings, args;
  std::vector<char*> envp, argv;
  int out_fd = -1, err_fd = -1;
  bool die_with_parent = false;
  pid_t parent = 0;
  ~Exec() {
    if (out_fd >= 0) ::close(out_fd);
    if (err_fd >= 0 && err_fd != out_fd) ::close(err_fd);
  }
};

void prepare_exec(const ProcessSpec& spec, Exec& x) {
  if (spec.argv.empty()) throw Error("empty command", kExitUsage);
  auto exe = find_executable(spec.argv[0]);
  if (!exe) throw Error("cannot run '" + spec.argv[0] + "': not found on PATH or not executable", kExitNoTool);
  x.exe = *exe;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto key = kv.substr(0, kv.find('='));
    if (!spec.env_set.count(key)) x.env_strings.push_back(kv);
  }
  for (const auto& [k, v] : spec.env_set) x.env_strings.push_back(k + "=" + v);
  for (auto& s : x.env_strings) x.envp.push_back(s.data());
  x.envp.push_back(nullptr);
  x.die_with_parent = spec.die_with_parent;
  x.parent = ::getpid();
  x.args = spec.argv;
  for (auto& a : x.args) x.argv.push_back(a.data());
  x.argv.push_back(nullptr);
  if (!spec.stdout_file.empty()) x.out_fd = open_out(spec.stdout_file);
  if (spec.stderr_file == "=stdout") x.err_fd = x.out_fd;
  else if (!spec.stderr_file.empty()) x.err_fd = open_out(spec.stderr_file);
}

// In the child after fork: its own group, default signal handling, the output files, exec.
[[noreturn]] void exec_child(const Exec& x) {
  ::setpgid(0, 0);
  if (x.die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != x.parent) _exit(127);  // the parent died before prctl: nobody waits for this task
  }
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (x.out_fd >= 0) ::dup2(x.out_fd, 1);
  if (x.err_fd >= 0) ::dup2(x.err_fd, 2);
  ::execve(x.exe.c_str(), x.argv.data(), x.envp.data());
  std::fprintf(stderr, "kprof: exec %s failed: %s\n", x.exe.c_str(), std::strerror(errno));
  _exit(127);
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void fill_status(ProcessResult& r, int status) {
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) { r.signaled = true; r.signal = WTERMSIG(status); }
}
}  // namespace

ChildProcess::ChildProcess(const ProcessSpec& spec) {
  Exec x;
  prepare_exec(spec, x);
  started_ = now_s();
  pid_ = ::fork();
  if (pid_ < 0) throw Error(std::string("fork failed: ") + std::strerror(errno));
  if (pid_ == 0) exec_child(x);
  ::setpgid(pid_, pid_);
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !done_) {
    ::kill(-pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

std::optional<ProcessResult> ChildProcess::try_wait() {
  if (done_ || pid_ <= 0) return done_;
  int status = 0;
  pid_t w = ::waitpid(pid_, &status, WNOHANG);
  if (w != pid_) return std::nullopt;
  ProcessResult r;
  fill_status(r, status);
  r.wall_seconds = now_s() - started_;
  done_ = r;
  return done_;
}

void ChildProcess::signal_group(int sig) {
  if (pid_ > 0 && !done_) ::kill(-pid_, sig);
}

ProcessResult run_process(const ProcessSpec& spec) {
  Exec x;
  prepare_exec(spec, x);

  // The child runs in its own process group. SIGINT/SIGTERM to kprof are recorded (util/interrupt.hpp) and passed
  // on to that whole group (ncu and the program it started alike); a group still alive 10 s later is killed.
  InterruptScope scope;
  const int signal_before = interrupt_signal();
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) exec_child(x);
  ::setpgid(pid, pid);  // also here: no window in which a signal would miss the group
  ProcessResult r;
  int status = 0;
  bool forwarded = false;
  std::chrono::steady_clock::time_point forwarded_at;
  while (true) {
    if (!forwarded && interrupt_signal() && interrupt_signal() != signal_before) {
      ::kill(-pid, interrupt_signal());
      forwarded = true;
      forwarded_at = std::chrono::steady_clock::now();
    }
    pid_t w = ::waitpid(pid, &status, forwarded ? WNOHANG : 0);
    if (w == pid) break;
    if (w == 0) {  // forwarded, still running
      if (std::chrono::steady_clock::now() - forwarded_at > std::chrono::seconds(10)) ::kill(-pid, SIGKILL);
      ::usleep(20000);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    break;
  }
  if (forwarded) ::kill(-pid, SIGKILL);  // what the program left running in its group (ESRCH when nothing)
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.interrupted = forwarded;
  fill_status(r, status);
  if (r.signaled && (r.signal == SIGINT || r.signal == SIGTERM) && interrupt_signal()) r.interrupted = true;
  return r;
}

}  // namespace kprof
