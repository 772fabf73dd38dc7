#include "source/sourceviewedit.h"

#include "common/contrast.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QPainter>
#include <QTextBlock>
#include <QToolTip>

#include <algorithm>

namespace scorch {

class SourceGutter final : public QWidget {
public:
    explicit SourceGutter(SourceViewEdit* edit)
        : QWidget(edit)
        , m_edit(edit) {}
    QSize sizeHint() const override { return {m_edit->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_edit->paintGutter(event); }
    bool event(QEvent* event) override {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            const QString text = m_edit->gutterToolTip(help->pos());
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), text, this);
            return true;
        }
        return QWidget::event(event);
    }

private:
    SourceViewEdit* m_edit;
};

namespace {

constexpr int kPad = 6;

QColor mix(const QColor& base, const QColor& heat, double amount) {
    amount = std::clamp(amount, 0.0, 1.0);
    return QColor::fromRgbF(static_cast<float>(base.redF() + (heat.redF() - base.redF()) * amount),
                            static_cast<float>(base.greenF() + (heat.greenF() - base.greenF()) * amount),
                            static_cast<float>(base.blueF() + (heat.blueF() - base.blueF()) * amount));
}

const QColor kSelfHeat(226, 62, 40);
const QColor kTotalHeat(240, 170, 50);

} // namespace

SourceViewEdit::SourceViewEdit(QWidget* parent)
    : QPlainTextEdit(parent)
    , m_gutter(new SourceGutter(this)) {
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    connect(this, &QPlainTextEdit::blockCountChanged, this, &SourceViewEdit::updateGutterWidth);
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy)
            m_gutter->scroll(0, dy);
        else
            m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    });
    connect(this, &QPlainTextEdit::cursorPositionChanged, m_gutter, qOverload<>(&QWidget::update));
    updateGutterWidth();
}

void SourceViewEdit::setSourceText(const QString& text, int firstLine) {
    m_firstLine = std::max(1, firstLine);
    setPlainText(text);
    updateGutterWidth();
    updateHighlights();
}

void SourceViewEdit::setCosts(QHash<int, LineCost> costs, int64_t whole) {
    m_costs = std::move(costs);
    m_whole = whole;
    m_maxSelf = m_maxTotal = 0;
    for (const LineCost& c : std::as_const(m_costs)) {
        m_maxSelf = std::max(m_maxSelf, c.self);
        m_maxTotal = std::max(m_maxTotal, c.total);
    }
    updateGutterWidth();
    updateHighlights();
    m_gutter->update();
}

QString SourceViewEdit::percent(int64_t value) const {
    if (value == 0 || m_whole == 0)
        return {};
    const double p = 100.0 * static_cast<double>(value) / static_cast<double>(m_whole);
    if (p > 0 && p < 0.05)
        return QStringLiteral("<0.1%");
    return QString::number(p, 'f', 1) + u'%';
}

QString SourceViewEdit::gutterText(int line) const {
    const auto it = m_costs.constFind(line);
    if (it == m_costs.cend())
        return {};
    return percent(it->self) + QStringLiteral("  ") + percent(it->total);
}

QColor SourceViewEdit::selfHeat(int line) const {
    const LineCost c = cost(line);
    if (c.self <= 0 || m_maxSelf <= 0)
        return Qt::transparent;
    return mix(palette().color(QPalette::Base), kSelfHeat, 0.2 + 0.8 * double(c.self) / double(m_maxSelf));
}

QColor SourceViewEdit::totalHeat(int line) const {
    const LineCost c = cost(line);
    if (c.total <= 0 || m_maxTotal <= 0)
        return Qt::transparent;
    return mix(palette().color(QPalette::Base), kTotalHeat,
               0.15 + 0.85 * double(c.total) / double(m_maxTotal));
}

int SourceViewEdit::gutterWidth() const {
    const QFontMetrics fm(font());
    const int digits = static_cast<int>(QString::number(std::max(1, lastLine())).size());
    int width = kPad + fm.horizontalAdvance(u'9') * digits + kPad;
    if (!m_costs.isEmpty())
        width += 2 * (fm.horizontalAdvance(QStringLiteral("100.0%")) + 2 * kPad);
    return width;
}

void SourceViewEdit::updateGutterWidth() {
    setViewportMargins(gutterWidth(), 0, 0, 0);
    const QRect cr = contentsRect();
    m_gutter->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void SourceViewEdit::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    updateGutterWidth();
}

