#include "tables/calltreemodel.h"

#include "common/qtprofile.h"

namespace scorch {

QString tableCostText(int64_t value, const CostType& type) {
    if (type.unit != CostUnit::Samples)
        return toQString(formatCost(value, type));
    CostType count = type;
    count.unit = CostUnit::Count; // same number without the " samples" suffix
    return toQString(formatCost(value, count));
}

QString percentText(int64_t value, int64_t whole) {
    if (whole == 0)
        return {};
    return QString::number(100.0 * static_cast<double>(value) / static_cast<double>(whole), 'f', 1) +
           QLatin1Char('%');
}

QVariant costCellData(const Profile& profile, std::size_t costType, int64_t whole, FrameId frame,
                      int64_t self, int64_t total, int column, int role) {
    const auto col = static_cast<CostColumn>(column);
    const CostType& type = profile.costTypes[costType];
    const double fraction = [&] {
        const int64_t v = col == CostColumn::SelfPercent ? self : total;
        return whole == 0 ? 0.0 : static_cast<double>(v) / static_cast<double>(whole);
    }();
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case CostColumn::Function:
            return frameShortName(profile, frame);
        case CostColumn::Module: {
            // The file name; the full path is in the tooltip.
            const std::string_view module = profile.strings.view(profile.frames[frame].module);
            const std::size_t slash = module.rfind('/');
            return displayText(slash == std::string_view::npos || slash + 1 == module.size()
                                   ? module
                                   : module.substr(slash + 1));
        }
        case CostColumn::Self:
            return tableCostText(self, type);
        case CostColumn::Total:
            return tableCostText(total, type);
        case CostColumn::SelfPercent:
            return percentText(self, whole);
        case CostColumn::TotalPercent:
            return percentText(total, whole);
        case CostColumn::Count:
            break;
        }
        break;
    case SortRole:
        switch (col) {
        case CostColumn::Function: // the full name: sorting and filtering see what the short name hides
            return frameDisplayName(profile, frame);
        case CostColumn::Module:
            return costCellData(profile, costType, whole, frame, self, total, column, Qt::DisplayRole);
        case CostColumn::Self:
        case CostColumn::SelfPercent:
        case CostColumn::Total:
        case CostColumn::TotalPercent:
        case CostColumn::Count:
            return static_cast<qlonglong>(costOfColumn(column, self, total)); // (as sortCost() sorts)
        }
        break;
    case FractionRole:
        if (col == CostColumn::SelfPercent || col == CostColumn::TotalPercent)
            return fraction;
        break;
    case FrameRole:
        return frame.value;
    case Qt::ToolTipRole:
        if (col == CostColumn::Module)
            return displayText(profile.strings.view(profile.frames[frame].module));
        return QString(frameDisplayName(profile, frame) + QLatin1Char('\n') +
                       QObject::tr("Self: %1").arg(costWithPercent(profile, costType, self, whole)) +
                       QLatin1Char('\n') +
                       QObject::tr("Total: %1").arg(costWithPercent(profile, costType, total, whole)));
    case Qt::TextAlignmentRole:
        if (col != CostColumn::Function && col != CostColumn::Module)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default:
        break;
    }
    return {};
}

QVariant costHeaderData(int section, Qt::Orientation orientation, int role, const QString& selfTip,
                        const QString& totalTip) {
    if (orientation != Qt::Horizontal || section < 0 || section >= static_cast<int>(CostColumn::Count))
        return {};
    const auto col = static_cast<CostColumn>(section);
    if (role == Qt::DisplayRole) {
        switch (col) {
        case CostColumn::Function:
            return QObject::tr("Function");
        case CostColumn::Module:
            return QObject::tr("Module");
        case CostColumn::Self:
            return QObject::tr("Self");
        case CostColumn::SelfPercent:
            return QObject::tr("Self %");
        case CostColumn::Total:
            return QObject::tr("Total");
        case CostColumn::TotalPercent:
            return QObject::tr("Total %");
        case CostColumn::Count:
            break;
        }
    } else if (role == Qt::ToolTipRole) {
        if (col == CostColumn::Self || col == CostColumn::SelfPercent)
            return selfTip;
        if (col == CostColumn::Total || col == CostColumn::TotalPercent)
            return totalTip;
    }
    return {};
}

CallTreeModelBase::CallTreeModelBase(QObject* parent)
    : QAbstractItemModel(parent) {}

