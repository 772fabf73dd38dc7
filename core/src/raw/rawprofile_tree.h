// The call tree of a RawProfileBuilder, kept across snapshots: every unique stack is expanded into frames
// once, and a later snapshot only adds the cost that arrived since the previous one. Not thread-safe.
#pragma once

#include "scorch/profile.h"

#include "raw/stacksort.h"
#include "util/hash.h"

#include <functional>
#include <span>
#include <vector>

namespace scorch::detail {

class IncrementalTree {
public:
    IncrementalTree();

    StringTable& strings() { return m_strings; }
    FrameId frame(const Frame& f) { return m_frames.intern(f); }

    /// The cost types and threads so far (they only grow; thread samples are counted here).
    void setCostTypes(const std::vector<CostType>& types);
    void setThreads(const std::vector<ThreadInfo>& threads);

    /// One stack for addStacks(): references [first, first + size) of the batch, root -> leaf.
    struct StackInput {
        uint32_t thread, first, size;
    };
    /// Expands a batch of stacks. A stack is a run of `refs`, root -> leaf; a reference r stands for frame
    /// refFrame[r] at source line refLine[r] (line 0 = unknown). The stacks get the ids nextStack() ..
    /// nextStack() + stacks.size() - 1 for addCost(), in the given order. The batch is inserted in
    /// lexicographic order of the frames, so that a stack reuses the nodes of the prefix it shares with the
    /// previous one and only looks up the children of nodes from earlier batches. `last`: no batch follows
    /// (std::logic_error if one does), so the new nodes are not linked into their parents' lists of children,
    /// which only later batches would look up (8 bytes a node less memory written). `refsRead` (if given) is
    /// called once `refs` is read no more, for its owner to free it before the rest is made. R: uint32_t, or
    /// Ref24 for batches of fewer than Ref24::kLimit references.
    template <typename R>
    void addStacks(std::span<const StackInput> stacks, std::span<const R> refs,
                   std::span<const FrameId> refFrame, std::span<const SourceLine> refLine, bool last = false,
                   const std::function<void()>& refsRead = {});
    uint32_t nextStack() const { return static_cast<uint32_t>(m_stacks.size()); }
    /// Adds `samples` samples of a stack costing `costs[type]`.
    void addCost(uint32_t stack, uint64_t samples, std::span<const int64_t> costs);

    std::size_t nodeCount() const { return m_parent.size(); }
    /// The (thread, node) entry of a stack: its node in profile() is that profile's threadCosts.node[entry].
    uint32_t stackEntry(uint32_t stack) const { return m_stacks[stack].entry; }
    /// An immutable profile of everything added so far; with `stacks`, also each stack's line entries
    /// (Profile::stacks without leafAddress, which the caller fills). With `take` (the final profile), the
    /// tree frees what only adding needs and moves its arrays into the profile instead of copying them, which
    /// lowers the import's peak memory; the tree cannot be used after that (std::logic_error).
    Profile profile(ProfileMeta meta, bool stacks = false, bool take = false);

private:
    uint32_t child(uint32_t parent, FrameId frame);
    uint32_t newChild(uint32_t parent, FrameId frame);
    /// The (thread, node) entry, made when new.
    uint32_t entryOf(uint32_t thread, uint32_t node);
    /// m_stacks[stack]'s lines (each once) and leaf line, its lines appended to m_stackLines.
    template <typename R>
    void listStackLines(uint32_t stack, std::span<const R> rootToLeaf,
                        std::span<const uint32_t> refLineEntry);
    uint32_t lineEntry(FrameId frame, SourceLine where);

    StringTable m_strings;
    FrameTable m_frames;
    std::vector<CostType> m_types;
    std::vector<ThreadInfo> m_threads;
    std::vector<NodeId> m_parent;
    std::vector<FrameId> m_frame;
    // children as singly linked sibling lists (0 = none: the root is nobody's child)
    std::vector<uint32_t> m_firstChild, m_nextSibling;
    bool m_sealed = false; ///< the last batch is in: new nodes are not linked as children
    /// The nodes are in CallTree's order (preorder, name-sorted siblings): true while all of them came from
    /// one batch into the empty tree.
    bool m_preorder = false;
    // (thread, node) entries: the tree's self costs split by thread
    std::vector<uint32_t> m_entryThread;
    std::vector<NodeId> m_entryNode;
    std::vector<std::vector<int64_t>> m_entryCost; // [type][entry]
    IndexTable m_entries;                          // (thread, node) -> entry
    // (frame, file, line) entries: per-line costs
    struct Line {
        FrameId frame;
        SourceLine where;
    };
    std::vector<Line> m_lines;
    std::vector<std::vector<int64_t>> m_lineSelf, m_lineTotal; // [type][line]
    IndexTable m_lineIndex;                                    // (frame, file, line) -> line
    std::vector<uint32_t> m_lineStamp;                         // last stack that touched the line
    // per stack: its entry, the line entries it touches (each once) and the leaf's line entry
    struct Stack {
        uint32_t entry, linesFirst, linesCount, leafLine;
    };
    std::vector<Stack> m_stacks;
    std::vector<uint32_t> m_stackLines;
    bool m_taken = false; ///< profile(…, take = true) took the arrays
};

} // namespace scorch::detail
