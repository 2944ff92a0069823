// File helpers: every write kprof makes is atomic (temporary file + rename), so a crash or Ctrl-C
// never leaves a half-written report next to good ones.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "util/errors.hpp"

namespace kprof {

// An output that cannot be written (exit 9): names the path and says why (errno text, or which part is a file).
class CannotWrite : public Error {
 public:
  CannotWrite(const std::filesystem::path& p, const std::string& why);
};

std::string read_file(const std::filesystem::path& p);  // throws Error (exit 3) when unreadable
// What is at `p`, a path the user gave to be read: its status, of type not_found when there is nothing. Throws
// Error (exit 3) naming the path and the system's reason when the system cannot tell (a name longer than PATH_MAX
// or NAME_MAX, a loop of links, no permission to search a folder): std::filesystem's throwing calls raised
// filesystem_error there, which the command line took for an output it could not write and the C API for a bug.
std::filesystem::file_status input_status(const std::filesystem::path& p);
// Creates `dir` and its parents; throws CannotWrite. Every write below goes through it.
void ensure_dir(const std::filesystem::path& dir);
// Creates parent dirs; throws CannotWrite (the temporary file is removed on every failure path).
void write_file_atomic(const std::filesystem::path& p, const std::string& content);
void append_file_atomic(const std::filesystem::path& p, const std::string& content);  // read + write whole
// `from` copied to `to` as write_file_atomic writes (temporary file + rename), by the kernel (copy_file_range) where
// it can, else in 1 MiB blocks: never held in memory whole. Throws Error (exit 3) when `from` cannot be read,
// CannotWrite (exit 9) when `to` cannot be written; an I/O error (EIO) during a kernel copy counts as the input's.
void copy_file_atomic(const std::filesystem::path& from, const std::filesystem::path& to);
std::string utc_timestamp();        // "2026-11-30T12:34:56Z"
std::string utc_timestamp_dir();    // "20261130-123456" (filesystem-safe, sorts by time)
// The folder of the running executable (/proc/self/exe): where kprof looks for its helpers and data.
std::optional<std::filesystem::path> executable_dir();

}  // namespace kprof
