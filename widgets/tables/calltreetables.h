// CallTreeTables: the Top-down, Bottom-up and Flat function tables under the flame graph, with one filter
// box for all three. It shows a TableData snapshot and reports which node/function the user selected.
#pragma once

#include "tables/modeldata.h"

#include <QWidget>

#include <array>
#include <memory>

class QAbstractItemModel;
class QLabel;
class QLineEdit;
class QMenu;
class QModelIndex;
class QSortFilterProxyModel;
class QTabWidget;
class QTimer;
class QTreeView;

namespace scorch {

class BottomUpModel;
class FunctionListModel;
class TopDownModel;

class CallTreeTables final : public QWidget {
    Q_OBJECT
public:
    enum Page { TopDown, BottomUp, Functions, PageCount };

    explicit CallTreeTables(QWidget* parent = nullptr);
    ~CallTreeTables() override;

    void setTableData(std::shared_ptr<const TableData> data);
    std::shared_ptr<const TableData> tableData() const { return m_data; }
    /// The Bottom-up page is in view: its tree is wanted with the tables (built only then: it is the slowest
    /// part by far).
    bool bottomUpShown() const;
    /// The bottom-up tree asked for by bottomUpWanted(); ignored unless it is of the chart shown.
    void setBottomUp(std::shared_ptr<const TreeTableData> tree);

    /// Selects a node of the top-down tree (its function in the other tables); emits nothing.
    void selectNode(NodeId node);
    /// Selects a function (in the top-down tree: its heaviest node); emits nothing.
    void selectFunction(FrameId frame);

    /// Applies a filter at once (typing in the filter box applies it after a short pause).
    void setFilter(const QString& text);
    /// The context menu of a row ("Show Source", "Show in Sandwich"); the caller owns it.
    QMenu* createContextMenu(Page page, const QModelIndex& index, QWidget* parent);
    QTabWidget* tabs() const { return m_tabs; }
    QTreeView* view(Page page) const { return m_pages[page].view; }
    QSortFilterProxyModel* proxy(Page page) const { return m_pages[page].proxy; }
    QLineEdit* filterEdit() const { return m_filter; }
    TopDownModel* topDownModel() const { return m_topDown; }

Q_SIGNALS:
    /// The user selected a row of the top-down tree.
    void nodeActivated(scorch::NodeId node);
    /// The user selected a row of the bottom-up tree or the function list.
    void functionActivated(scorch::FrameId frame);
    /// "Show Source" on a row.
    void sourceRequested(scorch::FrameId frame);
    /// "Show in Sandwich" on a row.
    void sandwichRequested(scorch::FrameId frame);
    /// The Bottom-up page is shown and the tables have no bottom-up tree of `chart`: build it and hand it to
    /// setBottomUp(). Emitted once per chart.
    void bottomUpWanted(std::shared_ptr<const scorch::ChartData> chart);

private:
    struct PageParts {
        QTreeView* view = nullptr;
        QSortFilterProxyModel* proxy = nullptr;
    };
    PageParts makePage(Page page, QAbstractItemModel* model, const QString& title);
    /// Column widths for the page's current width: the numbers sized to their content, the name taking the
    /// rest and at least 40% (the module column shrinks, then hides, to make room; it stays in the tooltip).
    void fitColumns(Page page);
    bool eventFilter(QObject* watched, QEvent* event) override;
    void onCurrentChanged(Page page, const QModelIndex& current);
    /// The top-down node of `frame` with the biggest total, or kRootNode.
    NodeId heaviestNode(FrameId frame) const;
    void showSource(Page page, const QModelIndex& source);
    /// Emits bottomUpWanted() when the Bottom-up page is shown without its tree; shows "building" meanwhile.
    void askForBottomUp();

    std::shared_ptr<const TableData> m_data;
    QLineEdit* m_filter = nullptr;
    QTabWidget* m_tabs = nullptr;
    TopDownModel* m_topDown = nullptr;
    BottomUpModel* m_bottomUp = nullptr;
    FunctionListModel* m_functions = nullptr;
    QTimer* m_filterDelay = nullptr;
    std::array<PageParts, PageCount> m_pages;
    bool m_selecting = false; // programmatic selection in progress: do not re-emit
    FrameId m_selectedFrame;  // the function selected last, selected again in a bottom-up tree that arrives
    std::weak_ptr<const ChartData> m_bottomUpAsked; // the chart bottomUpWanted() was emitted for
    QLabel* m_building = nullptr;                   // over the Bottom-up page while its tree is built
};

} // namespace scorch
