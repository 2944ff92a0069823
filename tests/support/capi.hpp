// Calling libkprof_c.so from a test as Python's ctypes does: loaded with dlopen beside the kprof binary, each entry
// point looked up by name, every reply checked to be valid UTF-8 JSON and freed with kprof_free.
#pragma once
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "model/json_support.hpp"
#include "util/utf8.hpp"

// Under ASan (the sanitizer preset) the dlopened library carries its own instrumented copy of every kprof layer
// beside the test's: two registrations of the same globals, which ASan's ODR check may report as a violation. The
// same calls reach the library through Python in python/tests/, run against the release build.
#if defined(__SANITIZE_ADDRESS__)
#define KPROF_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KPROF_TEST_UNDER_ASAN 1
#endif
#endif
#ifdef KPROF_TEST_UNDER_ASAN
#define SKIP_UNDER_ASAN() GTEST_SKIP() << "libkprof_c.so dlopened into an ASan test process: checked in the release build"
#else
#define SKIP_UNDER_ASAN() (void)0
#endif

namespace kprof::test {

struct CApi {
  using Entry = char* (*)(const char*);
  void* handle = nullptr;
  void (*free_reply)(char*) = nullptr;
  CApi() {
    const std::filesystem::path lib = std::filesystem::path(KPROF_BINARY).parent_path() / "libkprof_c.so";
    handle = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) free_reply = reinterpret_cast<void (*)(char*)>(::dlsym(handle, "kprof_free"));
  }
  // The reply of kprof_<name>(request): valid UTF-8 JSON, or a test failure.
  nlohmann::json call(const std::string& name, const std::string& request) const {
    auto fn = reinterpret_cast<Entry>(::dlsym(handle, ("kprof_" + name).c_str()));
    EXPECT_NE(fn, nullptr) << name;
    if (!fn) return nullptr;
    char* reply = nullptr;
    try {
      reply = fn(request.c_str());
    } catch (...) {  // through Python's ctypes this was std::terminate
      ADD_FAILURE() << "kprof_" << name << " let an exception out";
      return nullptr;
    }
    EXPECT_NE(reply, nullptr);
    if (!reply) return nullptr;
    std::string text = reply;
    free_reply(reply);
    EXPECT_TRUE(kprof::is_valid_utf8(text)) << text;
    return nlohmann::json::parse(text);  // throws (a test failure) on anything but JSON
  }
};

inline const CApi& capi() {
  static const CApi api;
  return api;
}

}  // namespace kprof::test
