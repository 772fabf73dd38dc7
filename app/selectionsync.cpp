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

bool SelectionSync::sameFrames() const {
    const auto tables = m_tables->tableData();
    return tables && m_view->data() && tables->chart->profile == m_view->data()->profile;
}

void SelectionSync::chartSelected(NodeId node) {
    if (m_forwarding)
        return;
    const auto data = m_view->data();
    if (!data || node >= data->tree.size())
        return;
    if (node != kRootNode)
        Q_EMIT frameSelected(data->tree.frame(node));
    if (sameData())
        m_tables->selectNode(node);
    else if (sameFrames() && node != kRootNode) // another tree over the same frames (the reversed chart)
        m_tables->selectFunction(data->tree.frame(node));
}

void SelectionSync::tableSelectedNode(NodeId node) {
    if (!sameData()) {
        const auto tables = m_tables->tableData();
        if (sameFrames() && node != kRootNode && node < tables->chart->tree.size())
            tableSelectedFunction(tables->chart->tree.frame(node));
        return;
    }
    if (node != kRootNode && node < m_view->data()->tree.size())
        Q_EMIT frameSelected(m_view->data()->tree.frame(node));
    m_forwarding = true;
    m_view->selectNode(node);
    m_forwarding = false;
}

void SelectionSync::tableSelectedFunction(FrameId frame) {
    if (!sameFrames())
        return;
    Q_EMIT frameSelected(frame);
    m_forwarding = true;
    m_view->selectFunction(frame);
    m_forwarding = false;
}

} // namespace scorch
