// CostDelegate: draws a bar proportional to the row's share of the total behind the percentage text.
// Negative shares (differential profiles) grow in a different colour.
#pragma once

#include <QStyledItemDelegate>

namespace scorch {

class CostDelegate final : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit CostDelegate(QObject* parent = nullptr);
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;

    /// Bar colours for positive and negative shares.
    static QColor positiveColor();
    static QColor negativeColor();
};

} // namespace scorch
