#pragma once
namespace kprof::cli {
// Parses the command line, dispatches to a command, maps errors to exit codes (docs/cli.md).
int run(int argc, char** argv);
}
