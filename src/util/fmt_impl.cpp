// fmt's compiled part, built once into kprof_util. The other translation units include fmt's headers without
// FMT_HEADER_ONLY, which compiled fmt's implementation into each of them (13-24% of a library file's build time at -O3,
// bench/RESULTS.md §9zg); the binaries still link no libfmt.so, so that a GPU box without Debian's libraries runs them.
#include <fmt/format-inl.h>

#include <locale>

FMT_BEGIN_NAMESPACE
namespace detail {
// Templates fmt's headers declare and format-inl.h defines, instantiated here for what the headers use: the shortest
// decimal form of floating-point numbers, locale access (a locale-taking format, chrono, ostream), the buffers'
// append, and the separators `extern template` names where FMT_HEADER_ONLY is not defined.
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void buffer<wchar_t>::append(const wchar_t*, const wchar_t*);
template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
}  // namespace detail
FMT_END_NAMESPACE
