// Remote unwinding with libunwind for the sampler: of a thread stopped by ptrace (registers read with
// ptrace, memory with process_vm_readv), or of a perf sample (registers and a copy of the user stack).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <sys/types.h>
#include <vector>

namespace scorch::detail {

/// perf_event sample_regs_user mask for x86-64: AX..IP (bits 0-8) and R8..R15 (bits 16-23).
inline constexpr uint64_t kPerfRegsMask = 0x1ffull | (0xffull << 16);
inline constexpr std::size_t kPerfRegCount = 17;

class RemoteUnwinder {
public:
    explicit RemoteUnwinder(pid_t pid, unsigned maxDepth);
    ~RemoteUnwinder();
    RemoteUnwinder(const RemoteUnwinder&) = delete;
    RemoteUnwinder& operator=(const RemoteUnwinder&) = delete;

    /// A thread in a ptrace-stop. Returns the number of IPs written (leaf first).
    std::size_t unwindTraced(pid_t tid, uint64_t* out);
    /// A perf sample: registers in sample_regs_user order (kPerfRegsMask) and the copied stack from SP on.
    std::size_t unwindCopy(const uint64_t* regs, const uint8_t* stack, std::size_t stackBytes, uint64_t* out);
    /// The target's mappings changed: re-read them and drop cached unwind info.
    void invalidate();
    /// A thread exited: drop its ptrace handle.
    void forget(pid_t tid);

    struct Impl;

private:
    std::unique_ptr<Impl> d;
};

} // namespace scorch::detail
