// Cancelling long work: a flag that a newer request (or the user) sets, looked at by the worker now and then.
#pragma once

#include <atomic>
#include <cstdint>

namespace scorch {

/// True when the flag (if any: nullptr is never set) asks to stop.
inline bool cancelRequested(const std::atomic<bool>* cancel) {
    return cancel && cancel->load(std::memory_order_relaxed);
}

/// cancelRequested(), looked at on the first call and every `Every`-th after it: for tight loops.
template <uint32_t Every>
class CancelPoll {
public:
    explicit CancelPoll(const std::atomic<bool>* cancel)
        : m_cancel(cancel) {}
    bool operator()() { return m_cancel && m_count++ % Every == 0 && cancelRequested(m_cancel); }

private:
    const std::atomic<bool>* m_cancel;
    uint32_t m_count = 0;
};

} // namespace scorch
