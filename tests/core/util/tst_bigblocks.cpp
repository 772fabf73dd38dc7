// The big blocks of scorch/bigblocks.h: outside a RecycleScope none is given (malloc serves them), and a
// freed one is unmapped at once; inside one, a freed block's written pages are kept, and the next big block
// is the most recently kept stretch that is large enough, or kept stretches moved into a new one, their pages
// still mapped (writing them costs no page fault) and their bytes as they were. The kept ones beyond the
// limit, and all when the last scope ends, are unmapped. A random series of allocations and frees never
// gives out memory twice. The page moves also work one mapping at a time (kernels before 6.17 move no more
// in one call).
#include "scorch/bigblocks.h"
#include "scorch/hugepages.h"
#include "util/bigblocks.h"

#include <QTest>

#include <sys/mman.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

// In a sanitized build (SCORCH_SANITIZED: the suite links ASan's runtime) memset() also reads the shadow
// memory of the bytes it writes, which faults in: the page faults of writing a block are not counted there
// (its pages are still checked as resident).
#ifdef SCORCH_SANITIZED
constexpr bool kShadowMemory = true;
#else
constexpr bool kShadowMemory = false;
#endif

constexpr std::size_t MiB = std::size_t(1) << 20;
constexpr std::size_t kPage = 4096;

/// How many of the 4 KiB pages of [p, p + bytes) are resident (mincore); -1 when they are not all mapped.
std::size_t residentPages(const void* p, std::size_t bytes) {
    std::vector<unsigned char> in((bytes + kPage - 1) / kPage);
    if (::mincore(const_cast<void*>(p), bytes, in.data()) != 0)
        return std::size_t(-1);
    std::size_t n = 0;
    for (const unsigned char c : in)
        n += c & 1;
    return n;
}

/// The page faults this thread has taken so far.
long faults() {
    struct rusage u {};
    ::getrusage(RUSAGE_THREAD, &u);
    return u.ru_minflt;
}

/// Writes `value` into every page of [p, p + bytes); returns the page faults that took.
long fill(void* p, std::size_t bytes, unsigned char value) {
    const long before = faults();
    std::memset(p, value, bytes);
    return faults() - before;
}

/// True when writing [p, p + bytes) took no page fault (a few for the test's own stack at most; always
/// true under AddressSanitizer, see kShadowMemory).
bool writtenWithoutFaults(void* p, std::size_t bytes, unsigned char value) {
    return fill(p, bytes, value) < 16 || kShadowMemory;
}

/// True when every byte of [p, p + bytes) is `value`.
bool holds(const void* p, std::size_t bytes, unsigned char value) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < bytes; ++i)
        if (c[i] != value)
            return false;
    return true;
}

} // namespace

