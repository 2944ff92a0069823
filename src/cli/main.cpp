#include "cli/app.hpp"
int main(int argc, char** argv) { return kprof::cli::run(argc, argv); }
