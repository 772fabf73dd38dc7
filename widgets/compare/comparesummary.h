// CompareSummary: the comparison's summary below the charts: the totals line (before, after, their ratio,
// how frames were matched) and the sortable, filterable table of the functions that changed most. A row
// clicked or reached with the keys reports its function (functionActivated).
#pragma once

#include "scorch/diff.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QTableView;

namespace scorch {

class DiffFunctionModel;
class DiffFunctionProxy;

class CompareSummary final : public QWidget {
    Q_OBJECT
public:
    explicit CompareSummary(QWidget* parent = nullptr);

    /// The totals line; `diff` may be null while the diff is being built.
    void showTotals(const Profile* before, const Profile* after, const Profile* diff,
                    const DiffOptions& options);
    void setDiff(std::shared_ptr<const Profile> diff, std::vector<FunctionDelta> functions);
    /// Rows by the metric's delta; |delta| below `hideBelow` is hidden (0 = nothing hidden).
    void setFilter(DiffMetric metric, int64_t hideBelow);
    /// Sorts by the metric's delta, largest first.
    void sortBy(DiffMetric metric);
    /// Makes the function's row current without reporting it back (the chart's selection); none clears.
    void showFunction(std::optional<FrameId> frame);

Q_SIGNALS:
    void functionActivated(scorch::FrameId frame);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void updateFilter();

    QLabel* m_totals;
    QComboBox* m_showBox;
    QTableView* m_table;
    DiffFunctionModel* m_model;
    DiffFunctionProxy* m_proxy;
    DiffMetric m_metric = DiffMetric::Total;
    int64_t m_hideBelow = 0;
    bool m_keyNavigation = false; // a key press in the table is being handled
};

} // namespace scorch
