#include "collect/ncu/csv_stream.hpp"

#include <csv.h>
#include <fmt/format.h>

#include <memory>
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

// Control bytes that never occur in ncu's text output; ESC (colour codes) and tab are allowed in program output.
bool is_binary_byte(unsigned char c) { return c == 0 || (c < 0x20 && c != '\t' && c != '\x1b' && c != '\r' && c != '\n'); }

struct ParserDeleter {
  void operator()(csv_parser* p) const { csv_free(p); delete p; }
};

}  // namespace

CsvStream split_csv_stream(const std::string& content, const std::string& file) {
  CsvStream out;
  out.file = file;
  std::size_t pos = 0;
  if (content.compare(0, 3, "\xEF\xBB\xBF") == 0) pos = 3;  // UTF-8 BOM
  if (content.find_first_not_of(" \t\r\n", pos) == std::string::npos)
    throw ParseError(file, 0, "empty file: no Nsight Compute output in it");

  std::unique_ptr<csv_parser, ParserDeleter> parser(new csv_parser);
  if (csv_init(parser.get(), CSV_STRICT | CSV_STRICT_FINI) != 0) throw Error("libcsv: cannot initialise parser");
  Collector col;
  bool in_record = false;  // inside a record whose quoted field continues on the next line
  long record_start = 0;
  long line_no = 0;

  static const char kNewline = '\n';
  while (pos < content.size()) {
    std::size_t eol = content.find('\n', pos);
    std::size_t end = eol == std::string::npos ? content.size() : eol;
    std::string_view line(content.data() + pos, end - pos);
    pos = eol == std::string::npos ? content.size() : eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    for (unsigned char c : line)
      if (is_binary_byte(c))
        throw ParseError(file, line_no, fmt::format("binary data (byte 0x{:02x}): not ncu CSV text; an .ncu-rep report "
                                                    "must be exported first with `ncu --import FILE --csv --page raw`",
                                                    static_cast<int>(c)));
    if (!in_record) {
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      if (line.front() != '"') {
        StreamItem it;
        it.kind = is_profiler_line(line) ? ItemKind::profiler : ItemKind::text;
        it.line = line_no;
        it.text = std::string(line);
        out.items.push_back(std::move(it));
        continue;
      }
      record_start = line_no;
      col = Collector{};
    }
    // The line and its terminator are fed separately so the input is never copied.
    std::size_t used = csv_parse(parser.get(), line.data(), line.size(), on_field, on_record, &col);
    used += csv_parse(parser.get(), &kNewline, 1, on_field, on_record, &col);
    if (used != line.size() + 1 || csv_error(parser.get()) != CSV_SUCCESS)
      throw ParseError(file, line_no, fmt::format("malformed CSV record (started on line {}): {}; a quote inside a "
                                                  "quoted field must be doubled",
                                                  record_start, csv_strerror(csv_error(parser.get()))));
    if (col.done) {
      StreamItem it;
      it.kind = ItemKind::record;
      it.line = record_start;
      it.fields = std::move(col.fields);
      out.items.push_back(std::move(it));
      col = Collector{};
      in_record = false;
    } else {
      in_record = true;  // the newline belonged to a quoted field
    }
  }
  if (in_record)
    throw ParseError(file, record_start, "unterminated quoted field: the record starting here never closes its quote");
  return out;
}

CsvStream read_csv_stream(const std::string& path) { return split_csv_stream(read_file(path), path); }

}  // namespace kprof::ncu
