#include "compare/comparetoolbar.h"

#include <QAction>
#include <QActionGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>

namespace scorch {

CompareToolBar::CompareToolBar(QWidget* parent)
    : QToolBar(parent) {
    setObjectName(QStringLiteral("compareToolBar"));

    setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* modes = new QActionGroup(this);
    m_diffMode = addAction(tr("Differential"), this, [this] { Q_EMIT modeChosen(false); });
    m_diffMode->setToolTip(tr("One flame graph coloured by the change of each frame"));
    m_sideMode = addAction(tr("Side by Side"), this, [this] { Q_EMIT modeChosen(true); });
    m_sideMode->setToolTip(tr("The two flame graphs next to each other, zoom and selection synchronised"));
    m_sandwichMode = addAction(tr("Sandwich"), this, [this] { Q_EMIT sandwichChosen(); });
    m_sandwichMode->setToolTip(tr("Callers and callees of one function over all its call sites, coloured by "
                                  "change (a chart frame's menu: Show in Sandwich, key S)"));
    for (QAction* a : {m_diffMode, m_sideMode, m_sandwichMode}) {
        a->setCheckable(true);
        modes->addAction(a);
    }
    addSeparator();
    auto* orientation = new QActionGroup(this);
    m_flame = addAction(tr("Flame"), this,
                        [this] { Q_EMIT orientationChosen(FlameGraphView::Orientation::Flame); });
    m_icicle = addAction(tr("Icicle"), this,
                         [this] { Q_EMIT orientationChosen(FlameGraphView::Orientation::Icicle); });
    for (QAction* a : {m_flame, m_icicle}) {
        a->setCheckable(true);
        orientation->addAction(a);
    }
    m_flame->setChecked(true);
    addSeparator();

    auto label = [this](const QString& text) {
        addWidget(new QLabel(text + QLatin1Char(' '), this));
    };
    label(tr("Δ of"));
    m_metricBox = new QComboBox(this);
    m_metricBox->addItems({tr("Total"), tr("Self")});
    m_metricBox->setToolTip(tr("Compare each frame's total (inclusive) cost or its self cost"));
    addWidget(m_metricBox);
    label(tr(" Widths"));
    m_widthBox = new QComboBox(this);
    m_widthBox->addItems({tr("After"), tr("Before"), tr("Max")});
    m_widthBox->setToolTip(tr("What the differential chart's frame widths show"));
    addWidget(m_widthBox);
    m_missingBox = new QCheckBox(tr("Show removed"), this);
    m_missingBox->setChecked(true);
    m_missingBox->setToolTip(tr("Draw the stacks that exist only in the profile the widths do not follow"));
    addWidget(m_missingBox);
    addSeparator();
    m_normalizeBox = new QCheckBox(tr("Normalize"), this);
    m_normalizeBox->setObjectName(QStringLiteral("normalize"));
    m_normalizeBox->setToolTip(tr("Scale “before” to the total of “after” (difffolded -n)"));
    addWidget(m_normalizeBox);
    m_stripHexBox = new QCheckBox(tr("Strip hex"), this);
    m_stripHexBox->setToolTip(tr("Treat hexadecimal literals in names as equal (difffolded -s)"));
    addWidget(m_stripHexBox);
    m_modulesBox = new QCheckBox(tr("Modules"), this);
    m_modulesBox->setObjectName(QStringLiteral("matchModules"));
    m_modulesBox->setChecked(true);
    m_modulesBox->setToolTip(tr("Match frames by module as well as function name (when both profiles "
                                "know modules; folded stacks have none)"));
    addWidget(m_modulesBox);
    addSeparator();
    label(tr("Noise floor"));
    m_noiseSamples = new QSpinBox(this);
    m_noiseSamples->setRange(0, 1000000000);
    m_noiseSamples->setToolTip(tr("Deltas smaller than this many cost units are noise"));
    addWidget(m_noiseSamples);
    label(tr(" or"));
    m_noisePercent = new QDoubleSpinBox(this);
    m_noisePercent->setRange(0, 100);
    m_noisePercent->setDecimals(2);
    m_noisePercent->setSingleStep(0.1);
    m_noisePercent->setSuffix(QStringLiteral(" %"));
    m_noisePercent->setToolTip(tr("Deltas smaller than this share of the larger total are noise"));
    addWidget(m_noisePercent);
    m_noiseMode = new QComboBox(this);
    m_noiseMode->addItems({tr("Grey"), tr("Hide")});
    m_noiseMode->setToolTip(tr("Draw noise grey, or hide it from the differential chart and the table"));
    addWidget(m_noiseMode);
    addSeparator();
    addAction(tr("Find…"), this, &CompareToolBar::findRequested);
    addAction(tr("Reset Zoom"), this, &CompareToolBar::resetZoomRequested);

    connect(m_metricBox, &QComboBox::activated, this,
            [this](int i) { Q_EMIT metricChosen(i == 1 ? DiffMetric::Self : DiffMetric::Total); });
    auto widthChanged = [this] {
        Q_EMIT widthBasisChosen(static_cast<DiffWidth>(std::clamp(m_widthBox->currentIndex(), 0, 2)),
                                m_missingBox->isChecked());
    };
    connect(m_widthBox, &QComboBox::activated, this, widthChanged);
    connect(m_missingBox, &QCheckBox::toggled, this, widthChanged);
    auto optionsChanged = [this] {
        Q_EMIT diffOptionsChosen(m_normalizeBox->isChecked(), m_stripHexBox->isChecked(),
                                 m_modulesBox->isChecked());
    };
    connect(m_normalizeBox, &QCheckBox::toggled, this, optionsChanged);
    connect(m_stripHexBox, &QCheckBox::toggled, this, optionsChanged);
    connect(m_modulesBox, &QCheckBox::toggled, this, optionsChanged);
    auto noiseChanged = [this] {
        Q_EMIT noiseFloorChosen(m_noiseSamples->value(), m_noisePercent->value(),
                                m_noiseMode->currentIndex() == 1);
    };
    connect(m_noiseSamples, &QSpinBox::valueChanged, this, noiseChanged);
    connect(m_noisePercent, &QDoubleSpinBox::valueChanged, this, noiseChanged);
    connect(m_noiseMode, &QComboBox::activated, this, noiseChanged);
}

void CompareToolBar::showMode(bool sideBySide) {
    m_sideBySide = sideBySide;
    (sideBySide ? m_sideMode : m_diffMode)->setChecked(true);
    m_widthBox->setEnabled(!sideBySide);
    m_missingBox->setEnabled(!sideBySide && m_widthBox->currentIndex() != static_cast<int>(DiffWidth::Max));
}

void CompareToolBar::showSandwichMode() {
    m_sideBySide = false;
    m_sandwichMode->setChecked(true);
    m_widthBox->setEnabled(true); // the sandwich is taken from the differential chart's widths
    m_missingBox->setEnabled(m_widthBox->currentIndex() != static_cast<int>(DiffWidth::Max));
}

void CompareToolBar::showOrientation(FlameGraphView::Orientation orientation) {
    (orientation == FlameGraphView::Orientation::Flame ? m_flame : m_icicle)->setChecked(true);
}

void CompareToolBar::showMetric(DiffMetric metric) {
    m_metricBox->setCurrentIndex(metric == DiffMetric::Self ? 1 : 0);
}

void CompareToolBar::showWidthBasis(DiffWidth width, bool showMissing) {
    const QSignalBlocker a(m_widthBox), b(m_missingBox);
    m_widthBox->setCurrentIndex(static_cast<int>(width));
    m_missingBox->setChecked(showMissing);
    m_missingBox->setText(width == DiffWidth::Before ? tr("Show added") : tr("Show removed"));
    m_missingBox->setEnabled(width != DiffWidth::Max && !m_sideBySide);
}

void CompareToolBar::showDiffOptions(const DiffOptions& options) {
    const QSignalBlocker a(m_normalizeBox), b(m_stripHexBox), c(m_modulesBox);
    m_modulesBox->setChecked(options.matchModules);
    m_normalizeBox->setChecked(options.normalize);
    m_stripHexBox->setChecked(options.stripHex);
}

void CompareToolBar::showNoiseFloor(const NoiseFloor& floor, bool hide, int decimals) {
    const QSignalBlocker a(m_noiseSamples), b(m_noisePercent), c(m_noiseMode);
    m_noiseSamples->setValue(
        static_cast<int>(std::min<int64_t>(floor.samples / pow10(decimals), 1000000000)));
    m_noisePercent->setValue(floor.percent);
    m_noiseMode->setCurrentIndex(hide ? 1 : 0);
}

} // namespace scorch
