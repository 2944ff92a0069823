#include <gtest/gtest.h>

#include "collect/ncu/csv_stream.hpp"
#include "ncu_test_support.hpp"

using namespace kprof;
using namespace kprof::ncu;
using kprof::test::expect_parse_error;
using kprof::test::probe_fixture;

TEST(NcuCsvStream, SeparatesRecordsProfilerLinesAndProgramOutput) {
  // quick.csv: line 1 ==WARNING==, line 2 ==PROF== Connected, lines 3-7 the program's stdout, line 8
  // ==PROF== Disconnected, line 9 the header, then 12 launches x 8 metrics.
  CsvStream s = read_csv_stream(probe_fixture("quick.csv"));
  EXPECT_EQ(s.record_count(), 1u + 12 * 8);
  std::vector<std::string> prof, text;
  for (const auto& it : s.items) {
    if (it.kind == ItemKind::profiler) prof.push_back(it.text);
    if (it.kind == ItemKind::text) text.push_back(it.text);
  }
  ASSERT_EQ(prof.size(), 3u);
  EXPECT_EQ(prof[0].rfind("==WARNING== Note: Running with unmodified GPU clocks", 0), 0u);
  EXPECT_EQ(prof[2], "==PROF== Disconnected from process 1442");
  ASSERT_EQ(text.size(), 5u);
  EXPECT_EQ(text[0], "copy_f4 225.201 ms  9.5 GB/s");
  EXPECT_EQ(text[4], "done");
  const StreamItem* header = nullptr;
  for (const auto& it : s.items)
    if (it.kind == ItemKind::record) { header = &it; break; }
  ASSERT_NE(header, nullptr);
  EXPECT_EQ(header->line, 9);
  EXPECT_EQ(header->fields.size(), 15u);
  EXPECT_EQ(header->fields[12], "Metric Name");
  EXPECT_TRUE(s.profiler_errors().empty());
}

TEST(NcuCsvStream, QuotedFieldsWithDoubledQuotesCommasAndNewlines) {
  std::string in =
      "\"ID\",\"Text\"\n"
      "\"1\",\"a \"\"quoted\"\", with comma\"\n"
      "\"2\",\"first line\nsecond line\"\n"
      "program output, with a comma\n"
      "\"3\",\"\"\r\n";
  CsvStream s = split_csv_stream(in, "mem.csv");
  ASSERT_EQ(s.items.size(), 5u);
  EXPECT_EQ(s.items[1].fields[1], "a \"quoted\", with comma");
  EXPECT_EQ(s.items[2].fields[1], "first line\nsecond line");
  EXPECT_EQ(s.items[2].line, 3);
  EXPECT_EQ(s.items[3].kind, ItemKind::text);
  EXPECT_EQ(s.items[3].line, 5);  // the record above spanned lines 3-4
  EXPECT_EQ(s.items[4].line, 6);
  ASSERT_EQ(s.items[4].fields.size(), 2u);
  EXPECT_EQ(s.items[4].fields[1], "");
}

// The one-line splitter (no libcsv) reuses the previous record's field strings: records of other widths, a quoted
// field that ends a line with a doubled quote and goes on, and text after a closing quote must still come out as
// libcsv reads them.
TEST(NcuCsvStream, OneLineSplitterAgreesWithTheFullParser) {
  std::string in =
      "\"a\",\"b\",\"c\"\n"
      "\"long field\",\"x\"\n"
      "\"1\",\"ends with \"\"\nnext\"\n"
      "\"q\"\"\"\"\",\"\",\"z\"\n";
  CsvStream s = split_csv_stream(in, "mem.csv");
  ASSERT_EQ(s.items.size(), 4u);
  EXPECT_EQ(s.items[0].fields, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(s.items[1].fields, (std::vector<std::string>{"long field", "x"}));
  EXPECT_EQ(s.items[2].fields, (std::vector<std::string>{"1", "ends with \"\nnext"}));
  EXPECT_EQ(s.items[2].line, 3);
  EXPECT_EQ(s.items[3].fields, (std::vector<std::string>{"q\"\"", "", "z"}));
  EXPECT_EQ(s.items[3].line, 5);
}

TEST(NcuCsvStream, ProfilerErrorsAreKept) {
  CsvStream s = split_csv_stream(
      "==PROF== Connected to process 7\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n", "e.txt");
  ASSERT_EQ(s.profiler_errors().size(), 1u);
  EXPECT_NE(s.profiler_errors()[0].find("ERR_NVGPUCTRPERM"), std::string::npos);
}

TEST(NcuCsvStream, MalformedInputGivesParseErrorAtTheRightLine) {
  expect_parse_error([] { split_csv_stream("", "empty.csv"); }, 0, "empty file");
  expect_parse_error([] { split_csv_stream(" \n\r\n", "blank.csv"); }, 0, "empty file");
  // Unterminated quote on line 3: reported at the record's first line, after reading to the end.
  expect_parse_error([] { split_csv_stream("\"A\",\"B\"\n\"1\",\"2\"\n\"3\",\"oops\nmore\n", "u.csv"); }, 3,
                     "unterminated quoted field");
  // Characters after a closing quote.
  expect_parse_error([] { split_csv_stream("\"A\",\"B\"\n\"1\"x,\"2\"\n", "s.csv"); }, 2, "malformed CSV record");
  // Binary garbage (an .ncu-rep given instead of its CSV export).
  expect_parse_error([] { split_csv_stream(std::string("\"A\"\nNVRP\0\x01\x02", 9), "r.ncu-rep"); }, 2,
                     "binary data");
}
