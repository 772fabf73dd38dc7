// DiffFunctionModel: the comparison's function table, one row per function of a diff profile with its self
// and total cost before and after and their deltas; DiffFunctionProxy sorts it by raw values and filters it
// (regressions / improvements only, noise floor).
#pragma once

#include "scorch/diff.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <memory>
#include <vector>

namespace scorch {

class DiffFunctionModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Function,
        DeltaSelf,
        DeltaTotal,
        DeltaTotalPercent,
        SelfBefore,
        SelfAfter,
        TotalBefore,
        TotalAfter,
        Status,
        ColumnCount
    };
    /// Raw numbers (qint64; double for percentages) for sorting; Qt::UserRole + 1 holds the frame id.
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int FrameRole = Qt::UserRole + 1;

    explicit DiffFunctionModel(QObject* parent = nullptr);

    /// Shows every function of `diff` (a model reset).
    void setDiff(std::shared_ptr<const Profile> diff);
    /// The same with the rows already computed (functionDeltas(*diff), e.g. off the GUI thread).
    void setDiff(std::shared_ptr<const Profile> diff, std::vector<FunctionDelta> functions);
    const std::vector<FunctionDelta>& functions() const { return m_rows; }
    /// The row of a function, or -1.
    int rowOfFrame(FrameId frame) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Profile> m_diff;
    std::vector<FunctionDelta> m_rows;
};

/// A change in percent as the comparison shows it: "+12.5%", "-3.0%", "0.0%".
QString signedPercentText(double percent);

class DiffFunctionProxy final : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Show { All, Regressions, Improvements };
    explicit DiffFunctionProxy(QObject* parent = nullptr);
    /// Which rows: all, or those whose delta (by `metric`) is positive / negative, and not below `hideBelow`.
    void setFilter(Show show, DiffMetric metric, int64_t hideBelow);

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;
    /// Delta columns sort by magnitude, so the largest changes lead whichever way they go (the
    /// Improvements list starts with the biggest shrink); the sign breaks ties.
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    Show m_show = Show::All;
    DiffMetric m_metric = DiffMetric::Total;
    int64_t m_hideBelow = 0;
};

} // namespace scorch
