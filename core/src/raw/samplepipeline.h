// Internal: a single-producer queue of raw samples in batches, merged in order by a consumer thread.
// RawProfileBuilder::pipelineSamples() uses it so that a reader parses the next samples while the previous
// ones are merged into the aggregated stacks.
#pragma once

#include "scorch/costs.h"
#include "scorch/rawprofile.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace scorch::detail {

/// One batch of samples as the producer added them, which the consumer goes through (in order) as often as
/// it likes: forEach() is inlined into its loops, instead of a std::function called per sample.
class SampleBatch {
public:
    /// One sample as RawProfileBuilder::addSample() takes it, and the hash of its stack that the producer
    /// computed (the consumer merging the samples is the busier thread).
    struct Sample {
        uint32_t thread;
        std::span<const RawFrame> leafToRoot;
        std::span<const CostValue> costs;
        double timeSeconds;
        int32_t cpu;
        uint64_t stackHash;
    };
    std::size_t size() const { return m_samples.size(); }
    bool empty() const { return m_samples.empty(); }

private:
    struct Entry {
        uint32_t thread, frames, costs;
        int32_t cpu;
        double time;
        uint64_t hash;
    };

public:
    /// Consecutive samples of a batch, gone through like the batch.
    class Run {
    public:
        /// Calls f(const Sample&) for each sample, in the order added.
        template <typename F>
        void forEach(F&& f) const {
            const RawFrame* frame = m_frames;
            const CostValue* cost = m_costs;
            for (const Entry& e : m_entries) {
                f(Sample{e.thread, std::span<const RawFrame>(frame, e.frames),
                         std::span<const CostValue>(cost, e.costs), e.time, e.cpu, e.hash});
                frame += e.frames;
                cost += e.costs;
            }
        }

    private:
        friend class SampleBatch;
        std::span<const Entry> m_entries;
        const RawFrame* m_frames = nullptr;
        const CostValue* m_costs = nullptr;
    };
    /// Calls f(const Sample&) for each sample, in the order added.
    template <typename F>
    void forEach(F&& f) const {
        Run all;
        all.m_entries = m_samples;
        all.m_frames = m_frames.data();
        all.m_costs = m_costs.data();
        all.forEach(f);
    }
    /// Calls g(const Run&) for runs of `n` samples (the last may be shorter; n = 0 counts as 1), in order.
    template <typename G>
    void forEachRun(std::size_t n, G&& g) const {
        n = std::max<std::size_t>(n, 1);
        const RawFrame* frame = m_frames.data();
        const CostValue* cost = m_costs.data();
        for (std::size_t from = 0; from < m_samples.size(); from += n) {
            Run run;
            run.m_entries =
                std::span<const Entry>(m_samples).subspan(from, std::min(n, m_samples.size() - from));
            run.m_frames = frame;
            run.m_costs = cost;
            for (const Entry& e : run.m_entries) {
                frame += e.frames;
                cost += e.costs;
            }
            g(run);
        }
    }

private:
    friend class SamplePipeline;
    void clear() {
        m_samples.clear();
        m_frames.clear();
        m_costs.clear();
    }
    std::vector<Entry> m_samples;
    std::vector<RawFrame> m_frames;
    std::vector<CostValue> m_costs;
};

class SamplePipeline {
public:
    /// Samples per batch handed over.
    static constexpr std::size_t kBatchSamples = 2048;
    /// Batches handed over and not yet merged, at most: the producer runs ahead while the consumer merges a
    /// burst of new stacks (with one, the reader of fp-medium.data waited 12-38 ms for the merging thread in
    /// 20-40 of its 100 hand-overs, although that thread has less to do in all than the reader).
    static constexpr std::size_t kMaxQueued = 6;
    /// Called on the consumer thread once per batch (so that it can take its lock once per batch).
    using MergeBatch = std::function<void(const SampleBatch& batch)>;

    explicit SamplePipeline(MergeBatch mergeBatch);
    ~SamplePipeline(); ///< stops the consumer; samples not merged yet are dropped
    SamplePipeline(const SamplePipeline&) = delete;
    SamplePipeline& operator=(const SamplePipeline&) = delete;

    /// Producer thread only.
    void add(uint32_t thread, std::span<const RawFrame> leafToRoot, std::span<const CostValue> costs,
             double timeSeconds, int32_t cpu, uint64_t stackHash);
    /// Hands the filling batch to the consumer and waits until every sample added so far is merged
    /// (producer thread only); the buffers of merged batches are given back then. Rethrows what merging
    /// threw.
    void drain();
    /// The producer is waiting for room in the queue (kMaxQueued batches handed over that the consumer has
    /// not taken yet; false again as soon as it takes one): for tests, which wait for this instead of for a
    /// time.
    bool producerWaitingForRoom() const { return m_waitingForRoom.load(); }

private:
    using Batch = SampleBatch;
    /// Queues the filling batch (waiting while kMaxQueued are queued); `wait`: until everything is merged.
    void handOver(bool wait);
    void rethrow(); ///< with m_mutex held
    void consume();

    MergeBatch m_mergeBatch;
    std::mutex m_mutex; ///< guards m_queue, m_spare, m_merging, m_stop, m_error
    std::condition_variable m_wake;
    Batch m_filling;            ///< the producer's (no lock: one producer thread)
    std::deque<Batch> m_queue;  ///< handed to the consumer, in order
    std::vector<Batch> m_spare; ///< merged batches, emptied, their buffers kept for the producer
    bool m_merging = false;     ///< the consumer holds a batch
    std::atomic<bool> m_waitingForRoom{false};
    bool m_stop = false;
    std::exception_ptr m_error;
    std::thread m_consumer;
};

} // namespace scorch::detail
