// SourceViewEdit: the source view's read-only text with a gutter of line numbers and per-line costs (self and
// total, heat-coloured). Used by SourceView; plain QPlainTextEdit, so large files stay fast.
#pragma once

#include <QHash>
#include <QPlainTextEdit>

#include <cstdint>
#include <functional>

namespace scorch {

class SourceViewEdit final : public QPlainTextEdit {
    Q_OBJECT
public:
    struct LineCost {
        int64_t self = 0;
        int64_t total = 0;
    };

    explicit SourceViewEdit(QWidget* parent = nullptr);

    /// Shows `text`, whose first line is line `firstLine` of the file (a window of a large file).
    void setSourceText(const QString& text, int firstLine = 1);
    int firstLine() const { return m_firstLine; }
    /// 1-based file line of the text's last line.
    int lastLine() const { return m_firstLine + blockCount() - 1; }

    /// Costs by 1-based line number; `whole` is what percentages are of (the profile's total).
    void setCosts(QHash<int, LineCost> costs, int64_t whole);
    /// Tooltip of a gutter line with costs (absolute values); empty = no tooltip.
    void setToolTipProvider(std::function<QString(int line)> provider) { m_toolTip = std::move(provider); }
    LineCost cost(int line) const { return m_costs.value(line); }
    bool hasCosts() const { return !m_costs.isEmpty(); }

    /// The text the gutter draws for a line: "<self>  <total>" percentages, empty without costs.
    QString gutterText(int line) const;
    /// Heat colour of a line's self cost cell (transparent when it has none).
    QColor selfHeat(int line) const;
    QColor totalHeat(int line) const;

    /// Puts the cursor on a 1-based file line (clamped to the text shown) and scrolls it to the middle of the
    /// view.
    void goToLine(int line);
    int currentLine() const { return textCursor().blockNumber() + m_firstLine; }
    /// 1-based lines at the top and bottom of the viewport.
    int firstVisibleLine() const;
    int lastVisibleLine() const;

    QWidget* gutter() const { return m_gutter; }
    int gutterWidth() const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    friend class SourceGutter;
    void paintGutter(QPaintEvent* event);
    QString gutterToolTip(const QPoint& pos) const;
    void updateGutterWidth();
    void updateHighlights();
    QString percent(int64_t value) const;

    QWidget* m_gutter;
    QHash<int, LineCost> m_costs;
    int64_t m_whole = 0, m_maxSelf = 0, m_maxTotal = 0;
    int m_firstLine = 1;
    std::function<QString(int)> m_toolTip;
};

} // namespace scorch
