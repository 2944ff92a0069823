// The pieces of an atomic write: a temporary file beside the destination that no planted link and no other writer
// can subvert, written whole, then renamed over the destination. write_file_atomic and copy_file_atomic
// (util/fs.hpp) are built on them; the tracer and the counter collector use them directly inside the profiled
// program, where libkprof_inject.so compiles this one file (it needs only the C library, throws nothing and prints
// nothing).
#pragma once
#include <cstddef>
#include <filesystem>

namespace kprof {

// A new temporary file beside `p`, to be renamed over it: created with O_EXCL|O_NOFOLLOW (never an existing file,
// never through a link someone planted), at a name nobody can predict (another process or another thread of this
// one never shares it), hidden, and short: ".<at most 16 bytes of the name>.tmp.<12 random>", so a destination
// whose own name is near NAME_MAX (255 bytes) still gets one. Returns the descriptor, or -1 with errno set (then
// no file was created: `tmp` must not be removed).
int open_temporary_beside(const std::filesystem::path& p, std::filesystem::path& tmp);
// write(2) until done; false with errno set on failure (ENOSPC, EIO, ...).
bool write_all(int fd, const char* data, std::size_t n);

}  // namespace kprof
