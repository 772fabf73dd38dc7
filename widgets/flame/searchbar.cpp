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
    , m_debounce(new QTimer(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    auto* label = new QLabel(tr("Find:"), this);
    label->setBuddy(m_edit);
    m_edit->setPlaceholderText(tr("Function name (Enter: next match, Shift+Enter: previous)"));
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
    layout->addWidget(label);
    layout->addWidget(m_edit, 1);
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

void SearchBar::setResult(int matchingNodes, const QString& matchedText, double percentOfTotal) {
    if (m_edit->text().isEmpty()) {
        m_result->clear();
        return;
    }
    if (m_invalid)
        return; // keep "Invalid regular expression"
    m_result->setText(
        tr("Matched: %1 (%2% of total)").arg(matchedText, QString::number(percentOfTotal, 'f', 1)));
    m_result->setToolTip(tr("%n frame(s) match", nullptr, matchingNodes));
}

void SearchBar::clear() {
    const QSignalBlocker blocker(m_edit);
    m_debounce->stop();
    m_edit->clear();
    m_result->clear();
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
