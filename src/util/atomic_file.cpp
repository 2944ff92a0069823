#include "util/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <fcntl.h>
#include <string>
#include <sys/random.h>
#include <unistd.h>

namespace kprof {

namespace fs = std::filesystem;

namespace {

// Twelve letters and digits from the kernel's random source (a clock and a counter should getrandom fail).
std::string random_letters() {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[12];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got < sizeof bytes) {  // no getrandom: a clock, the pid and a counter, mixed (O_EXCL keeps names apart anyway)
    static std::atomic<std::uint64_t> counter{0};
    std::uint64_t x = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                      (static_cast<std::uint64_t>(::getpid()) << 32) ^ (counter.fetch_add(1) * 0x9E3779B97F4A7C15ull);
    x |= 1;
    for (auto& b : bytes) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b = static_cast<unsigned char>(x >> 56);
    }
  }
  std::string out;
  for (unsigned char b : bytes) out += kAlphabet[b % (sizeof kAlphabet - 1)];
  return out;
}

}  // namespace

bool write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

int open_temporary_beside(const fs::path& p, fs::path& tmp) {
  std::string stem = p.filename().string();
  if (stem.size() > 16) {
    std::size_t cut = 16;
    while (cut > 0 && (static_cast<unsigned char>(stem[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    stem.resize(cut);
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = p.parent_path() / ("." + stem + ".tmp." + random_letters());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace kprof
