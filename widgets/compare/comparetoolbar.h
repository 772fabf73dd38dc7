// CompareToolBar: the comparison view's toolbar: mode, orientation, delta metric, widths, diff options
// (normalize, strip hex, modules) and the noise floor. It only reports what the user chose (signals) and
// shows what the view has (show*() setters, which emit nothing).
#pragma once

#include "flame/flamegraphview.h"
#include "scorch/diff.h"

#include <QToolBar>

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace scorch {

class CompareToolBar final : public QToolBar {
    Q_OBJECT
public:
    explicit CompareToolBar(QWidget* parent = nullptr);

    void showMode(bool sideBySide);
    void showSandwichMode();
    void showOrientation(FlameGraphView::Orientation orientation);
    void showMetric(DiffMetric metric);
    void showWidthBasis(DiffWidth width, bool showMissing);
    void showDiffOptions(const DiffOptions& options);
    /// `decimals`: the fixed-point scale of the diff's costs (the samples box counts whole units).
    void showNoiseFloor(const NoiseFloor& floor, bool hide, int decimals);

Q_SIGNALS:
    void modeChosen(bool sideBySide);
    void sandwichChosen();
    void orientationChosen(scorch::FlameGraphView::Orientation orientation);
    void metricChosen(scorch::DiffMetric metric);
    void widthBasisChosen(scorch::DiffWidth width, bool showMissing);
    /// normalize / strip hex / modules changed; the other options stay as they are.
    void diffOptionsChosen(bool normalize, bool stripHex, bool matchModules);
    /// samples in whole cost units (scale them by the diff's decimals)
    void noiseFloorChosen(int samples, double percent, bool hide);
    void findRequested();
    void resetZoomRequested();

private:
    bool m_sideBySide = false;
    QAction* m_diffMode;
    QAction* m_sideMode;
    QAction* m_sandwichMode;
    QAction* m_flame;
    QAction* m_icicle;
    QComboBox* m_metricBox;
    QComboBox* m_widthBox;
    QCheckBox* m_missingBox;
    QCheckBox* m_normalizeBox;
    QCheckBox* m_stripHexBox;
    QCheckBox* m_modulesBox;
    QSpinBox* m_noiseSamples;
    QDoubleSpinBox* m_noisePercent;
    QComboBox* m_noiseMode;
};

} // namespace scorch
