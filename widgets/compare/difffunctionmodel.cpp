#include "compare/difffunctionmodel.h"

#include "common/contrast.h"
#include "common/qtprofile.h"

#include <QBrush>
#include <QColor>
#include <QGuiApplication>
#include <QPalette>

#include <cmath>
#include <cstdlib>

namespace scorch {

namespace {

QString signedCost(int64_t value, const CostType& type) {
    const QString text = toQString(formatCost(value, type));
    return value > 0 ? QStringLiteral("+") + text : text;
}

QString statusText(DiffStatus s) {
    switch (s) {
    case DiffStatus::Same:
        return DiffFunctionModel::tr("same");
    case DiffStatus::Grew:
        return DiffFunctionModel::tr("grew");
    case DiffStatus::Shrank:
        return DiffFunctionModel::tr("shrank");
    case DiffStatus::Added:
        return DiffFunctionModel::tr("added");
    case DiffStatus::Removed:
        return DiffFunctionModel::tr("removed");
    }
    return {};
}

/// Delta in percent of the before value; +inf for added functions.
double percentOf(int64_t delta, int64_t before) {
    if (before == 0)
        return delta == 0 ? 0.0 : (delta > 0 ? 1e300 : -1e300);
    return 100.0 * static_cast<double>(delta) / static_cast<double>(before);
}

} // namespace

QString signedPercentText(double percent) {
    return (percent > 0 ? QStringLiteral("+") : QString()) + QString::number(percent, 'f', 1) +
           QLatin1Char('%');
}

DiffFunctionModel::DiffFunctionModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void DiffFunctionModel::setDiff(std::shared_ptr<const Profile> diff) {
    std::vector<FunctionDelta> rows = diff ? functionDeltas(*diff) : std::vector<FunctionDelta>{};
    setDiff(std::move(diff), std::move(rows));
}

void DiffFunctionModel::setDiff(std::shared_ptr<const Profile> diff, std::vector<FunctionDelta> functions) {
    beginResetModel();
    m_diff = std::move(diff);
    m_rows = std::move(functions);
    endResetModel();
}

int DiffFunctionModel::rowOfFrame(FrameId frame) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].frame == frame)
            return static_cast<int>(i);
    return -1;
}

int DiffFunctionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DiffFunctionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffFunctionModel::data(const QModelIndex& index, int role) const {
    if (!m_diff || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const FunctionDelta& f = m_rows[static_cast<std::size_t>(index.row())];
    const CostType& type = m_diff->costTypes[kAfter];
    const int column = index.column();
    if (role == FrameRole)
        return static_cast<qulonglong>(f.frame.value);
    if (role == SortRole) {
        switch (column) {
        case Function:
            return frameDisplayName(*m_diff, f.frame);
        case DeltaSelf:
            return static_cast<qint64>(f.selfDelta());
        case DeltaTotal:
            return static_cast<qint64>(f.totalDelta());
        case DeltaTotalPercent:
            return percentOf(f.totalDelta(), f.totalBefore);
        case SelfBefore:
            return static_cast<qint64>(f.selfBefore);
        case SelfAfter:
            return static_cast<qint64>(f.selfAfter);
        case TotalBefore:
            return static_cast<qint64>(f.totalBefore);
        case TotalAfter:
            return static_cast<qint64>(f.totalAfter);
        case Status:
            return static_cast<int>(f.status());
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Function:
            return frameShortName(*m_diff, f.frame);
        case DeltaSelf:
            return signedCost(f.selfDelta(), type);
        case DeltaTotal:
            return signedCost(f.totalDelta(), type);
        case DeltaTotalPercent: {
            if (f.totalBefore == 0)
                return f.totalAfter == 0 ? QStringLiteral("0%") : tr("new");
            const double p = percentOf(f.totalDelta(), f.totalBefore);
            return signedPercentText(p);
        }
        case SelfBefore:
            return toQString(formatCost(f.selfBefore, type));
        case SelfAfter:
            return toQString(formatCost(f.selfAfter, type));
        case TotalBefore:
            return toQString(formatCost(f.totalBefore, type));
        case TotalAfter:
            return toQString(formatCost(f.totalAfter, type));
        case Status:
            return statusText(f.status());
        }
        return {};
    }
    if (role == Qt::ForegroundRole &&
        (column == DeltaSelf || column == DeltaTotal || column == DeltaTotalPercent)) {
        const int64_t d = column == DeltaSelf ? f.selfDelta() : f.totalDelta();
        if (d != 0)
            return QBrush(readableOn(d > 0 ? QColor(190, 20, 20) : QColor(20, 80, 200),
                                     QGuiApplication::palette().color(QPalette::Base)));
    }
    if (role == Qt::TextAlignmentRole && column != Function && column != Status)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && column == Function) {
        const Frame& fr = m_diff->frames[f.frame];
        QString tip = frameDisplayName(*m_diff, f.frame);
        if (fr.module)
            tip += QLatin1Char('\n') + displayText(m_diff->strings.view(fr.module));
        return tip;
    }
    return {};
}

QVariant DiffFunctionModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Function:
            return tr("Function");
        case DeltaSelf:
            return tr("Δ Self");
        case DeltaTotal:
            return tr("Δ Total");
        case DeltaTotalPercent:
            return tr("Δ Total %");
        case SelfBefore:
            return tr("Self before");
        case SelfAfter:
            return tr("Self after");
        case TotalBefore:
            return tr("Total before");
        case TotalAfter:
            return tr("Total after");
        case Status:
            return tr("Change");
        }
    }
    if (role == Qt::ToolTipRole) {
        if (section == DeltaSelf)
            return tr("Change of the cost spent in the function itself (after − before)");
        if (section == DeltaTotal)
            return tr("Change of the cost of the samples with the function on the stack (after − before)");
        if (section == DeltaTotalPercent)
            return tr("Δ Total in percent of the total before");
    }
    return {};
}

DiffFunctionProxy::DiffFunctionProxy(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(DiffFunctionModel::SortRole);
    setDynamicSortFilter(true);
}

void DiffFunctionProxy::setFilter(Show show, DiffMetric metric, int64_t hideBelow) {
    m_show = show;
    m_metric = metric;
    m_hideBelow = hideBelow;
    invalidateFilter();
}

bool DiffFunctionProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const int column = left.column();
    if (column != DiffFunctionModel::DeltaSelf && column != DiffFunctionModel::DeltaTotal &&
        column != DiffFunctionModel::DeltaTotalPercent)
        return QSortFilterProxyModel::lessThan(left, right);
    const double a = sourceModel()->data(left, DiffFunctionModel::SortRole).toDouble();
    const double b = sourceModel()->data(right, DiffFunctionModel::SortRole).toDouble();
    if (std::abs(a) != std::abs(b))
        return std::abs(a) < std::abs(b);
    return a < b;
}

bool DiffFunctionProxy::filterAcceptsRow(int row, const QModelIndex& parent) const {
    const auto* model = qobject_cast<const DiffFunctionModel*>(sourceModel());
    if (!model || parent.isValid() || row < 0 || static_cast<std::size_t>(row) >= model->functions().size())
        return true;
    const int64_t d = model->functions()[static_cast<std::size_t>(row)].delta(m_metric);
    if (m_hideBelow > 0 && d > -m_hideBelow && d < m_hideBelow)
        return false;
    switch (m_show) {
    case Show::All:
        return true;
    case Show::Regressions:
        return d > 0;
    case Show::Improvements:
        return d < 0;
    }
    return true;
}

} // namespace scorch
