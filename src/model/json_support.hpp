// JSON support shared by every model type: std::optional as null-or-value, and the macro set we use.
#pragma once
#include <optional>
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
}  // namespace nlohmann

namespace kprof {
using json = nlohmann::json;
}

// Every model struct is serialised field by field; missing keys read back as the default (forward-compatible).
#define KPROF_JSON(Type, ...) NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Type, __VA_ARGS__)
