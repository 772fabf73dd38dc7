// bench_fileoutput: writing a large output to a new file through FileOutputBuffer, with its blocks reserved
// ahead (what the command line and AtomicFile do) and without, alternated in one run.
//
//   build/tests/bench/bench_fileoutput [--mb N] [--rounds R] [--dir DIR]
//
// Each round writes N MiB (default 843: fp-medium's folded stacks) in 1 MiB pieces of text to DIR/out
// (default $TMPDIR or /tmp), a new file each time, once reserved and once not, in turn; the file system's
// dirty data is written back (syncfs) before each write so that one write's writeback does not land in the
// next one's time. Prints each write's wall time, the medians, and the file system type (reserving happens on
// ext4 only: on other file systems both rows write the same way).
#include "scorch/fileoutput.h"

#include "benchutil.h"

#include <sys/vfs.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/magic.h>
#include <ostream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

using scorch::bench::median;
using scorch::bench::seconds;

namespace {

/// One write of `mb` MiB of `piece` to a new `path`; seconds from open to close, or -1 on an error.
double writeOnce(const std::string& path, std::size_t mb, const std::string& piece,
                 scorch::FileOutputBuffer::Reserve reserve) {
    ::unlink(path.c_str());
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    ::syncfs(fd);
    const double t0 = seconds();
    bool ok = true;
    {
        scorch::FileOutputBuffer buffer(fd, reserve);
        std::ostream out(&buffer);
        for (std::size_t i = 0; i < mb && out; ++i)
            out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
        ok = buffer.finish() && out;
    }
    ok = ::close(fd) == 0 && ok;
    const double t1 = seconds();
    ::unlink(path.c_str());
    return ok ? t1 - t0 : -1;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t mb = 843;
    int rounds = 7;
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = tmp && *tmp ? tmp : "/tmp";
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--mb" && i + 1 < argc)
            mb = static_cast<std::size_t>(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--rounds" && i + 1 < argc)
            rounds = std::atoi(argv[++i]);
        else if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_fileoutput [--mb N] [--rounds R] [--dir DIR]\n");
            return 2;
        }
    }
    if (mb == 0 || rounds <= 0) {
        std::fprintf(stderr, "bench_fileoutput: --mb and --rounds must be positive\n");
        return 2;
    }
    struct statfs fs {};
    if (::statfs(dir.c_str(), &fs) != 0) {
        std::fprintf(stderr, "bench_fileoutput: %s: %s\n", dir.c_str(), std::strerror(errno));
        return 1;
    }
    const bool ext4 = fs.f_type == EXT4_SUPER_MAGIC;
    // lines of text like folded stacks: what the file system gets from `scorch collapse`
    std::string piece;
    for (int i = 0; piece.size() < (std::size_t(1) << 20); ++i)
        piece += "main;run;std::vector<int>::push_back;worker_" + std::to_string(i % 97) + " " +
                 std::to_string(1 + i % 7) + "\n";
    piece.resize(std::size_t(1) << 20);

    const std::string path = dir + "/bench_fileoutput.out";
    std::printf("%zu MiB to a new file in %s (%s), 1 MiB pieces, %d rounds alternated\n", mb, dir.c_str(),
                ext4 ? "ext4" : "not ext4: nothing is reserved", rounds);
    std::vector<double> reserved, plain;
    for (int r = 0; r < rounds; ++r) {
        const double a = writeOnce(path, mb, piece, scorch::FileOutputBuffer::Reserve::WhereMeasured);
        const double b = writeOnce(path, mb, piece, scorch::FileOutputBuffer::Reserve::Never);
        if (a < 0 || b < 0) {
            std::fprintf(stderr, "bench_fileoutput: %s: cannot write (%s)\n", path.c_str(),
                         std::strerror(errno));
            return 1;
        }
        reserved.push_back(a);
        plain.push_back(b);
        std::printf("round %d: reserved %.3f s, not reserved %.3f s\n", r + 1, a, b);
    }
    std::printf("median: reserved %.3f s (%.0f MB/s), not reserved %.3f s (%.0f MB/s)\n", median(reserved),
                static_cast<double>(mb) * 1.048576 / median(reserved), median(plain),
                static_cast<double>(mb) * 1.048576 / median(plain));
    return 0;
}
