#include "selectionsync.h"

#include "flame/flamegraphview.h"
#include "tables/calltreetables.h"

namespace scorch {

SelectionSync::SelectionSync(FlameGraphView* view, CallTreeTables* tables, QObject* parent)
    : QObject(parent)
    , m_view(view)
    , m_tables(tables) {
    connect(view, &FlameGraphView::nodeSelected, this, &SelectionSync::chartSelected);
    connect(tables, &CallTreeTables::nodeActivated, this, &SelectionSync::tableSelectedNode);
    connect(tables, &CallTreeTables::functionActivated, this, &SelectionSync::tableSelectedFunction);
}

bool SelectionSync::sameData() const {
    const auto tables = m_tables->tableData();
    return tables && tables->chart == m_view->data();
}

void SelectionSync::chartSelected(NodeId node) {
    if (m_forwarding)
        return;
    if (const auto data = m_view->data(); data && node != kRootNode && node < data->tree.size())
        Q_EMIT frameSelected(data->tree.frame(node));
    if (!sameData())
        return;
    m_tables->selectNode(node);
}

void SelectionSync::tableSelectedNode(NodeId node) {
    if (!sameData())
        return;
    if (node != kRootNode && node < m_view->data()->tree.size())
        Q_EMIT frameSelected(m_view->data()->tree.frame(node));
    m_forwarding = true;
    m_view->selectNode(node);
    m_forwarding = false;
}

void SelectionSync::tableSelectedFunction(FrameId frame) {
    if (!sameData())
        return;
    Q_EMIT frameSelected(frame);
    m_forwarding = true;
    m_view->selectFunction(frame);
    m_forwarding = false;
}

} // namespace scorch
