#include "collect/clock/gpu_lock.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/errors.hpp"
#include "util/interrupt.hpp"

namespace kprof {

int visible_gpu() {
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
    try {
      return std::stoi(v);
    } catch (...) {
    }
  }
  return 0;
}

std::filesystem::path gpu_lock_path(int gpu) {
  const char* dir = std::getenv("KPROF_LOCK_DIR");
  std::filesystem::path base = (dir && *dir) ? dir : "/tmp";
  return base / ("kprof-gpu" + std::to_string(gpu) + ".lock");
}

namespace {

// "pid 1234" from the lock file, or "an unknown process" when it holds nothing readable yet.
std::string holder_of(int fd) {
  char buf[64] = {};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return "an unknown process";
  return "pid " + s;
}

}  // namespace

GpuLock GpuLock::acquire(int gpu, bool wait, const std::function<void(const std::string&)>& on_wait_message) {
  auto path = gpu_lock_path(gpu);
  // O_NOFOLLOW: in a shared /tmp anyone may plant a link at the lock's name; it is refused (ELOOP), never followed
  // to truncate and write its target.
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    throw Error("cannot open GPU lock " + path.string() + ": " +
                (errno == ELOOP ? std::string("it is a symbolic link (refused)") : std::strerror(errno)));
  // Shared /tmp: let other users' runs take the lock too, on a regular file this user owns only (another user's
  // lock file is theirs to keep).
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("cannot use GPU lock " + path.string() + ": not a regular file");
  }
  if (st.st_uid == ::geteuid() && (st.st_mode & 07777) != 0666) ::fchmod(fd, 0666);

  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      int e = errno;
      ::close(fd);
      throw Error("cannot lock " + path.string() + ": " + std::strerror(e));
    }
    std::string who = holder_of(fd);
    if (!wait) {
      ::close(fd);
      throw Error("GPU " + std::to_string(gpu) + " is in use by another kprof run (" + who + ", lock " +
                      path.string() + "); wait for it or run without --no-wait",
                  kExitBusy);
    }
    if (on_wait_message)
      on_wait_message("GPU " + std::to_string(gpu) + " is in use by another kprof run (" + who + "); waiting...");
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR && interrupt_signal()) {
        ::close(fd);
        throw Error("interrupted while waiting for GPU " + std::to_string(gpu) + " (nothing was run)",
                    interrupt_exit_code());
      }
      if (errno != EINTR) {
        int e = errno;
        ::close(fd);
        throw Error("cannot lock " + path.string() + ": " + std::strerror(e));
      }
    }
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The lock is held; only the holder's name for others is missing.
  }
  return GpuLock(gpu, fd, path);
}

GpuLock::GpuLock(GpuLock&& o) noexcept : gpu_(o.gpu_), fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }

GpuLock& GpuLock::operator=(GpuLock&& o) noexcept {
  if (this != &o) {
    release();
    gpu_ = o.gpu_;
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

GpuLock::~GpuLock() { release(); }

void GpuLock::release() noexcept {
  if (fd_ < 0) return;
  if (::ftruncate(fd_, 0) != 0) {
    // Nothing to do: the PID left behind is ignored once the lock is free.
  }
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace kprof
