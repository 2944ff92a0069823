#include "collect/trace/demangle.hpp"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace kprof {

std::string demangle(const std::string& mangled) {
  if (mangled.size() < 2 || mangled[0] != '_' || mangled[1] != 'Z') return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

}  // namespace kprof
