// The sample pipeline between the perf.data reader and the merging thread (raw/samplepipeline.h): every
// sample merged once, in order, across many batches; the producer runs up to kMaxQueued batches ahead of a
// consumer that is held up, and no further; drain() waits for the last sample; an error in merging reaches
// the producer; a batch gone through in runs of samples (forEachRun()) is the batch. Waits for counts and
// states with generous time-outs, never for a time.
#include "raw/samplepipeline.h"

#include "patience.h"

#include <QTest>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace scorch;
using scorch::detail::SampleBatch;
using scorch::detail::SamplePipeline;
using scorch::test::kPatienceMs;

namespace {

/// Holds the consumer inside its first batch until release().
class Gate {
public:
    void wait() {
        std::unique_lock lock(m_mutex);
        m_entered = true;
        m_wake.notify_all();
        m_wake.wait(lock, [&] { return m_open; });
    }
    bool waitEntered() {
        std::unique_lock lock(m_mutex);
        return m_wake.wait_for(lock, std::chrono::milliseconds(kPatienceMs), [&] { return m_entered; });
    }
    void release() {
        std::lock_guard lock(m_mutex);
        m_open = true;
        m_wake.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_entered = false, m_open = false;
};

/// A sample whose frames and cost say which it is.
void addNumbered(SamplePipeline& pipe, uint64_t i) {
    const RawFrame frames[] = {{ModuleHandle{7}, i, true}, {ModuleHandle{}, i * 3, false}};
    const CostValue cost{1, static_cast<int64_t>(i)};
    pipe.add(static_cast<uint32_t>(i % 5), frames, {&cost, 1}, static_cast<double>(i),
             static_cast<int32_t>(i % 2), i * 11);
}

/// A sample of i % 4 + 1 frames and i % 3 costs, each saying which sample it is of.
void addVaried(SamplePipeline& pipe, uint64_t i) {
    std::vector<RawFrame> frames;
    for (uint64_t k = 0; k <= i % 4; ++k)
        frames.push_back({ModuleHandle{}, i * 8 + k, false});
    std::vector<CostValue> costs;
    for (uint64_t k = 0; k < i % 3; ++k)
        costs.push_back({static_cast<uint32_t>(k), static_cast<int64_t>(i)});
    pipe.add(0, frames, costs, static_cast<double>(i), 0, i);
}

/// What a consumer saw of a sample: its number and whether its frames and costs were its own.
bool isSample(const SampleBatch::Sample& s, uint64_t i) {
    bool own = s.stackHash == i && s.leafToRoot.size() == i % 4 + 1 && s.costs.size() == i % 3;
    for (std::size_t k = 0; own && k < s.leafToRoot.size(); ++k)
        own = s.leafToRoot[k].address == i * 8 + k;
    for (std::size_t k = 0; own && k < s.costs.size(); ++k)
        own = s.costs[k].costType == k && s.costs[k].value == static_cast<int64_t>(i);
    return own;
}

} // namespace

class TestSamplePipeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySampleOnceInOrder() {
        std::vector<uint64_t> seen; // (the consumer's only)
        bool intact = true;
        SamplePipeline pipe([&](const SampleBatch& batch) {
            batch.forEach([&](const SampleBatch::Sample& s) {
                const std::span<const RawFrame> frames = s.leafToRoot;
                const uint64_t i = frames.size() == 2 ? frames[0].address : UINT64_MAX;
                intact = intact && s.thread == i % 5 && frames[1].address == i * 3 &&
                         frames[0].returnAddress && s.costs.size() == 1 &&
                         s.costs[0].value == static_cast<int64_t>(i) &&
                         s.timeSeconds == static_cast<double>(i) && s.cpu == static_cast<int32_t>(i % 2) &&
                         s.stackHash == i * 11;
                seen.push_back(i);
            });
        });
        // many batches and a partial one; drained twice (as a snapshot and the final build do)
        const uint64_t first = SamplePipeline::kBatchSamples * (SamplePipeline::kMaxQueued + 3) + 17;
        for (uint64_t i = 0; i < first; ++i)
            addNumbered(pipe, i);
        pipe.drain();
        QCOMPARE(seen.size(), std::size_t(first));
        for (uint64_t i = first; i < first + 5000; ++i)
            addNumbered(pipe, i);
        pipe.drain();
        QVERIFY(intact);
        QCOMPARE(seen.size(), std::size_t(first + 5000));
        for (std::size_t i = 0; i < seen.size(); ++i)
            QCOMPARE(seen[i], uint64_t(i));
    }

