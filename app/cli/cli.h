// Headless subcommands of the scorch executable (no display needed).
#pragma once

#include <string_view>

namespace scorch::cli {

/// True when argv[1] names a headless subcommand (collapse, info, ...) or a global flag (--help, --version).
bool isHeadlessCommand(int argc, char** argv);

/// Runs the headless command line; returns the process exit status.
int run(int argc, char** argv);

} // namespace scorch::cli
