// Synthetic call trees for the benchmarks: deterministic across runs and platforms, shaped like real
// profiles (a few heavy callees per frame, a long tail of rare ones, stacks up to depth 60).
#pragma once

#include "scorch/builder.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace scorch::bench {

struct Rng { // xorshift64*: deterministic across runs and platforms
    uint64_t s = 0x9E3779B97F4A7C15ull;
    uint64_t next() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 2685821657736338717ull;
    }
    double uniform() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }
};

inline uint64_t mixBits(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/// Random-ish but deterministic stacks up to depth 60: every frame has a few heavy callees and a long tail
/// of rare ones, so the tree has wide frames near the root and very many tiny ones further up. `variant` 1
/// perturbs it (for a diff): one stack in ten takes another path from level 3 on, and one cost in three is
/// scaled by 0.5-1.5.
inline Profile syntheticProfile(std::size_t targetNodes, int variant = 0) {
    TreeBuilder b;
    const uint32_t ct = b.costType("cycles", CostUnit::Period);
    const uint32_t thread = b.thread("bench", 1, 1);
    constexpr uint32_t kFunctions = 20000;
    std::vector<FrameId> functions;
    functions.reserve(kFunctions);
    const char* modules[] = {"/usr/bin/bench", "/usr/lib/libc.so.6", "/usr/lib/libstdc++.so.6",
                             "[kernel.kallsyms]"};
    for (uint32_t i = 0; i < kFunctions; ++i) {
        const std::string name = "ns" + std::to_string(i % 37) + "::Component" + std::to_string(i % 211) +
                                 "::method_" + std::to_string(i) +
                                 (i % 3 ? "(int, std::string const&)" : "()");
        functions.push_back(
            b.frame(name, modules[i % 4], i % 4 == 3 ? FrameKind::Kernel : FrameKind::Native));
    }
    Rng rng, perturb;
    perturb.s ^= 0x1234567ull;
    std::vector<FrameId> stack;
    while (b.nodeCount() < targetNodes) {
        const int depth = 4 + static_cast<int>(rng.next() % 57);
        const bool moved = variant == 1 && perturb.next() % 10 == 0;
        stack.clear();
        uint64_t prev = rng.next() % 3;
        for (int level = 0; level < depth; ++level) {
            const double mean = rng.next() % 10 == 0 ? 60.0 : 0.8;
            const auto k = static_cast<uint64_t>(-std::log(1.0 - rng.uniform()) * mean);
            prev = mixBits(prev * 131 + k + static_cast<uint64_t>(level) * 7919 +
                           (moved && level >= 3 ? 17 : 0));
            stack.push_back(functions[prev % kFunctions]);
        }
        int64_t cost = static_cast<int64_t>(1 + rng.next() % 1000) * 1000;
        if (variant == 1 && perturb.next() % 3 == 0)
            cost = static_cast<int64_t>(static_cast<double>(cost) * (0.5 + perturb.uniform()));
        const CostValue value{ct, std::max<int64_t>(cost, 1)};
        b.addSample(thread, stack, std::span(&value, 1));
    }
    return b.finish({});
}

} // namespace scorch::bench
