// `scorch record`: the sampler on the command line.
#pragma once

namespace scorch::cli {

/// argv[1] == "record". Returns the exit status.
int record(int argc, char** argv);

} // namespace scorch::cli
