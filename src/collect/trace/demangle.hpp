// Kernel names: CUPTI reports mangled names; tables show demangled signatures and base names.
#pragma once
#include <string>
#include <string_view>

#include "collect/kernel_name.hpp"

namespace kprof {

// "_Z6init_fPfmf" → "init_f(float*, unsigned long, float)"; a name that is not mangled comes back unchanged.
std::string demangle(const std::string& mangled);

}  // namespace kprof
