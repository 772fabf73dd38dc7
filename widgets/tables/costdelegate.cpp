#include "tables/costdelegate.h"

#include "tables/calltreemodel.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace scorch {

CostDelegate::CostDelegate(QObject* parent)
    : QStyledItemDelegate(parent) {}

QColor CostDelegate::positiveColor() {
    return QColor(235, 120, 60, 110); // warm, like the hot flame palette
}

QColor CostDelegate::negativeColor() {
    return QColor(60, 130, 235, 110); // cold: cost went down
}

void CostDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                         const QModelIndex& index) const {
    const QVariant fraction = index.data(FractionRole);
    if (!fraction.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // Background (selection, alternate rows) first, then the bar, then the text on top.
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : nullptr;
    if (style)
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const double f = std::clamp(fraction.toDouble(), -1.0, 1.0);
    const QRectF area = QRectF(option.rect).adjusted(2, 3, -2, -3);
    const double width = area.width() * std::abs(f);
    if (width >= 0.5) {
        painter->save();
        painter->setPen(Qt::NoPen);
        painter->setBrush(f < 0 ? negativeColor() : positiveColor());
        // Positive bars grow from the left, negative ones from the right.
        const double x = f < 0 ? area.right() - width : area.left();
        painter->drawRect(QRectF(x, area.top(), width, area.height()));
        painter->restore();
    }
    opt.text = text;
    opt.backgroundBrush = Qt::NoBrush;
    opt.state &= ~QStyle::State_HasFocus;
    if (style) {
        const QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget);
        painter->save();
        painter->setPen(opt.palette.color(opt.state & QStyle::State_Selected ? QPalette::HighlightedText
                                                                             : QPalette::Text));
        painter->drawText(textRect.adjusted(2, 0, -2, 0), static_cast<int>(opt.displayAlignment), text);
        painter->restore();
    }
}

} // namespace scorch
