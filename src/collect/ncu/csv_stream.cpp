#include "collect/ncu/csv_stream.hpp"

#include <csv.h>
#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::ncu {

std::size_t CsvStream::record_count() const {
  std::size_t n = 0;
  for (const auto& it : items) n += it.kind == ItemKind::record;
  return n;
}

std::vector<std::string> CsvStream::profiler_errors() const {
  std::vector<std::string> out;
  for (const auto& it : items)
    if (it.kind == ItemKind::profiler && it.text.rfind("==ERROR==", 0) == 0) out.push_back(it.text);
  return out;
}

namespace {

struct Collector {
  std::vector<std::string> fields;
  bool done = false;
};

void on_field(void* s, std::size_t len, void* data) {
  auto* c = static_cast<Collector*>(data);
  c->fields.emplace_back(s ? static_cast<const char*>(s) : "", s ? len : 0);
}

void on_record(int, void* data) { static_cast<Collector*>(data)->done = true; }

bool is_profiler_line(std::string_view l) {
  return l.substr(0, 8) == "==PROF==" || l.substr(0, 11) == "==WARNING==" || l.substr(0, 9) == "==ERROR==";
}

// Bounds on what is not a CSV table, so an endless or binary input (/dev/zero, `yes | kprof analyze /dev/stdin`)
// ends with an error instead of growing memory for ever: a line longer than kMaxLine, or more than kMaxText bytes
// of lines outside the table (the program's own output, the profiler's messages).
constexpr std::size_t kMaxLine = std::size_t{256} << 20;
constexpr std::size_t kMaxText = std::size_t{256} << 20;

// Control bytes that never occur in ncu's text output; ESC (colour codes) and tab are allowed in program output.
bool is_binary_byte(unsigned char c) { return c == 0 || (c < 0x20 && c != '\t' && c != '\x1b' && c != '\r' && c != '\n'); }

struct ParserDeleter {
  void operator()(csv_parser* p) const { csv_free(p); delete p; }
};

// ncu's source page prints each source line verbatim inside quotes, so a line such as
//   "64","asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: ...);","-","-","2397",...
// is not valid CSV. Every other cell of that page is a plain value, so the record can be recovered: split on the
// `","` separators and give the surplus pieces back to the "Source" column of the current header.
std::optional<std::vector<std::string>> recover_source_record(std::string_view line,
                                                              const std::vector<std::string>* header) {
  if (!header || line.size() < 2 || line.front() != '"' || line.back() != '"') return std::nullopt;
  std::size_t source_col = header->size();
  for (std::size_t i = 0; i < header->size(); ++i)
    if ((*header)[i] == "Source") { source_col = i; break; }
  if (source_col == header->size()) return std::nullopt;
  std::vector<std::string> pieces;
  std::string_view body = line.substr(1, line.size() - 2);
  for (std::size_t start = 0;;) {
    std::size_t sep = body.find("\",\"", start);
    pieces.emplace_back(body.substr(start, sep == std::string_view::npos ? std::string_view::npos : sep - start));
    if (sep == std::string_view::npos) break;
    start = sep + 3;
  }
  if (pieces.size() < header->size()) return std::nullopt;
  std::size_t extra = pieces.size() - header->size();
  for (std::size_t k = 0; k < extra; ++k) pieces[source_col] += "\",\"" + pieces[source_col + 1 + k];
  pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(source_col) + 1,
               pieces.begin() + static_cast<std::ptrdiff_t>(source_col + 1 + extra));
  return pieces;
}

}  // namespace

namespace {

// The line-by-line state machine behind every entry point: physical lines in, items out.
class Splitter {
 public:
  Splitter(const std::string& file, const CsvSink& sink, std::vector<long>* recovered)
      : file_(file), sink_(sink), recovered_(recovered) {
    reset_parser();
  }

