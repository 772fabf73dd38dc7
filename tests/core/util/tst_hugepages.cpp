// The page helpers of core/src/util/hugepages.h: freeLazily() and giveBack() give the kernel only the whole
// pages inside the bytes they are given (never a page that a neighbouring allocation shares) and nothing for
// small arrays.
// probeMappedPages() (util/mappedpages.h) times pages of a file mapping and gives them back.
// MappedArray (util/mappedarray.h) keeps its elements as its mapping grows and moves, and maps in pages ahead
// of its writer on request (util/aheadmapper.h). procKilobytes()
// (scorch/procstatus.h) reads the memory figures these are measured by.
#include "scorch/hugepages.h"
#include "scorch/procstatus.h"
#include "testutil.h"
#include "util/aheadmapper.h"
#include "util/hugepages.h"
#include "util/mappedarray.h"
#include "util/mappedpages.h"

#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <unistd.h>

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// The VmFlags of the mapping that holds `p` (/proc/self/smaps), "" when none does.
std::string vmFlagsAt(const void* p) {
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        std::uintptr_t from = 0, to = 0;
        char dash = 0;
        std::istringstream range(line);
        if (range >> std::hex >> from >> dash >> to && dash == '-') // a mapping's first line
            inside = from <= at && at < to;
        else if (inside && line.rfind("VmFlags:", 0) == 0)
            return line.substr(8) + " ";
    }
    return {};
}

/// A mapping of our own of `bytes` in 4 KiB pages (no huge page to split), every page written with 7
/// (resident); nullptr when it cannot be made.
char* writtenSmallPages(std::size_t bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return nullptr;
    ::madvise(p, bytes, MADV_NOHUGEPAGE);
    std::memset(p, 7, bytes);
    return static_cast<char*>(p);
}

/// How many of the 4 KiB pages of [p, p + bytes) are resident (mincore); -1 when it cannot tell.
std::size_t residentPages(const void* p, std::size_t bytes) {
    constexpr std::size_t page = 4096;
    std::vector<unsigned char> in((bytes + page - 1) / page);
    if (::mincore(const_cast<void*>(p), bytes, in.data()) != 0)
        return std::size_t(-1);
    return static_cast<std::size_t>(
        std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; }));
}

} // namespace

