// The device database (data/devices.json and user files merged over it).
#include "analyze/device_db.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kprof::fuzz::accept_or_reject([&] { (void)kprof::analyze::DeviceDb::parse(kprof::fuzz::as_text(data, size), "devices.json"); });
  return 0;
}
