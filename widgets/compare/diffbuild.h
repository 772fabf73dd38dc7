// DiffBuild: what the comparison view builds off the GUI thread for one pair of profiles and one set of
// options: the diff profile (scorch/diff.h), the function table's rows and the differential chart's tree.
#pragma once

#include "scorch/diff.h"

#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace scorch {

struct DiffBuild {
    std::shared_ptr<const Profile> diff; ///< null when the build failed
    std::vector<FunctionDelta> functions;
    std::optional<CallTree> layout; ///< the differential chart's tree, for `layoutOptions`
    DiffLayoutOptions layoutOptions;
    QString error;

    /// Builds everything; `hideNoise` is the noise floor when noise is hidden (its threshold depends on the
    /// new diff's totals). Catches errors into `error`.
    static DiffBuild run(const Profile& before, const Profile& after, const DiffOptions& options,
                         DiffLayoutOptions layout, std::optional<NoiseFloor> hideNoise);
};

} // namespace scorch
