#include "collect/ncu/session_page.hpp"

#include "collect/ncu/page_support.hpp"
#include "collect/ncu/units.hpp"
#include "util/errors.hpp"

namespace kprof::ncu {

bool is_session_header(const std::vector<std::string>& f) {
  if (f.size() < 2) return false;
  return f[0] == "Launch Attribute" || f[0] == "Session Attribute" || f[0] == "Device Attribute" ||
         f[0] == "Process Id" || f[0] == "Process ID";
}

SessionInfo parse_session_page(const CsvStream& stream) {
  SessionInfo s;
  std::string title;
  const StreamItem* header = nullptr;
  bool table_header_next = false;
  for (const auto& item : stream.items) {
    if (item.kind == ItemKind::text) {  // a table title
      title = item.text;
      header = nullptr;
      table_header_next = true;
      continue;
    }
    if (item.kind != ItemKind::record) continue;
    if (table_header_next || !header) {
      header = &item;
      table_header_next = false;
      if (title.empty()) title = item.fields.empty() ? "" : item.fields[0];
      continue;
    }
    detail::check_width(item, header->fields.size(), header->line, stream.file);
    if (item.fields.size() < 2) continue;
    const std::string& key = item.fields[0];
    const std::string& value = item.fields[1];
    s.tables[title][key] = value;
    if (header->fields[0] == "Process Id" || header->fields[0] == "Process ID") s.process_names.push_back(value);
  }
  if (s.tables.empty()) throw ParseError(stream.file, 0, "no session key/value table found");
  auto get = [&](const char* table, const char* key) -> std::string {
    auto t = s.tables.find(table);
    if (t == s.tables.end()) return "";
    auto v = t->second.find(key);
    return v == t->second.end() ? "" : v->second;
  };
  s.profiler_command_line = get("Launch Settings", "Profiler Command Line");
  while (!s.profiler_command_line.empty() && s.profiler_command_line.back() == ' ') s.profiler_command_line.pop_back();
  std::string target = get("Session Info", "Nsight Compute Target");
  s.ncu_version = target.substr(0, target.find(' '));
  s.cuda_version = get("Session Info", "CUDA Version");
  s.device_name = get("Device Attributes", "display_name");
  std::string major = get("Device Attributes", "compute_capability_major");
  std::string minor = get("Device Attributes", "compute_capability_minor");
  if (!major.empty()) s.compute_capability = major + "." + (minor.empty() ? "0" : minor);
  if (auto n = parse_number(get("Device Attributes", "multiprocessor_count")); n && *n >= 0 && *n < 1e6)
    s.sm_count = static_cast<int>(*n);
  return s;
}

}  // namespace kprof::ncu
