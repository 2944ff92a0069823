#include <gtest/gtest.h>

#include "render/markdown_table.hpp"
#include "render/number_format.hpp"

using namespace kprof::render;

TEST(RenderFormat, EscapeCell) {
  EXPECT_EQ(escape_cell("a|b"), "a\\|b");
  EXPECT_EQ(escape_cell("line1\r\nline2\nx"), "line1 line2 x");
  EXPECT_EQ(escape_cell("plain"), "plain");
}

// Text from a profile never becomes markup (issue 12): HTML is escaped outside code spans, code spans stay verbatim.
TEST(RenderFormat, EscapeCellKeepsNoHtmlAndKeepsCodeSpans) {
  EXPECT_EQ(escape_cell("<script>x</script>"), "\\<script>x\\</script>");
  EXPECT_EQ(escape_cell("`a<b>|c`"), "`a<b>\\|c`");   // inside a span: verbatim, pipes still escaped (GFM)
  EXPECT_EQ(escape_cell("open ` tick"), "open \\` tick");  // an unclosed backtick opens nothing
}

TEST(RenderFormat, NamesInHeadingsAndCodeSpans) {
  EXPECT_EQ(md_text("k<float>`x`\n# h*"), "k\\<float\\>\\`x\\` # h\\*");
  EXPECT_EQ(md_text("fma_loop [66x1x1]"), "fma_loop [66x1x1]");
  EXPECT_EQ(md_text("[click](http://x)"), "[click\\](http://x)");
  EXPECT_EQ(md_code("f(float *)"), "`f(float *)`");
  EXPECT_EQ(md_code("a``b`c"), "```a``b`c```");
  EXPECT_EQ(md_code("`edge"), "`` `edge ``");
  EXPECT_EQ(md_code("two\nlines"), "`two lines`");
  EXPECT_EQ(md_line("see `--counters cupti` for <b>"), "see `--counters cupti` for \\<b>");
}

TEST(RenderFormat, TablePadsShortRows) {
  EXPECT_EQ(markdown_table({"A", "B"}, {{"1"}, {"x|y", "2"}}), "| A | B |\n|---|---|\n| 1 |  |\n| x\\|y | 2 |\n");
}

TEST(RenderFormat, Numbers) {
  EXPECT_EQ(fmt_us(536672.0), "536.7");
  EXPECT_EQ(fmt_us(1026528.0), "1026.5");
  EXPECT_EQ(fmt_us(std::nullopt), "—");
  EXPECT_EQ(fmt_pct(82.352146), "82.4");
  EXPECT_EQ(fmt_pct(0.0), "0.0");
  EXPECT_EQ(fmt_pct(-0.01), "0.0");  // never "-0.0"
  EXPECT_EQ(fmt_number(0.06), "0.06");
  EXPECT_EQ(fmt_number(0.000486), "0.000486");
  EXPECT_EQ(fmt_number(4300.0), "4300.0");
  EXPECT_EQ(fmt_quantity(2.126526e9, "B"), "2.13 GB");
  EXPECT_EQ(fmt_quantity(57.517, "%"), "57.5%");
  EXPECT_EQ(fmt_quantity(std::nullopt, "%"), "—");
  EXPECT_EQ(fmt_change(-3.2048, "better"), "-3.2% better");
  EXPECT_EQ(fmt_change(0.01, "same"), "+0.0% same");
  EXPECT_EQ(fmt_change(std::nullopt, "better"), "—");
}

TEST(RenderFormat, FirstSentences) {
  EXPECT_EQ(first_sentences("One. Two. Three.", 2), "One. Two.");
  EXPECT_EQ(first_sentences("Only one, 1.5 x faster.", 2), "Only one, 1.5 x faster.");
  EXPECT_EQ(first_sentences("A? B! C.", 1), "A?");
}
