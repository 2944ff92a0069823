#include "collect/trace/trace_reader.hpp"

#include <cstring>
#include "collect/trace/trace_assembly.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof {

using namespace trace_format;

Trace read_trace(const std::filesystem::path& file) {
  std::string bytes = read_file(file);
  return parse_trace(bytes, file.string());
}

Trace parse_trace(std::string_view bytes, const std::string& source) {
  if (bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0)
    return parse_kprof_trace(bytes, source);
  std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) throw ParseError(source, 0, "empty trace file");
  if (bytes[first] == '{') return parse_cupti_jsonl(bytes, source);
  throw ParseError(source, 0, "not a kprof trace (magic KPTRACE1) nor CUPTI JSONL");
}

namespace {

[[noreturn]] void fail_at(const std::string& source, std::uint64_t offset, const std::string& what) {
  throw ParseError(source, 0, "byte offset " + std::to_string(offset) + ": " + what);
}

// Copies `count` records of `record_bytes` each into `out`; a larger on-disk record keeps its known prefix.
template <typename T>
void read_section(std::string_view bytes, const SectionEntry& s, std::vector<T>& out, const std::string& source) {
  if (s.record_bytes < sizeof(T))
    fail_at(source, s.offset, "section " + std::to_string(s.kind) + " has " + std::to_string(s.record_bytes) +
                                  "-byte records, expected at least " + std::to_string(sizeof(T)));
  out.resize(s.count);
  if (s.record_bytes == sizeof(T)) {
    if (s.count) std::memcpy(out.data(), bytes.data() + s.offset, s.count * sizeof(T));
    return;
  }
  for (std::uint64_t i = 0; i < s.count; ++i) std::memcpy(&out[i], bytes.data() + s.offset + i * s.record_bytes, sizeof(T));
}

}  // namespace

Trace parse_kprof_trace(std::string_view bytes, const std::string& source) {
  RawTrace raw;
  raw.source = source;
  raw.format = "kprof-trace/1";
  if (bytes.size() < sizeof(FileHeader) + sizeof(FileFooter))
    fail_at(source, bytes.size(), "truncated: " + std::to_string(bytes.size()) + " bytes is shorter than a header");
  std::memcpy(&raw.header, bytes.data(), sizeof(FileHeader));
  const FileHeader& h = raw.header;
  if (h.version != kVersion) fail_at(source, 8, "unsupported kprof trace version " + std::to_string(h.version));
  if (h.header_bytes < sizeof(FileHeader) || h.header_bytes > bytes.size())
    fail_at(source, 12, "bad header size " + std::to_string(h.header_bytes));
  FileFooter footer;
  std::memcpy(&footer, bytes.data() + bytes.size() - sizeof footer, sizeof footer);
  if (std::memcmp(footer.magic, kEndMagic, sizeof kEndMagic) != 0 || footer.file_bytes != bytes.size())
    fail_at(source, bytes.size(), "truncated or corrupt: end marker missing (file has " + std::to_string(bytes.size()) +
                                      " bytes)");
  std::uint64_t table = h.header_bytes;
  if (h.section_count > 1024 || table + std::uint64_t{h.section_count} * sizeof(SectionEntry) > bytes.size())
    fail_at(source, table, "section table does not fit in the file");
  std::uint64_t payload_end = bytes.size() - sizeof footer;
  bool have_strings = false;
  for (std::uint32_t i = 0; i < h.section_count; ++i) {
    SectionEntry s;
    std::uint64_t at = table + i * sizeof(SectionEntry);
    std::memcpy(&s, bytes.data() + at, sizeof s);
    if (s.record_bytes == 0 || s.offset > payload_end || s.count > (payload_end - s.offset) / s.record_bytes)
      fail_at(source, at, "section " + std::to_string(s.kind) + " (" + std::to_string(s.count) +
                              " records) runs past the end of the file");
    switch (s.kind) {
      case kSectionKernel: read_section(bytes, s, raw.kernels, source); break;
      case kSectionMemcpy: read_section(bytes, s, raw.memcpys, source); break;
      case kSectionMemset: read_section(bytes, s, raw.memsets, source); break;
      case kSectionSync: read_section(bytes, s, raw.syncs, source); break;
      case kSectionApi: read_section(bytes, s, raw.api_calls, source); break;
      case kSectionMarker: read_section(bytes, s, raw.markers, source); break;
      case kSectionGraph: read_section(bytes, s, raw.graphs, source); break;
      case kSectionOverhead: read_section(bytes, s, raw.overheads, source); break;
      case kSectionStrings:
        raw.strings.assign(bytes.data() + s.offset, s.count);
        if (!raw.strings.empty() && raw.strings.back() != '\0')
          fail_at(source, s.offset + s.count, "strings section is not NUL-terminated");
        have_strings = true;
        break;
      default: break;  // a newer writer's section: skip
    }
  }
  if (!have_strings) fail_at(source, table, "no strings section");
  return assemble_trace(std::move(raw));
}

}  // namespace kprof
