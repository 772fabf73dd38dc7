#include "tables/functionlistmodel.h"

namespace scorch {

FunctionListModel::FunctionListModel(QObject* parent)
    : QAbstractTableModel(parent) {}

FunctionListModel::~FunctionListModel() = default;

void FunctionListModel::setTableData(std::shared_ptr<const FunctionTableData> data) {
    beginResetModel();
    m_data = std::move(data);
    endResetModel();
}

QModelIndex FunctionListModel::indexOfFrame(FrameId frame, int column) const {
    if (!m_data || frame.value >= m_data->rowOfFrame.size() || m_data->rowOfFrame[frame.value] < 0)
        return {};
    return index(m_data->rowOfFrame[frame.value], column);
}

int FunctionListModel::rowCount(const QModelIndex& parent) const {
    return m_data && !parent.isValid() ? static_cast<int>(m_data->functions.size()) : 0;
}

int FunctionListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(CostColumn::Count);
}

QVariant FunctionListModel::data(const QModelIndex& index, int role) const {
    if (!m_data || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const FunctionCost& f = m_data->functions[static_cast<std::size_t>(index.row())];
    const std::size_t t = m_data->costType;
    return costCellData(m_data->profile(), t, m_data->grandTotal, f.frame, f.self[t], f.total[t],
                        index.column(), role);
}

int64_t FunctionListModel::sortCost(const QModelIndex& index) const {
    if (!m_data)
        return 0;
    const FunctionCost& f = m_data->functions[static_cast<std::size_t>(index.row())];
    return costOfColumn(index.column(), f.self[m_data->costType], f.total[m_data->costType]);
}

QVariant FunctionListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    return costHeaderData(
        section, orientation, role, tr("Cost spent in the function itself, over all call sites"),
        tr("Cost of the samples with the function anywhere on the stack (recursion counted once)"));
}

} // namespace scorch
