// libFuzzer target: binary perf.data through the native reader (header, attributes, features, records,
// compressed records, DWARF unwinding). The reader runs without building a profile so that symbolization
// (reading the modules of the machine) does not slow the fuzzer; one input in 64 also goes through the
// whole importer and the analyses.
#include "fuzzcommon.h"

#include "scorch/perfdata.h"

#include <sys/mman.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const int fd = memfd_create("fuzz_perfdata", 0);
    if (fd < 0)
        return 0;
    if (size == 0 || ::write(fd, data, size) == static_cast<ssize_t>(size)) {
        try {
            (void)scorch::forEachPerfDataSample("/proc/self/fd/" + std::to_string(fd),
                                                [](int64_t, int64_t, std::span<const uint64_t>) {});
        } catch (const scorch::ImportError&) {
        }
    }
    ::close(fd);
    if (size % 64 == 0)
        return fuzzImport(data, size, scorch::Format::PerfData);
    return 0;
}
