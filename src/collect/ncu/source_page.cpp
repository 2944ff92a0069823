#include "collect/ncu/source_page.hpp"

#include "collect/kernel_name.hpp"

#include <unordered_set>
#include <fmt/format.h>

#include "collect/ncu/launch_columns.hpp"
#include "collect/ncu/page_support.hpp"
#include "collect/ncu/units.hpp"
#include "util/errors.hpp"

namespace kprof::ncu {

namespace {

struct Layout {
  int line_no = -1, cuda_source = -1, address = -1, sass_source = -1;
  std::vector<int> counter_columns;  // printed indices of counter columns
};

// The header repeats "Source" (CUDA text after "Line No", SASS text after "Address"): tell them apart by position.
Layout locate(const std::vector<std::string>& h) {
  Layout l;
  for (int i = 0; i < static_cast<int>(h.size()); ++i) {
    if (h[i] == "Line No" && l.line_no < 0) l.line_no = i;
    else if (h[i] == "Address" && l.address < 0) l.address = i;
    else if (h[i] == "Source" && i > 0 && i - 1 == l.line_no && l.cuda_source < 0) l.cuda_source = i;
    else if (h[i] == "Source" && i > 0 && i - 1 == l.address && l.sass_source < 0) l.sass_source = i;
    else if (!h[i].empty()) l.counter_columns.push_back(i);
  }
  return l;
}

std::string strip_indent(const std::string& s) {
  auto b = s.find_first_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b);
}

SourceCounters read_counters(const Layout& lay, const std::vector<std::string>& header,
                             const std::vector<std::string>& row) {
  SourceCounters c;
  c.values.reserve(lay.counter_columns.size());
  for (int i : lay.counter_columns) {
    const std::string cell = i < static_cast<int>(row.size()) ? row[i] : "";
    auto v = parse_number(cell);
    c.values.push_back(v);
    if (!v && !is_missing(cell)) c.text.emplace(header[i], cell);
  }
  return c;
}

}  // namespace

SourceView parse_source_page(const CsvStream& stream) {
  SourceView view;
  const StreamItem* header = nullptr;
  Layout lay;
  std::string pending_path, pending_function;
  bool pending_block = false;  // saw File Path / Function Name / Kernel Name: the next record is a header
  bool new_kernel = false;
  SourceFile* file = nullptr;
  std::size_t data_rows = 0;
  std::unordered_set<std::string> line_addresses;  // instructions already listed under the current source line

  auto kernel_for_block = [&](const std::string& name) -> SourceKernel& {
    bool start = view.kernels.empty() || new_kernel || view.kernels.back().name != name;
    if (!start && !pending_path.empty())
      for (const auto& f : view.kernels.back().files)
        if (f.path == pending_path) start = true;  // same file again: the next launch of the kernel
    if (start) {
      SourceKernel k;
      k.name = name;
      k.function = function_base_name(name);
      view.kernels.push_back(std::move(k));
    }
    return view.kernels.back();
  };

  for (const auto& item : stream.items) {
    if (item.kind != ItemKind::record) continue;
    const auto& f = item.fields;
    const std::string first = f.empty() ? "" : f[0];
    if (first == "File Path" || first == "Function Name" || first == "Kernel Name") {
      std::string value = f.size() > 1 ? f[1] : "";
      if (first == "File Path") pending_path = value;
      else pending_function = value;
      if (first == "Kernel Name") { new_kernel = true; pending_path.clear(); }
      pending_block = true;
      continue;
    }
    if (pending_block) {
      header = &item;
      lay = locate(f);
      if (lay.line_no < 0 && lay.address < 0)
        throw ParseError(stream.file, item.line, "source page header has neither \"Line No\" nor \"Address\"");
      SourceKernel& k = kernel_for_block(pending_function);
      new_kernel = false;
      std::vector<std::string> cols;
      for (int i : lay.counter_columns) cols.push_back(f[i]);
      if (k.columns.empty()) k.columns = std::move(cols);
      else if (k.columns != cols)
        throw ParseError(stream.file, item.line, "source page header differs from the previous block of this kernel");
      file = nullptr;
      if (lay.line_no >= 0) {
        k.files.push_back(SourceFile{pending_path, {}});
        file = &k.files.back();
      }
      pending_block = false;
      pending_path.clear();
      continue;
    }
    if (!header)
      throw ParseError(stream.file, item.line,
                       "source page row before any \"File Path\"/\"Kernel Name\" block and header");
    detail::check_width(item, header->fields.size(), header->line, stream.file);
    SourceKernel& k = view.kernels.back();
    auto cell = [&](int i) -> std::string { return i >= 0 && i < static_cast<int>(f.size()) ? f[i] : ""; };
    ++data_rows;
    const std::string line_no = cell(lay.line_no);
    if (file && !line_no.empty()) {
      auto n = parse_number(line_no);
      if (!n || *n < 0 || *n > 1e9 || *n != static_cast<double>(static_cast<long long>(*n)))
        throw ParseError(stream.file, item.line, fmt::format("line number \"{}\" is not a line number", line_no));
      file->lines.push_back(SourceLine{static_cast<int>(*n), cell(lay.cuda_source),
                                       read_counters(lay, header->fields, f), {}});
      line_addresses.clear();
      continue;
    }
    const std::string address = cell(lay.address);
    if (address.empty() || address == "...") continue;  // elided instructions
    // ncu's export can list a source line's instructions twice under it (seen on the H200: every instruction of a
    // loop line); the second listing adds nothing and would double the line's samples in the SASS CSV.
    if (file && !file->lines.empty() && !line_addresses.insert(address).second) continue;
    SassInstruction ins{address, strip_indent(cell(lay.sass_source)), read_counters(lay, header->fields, f)};
    if (file && !file->lines.empty()) file->lines.back().sass.push_back(std::move(ins));
    else k.sass.push_back(std::move(ins));
  }
  if (!header) throw ParseError(stream.file, 0, "no source page table found");
  if (data_rows == 0) throw ParseError(stream.file, header->line, "header row without data rows");
  return view;
}

}  // namespace kprof::ncu
