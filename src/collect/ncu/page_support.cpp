#include "collect/ncu/page_support.hpp"

#include <fmt/format.h>

#include "util/errors.hpp"

namespace kprof::ncu::detail {

void check_width(const StreamItem& row, std::size_t header_size, long header_line, const std::string& file,
                 bool exact) {
  if (row.fields.size() > header_size || (exact && row.fields.size() != header_size))
    throw ParseError(file, row.line,
                     fmt::format("row has {} field{} but the header (line {}) has {}: a field was {}", row.fields.size(),
                                 row.fields.size() == 1 ? "" : "s", header_line, header_size,
                                 row.fields.size() > header_size ? "split or shifted" : "lost or the row was cut"));
}

void collect_messages(const CsvStream& stream, LaunchPage& page) {
  for (const auto& it : stream.items) {
    if (it.kind == ItemKind::profiler) page.profiler_messages.push_back(it.text);
    else if (it.kind == ItemKind::text && page.program_output.size() < LaunchPage::kKeptOutputLines)
      page.program_output.push_back(it.text);
  }
}

KernelLaunch& LaunchIndex::get_or_add(const LaunchColumns& cols, const StreamItem& row, const std::string& file) {
  LaunchContext ctx;
  KernelLaunch k = read_launch(cols, row.fields, file, row.line, &ctx);
  const long id = k.id;
  if (!have_pid_) {
    first_pid_ = ctx.pid;
    have_pid_ = true;
  }
  constexpr long kDenseLimit = 1 << 22;
  if (ctx.pid == first_pid_ && id < kDenseLimit) {
    if (static_cast<std::size_t>(id) >= slot_by_id_.size()) slot_by_id_.resize(id + 1, 0);
    if (slot_by_id_[id] != 0) return page_.launches[slot_by_id_[id] - 1];
    slot_by_id_[id] = static_cast<long>(page_.launches.size()) + 1;
  } else {
    auto [it, fresh] = others_.try_emplace({ctx.pid, id}, page_.launches.size());
    if (!fresh) return page_.launches[it->second];
  }
  page_.launches.push_back(std::move(k));
  page_.contexts.push_back(std::move(ctx));
  return page_.launches.back();
}

}  // namespace kprof::ncu::detail
