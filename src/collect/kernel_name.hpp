// One rule for a kernel's base name, shared by every collector (ncu prints demangled signatures, CUPTI mangled
// names that the trace reader demangles): stage grouping and the counters/trace join depend on both agreeing.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

// Base name of a demangled signature: drops the parameter list, template arguments, namespaces and a return type
// ("void ns::gemm<128, float>(float*)" → "gemm"; "init_f(float*)" → "init_f"; "triton_softmax" → itself).
std::string function_base_name(std::string_view demangled);

// A key that two demanglers agree on for one template instantiation, so that ncu's printed name and the trace's
// demangled mangled name can be matched: the name with its template arguments, without the return type, the
// parameter list and those of enclosing functions (ncu prints template parameter names there), namespace and class
// qualifiers, anonymous namespaces, casts before integers, integer suffixes and spaces; lambdas in either spelling
// ("{lambda(float)#1}" / "[lambda(float) (instance 1)]") become "lambda(float)#1". "void at::native::k<4, at::native::F<float>, std::array<char*, 3ul> >(int, F, ...)" and
// "void at::k<4, at::F<float>, std::array<char *, 3>>(int, T2, T3)" both give "k<4,F<float>,array<char*,3>>".
std::string instantiation_key(std::string_view demangled);

// Names that tell instantiations of one function apart, for a reader: each is the function's base name with only the
// template arguments that differ among `demangled` (in instantiation_key's spelling, "…" for the arguments they
// share, the fewest that tell them apart, each at most ~40 characters): PyTorch's add and abs at one shape read
// "vectorized_elementwise_kernel<…,CUDAFunctor_add<float>,…>" and "vectorized_elementwise_kernel<…,AbsFunctor<float>,…>".
// Names whose keys are equal (overloads differing only in their parameters) come back equal: the caller numbers them.
std::vector<std::string> distinguishing_names(const std::vector<std::string>& demangled);

}  // namespace kprof