  // One physical line without its '\n'.
  void line(std::string_view line) {
    ++line_no_;
    if (line_no_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);  // UTF-8 BOM
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    check_text(line, line_no_);
    if (!in_record_) {
      if (line.find_first_not_of(" \t") == std::string_view::npos) return;
      saw_content_ = true;
      if (line.front() != '"') {
        text_bytes_ += line.size() + 1;
        if (text_bytes_ > kMaxText)
          throw ParseError(file_, line_no_,
                           fmt::format("more than {} MiB of lines outside any CSV table: not Nsight Compute's CSV "
                                       "output (an endless or unrelated input?)",
                                       kMaxText >> 20));
        item_.kind = is_profiler_line(line) ? ItemKind::profiler : ItemKind::text;
        item_.line = line_no_;
        item_.fields.clear();
        item_.text.assign(line);
        sink_(item_);
        return;
      }
      record_start_ = line_no_;
      if (split_simple_record(line)) {
        emit_record(std::move(fast_fields_), line_no_);
        return;
      }
      col_.fields.clear();
      col_.done = false;
    }
    // The line and its terminator are fed separately so the input is never copied.
    static const char kNewline = '\n';
    std::size_t used = csv_parse(parser_.get(), line.data(), line.size(), on_field, on_record, &col_);
    used += csv_parse(parser_.get(), &kNewline, 1, on_field, on_record, &col_);
    if (used != line.size() + 1 || csv_error(parser_.get()) != CSV_SUCCESS) {
      if (record_start_ == line_no_) {
        if (auto fields = recover_source_record(line, header_ ? &*header_ : nullptr)) {
          if (recovered_) recovered_->push_back(line_no_);
          // libcsv's state is undefined after an error: start a fresh parser for the next record.
          reset_parser();
          in_record_ = false;
          emit_record(std::move(*fields), line_no_, /*may_be_header=*/false);
          return;
        }
      }
      throw ParseError(file_, line_no_, fmt::format("malformed CSV record (started on line {}): {}; a quote inside a "
                                                    "quoted field must be doubled",
                                                    record_start_, csv_strerror(csv_error(parser_.get()))));
    }
    if (col_.done) {
      in_record_ = false;
      emit_record(std::move(col_.fields), record_start_);
      col_.fields = {};
      col_.done = false;
    } else {
      in_record_ = true;  // the newline belonged to a quoted field
    }
  }

  // A line still being read, longer than a block: refused now when it is binary (/dev/zero has no newline at all)
  // or longer than kMaxLine, rather than once it ends.
  // `fresh`: the part of it read last (the rest was checked before).
  void partial_line(std::size_t length, std::string_view fresh) {
    if (length > kMaxLine)
      throw ParseError(file_, line_no_ + 1, fmt::format("a line longer than {} MiB: not Nsight Compute's CSV output",
                                                        kMaxLine >> 20));
    check_text(fresh, line_no_ + 1);
  }

  void finish() {
    if (in_record_)
      throw ParseError(file_, record_start_, "unterminated quoted field: the record starting here never closes its quote");
    if (!saw_content_) throw ParseError(file_, 0, "empty file: no Nsight Compute output in it");
  }

 private:
  void check_text(std::string_view line, long line_no) const {
    unsigned char lowest = 0xff;  // one pass the compiler vectorises; the byte-by-byte test only for a line with
    for (unsigned char c : line) lowest = c < lowest ? c : lowest;  // a control byte (tab, ESC, ...)
    if (lowest < 0x20)
      for (unsigned char c : line)
        if (is_binary_byte(c))
          throw ParseError(file_, line_no, fmt::format("binary data (byte 0x{:02x}): not ncu CSV text; an .ncu-rep "
                                                       "report must be exported first with `ncu --import FILE --csv "
                                                       "--page raw`",
                                                       static_cast<int>(c)));
  }

