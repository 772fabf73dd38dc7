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
    m_filling.samples.push_back({thread, static_cast<uint32_t>(leafToRoot.size()),
                                 static_cast<uint32_t>(costs.size()), cpu, timeSeconds, stackHash});
    m_filling.frames.insert(m_filling.frames.end(), leafToRoot.begin(), leafToRoot.end());
    m_filling.costs.insert(m_filling.costs.end(), costs.begin(), costs.end());
    if (m_filling.samples.size() >= kBatchSamples)
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
    // one batch in the consumer's hands at a time: wait for the previous one
    m_wake.wait(lock, [&] { return !m_queued; });
    rethrow();
    if (!m_filling.samples.empty()) {
        std::swap(m_filling, m_next);
        m_queued = true;
        m_wake.notify_all();
    }
    if (wait) { // and until it is merged
        m_wake.wait(lock, [&] { return !m_queued; });
        rethrow();
    }
}

void SamplePipeline::consume() {
    Batch work;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_queued; });
            if (!m_queued)
                return; // stopped with nothing left
            std::swap(work, m_next);
        }
        try {
            m_mergeBatch([&](const Merge& merge) {
                std::size_t frame = 0, cost = 0;
                for (const Batch::Sample& s : work.samples) {
                    merge(s.thread, std::span<const RawFrame>(work.frames.data() + frame, s.frames),
                          std::span<const CostValue>(work.costs.data() + cost, s.costs), s.time, s.cpu,
                          s.hash);
                    frame += s.frames;
                    cost += s.costs;
                }
            });
        } catch (...) {
            std::lock_guard lock(m_mutex);
            m_error = std::current_exception();
        }
        work.samples.clear();
        work.frames.clear();
        work.costs.clear();
        {
            std::lock_guard lock(m_mutex);
            m_queued = false;
        }
        m_wake.notify_all();
    }
}

} // namespace scorch::detail
