// One kprof profiling run per GPU at a time: an flock(2) on /tmp/kprof-gpu<N>.lock (or $KPROF_LOCK_DIR).
// The holder writes its PID into the file so a second run can say who is in the way. The kernel drops the lock
// when the holder exits, however it exits, so a crash never leaves a GPU locked.
#pragma once
#include <filesystem>
#include <functional>
#include <string>

namespace kprof {

// The GPU a run uses: the first entry of CUDA_VISIBLE_DEVICES when it is a number, else 0.
int visible_gpu();

// $KPROF_LOCK_DIR/kprof-gpu<N>.lock, default directory /tmp.
std::filesystem::path gpu_lock_path(int gpu);

class GpuLock {
 public:
  // Takes the lock. When another process holds it: with wait=false throws Error(kExitBusy) naming the holder's
  // PID; with wait=true calls on_wait_message once ("GPU 0 is in use by kprof (pid 123); waiting...") and blocks.
  static GpuLock acquire(int gpu, bool wait,
                         const std::function<void(const std::string&)>& on_wait_message = nullptr);

  GpuLock(GpuLock&& other) noexcept;
  GpuLock& operator=(GpuLock&& other) noexcept;
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  ~GpuLock();

  void release() noexcept;  // idempotent
  int gpu() const { return gpu_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  GpuLock(int gpu, int fd, std::filesystem::path path) : gpu_(gpu), fd_(fd), path_(std::move(path)) {}
  int gpu_ = -1;
  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace kprof
