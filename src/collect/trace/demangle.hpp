// Kernel names: CUPTI reports mangled names; tables show demangled signatures and base names.
#pragma once
#include <string>
#include <string_view>

namespace kprof {

// "_Z6init_fPfmf" → "init_f(float*, unsigned long, float)"; a name that is not mangled comes back unchanged.
std::string demangle(const std::string& mangled);

// Base name of a demangled signature: drops the parameter list, template arguments, namespaces and a return type
// ("void ns::gemm<128, float>(float*)" → "gemm"; "init_f(float*)" → "init_f"; "triton_softmax" → itself).
std::string function_base_name(std::string_view demangled);

}  // namespace kprof