CallTreeModelBase::~CallTreeModelBase() = default;

void CallTreeModelBase::setTableData(std::shared_ptr<const TreeTableData> data) {
    beginResetModel();
    m_data = std::move(data);
    endResetModel();
}

QModelIndex CallTreeModelBase::indexOfNode(NodeId node, int column) const {
    if (!m_data || node == kRootNode || node >= m_data->row.size())
        return {};
    // Hidden nodes (no cost) have no row: check that the node really sits at its row.
    const NodeId parent = m_data->tree->parent(node);
    const uint32_t row = m_data->row[node];
    if (row >= m_data->childCount[parent] || m_data->child(parent, row) != node)
        return {};
    return createIndex(static_cast<int>(row), column, static_cast<quintptr>(node));
}

NodeId CallTreeModelBase::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<NodeId>(index.internalId()) : kRootNode;
}

QModelIndex CallTreeModelBase::index(int row, int column, const QModelIndex& parent) const {
    if (!m_data || row < 0 || column < 0 || column >= columnCount() ||
        (parent.isValid() && parent.column() != 0))
        return {};
    const NodeId p = nodeOf(parent);
    if (static_cast<uint32_t>(row) >= m_data->childCount[p])
        return {};
    return createIndex(row, column, static_cast<quintptr>(m_data->child(p, static_cast<uint32_t>(row))));
}

QModelIndex CallTreeModelBase::parent(const QModelIndex& child) const {
    if (!m_data || !child.isValid())
        return {};
    return indexOfNode(m_data->tree->parent(nodeOf(child)));
}

int CallTreeModelBase::rowCount(const QModelIndex& parent) const {
    if (!m_data || (parent.isValid() && parent.column() != 0))
        return 0;
    return static_cast<int>(m_data->childCount[nodeOf(parent)]);
}

int CallTreeModelBase::columnCount(const QModelIndex& parent) const {
    return parent.isValid() && parent.column() != 0 ? 0 : static_cast<int>(CostColumn::Count);
}

QVariant CallTreeModelBase::data(const QModelIndex& index, int role) const {
    if (!m_data || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const NodeId n = nodeOf(index);
    if (role == NodeRole)
        return n;
    const auto [self, total] = rowCosts(*m_data, n);
    return costCellData(m_data->profile(), m_data->costType, m_data->grandTotal, m_data->tree->frame(n), self,
                        total, index.column(), role);
}

int64_t CallTreeModelBase::sortCost(const QModelIndex& index) const {
    if (!m_data)
        return 0;
    const auto [self, total] = rowCosts(*m_data, nodeOf(index));
    return costOfColumn(index.column(), self, total);
}

QVariant CallTreeModelBase::headerData(int section, Qt::Orientation orientation, int role) const {
    return costHeaderData(section, orientation, role, selfToolTip(), totalToolTip());
}

TopDownModel::TopDownModel(QObject* parent)
    : CallTreeModelBase(parent) {}

std::pair<int64_t, int64_t> TopDownModel::rowCosts(const TreeTableData& data, NodeId n) const {
    return {data.tree->self(data.costType, n), data.tree->total(data.costType, n)};
}

QString TopDownModel::selfToolTip() const {
    return tr("Cost spent in this function at this call path, not in its callees");
}

QString TopDownModel::totalToolTip() const {
    return tr("Cost of this call path including everything it called");
}

BottomUpModel::BottomUpModel(QObject* parent)
    : CallTreeModelBase(parent) {}

QModelIndex BottomUpModel::indexOfFrame(FrameId frame) const {
    const auto data = tableData();
    if (!data)
        return {};
    for (uint32_t r = 0; r < data->childCount[kRootNode]; ++r)
        if (data->tree->frame(data->child(kRootNode, r)) == frame)
            return index(static_cast<int>(r), 0);
    return {};
}

std::pair<int64_t, int64_t> BottomUpModel::rowCosts(const TreeTableData& data, NodeId n) const {
    const int64_t arrived = data.tree->total(data.costType, n);
    return {arrived, arrived};
}

QString BottomUpModel::selfToolTip() const {
    return tr("Cost spent in the top-level function when called through this caller chain");
}

QString BottomUpModel::totalToolTip() const {
    return tr("Cost of the samples whose stack ends with this caller chain");
}

} // namespace scorch