class TestBigBlocks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        // small pages: what is resident and what faults is then counted in 4 KiB pages
        scorch::assumeHugePages(scorch::HugePages::Unavailable);
    }

    // only blocks of kBigBlockBytes and more, and only pointers it gave
    void takesOnlyItsOwn() {
        const scorch::RecycleScope scope;
        const std::size_t live = scorch::bigBlockStats().liveBlocks;
        QVERIFY(scorch::allocateBigBlock(scorch::kBigBlockBytes - 1) == nullptr);
        QVERIFY(!scorch::freeBigBlock(nullptr));
        void* small = std::malloc(64);
        QVERIFY(!scorch::freeBigBlock(small));
        std::free(small);
        void* foreign = ::mmap(nullptr, 8 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(foreign != MAP_FAILED);
        QVERIFY(!scorch::freeBigBlock(foreign));
        QCOMPARE(residentPages(foreign, 8 * MiB), std::size_t(0)); // (still mapped: not touched)
        ::munmap(foreign, 8 * MiB);
        QCOMPARE(scorch::bigBlockStats().liveBlocks, live);
    }

    // outside a scope, big blocks are left to malloc; one given inside a scope and freed after it ended is
    // unmapped at once, and a new one is fresh (zero) memory
    void withoutScopeFreedBlocksGo() {
        QVERIFY(scorch::allocateBigBlock(8 * MiB) == nullptr);
        const scorch::BigBlockStats before = scorch::bigBlockStats();
        void* a = nullptr;
        {
            const scorch::RecycleScope scope;
            a = scorch::allocateBigBlock(8 * MiB);
        }
        QVERIFY(a != nullptr);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(a) % kPage, std::uintptr_t(0));
        QCOMPARE(scorch::bigBlockStats().liveBlocks, before.liveBlocks + 1);
        QVERIFY(fill(a, 8 * MiB, 7) >= long(8 * MiB / kPage / 16)); // fresh pages fault in
        QVERIFY(scorch::freeBigBlock(a));
        QCOMPARE(residentPages(a, 8 * MiB), std::size_t(-1)); // unmapped
        const scorch::BigBlockStats after = scorch::bigBlockStats();
        QCOMPARE(after.keptBytes, std::size_t(0));
        QCOMPARE(after.liveBlocks, before.liveBlocks);
        QCOMPARE(after.recycledBytes, before.recycledBytes);
        QVERIFY(after.freshBytes >= before.freshBytes + 8 * MiB);
    }

    // inside a scope, the block freed last serves the next that fits: same pages, mapped, bytes kept
    void scopeRecyclesTheLastFreed() {
        const scorch::RecycleScope scope;
        void* old = scorch::allocateBigBlock(8 * MiB);
        void* a = scorch::allocateBigBlock(8 * MiB);
        QVERIFY(old && a);
        fill(old, 8 * MiB, 1);
        fill(a, 8 * MiB, 7);
        QVERIFY(scorch::freeBigBlock(old));
        QVERIFY(scorch::freeBigBlock(a)); // freed last
        QCOMPARE(scorch::bigBlockStats().keptBytes, 16 * MiB);
        const scorch::BigBlockStats before = scorch::bigBlockStats();
        void* b = scorch::allocateBigBlock(6 * MiB);
        QCOMPARE(b, a);
        QVERIFY(holds(b, 6 * MiB, 7)); // not zeroed: the same pages
        QCOMPARE(residentPages(b, 6 * MiB), 6 * MiB / kPage);
        QVERIFY(writtenWithoutFaults(b, 6 * MiB, 9));
        const scorch::BigBlockStats after = scorch::bigBlockStats();
        QCOMPARE(after.recycledBytes - before.recycledBytes, 6 * MiB);
        QCOMPARE(after.freshBytes, before.freshBytes);
        QCOMPARE(after.keptBytes, 10 * MiB); // the rest of a (2 MiB) and old
        // the rest of `a` serves a block that fits it
        void* c = scorch::allocateBigBlock(scorch::kBigBlockBytes);
        QVERIFY(c != nullptr);
        QVERIFY(c == old || c == static_cast<char*>(a) + 6 * MiB);
        QVERIFY(scorch::freeBigBlock(b));
        QVERIFY(scorch::freeBigBlock(c));
    }

    // only the pages written are kept (the rest would cost a fault wherever it is used): a block written in
    // its first 3 MiB and 1 MiB in the middle keeps those two stretches, the next blocks are made of them
    void onlyMappedPagesAreKept() {
        const scorch::RecycleScope scope;
        auto* a = static_cast<char*>(scorch::allocateBigBlock(16 * MiB));
        QVERIFY(a != nullptr);
        fill(a, 3 * MiB, 1);
        fill(a + 8 * MiB, MiB, 2);
        QVERIFY(scorch::freeBigBlock(a));
        const scorch::BigBlockStats kept = scorch::bigBlockStats();
        QCOMPARE(kept.keptBytes, 4 * MiB);
        QCOMPARE(kept.keptBlocks, std::size_t(2));
        QCOMPARE(residentPages(a, 3 * MiB), 3 * MiB / kPage);
        QCOMPARE(residentPages(a + 3 * MiB, kPage), std::size_t(-1)); // unmapped
        QCOMPARE(residentPages(a + 8 * MiB, MiB), MiB / kPage);
        auto* d = static_cast<char*>(scorch::allocateBigBlock(6 * MiB)); // none large enough: both move in
        QVERIFY(d != nullptr);
        QVERIFY(holds(d, MiB, 2));           // the stretch kept last first
        QVERIFY(holds(d + MiB, 3 * MiB, 1)); // then the other
        QCOMPARE(residentPages(d, 4 * MiB), 4 * MiB / kPage);
        QCOMPARE(scorch::bigBlockStats().keptBytes, std::size_t(0));
        QVERIFY(scorch::freeBigBlock(d));
    }

    // none large enough: the kept blocks, the most recent first, are moved into the new one (their pages
    // and bytes with them); fresh pages only for the rest; the old addresses are gone
    void keptBlocksMoveIntoALargerOne() {
        const scorch::RecycleScope scope;
        void* a = scorch::allocateBigBlock(8 * MiB);
        void* c = scorch::allocateBigBlock(6 * MiB);
        QVERIFY(a && c);
        fill(a, 8 * MiB, 1);
        fill(c, 6 * MiB, 2);
        QVERIFY(scorch::freeBigBlock(a));
        QVERIFY(scorch::freeBigBlock(c));
        const scorch::BigBlockStats before = scorch::bigBlockStats();
        auto* d = static_cast<char*>(scorch::allocateBigBlock(20 * MiB));
        QVERIFY(d != nullptr);
        QVERIFY(holds(d, 6 * MiB, 2));           // c, freed last
        QVERIFY(holds(d + 6 * MiB, 8 * MiB, 1)); // then a
        QCOMPARE(residentPages(d, 14 * MiB), 14 * MiB / kPage);
        QCOMPARE(residentPages(d + 14 * MiB, 6 * MiB), std::size_t(0));
        QVERIFY(writtenWithoutFaults(d, 14 * MiB, 3));
        QVERIFY(holds(d + 14 * MiB, 6 * MiB, 0)); // fresh
        QCOMPARE(residentPages(a, 8 * MiB), std::size_t(-1));
        QCOMPARE(residentPages(c, 6 * MiB), std::size_t(-1));
        const scorch::BigBlockStats after = scorch::bigBlockStats();
        QCOMPARE(after.recycledBytes - before.recycledBytes, 14 * MiB);
        QCOMPARE(after.freshBytes - before.freshBytes, 6 * MiB);
        QCOMPARE(after.keptBytes, std::size_t(0));
        QVERIFY(scorch::freeBigBlock(d));
    }

    // a block advised in part is two mappings: it still moves whole
    void aBlockOfTwoMappingsMoves() {
        const scorch::RecycleScope scope;
        auto* a = static_cast<char*>(scorch::allocateBigBlock(8 * MiB));
        QVERIFY(a != nullptr);
        fill(a, 8 * MiB, 5);
        QCOMPARE(::madvise(a + 3 * MiB + kPage, MiB, MADV_HUGEPAGE), 0); // (splits the mapping in three)
        QVERIFY(scorch::freeBigBlock(a));
        auto* d = static_cast<char*>(scorch::allocateBigBlock(10 * MiB));
        QVERIFY(d != nullptr);
        QVERIFY(holds(d, 8 * MiB, 5));
        QVERIFY(holds(d + 8 * MiB, 2 * MiB, 0));
        QCOMPARE(residentPages(a, 8 * MiB), std::size_t(-1));
        QVERIFY(scorch::freeBigBlock(d));
    }

    // the moves one mapping at a time, as kernels before 6.17 make them: a range of three mappings (one
    // advised apart, not on 2 MiB boundaries) arrives whole, its bytes and pages with it
    void piecewiseMovesKeepEveryPage() {
        constexpr std::size_t bytes = 9 * MiB;
        auto* from = static_cast<char*>(
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        auto* to = static_cast<char*>(
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        QVERIFY(from != MAP_FAILED && to != MAP_FAILED);
        QCOMPARE(::madvise(from, bytes, MADV_NOHUGEPAGE), 0);
        for (std::size_t i = 0; i < bytes; i += kPage)
            from[i] = static_cast<char>(i / kPage % 251);
        QCOMPARE(::madvise(from + 3 * MiB + 5 * kPage, MiB, MADV_HUGEPAGE), 0);
        scorch::detail::movePages(from, bytes, to, true);
        bool same = true;
        for (std::size_t i = 0; i < bytes; i += kPage)
            same = same && to[i] == static_cast<char>(i / kPage % 251);
        QVERIFY(same);
        QCOMPARE(residentPages(to, bytes), bytes / kPage);
        QCOMPARE(residentPages(from, bytes), std::size_t(-1));
        ::munmap(to, bytes);
    }

    // beside the largest kept block, kKeptBeside bytes at most: the oldest others are unmapped
    void keptBeyondTheLimitGo() {
        const scorch::RecycleScope scope;
        constexpr std::size_t kSmall = 8 * MiB;
        const std::size_t smallCount = scorch::RecycleScope::kKeptBeside / kSmall + 2;
        std::vector<void*> small;
        void* large = scorch::allocateBigBlock(64 * MiB);
        QVERIFY(large != nullptr);
        fill(large, 64 * MiB, 1);
        for (std::size_t i = 0; i < smallCount; ++i) {
            small.push_back(scorch::allocateBigBlock(kSmall));
            QVERIFY(small.back() != nullptr);
            fill(small.back(), kSmall, 2);
        }
        QVERIFY(scorch::freeBigBlock(large)); // the largest, freed first
        for (void* p : small)
            QVERIFY(scorch::freeBigBlock(p));
        const scorch::BigBlockStats s = scorch::bigBlockStats();
        QCOMPARE(s.keptBytes, 64 * MiB + scorch::RecycleScope::kKeptBeside / kSmall * kSmall);
        QCOMPARE(residentPages(large, 64 * MiB), 64 * MiB / kPage); // kept
        QCOMPARE(residentPages(small[0], kSmall), std::size_t(-1)); // the oldest small ones: gone
        QCOMPARE(residentPages(small[1], kSmall), std::size_t(-1));
        QCOMPARE(residentPages(small.back(), kSmall), kSmall / kPage);
    }

    // when the last scope ends, the kept blocks are unmapped; an inner scope's end keeps them
    void scopeEndUnmapsKept() {
        void* a = nullptr;
        {
            const scorch::RecycleScope outer;
            {
                const scorch::RecycleScope inner;
                a = scorch::allocateBigBlock(8 * MiB);
                QVERIFY(a != nullptr);
                fill(a, 8 * MiB, 1);
                QVERIFY(scorch::freeBigBlock(a));
            }
            QCOMPARE(scorch::bigBlockStats().keptBytes, 8 * MiB);
            QCOMPARE(residentPages(a, 8 * MiB), 8 * MiB / kPage);
        }
        QCOMPARE(scorch::bigBlockStats().keptBytes, std::size_t(0));
        QCOMPARE(residentPages(a, 8 * MiB), std::size_t(-1));
    }

    // a random series: every live block keeps its own bytes (no memory is given out twice), and all of
    // it is mapped
    void randomSeriesNeverOverlaps() {
        const scorch::RecycleScope scope;
        const std::size_t liveBefore = scorch::bigBlockStats().liveBlocks;
        std::mt19937 random(21);
        struct Live {
            unsigned char* p;
            std::size_t bytes;
            unsigned char mark;
        };
        std::vector<Live> live;
        const auto check = [&] {
            for (const Live& b : live)
                for (std::size_t i = 0; i < b.bytes; i += kPage / 2)
                    if (b.p[i] != b.mark || b.p[b.bytes - 1] != b.mark)
                        return false;
            return true;
        };
        for (int step = 0; step < 300; ++step) {
            if (!live.empty() && (live.size() >= 12 || random() % 2)) {
                const std::size_t i = random() % live.size();
                QVERIFY(scorch::freeBigBlock(live[i].p));
                live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
            } else {
                const std::size_t bytes = scorch::kBigBlockBytes + random() % (24 * MiB);
                auto* p = static_cast<unsigned char*>(scorch::allocateBigBlock(bytes));
                QVERIFY(p != nullptr);
                const auto mark = static_cast<unsigned char>(step % 251 + 1);
                for (std::size_t i = 0; i < bytes; i += kPage / 2)
                    p[i] = mark;
                p[bytes - 1] = mark;
                live.push_back({p, bytes, mark});
            }
            QVERIFY2(check(), qPrintable(QStringLiteral("step %1").arg(step)));
        }
        for (const Live& b : live)
            QVERIFY(scorch::freeBigBlock(b.p));
        QCOMPARE(scorch::bigBlockStats().liveBlocks, liveBefore);
    }
};

QTEST_APPLESS_MAIN(TestBigBlocks)
#include "tst_bigblocks.moc"