class TestHugePages : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // hugePages() is measured once; adviseHugePages() asks for huge pages where they are fast and advises
    // against them where they are slow (the mapping's VmFlags: hg / nh)
    void adviceFollowsTheMeasurement() {
        std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
        std::string mode;
        std::getline(thp, mode);
        const scorch::HugePages measured = scorch::hugePages();
        QCOMPARE(scorch::hugePages(), measured);
        QCOMPARE(measured == scorch::HugePages::Unavailable,
                 mode.empty() || mode.find("[never]") != std::string::npos);
        constexpr std::size_t bytes = std::size_t(8) << 20;
        for (const auto speed : {scorch::HugePages::Fast, scorch::HugePages::Slow}) {
            scorch::assumeHugePages(speed);
            QCOMPARE(scorch::hugePages(), speed);
            void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            QVERIFY(p != MAP_FAILED);
            QVERIFY(vmFlagsAt(p).find(" hg ") == std::string::npos);
            scorch::detail::adviseHugePages(p, bytes);
            const std::string flags = vmFlagsAt(p);
            ::munmap(p, bytes);
            const bool fast = speed == scorch::HugePages::Fast;
            QVERIFY2(flags.find(fast ? " hg " : " nh ") != std::string::npos, flags.c_str());
            QVERIFY2(flags.find(fast ? " nh " : " hg ") == std::string::npos, flags.c_str());
        }
        scorch::assumeHugePages(measured);
        QCOMPARE(scorch::hugePagesName(scorch::HugePages::Slow), "slow");
    }

    void freeLazilyRoundsIn() {
        constexpr std::size_t page = 4096, bytes = std::size_t(8) << 20;
        char* base = writtenSmallPages(bytes);
        QVERIFY(base);
        const long long before = scorch::test::lazyFreeKb();
        QVERIFY(before >= 0);
        // under 4 MiB: nothing
        scorch::detail::freeLazily(base, (std::size_t(4) << 20) - 1);
        QCOMPARE(scorch::test::lazyFreeKb(), before);
        // 100 bytes in and 6 MiB long: the pages from the second on, the last one (partly outside) not (the
        // kernel counts a few pages later: it marks them in batches)
        scorch::detail::freeLazily(base + 100, std::size_t(6) << 20);
        const long long freed = scorch::test::lazyFreeKb() - before,
                        inside = ((std::size_t(6) << 20) - page) / 1024;
        QVERIFY2(freed <= inside && freed >= inside - 256, std::to_string(freed).c_str());
        ::munmap(base, bytes);
    }

    // giveBack(): the whole pages inside the bytes go at once (not resident, read as zero), the pages at the
    // ends that neighbours share keep their bytes; under 4 MiB nothing goes
    void giveBackRoundsIn() {
        constexpr std::size_t page = 4096, bytes = std::size_t(8) << 20;
        char* base = writtenSmallPages(bytes);
        QVERIFY(base);
        const auto resident = [&] {
            return residentPages(base, bytes);
        };
        QCOMPARE(resident(), bytes / page);
        scorch::detail::giveBack(base, (std::size_t(4) << 20) - 1);
        QCOMPARE(resident(), bytes / page);
        // 100 bytes in and 6 MiB long: the pages from the second through the one before the last
        const std::size_t length = std::size_t(6) << 20;
        scorch::detail::giveBack(base + 100, length);
        QCOMPARE(resident(), bytes / page - (length / page - 1));
        QCOMPARE(base[99], char(7));
        QCOMPARE(base[100], char(7)); // (first page: shared with the bytes before)
        QCOMPARE(base[page], char(0));
        QCOMPARE(base[100 + length - 1], char(7)); // (last page: shared with the bytes after)
        QCOMPARE(base[length - 1], char(0));
        ::munmap(base, bytes);
    }

    // procKilobytes(): the /proc figures the traces, benchmarks and the heap trim read
    void procFigures() {
        const auto before =
            scorch::procKilobytes("/proc/self/status", {"RssAnon", "VmHWM", "NoSuchKey", "VmRSS"});
        QCOMPARE(before.size(), std::size_t(4));
        QVERIFY(before[0] > 0 && before[3] > 0);
        QVERIFY(before[1] >= before[3]); // the peak is at least the current
        QCOMPARE(before[2], -1ll);
        QCOMPARE(scorch::procKilobytes("/nonexistent/status", "VmRSS"), -1ll);
        QCOMPARE(scorch::procKilobytes("/proc/self/status", "VmRS"), -1ll); // a key's prefix is not the key
        // 64 MiB written: resident anonymous memory grows by about that much
        constexpr std::size_t bytes = std::size_t(64) << 20;
        char* p = static_cast<char*>(
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        QVERIFY(p != MAP_FAILED);
        std::memset(p, 1, bytes);
        const long long grown = scorch::procKilobytes("/proc/self/status", "RssAnon") - before[0];
        ::munmap(p, bytes);
        QVERIFY2(grown >= 60 * 1024 && grown <= 80 * 1024, std::to_string(grown).c_str());
    }

    // The probe of a file mapping's pages (touch against copy) measures 2 MiB spread over the file, gives
    // them back, and leaves inputs under 16 MiB alone. (Which way it decides depends on the machine: not
    // tested.)
    void mappedPageProbe() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("probed.txt")).toStdString();
        constexpr std::size_t bytes = std::size_t(24) << 20;
        {
            const std::string line(99, 'x');
            std::ofstream out(path, std::ios::binary);
            for (std::size_t n = 0; n < bytes / 100; ++n)
                out << line << '\n';
        }
        const int fd = ::open(path.c_str(), O_RDONLY);
        QVERIFY(fd >= 0);
        const std::size_t size = bytes / 100 * 100;
        void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
        ::close(fd);
        QVERIFY(map != MAP_FAILED);
        const char* text = static_cast<const char*>(map);
        const long long before = scorch::procKilobytes("/proc/self/status", "RssFile");
        const scorch::detail::MappedPageCost cost = scorch::detail::probeMappedPages(text, size);
        const long long after = scorch::procKilobytes("/proc/self/status", "RssFile");
        QVERIFY(cost.touchNs > 0 && cost.copyNs > 0);
        QCOMPARE(cost.readInstead, cost.touchNs > 2 * cost.copyNs);
        // (without the pages given back: 2 MiB and more, the kernel mapping neighbours of each spot too)
        QVERIFY2(after - before < 1024, std::to_string(after - before).c_str());
        const scorch::detail::MappedPageCost small =
            scorch::detail::probeMappedPages(text, (std::size_t(16) << 20) - 4096);
        QCOMPARE(small.touchNs, 0.0);
        QVERIFY(!small.readInstead);
        // (not exactly `after`: the calls since may have paged in a page or two of the libraries' code, which
        // counts in RssFile too; a clean clone's CI at ab157c6 saw 11924 -> 11928 KiB. A probe would touch 2
        // MiB.)
        const long long end = scorch::procKilobytes("/proc/self/status", "RssFile");
        QVERIFY2(end - after < 256, std::to_string(end - after).c_str());
        ::munmap(map, size);
    }

    // The pages inside a range, rounded in at both ends
    void innerPages() {
        using scorch::detail::innerPages;
        using Range = std::pair<std::uintptr_t, std::uintptr_t>;
        QCOMPARE(innerPages(0x10000, 0x3000), Range(0x10000, 0x13000)); // whole pages
        QCOMPARE(innerPages(0x10064, 0x3000), Range(0x11000, 0x13000)); // neither the first nor the last
        QCOMPARE(innerPages(0x10000, 0x2fff), Range(0x10000, 0x12000)); // not the last
        QCOMPARE(innerPages(0x10001, 0x1fff), Range(0x11000, 0x12000)); // the one whole page
        const Range none = innerPages(0x10001, 0x1000);                 // inside two pages, none whole
        QVERIFY(none.first >= none.second);
    }

    void mappedArrayKeepsItsElementsAsItGrows() {
        scorch::detail::MappedArray<uint32_t> a;
        QVERIFY(a.empty());
        a.append({}); // nothing: no mapping yet
        QVERIFY(a.data() == nullptr);
        // runs of 1 to 4 999 elements up to 40 MB: grown from 64 KiB through the huge-page sizes, moved by
        // mremap() on the way (a neighbouring mapping leaves no room to grow in place)
        std::vector<uint32_t> run;
        uint32_t next = 0;
        std::size_t moves = 0;
        const uint32_t* before = nullptr;
        std::vector<void*> neighbours;
        for (uint32_t k = 1; a.size() < 10'000'000; k = k * 7 % 4999 + 1) {
            run.resize(k);
            std::iota(run.begin(), run.end(), next);
            next += k;
            a.append(run);
            if (a.data() != before)
                ++moves;
            before = a.data();
            if (neighbours.size() < 64) {
                neighbours.push_back(::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
                QVERIFY(neighbours.back() != MAP_FAILED);
            }
        }
        for (void* p : neighbours)
            ::munmap(p, 4096);
        QVERIFY2(moves > 8, "the array never moved");
        QCOMPARE(a.size(), std::size_t(next));
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i] != i)
                QFAIL(qPrintable(QString("element %1 is %2").arg(i).arg(a[i])));
        a.push_back(7);
        QCOMPARE(a[a.size() - 1], 7u);
        // moved: the new owner has the elements, the old one nothing
        scorch::detail::MappedArray<uint32_t> b = std::move(a);
        QVERIFY(a.empty() && a.data() == nullptr);
        QCOMPARE(b.size(), std::size_t(next) + 1);
        QCOMPARE(b[12345], 12345u);
        b.release();
        QVERIFY(b.empty() && b.data() == nullptr);
        b.push_back(3); // usable again
        QCOMPARE(b.size(), std::size_t(1));
        QCOMPARE(b[0], 3u);
    }

    // mapAhead(distance): once the array has grown past the distance, a thread of its own maps in the pages
    // up to the distance past the elements written (pages the writer never touched), none beyond; the
    // elements keep their values through the array's moves meanwhile; discardFront() stops it
    void mappedArrayMapsAheadOfItsWriter() {
        if (!scorch::detail::AheadMapper::supported())
            QSKIP("this kernel cannot map pages in ahead (MADV_POPULATE_WRITE: Linux 5.14 on)");
        constexpr std::size_t page = 4096, mib = std::size_t(1) << 20, huge = 2 * mib, distance = 8 * mib;
        scorch::detail::MappedArray<uint32_t> a;
        a.mapAhead(distance);
        std::vector<uint32_t> run;
        uint32_t next = 0;
        const auto appendUpTo = [&](std::size_t bytes) { // in runs of 1 to 4 999 elements
            for (uint32_t k = 1; a.size() * 4 < bytes; k = k * 7 % 4999 + 1) {
                run.resize(std::min<std::size_t>(k, bytes / 4 - a.size()));
                std::iota(run.begin(), run.end(), next);
                next += static_cast<uint32_t>(run.size());
                a.append(run);
            }
        };
        appendUpTo(distance / 2); // not past the distance yet: nothing mapped in ahead
        QCOMPARE(a.mappedAhead(), std::size_t(0));
        // grown to 40 MiB, moved by mremap() on the way (a neighbouring mapping leaves no room to grow in
        // place)
        std::vector<void*> neighbours;
        std::size_t moves = 0;
        for (std::size_t upTo = distance; upTo <= 40 * mib; upTo += 4 * mib) {
            const uint32_t* before = a.data();
            appendUpTo(upTo);
            moves += a.data() != before;
            neighbours.push_back(::mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
            QVERIFY(neighbours.back() != MAP_FAILED);
        }
        QVERIFY2(moves >= 2, "the array never moved");
        const std::size_t written = a.size() * 4;
        QCOMPARE(written, 40 * mib);
        // once the thread has nothing more to do: at least half the distance mapped in ahead (wrote() asks
        // for the whole distance again from there), at most all of it
        QTRY_VERIFY_WITH_TIMEOUT(a.mappedAhead() >= written + distance / 2 && a.aheadIdle(), 60000);
        QVERIFY(a.mappedAhead() <= written + distance);
        const auto at = [&](std::size_t offset) {
            return reinterpret_cast<std::uintptr_t>(a.data()) + offset;
        };
        // the pages past the last huge page written into, up to half the distance: mapped in, not by the
        // writer
        const std::uintptr_t from = scorch::detail::roundUp(at(written), huge);
        const std::uintptr_t to = scorch::detail::roundDown(at(written + distance / 2), huge);
        QVERIFY(to > from);
        QCOMPARE(residentPages(reinterpret_cast<void*>(from), to - from), (to - from) / page);
        // and none past the distance (and the huge page it ends in)
        const std::uintptr_t beyond = scorch::detail::roundUp(at(written + distance), huge);
        const std::uintptr_t end = at(a.capacity() * 4);
        QVERIFY2(end > beyond, "the mapping ends within the distance: the test's sizes no longer fit");
        QCOMPARE(residentPages(reinterpret_cast<void*>(beyond), end - beyond), std::size_t(0));
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i] != i)
                QFAIL(qPrintable(QString("element %1 is %2").arg(i).arg(a[i])));
        a.discardFront(1000); // (read from the front now: no more mapping in ahead)
        QCOMPARE(a.mappedAhead(), std::size_t(0));
        for (void* p : neighbours)
            ::munmap(p, page);
    }

    // discardFront(n): the pages holding only elements before n are given back (not resident, read as zero),
    // rounded down to whole huge pages from 2 MiB on; the elements from n on keep their values
    void mappedArrayDiscardsItsFront() {
        constexpr std::size_t page = 4096, huge = std::size_t(2) << 20;
        scorch::detail::MappedArray<uint32_t> a;
        std::vector<uint32_t> all(3'000'000); // 12 MB
        std::iota(all.begin(), all.end(), 1u);
        a.append(all);
        const auto base = reinterpret_cast<std::uintptr_t>(a.data());
        // resident 4 KiB pages of the array among its first `bytes`
        const auto resident = [&](std::size_t bytes) {
            return residentPages(a.data(), bytes);
        };
        QCOMPARE(resident(all.size() * 4 / page * page), all.size() * 4 / page);
        // 1000 elements (under a page): nothing
        a.discardFront(1000);
        QCOMPARE(a[0], 1u);
        QCOMPARE(a[999], 1000u);
        // 300 000 elements (1.2 MB): the whole 4 KiB pages below them
        a.discardFront(300'000);
        const std::size_t small = 300'000 * 4 / page * page;
        QCOMPARE(resident(small), std::size_t(0));
        QCOMPARE(a[0], 0u);
        QCOMPARE(a[small / 4 - 1], 0u);
        QCOMPARE(a[small / 4], uint32_t(small / 4 + 1)); // the page the 300 000th element is in stays
        QCOMPARE(a[299'999], 300'000u);
        // 2 000 000 elements (8 MB): up to the last huge-page boundary below them
        a.discardFront(2'000'000);
        const std::uintptr_t end = (base + 2'000'000 * 4) & ~(huge - 1);
        const std::size_t gone = (end - base) / 4;
        QCOMPARE(resident(end - base), std::size_t(0));
        QCOMPARE(a[gone - 1], 0u);
        for (std::size_t i = gone; i < all.size(); ++i)
            if (a[i] != i + 1)
                QFAIL(qPrintable(QString("element %1 is %2").arg(i).arg(a[i])));
        QCOMPARE(a.size(), all.size());
    }
};

QTEST_APPLESS_MAIN(TestHugePages)
#include "tst_hugepages.moc"
