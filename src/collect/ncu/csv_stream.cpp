#include "collect/ncu/csv_stream.hpp"

#include <csv.h>
#include <fmt/format.h>

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
  std::optional<std::vector<std::string>> header;  // copy of the latest record naming a "Source" column
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
    if (used != line.size() + 1 || csv_error(parser.get()) != CSV_SUCCESS) {
      if (record_start == line_no) {
        if (auto fields = recover_source_record(line, header ? &*header : nullptr)) {
          StreamItem it;
          it.kind = ItemKind::record;
          it.line = line_no;
          it.fields = std::move(*fields);
          out.items.push_back(std::move(it));
          out.recovered_lines.push_back(line_no);
          // libcsv's state is undefined after an error: start a fresh parser for the next record.
          parser.reset(new csv_parser);
          if (csv_init(parser.get(), CSV_STRICT | CSV_STRICT_FINI) != 0) throw Error("libcsv: cannot initialise parser");
          col = Collector{};
          in_record = false;
          continue;
        }
      }
      throw ParseError(file, line_no, fmt::format("malformed CSV record (started on line {}): {}; a quote inside a "
                                                  "quoted field must be doubled",
                                                  record_start, csv_strerror(csv_error(parser.get()))));
    }
    if (col.done) {
      StreamItem it;
      it.kind = ItemKind::record;
      it.line = record_start;
      it.fields = std::move(col.fields);
      out.items.push_back(std::move(it));
      for (const auto& f : out.items.back().fields)
        if (f == "Source") { header = out.items.back().fields; break; }
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
