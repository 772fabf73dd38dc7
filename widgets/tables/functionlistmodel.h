// The flat function list: one row per function with its self and total cost over all call sites.
#pragma once

#include "tables/calltreemodel.h"

#include <QAbstractTableModel>

#include <memory>

namespace scorch {

class FunctionListModel final : public QAbstractTableModel, public CostSortSource {
    Q_OBJECT
public:
    explicit FunctionListModel(QObject* parent = nullptr);
    ~FunctionListModel() override;

    /// Replaces the shown functions (a model reset).
    void setTableData(std::shared_ptr<const FunctionTableData> data);
    std::shared_ptr<const FunctionTableData> tableData() const { return m_data; }

    /// The row of this function, or an invalid index when it has no cost.
    QModelIndex indexOfFrame(FrameId frame, int column = 0) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    int64_t sortCost(const QModelIndex& index) const override;

private:
    std::shared_ptr<const FunctionTableData> m_data;
};

} // namespace scorch
