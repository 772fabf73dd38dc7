#include "scorch/chartdata.h"

#include "scorch/analysis.h"

namespace scorch {

std::shared_ptr<const ChartData> ChartData::fromProfile(std::shared_ptr<const Profile> profile,
                                                        std::size_t costType) {
    return derive(std::move(profile), costType, {}, {});
}

namespace {
bool subsetOfThreads(const Profile& profile, const std::vector<uint32_t>& threads) {
    return !threads.empty() && threads.size() < profile.threads.size();
}
} // namespace

bool ChartData::needsDerivedTree(const Profile& profile, const std::vector<uint32_t>& threads,
                                 const std::vector<TreeTransform>& transforms) {
    return subsetOfThreads(profile, threads) || !transforms.empty();
}

std::shared_ptr<const ChartData> ChartData::derive(std::shared_ptr<const Profile> profile,
                                                   std::size_t costType, std::vector<uint32_t> threads,
                                                   std::vector<TreeTransform> transforms) {
    std::optional<CallTree> derived;
    if (subsetOfThreads(*profile, threads)) {
        derived = profile->tree;
        derived->setSelfCosts(selfCostsForThreads(*profile, threads));
    }
    if (!transforms.empty())
        derived = applyTransforms(*profile, derived ? *derived : profile->tree, transforms);
    auto data = std::make_shared<ChartData>(std::move(profile), std::move(derived));
    data->costType = costType;
    data->threads = std::move(threads);
    data->transforms = std::move(transforms);
    return data;
}

const FlameLayout& ChartData::layout() const {
    std::call_once(m_layoutOnce, [this] {
        m_layout.setTree(&tree, costType);
        m_layoutThread = std::this_thread::get_id();
    });
    return m_layout;
}

} // namespace scorch
