// SearchBar: the flame graph's find bar (pattern, Regex and Case toggles, matched-cost summary).
#pragma once

#include "scorch/search.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTimer;
class QToolButton;

namespace scorch {

class SearchBar : public QWidget {
    Q_OBJECT
public:
    explicit SearchBar(QWidget* parent = nullptr);

    SearchQuery query() const;
    QLineEdit* lineEdit() const;
    QToolButton* regexButton() const;
    QToolButton* caseButton() const;
    QLabel* resultLabel() const;

    /// Shows "Matched: <matched> (x.x% of total)"; `matchedText` is the formatted matched cost.
    void setResult(int matchingNodes, const QString& matchedText, double percentOfTotal);
    /// Clears pattern and result (does not emit queryChanged).
    void clear();

Q_SIGNALS:
    /// The pattern or an option changed (typing is debounced by a short timer).
    void queryChanged(const scorch::SearchQuery& query);
    void nextRequested();     ///< Enter
    void previousRequested(); ///< Shift+Enter
    void closeRequested();    ///< Esc or the close button

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void emitQuery();

    QLineEdit* m_edit;
    QToolButton* m_regex;
    QToolButton* m_case;
    QLabel* m_result;
    QTimer* m_debounce;
    bool m_invalid = false;
};

} // namespace scorch
