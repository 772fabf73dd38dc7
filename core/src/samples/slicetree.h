// Internal: the call tree of a time slice, made from the (leaf, thread) keys of its samples (sliceSamples).
#pragma once

#include "scorch/calltree.h"
#include "scorch/cancel.h"
#include "scorch/profile.h"
#include "scorch/samples.h"

#include <atomic>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace scorch::detail {

/// A sample of a slice: key = leaf node << threadBits | thread.
struct SliceItem {
    uint64_t key;
    uint32_t sample;
};
/// The same in one word, key << sampleBits | sample, where the bits fit (most slices: a 1.5 M-sample,
/// 6 M-node recording needs 50): half the bytes to collect, sort and read.
using PackedSliceItem = uint64_t;

inline uint64_t itemKey(const SliceItem& x, int) {
    return x.key;
}
inline uint32_t itemSample(const SliceItem& x, int) {
    return x.sample;
}
inline uint64_t itemKey(PackedSliceItem x, int sampleBits) {
    return x >> sampleBits;
}
inline uint32_t itemSample(PackedSliceItem x, int sampleBits) {
    return static_cast<uint32_t>(x & ((uint64_t{1} << sampleBits) - 1));
}

/// Per frame of a profile: the self and total costs of its nodes in a tree (a total counted in the nodes
/// without an ancestor of the same frame), how many there are and the first (where there are any).
struct FrameSums {
    std::vector<std::vector<int64_t>> self, total; ///< [cost type][frame]
    std::vector<uint32_t> callSites;
    std::vector<NodeId> firstNode;
};

struct SliceTree {
    CallTree::Shape shape;
    std::vector<NodeId> source;              ///< per slice node: the profile's node
    std::vector<std::vector<int64_t>> self;  ///< [cost type][slice node]
    std::vector<std::vector<int64_t>> total; ///< [cost type][slice node]
    ThreadCosts entries;                     ///< per (thread, leaf): its costs, by slice node and thread
    FrameSums functions;                     ///< with SliceTreeRequest::functions
};

/// The arrays of a slice: its tree's, and those it works in. Kept by SliceMemory between slices; the tree's
/// arrays may hold an old slice's values (buildSliceTree() writes every element it keeps).
struct SliceBuffers {
    SliceTree tree;
    std::vector<PackedSliceItem> packed, packedSorting; ///< the items, and a buffer to sort them
    std::vector<SliceItem> wide, wideSorting;
    std::vector<uint8_t> outer;   ///< per slice node: 1 when no ancestor has its frame (functions)
    std::vector<uint64_t> bits;   ///< the nodes marked, a bit a node
    std::vector<uint32_t> before; ///< per 64 nodes: the marked nodes before them
    template <typename Item>
    std::vector<Item>& items() {
        if constexpr (std::is_same_v<Item, SliceItem>)
            return wide;
        else
            return packed;
    }
    template <typename Item>
    std::vector<Item>& sorting() {
        if constexpr (std::is_same_v<Item, SliceItem>)
            return wideSorting;
        else
            return packedSorting;
    }
};

template <typename Item>
struct SliceTreeRequest {
    const CallTree& tree; ///< the profile's
    const SampleStore& store;
    std::size_t types = 0; ///< cost types of the tree
    /// the items (items<Item>(), in any order: sorted by key here), the arrays to work in, and the tree made
    SliceBuffers& buffers;
    int threadBits = 1;
    int keyBits = 64;   ///< the bits of the keys in use
    int sampleBits = 0; ///< PackedSliceItem: the bits of the sample index below the key
    /// cores to use; with `forced`, a second one even for a small slice (tests)
    unsigned cores = 1;
    bool forced = false;
    const std::atomic<bool>* cancel = nullptr;
    /// also the costs per function (SliceTree::functions), of the profile's `frames`
    bool functions = false;
    std::size_t frames = 0;
    /// another thread sums the slice's line and instruction costs meanwhile
    bool detailsAside = false;
    /// one of a series (SliceMemory): a new array gets room for a slice of everything (the tree's nodes,
    /// the store's samples), so that a larger slice later maps in only what it adds
    bool roomForAll = false;
};

/// The slice's nodes (the items' leaves and their ancestors) in the profile tree's preorder, with their
/// self and total costs and (thread, node) entries, in request.buffers.tree; false when cancelled. Sorts the
/// items by key. The tree's arrays may be an old slice's (SliceMemory): they are resized and written over.
template <typename Item>
bool buildSliceTree(const SliceTreeRequest<Item>& request);

} // namespace scorch::detail
