#include "util/fs.hpp"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.hpp"
#include "util/errors.hpp"

namespace kprof {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw Error("cannot read " + p.string() + ": is a directory", kExitBadInput);
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error("cannot read " + p.string() + ": " + std::strerror(errno), kExitBadInput);
  // A regular file is read straight into a string of its size: no second copy (a 200 MB ncu page is read whole
  // when `kprof analyze` copies it into the artifact). Pipes and other streams without a size are read as before.
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size > 0) {
    std::string s(static_cast<std::size_t>(size), '\0');
    in.seekg(0, std::ios::beg);
    if (in.read(s.data(), size) && in.gcount() == size && in.peek() == std::char_traits<char>::eof()) return s;
  }
  in.clear();
  in.seekg(0, std::ios::beg);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error("cannot read " + p.string() + ": read error", kExitBadInput);
  return ss.str();
}

fs::file_status input_status(const fs::path& p) {
  std::error_code ec;
  fs::file_status st = fs::status(p, ec);
  if (ec && st.type() != fs::file_type::not_found)
    throw Error("cannot read " + p.string() + ": " + ec.message(), kExitBadInput);
  return st;
}

CannotWrite::CannotWrite(const fs::path& p, const std::string& why)
    : Error("cannot write " + p.string() + ": " + why, kExitCannotWrite) {}

void ensure_dir(const fs::path& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    // create_directories reports "File exists" for a file in the way; name the culprit instead.
    for (fs::path p = dir; !p.empty() && p != p.parent_path(); p = p.parent_path())
      if (fs::exists(p) && !fs::is_directory(p)) throw CannotWrite(dir, p.string() + " is a file, not a directory");
    throw CannotWrite(dir, ec.message());
  }
}

void write_file_atomic(const fs::path& p, const std::string& content) {
  if (p.has_parent_path()) ensure_dir(p.parent_path());
  // rename(2) replaces `p` itself: a link there is replaced by the new file, its target is never written.
  fs::path tmp;
  int fd = open_temporary_beside(p, tmp);
  if (fd < 0) throw CannotWrite(p, std::strerror(errno));
  bool ok = write_all(fd, content.data(), content.size());
  int err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (!ok) {
    ::unlink(tmp.c_str());
    throw CannotWrite(p, std::strerror(err));
  }
  if (::rename(tmp.c_str(), p.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    throw CannotWrite(p, std::strerror(err));
  }
}

void append_file_atomic(const fs::path& p, const std::string& content) {
  std::string existing;
  if (fs::exists(p)) existing = read_file(p);
  write_file_atomic(p, existing + content);
}

void copy_file_atomic(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  if (fs::is_directory(from, ec)) throw Error("cannot read " + from.string() + ": is a directory", kExitBadInput);
  struct Fd {  // closed on every path out, exceptions included
    int fd = -1;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
  };
  Fd in{::open(from.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) throw Error("cannot read " + from.string() + ": " + std::strerror(errno), kExitBadInput);
  if (to.has_parent_path()) ensure_dir(to.parent_path());  // after the source opened: a bad one leaves nothing
  constexpr std::size_t kBuf = std::size_t{1} << 20;
  auto buf = std::make_unique_for_overwrite<char[]>(kBuf);  // allocated before the temporary file exists
  fs::path tmp;
  Fd out{open_temporary_beside(to, tmp)};
  if (out.fd < 0) throw CannotWrite(to, std::strerror(errno));
  // Which side failed decides the error: reading `from` (exit 3) or writing the copy (exit 9).
  int read_err = 0, write_err = 0;
  // copy_file_range copies nothing from files that report no size (procfs) and refuses pipes: those go through the
  // buffer from the start. It may also copy nothing on some file systems (FUSE, older kernels across file
  // systems): a first call that copies nothing from a file with a size falls back to the buffer too.
  struct stat st {};
  bool kernel_copy = ::fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  bool copied_any = false;
  for (;;) {
    if (kernel_copy) {
      ssize_t n = ::copy_file_range(in.fd, nullptr, out.fd, nullptr, std::size_t{1} << 30, 0);
      if (n > 0) {
        copied_any = true;
        continue;
      }
      if (n == 0 && copied_any) break;
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP || errno == EPERM) {
        kernel_copy = false;  // through the buffer, from where copy_file_range stopped
        continue;
      }
      // copy_file_range does not say which side failed: ENOSPC, EDQUOT, EFBIG are the copy's; anything else (EIO)
      // is blamed on the input.
      (errno == ENOSPC || errno == EDQUOT || errno == EFBIG ? write_err : read_err) = errno;
      break;
    }
    ssize_t n = ::read(in.fd, buf.get(), kBuf);
    if (n < 0) {
      if (errno == EINTR) continue;
      read_err = errno;
      break;
    }
    if (n == 0) break;
    if (!write_all(out.fd, buf.get(), static_cast<std::size_t>(n))) {
      write_err = errno;
      break;
    }
  }
  if (::close(out.fd) != 0 && !read_err && !write_err) write_err = errno;
  out.fd = -1;
  if (read_err || write_err) {
    ::unlink(tmp.c_str());
    if (read_err) throw Error("cannot read " + from.string() + ": " + std::strerror(read_err), kExitBadInput);
    throw CannotWrite(to, std::strerror(write_err));
  }
  if (::rename(tmp.c_str(), to.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw CannotWrite(to, std::strerror(err));
  }
}

namespace {
std::string format_now(const char* fmt) {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}
}  // namespace

std::string utc_timestamp() { return format_now("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_timestamp_dir() { return format_now("%Y%m%d-%H%M%S"); }

std::optional<fs::path> executable_dir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return p.parent_path();
}

}  // namespace kprof
