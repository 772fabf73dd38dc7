// Internal: perf.data layout constants and a bounds-checked little-endian cursor.
#pragma once

#include "scorch/import.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace scorch::detail::perf {

// perf_file_header / perf_pipe_file_header
constexpr std::size_t kFileHeaderSize = 104;
constexpr std::size_t kPipeHeaderSize = 16;

// Record types (linux/perf_event.h and tools/perf/util/event.h).
enum : uint32_t {
    RecordMmap = 1,
    RecordLost = 2,
    RecordComm = 3,
    RecordExit = 4,
    RecordFork = 7,
    RecordSample = 9,
    RecordMmap2 = 10,
    RecordLostSamples = 13,
    RecordSwitch = 14,
    RecordSwitchCpuWide = 15,
    RecordHeaderAttr = 64,
    RecordHeaderEventType = 65,
    RecordHeaderTracingData = 66,
    RecordHeaderBuildId = 67,
    RecordFinishedRound = 68,
    RecordAuxtrace = 71,
    RecordHeaderFeature = 80,
    RecordCompressed = 81,
    RecordCompressed2 = 83,
};

// sample_type bits
enum : uint64_t {
    SampleIp = 1u << 0,
    SampleTid = 1u << 1,
    SampleTime = 1u << 2,
    SampleAddr = 1u << 3,
    SampleRead = 1u << 4,
    SampleCallchain = 1u << 5,
    SampleId = 1u << 6,
    SampleCpu = 1u << 7,
    SamplePeriod = 1u << 8,
    SampleStreamId = 1u << 9,
    SampleRaw = 1u << 10,
    SampleBranchStack = 1u << 11,
    SampleRegsUser = 1u << 12,
    SampleStackUser = 1u << 13,
    SampleIdentifier = 1u << 16,
};

// read_format bits
enum : uint64_t {
    ReadTotalTimeEnabled = 1u << 0,
    ReadTotalTimeRunning = 1u << 1,
    ReadId = 1u << 2,
    ReadGroup = 1u << 3,
    ReadLost = 1u << 4,
};

constexpr uint64_t kBranchHwIndex = 1u << 17; // branch_sample_type PERF_SAMPLE_BRANCH_HW_INDEX
constexpr uint64_t kAttrFreq = 1u << 10;      ///< sample_freq, not sample_period
constexpr uint64_t kAttrSampleIdAll = 1u << 18;
constexpr uint64_t kAttrContextSwitch = 1u
                                        << 26; ///< PERF_RECORD_SWITCH records (perf record --switch-events)
constexpr uint32_t kTypeSoftware = 1, kTypeTracepoint = 2;
constexpr uint64_t kSoftwareContextSwitches = 3, kSoftwareDummy = 9;
constexpr uint16_t kMiscCpuModeMask = 7;
constexpr uint16_t kMiscKernel = 1;
constexpr uint16_t kMiscGuestKernel = 4;
constexpr uint16_t kMiscCommExec = 1u << 13;
constexpr uint16_t kMiscSwitchOut = 1u << 13;        ///< PERF_RECORD_SWITCH: out (else in)
constexpr uint16_t kMiscSwitchOutPreempt = 1u << 14; ///< out while runnable (kernel 4.17+)
constexpr uint16_t kMiscMmapBuildId = 1u << 14;
constexpr uint16_t kMiscBuildIdSize = 1u << 15;

// Callchain context markers.
constexpr uint64_t kContextHv = static_cast<uint64_t>(-32);
constexpr uint64_t kContextKernel = static_cast<uint64_t>(-128);
constexpr uint64_t kContextUser = static_cast<uint64_t>(-512);
constexpr uint64_t kContextGuestKernel = static_cast<uint64_t>(-2176);
constexpr uint64_t kContextMax = static_cast<uint64_t>(-4095);

// Feature bits (tools/perf/util/header.h).
enum : unsigned {
    FeatTracingData = 1,
    FeatBuildId = 2,
    FeatHostname = 3,
    FeatOsRelease = 4,
    FeatVersion = 5,
    FeatArch = 6,
    FeatNrCpus = 7,
    FeatCpuDesc = 8,
    FeatCmdline = 11,
    FeatEventDesc = 12,
};

/// Bounds-checked reader over a byte range; every overrun throws ImportError naming the file offset.
class Cursor {
public:
    Cursor(std::string_view bytes, uint64_t fileOffset, const std::string* name)
        : m_p(bytes.data())
        , m_begin(bytes.data())
        , m_end(bytes.data() + bytes.size())
        , m_base(fileOffset)
        , m_name(name) {}

    std::size_t left() const { return static_cast<std::size_t>(m_end - m_p); }
    uint64_t offset() const { return m_base + static_cast<uint64_t>(m_p - m_begin); }
    /// The file's name, for messages.
    const std::string* name() const { return m_name; }
    template <typename T>
    T get() {
        need(sizeof(T));
        T v;
        std::memcpy(&v, m_p, sizeof(T));
        m_p += sizeof(T);
        return v;
    }
    uint64_t u64() { return get<uint64_t>(); }
    uint32_t u32() { return get<uint32_t>(); }
    void skip(uint64_t n) {
        need(n);
        m_p += n;
    }
    std::string_view bytes(uint64_t n) {
        need(n);
        std::string_view s(m_p, static_cast<std::size_t>(n));
        m_p += n;
        return s;
    }
    /// perf's header string: u32 length, then that many bytes NUL-padded.
    std::string string() {
        const uint32_t n = u32();
        std::string_view s = bytes(n);
        return std::string(s.substr(0, s.find('\0')));
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw ImportError(*m_name + ": " + what + " at byte offset " + std::to_string(offset()));
    }

private:
    void need(uint64_t n) const {
        if (n > left())
            fail("record or section ends early (" + std::to_string(n) + " bytes needed, " +
                 std::to_string(left()) + " left)");
    }
    const char* m_p;
    const char* m_begin;
    const char* m_end;
    uint64_t m_base;
    const std::string* m_name;
};

} // namespace scorch::detail::perf