    void runsOfABatchAreItsSamplesInOrder() {
        // forEachRun(n), as the merging goes through a batch a run at a time: for runs of one sample, of a
        // few, of the merging's length, of a whole batch and longer, every sample once, in order, with its
        // own frames and costs (of different counts, so that a run's start in them is computed)
        const std::size_t lengths[] = {1, 7, 256, SamplePipeline::kBatchSamples,
                                       SamplePipeline::kBatchSamples + 1};
        std::vector<std::vector<uint64_t>> seen(std::size(lengths));
        std::vector<std::size_t> runs(std::size(lengths));
        bool intact = true;
        SamplePipeline pipe([&](const SampleBatch& batch) {
            for (std::size_t l = 0; l < std::size(lengths); ++l)
                batch.forEachRun(lengths[l], [&](const SampleBatch::Run& run) {
                    std::size_t samples = 0;
                    run.forEach([&](const SampleBatch::Sample& s) {
                        intact = intact && isSample(s, s.stackHash);
                        seen[l].push_back(s.stackHash);
                        ++samples;
                    });
                    intact = intact && samples >= 1 && samples <= lengths[l];
                    ++runs[l];
                });
        });
        const uint64_t n = SamplePipeline::kBatchSamples * 3 + 300;
        for (uint64_t i = 0; i < n; ++i)
            addVaried(pipe, i);
        pipe.drain();
        QVERIFY(intact);
        for (std::size_t l = 0; l < std::size(lengths); ++l) {
            QCOMPARE(seen[l].size(), std::size_t(n));
            for (std::size_t i = 0; i < n; ++i)
                QCOMPARE(seen[l][i], uint64_t(i));
        }
        // four batches (three full, one of 300): so many runs of each length
        QCOMPARE(runs[0], std::size_t(n));
        QCOMPARE(runs[1], std::size_t(3 * ((SamplePipeline::kBatchSamples + 6) / 7) + (300 + 6) / 7));
        QCOMPARE(runs[3], std::size_t(4));
        QCOMPARE(runs[4], std::size_t(4));
    }

    void producerRunsAheadOfAHeldConsumer() {
        Gate gate;
        std::atomic<uint64_t> merged{0};
        SamplePipeline pipe([&](const SampleBatch& batch) {
            if (merged.load() == 0)
                gate.wait(); // the first batch holds the consumer up
            batch.forEach([&](const SampleBatch::Sample&) { ++merged; });
        });
        // the producer hands over the first batch, then kMaxQueued more, and fills one: then it must wait
        const uint64_t room = SamplePipeline::kBatchSamples * (SamplePipeline::kMaxQueued + 2);
        std::atomic<uint64_t> added{0};
        std::atomic<bool> done{false};
        std::thread producer([&] {
            for (uint64_t i = 0; i < room + 1000; ++i) {
                addNumbered(pipe, i);
                ++added;
            }
            pipe.drain();
            done = true;
        });
        struct Finally { // (also when a check below fails: the consumer let go, the producer joined)
            Gate& gate;
            std::thread& producer;
            ~Finally() {
                gate.release();
                producer.join();
            }
        } finally{gate, producer};
        QVERIFY(gate.waitEntered());
        // the sample that fills the next batch waits for room in the queue: the producer stops there
        QTRY_VERIFY_WITH_TIMEOUT(pipe.producerWaitingForRoom() || added.load() >= room, kPatienceMs);
        QVERIFY(pipe.producerWaitingForRoom());
        QCOMPARE(added.load(), room - 1);
        QCOMPARE(merged.load(), uint64_t(0));
        gate.release();
        QTRY_VERIFY_WITH_TIMEOUT(done.load(), kPatienceMs);
        QCOMPARE(merged.load(), room + 1000);
    }

    void anErrorInMergingReachesTheProducer() {
        std::atomic<int> batches{0};
        SamplePipeline pipe([&](const SampleBatch&) {
            if (++batches == 2)
                throw std::runtime_error("merge failed");
        });
        bool thrown = false;
        try {
            for (uint64_t i = 0; i < SamplePipeline::kBatchSamples * 3; ++i)
                addNumbered(pipe, i);
            pipe.drain();
        } catch (const std::runtime_error& e) {
            thrown = std::string(e.what()) == "merge failed";
        }
        QVERIFY(thrown);
    }
};

QTEST_GUILESS_MAIN(TestSamplePipeline)
#include "tst_samplepipeline.moc"
