// Immutable snapshots behind the table models. Built from a ChartData off the GUI thread (they can take a
// while on big profiles), handed to the models by shared pointer and never modified afterwards.
#pragma once

#include "scorch/chartdata.h"

#include "scorch/analysis.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace scorch {

/// A call tree prepared for QAbstractItemModel: per visible node its children (heaviest first) and its
/// row under its parent. Nodes whose subtree has no cost of the shown cost type are left out.
struct TreeTableData {
    std::shared_ptr<const ChartData> chart; ///< what this was built from (profile, cost type, thread subset)
    std::shared_ptr<const CallTree> tree;   ///< chart->tree (top-down) or its inversion (bottom-up)
    std::size_t costType = 0;
    int64_t grandTotal = 0;
    std::vector<uint32_t> childBegin; ///< [node]: first entry of its children in `children`
    std::vector<uint32_t> childCount; ///< [node]: number of visible children
    std::vector<NodeId> children;     ///< children lists, each sorted by descending total
    std::vector<uint32_t> row;        ///< [node]: row under its parent

    const Profile& profile() const { return *chart->profile; }
    NodeId child(NodeId parent, uint32_t r) const { return children[childBegin[parent] + r]; }

    // Each returns nullptr soon after `cancel` (when given) is set.
    /// The tree the chart shows.
    static std::shared_ptr<const TreeTableData> topDown(std::shared_ptr<const ChartData> chart,
                                                        const std::atomic<bool>* cancel = nullptr);
    /// The inverted (callers) tree of the chart's tree.
    static std::shared_ptr<const TreeTableData> bottomUp(std::shared_ptr<const ChartData> chart,
                                                         const std::atomic<bool>* cancel = nullptr);
    static std::shared_ptr<const TreeTableData> fromTree(std::shared_ptr<const ChartData> chart,
                                                         std::shared_ptr<const CallTree> tree,
                                                         const std::atomic<bool>* cancel = nullptr);
};

/// Per-function self/total costs of the chart's tree (thread subset and transforms applied).
struct FunctionTableData {
    std::shared_ptr<const ChartData> chart;
    std::size_t costType = 0;
    int64_t grandTotal = 0;
    std::vector<FunctionCost> functions; ///< only functions with a non-zero cost, in frame-first-seen order
    std::vector<int32_t> rowOfFrame;     ///< [frame id] -> row in `functions`, or -1

    const Profile& profile() const { return *chart->profile; }
    /// nullptr soon after `cancel` (when given) is set.
    static std::shared_ptr<const FunctionTableData> build(std::shared_ptr<const ChartData> chart,
                                                          const std::atomic<bool>* cancel = nullptr);
};

/// Everything the call tree tables show for one ChartData.
struct TableData {
    std::shared_ptr<const ChartData> chart;
    std::shared_ptr<const TreeTableData> topDown, bottomUp; ///< bottomUp null: not built (not asked for)
    std::shared_ptr<const FunctionTableData> functions;

    /// nullptr soon after `cancel` (when given) is set: the tables of a time range that is no longer shown.
    /// The bottom-up tree, the slowest part by far (seconds for millions of nodes), only `withBottomUp`.
    static std::shared_ptr<const TableData> build(std::shared_ptr<const ChartData> chart,
                                                  const std::atomic<bool>* cancel = nullptr,
                                                  bool withBottomUp = true);
    /// A copy with the bottom-up tree of the same chart.
    std::shared_ptr<const TableData> withBottomUp(std::shared_ptr<const TreeTableData> tree) const;
};

} // namespace scorch
