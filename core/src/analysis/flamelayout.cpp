#include "scorch/flamelayout.h"

namespace scorch {

void FlameLayout::setTree(const CallTree* tree, std::size_t costType) {
    m_tree = tree;
    m_costType = costType;
    m_offset.clear();
    if (tree == nullptr || tree->size() == 0 || costType >= tree->costTypeCount())
        return;
    const CallTree::Costs costs = tree->costs(costType);
    m_offset.assign(tree->size(), 0);
    // Preorder: when node n at depth d is visited, cursor[d] is where n starts (its previous siblings
    // already advanced it) and cursor[d + 1] restarts at n's own offset for n's children.
    std::vector<int64_t> cursor(std::size_t{tree->maxDepth()} + 2, 0);
    for (NodeId n = 0; n < tree->size(); ++n) {
        const uint32_t d = tree->depth(n);
        m_offset[n] = cursor[d];
        addCost(cursor[d],
                std::max<int64_t>(costs.total(n), 0)); // saturating: a corrupt profile may overflow
        cursor[d + 1] = m_offset[n];
    }
}

int64_t FlameLayout::width(NodeId n) const {
    return std::max<int64_t>(m_tree->total(m_costType, n), 0);
}

std::vector<FlameBlock> FlameLayout::blocks(const FlameViewport& vp) const {
    std::vector<FlameBlock> out;
    visit(vp, [&](const FlameBlock& b) { out.push_back(b); });
    return out;
}

} // namespace scorch
