// The colour legend under the flame graph: what the colours of the By Module and By Kind schemes stand for
// (the heaviest modules, the frame kinds present). Hot and System colours carry no meaning: no legend. The
// comparison's differential chart has its own legend (widgets/compare/compareview.cpp).
#pragma once

#include "scorch/chartdata.h"
#include "scorch/flamecolors.h"

#include <QPalette>
#include <QString>

namespace scorch {

/// Rich text for a QLabel: a swatch and a name per colour; empty when the scheme has no legend.
QString flameLegendHtml(const ChartData& data, FlameColorScheme scheme, const QPalette& palette);

} // namespace scorch
