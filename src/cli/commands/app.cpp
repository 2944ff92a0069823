#include "cli/app.hpp"
#include <cstdio>
namespace kprof::cli {
int run(int, char**) { std::puts("kprof: not yet"); return 0; }
}
