// Scorch's own recording format: what the sampler records (raw instruction pointers per sample with
// thread and time, the module map and its changes, thread names), written to disk and read back, then
// symbolized through Symbolizer/RawProfileBuilder. The byte layout is documented in
// docs/recording-format.md.
#pragma once

#include "scorch/profile.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace scorch {

struct SymbolizerOptions;

class Symbolizer;
class RawProfileBuilder;

/// One executable mapping of the target, as seen at `timeNs` (a later mapping over the same range
/// replaces it from its own time on).
struct RecordedModule {
    uint64_t start = 0, end = 0; ///< virtual address range [start, end)
    uint64_t offset = 0;         ///< file offset of `start`
    uint64_t timeNs = 0;         ///< CLOCK_MONOTONIC when the mapping was seen
    std::string path;            ///< file path, or a pseudo name such as "[vdso]"
    std::string buildId;         ///< hex GNU build-id of the file; empty when unknown
};

struct RecordedThread {
    int64_t tid = 0;
    uint64_t timeNs = 0; ///< when the name was seen (threads can rename themselves)
    std::string name;
};

/// A sample of the recording's event. In an off-CPU recording (Recording::offCpu) each sample also has a
/// duration: on-CPU samples (state 0) the CPU time they stand for, off-CPU ones (state != 0) a stretch of
/// time the thread waited from timeNs on, with the stack it left the CPU with (count 0 when none could be
/// taken). state: 'R' preempted (runnable), a /proc task state letter ('S', 'D', ...) when known, '?'
/// blocked.
struct RecordedSample {
    int64_t tid = 0;
    uint64_t timeNs = 0; ///< CLOCK_MONOTONIC
    uint32_t first = 0;  ///< index of the leaf IP in Recording::ips
    uint32_t count = 0;  ///< frames: ips[first] is the interrupted IP, the rest are return addresses
    uint64_t durationNs = 0;
    char state = 0;
};

struct Recording {
    static constexpr uint32_t kVersion = 1;

    std::string mode;     ///< "perf" (cpu-clock, on-CPU) or "ptrace" (wall-clock, also blocked threads)
    double frequency = 0; ///< samples per second and thread
    int64_t pid = -1;     ///< the target process
    std::vector<std::string> command; ///< launched command line; empty when attached
    uint64_t startNs = 0, endNs = 0;  ///< CLOCK_MONOTONIC
    uint64_t lost = 0;                ///< samples the kernel or the sampler dropped
    int exitCode = -1;                ///< target exit code when it exited while recorded; -1 = unknown
    std::vector<RecordedModule> modules;
    std::vector<RecordedThread> threads;
    std::vector<RecordedSample> samples;
    std::vector<uint64_t> ips;
    std::vector<std::string> notes; ///< problems met while recording (become profile warnings)
    /// Off-CPU time recorded (`scorch record --off-cpu`): every sample has a duration, and the profile gets
    /// `off-cpu` and `wall` cost types in ns beside the sample counts. periodNs: the nominal sampling period.
    bool offCpu = false;
    uint64_t periodNs = 0;

    void addSample(int64_t tid, uint64_t timeNs, const uint64_t* leafFirst, std::size_t n);
    /// A sample with a duration (off-CPU recordings): on-CPU when state is 0, else off-CPU from timeNs on
    /// (n may be 0 then: no stack).
    void addTimed(int64_t tid, uint64_t timeNs, uint64_t durationNs, char state, const uint64_t* leafFirst,
                  std::size_t n);
    /// Sample i appended to `to` with its kind (on- or off-CPU) and frames.
    void copySample(std::size_t i, Recording& to) const;
    /// Name of thread `tid` (the last one recorded), empty when unknown.
    std::string threadName(int64_t tid) const;
};

/// The magic bytes at the start of a recording file.
inline constexpr std::string_view kRecordingMagic = "SCORCHRC";

/// Writes atomically (unnamed temporary file beside it, fsync, rename; see AtomicFile). Throws
/// std::runtime_error naming the path and the reason: "out.rec: cannot write (No space left on device)".
void writeRecording(const Recording& recording, const std::string& path);
/// Throws std::runtime_error naming `path` and the reason when a recording could not be written there (its
/// directory is missing or not writable, it is a directory): checked before recording, so that the samples
/// are not lost at the end. Leaves nothing behind.
void checkRecordingTarget(const std::string& path);
std::string serializeRecording(const Recording& recording);
/// Parses a recording; throws ImportError naming `name` and the byte offset of the problem.
Recording parseRecording(std::string_view bytes, const std::string& name);

/// Feeds samples [fromSample, end) of a recording into a RawProfileBuilder; keeps the module lookup and the
/// builder's thread indexes between calls so that a live recording can be fed piece by piece.
class RecordingFeeder {
public:
    RecordingFeeder(Symbolizer& symbolizer, RawProfileBuilder& builder);
    ~RecordingFeeder();
    RecordingFeeder(const RecordingFeeder&) = delete;
    RecordingFeeder& operator=(const RecordingFeeder&) = delete;
    /// Adds every sample of `recording`, whose modules and threads are complete so far (a live snapshot
    /// may carry only the samples that are new since the last call).
    void feed(const Recording& recording, const std::atomic<bool>* cancel = nullptr);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// Symbolizes a whole recording into a profile (build-ids verified by the symbolizer); `symbolize` false
/// leaves the addresses unresolved (ImportOptions::symbolize).
Profile profileFromRecording(const Recording& recording, const std::string& name,
                             const std::atomic<bool>* cancel = nullptr, bool symbolize = true);
/// The same with the symbolizer's options (search paths, debug directories, ...).
Profile profileFromRecording(const Recording& recording, const std::string& name,
                             const std::atomic<bool>* cancel, const SymbolizerOptions& symbols);

} // namespace scorch
