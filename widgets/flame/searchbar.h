// SearchBar: the flame graph's find bar (pattern, Regex and Case toggles, matched-cost summary).
#pragma once

#include "scorch/search.h"

#include <QWidget>

#include <optional>

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
    /// "3 of 41": the selected match's position among the matches, heaviest first.
    QLabel* counterLabel() const;
    QToolButton* nextButton() const;
    QToolButton* previousButton() const;
    /// "Sandwich": the selected match's function (the heaviest match when none is selected) in the
    /// Sandwich tab (Ctrl+Enter).
    QToolButton* sandwichButton() const;

    /// Shows "Matched: <matched> (x.x% of total)"; `matchedText` is the formatted matched cost.
    void setResult(int matchingNodes, const QString& matchedText, double percentOfTotal);
    /// Shows the selected match's position: "3 of 41", or "41 matches" when no match is selected.
    void setPosition(int index, int count);
    /// Clears pattern and result (does not emit queryChanged).
    void clear();

    /// Narrow (a 1024 px wide screen): no "Find:" label, ".*" and "Aa" for Regex and Case, the matched cost
    /// without its words (they move to the tooltip), so the pattern keeps its room and nothing is cut off.
    bool isCompact() const { return m_compact; }

Q_SIGNALS:
    /// The pattern or an option changed (typing is debounced by a short timer).
    void queryChanged(const scorch::SearchQuery& query);
    void nextRequested();     ///< Enter, F3 or the Next button
    void previousRequested(); ///< Shift+Enter, Shift+F3 or the Previous button
    void closeRequested();    ///< Esc or the close button
    void sandwichRequested(); ///< Ctrl+Enter or the Sandwich button

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void emitQuery();

    QLineEdit* m_edit;
    QToolButton* m_regex;
    QToolButton* m_case;
    QLabel* m_result;
    QLabel* m_counter;
    QToolButton* m_previous;
    QToolButton* m_next;
    QToolButton* m_sandwich;
    QTimer* m_debounce;
    QLabel* m_findLabel;
    bool m_invalid = false;
    bool m_compact = false;
    int m_fullWidth = 0; ///< the full bar's preferred width, measured while it is shown in full
    struct Result {
        int nodes = 0;
        QString matched;
        double percent = 0;
    };
    std::optional<Result> m_lastResult;
    void setCompact(bool compact);
    void showResult();
};

} // namespace scorch
