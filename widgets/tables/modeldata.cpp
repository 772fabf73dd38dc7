#include "tables/modeldata.h"

#include "scorch/cancel.h"

#include <algorithm>
#include <future>
#include <utility>

namespace scorch {

std::shared_ptr<const TreeTableData> TreeTableData::fromTree(std::shared_ptr<const ChartData> chart,
                                                             std::shared_ptr<const CallTree> tree,
                                                             const std::atomic<bool>* cancel) {
    auto d = std::make_shared<TreeTableData>();
    const std::size_t type = chart->costType;
    const std::size_t size = tree->size();
    d->costType = type;
    d->grandTotal = tree->costTypeCount() > type ? tree->grandTotal(type) : 0;
    // A node is shown when its subtree holds any cost of this type (totals may cancel out in diffs).
    std::vector<char> shown(size, 0);
    if (tree->costTypeCount() > type) {
        for (NodeId n = static_cast<NodeId>(size); n-- > 1;) {
            if (tree->self(type, n) != 0)
                shown[n] = 1;
            if (shown[n])
                shown[tree->parent(n)] = 1;
        }
    }
    d->childBegin.assign(size, 0);
    d->childCount.assign(size, 0);
    d->row.assign(size, 0);
    d->children.reserve(size);
    for (NodeId n = 0; n < size; ++n) {
        if (n % 65536 == 0 && cancelRequested(cancel))
            return nullptr;
        if (n != kRootNode && !shown[n])
            continue;
        d->childBegin[n] = static_cast<uint32_t>(d->children.size());
        tree->forEachChild(n, [&](NodeId c) {
            if (shown[c])
                d->children.push_back(c);
        });
        const auto begin = d->children.begin() + d->childBegin[n];
        // (by total, ties in tree order as a stable sort leaves them: std::sort, without its buffer and
        // merges)
        std::sort(begin, d->children.end(), [&](NodeId a, NodeId b) {
            const int64_t ta = tree->total(type, a), tb = tree->total(type, b);
            return ta != tb ? ta > tb : a < b;
        });
        d->childCount[n] = static_cast<uint32_t>(d->children.size() - d->childBegin[n]);
        for (uint32_t r = 0; r < d->childCount[n]; ++r)
            d->row[d->children[d->childBegin[n] + r]] = r;
    }
    d->chart = std::move(chart);
    d->tree = std::move(tree);
    return d;
}

std::shared_ptr<const TreeTableData> TreeTableData::topDown(std::shared_ptr<const ChartData> chart,
                                                            const std::atomic<bool>* cancel) {
    std::shared_ptr<const CallTree> tree(chart, &chart->tree); // shares the chart's tree, no copy
    return fromTree(std::move(chart), std::move(tree), cancel);
}

std::shared_ptr<const TreeTableData> TreeTableData::bottomUp(std::shared_ptr<const ChartData> chart,
                                                             const std::atomic<bool>* cancel) {
    std::optional<CallTree> inverted = bottomUpTree(*chart->profile, chart->tree, cancel);
    if (!inverted)
        return nullptr;
    auto tree = std::make_shared<const CallTree>(std::move(*inverted));
    return fromTree(std::move(chart), std::move(tree), cancel);
}

std::shared_ptr<const FunctionTableData> FunctionTableData::build(std::shared_ptr<const ChartData> chart,
                                                                  const std::atomic<bool>* cancel) {
    auto d = std::make_shared<FunctionTableData>();
    const std::size_t type = chart->costType;
    d->costType = type;
    d->grandTotal = chart->tree.costTypeCount() > type ? chart->tree.grandTotal(type) : 0;
    d->rowOfFrame.assign(chart->profile->frames.size(), -1);
    if (chart->tree.costTypeCount() > type) {
        std::optional<std::vector<FunctionCost>> functions =
            functionCosts(*chart->profile, chart->tree, cancel);
        if (!functions)
            return nullptr;
        for (FunctionCost& fc : *functions) {
            if (fc.self[type] == 0 && fc.total[type] == 0)
                continue;
            d->rowOfFrame[fc.frame.value] = static_cast<int32_t>(d->functions.size());
            d->functions.push_back(std::move(fc));
        }
    }
    d->chart = std::move(chart);
    return d;
}

std::shared_ptr<const TableData> TableData::build(std::shared_ptr<const ChartData> chart,
                                                  const std::atomic<bool>* cancel, bool withBottomUp) {
    auto d = std::make_shared<TableData>();
    // The inversion is the slowest part: overlap it with the other two.
    std::future<std::shared_ptr<const TreeTableData>> bottomUp;
    if (withBottomUp)
        bottomUp = std::async(std::launch::async,
                              [chart, cancel] { return TreeTableData::bottomUp(chart, cancel); });
    d->topDown = TreeTableData::topDown(chart, cancel);
    if (d->topDown)
        d->functions = FunctionTableData::build(chart, cancel);
    if (withBottomUp)
        d->bottomUp = bottomUp.get();
    if (!d->topDown || !d->functions || (withBottomUp && !d->bottomUp))
        return nullptr; // (only when cancelled)
    d->chart = std::move(chart);
    return d;
}

std::shared_ptr<const TableData> TableData::withBottomUp(std::shared_ptr<const TreeTableData> tree) const {
    auto d = std::make_shared<TableData>(*this);
    d->bottomUp = std::move(tree);
    return d;
}

} // namespace scorch
