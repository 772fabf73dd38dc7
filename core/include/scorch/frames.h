// Frames: one interned record per distinct (function, module, file, line, kind).
#pragma once

#include "scorch/strings.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace scorch {

/// What a frame is. `Process` marks the synthetic root frame that names the process/thread a sample came
/// from (perf script's `comm`), as flamegraph.pl draws it.
enum class FrameKind : uint8_t { Native, Kernel, Jit, Inlined, Unknown, Process };

std::string_view frameKindName(FrameKind kind);

struct FrameId {
    uint32_t value = 0;
    friend bool operator==(FrameId, FrameId) = default;
};

struct Frame {
    StringId name;
    StringId module; ///< DSO path, empty when unknown
    StringId file;   ///< source file, empty when unknown
    uint32_t line = 0;
    FrameKind kind = FrameKind::Native;
    friend bool operator==(const Frame&, const Frame&) = default;
};

/// Interns frames: equal frames get one id. Id 0 is reserved (the tree's invisible root uses it).
class FrameTable {
public:
    FrameTable();
    FrameId intern(const Frame& frame);
    const Frame& operator[](FrameId id) const { return m_frames[id.value]; }
    std::size_t size() const { return m_frames.size(); }

private:
    std::vector<Frame> m_frames;
    std::vector<uint64_t> m_slots; // (hash high bits << 32) | id, 0 = empty
};

} // namespace scorch
