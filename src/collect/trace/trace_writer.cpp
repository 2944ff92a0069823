#include "collect/trace/trace_writer.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include "util/atomic_file.hpp"

namespace kprof {

using namespace trace_format;

TraceBuffer::TraceBuffer() { refs_.reserve(1024); }

StringRef TraceBuffer::intern(const char* s) { return s ? intern(std::string_view(s)) : kNoString; }

StringRef TraceBuffer::intern(std::string_view s) {
  if (s.empty()) return kNoString;
  if (auto it = refs_.find(s); it != refs_.end()) return it->second;
  auto ref = static_cast<StringRef>(strings_.size());
  strings_.append(s);
  strings_.push_back('\0');
  refs_.emplace(std::string(s), ref);
  return ref;
}

std::size_t TraceBuffer::record_count() const {
  return kernels.size() + memcpys.size() + memsets.size() + syncs.size() + api_calls.size() + markers.size() +
         graphs.size() + overheads.size();
}

void TraceBuffer::clear_records() {
  kernels.clear();
  memcpys.clear();
  memsets.clear();
  syncs.clear();
  api_calls.clear();
  markers.clear();
  graphs.clear();
  overheads.clear();
}

namespace {
constexpr std::uint64_t align8(std::uint64_t v) { return (v + 7) & ~std::uint64_t{7}; }
constexpr int kSectionCount = 9;
constexpr std::size_t kMaxErrorsKept = 16;
}  // namespace

// Walks the file front to back, handing contiguous byte ranges to sink(const void*, size_t) → bool.
template <typename Sink>
bool TraceBuffer::emit(const TraceFileInfo& info, Sink&& sink) const {
  // Header strings go after the interned ones so the arena stays untouched.
  std::string extra;
  auto add_extra = [&](const std::string& s) -> StringRef {
    if (s.empty()) return kNoString;
    auto ref = static_cast<StringRef>(strings_.size() + extra.size());
    extra.append(s);
    extra.push_back('\0');
    return ref;
  };
  std::string joined;
  for (std::size_t i = 0; i < info.errors.size() && i < kMaxErrorsKept; ++i) {
    if (i) joined.push_back('\n');
    joined += info.errors[i];
  }

  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof h.magic);
  h.version = kVersion;
  h.header_bytes = sizeof(FileHeader);
  h.section_count = kSectionCount;
  h.pid = info.pid;
  h.dropped_records = info.dropped_records;
  h.tracer_start_ns = info.tracer_start_ns;
  h.tracer_end_ns = info.tracer_end_ns;
  h.cupti_error_count = info.error_count ? info.error_count : static_cast<std::uint32_t>(info.errors.size());
  h.errors = add_extra(joined);
  h.process_name = add_extra(info.process_name);
  h.flags = info.flags;
  h.cupti_api_version = info.cupti_api_version;

  SectionEntry sec[kSectionCount] = {
      {kSectionKernel, sizeof(RawKernel), kernels.size(), 0},
      {kSectionMemcpy, sizeof(RawMemcpy), memcpys.size(), 0},
      {kSectionMemset, sizeof(RawMemset), memsets.size(), 0},
      {kSectionSync, sizeof(RawSync), syncs.size(), 0},
      {kSectionApi, sizeof(RawApi), api_calls.size(), 0},
      {kSectionMarker, sizeof(RawMarker), markers.size(), 0},
      {kSectionGraph, sizeof(RawGraph), graphs.size(), 0},
      {kSectionOverhead, sizeof(RawOverhead), overheads.size(), 0},
      {kSectionStrings, 1, strings_.size() + extra.size(), 0},
  };
  std::uint64_t off = sizeof(FileHeader) + sizeof sec;
  for (auto& s : sec) {
    off = align8(off);
    s.offset = off;
    off += s.count * s.record_bytes;
  }
  off = align8(off);
  FileFooter footer{};
  footer.file_bytes = off + sizeof(FileFooter);
  std::memcpy(footer.magic, kEndMagic, sizeof footer.magic);

  static const char zeros[8] = {};
  std::uint64_t pos = 0;
  auto put = [&](const void* p, std::size_t n) {
    pos += n;
    return n == 0 || sink(p, n);
  };
  auto pad_to = [&](std::uint64_t target) { return put(zeros, static_cast<std::size_t>(target - pos)); };
  auto put_arena = [&](const auto& arena) {
    bool ok = true;
    arena.for_each_chunk([&](const auto* recs, std::size_t n) { ok = ok && put(recs, n * sizeof *recs); });
    return ok;
  };

  bool ok = put(&h, sizeof h) && put(sec, sizeof sec);
  ok = ok && pad_to(sec[0].offset) && put_arena(kernels);
  ok = ok && pad_to(sec[1].offset) && put_arena(memcpys);
  ok = ok && pad_to(sec[2].offset) && put_arena(memsets);
  ok = ok && pad_to(sec[3].offset) && put_arena(syncs);
  ok = ok && pad_to(sec[4].offset) && put_arena(api_calls);
  ok = ok && pad_to(sec[5].offset) && put_arena(markers);
  ok = ok && pad_to(sec[6].offset) && put_arena(graphs);
  ok = ok && pad_to(sec[7].offset) && put_arena(overheads);
  ok = ok && pad_to(sec[8].offset) && put(strings_.data(), strings_.size()) && put(extra.data(), extra.size());
  ok = ok && pad_to(off) && put(&footer, sizeof footer);
  return ok;
}

std::string TraceBuffer::serialize(const TraceFileInfo& info) const {
  std::string out;
  emit(info, [&](const void* p, std::size_t n) {
    out.append(static_cast<const char*>(p), n);
    return true;
  });
  return out;
}

bool TraceBuffer::write_file(const std::string& path, const TraceFileInfo& info, std::string* error) const {
  // A temporary file no planted link can redirect (util/atomic_file.hpp), renamed over `path`: the old
  // "<path>.tmp.<pid>", opened with O_TRUNC, truncated and overwrote whatever a link there pointed to.
  std::filesystem::path tmp;
  int fd = open_temporary_beside(path, tmp);
  const bool created = fd >= 0;
  auto fail = [&](const char* what) {
    if (error) *error = std::string(what) + " " + (created ? tmp.string() : path) + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    if (created) ::unlink(tmp.c_str());
    return false;
  };
  if (fd < 0) return fail("cannot create");
  bool ok = emit(info, [&](const void* p, std::size_t n) { return write_all(fd, static_cast<const char*>(p), n); });
  if (!ok) return fail("cannot write");
  if (::fsync(fd) != 0) return fail("cannot sync");
  if (::close(fd) != 0) {
    fd = -1;
    return fail("cannot close");
  }
  fd = -1;
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot rename");
  return true;
}

}  // namespace kprof
