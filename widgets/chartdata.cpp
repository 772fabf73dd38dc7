#include "chartdata.h"

#include "scorch/analysis.h"

namespace scorch {

std::shared_ptr<const ChartData> ChartData::fromProfile(std::shared_ptr<const Profile> profile,
                                                        std::size_t costType) {
    return derive(std::move(profile), costType, {}, {});
}

std::shared_ptr<const ChartData> ChartData::derive(std::shared_ptr<const Profile> profile,
                                                   std::size_t costType, std::vector<uint32_t> threads,
                                                   std::vector<TreeTransform> transforms) {
    auto data = std::make_shared<ChartData>();
    CallTree base = profile->tree;
    if (!threads.empty() && threads.size() < profile->threads.size())
        base.setSelfCosts(selfCostsForThreads(*profile, threads));
    data->tree = transforms.empty() ? std::move(base) : applyTransforms(*profile, base, transforms);
    data->profile = std::move(profile);
    data->costType = costType;
    data->threads = std::move(threads);
    data->transforms = std::move(transforms);
    return data;
}

} // namespace scorch
