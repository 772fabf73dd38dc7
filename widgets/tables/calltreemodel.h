// Item models over the core call tree: a generic tree model base (index/parent/rowCount over a
// TreeTableData) sealed into top-down and bottom-up models, plus the roles and columns shared with the
// flat function list.
#pragma once

#include "tables/modeldata.h"

#include <QAbstractItemModel>

#include <memory>
#include <utility>

namespace scorch {

/// Columns of every cost table (trees and the flat function list).
enum class CostColumn : int { Function, Module, Self, SelfPercent, Total, TotalPercent, Count };

/// Item data roles beyond Qt's.
enum CostRole : int {
    SortRole = Qt::UserRole + 1, ///< numbers for cost columns, the name for text columns
    NodeRole,                    ///< NodeId (trees)
    FrameRole,                   ///< FrameId value
    FractionRole,                ///< signed share of the grand total (double) for the percent columns
};

/// Table text of a cost: the number without a "samples" suffix, units for time and memory.
QString tableCostText(int64_t value, const CostType& type);
/// "12.3%" (signed); empty when `whole` is 0.
QString percentText(int64_t value, int64_t whole);
/// Data shared by the tree and list models for one row.
QVariant costCellData(const Profile& profile, std::size_t costType, int64_t whole, FrameId frame,
                      int64_t self, int64_t total, int column, int role);
/// Header data shared by the tree and list models.
QVariant costHeaderData(int section, Qt::Orientation orientation, int role, const QString& selfTip,
                        const QString& totalTip);

/// A table model whose cost columns the tables' proxy sorts by comparing the costs themselves, not QVariants
/// of them: sorting 100 k functions that way took most of the GUI thread's time when a range's tables were
/// shown (the proxy sorts on every model reset).
class CostSortSource {
public:
    /// The cost a Self, Self %, Total or Total % cell sorts by (what data(SortRole) holds), for a valid
    /// index.
    virtual int64_t sortCost(const QModelIndex& index) const = 0;

protected:
    ~CostSortSource() = default;
};

/// The cost a cost column sorts by: the self cost for Self and Self %, the total otherwise.
inline int64_t costOfColumn(int column, int64_t self, int64_t total) {
    const auto c = static_cast<CostColumn>(column);
    return c == CostColumn::Self || c == CostColumn::SelfPercent ? self : total;
}

/// Whether the column's SortRole is a cost (sortCost()).
inline bool isCostColumn(int column) {
    const auto c = static_cast<CostColumn>(column);
    return c == CostColumn::Self || c == CostColumn::SelfPercent || c == CostColumn::Total ||
           c == CostColumn::TotalPercent;
}

/// index/parent/rowCount over a TreeTableData; subclasses only name what the costs mean.
class CallTreeModelBase : public QAbstractItemModel, public CostSortSource {
    Q_OBJECT
public:
    ~CallTreeModelBase() override;
    int64_t sortCost(const QModelIndex& index) const override;

    /// Replaces the shown tree (a model reset).
    void setTableData(std::shared_ptr<const TreeTableData> data);
    std::shared_ptr<const TreeTableData> tableData() const { return m_data; }

    QModelIndex indexOfNode(NodeId node, int column = 0) const;
    /// kRootNode for an invalid index.
    NodeId nodeOf(const QModelIndex& index) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    explicit CallTreeModelBase(QObject* parent);
    /// The (self, total) costs a row shows for node n of the tree.
    virtual std::pair<int64_t, int64_t> rowCosts(const TreeTableData& data, NodeId n) const = 0;
    /// Tooltips of the Self and Total headers.
    virtual QString selfToolTip() const = 0;
    virtual QString totalToolTip() const = 0;

private:
    std::shared_ptr<const TreeTableData> m_data;
};

/// The call tree from the roots down (what the flame graph draws).
class TopDownModel final : public CallTreeModelBase {
    Q_OBJECT
public:
    explicit TopDownModel(QObject* parent = nullptr);

protected:
    std::pair<int64_t, int64_t> rowCosts(const TreeTableData& data, NodeId n) const override;
    QString selfToolTip() const override;
    QString totalToolTip() const override;
};

/// The inverted tree: functions where cost was spent, their callers below them. Both cost columns show
/// the self cost of the top-level function that arrived through the row's caller chain (the bottom-up
/// table hides the Total columns).
class BottomUpModel final : public CallTreeModelBase {
    Q_OBJECT
public:
    explicit BottomUpModel(QObject* parent = nullptr);
    /// The top-level row of this function, or an invalid index.
    QModelIndex indexOfFrame(FrameId frame) const;

protected:
    std::pair<int64_t, int64_t> rowCosts(const TreeTableData& data, NodeId n) const override;
    QString selfToolTip() const override;
    QString totalToolTip() const override;
};

} // namespace scorch
