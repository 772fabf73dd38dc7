#include "scorch/frames.h"

#include "util/hash.h"

namespace scorch {

using detail::hashInt;
using detail::mix64;

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

FrameId FrameTable::intern(const Frame& frame) {
    const uint64_t h = hashFrame(frame);
    const detail::IndexProbe p =
        detail::probeIndex(m_slots, h, [&](uint32_t i) { return m_frames[i] == frame; });
    if (p.found())
        return {p.index};
    const auto id = static_cast<uint32_t>(m_frames.size());
    m_frames.push_back(frame);
    detail::insertIndex(m_slots, p, h, id, m_frames.size(),
                        [&](uint32_t i) { return hashFrame(m_frames[i]); });
    return {id};
}

} // namespace scorch
