// RawProfileBuilder: raw address samples (perf.data, Scorch's own sampler) -> Profile, symbolized through a
// Symbolizer.
#pragma once

#include "scorch/builder.h"
#include "scorch/profile.h"
#include "scorch/symbolizer.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace scorch {

/// One unsymbolized frame of a raw sample.
struct RawFrame {
    constexpr RawFrame() = default;
    constexpr RawFrame(ModuleHandle m, uint64_t a, bool r)
        : address(a)
        , module(m)
        , returnAddress(r) {}
    // (16 bytes in this order, 24 with the module first: the reader copies every sample's frames, the
    // merging thread reads them)
    uint64_t address = 0; ///< as in Symbolizer::Request
    ModuleHandle module;
    bool returnAddress = false;
};
static_assert(sizeof(RawFrame) == 16);

struct RawProfileOptions {
    /// Unresolved addresses: false = one `[libfoo.so]` frame per module (consecutive ones merged), so that
    /// the flame graph does not split into one frame per address; true = `[libfoo.so+0x1a2b]` per address.
    bool unresolvedAddresses = false;
    /// A FrameKind::Process root frame named after the thread (as perf script's importer does).
    bool processRoot = true;
    /// New addresses are symbolized on a background thread while samples still arrive (in batches of a few
    /// thousand), so that a snapshot has little left to symbolize; from `symbolizeAheadAfter` seconds after
    /// the first address on (a small input is done before: its cores are better left to reading and to
    /// opening the modules).
    bool symbolizeAhead = true;
    double symbolizeAheadAfter = 0.04;
    /// A build expands its new stacks into frame references of 3 bytes while the profile has fewer distinct
    /// frames (with their source lines) than this, else of 4 bytes; values above 2^24 count as 2^24. (Tests
    /// set 0 to take the wider form.)
    uint32_t threeByteFramesBelow = uint32_t(1) << 24;
};

/// Raw address samples -> Profile: identical raw stacks are aggregated as they arrive (count and summed
/// costs); each unique address is symbolized once (through the Symbolizer, in parallel); the call tree is
/// kept across snapshots, so that a snapshot only expands new stacks and adds the cost that arrived since
/// the previous one. Inline frames become frames of kind FrameKind::Inlined, kernel ones Kernel, JIT ones
/// Jit; every frame's source line goes to Profile::lineCosts (Frame::line stays 0: one node per function,
/// Frame::file is the function's file). Unresolved addresses become `[libfoo.so]` (or, with
/// RawProfileOptions::unresolvedAddresses, `[libfoo.so+0x1a2b]`) frames of kind Unknown, or `[unknown]`
/// without a module. Modules without symbols or debug info become warnings with their share of samples,
/// e.g. "/usr/lib/libfoo.so: no debug info (12.3% of samples): file:line unknown", and where some of its
/// addresses have no function name, how many and the share of samples spent in them (their leaf frames):
/// "..., 3 of 9 addresses without a function name, 4.1% of the samples spent in them" (warningkind.h).
class RawProfileBuilder {
public:
    explicit RawProfileBuilder(Symbolizer& symbolizer, RawProfileOptions options = {});
    ~RawProfileBuilder();

    uint32_t costType(std::string_view name, CostUnit unit);
    uint32_t thread(std::string_view name, int64_t pid, int64_t tid);
    /// A frame that stands for no address but is named `name` (kind Unknown, no module), e.g. the
    /// `[preempted]` / `[blocked: S]` leaves of off-CPU time; the same name gives the same frame.
    RawFrame pseudoFrame(std::string_view name);
    /// `leafToRoot`: frames as unwinders deliver them, innermost first; `cpu` -1 when not recorded.
    void addSample(uint32_t thread, std::span<const RawFrame> leafToRoot, std::span<const CostValue> costs,
                   double timeSeconds = -1, int32_t cpu = -1);
    uint64_t samples() const;
    /// About how many samples will come in all (a reader's estimate from what it has read): the builder
    /// makes room for them once, instead of its arrays doubling into fresh memory as they grow.
    void expectSamples(uint64_t n);
    /// From now on, modules are opened and addresses symbolized only by snapshot() and finish(), not in the
    /// background while samples arrive: for readers that learn modules' build-ids after their samples.
    void deferSymbolization();
    /// From now on addSample() only queues the sample; another thread merges the queued samples into the
    /// aggregated stacks (in order), so that a reader parses the next samples meanwhile. Only for callers
    /// that call addSample(), samples(), snapshot() and finish() from one thread (they wait for the queue).
    void pipelineSamples();

    /// A profile of the samples so far (for live or progressive display); the builder keeps collecting.
    /// Only addresses not seen by an earlier snapshot are symbolized. addSample() may be called from another
    /// thread meanwhile (it waits only while the raw samples are copied). Throws ImportCancelled when
    /// `cancel` is set.
    Profile snapshot(ProfileMeta meta, const std::atomic<bool>* cancel = nullptr);
    /// The final profile: the builder hands its arrays over to it, so nothing may be called after this.
    Profile finish(ProfileMeta meta, const std::atomic<bool>* cancel = nullptr);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace scorch
