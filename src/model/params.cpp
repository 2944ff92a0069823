#include "model/params.hpp"

#include <cctype>
#include <charconv>
#include <stdexcept>

namespace kprof {

namespace {
bool is_safe_name(const std::string& s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return std::isalpha(static_cast<unsigned char>(s[0]));
}
void check_name(const std::string& key) {
  if (!is_safe_name(key)) throw std::invalid_argument("parameter name '" + key + "' must be alphanumeric");
}
void check_dtype(const std::string& dtype) {
  if (!is_safe_name(dtype)) throw std::invalid_argument("dtype '" + dtype + "' must be a short alphanumeric name");
}
void check_value(const std::string& key, std::int64_t v) {
  if (v < 0) throw std::invalid_argument("parameter --" + key + "=" + std::to_string(v) + " must not be negative");
}
}  // namespace

std::string ProblemParams::dir_name() const {
  std::string out;
  for (const auto& [k, v] : values) {
    if (!out.empty()) out += '_';
    out += k + std::to_string(v);
  }
  if (!dtype.empty()) {
    if (!out.empty()) out += '_';
    out += dtype;
  }
  return out.empty() ? "default" : out;
}

void ProblemParams::set(const std::string& key, const std::string& value) {
  if (key == "dtype") {
    check_dtype(value);
    dtype = value;
    return;
  }
  check_name(key);
  std::int64_t v = 0;
  const char* first = value.data();
  const char* last = value.data() + value.size();
  auto [p, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || p != last || value.empty())
    throw std::invalid_argument("parameter --" + key + "=" + value + " is not an integer");
  set(key, v);
}

void ProblemParams::set(const std::string& key, std::int64_t value) {
  check_name(key);
  check_value(key, value);
  values[key] = value;
}

void ProblemParams::check() const {
  for (const auto& [k, v] : values) {
    check_name(k);
    check_value(k, v);
  }
  if (!dtype.empty()) check_dtype(dtype);
}

}  // namespace kprof
