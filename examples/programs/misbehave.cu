// A program that misbehaves on the GPU, for kprof's bad-input checks on the device (scripts/device/reliability.sh):
//
//   misbehave fault      three good launches of `scale`, then `wild_store` writes through a wild pointer: the
//                        launch ends in cudaErrorIllegalAddress, the program prints the error and exits 1
//   misbehave trap       three good launches, then `trap_kernel` executes __trap() (cudaErrorLaunchFailure), exit 1
//   misbehave long SECS  launches `scale` in a loop for SECS seconds, printing a line per second (something to
//                        interrupt with Ctrl-C or SIGTERM while it is being profiled); exit 0 when the time is up
//   misbehave fork       three good launches, then fork() without exec: the child (no CUDA of its own) calls exit(),
//                        which runs the atexit handlers it inherited; the parent waits for it (at most 20 s, then
//                        kills it and exits 4), then three more launches; exit 0. With ten or more SECS after
//                        `fork`, the child instead sleeps and the parent launches for SECS seconds (a process
//                        group to interrupt: the child must end with the program)
//
// Build: CMake with CUDA (KPROF_CUDA_ARCHITECTURES), or `nvcc -O2 -arch=sm_90 -lineinfo misbehave.cu`.
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + 1.0f;
}

__global__ void wild_store(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // Far past the allocation: an address no allocation of this program maps.
  if (i < n) x[i + (1ll << 36) / sizeof(float)] = 1.0f;
}

__global__ void trap_kernel(const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > -1.0f) __trap();
}

int check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return 0;
  std::fprintf(stderr, "misbehave: %s: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: misbehave fault | trap | long SECONDS | fork [SECONDS]\n");
    return 2;
  }
  const char* mode = argv[1];
  const int n = 1 << 24;
  float* x = nullptr;
  if (check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc")) return 1;
  if (check(cudaMemset(x, 0, n * sizeof(float)), "cudaMemset")) return 1;
  const int block = 256, grid = (n + block - 1) / block;

  if (std::strcmp(mode, "long") == 0) {
    const double secs = argc > 2 ? std::atof(argv[2]) : 30.0;
    const auto t0 = std::chrono::steady_clock::now();
    long launches = 0;
    double next_print = 1.0;
    for (;;) {
      scale<<<grid, block>>>(x, 0.5f, n);
      if (check(cudaDeviceSynchronize(), "scale")) return 1;
      ++launches;
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (el >= next_print) {
        std::printf("misbehave: %.0f s, %ld launches\n", el, launches);
        std::fflush(stdout);
        next_print += 1.0;
      }
      if (el >= secs) break;
    }
    std::printf("misbehave: done after %ld launches\n", launches);
    return 0;
  }

  for (int k = 0; k < 3; ++k) scale<<<grid, block>>>(x, 0.5f, n);
  if (check(cudaDeviceSynchronize(), "scale")) return 1;
  std::printf("misbehave: three good launches done\n");
  std::fflush(stdout);
  if (std::strcmp(mode, "fault") == 0) {
    wild_store<<<grid, block>>>(x, n);
    return check(cudaDeviceSynchronize(), "wild_store") ? 1 : 0;
  }
  if (std::strcmp(mode, "trap") == 0) {
    trap_kernel<<<grid, block>>>(x, n);
    return check(cudaDeviceSynchronize(), "trap_kernel") ? 1 : 0;
  }
  if (std::strcmp(mode, "fork") == 0) {
    const double secs = argc > 2 ? std::atof(argv[2]) : 0.0;
    std::fflush(nullptr);
    const pid_t child = ::fork();
    if (child < 0) {
      std::perror("misbehave: fork");
      return 1;
    }
    if (child == 0) {
      if (secs >= 10) {
        for (;;) ::pause();  // until the signal that ends the program's group
      }
      std::exit(0);  // the inherited atexit handlers run here, in a process without CUDA
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    if (secs >= 10) {
      long launches = 0;
      while (elapsed() < secs) {
        scale<<<grid, block>>>(x, 0.5f, n);
        if (check(cudaDeviceSynchronize(), "scale")) return 1;
        ++launches;
      }
      ::kill(child, SIGKILL);
      ::waitpid(child, nullptr, 0);
      std::printf("misbehave: fork: %ld launches while the child slept\n", launches);
      return 0;
    }
    int status = 0;
    bool ended = false;
    while (elapsed() < 20.0) {
      if (::waitpid(child, &status, WNOHANG) == child) {
        ended = true;
        break;
      }
      ::usleep(5000);
    }
    if (!ended) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      std::printf("misbehave: fork: the child hung in exit() for 20 s; killed it\n");
      return 4;
    }
    std::printf("misbehave: fork: the child exited in %.2f s with status %d\n", elapsed(),
                WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
    for (int k = 0; k < 3; ++k) scale<<<grid, block>>>(x, 0.5f, n);
    if (check(cudaDeviceSynchronize(), "scale")) return 1;
    std::printf("misbehave: three more launches done\n");
    return 0;
  }
  std::fprintf(stderr, "misbehave: unknown mode %s\n", mode);
  return 2;
}
