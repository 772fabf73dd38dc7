// The heap trim: memory that glibc keeps after it is freed goes back to the kernel (RssAnon drops), a
// while after a background job ends or releaseInBackground() frees, once for a series of requests. Waits for
// events (the count of trims, the pool's tasks done), never asserts how long anything took.
#include "common/backgroundjob.h"
#include "common/heaptrim.h"
#include "patience.h"

#include <QTest>

#include <malloc.h>

#include <cstring>
#include <memory>
#include <vector>

using namespace scorch;
using scorch::test::kPatienceMs;

namespace {

std::size_t anonymousResidentMb() {
    return anonymousResidentBytes() >> 20;
}

} // namespace

class TestHeapTrim : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Blocks freed in the middle of the heap stay resident until the trim gives their pages back.
    void givesFreedHeapMemoryBack() {
#ifdef SCORCH_SANITIZED
        QSKIP("ASan's allocator stands in for glibc's malloc here: there is no glibc heap to trim");
#endif
        // (blocks of 1 MiB from the heap, not mapped one by one, and no automatic trim of the heap's top)
        QVERIFY(mallopt(M_MMAP_THRESHOLD, 16 << 20) == 1); // (glibc allows up to 32 MiB)
        QVERIFY(mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1);
        constexpr std::size_t kBlocks = 96, kBlock = 1 << 20;
        std::vector<std::unique_ptr<char[]>> blocks;
        for (std::size_t b = 0; b < kBlocks; ++b) {
            blocks.emplace_back(new char[kBlock]);
            std::memset(blocks.back().get(), int(b), kBlock);
        }
        auto guard = std::make_unique<char[]>(4096); // above them: they are not the heap's top
        const std::size_t used = anonymousResidentMb();
        blocks.clear();
        const std::size_t freed = anonymousResidentMb();
        QVERIFY2(freed + 16 > used, "freeing gave the memory back already: the test shows nothing");
        const std::size_t trims = heapTrims();
        const std::size_t released = trimHeapNow();
        QCOMPARE(heapTrims(), trims + 1);
        QVERIFY2(released >= (kBlocks - 32) * kBlock, qPrintable(QString::number(released)));
        QVERIFY(anonymousResidentMb() + (kBlocks - 32) <= freed);
        QVERIFY(guard);
    }

    // A background job's end asks for a trim.
    void trimsAfterAJobEnds() {
        const std::size_t trims = heapTrims();
        QObject owner;
        BackgroundJob job(&owner);
        bool delivered = false;
        job.start([](JobContext&) { return std::vector<char>(1 << 20).size(); },
                  [&delivered](std::size_t) { delivered = true; });
        QTRY_VERIFY_WITH_TIMEOUT(delivered, kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(heapTrims() > trims, kPatienceMs);
    }

    // So does freeing a last owner in the background.
    void trimsAfterAFreeInTheBackground() {
        const std::size_t trims = heapTrims();
        auto data = std::make_shared<std::vector<char>>(1 << 20);
        releaseInBackground(std::move(data));
        QTRY_VERIFY_WITH_TIMEOUT(heapTrims() > trims, kPatienceMs);
    }

    // A series of requests gets one trim, after the last.
    void trimsOnceForASeriesOfRequests() {
        const std::size_t trims = heapTrims();
        for (int i = 0; i < 5; ++i)
            trimHeapSoon();
        QTRY_VERIFY_WITH_TIMEOUT(heapTrims() > trims, kPatienceMs);
        // (a trim per request would have been started on the pool by now: wait for every task there)
        QVERIFY(backgroundPool()->waitForDone(kPatienceMs));
        QCOMPARE(heapTrims(), trims + 1);
    }
};

QTEST_GUILESS_MAIN(TestHeapTrim)
#include "tst_heaptrim.moc"
