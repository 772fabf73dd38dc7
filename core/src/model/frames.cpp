#include "scorch/frames.h"

#include "util/hash.h"

namespace scorch {

using detail::hashInt;
using detail::makeSlot;
using detail::mix64;
using detail::slotTagMatches;
using detail::slotValue;

std::string_view frameKindName(FrameKind kind) {
    switch (kind) {
    case FrameKind::Native:
        return "native";
    case FrameKind::Kernel:
        return "kernel";
    case FrameKind::Jit:
        return "JIT";
    case FrameKind::Inlined:
        return "inlined";
    case FrameKind::Unknown:
        return "unknown";
    case FrameKind::Process:
        return "process";
    }
    return "unknown";
}

static uint64_t hashFrame(const Frame& f) {
    const uint64_t a = (static_cast<uint64_t>(f.name.value) << 32) | f.module.value;
    const uint64_t b = (static_cast<uint64_t>(f.file.value) << 32) | f.line;
    return mix64(hashInt(a), b ^ (static_cast<uint64_t>(f.kind) << 56) ^ 0x8ebc6af09c88c6e3ull);
}

FrameTable::FrameTable()
    : m_frames(1)
    , m_slots(1024, 0) {}

void FrameTable::grow() {
    std::vector<uint64_t> slots(m_slots.size() * 2, 0);
    const std::size_t mask = slots.size() - 1;
    for (uint64_t slot : m_slots) {
        if (!slot)
            continue;
        std::size_t i = hashFrame(m_frames[slotValue(slot)]) & mask;
        while (slots[i])
            i = (i + 1) & mask;
        slots[i] = slot;
    }
    m_slots.swap(slots);
}

FrameId FrameTable::intern(const Frame& frame) {
    const uint64_t h = hashFrame(frame);
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = h & mask;
    for (;; i = (i + 1) & mask) {
        const uint64_t slot = m_slots[i];
        if (!slot)
            break;
        if (slotTagMatches(slot, h) && m_frames[slotValue(slot)] == frame)
            return {slotValue(slot)};
    }
    const auto id = static_cast<uint32_t>(m_frames.size());
    m_frames.push_back(frame);
    m_slots[i] = makeSlot(h, id);
    if (m_frames.size() * 2 > m_slots.size())
        grow();
    return {id};
}

} // namespace scorch
