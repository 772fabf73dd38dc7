// SummaryBar: the strip above a profile's chart: format, cost type, total, samples, threads, warnings.
#pragma once

#include "scorch/chartdata.h"

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;

namespace scorch {

class SummaryBar final : public QWidget {
    Q_OBJECT
public:
    explicit SummaryBar(QWidget* parent = nullptr);

    /// Fills the static parts (format, cost types, samples, threads, warnings) from a loaded profile.
    void setProfile(const Profile& profile);
    /// Updates the total for what the chart shows (cost type, thread subset, transforms, time range), and the
    /// samples for a time range's: "N of M" where they are a part of the whole.
    void setData(const ChartData& data);

    QString totalText() const;
    QString samplesText() const;
    QComboBox* costTypeBox() const { return m_costType; }
    QLabel* warningsLabel() const { return m_warnings; }

Q_SIGNALS:
    void costTypeChanged(std::size_t costType);
    /// The warning count was clicked: show the list.
    void warningsRequested();

private:
    QLabel* addField(const QString& caption, QLabel** captionLabel = nullptr);

    QLabel* m_format;
    QComboBox* m_costType;
    QLabel* m_costName;
    QLabel* m_total;
    QLabel* m_samples;
    QLabel* m_threads;
    QLabel* m_warnings;
    QLabel* m_warningsCaption = nullptr;
    // the whole profile's (setProfile): its samples and the grand total of each cost type
    uint64_t m_wholeSamples = 0;
    std::vector<int64_t> m_wholeTotals;
};

} // namespace scorch
