// The file of the running program, for finding what is installed beside it and for re-executing it.
#pragma once

#include <climits>
#include <optional>
#include <string>
#include <unistd.h>

namespace scorch::cli {

/// The running program's file, as /proc/self/exe names it (under valgrind the program, not the tool); nothing
/// where that cannot be read.
inline std::optional<std::string> ownExecutable() {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return std::nullopt;
    return std::string(buf, static_cast<std::size_t>(n));
}

} // namespace scorch::cli
