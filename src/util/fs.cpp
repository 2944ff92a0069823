#include "util/fs.hpp"

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "util/errors.hpp"

namespace kprof {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error("cannot read " + p.string() + ": no such file or not readable", kExitBadInput);
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
  return ss.str();
}

void write_file_atomic(const std::filesystem::path& p, const std::string& content) {
  namespace fs = std::filesystem;
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  fs::path tmp = p;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + tmp.string());
    out << content;
    out.flush();
    if (!out) throw Error("write failed for " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp);
    throw Error("cannot move " + tmp.string() + " to " + p.string() + ": " + ec.message());
  }
}

void append_file_atomic(const std::filesystem::path& p, const std::string& content) {
  std::string existing;
  if (std::filesystem::exists(p)) existing = read_file(p);
  write_file_atomic(p, existing + content);
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

std::optional<std::filesystem::path> executable_dir() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return p.parent_path();
}

}  // namespace kprof
