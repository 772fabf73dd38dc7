#include "compare/diffbuild.h"

namespace scorch {

DiffBuild DiffBuild::run(const Profile& before, const Profile& after, const DiffOptions& options,
                         DiffLayoutOptions layout, std::optional<NoiseFloor> hideNoise) {
    DiffBuild built;
    try {
        built.diff = std::make_shared<const Profile>(diffProfiles(before, 0, after, 0, options));
        built.functions = functionDeltas(*built.diff);
        built.layoutOptions = layout;
        built.layoutOptions.hideBelow = hideNoise ? hideNoise->threshold(built.diff->tree) : 0;
        built.layout = diffLayoutTree(built.diff->tree, built.layoutOptions);
    } catch (const std::bad_alloc&) {
        built.error = QStringLiteral("out of memory while comparing the profiles");
    } catch (const std::exception& e) {
        built.error = QString::fromUtf8(e.what());
    }
    if (!built.error.isEmpty())
        built = DiffBuild{{}, {}, {}, {}, built.error};
    return built;
}

} // namespace scorch