  void reset_parser() {
    parser_.reset(new csv_parser);
    if (csv_init(parser_.get(), CSV_STRICT | CSV_STRICT_FINI) != 0) throw Error("libcsv: cannot initialise parser");
  }
  // ncu quotes every field and rarely needs an escaped quote: a line `"a","b",...,"z"` whose fields hold no quote is
  // split here, several times faster than libcsv's per-character callbacks (a 200 MB raw page is 22M cells).
  // Anything else (a quote inside a field, a field continuing on the next line) goes through libcsv.
  // A record on one line whose fields are all quoted ("a","b ""c""",""): split here, without libcsv. Every data
  // row of an ncu raw page is one (its NVTX column holds doubled quotes). The field strings of the previous record
  // are reused (emit_record swaps them back), so a page of same-width rows allocates almost nothing per row.
  // Anything else (an unquoted field, a quoted field that continues on the next line, text after a closing quote)
  // returns false and goes to libcsv.
  bool split_simple_record(std::string_view line) {
    const std::size_t len = line.size();
    std::size_t n = 0, i = 0;
    for (;;) {
      if (i >= len || line[i] != '"') return false;
      ++i;
      if (n == fast_fields_.size()) fast_fields_.emplace_back();
      std::string& out = fast_fields_[n];
      out.clear();
      for (;;) {
        const std::size_t q = line.find('"', i);
        if (q == std::string_view::npos) return false;  // the field continues on the next line
        out.append(line.data() + i, q - i);
        if (q + 1 < len && line[q + 1] == '"') {  // "" inside a field: one quote
          out.push_back('"');
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      ++n;
      if (i == len) break;
      if (line[i] != ',' || i + 1 == len) return false;
      ++i;
    }
    fast_fields_.resize(n);
    return true;
  }

  void emit_record(std::vector<std::string>&& fields, long line, bool may_be_header = true) {
    if (may_be_header)
      for (const auto& f : fields)
        if (f == "Source") { header_ = fields; break; }
    item_.kind = ItemKind::record;
    item_.line = line;
    item_.text.clear();
    item_.fields.swap(fields);  // the caller's vector gets the previous record's storage back
    sink_(item_);
  }

  const std::string& file_;
  const CsvSink& sink_;
  std::vector<long>* recovered_;
  std::unique_ptr<csv_parser, ParserDeleter> parser_;
  Collector col_;
  std::vector<std::string> fast_fields_;
  StreamItem item_;
  std::optional<std::vector<std::string>> header_;  // copy of the latest record naming a "Source" column
  bool in_record_ = false;  // inside a record whose quoted field continues on the next line
  bool saw_content_ = false;
  std::size_t text_bytes_ = 0;  // of lines outside the table
  long record_start_ = 0;
  long line_no_ = 0;
};

}  // namespace

void stream_csv_text(const std::string& content, const std::string& file, const CsvSink& sink,
                     std::vector<long>* recovered) {
  Splitter split(file, sink, recovered);
  for (std::size_t pos = 0; pos < content.size();) {
    std::size_t eol = content.find('\n', pos);
    std::size_t end = eol == std::string::npos ? content.size() : eol;
    split.line(std::string_view(content.data() + pos, end - pos));
    pos = eol == std::string::npos ? content.size() : eol + 1;
  }
  split.finish();
}

void stream_csv_file(const std::string& path, const CsvSink& sink, std::vector<long>* recovered) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw Error("cannot read " + path + ": no such file or not readable", kExitBadInput);
  Splitter split(path, sink, recovered);
  // One buffer, read into directly: the unconsumed tail (at most one partial line) moves to its front before each
  // read, and the buffer doubles only for a line longer than a block.
  // A file smaller than a block gets a buffer of its size (the fuzzer reads millions of small files).
  std::size_t block = std::size_t{1} << 22;
  struct stat st {};
  if (::fstat(::fileno(f.get()), &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) < block)
    block = std::max<std::size_t>(static_cast<std::size_t>(st.st_size) + 1, 4096);
  std::size_t cap = 2 * block;
  auto buf = std::make_unique_for_overwrite<char[]>(cap);  // not zeroed: fread fills it
  std::size_t len = 0;  // bytes in buf
  for (;;) {
    if (cap - len < block) {
      auto bigger = std::make_unique_for_overwrite<char[]>(cap * 2);
      std::memcpy(bigger.get(), buf.get(), len);
      buf = std::move(bigger);
      cap *= 2;
    }
    std::size_t n = std::fread(buf.get() + len, 1, block, f.get());
    if (n == 0) {
      if (std::ferror(f.get())) throw Error("cannot read " + path + ": read error", kExitBadInput);
      break;
    }
    const std::size_t scanned = len;  // no '\n' before here: the tail left over holds none
    len += n;
    std::size_t begin = 0;
    for (std::size_t from = scanned;;) {
      const void* nl = std::memchr(buf.get() + from, '\n', len - from);
      if (!nl) break;
      const std::size_t eol = static_cast<std::size_t>(static_cast<const char*>(nl) - buf.get());
      split.line(std::string_view(buf.get() + begin, eol - begin));
      begin = from = eol + 1;
    }
    std::memmove(buf.get(), buf.get() + begin, len - begin);
    len -= begin;
    if (len >= block) {
      const std::size_t fresh = std::min(n, len);
      split.partial_line(len, std::string_view(buf.get() + len - fresh, fresh));
    }
  }
  if (len > 0) split.line(std::string_view(buf.get(), len));
  split.finish();
}

CsvStream split_csv_stream(const std::string& content, const std::string& file) {
  CsvStream out;
  out.file = file;
  stream_csv_text(content, file, [&](StreamItem& it) { out.items.push_back(std::move(it)); }, &out.recovered_lines);
  return out;
}

CsvStream read_csv_stream(const std::string& path) {
  CsvStream out;
  out.file = path;
  stream_csv_file(path, [&](StreamItem& it) { out.items.push_back(std::move(it)); }, &out.recovered_lines);
  return out;
}

}  // namespace kprof::ncu
