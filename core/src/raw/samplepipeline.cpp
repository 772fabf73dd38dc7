#include "raw/samplepipeline.h"

#include <utility>

namespace scorch::detail {

SamplePipeline::SamplePipeline(MergeBatch mergeBatch)
    : m_mergeBatch(std::move(mergeBatch)) {
    m_consumer = std::thread([this] { consume(); });
}

SamplePipeline::~SamplePipeline() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_consumer.join();
}

void SamplePipeline::add(uint32_t thread, std::span<const RawFrame> leafToRoot,
                         std::span<const CostValue> costs, double timeSeconds, int32_t cpu,
                         uint64_t stackHash) {
    m_filling.m_samples.push_back({thread, static_cast<uint32_t>(leafToRoot.size()),
                                   static_cast<uint32_t>(costs.size()), cpu, timeSeconds, stackHash});
    m_filling.m_frames.insert(m_filling.m_frames.end(), leafToRoot.begin(), leafToRoot.end());
    m_filling.m_costs.insert(m_filling.m_costs.end(), costs.begin(), costs.end());
    if (m_filling.size() >= kBatchSamples)
        handOver(false);
}

void SamplePipeline::drain() {
    handOver(true);
}

void SamplePipeline::rethrow() {
    if (m_error)
        std::rethrow_exception(std::exchange(m_error, nullptr));
}

void SamplePipeline::handOver(bool wait) {
    std::unique_lock lock(m_mutex);
    m_waitingForRoom = m_queue.size() >= kMaxQueued && !m_error;
    m_wake.wait(lock, [&] { return m_queue.size() < kMaxQueued || m_error; });
    m_waitingForRoom = false;
    rethrow();
    if (!m_filling.empty()) {
        m_queue.push_back(std::move(m_filling));
        m_filling = Batch();
        if (!m_spare.empty()) { // (a merged batch's buffers, already grown to a batch's size)
            m_filling = std::move(m_spare.back());
            m_spare.pop_back();
        }
        m_wake.notify_all();
    }
    if (wait) { // and until it is merged
        m_wake.wait(lock, [&] { return (m_queue.empty() && !m_merging) || m_error; });
        rethrow();
        std::vector<Batch>().swap(m_spare); // (the memory goes back before a profile is built)
    }
}

void SamplePipeline::consume() {
    Batch work;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_stop)
                return; // (what is queued is dropped)
            work = std::move(m_queue.front());
            m_queue.pop_front();
            m_merging = true;
            m_waitingForRoom = false; // (there is room now)
        }
        m_wake.notify_all(); // a producer waiting for room goes on now, not after this batch is merged
        bool failed = false;
        try {
            m_mergeBatch(work);
        } catch (...) {
            std::lock_guard lock(m_mutex);
            m_error = std::current_exception();
            failed = true;
        }
        work.clear();
        {
            std::lock_guard lock(m_mutex);
            m_merging = false;
            if (failed)
                m_queue.clear(); // (the producer hears of the error at its next hand-over)
            m_spare.push_back(std::move(work));
            work = Batch();
        }
        m_wake.notify_all();
    }
}

} // namespace scorch::detail
