// SelectionSync: the one place that keeps the chart's selection and the tables' selection in step.
#pragma once

#include "scorch/calltree.h"

#include <QObject>

namespace scorch {

class CallTreeTables;
class FlameGraphView;

class SelectionSync final : public QObject {
    Q_OBJECT
public:
    /// Wires chart -> tables (the selected node and its function) and tables -> chart.
    SelectionSync(FlameGraphView* view, CallTreeTables* tables, QObject* parent = nullptr);

Q_SIGNALS:
    /// The user selected a frame in the chart or a row in a table (the source view follows this).
    void frameSelected(scorch::FrameId frame);

private:
    void chartSelected(NodeId node);
    void tableSelectedNode(NodeId node);
    void tableSelectedFunction(FrameId frame);
    bool sameData() const; ///< tables show the tree the chart shows (tables are built asynchronously)
    /// Tables and chart show trees over the same profile's frames (the chart may be reversed).
    bool sameFrames() const;

    FlameGraphView* m_view;
    CallTreeTables* m_tables;
    bool m_forwarding = false; // a table selection is on its way to the chart: do not bounce it back
};

} // namespace scorch