void SourceViewEdit::changeEvent(QEvent* event) {
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        updateGutterWidth();
    if (event->type() == QEvent::PaletteChange)
        updateHighlights();
}

void SourceViewEdit::updateHighlights() {
    // Lines with self cost get a faint tint across the whole text width, the hottest the strongest.
    QList<QTextEdit::ExtraSelection> selections;
    if (m_maxSelf > 0) {
        for (auto it = m_costs.cbegin(); it != m_costs.cend(); ++it) {
            if (it->self <= 0)
                continue;
            const QTextBlock block = document()->findBlockByNumber(it.key() - m_firstLine);
            if (!block.isValid())
                continue;
            QTextEdit::ExtraSelection sel;
            sel.format.setBackground(mix(palette().color(QPalette::Base), kSelfHeat,
                                         0.08 + 0.3 * double(it->self) / double(m_maxSelf)));
            sel.format.setProperty(QTextFormat::FullWidthSelection, true);
            sel.cursor = QTextCursor(block);
            selections.append(sel);
        }
    }
    setExtraSelections(selections);
}

void SourceViewEdit::paintGutter(QPaintEvent* event) {
    QPainter p(m_gutter);
    const QPalette pal = palette();
    p.fillRect(event->rect(), pal.color(QPalette::AlternateBase));
    const QFontMetrics fm(font());
    const int numberWidth =
        kPad + fm.horizontalAdvance(u'9') * static_cast<int>(QString::number(std::max(1, lastLine())).size());
    const int cellWidth = fm.horizontalAdvance(QStringLiteral("100.0%")) + 2 * kPad;
    const int current = currentLine();
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    while (block.isValid() && top <= event->rect().bottom()) {
        const int height = qRound(blockBoundingRect(block).height());
        if (block.isVisible() && top + height >= event->rect().top()) {
            const int line = block.blockNumber() + m_firstLine;
            int x = 0;
            if (!m_costs.isEmpty()) {
                const auto it = m_costs.constFind(line);
                if (it != m_costs.cend()) {
                    const QRect selfCell(x, top, cellWidth, height),
                        totalCell(x + cellWidth, top, cellWidth, height);
                    const QColor self = selfHeat(line), total = totalHeat(line);
                    p.fillRect(selfCell, self);
                    p.fillRect(totalCell, total);
                    // black or white by the heat: the palette's text is white on a dark one, unreadable on
                    // orange
                    p.setPen(readableTextOn(self));
                    p.drawText(selfCell.adjusted(kPad, 0, -kPad, 0), Qt::AlignRight | Qt::AlignVCenter,
                               percent(it->self));
                    p.setPen(readableTextOn(total));
                    p.drawText(totalCell.adjusted(kPad, 0, -kPad, 0), Qt::AlignRight | Qt::AlignVCenter,
                               percent(it->total));
                }
                x += 2 * cellWidth;
            }
            QFont f = font();
            f.setBold(line == current);
            p.setFont(f);
            p.setPen(pal.color(line == current ? QPalette::Text : QPalette::PlaceholderText));
            p.drawText(QRect(x, top, numberWidth, height), Qt::AlignRight | Qt::AlignVCenter,
                       QString::number(line));
            p.setFont(font());
        }
        block = block.next();
        top += height;
    }
}

QString SourceViewEdit::gutterToolTip(const QPoint& pos) const {
    const int line = cursorForPosition(QPoint(0, pos.y())).blockNumber() + m_firstLine;
    if (!m_toolTip || !m_costs.contains(line))
        return {};
    return m_toolTip(line);
}

void SourceViewEdit::goToLine(int line) {
    const QTextBlock block =
        document()->findBlockByNumber(std::clamp(line - m_firstLine, 0, blockCount() - 1));
    if (!block.isValid())
        return;
    QTextCursor cursor(block);
    setTextCursor(cursor);
    centerCursor();
    m_gutter->update();
}

int SourceViewEdit::firstVisibleLine() const {
    return firstVisibleBlock().blockNumber() + m_firstLine;
}

int SourceViewEdit::lastVisibleLine() const {
    return cursorForPosition(QPoint(0, viewport()->height() - 1)).blockNumber() + m_firstLine;
}

} // namespace scorch
