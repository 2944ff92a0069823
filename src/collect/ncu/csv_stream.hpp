// Splits what `ncu --csv` prints into CSV records and the other lines mixed into the same stream
// (profiler messages, the profiled program's own stdout, section titles of the session page).
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace kprof::ncu {

enum class ItemKind {
  record,    // one CSV record (may span several physical lines when a quoted field holds a newline)
  profiler,  // a line starting with ==PROF==, ==WARNING== or ==ERROR==
  text,      // anything else: program output, blank-free section titles ("Launch Settings")
};

struct StreamItem {
  ItemKind kind = ItemKind::text;
  long line = 0;                    // 1-based line where the item starts
  std::vector<std::string> fields;  // record only, unquoted
  std::string text;                 // profiler / text only, as printed (no trailing newline)
};

struct CsvStream {
  std::string file;  // label used in errors (path or "<stdin>")
  std::vector<StreamItem> items;
  // Lines whose free-text "Source" cell held unescaped quotes (ncu prints source lines such as
  // `asm volatile("...")` verbatim) and were split on the `","` separators instead.
  std::vector<long> recovered_lines;

  std::size_t record_count() const;
  // Profiler lines that start with "==ERROR==" (e.g. ERR_NVGPUCTRPERM), in order.
  std::vector<std::string> profiler_errors() const;
};

// A line is a CSV record iff it starts with a double quote: ncu quotes every field, while program output and
// profiler messages never start with one. Blank lines are dropped. Throws kprof::ParseError on an empty input,
// binary data, or a malformed record (unterminated quote, stray characters after a closing quote).
CsvStream split_csv_stream(const std::string& content, const std::string& file);
CsvStream read_csv_stream(const std::string& path);  // reads the file (kprof::Error when unreadable)

// The same items, handed to `sink` one at a time as they are read, so that a page of any size is parsed holding one
// record (the file is read in blocks, never whole). `sink` may move from the item. Lines recovered as in
// CsvStream::recovered_lines are appended to `recovered` when given. Same errors as split_csv_stream.
using CsvSink = std::function<void(StreamItem&)>;
void stream_csv_file(const std::string& path, const CsvSink& sink, std::vector<long>* recovered = nullptr);
void stream_csv_text(const std::string& content, const std::string& file, const CsvSink& sink,
                     std::vector<long>* recovered = nullptr);

}  // namespace kprof::ncu
