// Error types that carry what the user needs to act: which input, where, and the process exit code.
#pragma once
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kprof {

// Exit codes (documented in docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,        // internal error
  kExitUsage = 2,          // bad command line
  kExitBadInput = 3,       // malformed or unreadable input file
  kExitNoGpu = 4,          // no GPU / driver
  kExitNoTool = 5,         // ncu or another tool missing
  kExitNoPermission = 6,   // ERR_NVGPUCTRPERM and friends
  kExitProgramFailed = 7,  // the profiled program crashed or exited non-zero
  kExitBusy = 8,           // another kprof profiling run holds the GPU lock (--no-wait)
  kExitCannotWrite = 9,    // an output cannot be written (disk full, read-only, a path is a file): errno text
  kExitRegression = 10,    // kprof compare --fail-on-regression found a significant slowdown
  kExitInterrupted = 130,  // SIGINT (Ctrl-C)
  kExitTerminated = 143,   // SIGTERM
};

// Every exit code with the kind the C API and the Python package name it by and a short meaning: the one table the
// command line's help, the C API's error replies and its interface description (kprof_interface) read.
struct ExitCodeInfo {
  int code;
  std::string_view kind;     // "usage", "bad-input", ...: the C API's error "kind", Python's exception class
  std::string_view meaning;  // one line, for --help
};
inline constexpr std::array<ExitCodeInfo, 13> kExitCodes{{
    {kExitOk, "ok", "ok"},
    {kExitFailure, "error", "internal error"},
    {kExitUsage, "usage", "usage"},
    {kExitBadInput, "bad-input", "bad input"},
    {kExitNoGpu, "no-gpu", "no GPU"},
    {kExitNoTool, "no-tool", "tool missing"},
    {kExitNoPermission, "no-permission", "no counter permission"},
    {kExitProgramFailed, "program-failed", "profiled program failed"},
    {kExitBusy, "busy", "GPU busy"},
    {kExitCannotWrite, "cannot-write", "cannot write output"},
    {kExitRegression, "regression", "regression (compare --fail-on-regression)"},
    {kExitInterrupted, "interrupted", "interrupted (SIGINT)"},
    {kExitTerminated, "terminated", "terminated (SIGTERM)"},
}};
// The kind of `code`; "error" for a code not in the table.
constexpr std::string_view exit_kind(int code) {
  for (const auto& e : kExitCodes)
    if (e.code == code) return e.kind;
  return "error";
}

class Error : public std::runtime_error {
 public:
  Error(const std::string& msg, int exit_code = kExitFailure) : std::runtime_error(msg), code_(exit_code) {}
  int exit_code() const { return code_; }

 private:
  int code_;
};

// Malformed input: names the file and line.
class ParseError : public Error {
 public:
  ParseError(const std::string& file, long line, const std::string& what)
      : Error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what, kExitBadInput),
        file_(file), line_(line) {}
  const std::string& file() const { return file_; }
  long line() const { return line_; }

 private:
  std::string file_;
  long line_;
};

}  // namespace kprof
