// JSON support shared by every model type: std::optional as null-or-value, and the macro set we use.
#pragma once
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <nlohmann/json.hpp>

namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) {
    if (v) j = *v; else j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& v) {
    if (j.is_null()) v.reset(); else v = j.get<T>();
  }
};

// A number that does not fit the integer it is read into. nlohmann converts with a plain cast: a float out of the
// target's range (1e69 into an int, found by fuzz_devices) is undefined behaviour, an integer out of range wraps.
// Derived from json::exception, so every loader that reports nlohmann's errors with its file name reports this too.
class number_out_of_range : public detail::exception {
 public:
  explicit number_out_of_range(const std::string& what_arg)
      : detail::exception(406, ("[json.exception.out_of_range.406] " + what_arg).c_str()) {}
};

// Every integer (not bool) read from JSON, in every model type, goes through here: an integer in the target's
// range, or a float with an integral value in it (132.0); anything else throws number_out_of_range.
template <typename T>
struct adl_serializer<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  template <typename BasicJsonType>
  static void to_json(BasicJsonType& j, T v) noexcept {
    ::nlohmann::to_json(j, v);
  }
  template <typename BasicJsonType>
  static void from_json(const BasicJsonType& j, T& v) {
    using L = std::numeric_limits<T>;
    bool fits = true;
    if (j.is_number_unsigned()) {
      fits = j.template get_ref<const typename BasicJsonType::number_unsigned_t&>() <= static_cast<unsigned long long>(L::max());
    } else if (j.is_number_integer()) {
      auto x = j.template get_ref<const typename BasicJsonType::number_integer_t&>();
      fits = L::is_signed ? x >= static_cast<long long>(L::min()) && x <= static_cast<long long>(L::max())
                          : x >= 0 && static_cast<unsigned long long>(x) <= static_cast<unsigned long long>(L::max());
    } else if (j.is_number_float()) {
      double x = j.template get_ref<const typename BasicJsonType::number_float_t&>();
      // L::max() + 1 is a power of two, exact as a double; L::min() is 0 or minus one.
      const double upper = std::ldexp(1.0, L::digits);
      fits = std::isfinite(x) && x == std::trunc(x) && x >= static_cast<double>(L::min()) && x < upper;
    }
    if (!fits)
      throw number_out_of_range("number " + j.dump() + " is not " + (L::is_signed ? "a signed " : "an unsigned ") +
                                std::to_string(L::digits + (L::is_signed ? 1 : 0)) + "-bit integer");
    ::nlohmann::from_json(j, v);
  }
};
}  // namespace nlohmann

namespace kprof {
using json = nlohmann::json;
}

// Every model struct is serialised field by field; missing keys read back as the default (forward-compatible).
#define KPROF_JSON(Type, ...) NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Type, __VA_ARGS__)
