// One rule for a kernel's base name, shared by every collector (ncu prints demangled signatures, CUPTI mangled
// names that the trace reader demangles): stage grouping and the counters/trace join depend on both agreeing.
#pragma once
#include <string>
#include <string_view>

namespace kprof {

// Base name of a demangled signature: drops the parameter list, template arguments, namespaces and a return type
// ("void ns::gemm<128, float>(float*)" → "gemm"; "init_f(float*)" → "init_f"; "triton_softmax" → itself).
std::string function_base_name(std::string_view demangled);

}  // namespace kprof
