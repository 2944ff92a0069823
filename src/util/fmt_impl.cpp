// fmt's compiled part, built once into kprof_util. The other translation units include fmt's headers without
// FMT_HEADER_ONLY, which compiled fmt's implementation into each of them (about 30% of a session file's build time at
// -O3); the binaries still link no libfmt.so, so that a GPU box without Debian's libraries runs them.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
// The instantiations fmt's headers declare `extern template` where FMT_HEADER_ONLY is not defined.
template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
}  // namespace detail
FMT_END_NAMESPACE
