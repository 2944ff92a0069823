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

// Integers read from JSON. nlohmann converts numbers with a plain cast: a float out of the target's range (1e69
// into an int, found by fuzz_devices) is undefined behaviour, an integer out of range wraps, a fraction truncates.
//
// Every translation unit of kprof includes nlohmann only through this header (the test
// LayerIncludes.NlohmannOnlyThroughJsonSupport keeps it so), so this specialisation is the only definition in
// kprof. A program linking kprof's C++ libraries that also reads integers with nlohmann in files that do not include
// a kprof header would have two definitions of the same specialisation (docs/api.md says so): include
// "model/json_support.hpp" there too.
// Every integer (not bool) read from JSON, in every model type, goes through here: an integer in the target's
// range, or a float with an integral value in it (132.0); anything else throws json::out_of_range (406, as nlohmann
// does for a number too large to parse), which every loader reports with its file name.
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
      // L::max() + 1 = 2^digits is exact as a double; L::min() is 0 or -2^digits, exact too.
      const double upper = std::ldexp(1.0, L::digits);
      fits = std::isfinite(x) && x == std::trunc(x) && x >= static_cast<double>(L::min()) && x < upper;
    }
    if (!fits)
      throw detail::out_of_range::create(406,
                                         "number " + j.dump() + " is not " + (L::is_signed ? "a signed " : "an unsigned ") +
                                             std::to_string(L::digits + (L::is_signed ? 1 : 0)) + "-bit integer",
                                         &j);
    ::nlohmann::from_json(j, v);
  }
};
}  // namespace nlohmann

namespace kprof {
using json = nlohmann::json;
}

// Every model struct is serialised field by field; missing keys read back as the default (forward-compatible). The
// header declares to_json and from_json (KPROF_JSON_DECLARE); the fields are listed once, in the header's
// <header>_json.cpp (KPROF_JSON_DEFINE), so that the serialisers compile in one file, not in every file that includes
// the header (a quarter of a session file's build time, bench/RESULTS.md §9zg).
#define KPROF_JSON_DECLARE(Type)                              \
  void to_json(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t); \
  void from_json(const nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t);
#define KPROF_JSON_DEFINE(Type, ...)                                                                              \
  void to_json(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) {                                    \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                                      \
  }                                                                                                               \
  void from_json(const nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t) {                                  \
    Type nlohmann_json_default_obj;                                                                               \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__))                       \
  }

// The same for a type of more fields than one nlohmann macro takes (63): the fields in two parenthesised groups.
#define KPROF_JSON_UNPAREN(...) __VA_ARGS__
#define KPROF_JSON_WIDE_DEFINE(Type, first, second)                                                            \
  void to_json(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) {                                 \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, KPROF_JSON_UNPAREN first))                      \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, KPROF_JSON_UNPAREN second))                     \
  }                                                                                                             \
  void from_json(const nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t) {                               \
    Type nlohmann_json_default_obj;                                                                             \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, KPROF_JSON_UNPAREN first))       \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, KPROF_JSON_UNPAREN second))      \
  }
