// Helpers of the symbolizer tests: where the test program's code lies in this process, and the lines of
// its "SYMTEST:" markers.
#pragma once

#include <QProcess>
#include <QStandardPaths>
#include <QString>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace symtest {
/// Where an address of this process lies: module file and file offset (the Symbolizer's contract).
struct Location {
    std::string path;
    uint64_t offset = 0;
};

inline Location locate(const void* address) {
    const auto a = reinterpret_cast<uint64_t>(address);
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        unsigned long long start = 0, end = 0, pgoff = 0;
        char perms[8] = {};
        int pathAt = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &pathAt) <
            4)
            continue;
        if (a >= start && a < end && pathAt > 0)
            return {line.substr(static_cast<std::size_t>(pathAt)), a - start + pgoff};
    }
    return {};
}

/// 1-based line of the "SYMTEST:<marker>" comment in a test program source.
inline uint32_t markerLine(const char* file, const char* marker) {
    std::ifstream in(std::string(SCORCH_SYMTEST_SOURCE_DIR) + '/' + file);
    const std::string tag = std::string("SYMTEST:") + marker;
    std::string line;
    for (uint32_t n = 1; std::getline(in, line); ++n)
        if (line.find(tag) != std::string::npos)
            return n;
    return 0;
}

inline QString toQ(const std::string& s) {
    return QString::fromStdString(s);
}

/// objcopy (binutils), which the tests that strip or split the test library need; empty where it is not
/// installed (they skip).
inline QString objcopy() {
    return QStandardPaths::findExecutable(QStringLiteral("objcopy"));
}

/// The test library without its debug sections (`objcopy --strip-debug`) as `<dir>/libscorch_symtest.so`:
/// that path, empty when objcopy failed.
inline QString strippedTestLibrary(const QString& objcopy, const QString& dir) {
    const QString stripped = dir + QStringLiteral("/libscorch_symtest.so");
    return QProcess::execute(objcopy, {QStringLiteral("--strip-debug"), QString::fromUtf8(SCORCH_SYMTEST_LIB),
                                       stripped}) == 0
               ? stripped
               : QString();
}

} // namespace symtest
