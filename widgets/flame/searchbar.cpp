#include "flame/searchbar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

#include <regex>

namespace scorch {

SearchBar::SearchBar(QWidget* parent)
    : QWidget(parent)
    , m_edit(new QLineEdit(this))
    , m_regex(new QToolButton(this))
    , m_case(new QToolButton(this))
    , m_result(new QLabel(this))
    , m_counter(new QLabel(this))
    , m_previous(new QToolButton(this))
    , m_next(new QToolButton(this))
    , m_sandwich(new QToolButton(this))
    , m_debounce(new QTimer(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    auto* label = new QLabel(tr("Find:"), this);
    m_findLabel = label;
    label->setBuddy(m_edit);
    m_edit->setMinimumWidth(fontMetrics().averageCharWidth() * 16);
    m_edit->setPlaceholderText(tr("Function name"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setObjectName(QStringLiteral("searchEdit"));
    m_edit->installEventFilter(this);
    m_regex->setText(tr("Regex"));
    m_regex->setToolTip(tr("Treat the pattern as an ECMAScript regular expression"));
    m_regex->setCheckable(true);
    m_case->setText(tr("Case"));
    m_case->setToolTip(tr("Match case"));
    m_case->setCheckable(true);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Close the find bar (Esc)"));
    close->setAutoRaise(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_counter->setObjectName(QStringLiteral("searchCounter"));
    m_previous->setArrowType(Qt::UpArrow);
    m_previous->setAutoRaise(true);
    m_previous->setToolTip(tr("Previous match (Shift+F3, Shift+Enter)"));
    m_next->setArrowType(Qt::DownArrow);
    m_next->setAutoRaise(true);
    m_next->setToolTip(tr("Next match, heaviest first (F3, Enter)"));
    m_sandwich->setText(tr("Sandwich"));
    m_sandwich->setAutoRaise(true);
    m_sandwich->setToolTip(tr("Show the selected match (or the heaviest) over all its call sites in the "
                              "Sandwich tab (Ctrl+Enter)"));
    // The keys stay visible beside the buttons (the placeholder disappears as soon as one types).
    auto* hint = new QLabel(tr("F3 / Shift+F3"), this);
    hint->setObjectName(QStringLiteral("searchHint"));
    hint->setEnabled(false);
    layout->addWidget(label);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_counter);
    layout->addWidget(m_previous);
    layout->addWidget(m_next);
    layout->addWidget(hint);
    layout->addWidget(m_sandwich);
    layout->addWidget(m_regex);
    layout->addWidget(m_case);
    layout->addWidget(m_result);
    layout->addWidget(close);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(120);
    connect(m_debounce, &QTimer::timeout, this, &SearchBar::emitQuery);
    connect(m_edit, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_regex, &QToolButton::toggled, this, &SearchBar::emitQuery);
    connect(m_case, &QToolButton::toggled, this, &SearchBar::emitQuery);
    connect(close, &QToolButton::clicked, this, &SearchBar::closeRequested);
    connect(m_previous, &QToolButton::clicked, this, &SearchBar::previousRequested);
    connect(m_next, &QToolButton::clicked, this, &SearchBar::nextRequested);
    connect(m_sandwich, &QToolButton::clicked, this, &SearchBar::sandwichRequested);
    setPosition(-1, 0);
}

SearchQuery SearchBar::query() const {
    return {m_edit->text().toStdString(), m_regex->isChecked(), m_case->isChecked()};
}

QLineEdit* SearchBar::lineEdit() const {
    return m_edit;
}
QToolButton* SearchBar::regexButton() const {
    return m_regex;
}
QToolButton* SearchBar::caseButton() const {
    return m_case;
}
QLabel* SearchBar::resultLabel() const {
    return m_result;
}
QLabel* SearchBar::counterLabel() const {
    return m_counter;
}
QToolButton* SearchBar::nextButton() const {
    return m_next;
}
QToolButton* SearchBar::previousButton() const {
    return m_previous;
}
QToolButton* SearchBar::sandwichButton() const {
    return m_sandwich;
}

void SearchBar::setPosition(int index, int count) {
    m_previous->setEnabled(count > 0);
    m_next->setEnabled(count > 0);
    m_sandwich->setEnabled(count > 0);
    if (m_edit->text().isEmpty() || m_invalid)
        m_counter->clear();
    else if (index >= 0 && index < count)
        m_counter->setText(tr("%1 of %2").arg(index + 1).arg(count));
    else
        m_counter->setText(count == 1 ? tr("1 match") : tr("%1 matches").arg(count));
}

void SearchBar::setResult(int matchingNodes, const QString& matchedText, double percentOfTotal) {
    if (m_edit->text().isEmpty()) {
        m_lastResult.reset();
        m_result->clear();
        return;
    }
    if (m_invalid)
        return; // keep "Invalid regular expression"
    m_lastResult = Result{matchingNodes, matchedText, percentOfTotal};
    showResult();
}

void SearchBar::showResult() {
    if (!m_lastResult || m_invalid)
        return;
    const Result& r = *m_lastResult;
    const QString percent = QString::number(r.percent, 'f', 1);
    const QString full = tr("Matched: %1 (%2% of total)").arg(r.matched, percent);
    const QString frames = r.nodes == 1 ? tr("1 frame matches") : tr("%L1 frames match").arg(r.nodes);
    m_result->setText(m_compact ? tr("%1 (%2%)").arg(r.matched, percent) : full);
    m_result->setToolTip(m_compact ? full + u'\n' + frames : frames);
    if (!m_compact && isVisible()) { // a longer result may not fit in full any more
        m_fullWidth = layout()->sizeHint().width();
        if (width() < m_fullWidth)
            setCompact(true);
    }
}

void SearchBar::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (!m_compact)
        m_fullWidth = layout()->sizeHint().width(); // what the full bar wants
    setCompact(width() < m_fullWidth);
}

void SearchBar::setCompact(bool compact) {
    if (compact == m_compact)
        return;
    m_compact = compact;
    m_findLabel->setVisible(!compact);
    m_regex->setText(compact ? QStringLiteral(".*") : tr("Regex"));
    m_case->setText(compact ? QStringLiteral("Aa") : tr("Case"));
    showResult();
}

void SearchBar::clear() {
    const QSignalBlocker blocker(m_edit);
    m_debounce->stop();
    m_edit->clear();
    m_lastResult.reset();
    m_result->clear();
    m_counter->clear();
    m_invalid = false;
    m_edit->setStyleSheet({});
}

void SearchBar::emitQuery() {
    m_debounce->stop();
    const SearchQuery q = query();
    bool valid = true;
    if (q.regex && !q.pattern.empty()) {
        try {
            std::regex re(q.pattern);
        } catch (const std::regex_error&) {
            valid = false;
        }
    }
    m_invalid = !valid;
    m_edit->setStyleSheet(valid ? QString() : QStringLiteral("QLineEdit { color: #d0103a; }"));
    if (!valid)
        m_result->setText(tr("Invalid regular expression"));
    Q_EMIT queryChanged(q);
}

bool SearchBar::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        switch (key->key()) {
        case Qt::Key_Return:
        case Qt::Key_Enter:
            if (m_debounce->isActive())
                emitQuery();
            if (key->modifiers() & Qt::ControlModifier)
                Q_EMIT sandwichRequested();
            else if (key->modifiers() & Qt::ShiftModifier)
                Q_EMIT previousRequested();
            else
                Q_EMIT nextRequested();
            return true;
        case Qt::Key_F3: // also without the main window's Find Next action
            if (key->modifiers() & Qt::ShiftModifier)
                Q_EMIT previousRequested();
            else
                Q_EMIT nextRequested();
            return true;
        case Qt::Key_Escape:
            Q_EMIT closeRequested();
            return true;
        default:
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace scorch
